// Dot-product kernels (kernels/dot.hpp): GPU tests (KBENCH_REQUIRE_GPU) comparing dot, mdot and
// mdgm with the references. The executable test_dot_gpu also holds the CPU tests (no GPU
// needed) of the reference twins, argument checks, workspace query, chunk bookkeeping and
// traffic models: test_dot_cpu.cpp.
//
// Workspaces follow dot.hpp's contract: the counter region zeroed, the partial sums filled with
// 0xff bytes (NaN) so that results cannot depend on what they held. The single-launch tests at
// the end check the contract itself: correctness over a span of n and k, 50 calls giving the
// same bits and leaving the counters zero, calls of alternating shapes on one workspace, a
// captured CUDA graph, and the bits of the former two-launch sum (emulated on the host from the
// partials the launch left in the workspace).
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
//   16-byte packs) + the tail add (1) + the block tree (log2 256 = 8) + the finishing block's
//   strided chain over the partials (<= 2048 / 256 = 8) + its block tree (8), so
//   m <= ceil(n / 256) + 32. Higham's bound for a
//   sum in any such tree gives |gpu - exact| <= gamma_m * sum_i |x_i y_i|, gamma_m =
//   m u / (1 - m u), u = eps(T) / 2; the reference adds at most u |ref| when rounding its long
//   double sum to T. For double, n = 1e6: m u ~ 3939 * 1.1e-16 ~ 4.4e-13 relative to
//   sum |x_i y_i| (about n / 4 here): the n * eps bound of recursive summation with n cut by the
//   block size, i.e. ~1e-12 at n ~ 1e5 .. 1e6.
#include "kernels/base/cuda_handles.hpp"
#include "kernels/base/device.hpp"
#include "kernels/base/device_buffer.hpp"
#include "kernels/dot.hpp"
#include "kernels/test/gpu_test.hpp"
#include "matrices/test/random_data.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstddef>
#include <cstring>
#include <initializer_list>
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

/// 0xff bytes: NaN as float or double, and a value no partial sum of finite data has.
constexpr unsigned char poison = 0xff;

/// A device workspace of exactly dot_workspace_bytes(n, k) bytes, ready as dot.hpp asks: the
/// counter region zero, the partial sums filled with 0xff bytes (NaN as float or double) so that
/// results cannot depend on what they held.
device_buffer<unsigned char> workspace_for(std::int64_t n, int k)
{
    const std::size_t bytes = dot_workspace_bytes(n, k);
    std::vector<unsigned char> host(bytes, poison);
    const std::size_t counters = std::min(bytes, dot_counter_bytes);
    std::fill_n(host.begin(), counters, static_cast<unsigned char>(0));
    return device_buffer<unsigned char>(host);
}

/// The counter region of a workspace (device-synchronous read); empty for an empty workspace.
std::vector<unsigned int> counters_of(const void* workspace, std::size_t workspace_bytes)
{
    if (workspace_bytes == 0) return {};
    std::vector<unsigned int> counters(dot_counter_bytes / sizeof(unsigned int));
    KBENCH_CUDA_CHECK(cudaDeviceSynchronize());
    KBENCH_CUDA_CHECK(cudaMemcpy(counters.data(), workspace, dot_counter_bytes,
                                 cudaMemcpyDeviceToHost));
    return counters;
}

