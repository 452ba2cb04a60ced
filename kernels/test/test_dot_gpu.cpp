// Dot-product kernels (kernels/dot.hpp): GPU tests (KBENCH_REQUIRE_GPU) comparing dot, mdot and
// mdgm with the references. The executable test_dot_gpu also holds the CPU tests (no GPU
// needed) of the reference twins, argument checks, workspace query, chunk bookkeeping and
// traffic models: test_dot_cpu.cpp.
//
// GPU tests use two kinds of data:
// * Dyadic data, values in {0, +-1/2, +-1}: every product is a multiple of 1/4 of magnitude
//   <= 1, so every partial sum is a multiple of 1/4 of magnitude <= n and is exact in float
//   (and double) while 4n <= 2^24. Any summation order then gives the exact sum: the GPU must
//   match the reference bit for bit. This catches a dropped, repeated or misrouted element at
//   any n, for float as well as double.
// * Random data uniform in [-1, 1): checks the rounding error against a bound. Each product
//   x_i*y_i passes through at most m roundings on its way to the result: 1 (multiply or FMA)
//   + the thread's grid-stride chain (<= ceil(n / 256) + 4 additions even with one block and
//   16-byte packs) + the tail add (1) + the block tree (log2 256 = 8) + stage 2's strided chain
//   (<= 2048 / 256 = 8) + its block tree (8), so m <= ceil(n / 256) + 32. Higham's bound for a
//   sum in any such tree gives |gpu - exact| <= gamma_m * sum_i |x_i y_i|, gamma_m =
//   m u / (1 - m u), u = eps(T) / 2; the reference adds at most u |ref| when rounding its long
//   double sum to T. For double, n = 1e6: m u ~ 3939 * 1.1e-16 ~ 4.4e-13 relative to
//   sum |x_i y_i| (about n / 4 here): the n * eps bound of recursive summation with n cut by the
//   block size, i.e. ~1e-12 at n ~ 1e5 .. 1e6.
#include "kernels/base/cuda_handles.hpp"
#include "kernels/base/device_buffer.hpp"
#include "kernels/dot.hpp"
#include "kernels/test/gpu_test.hpp"
#include "matrices/test/random_data.hpp"

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

const std::int64_t dot_sizes[] = {0, 1, 5, 31, 32, 33, 255, 256, 1000, 1024, 1025, 4099,
                                  100003, (1 << 20) + 3};
const int product_counts[] = {1, 2, 3, 4, 5, 8, 17, 64};

/// Lengths for mdot / mdgm with k products (the largest only for k <= 8, to bound memory).
std::vector<std::int64_t> multi_sizes(int k)
{
    std::vector<std::int64_t> sizes = {1, 31, 1000, 1025, 4099, 100003};
    if (k <= 8) sizes.push_back((1 << 20) + 3);
    return sizes;
}

/// n values in {0, +-1/2, +-1}; the same seed gives the same vector.
template <typename T>
std::vector<T> dyadic_vector(std::int64_t n, std::uint32_t seed)
{
    std::mt19937 gen(seed);
    std::vector<T> v(static_cast<std::size_t>(n));
    for (auto& e : v) e = static_cast<T>(static_cast<int>(gen() % 5) - 2) / T(2);
    return v;
}

template <typename T>
std::vector<T> make_data(bool dyadic, std::int64_t n, std::uint32_t seed)
{
    return dyadic ? dyadic_vector<T>(n, seed)
                  : test::random_vector<T>(static_cast<std::size_t>(n), seed);
}

/// A host vector and its device copy, starting `offset` elements into the device buffer
/// (offset 1: not 16-byte aligned, so the launchers take their scalar path).
template <typename T>
struct test_vector {
    std::vector<T> host;
    device_buffer<T> device;
    std::size_t offset = 0;
    const T* ptr() const { return device.data() + offset; }
};

