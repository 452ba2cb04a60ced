// Dot-product kernels (kernels/dot.hpp), the CPU tests of test_dot_gpu (no GPU needed): the
// reference twins (hand-checkable cases), the argument checks, workspace query and its owner
// (no CUDA call when empty), chunk bookkeeping and traffic models. The GPU tests are in
// test_dot_gpu.cpp.
#include "kernels/dot.hpp"
#include "kernels/test/expect_invalid.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace kbench::blas {
namespace {

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
                    "dot_workspace_bytes(n = 5000, k = 1) = " + std::to_string(need),
                    "dot_counter_bytes = 256 bytes of ticket counters",
                    "k x dot_max_blocks(n) = 1 x 5 partial sums"});
    expect_invalid([&] { dot<double>(n, p, p, r, nullptr, need, s); },
                   {"kbench::blas::dot", "workspace is null", "counter region"});
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

TEST(DotWorkspace, CounterRegionThenOnePartialPerBlockAndProduct)
{
    EXPECT_EQ(dot_max_blocks(0), 1);
    EXPECT_EQ(dot_max_blocks(1024), 1);
    EXPECT_EQ(dot_max_blocks(1025), 2);
    EXPECT_EQ(dot_max_blocks(std::int64_t{1} << 40), 2048);

    // 256 bytes of counters (room for the 16 chunks of mdot at k = 64), then the partials.
    EXPECT_EQ(dot_counter_bytes, 256u);
    EXPECT_EQ(dot_max_counters, 16);
    EXPECT_EQ(dot_workspace_bytes(1024, 64), 0u);  // one block writes the results itself
    EXPECT_EQ(dot_workspace_bytes(1 << 20, 0), 0u);
    EXPECT_EQ(dot_workspace_bytes(1025, 1), 256u + 2 * sizeof(double));
    EXPECT_EQ(dot_workspace_bytes(100000, 3), 256u + 3u * 98 * sizeof(double));  // ceil(1e5/1024)
    EXPECT_EQ(dot_workspace_bytes(3000000, 9), 256u + 9u * 2048 * sizeof(double));
    EXPECT_EQ(dot_workspace_bytes(std::int64_t{1} << 40, 64), 256u + 64u * 2048 * sizeof(double));

    // Nondecreasing in n and k: the size for the largest call serves the smaller ones.
    std::size_t previous = 0;
    for (std::int64_t n : {0, 1, 1024, 1025, 5000, 100000, 3000000}) {
        EXPECT_GE(dot_workspace_bytes(n, 5), previous) << "n = " << n;
        EXPECT_GE(dot_workspace_bytes(n, 6), dot_workspace_bytes(n, 5)) << "n = " << n;
        previous = dot_workspace_bytes(n, 5);
    }
}

TEST(DotWorkspace, InitAndOwnerNeedNoCudaCallWhenEmpty)
{
    // Without a GPU any CUDA call would throw kbench::cuda_error: none is made for 0 bytes.
    EXPECT_NO_THROW(dot_workspace_init(nullptr, 0, nullptr));
    const DotWorkspace none;
    EXPECT_TRUE(none.empty());
    EXPECT_EQ(none.bytes(), 0u);
    DotWorkspace small(1024, 64);  // one block per chunk: no workspace needed
    EXPECT_TRUE(small.empty());
    EXPECT_EQ(small.data(), nullptr);
}

TEST(DotWorkspace, BadInitArgumentsThrowNamingTheCounterRegion)
{
    alignas(16) static unsigned char ws[16];
    expect_invalid([] { dot_workspace_init(nullptr, 512, nullptr); },
                   {"kbench::blas::dot_workspace_init", "workspace is null",
                    "workspace_bytes = 512"});
    expect_invalid([] { dot_workspace_init(ws, 16, nullptr); },
                   {"kbench::blas::dot_workspace_init", "workspace_bytes = 16",
                    "dot_counter_bytes = 256", "counter region"});
    expect_invalid([] { DotWorkspace w(-1, 1); }, {"kbench::blas::dot_workspace_bytes", "n = -1"});
    expect_invalid([] { DotWorkspace w(5000, 65); },
                   {"kbench::blas::dot_workspace_bytes", "k = 65"});
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

}  // namespace
}  // namespace kbench::blas
