// The multi-core CPU SPIKE (solvers/spike/spike_bicgstab.hpp: spike_bicgstab_omp, li2012's CPU
// baseline as kbench runs it): the partition rule, the solution against LAPACK dgbsv (when
// built) and against the one-thread twin on diagonally dominant banded systems made here, the
// same bits on 1 and 2 threads, and the errors on bad input.
//
// Tolerance of the solution checks. Both solvers return an approximate x_i with residual
// r_i = b - A x_i, so x_1 - x_2 = A^-1 (r_2 - r_1) and
//     ||x_1 - x_2||_inf <= ||A^-1||_inf (||r_1||_inf + ||r_2||_inf).
// For a strictly diagonally dominant A, ||A^-1||_inf <= 1 / min_i (|a_ii| - sum_{j != i} |a_ij|)
// (Varah 1975). The test computes that bound from the matrix and the two residuals measured
// here (each residual's own rounding, at most (2K + 2) eps sum_j |a_ij x_j| + |b_i| per row, is
// added), so the tolerance is derived, not tuned. It also checks that the bound is small, so
// that a loose bound cannot hide a wrong solution: BiCGStab stops at ||r||_inf / ||b||_inf <=
// 1e-8 (li2012 Sec. 1.4) and the tests require the true residual <= 2e-8 ||b||_inf (dgbsv's is
// near eps), so ||r_1|| + ||r_2|| <= 4e-8 ||b||; the systems below have off-diagonal magnitudes
// in [0.1, 1] and a_ii = d x the row's off-diagonal sum, so every row has at least K
// off-diagonals, min_i (|a_ii| - sum) >= 0.1 K (d - 1) and ||A||_inf <= 2K (1 + d), and with
// ||x||_inf >= ||b||_inf / ||A||_inf the bound relative to ||x||_inf is at most
//     4e-8 x 2K (1 + d) / (0.1 K (d - 1)) = 8e-7 (1 + d) / (d - 1)   (2.4e-6 at d = 2).
#include "kernels/test/expect_invalid.hpp"
#include "matrices/banded.hpp"
#include "solvers/spike/spike.hpp"
#include "solvers/spike/spike_bicgstab.hpp"
#include "solvers/test/solver_test_util.hpp"
#ifdef KBENCH_HAVE_LAPACKE
#include "solvers/spike/gbsv_baseline.hpp"
#endif

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace kbench::solvers::spike {
namespace {

using kbench::solvers::test::random_rhs;
using kbench::test::expect_invalid;

/// A banded system made here: off-diagonal magnitudes uniform in [0.1, 1] with random signs,
/// a_ii = d x the row's off-diagonal sum (strictly dominant for d > 1).
BandMatrix<double> dominant_band(index_type n, index_type K, double d, unsigned seed)
{
    std::mt19937 gen(seed);
    std::uniform_real_distribution<double> u(0.1, 1.0);
    std::bernoulli_distribution negative(0.5);
    BandMatrix<double> a = band_zeros<double>(n, K);
    for (index_type i = 0; i < n; ++i) {
        double sum = 0.0;
        for (index_type j = std::max(0, i - K); j <= std::min(n - 1, i + K); ++j) {
            if (j == i) continue;
            const double v = u(gen);
            a.ab[a.index(i, j)] = negative(gen) ? -v : v;
            sum += v;
        }
        a.ab[a.index(i, i)] = d * sum;
    }
    return a;
}

/// ||b - A x||_inf plus the rounding bound of computing it, (2K + 2) eps max_i sum_j |a_ij x_j|.
double residual_bound(const BandMatrix<double>& a, const std::vector<double>& b,
                      const std::vector<double>& x)
{
    double r = 0.0, scale = 0.0;
    for (index_type i = 0; i < a.n; ++i) {
        double ax = 0.0, abs_ax = 0.0;
        for (index_type j = std::max(0, i - a.K); j <= std::min(a.n - 1, i + a.K); ++j) {
            ax += a(i, j) * x[j];
            abs_ax += std::abs(a(i, j) * x[j]);
        }
        r = std::max(r, std::abs(b[i] - ax));
        scale = std::max(scale, abs_ax + std::abs(b[i]));
    }
    return r + (2.0 * a.K + 2.0) * std::numeric_limits<double>::epsilon() * scale;
}

/// Varah's bound on ||A^-1||_inf: 1 / min_i (|a_ii| - sum_{j != i} |a_ij|); inf if not strictly
/// dominant.
double inverse_norm_bound(const BandMatrix<double>& a)
{
    double gap = std::numeric_limits<double>::infinity();
    for (index_type i = 0; i < a.n; ++i) {
        double off = 0.0;
        for (index_type j = std::max(0, i - a.K); j <= std::min(a.n - 1, i + a.K); ++j)
            if (j != i) off += std::abs(a(i, j));
        gap = std::min(gap, std::abs(a(i, i)) - off);
    }
    return gap > 0.0 ? 1.0 / gap : std::numeric_limits<double>::infinity();
}

double max_abs_diff(const std::vector<double>& x, const std::vector<double>& y)
{
    double m = 0.0;
    for (std::size_t i = 0; i < x.size(); ++i) m = std::max(m, std::abs(x[i] - y[i]));
    return m;
}

double inf_norm(const std::vector<double>& v)
{
    double m = 0.0;
    for (double e : v) m = std::max(m, std::abs(e));
    return m;
}

/// Expects ||x - y||_inf within the derived bound, and the bound itself at most
/// 8e-7 (1 + d) / (d - 1) ||y||_inf (file comment).
void expect_close(const BandMatrix<double>& a, double d, const std::vector<double>& b,
                  const std::vector<double>& x, const std::vector<double>& y)
{
    const double bound =
        inverse_norm_bound(a) * (residual_bound(a, b, x) + residual_bound(a, b, y));
    EXPECT_LE(max_abs_diff(x, y), bound);
    EXPECT_LE(bound, 8e-7 * (1 + d) / (d - 1) * inf_norm(y));
}

struct Case {
    index_type n, K;
    index_type partitions;  // 0: the rule (one per thread)
    double d;
};

std::string label(const Case& c, int threads)
{
    return "N = " + std::to_string(c.n) + ", K = " + std::to_string(c.K) + ", partitions = " +
           std::to_string(c.partitions) + ", d = " + std::to_string(c.d) + ", threads = " +
           std::to_string(threads);
}

const std::vector<Case> cases = {
    {1000, 1, 2, 2.0},     // two partitions: nothing truncated
    {999, 3, 33, 2.0},     // N < partitions^2: 33 partitions of 30 rows, the last 39
    {5000, 8, 7, 10.0},
    {4096, 16, 0, 2.0},    // the rule: 2 partitions on 1 or 2 threads
    {4096, 16, 64, 2.0},   // psize = 64 = 4K: much truncated
    {20000, 32, 16, 2.0},  // li2012's K
};

TEST(SpikeOmpCpu, PartitionRuleIsOnePerThreadWithinTheLimits)
{
    EXPECT_EQ(cpu_partition_count(100000, 32, 16), 16);
    EXPECT_EQ(cpu_partition_count(100000, 32, 64), 64);
    EXPECT_EQ(cpu_partition_count(100000, 32, 1), 2);      // SPIKE needs 2 partitions
    EXPECT_EQ(cpu_partition_count(1000, 32, 64), 15);      // floor(N / 2K): psize >= 2K
    EXPECT_EQ(cpu_partition_count(128, 32, 8), 2);         // N = 4K: exactly 2
    // psize = floor(N / p): exactly p partitions when N >= p^2, else a few more.
    EXPECT_EQ(psize_for_partitions(100000, 32, 16), 6250);
    EXPECT_EQ(make_partitioning(100000, 32, 6250).count, 16);
    EXPECT_EQ(psize_for_partitions(100003, 32, 16), 6250);  // last partition 6253 rows
    EXPECT_EQ(make_partitioning(100003, 32, 6250).count, 16);
    EXPECT_EQ(psize_for_partitions(999, 3, 33), 30);
    EXPECT_EQ(make_partitioning(999, 3, 30).count, 33);
    EXPECT_EQ(psize_for_partitions(100, 1, 13), 7);
    EXPECT_EQ(make_partitioning(100, 1, 7).count, 14);  // 100 < 13^2
}

TEST(SpikeOmpCpu, RuleErrorsNameTheParameter)
{
    expect_invalid([] { cpu_partition_count(1000, 4, 0); }, {"threads = 0", ">= 1"});
    expect_invalid([] { cpu_partition_count(1000, 0, 4); }, {"K = 0"});
    expect_invalid([] { cpu_partition_count(100, 32, 4); }, {"N = 100", "4K = 128"});
    // More partitions than rows, and more than N / 2K.
    expect_invalid([] { psize_for_partitions(100, 2, 200); },
                   {"partitions = 200", "N / (2K) = 25", "N = 100", "K = 2"});
    expect_invalid([] { psize_for_partitions(1000, 4, 126); }, {"partitions = 126", "125"});
    expect_invalid([] { psize_for_partitions(1000, 4, 1); }, {"partitions = 1", "2 <="});
    expect_invalid([] { SpikeReference<double> s(0); }, {"threads = 0"});
}

TEST(SpikeOmpCpu, SolverErrorsNameTheParameter)
{
    const BandMatrix<double> a = dominant_band(100, 2, 2.0, 1);
    const std::vector<double> b = random_rhs(100, 2);
    std::vector<double> x(100, 0.0);
    SpikeBicgstabOptions opts;
    SpikeOmpOptions omp;
    omp.partitions = 200;  // more partitions than rows
    expect_invalid([&] { spike_bicgstab_omp(a, b, x, opts, omp); },
                   {"partitions = 200", "N / (2K) = 25"});
    omp.partitions = -1;
    expect_invalid([&] { spike_bicgstab_omp(a, b, x, opts, omp); }, {"partitions = -1"});
    omp = {};
    omp.threads = -2;
    expect_invalid([&] { spike_bicgstab_omp(a, b, x, opts, omp); }, {"threads = -2"});
    omp = {};
    omp.partitions = 4;
    opts.psize = 25;
    expect_invalid([&] { spike_bicgstab_omp(a, b, x, opts, omp); },
                   {"partitions = 4", "psize = 25", "one or neither"});
    omp.partitions = 0;
    opts.psize = 60;  // > N/2
    expect_invalid([&] { spike_bicgstab_omp(a, b, x, opts, omp); }, {"psize = 60"});
    opts.psize = 0;
    std::vector<double> short_x(99, 0.0);
    expect_invalid([&] { spike_bicgstab_omp(a, b, short_x, opts, omp); },
                   {"spike_bicgstab_omp", "x 99", "n = 100"});
    opts.tolerance = -1.0;
    expect_invalid([&] { spike_bicgstab_omp(a, b, x, opts, omp); }, {"tolerance"});
    // Too small for two partitions of 2K rows (the rule's N >= 4K).
    const BandMatrix<double> tiny = dominant_band(10, 3, 2.0, 1);
    std::vector<double> bt(10, 1.0), xt(10, 0.0);
    expect_invalid([&] { spike_bicgstab_omp(tiny, bt, xt, SpikeBicgstabOptions{}); },
                   {"N = 10", "4K = 12"});
}

#ifdef KBENCH_HAVE_LAPACKE
TEST(SpikeOmpCpu, MatchesDgbsv)
{
    for (const Case& c : cases)
        for (const int threads : {1, 2}) {
            SCOPED_TRACE(label(c, threads));
            const BandMatrix<double> a = dominant_band(c.n, c.K, c.d, 17 + c.K);
            const std::vector<double> b = random_rhs(c.n, 5);
            const kbench::spike::GbsvResult ref =
                kbench::spike::gbsv_solve(band_to_csr(a), c.K, b);
            ASSERT_EQ(ref.status, kbench::spike::GbsvStatus::ok) << ref.message;
            SpikeOmpOptions omp;
            omp.threads = threads;
            omp.partitions = c.partitions;
            std::vector<double> x(c.n, 0.0);
            const SpikeBicgstabResult res =
                spike_bicgstab_omp(a, b, x, SpikeBicgstabOptions{}, omp);
            ASSERT_EQ(res.solve.status, SolveStatus::converged) << res.solve.detail;
            EXPECT_LE(res.solve.true_residual, 2e-8);
            expect_close(a, c.d, b, x, ref.x);
        }
}
#endif

TEST(SpikeOmpCpu, MatchesTheOneThreadTwinAndIsTheSameOnOneAndTwoThreads)
{
    for (const Case& c : cases) {
        SCOPED_TRACE(label(c, 0));
        const BandMatrix<double> a = dominant_band(c.n, c.K, c.d, 17 + c.K);
        const std::vector<double> b = random_rhs(c.n, 5);
        std::vector<double> x1(c.n, 0.0), x2(c.n, 0.0), xt(c.n, 0.0);
        SpikeOmpOptions omp;
        omp.partitions = c.partitions;
        omp.threads = 1;
        const SpikeBicgstabResult r1 = spike_bicgstab_omp(a, b, x1, SpikeBicgstabOptions{}, omp);
        omp.threads = 2;
        const SpikeBicgstabResult r2 = spike_bicgstab_omp(a, b, x2, SpikeBicgstabOptions{}, omp);
        ASSERT_EQ(r1.solve.status, SolveStatus::converged) << r1.solve.detail;
        EXPECT_LE(r1.solve.true_residual, 2e-8);
        // Partitions: as asked, or one per thread (the rule gives 2 on 1 and on 2 threads).
        const index_type want =
            c.partitions != 0 ? make_partitioning(c.n, c.K, c.n / c.partitions).count : 2;
        EXPECT_EQ(r1.partitions, want);
        EXPECT_EQ(r2.partitions, want);
        EXPECT_EQ(r1.psize, r2.psize);
        EXPECT_EQ(r1.threads, 1);
        EXPECT_EQ(r2.threads, cpu_openmp() ? 2 : 1);
        // The thread count changes no bit: same partial sums in the same order.
        EXPECT_EQ(r1.solve.iterations, r2.solve.iterations);
        EXPECT_EQ(r1.solve.residual_history, r2.solve.residual_history);
        EXPECT_EQ(x1, x2);
        // The one-thread twin at the same psize: the same method, its dots summed over [0, N).
        SpikeBicgstabOptions twin;
        twin.psize = r1.psize;
        const SpikeBicgstabResult rt = spike_bicgstab_cpu(a, b, xt, twin);
        ASSERT_EQ(rt.solve.status, SolveStatus::converged) << rt.solve.detail;
        EXPECT_LE(rt.solve.true_residual, 2e-8);
        EXPECT_EQ(rt.threads, 1);
        EXPECT_EQ(rt.partitions, r1.partitions);
        EXPECT_LE(std::abs(rt.solve.iterations - r1.solve.iterations), 1);
        expect_close(a, c.d, b, x1, xt);
    }
}

TEST(SpikeOmpCpu, ThreadedPreconditionerEqualsTheSerialOne)
{
    // SpikeReference's per-partition loops on 2 threads: the same factors and z, bit for bit,
    // in double and in float (li2012 Sec. 2.4), with li2012's corner UL tips too (Sec. 2.2).
    const index_type n = 6000, K = 8, psize = 250;  // 24 partitions
    const BandMatrix<double> a = dominant_band(n, K, 2.0, 3);
    const std::vector<double> r = random_rhs(n, 4);
    for (const SpikeTips tips : {SpikeTips::exact, SpikeTips::corner_ul}) {
        SCOPED_TRACE(to_string(tips));
        SpikeReference<double> s1, s2(2);
        ASSERT_TRUE(s1.factor(a, psize, tips).ok());
        ASSERT_TRUE(s2.factor(a, psize, tips).ok());
        EXPECT_EQ(s2.threads_used(), cpu_openmp() ? 2 : 1);
        std::vector<double> z1(n), z2(n);
        s1.apply(r.data(), z1.data());
        s2.apply(r.data(), z2.data());
        EXPECT_EQ(z1, z2);
        SpikeReference<float> f1, f2(2);
        const BandMatrix<float> af = band_cast<float>(a);
        ASSERT_TRUE(f1.factor(af, psize, tips).ok());
        ASSERT_TRUE(f2.factor(af, psize, tips).ok());
        f1.apply_mixed(r.data(), z1.data());
        f2.apply_mixed(r.data(), z2.data());
        EXPECT_EQ(z1, z2);
    }
    // More threads than partitions: only as many work.
    SpikeReference<double> s8(8);
    ASSERT_TRUE(s8.factor(a, n / 2).ok());
    EXPECT_EQ(s8.threads_used(), cpu_openmp() ? 2 : 1);
}

TEST(SpikeOmpCpu, ZeroPivotIsReportedAsOnOneThread)
{
    // A zero row in partition 3 (rows 750..999 at psize 250): the same status on 2 threads.
    const index_type n = 2000, K = 4;
    BandMatrix<double> a = dominant_band(n, K, 2.0, 8);
    for (index_type j = 796; j <= 804; ++j) a.ab[a.index(800, j)] = 0.0;
    const std::vector<double> b = random_rhs(n, 9);
    std::vector<double> x(n, 0.0);
    SpikeOmpOptions omp;
    omp.threads = 2;
    omp.partitions = 8;
    const SpikeBicgstabResult res = spike_bicgstab_omp(a, b, x, SpikeBicgstabOptions{}, omp);
    EXPECT_EQ(res.solve.status, SolveStatus::breakdown);
    EXPECT_EQ(res.factor_status.stage, SpikeStage::lu);
    EXPECT_EQ(res.factor_status.partition, 3);
    EXPECT_EQ(res.factor_status.row, 800);
    EXPECT_EQ(res.solve.detail, "zero pivot in the LU of partition 3 at row 800");
    EXPECT_EQ(res.solve.iterations, 0);
}

TEST(SpikeOmpCpu, MixedPrecisionAndDetailedPhases)
{
    const index_type n = 8000, K = 16;
    const BandMatrix<double> a = dominant_band(n, K, 2.0, 12);
    const std::vector<double> b = random_rhs(n, 13);
    std::vector<double> xd(n, 0.0), xm(n, 0.0);
    SpikeBicgstabOptions opts;
    opts.detailed = true;
    SpikeOmpOptions omp;
    omp.threads = 2;
    omp.partitions = 10;
    const SpikeBicgstabResult rd = spike_bicgstab_omp(a, b, xd, opts, omp);
    opts.precision = SpikePrecision::mixed;
    const SpikeBicgstabResult rm = spike_bicgstab_omp(a, b, xm, opts, omp);
    for (const SpikeBicgstabResult* r : {&rd, &rm}) {
        ASSERT_EQ(r->solve.status, SolveStatus::converged) << r->solve.detail;
        EXPECT_LE(r->solve.true_residual, 2e-8);
        ASSERT_EQ(r->phases.size(), 6u);
        double sum = 0.0;
        for (const PhaseTime& ph : r->phases) sum += ph.seconds;
        EXPECT_LE(sum, r->total_seconds * (1 + 1e-9));
        EXPECT_EQ(r->phases[4].calls, 2 * r->solve.iterations);  // preconditioner applies
    }
    expect_close(a, 2.0, b, xm, xd);
}

}  // namespace
}  // namespace kbench::solvers::spike
