// CPU tests of the Eigen BiCGSTAB baseline (solvers/bicgstab.hpp), label cpu.
#include "matrices/generators.hpp"
#include "solvers/bicgstab.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

namespace kbench::solvers {
namespace {

TEST(BicgstabCpu, ConvergesOnConvectionDiffusion)
{
    const Csr<double> a = convection_diffusion(30, 30, 1, 20.0, -10.0, 0.0);
    std::vector<double> b(static_cast<std::size_t>(a.num_rows), 1.0), x(b.size(), 0.0);
    BicgstabOptions opts;
    opts.tolerance = 1e-10;
    const SolveResult r = bicgstab_cpu(a, b, x, opts);
    EXPECT_EQ(r.status, SolveStatus::converged) << r.detail;
    EXPECT_GT(r.iterations, 1);
    // Eigen stops on its recurrence residual; the true one may exceed it by rounding only.
    EXPECT_LT(r.true_residual, 1e-9);
    ASSERT_EQ(r.residual_history.size(), 2u);
    EXPECT_DOUBLE_EQ(r.residual_history.front(), 1.0);  // x0 = 0: r0 = b
}

TEST(BicgstabCpu, IterationLimitIsReported)
{
    const Csr<double> a = convection_diffusion(40, 40, 1, 5.0, 5.0, 0.0);
    std::vector<double> b(static_cast<std::size_t>(a.num_rows), 1.0), x(b.size(), 0.0);
    BicgstabOptions opts;
    opts.tolerance = 1e-14;
    opts.max_iterations = 3;
    const SolveResult r = bicgstab_cpu(a, b, x, opts);
    EXPECT_EQ(r.status, SolveStatus::max_iterations);
    EXPECT_LE(r.iterations, 3);
    EXPECT_TRUE(std::isfinite(r.true_residual));  // not monotone: 3 steps may not reduce it
}

TEST(BicgstabCpu, RejectsBadArguments)
{
    const Csr<double> a = laplacian_2d_5pt(4, 4);
    std::vector<double> b(16, 1.0), x(15, 0.0);
    EXPECT_THROW(bicgstab_cpu(a, b, x, {}), std::invalid_argument);
    x.resize(16);
    BicgstabOptions bad;
    bad.tolerance = -1.0;
    EXPECT_THROW(bicgstab_cpu(a, b, x, bad), std::invalid_argument);
    EXPECT_EQ(parse_bicgstab_form("graph"), BicgstabForm::graph);
    EXPECT_THROW(parse_bicgstab_form("fused"), std::invalid_argument);
}

}  // namespace
}  // namespace kbench::solvers
