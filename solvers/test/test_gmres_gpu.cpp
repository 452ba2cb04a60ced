// GMRES(m) on the GPU (solvers/gmres.hpp) against the CPU solver: the same steps to rounding,
// the same statuses on the constructed stagnation and breakdown cases.
#include "kernels/base/cuda_handles.hpp"
#include "kernels/base/device_buffer.hpp"
#include "kernels/machine_probe.hpp"
#include "kernels/test/gpu_test.hpp"
#include "matrices/generators.hpp"
#include "solvers/gmres.hpp"
#include "solvers/test/gmres_test_matrices.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace kbench::solvers {
namespace {

template <typename T>
struct Solve {
    SolveResult result;
    std::vector<T> x;
};

template <typename T>
Solve<T> solve_gpu(const Csr<T>& a, const std::vector<T>& b, const GmresOptions& o,
                   const std::string& kernel = "auto")
{
    spmv::SpmvOperator<T> op(a, spmv::Policy{kernel}, spmv::machine_figures());
    cuda_stream stream;
    device_buffer<T> db(b), dx(std::vector<T>(b.size(), T{0}));
    Solve<T> s;
    s.result = gmres(op, db.data(), dx.data(), o, stream);
    s.x = dx.to_host();
    return s;
}

template <typename T>
Solve<T> solve_cpu(const Csr<T>& a, const std::vector<T>& b, const GmresOptions& o)
{
    Solve<T> s;
    s.x.assign(b.size(), T(0));
    s.result = gmres_cpu(a, b, s.x, o);
    return s;
}

TEST(GmresGpu, MatchesTheCpuSolverForBothOrthogonalizationsAndRestarts)
{
    KBENCH_REQUIRE_GPU();
    const Csr<double> a = convection_diffusion(60, 60, 1, 30.0, -20.0, 0.0);  // 3600 rows
    const auto b = test::smooth_rhs<double>(a.num_rows);
    for (const ArnoldiOrth orth : {ArnoldiOrth::cgs2, ArnoldiOrth::mgs}) {
        // m = 100 > 64 runs the chunked mdgm / gemm_rowwise path.
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

TEST(GmresGpu, SinglePrecisionConverges)
{
    KBENCH_REQUIRE_GPU();
    const Csr<float> a = convection_diffusion(40, 40, 1, 10.0, 5.0, 0.0).cast<float>();
    GmresOptions o;
    o.tolerance = 1e-5;
    const Solve<float> s = solve_gpu(a, test::smooth_rhs<float>(a.num_rows), o);
    EXPECT_EQ(s.result.status, SolveStatus::converged) << s.result.detail;
    EXPECT_LE(s.result.true_residual, 1e-4);
}

TEST(GmresGpu, StagnationBreakdownAndHappyBreakdownAreStatuses)
{
    KBENCH_REQUIRE_GPU();
    GmresOptions o;
    o.restart = 8;
    const Solve<double> stagnated =
        solve_gpu(test::cyclic_shift<double>(64), test::unit_rhs<double>(64), o, "cusparse_csr");
    EXPECT_EQ(stagnated.result.status, SolveStatus::stagnation) << stagnated.result.detail;
    EXPECT_EQ(stagnated.result.iterations, 8 * o.stagnation_cycles);

    o.restart = 10;
    const Solve<double> broken =
        solve_gpu(test::nilpotent_shift<double>(5), test::unit_rhs<double>(5), o, "cusparse_csr");
    EXPECT_EQ(broken.result.status, SolveStatus::breakdown) << broken.result.detail;

    o = {};
    o.tolerance = 1e-14;
    const Solve<double> happy = solve_gpu(test::diagonal_with_distinct_values<double>(2000, 4),
                                          test::smooth_rhs<double>(2000), o);
    EXPECT_EQ(happy.result.status, SolveStatus::converged) << happy.result.detail;
    EXPECT_EQ(happy.result.iterations, 4);
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