/// Expects every counter of the workspace to be 0.
void expect_counters_zero(const void* workspace, std::size_t workspace_bytes)
{
    const std::vector<unsigned int> counters = counters_of(workspace, workspace_bytes);
    for (std::size_t c = 0; c < counters.size(); ++c)
        EXPECT_EQ(counters[c], 0u) << "counter " << c << " left non-zero";
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

/// Past half the L2 cache y is read from device memory, and mdgm takes its wide column groups
/// (k > 16): n just past that size, k with a partial last group (17, 30) and full ones (64),
/// aligned and misaligned.
template <typename T>
void check_mdgm_past_half_l2(bool dyadic, std::initializer_list<int> counts)
{
    const cuda_stream stream;
    const std::int64_t n = static_cast<std::int64_t>(l2_cache_bytes() / (2 * sizeof(T))) + 1027;
    for (const int k : counts) {
        for (const std::size_t offset : {std::size_t{0}, std::size_t{1}}) {
            SCOPED_TRACE(testing::Message() << "k=" << k << " n=" << n << " offset=" << offset);
            check_mdgm_case<T>(dyadic, n, k, n, offset, stream);
        }
    }
}

TEST(MdgmGpu, WideGroupsPastHalfTheL2DyadicExactDouble)
{
    KBENCH_REQUIRE_GPU();
    check_mdgm_past_half_l2<double>(true, {17, 30, 64});
}

TEST(MdgmGpu, WideGroupsPastHalfTheL2RandomWithinBoundFloat)
{
    KBENCH_REQUIRE_GPU();
    check_mdgm_past_half_l2<float>(false, {30});
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

// ---- GPU: single launch, workspace contract ----------------------------------------------

/// A pool of 16 device vectors of n elements (seeds 600 + v) and y (seed 700), on the host too.
template <typename T>
struct vector_pool {
    std::vector<test_vector<T>> vecs;
    test_vector<T> y;
};

template <typename T>
vector_pool<T> make_pool(bool dyadic, std::int64_t n)
{
    vector_pool<T> pool;
    for (std::uint32_t v = 0; v < 16; ++v)
        pool.vecs.push_back(upload(make_data<T>(dyadic, n, 600 + v), 0));
    pool.y = upload(make_data<T>(dyadic, n, 700), 0);
    return pool;
}

/// The n x k column-major V (ld = n) whose column j is pool vector j % 16, copied on the device.
template <typename T>
device_buffer<T> pool_matrix(const vector_pool<T>& pool, std::int64_t n, int k)
{
    device_buffer<T> V(static_cast<std::size_t>(n) * static_cast<std::size_t>(k));
    for (int j = 0; j < k; ++j)
        KBENCH_CUDA_CHECK(cudaMemcpy(V.data() + std::int64_t{j} * n, pool.vecs[j % 16].ptr(),
                                     sizeof(T) * static_cast<std::size_t>(n),
                                     cudaMemcpyDeviceToDevice));
    KBENCH_CUDA_CHECK(cudaDeviceSynchronize());
    return V;
}

/// Pair i of the mdot cases: (pool[i % 16], pool[(3 i + 1) % 16]) for even i, (pool[i % 16], y)
/// for odd i: distinct pairs, shared vectors and norms (i = 8, 24, ...: 3 i + 1 = i mod 16).
template <typename T>
void pool_pairs(const vector_pool<T>& pool, int k, std::vector<const T*>& dx,
                std::vector<const T*>& dy, std::vector<const T*>& hx, std::vector<const T*>& hy)
{
    dx.resize(k);
    dy.resize(k);
    hx.resize(k);
    hy.resize(k);
    for (int i = 0; i < k; ++i) {
        const test_vector<T>& a = pool.vecs[i % 16];
        const test_vector<T>& b = i % 2 == 0 ? pool.vecs[(3 * i + 1) % 16] : pool.y;
        dx[i] = a.ptr();
        dy[i] = b.ptr();
        hx[i] = a.host.data();
        hy[i] = b.host.data();
    }
}

/// (a) dot, mdot and mdgm against the references over n in {1, 1023, 1024, 1025, 1e5, 3e6} and
/// k in {1, 3, 4, 5, 8, 9, 64}, each call on a fresh workspace of exactly the queried size;
/// the counters are zero afterwards.
template <typename T>
void check_span(bool dyadic)
{
    const cuda_stream stream;
    const std::int64_t sizes[] = {1, 1023, 1024, 1025, 100000, 3000000};
    const int counts[] = {1, 3, 4, 5, 8, 9, 64};
    for (const std::int64_t n : sizes) {
        const vector_pool<T> pool = make_pool<T>(dyadic, n);
        {
            SCOPED_TRACE(testing::Message() << "dot n=" << n);
            std::vector<T> ref(1);
            reference::dot(n, pool.vecs[0].host.data(), pool.y.host.data(), ref.data());
            device_buffer<unsigned char> work = workspace_for(n, 1);
            device_buffer<T> result = poisoned_results<T>(1);
            dot(n, pool.vecs[0].ptr(), pool.y.ptr(), result.data(), work.data(), work.size(),
                stream);
            expect_matches(dyadic, n, result.to_host(), ref,
                           {abs_dot(n, pool.vecs[0].host.data(), pool.y.host.data())});
            expect_counters_zero(work.data(), work.size());
        }
        for (const int k : counts) {
            SCOPED_TRACE(testing::Message() << "n=" << n << " k=" << k);
            std::vector<const T*> dx, dy, hx, hy;
            pool_pairs(pool, k, dx, dy, hx, hy);
            std::vector<T> ref(k);
            std::vector<double> abs_sums(k);
            reference::mdot(n, k, hx.data(), hy.data(), ref.data());
            for (int i = 0; i < k; ++i) abs_sums[i] = abs_dot(n, hx[i], hy[i]);
            device_buffer<unsigned char> work = workspace_for(n, k);
            device_buffer<T> result = poisoned_results<T>(k);
            mdot(n, k, dx.data(), dy.data(), result.data(), work.data(), work.size(), stream);
            expect_matches(dyadic, n, result.to_host(), ref, abs_sums);
            expect_counters_zero(work.data(), work.size());

            // mdgm: column j of V is pool vector j % 16, so its reference is an mdot with y.
            const device_buffer<T> V = pool_matrix(pool, n, k);
            for (int j = 0; j < k; ++j) {
                hx[j] = pool.vecs[j % 16].host.data();
                hy[j] = pool.y.host.data();
                abs_sums[j] = abs_dot(n, hx[j], hy[j]);
            }
            reference::mdot(n, k, hx.data(), hy.data(), ref.data());
            device_buffer<T> column_result = poisoned_results<T>(k);
            device_buffer<unsigned char> work2 = workspace_for(n, k);
            mdgm(n, k, V.data(), n, pool.y.ptr(), column_result.data(), work2.data(), work2.size(),
                 stream);
            expect_matches(dyadic, n, column_result.to_host(), ref, abs_sums);
            expect_counters_zero(work2.data(), work2.size());
        }
    }
}

TEST(DotGpuSingleLaunch, SpanOfSizesAndCountsDyadicExactFloat)
{
    KBENCH_REQUIRE_GPU();
    check_span<float>(true);  // 4 n <= 2^24 for every n here: exact in float
}

TEST(DotGpuSingleLaunch, SpanOfSizesAndCountsRandomWithinBoundDouble)
{
    KBENCH_REQUIRE_GPU();
    check_span<double>(false);
}

/// One call of the repeated / alternating tests: which launcher, n, k.
enum class Launcher { dot, mdot, mdgm };
struct Shape {
    Launcher launcher;
    std::int64_t n;
    int k;
};

/// Inputs for calls of several shapes: a pool of vectors of n_max elements (shorter calls use
/// their first n) and V = the pool as an n_max x 64 matrix (ld n_max).
template <typename T>
struct shape_data {
    shape_data(bool dyadic, std::int64_t n_max)
        : n_max(n_max), pool(make_pool<T>(dyadic, n_max)),
          V(pool_matrix(pool, n_max, max_dot_vectors))
    {}
    std::int64_t n_max;
    vector_pool<T> pool;
    device_buffer<T> V;

    /// Enqueues the call on `stream` (result: k device values); no synchronization.
    void call(const Shape& c, T* result, void* work, std::size_t work_bytes, cudaStream_t stream)
    {
        std::vector<const T*> dx, dy, hx, hy;
        switch (c.launcher) {
        case Launcher::dot:
            dot(c.n, pool.vecs[0].ptr(), pool.y.ptr(), result, work, work_bytes, stream);
            break;
        case Launcher::mdot:
            pool_pairs(pool, c.k, dx, dy, hx, hy);
            mdot(c.n, c.k, dx.data(), dy.data(), result, work, work_bytes, stream);
            break;
        case Launcher::mdgm:
            mdgm(c.n, c.k, V.data(), n_max, pool.y.ptr(), result, work, work_bytes, stream);
            break;
        }
    }
    /// The reference results of the call.
    std::vector<T> reference(const Shape& c) const
    {
        std::vector<const T*> dx, dy, hx, hy;
        const int k = c.launcher == Launcher::dot ? 1 : c.k;
        pool_pairs(pool, k, dx, dy, hx, hy);
        if (c.launcher != Launcher::mdot) {
            for (int j = 0; j < k; ++j) {
                hx[j] = pool.vecs[j % 16].host.data();
                hy[j] = pool.y.host.data();
            }
        }
        std::vector<T> ref(k);
        reference::mdot(c.n, k, hx.data(), hy.data(), ref.data());
        return ref;
    }
};

int products(const Shape& c) { return c.launcher == Launcher::dot ? 1 : c.k; }

/// (b) 50 calls of each shape on one workspace: the same bits every time, and the counters back
/// to zero after every call.
template <typename T>
void check_repeated_calls()
{
    const cuda_stream stream;
    const std::int64_t n = (1 << 20) + 3;
    shape_data<T> data(false, n);
    device_buffer<unsigned char> work = workspace_for(n, max_dot_vectors);
    device_buffer<T> result(max_dot_vectors);
    const Shape shapes[] = {{Launcher::dot, n, 1},
                            {Launcher::mdot, n, 17},
                            {Launcher::mdgm, n, 9},
                            {Launcher::mdgm, 100003, max_dot_vectors},  // column groups at this n
                            {Launcher::mdgm, 5000, 64}};
    for (const Shape& c : shapes) {
        SCOPED_TRACE(testing::Message() << "launcher " << static_cast<int>(c.launcher)
                                        << " n=" << c.n << " k=" << c.k);
        std::vector<T> first;
        for (int call = 0; call < 50; ++call) {
            data.call(c, result.data(), work.data(), work.size(), stream);
            std::vector<T> got = result.to_host();
            got.resize(static_cast<std::size_t>(products(c)));
            if (call == 0) {
                first = got;
                expect_matches(false, c.n, got, data.reference(c),
                               std::vector<double>(got.size(), double(c.n)));
            }
            EXPECT_TRUE(same_bits(got, first)) << "call " << call;
            expect_counters_zero(work.data(), work.size());
            if (testing::Test::HasFailure()) return;
        }
    }
}

TEST(DotGpuSingleLaunch, FiftyCallsSameBitsCountersBackToZeroDouble)
{
    KBENCH_REQUIRE_GPU();
    check_repeated_calls<double>();
}

TEST(DotGpuSingleLaunch, FiftyCallsSameBitsCountersBackToZeroFloat)
{
    KBENCH_REQUIRE_GPU();
    check_repeated_calls<float>();
}

/// (c) Calls of alternating n and k (and launcher) on one workspace, sized once for the largest:
/// every result exact (dyadic data), three rounds in two orders.
template <typename T>
void check_alternating_shapes()
{
    const cuda_stream stream;
    const std::int64_t n_max = 3000000;
    shape_data<T> data(true, n_max);
    device_buffer<unsigned char> work = workspace_for(n_max, max_dot_vectors);
    device_buffer<T> result(max_dot_vectors);
    std::vector<Shape> shapes = {
        {Launcher::dot, n_max, 1},         {Launcher::mdot, 5000, 9},
        {Launcher::mdgm, 100000, 64},      {Launcher::mdgm, 2000, 3},
        {Launcher::dot, 1025, 1},          {Launcher::mdot, n_max, 64},
        {Launcher::mdgm, n_max, 5},        {Launcher::dot, 1000, 1},  // one block: no workspace
        {Launcher::mdot, 1025, 4},         {Launcher::mdgm, 1023, 8},
        {Launcher::mdot, 100000, 1},       {Launcher::mdgm, 1024 * 40 + 7, 33}};
    for (int round = 0; round < 3; ++round) {
        for (const Shape& c : shapes) {
            SCOPED_TRACE(testing::Message() << "round " << round << " launcher "
                                            << static_cast<int>(c.launcher) << " n=" << c.n
                                            << " k=" << c.k);
            data.call(c, result.data(), work.data(), work.size(), stream);
            std::vector<T> got = result.to_host();
            got.resize(static_cast<std::size_t>(products(c)));
            expect_matches(true, c.n, got, data.reference(c), {});
        }
        std::reverse(shapes.begin(), shapes.end());
    }
    expect_counters_zero(work.data(), work.size());
}

TEST(DotGpuSingleLaunch, AlternatingShapesOnOneWorkspaceDouble)
{
    KBENCH_REQUIRE_GPU();
    check_alternating_shapes<double>();
}

TEST(DotGpuSingleLaunch, AlternatingShapesOnOneWorkspaceFloat)
{
    KBENCH_REQUIRE_GPU();
    check_alternating_shapes<float>();
}

TEST(DotGpuSingleLaunch, CapturedGraphReplaysMatchDirectCalls)
{
    KBENCH_REQUIRE_GPU();
    using T = double;
    const cuda_stream stream;
    const std::int64_t n = (1 << 20) + 3;
    shape_data<T> data(false, n);
    DotWorkspace w(n, max_dot_vectors);  // the RAII owner: counters zeroed
    expect_counters_zero(w.data(), w.bytes());
    const Shape shapes[] = {{Launcher::dot, n, 1}, {Launcher::mdot, n, 17},
                            {Launcher::mdgm, 100003, 64}, {Launcher::mdgm, n, 9}};
    device_buffer<T> direct(4 * max_dot_vectors), replayed(4 * max_dot_vectors);
    for (std::size_t i = 0; i < 4; ++i)
        data.call(shapes[i], direct.data() + i * max_dot_vectors, w.data(), w.bytes(), stream);
    cuda_graph graph;
    cudaGraph_t captured = graph.get();
    KBENCH_CUDA_CHECK(cudaStreamBeginCaptureToGraph(stream, captured, nullptr, nullptr, 0,
                                                    cudaStreamCaptureModeThreadLocal));
    for (std::size_t i = 0; i < 4; ++i)
        data.call(shapes[i], replayed.data() + i * max_dot_vectors, w.data(), w.bytes(), stream);
    KBENCH_CUDA_CHECK(cudaStreamEndCapture(stream, &captured));
    const cuda_graph_exec exec(graph.get());
    const std::vector<T> want = direct.to_host();
    for (int replay = 0; replay < 3; ++replay) {
        KBENCH_CUDA_CHECK(cudaMemset(replayed.data(), 0xff, replayed.bytes()));
        KBENCH_CUDA_CHECK(cudaDeviceSynchronize());
        exec.launch(stream);
        std::vector<T> got = replayed.to_host();
        for (std::size_t i = 0; i < 4; ++i) {
            const std::size_t k = static_cast<std::size_t>(products(shapes[i]));
            const auto from = static_cast<std::ptrdiff_t>(i * max_dot_vectors);
            const std::vector<T> a(want.begin() + from, want.begin() + from + k);
            const std::vector<T> b(got.begin() + from, got.begin() + from + k);
            EXPECT_TRUE(same_bits(a, b)) << "replay " << replay << ", call " << i;
        }
        expect_counters_zero(w.data(), w.bytes());
    }
}

/// (d) The bits of the former two-launch sum: stage 2 was one block of 256 threads per product,
/// thread t adding partials t, t + 256, ... in order from 0, then block_sum (warp butterflies
/// by xor 16, 8, 4, 2, 1, then the 8 warp totals, zero-padded to a warp, the same way). Emulated
/// in T on the host from the partials the launch leaves in the workspace.
template <typename T>
T two_launch_sum(const T* partials, std::int64_t blocks)
{
    constexpr int threads = 256;
    const auto warp_sum = [](std::array<T, 32>& v) {
        for (int m = 16; m > 0; m /= 2) {
            std::array<T, 32> next{};
            for (int lane = 0; lane < 32; ++lane) next[lane] = v[lane] + v[lane ^ m];
            v = next;
        }
    };
    std::array<T, threads> acc{};
    for (int t = 0; t < threads; ++t) {
        acc[t] = T(0);
        for (std::int64_t b = t; b < blocks; b += threads) acc[t] += partials[b];
    }
    std::array<T, 32> totals{};
    for (int w = 0; w < threads / 32; ++w) {
        std::array<T, 32> lanes{};
        std::copy(acc.begin() + 32 * w, acc.begin() + 32 * (w + 1), lanes.begin());
        warp_sum(lanes);
        totals[w] = lanes[0];
    }
    for (int lane = threads / 32; lane < 32; ++lane) totals[lane] = T(0);
    warp_sum(totals);
    return totals[0];
}

/// Runs `c` once on a fresh workspace (partials poisoned), finds the grid's row length G from
/// the partials written (k G of them, the rest still 0xff bytes) and compares every result
/// with two_launch_sum of its G partials, bit for bit.
template <typename T>
void expect_two_launch_bits(shape_data<T>& data, const Shape& c, cudaStream_t stream)
{
    const int k = products(c);
    device_buffer<unsigned char> work = workspace_for(c.n, k);
    device_buffer<T> result = poisoned_results<T>(k);
    data.call(c, result.data(), work.data(), work.size(), stream);
    const std::vector<T> got = result.to_host();
    const std::vector<unsigned char> bytes = work.to_host();
    const std::size_t slots = (bytes.size() - dot_counter_bytes) / sizeof(T);
    std::vector<T> partials(slots);
    std::memcpy(partials.data(), bytes.data() + dot_counter_bytes, slots * sizeof(T));
    T poisoned;
    std::memset(&poisoned, poison, sizeof(T));
    std::size_t written = 0;
    while (written < slots && std::memcmp(&partials[written], &poisoned, sizeof(T)) != 0)
        ++written;
    ASSERT_EQ(written % static_cast<std::size_t>(k), 0u) << written << " partials written";
    const auto blocks = static_cast<std::int64_t>(written / static_cast<std::size_t>(k));
    ASSERT_GT(blocks, 1) << "one block per chunk: nothing to compare (choose a larger n)";
    ASSERT_LE(blocks, dot_max_blocks(c.n));
    for (int j = 0; j < k; ++j) {
        const T want = two_launch_sum(partials.data() + std::int64_t{j} * blocks, blocks);
        EXPECT_TRUE(same_bits(std::vector<T>{got[j]}, std::vector<T>{want}))
            << "product " << j << ": " << got[j] << " vs two-launch " << want << " (G = "
            << blocks << ")";
    }
}

template <typename T>
void check_two_launch_bits()
{
    const cuda_stream stream;
    const std::int64_t n = 3000000;
    shape_data<T> data(false, n);
    const Shape shapes[] = {{Launcher::dot, n, 1},         {Launcher::dot, 5000, 1},
                            {Launcher::mdot, n, 9},        {Launcher::mdot, 100000, 64},
                            {Launcher::mdgm, n, 5},        {Launcher::mdgm, 100003, 64},
                            {Launcher::mdgm, 1025, 33}};
    for (const Shape& c : shapes) {
        SCOPED_TRACE(testing::Message() << "launcher " << static_cast<int>(c.launcher)
                                        << " n=" << c.n << " k=" << c.k);
        expect_two_launch_bits(data, c, stream);
    }
}

TEST(DotGpuSingleLaunch, SameBitsAsTheTwoLaunchSumDouble)
{
    KBENCH_REQUIRE_GPU();
    check_two_launch_bits<double>();
}

TEST(DotGpuSingleLaunch, SameBitsAsTheTwoLaunchSumFloat)
{
    KBENCH_REQUIRE_GPU();
    check_two_launch_bits<float>();
}

TEST(DotGpuSingleLaunch, OwnerAndInitZeroTheCounterRegion)
{
    KBENCH_REQUIRE_GPU();
    DotWorkspace owned(1 << 20, 17);
    EXPECT_EQ(owned.bytes(), dot_workspace_bytes(1 << 20, 17));
    expect_counters_zero(owned.data(), owned.bytes());

    const cuda_stream stream;
    device_buffer<unsigned char> raw(
        std::vector<unsigned char>(dot_workspace_bytes(5000, 3), poison));
    dot_workspace_init(raw.data(), raw.size(), stream);
    expect_counters_zero(raw.data(), raw.size());
    const std::vector<unsigned char> bytes = raw.to_host();  // the partials are left as they were
    EXPECT_TRUE(std::all_of(bytes.begin() + dot_counter_bytes, bytes.end(),
                            [](unsigned char b) { return b == poison; }));
}

}  // namespace
}  // namespace kbench::blas
