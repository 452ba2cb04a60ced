// Tall-skinny kernels (kernels/tall_skinny.hpp) on the GPU (KBENCH_REQUIRE_GPU): each launcher
// against its CPU reference twin, for float and double, n in {0, 1, 31, 1000, 100003} and
// k in {1, 3, 8, 30, 64}; padding rows (ld > n) that must be neither read (inputs hold NaN
// there) nor written (outputs hold a sentinel there, compared bit for bit); in-place V := V Q;
// beta == 0 with W full of NaN; bitwise determinism.
//
// Tolerances are rounding-error bounds (u = eps(T) / 2, gamma(m) = m u / (1 - m u); the
// reference adds at most u |ref| when it rounds its long double result to T):
// * gemv_t_per_column: each product passes through <= ceil(n / 1024) chain additions, 10 tree
//   levels (block_sum of 1024 threads) and 1 multiply: |gpu - ref| <= gamma(ceil(n / 1024) + 11)
//   sum_i |V(i, j) y(i)| + u |ref|.
// * gemm_rowwise: kv multiply-adds, then alpha *, beta *, +: gamma(kv + 3) (|alpha| sum_i
//   |v_i B(i, c)| + |beta W(r, c)|) + u |ref|.
// * trsm_right_upper: forward substitution is backward stable, x^ (R + dR) = v with
//   |dR| <= gamma(k) |R| (Higham, Thm. 8.5), so |x^ - x| <= gamma(k + 1) |x^| |R| |R^-1|, taken
//   componentwise with |R^-1| computed on the host.
// * gram_batched: cuBLAS sums each block's h products in some order (depth <= h, plus the
//   multiply), the reduction adds ceil(n / h) partials: gamma(h + ceil(n / h) + 2)
//   sum_l |V(l, i) W(l, j)| + u |ref|.
// For double at n = 1e5 these are ~1e-14 .. 1e-13 relative to sum |v||b|; for float ~1e-5.
#include "kernels/base/cuda_handles.hpp"
#include "kernels/base/device_buffer.hpp"
#include "kernels/tall_skinny.hpp"
#include "kernels/test/gpu_test.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <utility>
#include <vector>

