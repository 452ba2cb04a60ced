// Truncated SPIKE on the GPU (solvers/spike/spike.hpp) against its CPU reference: K = 1 .. 256
// (shared-memory and global-memory windows), remainder partitions, float, double and mixed
// precision, and the same zero-pivot statuses.
#include "kernels/base/cuda_handles.hpp"
#include "kernels/base/device_buffer.hpp"
#include "kernels/test/gpu_test.hpp"
#include "matrices/banded.hpp"
#include "matrices/generators.hpp"
#include "solvers/spike/spike.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace kbench::solvers::spike {
namespace {

struct Case {
    index_type n, K, psize;
};

// Every K of the brief and K = 31 (the one-warp LU and substitutions with a lane idle, partitions
// no multiple of 32); each N leaves a remainder to the last partition except 4096. K = 64
// and 96 take the shared-memory LU and tips beyond the default 48 KB (opt-in); K = 128 the
// blocked LU (band_lu_blocked.hpp: 2K + 1 > 256 threads) with shared-memory tips in float;
// K = 256 blocked, with a last partition that pads its last block row.
const Case cases[] = {{4096, 1, 64},    {1000, 1, 64},     {2345, 8, 100},
                      {3001, 31, 333},  {2048, 32, 256},   {8191, 32, 2048},
                      {3001, 64, 400},  {2000, 96, 400},   {1100, 128, 256},
                      {2148, 256, 512}};

std::vector<double> random_rhs(index_type n)
{
    std::mt19937 gen(17);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    std::vector<double> b(n);
    for (double& v : b) v = u(gen);
    return b;
}

/// max_i |x_i - y_i| / max_i |y_i|.
template <typename A, typename B>
double max_rel_diff(const std::vector<A>& x, const std::vector<B>& y)
{
    double d = 0.0, s = 0.0;
    for (std::size_t i = 0; i < y.size(); ++i) {
        d = std::max(d, std::abs(static_cast<double>(x[i]) - static_cast<double>(y[i])));
        s = std::max(s, std::abs(static_cast<double>(y[i])));
    }
    return d / s;
}

template <typename T>
void expect_gpu_matches_cpu(double tolerance)
{
    cuda_stream stream;
    for (const Case& c : cases) {
        SCOPED_TRACE("N = " + std::to_string(c.n) + ", K = " + std::to_string(c.K) +
                     ", psize = " + std::to_string(c.psize));
        const BandMatrix<T> a = band_cast<T>(band_from_csr(banded(c.n, c.K, 10.0, 21), c.K));
        const std::vector<double> b = random_rhs(c.n);
        const std::vector<T> bt(b.begin(), b.end());
        SpikeReference<T> cpu;
        ASSERT_TRUE(cpu.factor(a, c.psize).ok());
        std::vector<T> z_cpu(c.n);
        cpu.apply(bt.data(), z_cpu.data());

        SpikeSolver<T> gpu;
        const SpikeStatus st = gpu.factor(a, c.psize, stream);
        ASSERT_TRUE(st.ok()) << st.message();
        EXPECT_EQ(gpu.partition_count(), cpu.partition_count());
        device_buffer<T> dr(bt), dz(c.n);
        gpu.apply(dr.data(), dz.data(), stream);
        stream.synchronize();
        EXPECT_LT(max_rel_diff(dz.to_host(), z_cpu), tolerance);

        // li2012 Sec. 2.4: double r and z around the T preconditioner.
        std::vector<double> zm_cpu(c.n);
        cpu.apply_mixed(b.data(), zm_cpu.data());
        device_buffer<double> dbr(b), dbz(c.n);
        gpu.apply_mixed(dbr.data(), dbz.data(), stream);
        stream.synchronize();
        EXPECT_LT(max_rel_diff(dbz.to_host(), zm_cpu), tolerance);
    }
}

TEST(SpikeGpu, DoubleMatchesTheCpuReference)
{
    KBENCH_REQUIRE_GPU();
    expect_gpu_matches_cpu<double>(1e-11);
}

TEST(SpikeGpu, FloatAndMixedMatchTheCpuReference)
{
    KBENCH_REQUIRE_GPU();
    expect_gpu_matches_cpu<float>(2e-4);
}

/// Spoils A(row, row) of a diagonally dominant band with `value` for each pair and expects the
/// GPU factor() to report the CPU reference's status (code, stage, partition, row).
void expect_statuses_equal_cpu(index_type n, index_type K, index_type psize,
                               const std::vector<std::pair<index_type, double>>& spoilt)
{
    cuda_stream stream;
    const BandMatrix<double> base = band_from_csr(banded(n, K, 10.0, 2), K);
    for (const auto& [row, value] : spoilt) {
        SCOPED_TRACE("K = " + std::to_string(K) + ", A(" + std::to_string(row) + ", " +
                     std::to_string(row) + ") = " + std::to_string(value));
        BandMatrix<double> a = base;
        a.ab[a.index(row, row)] = value;
        const SpikeStatus want = SpikeReference<double>{}.factor(a, psize);
        SpikeSolver<double> gpu;
        const SpikeStatus got = gpu.factor(a, psize, stream);
        ASSERT_FALSE(want.ok());
        EXPECT_EQ(got.code, want.code);
        EXPECT_EQ(got.stage, want.stage);
        EXPECT_EQ(got.partition, want.partition);
        EXPECT_EQ(got.row, want.row);
        device_buffer<double> r(n), z(n);
        EXPECT_THROW(gpu.apply(r.data(), z.data(), stream), std::logic_error);
    }
}

TEST(SpikeGpu, ZeroPivotStatusesEqualTheCpuOnes)
{
    KBENCH_REQUIRE_GPU();
    // The shared-memory LU (K = 4): a zero opening partition 3's LU, a zero opening partition
    // 5's UL, a NaN inside the last partition.
    expect_statuses_equal_cpu(1000, 4, 100, {{300, 0.0}, {599, 0.0}, {950, std::nan("")}});
    // The blocked LU (K = 128, band_lu_blocked.hpp; partitions of 256 rows, the last of 276 and
    // so padded): the same three kinds of spoiling, and a NaN in a block row's middle.
    expect_statuses_equal_cpu(1300, 128, 256,
                              {{512, 0.0}, {1023, 0.0}, {1200, std::nan("")}, {700, std::nan("")}});
    cuda_stream stream;
    // Singular reduced block (see test_spike_reference.cpp).
    BandMatrix<double> a = band_zeros<double>(4, 1);
    const double v[4][4] = {{2, 1, 0, 0}, {1, 1, .5, 0}, {0, .5, 1, 1}, {0, 0, 1, 2}};
    for (index_type i = 0; i < 4; ++i)
        for (index_type j = std::max(0, i - 1); j <= std::min(3, i + 1); ++j) a.ab[a.index(i, j)] = v[i][j];
    SpikeSolver<double> gpu;
    const SpikeStatus got = gpu.factor(a, 2, stream);
    EXPECT_EQ(got.stage, SpikeStage::reduced);
    EXPECT_EQ(got.partition, 0);
    EXPECT_EQ(got.row, 2);
}

TEST(SpikeGpu, StepSecondsOfThePartitionKernels)
{
    KBENCH_REQUIRE_GPU();
    // The one-warp kernels (K = 32) and the shared-memory window (K = 64): a pivot and a row
    // take time, a step of one wave of blocks (tens of thousands of device cycles at most: a
    // figure of the whole device's waves, not one wave's, is far above); K = 256 factors with
    // the blocked LU: no pivot kernel.
    for (const index_type K : {32, 64}) {
        const StepSeconds s = SpikeSolver<double>::step_seconds(K);
        EXPECT_GT(s.lu_pivot, 0.0) << "K = " << K;
        EXPECT_LT(s.lu_pivot, 2e-5) << "K = " << K;
        EXPECT_GT(s.solve_row, 0.0) << "K = " << K;
        EXPECT_LT(s.solve_row, 2e-6) << "K = " << K;
    }
    // K = 32: the tips kernel and the reduced blocks' LU kernel, a wave of each.
    const StepSeconds s32 = SpikeSolver<double>::step_seconds(32);
    EXPECT_GT(s32.tips_wave, 0.0);
    EXPECT_GE(s32.tips_slots, 1.0);
    EXPECT_GT(s32.reduced_wave, 0.0);
    EXPECT_GE(s32.reduced_slots, 1.0);
    const StepSeconds s256 = SpikeSolver<double>::step_seconds(256);
    EXPECT_EQ(s256.lu_pivot, 0.0);
    EXPECT_EQ(s256.tips_wave, 0.0);     // tips by batched cuBLAS trsm
    EXPECT_EQ(s256.reduced_wave, 0.0);  // reduced blocks by batched getrf
    // The blocked LU's block-row step (four batched calls on 256 x 256 blocks): it takes time,
    // below 50 ms fixed and 1 ms per block; no such step where the LU is not blocked.
    EXPECT_GT(s256.blocked_fixed + s256.blocked_per_block, 0.0);
    EXPECT_LT(s256.blocked_fixed, 0.05);
    EXPECT_LT(s256.blocked_per_block, 1e-3);
    EXPECT_EQ(s32.blocked_fixed, 0.0);
    EXPECT_EQ(s32.blocked_per_block, 0.0);
    EXPECT_GT(SpikeSolver<float>::step_seconds(8).solve_row, 0.0);
    EXPECT_THROW(SpikeSolver<double>::step_seconds(0), std::invalid_argument);
}

}  // namespace
}  // namespace kbench::solvers::spike
