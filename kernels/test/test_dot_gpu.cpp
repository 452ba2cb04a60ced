// Dot-product kernels (kernels/dot.hpp): CPU tests of the reference twins (hand-checkable
// cases), of the argument checks, workspace query, chunk bookkeeping and traffic models (no GPU
// needed), and GPU tests (KBENCH_REQUIRE_GPU) comparing dot, mdot and mdgm with the references.
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
#include "kernels/test/expect_invalid.hpp"
#include "kernels/test/gpu_test.hpp"
#include "matrices/test/random_data.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
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

using test::expect_invalid;

// ---- CPU: reference twins (hand-checkable) ------------------------------------------------

TEST(DotReference, HandComputedDouble)
{
    const std::vector<double> x = {1, 2, 3}, y = {4, 5, 6};
    double r = 0;
    reference::dot<double>(3, x.data(), y.data(), &r);
    EXPECT_EQ(r, 32.0);  // 4 + 10 + 18
    r = 7;
    reference::dot<double>(0, nullptr, nullptr, &r);
    EXPECT_EQ(r, 0.0);
}

TEST(DotReference, FloatSumIsRoundedOnceFromExtendedPrecision)
{
    // In float, 2^24 + 1 rounds back to 2^24, so summing in order in float gives 16777216;
    // the exact sum 2^24 + 2 = 16777218 is a float, and a wider accumulator finds it.
    const std::vector<float> x = {16777216.0f, 1.0f, 1.0f}, y = {1.0f, 1.0f, 1.0f};
    float r = 0;
    reference::dot<float>(3, x.data(), y.data(), &r);
    EXPECT_EQ(r, 16777218.0f);
}

TEST(DotReference, DoubleSumSurvivesCancellation)
{
    if (std::numeric_limits<long double>::digits < 62)
        GTEST_SKIP() << "long double has " << std::numeric_limits<long double>::digits
                     << " significand bits; this case needs 61";
    // 2^60 + 1 - 2^60 = 1 in long double; in double the 1 is lost and the sum is 0.
    const double big = std::ldexp(1.0, 60);
    const std::vector<double> x = {big, 1.0, -big}, y = {1.0, 1.0, 1.0};
    double r = 0;
    reference::dot<double>(3, x.data(), y.data(), &r);
    EXPECT_EQ(r, 1.0);
}

TEST(DotReference, MdotHandComputed)
{
    const std::vector<double> a = {1, 2}, b = {3, 4}, c = {-1, 1};
    const std::vector<const double*> x = {a.data(), b.data(), c.data(), a.data()};
    const std::vector<const double*> y = {b.data(), b.data(), b.data(), c.data()};
    std::vector<double> r(4, -99.0);
    reference::mdot<double>(2, 4, x.data(), y.data(), r.data());
    EXPECT_EQ(r, (std::vector<double>{11, 25, 1, 1}));  // a.b, b.b, c.b, a.c
}

TEST(DotReference, MdgmHandComputedSkipsPadding)
{
    const double nan = std::numeric_limits<double>::quiet_NaN();
    // 2 x 3 column-major with ld = 3: columns (1, 2), (3, 4), (5, 6); row 2 is padding.
    const std::vector<double> V = {1, 2, nan, 3, 4, nan, 5, 6, nan};
    const std::vector<double> y = {1, -1};
    std::vector<double> r(3, -99.0);
    reference::mdgm<double>(2, 3, V.data(), 3, y.data(), r.data());
    EXPECT_EQ(r, (std::vector<double>{-1, -1, -1}));
}

TEST(DotReference, ZeroLengthGivesZerosAndZeroCountWritesNothing)
{
    std::vector<float> r(3, -99.0f);
    reference::mdot<float>(0, 3, nullptr, nullptr, r.data());
    EXPECT_EQ(r, (std::vector<float>{0, 0, 0}));
    r.assign(3, -99.0f);
    reference::mdgm<float>(0, 2, nullptr, 0, nullptr, r.data());
    EXPECT_EQ(r, (std::vector<float>{0, 0, -99.0f}));
    reference::mdgm<float>(5, 0, nullptr, 5, nullptr, nullptr);  // k = 0: nothing to do
}

// ---- CPU: argument checks (thrown before any CUDA call) ---------------------------------

