// GMRES(m) on the GPU (solvers/gmres.hpp) against the CPU solver: the same steps to rounding,
// the same statuses on the constructed stagnation and breakdown cases, for CGS2, MGS and the
// one-reduce CGS2 ("lowsync"), whose basis stays as orthonormal as CGS2's.
#include "kernels/base/cuda_handles.hpp"
#include "kernels/base/device_buffer.hpp"
#include "kernels/machine_probe.hpp"
#include "kernels/test/gpu_test.hpp"
#include "matrices/generators.hpp"
#include "solvers/gmres.hpp"
#include "solvers/test/gmres_test_matrices.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace kbench::solvers {
namespace {

template <typename T>
struct Solve {
    SolveResult result;
    std::vector<T> x;
};

const ArnoldiOrth all_orths[] = {ArnoldiOrth::cgs2, ArnoldiOrth::mgs, ArnoldiOrth::cgs2_lowsync};

template <typename T>
Solve<T> solve_gpu(const Csr<T>& a, const std::vector<T>& b, const GmresOptions& o,
                   const std::string& kernel = "auto",
                   const detail::GmresCycleObserver<T>* observer = nullptr)
{
    spmv::SpmvOperator<T> op(a, spmv::Policy{kernel}, spmv::machine_figures());
    cuda_stream stream;
    device_buffer<T> db(b), dx(std::vector<T>(b.size(), T{0}));
    Solve<T> s;
    s.result = observer != nullptr
                   ? detail::gmres_observed(op, db.data(), dx.data(), o, stream, *observer)
                   : gmres(op, db.data(), dx.data(), o, stream);
    s.x = dx.to_host();
    return s;
}

/// ||I - V^T V||_F of a cycle's basis v_0 .. v_c.
double orthogonality_loss(const detail::GmresCycleSnapshot<double>& s)
{
    double sum = 0.0;
    for (int p = 0; p <= s.columns; ++p) {
        for (int q = 0; q <= s.columns; ++q) {
            const double* vp = s.V + p * s.n;
            const double* vq = s.V + q * s.n;
            double dot = 0.0;
            for (std::int64_t i = 0; i < s.n; ++i) dot += vp[i] * vq[i];
            const double e = (p == q ? 1.0 : 0.0) - dot;
            sum += e * e;
        }
    }
    return std::sqrt(sum);
}

template <typename T>
Solve<T> solve_cpu(const Csr<T>& a, const std::vector<T>& b, const GmresOptions& o)
{
    Solve<T> s;
    s.x.assign(b.size(), T(0));
    s.result = gmres_cpu(a, b, s.x, o);
    return s;
}

TEST(GmresGpu, MatchesTheCpuSolverForEveryOrthogonalizationAndRestart)
{
    KBENCH_REQUIRE_GPU();
    const Csr<double> a = convection_diffusion(60, 60, 1, 30.0, -20.0, 0.0);  // 3600 rows
    const auto b = test::smooth_rhs<double>(a.num_rows);
    for (const ArnoldiOrth orth : all_orths) {
        // m = 100 > 64 runs the chunked mdgm / gram / gemm_rowwise path.
        for (const int m : {30, 100}) {
            SCOPED_TRACE(std::string{to_string(orth)} + ", m = " + std::to_string(m));
            GmresOptions o;
            o.orth = orth;
            o.restart = m;
            o.tolerance = 1e-10;
            o.max_iterations = 3000;
            const Solve<double> cpu = solve_cpu(a, b, o);
            const Solve<double> gpu = solve_gpu(a, b, o);
            ASSERT_EQ(cpu.result.status, SolveStatus::converged) << cpu.result.detail;
            EXPECT_EQ(gpu.result.status, SolveStatus::converged) << gpu.result.detail;
            EXPECT_LE(gpu.result.true_residual, 1e-9);
            // Same algorithm, different summation orders: the step counts agree to a few
            // steps and the residual histories to rounding amplified by the iteration.
            EXPECT_NEAR(gpu.result.iterations, cpu.result.iterations,
                        2 + 0.02 * cpu.result.iterations);
            const std::size_t common = std::min(gpu.result.residual_history.size(),
                                                cpu.result.residual_history.size());
            for (std::size_t i = 0; i < std::min<std::size_t>(common, 20); ++i)
                EXPECT_NEAR(gpu.result.residual_history[i], cpu.result.residual_history[i],
                            1e-8 * cpu.result.residual_history[0]) << "step " << i;
            // cond(A) ~ 1e3: both solutions within ~1e-7 of each other.
            EXPECT_LT(test::relative_difference(gpu.x, cpu.x), 1e-6);
        }
    }
}

TEST(GmresGpu, LowSyncTakesCgs2sStepsAndKeepsTheBasisAsOrthonormal)
{
    KBENCH_REQUIRE_GPU();
    // cond ~ 1e4, two whole cycles (timing mode): ||I - V^T V||_F of each cycle's basis.
    const Csr<double> a = convection_diffusion(60, 60, 1, 80.0, -60.0, 0.0);
    const auto b = test::smooth_rhs<double>(a.num_rows);
    for (const int m : {30, 150}) {
        SCOPED_TRACE("m = " + std::to_string(m));
        double loss[2] = {0.0, 0.0};
        Solve<double> runs[2];
        for (int k = 0; k < 2; ++k) {
            GmresOptions o;
            o.orth = k == 0 ? ArnoldiOrth::cgs2 : ArnoldiOrth::cgs2_lowsync;
            o.restart = m;
            o.timing_mode = true;
            o.max_iterations = 2 * m;
            const detail::GmresCycleObserver<double> observe =
                [&](const detail::GmresCycleSnapshot<double>& s) {
                    loss[k] = std::max(loss[k], orthogonality_loss(s));
                };
            runs[k] = solve_gpu(a, b, o, "auto", &observe);
            ASSERT_EQ(runs[k].result.iterations, 2 * m);
        }
        EXPECT_LE(loss[0], 1e-13);
        // O(eps) as CGS2's (the CPU twins measure 1.1e-14 for both at m = 150).
        EXPECT_LE(loss[1], std::max(10.0 * loss[0], 1e-13)) << "cgs2 " << loss[0];
        // The same Hessenberg columns to rounding: the estimates agree step by step.
        const auto& hc = runs[0].result.residual_history;
        const auto& hl = runs[1].result.residual_history;
        ASSERT_EQ(hl.size(), hc.size());
        for (std::size_t i = 0; i < hc.size(); ++i)
            EXPECT_NEAR(hl[i], hc[i], 1e-9 * std::max(1.0, 1e4 * hc[i])) << "step " << i;
        EXPECT_LT(test::relative_difference(runs[1].x, runs[0].x), 1e-6);
    }
}

TEST(GmresGpu, SinglePrecisionConverges)
{
    KBENCH_REQUIRE_GPU();
    const Csr<float> a = convection_diffusion(40, 40, 1, 10.0, 5.0, 0.0).cast<float>();
    for (const ArnoldiOrth orth : all_orths) {
        SCOPED_TRACE(to_string(orth));
        GmresOptions o;
        o.orth = orth;
        o.tolerance = 1e-5;
        const Solve<float> s = solve_gpu(a, test::smooth_rhs<float>(a.num_rows), o);
        EXPECT_EQ(s.result.status, SolveStatus::converged) << s.result.detail;
        EXPECT_LE(s.result.true_residual, 1e-4);
    }
}

TEST(GmresGpu, StagnationBreakdownAndHappyBreakdownAreStatuses)
{
    KBENCH_REQUIRE_GPU();
    for (const ArnoldiOrth orth : all_orths) {
        SCOPED_TRACE(to_string(orth));
        GmresOptions o;
        o.orth = orth;
        o.restart = 8;
        const Solve<double> stagnated = solve_gpu(test::cyclic_shift<double>(64),
                                                  test::unit_rhs<double>(64), o, "cusparse_csr");
        EXPECT_EQ(stagnated.result.status, SolveStatus::stagnation) << stagnated.result.detail;
        EXPECT_EQ(stagnated.result.iterations, 8 * o.stagnation_cycles);

        o.restart = 10;
        const Solve<double> broken = solve_gpu(test::nilpotent_shift<double>(5),
                                               test::unit_rhs<double>(5), o, "cusparse_csr");
        EXPECT_EQ(broken.result.status, SolveStatus::breakdown) << broken.result.detail;
        EXPECT_EQ(broken.result.iterations, 5);

        GmresOptions h;
        h.orth = orth;
        h.tolerance = 1e-14;
        const Solve<double> happy = solve_gpu(test::diagonal_with_distinct_values<double>(2000, 4),
                                              test::smooth_rhs<double>(2000), h);
        EXPECT_EQ(happy.result.status, SolveStatus::converged) << happy.result.detail;
        EXPECT_EQ(happy.result.iterations, 4);
    }
}

TEST(GmresGpu, ANonSquareOperatorIsRejected)
{
    KBENCH_REQUIRE_GPU();
    Csr<double> a;
    a.num_rows = 2;
    a.num_cols = 3;
    a.row_ptr = {0, 1, 2};
    a.col_idx = {0, 2};
    a.values = {1.0, 1.0};
    spmv::SpmvOperator<double> op(a, spmv::Policy{"cusparse_csr"}, spmv::machine_figures());
    cuda_stream stream;
    device_buffer<double> v(3);
    EXPECT_THROW(gmres(op, v.data(), v.data(), GmresOptions{}, stream), std::invalid_argument);
}

}  // namespace
}  // namespace kbench::solvers