template <typename T>
test_vector<T> upload(std::vector<T> host, std::size_t offset)
{
    std::vector<T> padded(offset, std::numeric_limits<T>::quiet_NaN());
    padded.insert(padded.end(), host.begin(), host.end());
    if (padded.empty()) return {std::move(host), device_buffer<T>{}, 0};
    return {std::move(host), device_buffer<T>(padded), offset};
}

/// sum_i |a[i] * b[i]| in double.
template <typename T>
double abs_dot(std::int64_t n, const T* a, const T* b)
{
    double s = 0.0;
    for (std::int64_t i = 0; i < n; ++i) s += std::abs(double(a[i]) * double(b[i]));
    return s;
}

/// The rounding-error bound of the file comment.
template <typename T>
double tolerance(std::int64_t n, double abs_sum, double ref)
{
    const double u = std::numeric_limits<T>::epsilon() / 2;
    const double m = std::ceil(double(n) / 256.0) + 32.0;
    return m * u / (1.0 - m * u) * abs_sum + u * std::abs(ref);
}

/// Compares GPU results with the reference: bitwise for dyadic data, within tolerance otherwise.
template <typename T>
void expect_matches(bool dyadic, std::int64_t n, const std::vector<T>& got,
                    const std::vector<T>& ref, const std::vector<double>& abs_sums)
{
    ASSERT_EQ(got.size(), ref.size());
    for (std::size_t j = 0; j < got.size(); ++j) {
        if (dyadic) {
            EXPECT_EQ(got[j], ref[j]) << "product " << j;
        } else {
            EXPECT_LE(std::abs(double(got[j]) - double(ref[j])),
                      tolerance<T>(n, abs_sums[j], double(ref[j])))
                << "product " << j << ": got " << got[j] << ", reference " << ref[j];
        }
    }
}

/// A device workspace of exactly dot_workspace_bytes(n, k) bytes, filled with 0xff bytes (NaN
/// as float or double) so that results cannot depend on what it held.
device_buffer<unsigned char> workspace_for(std::int64_t n, int k)
{
    const std::size_t bytes = dot_workspace_bytes(n, k);
    return device_buffer<unsigned char>(std::vector<unsigned char>(bytes, 0xff));
}

template <typename T>
device_buffer<T> poisoned_results(int k)
{
    return device_buffer<T>(std::vector<T>(static_cast<std::size_t>(k),
                                           std::numeric_limits<T>::quiet_NaN()));
}

template <typename T>
std::vector<T> gpu_dot(std::int64_t n, const T* x, const T* y, cudaStream_t stream)
{
    device_buffer<unsigned char> work = workspace_for(n, 1);
    device_buffer<T> result = poisoned_results<T>(1);
    dot(n, x, y, result.data(), work.data(), work.size(), stream);
    return result.to_host();
}

template <typename T>
std::vector<T> gpu_mdot(std::int64_t n, const std::vector<const T*>& x,
                        const std::vector<const T*>& y, cudaStream_t stream)
{
    const int k = static_cast<int>(x.size());
    device_buffer<unsigned char> work = workspace_for(n, k);
    device_buffer<T> result = poisoned_results<T>(k);
    mdot(n, k, x.data(), y.data(), result.data(), work.data(), work.size(), stream);
    return result.to_host();
}

template <typename T>
std::vector<T> gpu_mdgm(std::int64_t n, int k, const T* V, std::int64_t ld, const T* y,
                        cudaStream_t stream)
{
    device_buffer<unsigned char> work = workspace_for(n, k);
    device_buffer<T> result = poisoned_results<T>(k);
    mdgm(n, k, V, ld, y, result.data(), work.data(), work.size(), stream);
    return result.to_host();
}

// ---- GPU: dot ---------------------------------------------------------------------------