namespace kbench::blas {
namespace {

// ---- Helpers ----------------------------------------------------------------------------------

const std::int64_t sizes[] = {0, 1, 31, 1000, 100003};
const int widths[] = {1, 3, 8, 30, 64};
/// (kv, kw) pairs of the two-shape tests: the square ones and a few mixed; kw = 1 and 2 (the
/// narrow gemm_rowwise kernel, its column loop unrolled 4 deep) with kv below, at and past a
/// multiple of 4.
const std::pair<int, int> shapes[] = {{1, 1},  {3, 3},  {8, 8},  {30, 30}, {64, 64}, {1, 64},
                                      {64, 1}, {3, 30}, {2, 1},  {5, 1},   {16, 1},  {17, 2},
                                      {64, 2}, {1, 2}};

template <typename T>
const T sentinel = T(-7.75);

template <typename T>
double gamma(double m)
{
    const double u = std::numeric_limits<T>::epsilon() / 2;
    return m * u / (1.0 - m * u);
}

template <typename T>
double unit_roundoff()
{
    return std::numeric_limits<T>::epsilon() / 2.0;
}

/// A rows x cols column-major matrix with leading dimension ld on the host and the device:
/// entries uniform in [-1, 1) (same seed, same matrix), rows rows..ld-1 set to `pad`.
template <typename T>
struct Matrix {
    std::int64_t rows = 0, ld = 0;
    int cols = 0;
    std::vector<T> host;
    device_buffer<T> device;
    T* ptr() { return device.data(); }
    T& at(std::int64_t i, int j) { return host[static_cast<std::size_t>(i + j * ld)]; }
};

template <typename T>
Matrix<T> make_matrix(std::int64_t rows, int cols, std::int64_t ld, std::uint32_t seed, T pad)
{
    Matrix<T> m;
    m.rows = rows;
    m.cols = cols;
    m.ld = ld;
    m.host.assign(static_cast<std::size_t>(std::max<std::int64_t>(1, ld * cols)), pad);
    std::mt19937 gen(seed);
    std::uniform_real_distribution<T> dist(T(-1), T(1));
    for (int j = 0; j < cols; ++j)
        for (std::int64_t i = 0; i < rows; ++i) m.at(i, j) = dist(gen);
    m.device = device_buffer<T>(m.host);
    return m;
}

template <typename T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b)
{
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

/// Rows rows..ld-1 of every column of `got` have the bits of `before` there.
template <typename T>
void expect_padding_kept(const std::vector<T>& got, const Matrix<T>& before)
{
    for (int j = 0; j < before.cols; ++j) {
        for (std::int64_t i = before.rows; i < before.ld; ++i) {
            const std::size_t e = static_cast<std::size_t>(i + j * before.ld);
            ASSERT_EQ(std::memcmp(&got[e], &before.host[e], sizeof(T)), 0)
                << "padding row " << i << " of column " << j << " was written";
        }
    }
}

/// Expects |got - ref| <= bound[e] + u |ref| for every entry (i < rows, j < cols).
template <typename T>
void expect_close(const std::vector<T>& got, const std::vector<T>& ref,
                  const std::vector<double>& bound, std::int64_t rows, int cols, std::int64_t ld)
{
    int failures = 0;
    for (int j = 0; j < cols; ++j) {
        for (std::int64_t i = 0; i < rows; ++i) {
            const std::size_t e = static_cast<std::size_t>(i + j * ld);
            const double err = std::abs(double(got[e]) - double(ref[e]));
            const double tol = bound[e] + unit_roundoff<T>() * std::abs(double(ref[e]));
            if (!(err <= tol) && ++failures <= 5) {
                ADD_FAILURE() << "(" << i << ", " << j << "): got " << got[e] << ", reference "
                              << ref[e] << ", |error| " << err << " > " << tol;
            }
        }
    }
    EXPECT_EQ(failures, 0);
}

template <typename T>
class TallSkinnyGpuTyped : public ::testing::Test {};
using ValueTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(TallSkinnyGpuTyped, ValueTypes);

// ---- gemv_t_per_column ------------------------------------------------------------------------

TYPED_TEST(TallSkinnyGpuTyped, GemvTPerColumnMatchesReference)
{
    KBENCH_REQUIRE_GPU();
    using T = TypeParam;
    const cuda_stream stream;
    const T nan = std::numeric_limits<T>::quiet_NaN();
    for (std::int64_t n : sizes) {
        for (int k : widths) {
            SCOPED_TRACE(testing::Message() << "n=" << n << " k=" << k);
            Matrix<T> V = make_matrix<T>(n, k, n + 5, 1, nan);
            Matrix<T> y = make_matrix<T>(n, 1, n, 2, nan);
            device_buffer<T> r(std::vector<T>(static_cast<std::size_t>(k), nan));
            gemv_t_per_column<T>(n, k, V.ptr(), V.ld, y.ptr(), r.data(), stream);
            std::vector<T> ref(static_cast<std::size_t>(k));
            reference::gemv_t<T>(n, k, V.host.data(), V.ld, y.host.data(), ref.data());
            std::vector<double> bound(static_cast<std::size_t>(k), 0.0);
            const double g = gamma<T>(std::ceil(double(n) / 1024.0) + 11.0);
            for (int j = 0; j < k; ++j)
                for (std::int64_t i = 0; i < n; ++i)
                    bound[j] += g * std::abs(double(V.at(i, j)) * double(y.at(i, 0)));
            expect_close(r.to_host(), ref, bound, k, 1, k);
        }
    }
}

// ---- gemm_rowwise -------------------------------------------------------------------------

/// Runs gemm_rowwise on the GPU and the reference for one shape, W != V; checks the result and
/// W's padding.
template <typename T>
void check_gemm_rowwise(std::int64_t n, int kv, int kw, T alpha, T beta, cudaStream_t stream)
{
    const T nan = std::numeric_limits<T>::quiet_NaN();
    Matrix<T> V = make_matrix<T>(n, kv, n + 5, 3, nan);
    Matrix<T> B = make_matrix<T>(kv, kw, kv + 2, 4, nan);
    Matrix<T> W = make_matrix<T>(n, kw, n + 3, 5, sentinel<T>);
    gemm_rowwise<T>(n, kv, kw, alpha, V.ptr(), V.ld, B.ptr(), static_cast<int>(B.ld), beta,
                    W.ptr(), W.ld, stream);
    const std::vector<T> got = W.device.to_host();
    std::vector<T> ref = W.host;
    reference::gemm_rowwise<T>(n, kv, kw, alpha, V.host.data(), V.ld, B.host.data(),
                               static_cast<int>(B.ld), beta, ref.data(), W.ld);
    std::vector<double> bound(ref.size(), 0.0);
    const double g = gamma<T>(kv + 3.0);
    for (int c = 0; c < kw; ++c) {
        for (std::int64_t i = 0; i < n; ++i) {
            double s = std::abs(double(beta) * double(W.at(i, c)));
            for (int p = 0; p < kv; ++p)
                s += std::abs(double(alpha) * double(V.at(i, p)) * double(B.at(p, c)));
            bound[static_cast<std::size_t>(i + c * W.ld)] = g * s;
        }
    }
    expect_close(got, ref, bound, n, kw, W.ld);
    expect_padding_kept(got, W);
}

TYPED_TEST(TallSkinnyGpuTyped, GemmRowwiseMatchesReference)
{
    KBENCH_REQUIRE_GPU();
    using T = TypeParam;
    const cuda_stream stream;
    const std::pair<T, T> scalars[] = {{T(1), T(0)}, {T(-1), T(1)}, {T(0.5), T(-2)}};
    for (std::int64_t n : sizes) {
        for (const auto& [kv, kw] : shapes) {
            for (const auto& [alpha, beta] : scalars) {
                if (n == 100003 && kv * kw > 64 && beta != T(1)) continue;  // bound CPU time
                SCOPED_TRACE(testing::Message() << "n=" << n << " kv=" << kv << " kw=" << kw
                                                << " alpha=" << alpha << " beta=" << beta);
                check_gemm_rowwise<T>(n, kv, kw, alpha, beta, stream);
            }
        }
    }
}

TYPED_TEST(TallSkinnyGpuTyped, GemmRowwiseInPlaceVTimesQ)
{
    KBENCH_REQUIRE_GPU();
    using T = TypeParam;
    const cuda_stream stream;
    for (std::int64_t n : {std::int64_t{31}, std::int64_t{1000}, std::int64_t{100003}}) {
        for (int k : widths) {
            SCOPED_TRACE(testing::Message() << "n=" << n << " k=" << k);
            Matrix<T> V = make_matrix<T>(n, k, n + 5, 6, sentinel<T>);
            Matrix<T> Q = make_matrix<T>(k, k, k, 7, T(0));
            gemm_rowwise<T>(n, k, k, T(1), V.ptr(), V.ld, Q.ptr(), k, T(0), V.ptr(), V.ld,
                            stream);
            const std::vector<T> got = V.device.to_host();
            std::vector<T> ref = V.host;
            reference::gemm_rowwise<T>(n, k, k, T(1), ref.data(), V.ld, Q.host.data(), k, T(0),
                                       ref.data(), V.ld);
            std::vector<double> bound(ref.size(), 0.0);
            for (int c = 0; c < k; ++c) {
                for (std::int64_t i = 0; i < n; ++i) {
                    double s = 0.0;
                    for (int p = 0; p < k; ++p)
                        s += std::abs(double(V.at(i, p)) * double(Q.at(p, c)));
                    bound[static_cast<std::size_t>(i + c * V.ld)] = gamma<T>(k + 3.0) * s;
                }
            }
            expect_close(got, ref, bound, n, k, V.ld);
            expect_padding_kept(got, V);
        }
    }
}

// W made of V's last two columns (the fused update of GMRES's one-reduce CGS2 Arnoldi step,
// solvers/gmres_device.hpp: [u, w] := [V_j, u, w] C): every row is read whole before any of it
// is written, so the result is the reference's on the rows as they were.
TYPED_TEST(TallSkinnyGpuTyped, GemmRowwiseOutputColumnsOfV)
{
    KBENCH_REQUIRE_GPU();
    using T = TypeParam;
    const cuda_stream stream;
    for (std::int64_t n : {std::int64_t{31}, std::int64_t{100003}}) {
        for (int k : {2, 3, 17, 64}) {
            for (const T beta : {T(0), T(1)}) {
                SCOPED_TRACE(testing::Message() << "n=" << n << " k=" << k << " beta=" << beta);
                Matrix<T> V = make_matrix<T>(n, k, n + 5, 8, sentinel<T>);
                Matrix<T> C = make_matrix<T>(k, 2, k, 9, T(0));
                T* w = V.ptr() + (k - 2) * V.ld;
                gemm_rowwise<T>(n, k, 2, T(-0.5), V.ptr(), V.ld, C.ptr(), k, beta, w, V.ld,
                                stream);
                const std::vector<T> got = V.device.to_host();
                std::vector<T> ref = V.host;
                reference::gemm_rowwise<T>(n, k, 2, T(-0.5), ref.data(), V.ld, C.host.data(), k,
                                           beta, ref.data() + (k - 2) * V.ld, V.ld);
                std::vector<double> bound(ref.size(), 0.0);
                for (int c = 0; c < 2; ++c) {
                    for (std::int64_t i = 0; i < n; ++i) {
                        double s = std::abs(double(beta) * double(V.at(i, k - 2 + c)));
                        for (int p = 0; p < k; ++p)
                            s += 0.5 * std::abs(double(V.at(i, p)) * double(C.at(p, c)));
                        bound[static_cast<std::size_t>(i + (k - 2 + c) * V.ld)] =
                            gamma<T>(k + 3.0) * s;
                    }
                }
                expect_close(got, ref, bound, n, k, V.ld);
                expect_padding_kept(got, V);
            }
        }
    }
}

TYPED_TEST(TallSkinnyGpuTyped, GemmRowwiseBetaZeroDoesNotReadW)
{
    KBENCH_REQUIRE_GPU();
    using T = TypeParam;
    const cuda_stream stream;
    const T nan = std::numeric_limits<T>::quiet_NaN();
    for (const auto& [kv, kw] : shapes) {
        const std::int64_t n = 1000;
        SCOPED_TRACE(testing::Message() << "kv=" << kv << " kw=" << kw);
        Matrix<T> V = make_matrix<T>(n, kv, n, 8, nan);
        Matrix<T> B = make_matrix<T>(kv, kw, kv, 9, nan);
        device_buffer<T> W(std::vector<T>(static_cast<std::size_t>(n * kw), nan));
        gemm_rowwise<T>(n, kv, kw, T(2), V.ptr(), n, B.ptr(), kv, T(0), W.data(), n, stream);
        const std::vector<T> got = W.to_host();
        std::vector<T> ref(got.size(), nan);
        reference::gemm_rowwise<T>(n, kv, kw, T(2), V.host.data(), n, B.host.data(), kv, T(0),
                                   ref.data(), n);
        for (std::size_t e = 0; e < got.size(); ++e) ASSERT_TRUE(std::isfinite(got[e])) << e;
        std::vector<double> bound(ref.size(), 0.0);
        for (int c = 0; c < kw; ++c)
            for (std::int64_t i = 0; i < n; ++i)
                for (int p = 0; p < kv; ++p)
                    bound[static_cast<std::size_t>(i + c * n)] += gamma<T>(kv + 3.0) * 2.0 *
                        std::abs(double(V.at(i, p)) * double(B.at(p, c)));
        expect_close(got, ref, bound, n, kw, n);
    }
}

// ---- trsm_right_upper ---------------------------------------------------------------------

/// A k x k upper triangular R: diagonal uniform in [1, 2), strictly upper part uniform in
/// [-1/k, 1/k) (so |D^-1 N| has row sums < 1 and R is well conditioned), NaN below.
template <typename T>
Matrix<T> well_conditioned_upper(int k, std::uint32_t seed)
{
    Matrix<T> R = make_matrix<T>(k, k, k, seed, T(0));
    for (int j = 0; j < k; ++j) {
        for (int i = 0; i < k; ++i) {
            if (i == j) R.at(i, j) = T(1.5) + R.at(i, j) / T(2);
            else if (i < j) R.at(i, j) /= T(k);
            else R.at(i, j) = std::numeric_limits<T>::quiet_NaN();
        }
    }
    R.device.copy_from_host(R.host.data(), R.host.size());
    return R;
}

/// M = |R| |R^-1| (k x k, column-major), R^-1 computed in long double on the host.
template <typename T>
std::vector<double> abs_r_abs_rinv(Matrix<T>& R)
{
    const int k = R.cols;
    std::vector<long double> inv(static_cast<std::size_t>(k * k), 0.0L);  // upper triangular
    for (int c = 0; c < k; ++c) {  // solve R x = e_c, back substitution
        for (int i = c; i >= 0; --i) {
            long double s = i == c ? 1.0L : 0.0L;
            for (int p = i + 1; p <= c; ++p) s -= R.at(i, p) * inv[p + c * k];
            inv[i + c * k] = s / R.at(i, i);
        }
    }
    std::vector<double> M(static_cast<std::size_t>(k * k), 0.0);
    for (int j = 0; j < k; ++j)
        for (int i = 0; i < k; ++i)
            for (int p = i; p <= j; ++p)
                M[i + j * k] += std::abs(double(R.at(i, p))) * std::abs(double(inv[p + j * k]));
    return M;
}

TYPED_TEST(TallSkinnyGpuTyped, TrsmRightUpperMatchesReference)
{
    KBENCH_REQUIRE_GPU();
    using T = TypeParam;
    const cuda_stream stream;
    for (std::int64_t n : sizes) {
        for (int k : widths) {
            SCOPED_TRACE(testing::Message() << "n=" << n << " k=" << k);
            Matrix<T> V = make_matrix<T>(n, k, n + 5, 10, sentinel<T>);
            Matrix<T> R = well_conditioned_upper<T>(k, 11);
            trsm_right_upper<T>(n, k, V.ptr(), V.ld, R.ptr(), k, stream);
            const std::vector<T> got = V.device.to_host();
            std::vector<T> ref = V.host;
            reference::trsm_right_upper<T>(n, k, ref.data(), V.ld, R.host.data(), k);
            const std::vector<double> M = abs_r_abs_rinv(R);
            std::vector<double> bound(ref.size(), 0.0);
            for (std::int64_t i = 0; i < n; ++i) {
                for (int j = 0; j < k; ++j) {
                    double s = 0.0;
                    for (int p = 0; p <= j; ++p)
                        s += std::abs(double(got[i + p * V.ld])) * M[p + j * k];
                    bound[static_cast<std::size_t>(i + j * V.ld)] = gamma<T>(k + 1.0) * s;
                }
            }
            expect_close(got, ref, bound, n, k, V.ld);
            expect_padding_kept(got, V);
        }
    }
}

// ---- gram_batched -------------------------------------------------------------------------

/// gram_batched on a fresh workspace (0xff bytes: NaN in either type); returns B (ldb = kv + 2,
/// padding rows set to the sentinel).
template <typename T>
std::vector<T> gpu_gram_batched(cublasHandle_t handle, std::int64_t n, int kv, const T* V,
                                std::int64_t ldv, int kw, const T* W, std::int64_t ldw,
                                std::int64_t h, cudaStream_t stream)
{
    const std::size_t bytes = gram_batched_workspace_bytes(n, kv, kw, h, sizeof(T));
    device_buffer<unsigned char> work(std::vector<unsigned char>(bytes, 0xff));
    const int ldb = kv + 2;
    device_buffer<T> B(std::vector<T>(static_cast<std::size_t>(ldb * kw), sentinel<T>));
    gram_batched<T>(handle, n, kv, V, ldv, kw, W, ldw, B.data(), ldb, h, work.data(),
                    work.size(), stream);
    return B.to_host();
}

TYPED_TEST(TallSkinnyGpuTyped, GramBatchedMatchesReference)
{
    KBENCH_REQUIRE_GPU();
    using T = TypeParam;
    const cuda_stream stream;
    const cublas_handle blas;
    KBENCH_CUBLAS_CHECK(cublasSetStream(blas, stream));
    const T nan = std::numeric_limits<T>::quiet_NaN();
    for (std::int64_t n : sizes) {
        for (const auto& [kv, kw] : shapes) {
            for (const bool symmetric : {false, true}) {
                if (symmetric && kv != kw) continue;
                if (n == 100003 && kv == kw && !symmetric) continue;  // bound CPU time
                Matrix<T> V = make_matrix<T>(n, kv, n + 5, 12, nan);
                Matrix<T> Wm = make_matrix<T>(n, kw, n + 7, 13, nan);
                const Matrix<T>& W = symmetric ? V : Wm;
                const int ldb = kv + 2;
                Matrix<T> Bpad;  // only for the padding check: kv x kw, ld = kv + 2
                Bpad.rows = kv;
                Bpad.cols = kw;
                Bpad.ld = ldb;
                Bpad.host.assign(static_cast<std::size_t>(ldb * kw), sentinel<T>);
                std::vector<T> ref = Bpad.host;
                reference::gram<T>(n, kv, V.host.data(), V.ld, kw, W.host.data(), W.ld,
                                   ref.data(), ldb);
                std::vector<double> abs_sum(ref.size(), 0.0);
                for (int j = 0; j < kw; ++j)
                    for (int i = 0; i < kv; ++i)
                        for (std::int64_t l = 0; l < n; ++l)
                            abs_sum[i + j * ldb] += std::abs(double(V.host[l + i * V.ld]) *
                                                             double(W.host[l + j * W.ld]));
                for (std::int64_t h : {32, 256, 1024}) {
                    SCOPED_TRACE(testing::Message() << "n=" << n << " kv=" << kv << " kw=" << kw
                                                    << " h=" << h << " symmetric=" << symmetric);
                    const std::vector<T> got = gpu_gram_batched<T>(
                        blas, n, kv, V.device.data(), V.ld, kw, W.device.data(), W.ld, h, stream);
                    const double g = gamma<T>(double(h) + std::ceil(double(n) / double(h)) + 2.0);
                    std::vector<double> bound(abs_sum);
                    for (double& b : bound) b *= g;
                    expect_close(got, ref, bound, kv, kw, ldb);
                    expect_padding_kept(got, Bpad);
                    if (symmetric) {
                        for (int j = 0; j < kw; ++j)
                            for (int i = 0; i < j; ++i)
                                ASSERT_EQ(got[i + j * ldb], got[j + i * ldb]) << i << ", " << j;
                    }
                }
            }
        }
    }
}

// ---- Determinism --------------------------------------------------------------------------

TYPED_TEST(TallSkinnyGpuTyped, TwoCallsGiveIdenticalBits)
{
    KBENCH_REQUIRE_GPU();
    using T = TypeParam;
    const cuda_stream stream;
    const cublas_handle blas;
    KBENCH_CUBLAS_CHECK(cublasSetStream(blas, stream));
    const T nan = std::numeric_limits<T>::quiet_NaN();
    const std::int64_t n = 100003;
    for (int k : {3, 64}) {
        SCOPED_TRACE(testing::Message() << "k=" << k);
        Matrix<T> V = make_matrix<T>(n, k, n + 1, 14, nan);
        Matrix<T> y = make_matrix<T>(n, 1, n, 15, nan);
        Matrix<T> R = well_conditioned_upper<T>(k, 16);
        Matrix<T> B = make_matrix<T>(k, k, k, 19, nan);

        std::vector<T> results[2][4];
        for (auto& result : results) {
            device_buffer<T> r(static_cast<std::size_t>(k));
            gemv_t_per_column<T>(n, k, V.ptr(), V.ld, y.ptr(), r.data(), stream);
            result[0] = r.to_host();
            Matrix<T> W = make_matrix<T>(n, k, n, 17, nan);
            gemm_rowwise<T>(n, k, k, T(-1), V.ptr(), V.ld, B.ptr(), k, T(1), W.ptr(), n, stream);
            result[1] = W.device.to_host();
            Matrix<T> X = make_matrix<T>(n, k, n, 18, nan);
            trsm_right_upper<T>(n, k, X.ptr(), n, R.ptr(), k, stream);
            result[2] = X.device.to_host();
            result[3] = gpu_gram_batched<T>(blas, n, k, V.ptr(), V.ld, k, V.ptr(), V.ld, 256,
                                            stream);
        }
        const char* names[] = {"gemv_t_per_column", "gemm_rowwise", "trsm_right_upper",
                               "gram_batched"};
        for (int f = 0; f < 4; ++f)
            EXPECT_TRUE(same_bits(results[0][f], results[1][f])) << names[f];
    }
}

}  // namespace
}  // namespace kbench::blas
