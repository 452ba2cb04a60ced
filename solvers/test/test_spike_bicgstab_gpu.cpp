// SPIKE-preconditioned BiCGStab on the GPU (solvers/spike/spike_bicgstab.hpp) against its CPU
// twin: K = 1 .. 128, remainder partitions (N = 8191, li2012 Fig. 3(b)), double and mixed
// precision, corner-UL tips, automatic psize, zero pivots, a zero right-hand side and the
// detailed phases. Label gpu.
#include "kernels/base/cuda_check.hpp"
#include "kernels/base/cuda_handles.hpp"
#include "kernels/base/device_buffer.hpp"
#include "kernels/machine_probe.hpp"
#include "kernels/spmv_operator.hpp"
#include "kernels/test/expect_invalid.hpp"
#include "kernels/test/gpu_test.hpp"
#include "matrices/banded.hpp"
#include "matrices/generators.hpp"
#include "solvers/spike/spike_bicgstab.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace kbench::solvers::spike {
namespace {

std::vector<double> random_rhs(index_type n)
{
    std::mt19937 gen(23);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    std::vector<double> b(n);
    for (double& v : b) v = u(gen);
    return b;
}

/// max_i |x_i - y_i| / max_i |y_i|.
double max_rel_diff(const std::vector<double>& x, const std::vector<double>& y)
{
    double d = 0.0, s = 0.0;
    for (std::size_t i = 0; i < y.size(); ++i) {
        d = std::max(d, std::abs(x[i] - y[i]));
        s = std::max(s, std::abs(y[i]));
    }
    return d / s;
}

struct Solved {
    SpikeBicgstabResult result;
    std::vector<double> x;
};

Solved solve_gpu(const BandMatrix<double>& a, const std::vector<double>& b,
              const SpikeBicgstabOptions& opts, double x0 = 0.0)
{
    cuda_stream stream;
    device_buffer<double> db(b), dx(std::vector<double>(b.size(), x0));
    Solved run;
    run.result = spike_bicgstab(a, db.data(), dx.data(), opts, stream);
    run.x = dx.to_host();
    return run;
}

Solved solve_cpu(const BandMatrix<double>& a, const std::vector<double>& b,
              const SpikeBicgstabOptions& opts, double x0 = 0.0)
{
    Solved run;
    run.x.assign(b.size(), x0);
    run.result = spike_bicgstab_cpu(a, b, run.x, opts);
    return run;
}

/// Same status, iterations within 1, both converged to the tolerance (true residual), and the
/// solutions within 1e-6 relative: these matrices are well conditioned (CPU solutions at 1e-8
/// and 1e-14 differ by about the residual, at most ~2e-9), so 1e-6 leaves room for a solve that
/// stops one iteration earlier than the other.
void expect_twins_agree(const Solved& gpu, const Solved& cpu, double tolerance)
{
    EXPECT_EQ(gpu.result.solve.status, cpu.result.solve.status) << gpu.result.solve.detail;
    EXPECT_NEAR(gpu.result.solve.iterations, cpu.result.solve.iterations, 1);
    EXPECT_EQ(gpu.result.psize, cpu.result.psize);
    EXPECT_EQ(gpu.result.partitions, cpu.result.partitions);
    if (cpu.result.solve.status == SolveStatus::converged) {
        EXPECT_LE(gpu.result.solve.true_residual, 2 * tolerance);
        EXPECT_LE(gpu.result.solve.residual_history.back(), tolerance);
        EXPECT_LT(max_rel_diff(gpu.x, cpu.x), 1e-6);
    }
    ASSERT_EQ(gpu.result.solve.residual_history.size(),
              static_cast<std::size_t>(gpu.result.solve.iterations) + 1);
    EXPECT_NEAR(gpu.result.solve.residual_history[0], cpu.result.solve.residual_history[0], 1e-12);
    EXPECT_GT(gpu.result.factor_seconds, 0.0);
    EXPECT_DOUBLE_EQ(gpu.result.total_seconds,
                     gpu.result.factor_seconds + gpu.result.solve.seconds);
}

struct Case {
    index_type K, psize;
    double d;
};

// N = 8191 leaves a remainder to the last partition in every case (psize 2048: 3 partitions,
// the last of 4095 rows, li2012 Fig. 3(b)); K = 32 and 128 at psize 2K truncate the most.
constexpr index_type n_rows = 8191;
const Case cases[] = {{1, 256, 1.0},  {8, 16, 1.0},      {8, 100, 10.0},  {32, 64, 1.0},
                      {32, 2048, 1.0}, {128, 256, 1.0}, {128, 1024, 100.0}};

TEST(SpikeBicgstabGpu, MatchesTheCpuTwinInDoubleAndMixed)
{
    KBENCH_REQUIRE_GPU();
    const std::vector<double> b = random_rhs(n_rows);
    for (const Case& c : cases) {
        const BandMatrix<double> a = band_from_csr(banded(n_rows, c.K, c.d, 31), c.K);
        for (const SpikePrecision precision :
             {SpikePrecision::double_precision, SpikePrecision::mixed}) {
            SCOPED_TRACE("K = " + std::to_string(c.K) + ", psize = " + std::to_string(c.psize) +
                         ", d = " + std::to_string(c.d) + ", " + to_string(precision));
            SpikeBicgstabOptions opts;
            opts.psize = c.psize;
            opts.precision = precision;
            expect_twins_agree(solve_gpu(a, b, opts), solve_cpu(a, b, opts), opts.tolerance);
        }
    }
}

TEST(SpikeBicgstabGpu, CornerUlTipsMatchTheCpuTwin)
{
    KBENCH_REQUIRE_GPU();
    const std::vector<double> b = random_rhs(n_rows);
    for (const index_type K : {8, 32}) {
        SCOPED_TRACE("K = " + std::to_string(K));
        const BandMatrix<double> a = band_from_csr(banded(n_rows, K, 1.0, 31), K);
        SpikeBicgstabOptions opts;
        opts.psize = 16 * K;
        opts.tips = SpikeTips::corner_ul;
        expect_twins_agree(solve_gpu(a, b, opts), solve_cpu(a, b, opts), opts.tolerance);
    }
}

TEST(SpikeBicgstabGpu, AutomaticPsizeIsChosenAndRecorded)
{
    KBENCH_REQUIRE_GPU();
    const std::vector<double> b = random_rhs(n_rows);
    for (const index_type K : {1, 8, 32, 128}) {
        SCOPED_TRACE("K = " + std::to_string(K));
        const BandMatrix<double> a = band_from_csr(banded(n_rows, K, 1.0, 31), K);
        const Solved gpu = solve_gpu(a, b, SpikeBicgstabOptions{});
        EXPECT_GE(gpu.result.psize, 2 * K);
        EXPECT_LE(gpu.result.psize, n_rows / 2);
        EXPECT_EQ(gpu.result.partitions, n_rows / gpu.result.psize);
        SpikeBicgstabOptions opts;
        opts.psize = gpu.result.psize;  // the CPU twin's automatic choice assumes one slot
        expect_twins_agree(gpu, solve_cpu(a, b, opts), opts.tolerance);
    }
}

TEST(SpikeBicgstabGpu, DetailedPhasesArePresentAndAddUp)
{
    KBENCH_REQUIRE_GPU();
    const BandMatrix<double> a = band_from_csr(banded(n_rows, 32, 1.0, 31), 32);
    const std::vector<double> b = random_rhs(n_rows);
    for (const SpikePrecision precision :
         {SpikePrecision::double_precision, SpikePrecision::mixed}) {
        SCOPED_TRACE(to_string(precision));
        SpikeBicgstabOptions opts;
        opts.psize = 64;
        opts.precision = precision;
        opts.detailed = true;
        const Solved gpu = solve_gpu(a, b, opts);
        ASSERT_EQ(gpu.result.solve.status, SolveStatus::converged) << gpu.result.solve.detail;
        const std::vector<std::string> names{"LU/UL",         "spikes",         "reduced system",
                                             "BiCGStab SpMV", "preconditioner", "other"};
        ASSERT_EQ(gpu.result.phases.size(), names.size());
        double sum = 0.0;
        for (std::size_t i = 0; i < names.size(); ++i) {
            EXPECT_EQ(gpu.result.phases[i].name, names[i]);
            EXPECT_GE(gpu.result.phases[i].seconds, 0.0) << names[i];
            EXPECT_GT(gpu.result.phases[i].calls, 0) << names[i];
            sum += gpu.result.phases[i].seconds;
        }
        EXPECT_EQ(gpu.result.phases[3].calls, 2 * gpu.result.solve.iterations);
        EXPECT_EQ(gpu.result.phases[4].calls, 2 * gpu.result.solve.iterations);
        EXPECT_LE(sum, gpu.result.total_seconds);
        // The detailed run solves the same system as a plain one.
        opts.detailed = false;
        const Solved plain = solve_gpu(a, b, opts);
        EXPECT_TRUE(plain.result.phases.empty());
        EXPECT_EQ(plain.result.solve.iterations, gpu.result.solve.iterations);
        EXPECT_LT(max_rel_diff(plain.x, gpu.x), 1e-12);
    }
}

TEST(SpikeBicgstabGpu, ZeroPivotAndZeroRightHandSideAsOnTheCpu)
{
    KBENCH_REQUIRE_GPU();
    const index_type K = 8, psize = 512;
    BandMatrix<double> a = band_from_csr(banded(n_rows, K, 10.0, 31), K);
    SpikeBicgstabOptions opts;
    opts.psize = psize;
    {
        const std::vector<double> zero(n_rows, 0.0);
        const Solved gpu = solve_gpu(a, zero, opts, 1.0);
        EXPECT_EQ(gpu.result.solve.status, SolveStatus::converged);
        EXPECT_EQ(gpu.result.solve.iterations, 0);
        EXPECT_EQ(gpu.x, zero);
    }
    a.ab[a.index(3 * psize, 3 * psize)] = 0.0;  // first pivot of partition 3's LU
    const std::vector<double> b = random_rhs(n_rows);
    for (const SpikePrecision precision :
         {SpikePrecision::double_precision, SpikePrecision::mixed}) {
        opts.precision = precision;
        const Solved gpu = solve_gpu(a, b, opts, 0.25);
        const Solved cpu = solve_cpu(a, b, opts, 0.25);
        EXPECT_EQ(gpu.result.solve.status, SolveStatus::breakdown);
        EXPECT_EQ(gpu.result.solve.detail, "zero pivot in the LU of partition 3 at row 1536");
        EXPECT_EQ(gpu.result.solve.detail, cpu.result.solve.detail);
        EXPECT_EQ(gpu.result.solve.iterations, 0);
        EXPECT_EQ(gpu.x, std::vector<double>(n_rows, 0.25));
    }
}

TEST(SpikeBicgstabGpu, BadPsizeIsRejected)
{
    KBENCH_REQUIRE_GPU();
    const BandMatrix<double> a = band_from_csr(banded(1000, 8, 1.0, 31), 8);
    SpikeBicgstabOptions opts;
    opts.psize = 10;
    device_buffer<double> b(std::vector<double>(1000, 1.0)), x(1000);
    cuda_stream stream;
    try {
        spike_bicgstab(a, b.data(), x.data(), opts, stream);
        ADD_FAILURE() << "no std::invalid_argument";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string{e.what()}.find("psize = 10"), std::string::npos) << e.what();
    }
}