template <typename T>
void check_dot(bool dyadic)
{
    const cuda_stream stream;
    for (std::size_t offset : {0u, 1u}) {
        for (std::int64_t n : dot_sizes) {
            SCOPED_TRACE(testing::Message() << "n=" << n << " offset=" << offset);
            const test_vector<T> x = upload(make_data<T>(dyadic, n, 11), offset);
            const test_vector<T> y = upload(make_data<T>(dyadic, n, 12), offset);
            std::vector<T> ref(1);
            reference::dot(n, x.host.data(), y.host.data(), ref.data());
            expect_matches(dyadic, n, gpu_dot(n, x.ptr(), y.ptr(), stream), ref,
                           {abs_dot(n, x.host.data(), y.host.data())});
            // x . x (one vector read twice through the same pointer)
            reference::dot(n, x.host.data(), x.host.data(), ref.data());
            expect_matches(dyadic, n, gpu_dot(n, x.ptr(), x.ptr(), stream), ref,
                           {abs_dot(n, x.host.data(), x.host.data())});
        }
    }
}

TEST(DotGpu, DyadicDataExactDouble)
{
    KBENCH_REQUIRE_GPU();
    check_dot<double>(true);
}

TEST(DotGpu, DyadicDataExactFloat)
{
    KBENCH_REQUIRE_GPU();
    check_dot<float>(true);
}

TEST(DotGpu, RandomDataWithinBoundDouble)
{
    KBENCH_REQUIRE_GPU();
    check_dot<double>(false);
}

TEST(DotGpu, RandomDataWithinBoundFloat)
{
    KBENCH_REQUIRE_GPU();
    check_dot<float>(false);
}

// ---- GPU: mdot --------------------------------------------------------------------------

/// k pairs; pair i is (vectors[xi[i]], vectors[yi[i]]) over a pool of distinct vectors.
template <typename T>
void check_mdot_pattern(bool dyadic, std::int64_t n, std::size_t offset,
                        const std::vector<int>& xi, const std::vector<int>& yi,
                        cudaStream_t stream)
{
    int pool = 0;
    for (int i : xi) pool = std::max(pool, i + 1);
    for (int i : yi) pool = std::max(pool, i + 1);
    std::vector<test_vector<T>> vecs;
    for (int v = 0; v < pool; ++v)
        vecs.push_back(upload(make_data<T>(dyadic, n, 100 + static_cast<std::uint32_t>(v)), offset));
    const int k = static_cast<int>(xi.size());
    std::vector<const T*> dx(k), dy(k), hx(k), hy(k);
    std::vector<double> abs_sums(k);
    for (int i = 0; i < k; ++i) {
        dx[i] = vecs[xi[i]].ptr();
        dy[i] = vecs[yi[i]].ptr();
        hx[i] = vecs[xi[i]].host.data();
        hy[i] = vecs[yi[i]].host.data();
        abs_sums[i] = abs_dot(n, hx[i], hy[i]);
    }
    std::vector<T> ref(k);
    reference::mdot(n, k, hx.data(), hy.data(), ref.data());
    expect_matches(dyadic, n, gpu_mdot(n, dx, dy, stream), ref, abs_sums);
}

template <typename T>
void check_mdot_independent(bool dyadic)
{
    const cuda_stream stream;
    for (int k : product_counts) {
        std::vector<int> xi(k), yi(k);
        for (int i = 0; i < k; ++i) {
            xi[i] = 2 * i;
            yi[i] = 2 * i + 1;
        }
        for (std::int64_t n : multi_sizes(k)) {
            SCOPED_TRACE(testing::Message() << "k=" << k << " n=" << n);
            check_mdot_pattern<T>(dyadic, n, 0, xi, yi, stream);
        }
    }
}

TEST(MdotGpu, IndependentPairsDyadicExactDouble)
{
    KBENCH_REQUIRE_GPU();
    check_mdot_independent<double>(true);
}

TEST(MdotGpu, IndependentPairsDyadicExactFloat)
{
    KBENCH_REQUIRE_GPU();
    check_mdot_independent<float>(true);
}

TEST(MdotGpu, IndependentPairsRandomWithinBoundDouble)
{
    KBENCH_REQUIRE_GPU();
    check_mdot_independent<double>(false);
}

TEST(MdotGpu, IndependentPairsRandomWithinBoundFloat)
{
    KBENCH_REQUIRE_GPU();
    check_mdot_independent<float>(false);
}