TEST(DotArguments, BadArgumentsThrowNamingFunctionAndParameter)
{
    // Host addresses stand in for device pointers: every call below must throw before using
    // them (without a GPU, a CUDA call would throw kbench::cuda_error instead).
    std::vector<double> buf(64);
    const double* p = buf.data();
    double* r = buf.data();
    const std::int64_t n = 5000;  // needs a workspace
    const std::size_t need = dot_workspace_bytes(n, 1);
    alignas(16) static unsigned char ws[16];
    void* w = ws;
    const cudaStream_t s = nullptr;

    expect_invalid([&] { dot<double>(-1, p, p, r, w, need, s); },
                   {"kbench::blas::dot", "n = -1", "n >= 0"});
    expect_invalid([&] { dot<double>(n, nullptr, p, r, w, need, s); },
                   {"kbench::blas::dot", "x is null"});
    expect_invalid([&] { dot<double>(n, p, nullptr, r, w, need, s); },
                   {"kbench::blas::dot", "y is null"});
    expect_invalid([&] { dot<double>(n, p, p, nullptr, w, need, s); },
                   {"kbench::blas::dot", "result is null"});
    expect_invalid([&] { dot<double>(n, p, p, r, w, need - 1, s); },
                   {"kbench::blas::dot", "workspace_bytes = " + std::to_string(need - 1),
                    "dot_workspace_bytes(n = 5000, k = 1) = " + std::to_string(need)});
    expect_invalid([&] { dot<double>(n, p, p, r, nullptr, need, s); },
                   {"kbench::blas::dot", "workspace is null"});
    expect_invalid([&] { dot<double>(n, p, p, r, ws + 4, need, s); },
                   {"kbench::blas::dot", "workspace is not aligned to 8"});

    const std::vector<const double*> xs(65, p), ys(65, p);
    std::vector<const double*> with_null(5, p);
    with_null[2] = nullptr;
    expect_invalid([&] { mdot<double>(10, 65, xs.data(), ys.data(), r, w, 0, s); },
                   {"kbench::blas::mdot", "k = 65", "k <= max_dot_vectors = 64"});
    expect_invalid([&] { mdot<double>(10, -1, xs.data(), ys.data(), r, w, 0, s); },
                   {"kbench::blas::mdot", "k = -1"});
    expect_invalid([&] { mdot<double>(10, 5, nullptr, ys.data(), r, w, 0, s); },
                   {"kbench::blas::mdot", "x is null", "host array of k = 5"});
    expect_invalid([&] { mdot<double>(10, 5, xs.data(), with_null.data(), r, w, 0, s); },
                   {"kbench::blas::mdot", "y[2] is null"});
    expect_invalid([&] { mdot<float>(10, 3, nullptr, nullptr, nullptr, w, 0, s); },
                   {"kbench::blas::mdot", "x is null"});
    expect_invalid([&] { mdot<double>(n, 2, xs.data(), ys.data(), r, w, need, s); },
                   {"kbench::blas::mdot", "workspace_bytes", "k = 2"});

    expect_invalid([&] { mdgm<double>(10, 3, p, 9, p, r, w, 0, s); },
                   {"kbench::blas::mdgm", "ld = 9", "ld >= n = 10"});
    expect_invalid([&] { mdgm<double>(10, 65, p, 10, p, r, w, 0, s); },
                   {"kbench::blas::mdgm", "k = 65"});
    expect_invalid([&] { mdgm<double>(10, 3, nullptr, 10, p, r, w, 0, s); },
                   {"kbench::blas::mdgm", "V is null", "10 x 3"});
    expect_invalid([&] { mdgm<double>(10, 3, p, 10, nullptr, r, w, 0, s); },
                   {"kbench::blas::mdgm", "y is null"});
    expect_invalid([&] { mdgm<double>(10, 3, p, 10, p, nullptr, w, 0, s); },
                   {"kbench::blas::mdgm", "result is null"});

    expect_invalid([] { dot_workspace_bytes(-3, 1); },
                   {"kbench::blas::dot_workspace_bytes", "n = -3"});
    expect_invalid([] { dot_workspace_bytes(10, 65); },
                   {"kbench::blas::dot_workspace_bytes", "k = 65"});
    expect_invalid([&] { mdot_vectors_read<double>(65, xs.data(), ys.data()); },
                   {"kbench::blas::mdot_vectors_read", "k = 65"});

    expect_invalid([&] { reference::mdgm<double>(10, 1, p, 4, p, r); },
                   {"kbench::blas::reference::mdgm", "ld = 4"});
    expect_invalid([&] { reference::dot<double>(-2, p, p, r); },
                   {"kbench::blas::reference::dot", "n = -2"});
}