TEST(SpikeBicgstabGpu, PrebuiltOperatorGivesTheSameSolve)
{
    KBENCH_REQUIRE_GPU();
    const index_type n = 6000, k = 12;
    const BandMatrix<double> a = band_from_csr(banded(n, k, 1.0, 41), k);
    const std::vector<double> b = random_rhs(n);
    SpikeBicgstabOptions opts;
    opts.psize = 500;
    spmv::SpmvOperator<double> op(band_to_csr(a), spmv::Policy{"auto"}, spmv::machine_figures());
    cuda_stream stream;
    device_buffer<double> db(b), dx(n);
    // Two solves on one operator: it carries no state from one solve to the next.
    for (int run = 0; run < 2; ++run) {
        KBENCH_CUDA_CHECK(cudaMemsetAsync(dx.data(), 0, n * sizeof(double), stream));
        const SpikeBicgstabResult r = spike_bicgstab(a, op, db.data(), dx.data(), opts, stream);
        const Solved own = solve_gpu(a, b, opts);
        EXPECT_EQ(r.solve.status, own.result.solve.status) << r.solve.detail;
        EXPECT_EQ(r.solve.iterations, own.result.solve.iterations);
        EXPECT_LT(max_rel_diff(dx.to_host(), own.x), 1e-12);
    }
}

TEST(SpikeBicgstabGpu, OperatorOfAnotherSizeIsRejected)
{
    KBENCH_REQUIRE_GPU();
    const BandMatrix<double> a = band_from_csr(banded(1000, 8, 1.0, 31), 8);
    const BandMatrix<double> other = band_from_csr(banded(900, 8, 1.0, 31), 8);
    spmv::SpmvOperator<double> op(band_to_csr(other), spmv::Policy{"auto"},
                                  spmv::machine_figures());
    device_buffer<double> b(std::vector<double>(1000, 1.0)), x(1000);
    cuda_stream stream;
    test::expect_invalid([&] { spike_bicgstab(a, op, b.data(), x.data(), {}, stream); },
                         {"900 rows", "n = 1000"});
}

}  // namespace
}  // namespace kbench::solvers::spike