template <typename T>
void check_mdot_shared(bool dyadic)
{
    const cuda_stream stream;
    for (std::size_t offset : {0u, 1u}) {
        for (int k : product_counts) {
            // (a) one y shared by all pairs: y read once per chunk.
            std::vector<int> xi(k), yi(k, 0);
            for (int i = 0; i < k; ++i) xi[i] = i + 1;
            // (b) BiCGSTAB-like mixes: norms (x == y), a shared x, a shared y, repeated pairs.
            std::vector<int> mx(k), my(k);
            for (int i = 0; i < k; ++i) {
                mx[i] = i % 3 == 0 ? 0 : 1 + i % 4;
                my[i] = i % 2 == 0 ? mx[i] : 5;
            }
            for (std::int64_t n : {std::int64_t{3}, std::int64_t{1025}, std::int64_t{100003}}) {
                SCOPED_TRACE(testing::Message() << "k=" << k << " n=" << n << " offset=" << offset);
                check_mdot_pattern<T>(dyadic, n, offset, xi, yi, stream);
                check_mdot_pattern<T>(dyadic, n, offset, mx, my, stream);
            }
        }
    }
}

TEST(MdotGpu, SharedVectorsDyadicExactDouble)
{
    KBENCH_REQUIRE_GPU();
    check_mdot_shared<double>(true);
}

TEST(MdotGpu, SharedVectorsDyadicExactFloat)
{
    KBENCH_REQUIRE_GPU();
    check_mdot_shared<float>(true);
}

TEST(MdotGpu, SharedVectorsRandomWithinBoundDouble)
{
    KBENCH_REQUIRE_GPU();
    check_mdot_shared<double>(false);
}

// ---- GPU: mdgm --------------------------------------------------------------------------

/// V (n x k, leading dimension ld, rows n..ld-1 NaN so that reading them shows) and y, at
/// `offset` elements into their buffers.
template <typename T>
void check_mdgm_case(bool dyadic, std::int64_t n, int k, std::int64_t ld, std::size_t offset,
                     cudaStream_t stream)
{
    std::vector<T> Vh(static_cast<std::size_t>(ld * k), std::numeric_limits<T>::quiet_NaN());
    for (int j = 0; j < k; ++j) {
        const std::vector<T> col = make_data<T>(dyadic, n, 200 + static_cast<std::uint32_t>(j));
        std::copy(col.begin(), col.end(), Vh.begin() + j * ld);
    }
    const test_vector<T> V = upload(std::move(Vh), offset);
    const test_vector<T> y = upload(make_data<T>(dyadic, n, 300), offset);
    std::vector<T> ref(k);
    reference::mdgm(n, k, V.host.data(), ld, y.host.data(), ref.data());
    std::vector<double> abs_sums(k);
    for (int j = 0; j < k; ++j) abs_sums[j] = abs_dot(n, V.host.data() + j * ld, y.host.data());
    expect_matches(dyadic, n, gpu_mdgm(n, k, V.ptr(), ld, y.ptr(), stream), ref, abs_sums);
}

template <typename T>
void check_mdgm(bool dyadic)
{
    const cuda_stream stream;
    for (int k : product_counts) {
        for (std::int64_t n : multi_sizes(k)) {
            const std::int64_t rounded = (n + 3) / 4 * 4;
            // ld = n; ld > n with 16-byte aligned columns (vector path); ld > n with columns
            // off 16-byte alignment (scalar path); and misaligned V and y.
            const std::pair<std::int64_t, std::size_t> layouts[] = {
                {n, 0}, {rounded + 4, 0}, {rounded + 5, 0}, {rounded + 4, 1}};
            for (const auto& [ld, offset] : layouts) {
                SCOPED_TRACE(testing::Message()
                             << "k=" << k << " n=" << n << " ld=" << ld << " offset=" << offset);
                check_mdgm_case<T>(dyadic, n, k, ld, offset, stream);
            }
        }
    }
}