TEST(DotArguments, ZeroProductsIsANoOpWithoutCudaCalls)
{
    // Without a GPU any CUDA call would throw kbench::cuda_error; with k = 0 none is made and
    // no pointer is needed.
    EXPECT_NO_THROW(mdot<double>(100, 0, nullptr, nullptr, nullptr, nullptr, 0, nullptr));
    EXPECT_NO_THROW(mdgm<float>(100, 0, nullptr, 100, nullptr, nullptr, nullptr, 0, nullptr));
}

// ---- CPU: workspace query, chunk bookkeeping, traffic models ------------------------------

TEST(DotWorkspace, OnePartialPerBlockAndProductBounded)
{
    EXPECT_EQ(dot_max_blocks(0), 1);
    EXPECT_EQ(dot_max_blocks(1024), 1);
    EXPECT_EQ(dot_max_blocks(1025), 2);
    EXPECT_EQ(dot_max_blocks(std::int64_t{1} << 40), 2048);

    EXPECT_EQ(dot_workspace_bytes(1024, 64), 0u);  // one block writes the results itself
    EXPECT_EQ(dot_workspace_bytes(1 << 20, 0), 0u);
    EXPECT_EQ(dot_workspace_bytes(1025, 1), 2 * sizeof(double));
    EXPECT_EQ(dot_workspace_bytes(100000, 3), 3u * 98 * sizeof(double));  // ceil(1e5 / 1024)
    EXPECT_EQ(dot_workspace_bytes(std::int64_t{1} << 40, 64), 64u * 2048 * sizeof(double));
}

TEST(DotChunks, MdotReadsEachDistinctVectorOncePerChunk)
{
    std::vector<double> storage(16);
    const double* v[16];
    for (int i = 0; i < 16; ++i) v[i] = storage.data() + i;

    const std::vector<const double*> x4 = {v[0], v[1], v[2], v[3]}, y4 = {v[4], v[5], v[6], v[7]};
    EXPECT_EQ(mdot_vectors_read<double>(4, x4.data(), y4.data()), 8);  // nothing shared

    const std::vector<const double*> x5 = {v[0], v[1], v[2], v[3], v[4]};
    const std::vector<const double*> y5(5, v[9]);
    EXPECT_EQ(mdot_vectors_read<double>(5, x5.data(), y5.data()), 7);  // (4 + 1) + (1 + 1)

    EXPECT_EQ(mdot_vectors_read<double>(3, x5.data(), x5.data()), 3);  // norms: x[i] == y[i]

    const std::vector<const double*> xa(8, v[0]), yb(8, v[1]);
    EXPECT_EQ(mdot_vectors_read<double>(8, xa.data(), yb.data()), 4);  // 2 per chunk

    EXPECT_EQ(mdot_vectors_read<double>(0, nullptr, nullptr), 0);
}

TEST(DotTraffic, CountsEachTerm)
{
    constexpr models::Traffic d = dot_traffic(1000, 8);
    static_assert(d.bytes_read == 16000.0 && d.bytes_written == 8.0 && d.flops == 2000.0);
    const models::Traffic d2 = dot_traffic(1000, 8, 10);  // 10 partials written and read
    EXPECT_EQ(d2.bytes_read, 16080.0);
    EXPECT_EQ(d2.bytes_written, 88.0);

    const models::Traffic m = mdot_traffic(1000, 5, 7, 4);
    EXPECT_EQ(m.bytes_read, 28000.0);  // 7 vectors of 4000 bytes
    EXPECT_EQ(m.bytes_written, 20.0);
    EXPECT_EQ(m.flops, 10000.0);
    const models::Traffic m2 = mdot_traffic(1000, 5, 7, 4, 3);  // 3 blocks x 5 products
    EXPECT_EQ(m2.bytes_read, 28000.0 + 60.0);
    EXPECT_EQ(m2.bytes_written, 20.0 + 60.0);

    const models::Traffic g = mdgm_traffic(1000, 4, 8);
    EXPECT_EQ(g.bytes_read, 40000.0);  // 4 columns + y
    EXPECT_EQ(g.bytes_written, 32.0);
    EXPECT_EQ(g.flops, 8000.0);
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