TEST(MdgmGpu, DyadicExactDouble)
{
    KBENCH_REQUIRE_GPU();
    check_mdgm<double>(true);
}

TEST(MdgmGpu, DyadicExactFloat)
{
    KBENCH_REQUIRE_GPU();
    check_mdgm<float>(true);
}

TEST(MdgmGpu, RandomWithinBoundDouble)
{
    KBENCH_REQUIRE_GPU();
    check_mdgm<double>(false);
}

TEST(MdgmGpu, RandomWithinBoundFloat)
{
    KBENCH_REQUIRE_GPU();
    check_mdgm<float>(false);
}

// ---- GPU: determinism and edge cases ----------------------------------------------------

template <typename T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b)
{
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

template <typename T>
void check_deterministic()
{
    const cuda_stream stream;
    const std::int64_t n = (1 << 20) + 3;  // many blocks: both stages run
    std::vector<test_vector<T>> vecs;
    for (std::uint32_t v = 0; v < 18; ++v)
        vecs.push_back(upload(test::random_vector<T>(static_cast<std::size_t>(n), 400 + v), 0));

    const std::vector<T> d1 = gpu_dot(n, vecs[0].ptr(), vecs[1].ptr(), stream);
    const std::vector<T> d2 = gpu_dot(n, vecs[0].ptr(), vecs[1].ptr(), stream);
    EXPECT_TRUE(same_bits(d1, d2)) << d1[0] << " vs " << d2[0];

    std::vector<const T*> x(17), y(17, vecs[17].ptr());
    for (int i = 0; i < 17; ++i) x[i] = vecs[i].ptr();
    const std::vector<T> m1 = gpu_mdot(n, x, y, stream);
    const std::vector<T> m2 = gpu_mdot(n, x, y, stream);
    EXPECT_TRUE(same_bits(m1, m2));

    const std::int64_t rows = 100003;
    const int k = max_dot_vectors;
    const test_vector<T> V = upload(test::random_vector<T>(static_cast<std::size_t>(rows * k), 500), 0);
    const std::vector<T> g1 = gpu_mdgm(rows, k, V.ptr(), rows, vecs[0].ptr(), stream);
    const std::vector<T> g2 = gpu_mdgm(rows, k, V.ptr(), rows, vecs[0].ptr(), stream);
    EXPECT_TRUE(same_bits(g1, g2));
}

TEST(DotGpu, RepeatedCallsGiveIdenticalBitsDouble)
{
    KBENCH_REQUIRE_GPU();
    check_deterministic<double>();
}

TEST(DotGpu, RepeatedCallsGiveIdenticalBitsFloat)
{
    KBENCH_REQUIRE_GPU();
    check_deterministic<float>();
}

TEST(DotGpu, ZeroLengthWritesZeros)
{
    KBENCH_REQUIRE_GPU();
    const cuda_stream stream;
    EXPECT_EQ(gpu_dot<double>(0, nullptr, nullptr, stream), std::vector<double>{0.0});
    const std::vector<const double*> none(5, nullptr);
    EXPECT_EQ(gpu_mdot<double>(0, none, none, stream), std::vector<double>(5, 0.0));
    EXPECT_EQ(gpu_mdgm<float>(0, 5, nullptr, 0, nullptr, stream), std::vector<float>(5, 0.0f));
}

TEST(DotGpu, ZeroProductsLeavesResultsUntouched)
{
    KBENCH_REQUIRE_GPU();
    const cuda_stream stream;
    const test_vector<double> x = upload(test::random_vector<double>(2000, 1), 0);
    device_buffer<double> result = poisoned_results<double>(1);
    const double* px = x.ptr();
    mdot<double>(2000, 0, &px, &px, result.data(), nullptr, 0, stream);
    mdgm<double>(2000, 0, px, 2000, px, result.data(), nullptr, 0, stream);
    EXPECT_TRUE(std::isnan(result.to_host()[0]));
}

}  // namespace
}  // namespace kbench::blas
