// Block GMRES and pseudo-block GMRES on the CPU (solvers/block_gmres.hpp) against s single
// GMRES solves.
#include "matrices/generators.hpp"
#include "solvers/block_gmres.hpp"
#include "solvers/gmres.hpp"
#include "solvers/test/solver_test_util.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <stdexcept>
#include <vector>

namespace kbench::solvers {
namespace {

/// n x s block of uniform values in [-1, 1), column-major, fixed seed.
std::vector<double> random_block(index_type n, int s, unsigned seed)
{
    std::mt19937 gen(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    std::vector<double> b(static_cast<std::size_t>(n) * s);
    for (auto& e : b) e = u(gen);
    return b;
}

std::vector<double> column(const std::vector<double>& block, index_type n, int k)
{
    return {block.begin() + static_cast<std::ptrdiff_t>(k) * n,
            block.begin() + static_cast<std::ptrdiff_t>(k + 1) * n};
}

const Csr<double>& matrix()
{
    static const Csr<double> a = convection_diffusion(30, 30, 1, 20.0, -10.0, 0.0);  // 900 rows
    return a;
}

TEST(BlockGmresCpu, ConvergesInNoMoreBlockStepsThanTheSlowestSingleSolve)
{
    const Csr<double>& a = matrix();
    const index_type n = a.num_rows;
    const int s = 4;
    const auto b = random_block(n, s, 3);
    BlockGmresOptions bo;
    bo.restart = 1000;  // not restarted
    bo.tolerance = 1e-10;
    std::vector<double> x(b.size(), 0.0);
    const SolveResult block = block_gmres_cpu(a, s, b, x, bo);
    ASSERT_EQ(block.status, SolveStatus::converged) << block.detail;
    EXPECT_LE(block.true_residual, 1e-9);
    EXPECT_EQ(block.residual_history.size(), static_cast<std::size_t>(block.iterations) + 1);

    GmresOptions go;
    go.restart = 1000;
    go.tolerance = 1e-10;
    int slowest = 0;
    for (int k = 0; k < s; ++k) {
        std::vector<double> xk(static_cast<std::size_t>(n), 0.0);
        const SolveResult single = gmres_cpu(a, column(b, n, k), xk, go);
        ASSERT_EQ(single.status, SolveStatus::converged);
        slowest = std::max(slowest, single.iterations);
        // cond(A) ~ 1e3 and both residuals <= 1e-10: the solutions agree to ~1e-7.
        EXPECT_LT(test::relative_difference(column(x, n, k), xk), 1e-6) << "column " << k;
    }
    // The block Krylov space holds every single one, step for step.
    EXPECT_LE(block.iterations, slowest);
}

TEST(BlockGmresCpu, OneRightHandSideIsGmres)
{
    const Csr<double>& a = matrix();
    const auto b = test::smooth_rhs<double>(a.num_rows);
    BlockGmresOptions bo;
    bo.restart = 20;
    bo.tolerance = 1e-10;
    GmresOptions go;
    go.restart = 20;
    go.tolerance = 1e-10;
    std::vector<double> xb(b.size(), 0.0), xg(b.size(), 0.0);
    const SolveResult block = block_gmres_cpu(a, 1, b, xb, bo);
    const SolveResult single = gmres_cpu(a, b, xg, go);
    ASSERT_EQ(block.status, SolveStatus::converged) << block.detail;
    EXPECT_NEAR(block.iterations, single.iterations, 1);
    EXPECT_LT(test::relative_difference(xb, xg), 1e-6);
}

TEST(BlockGmresCpu, RestartedWithAConvergedColumnAndInSinglePrecision)
{
    const Csr<double>& a = matrix();
    const index_type n = a.num_rows;
    const int s = 3;
    auto b = random_block(n, s, 5);
    std::fill(b.begin() + n, b.begin() + 2 * n, 0.0);  // b_1 = 0: converged from the start
    BlockGmresOptions bo;
    bo.restart = 10;
    bo.tolerance = 1e-9;
    std::vector<double> x(b.size(), 0.0);
    const SolveResult r = block_gmres_cpu(a, s, b, x, bo);
    EXPECT_EQ(r.status, SolveStatus::converged) << r.detail;
    EXPECT_LE(r.true_residual, 1e-8);
    for (index_type i = 0; i < n; ++i) ASSERT_EQ(x[n + i], 0.0);

    const Csr<float> af = a.cast<float>();
    const std::vector<float> bf(b.begin(), b.end());
    std::vector<float> xf(bf.size(), 0.0f);
    bo.tolerance = 1e-4;
    const SolveResult rf = block_gmres_cpu(af, s, bf, xf, bo);
    EXPECT_EQ(rf.status, SolveStatus::converged) << rf.detail;
    EXPECT_LE(rf.true_residual, 1e-3);
}

TEST(BlockGmresCpu, DependentRightHandSidesAreARankLossBreakdown)
{
    const Csr<double>& a = matrix();
    const index_type n = a.num_rows;
    const auto one = test::smooth_rhs<double>(n);
    std::vector<double> b(one);
    b.insert(b.end(), one.begin(), one.end());  // b_0 == b_1
    std::vector<double> x(b.size(), 0.0);
    const SolveResult r = block_gmres_cpu(a, 2, b, x, BlockGmresOptions{});
    EXPECT_EQ(r.status, SolveStatus::breakdown);
    EXPECT_NE(r.detail.find("rank loss"), std::string::npos) << r.detail;
    EXPECT_TRUE(std::isfinite(r.true_residual));
}

TEST(BlockGmresCpu, BadArgumentsThrow)
{
    const Csr<double>& a = matrix();
    std::vector<double> b(static_cast<std::size_t>(a.num_rows) * 2, 1.0), x(b.size());
    EXPECT_THROW(block_gmres_cpu(a, 0, b, x, BlockGmresOptions{}), std::invalid_argument);
    EXPECT_THROW(block_gmres_cpu(a, 3, b, x, BlockGmresOptions{}), std::invalid_argument);
    BlockGmresOptions o;
    o.restart = 0;
    EXPECT_THROW(block_gmres_cpu(a, 2, b, x, o), std::invalid_argument);
}

TEST(BlockGmresCpu, DetailedRunReportsTheCyclePhasesWithTheSameSolution)
{
    const Csr<double>& a = matrix();
    const auto b = random_block(a.num_rows, 3, 5);
    BlockGmresOptions o;
    o.restart = 10;
    o.tolerance = 1e-10;
    std::vector<double> x(b.size(), 0.0), xd(b.size(), 0.0);
    const SolveResult plain = block_gmres_cpu(a, 3, b, x, o);
    EXPECT_TRUE(plain.phases.empty());
    o.detailed = true;
    const SolveResult detailed = block_gmres_cpu(a, 3, b, xd, o);
    ASSERT_EQ(detailed.status, SolveStatus::converged) << detailed.detail;
    EXPECT_EQ(detailed.iterations, plain.iterations);
    EXPECT_EQ(x, xd);  // timing changes no arithmetic
    std::vector<std::string> names;
    for (const PhaseTime& p : detailed.phases) {
        names.push_back(p.name);
        EXPECT_GE(p.seconds, 0.0) << p.name;
    }
    EXPECT_EQ(names, (std::vector<std::string>{"residual", "least squares (host)", "X update"}));
    // One least-squares phase per block step; one residual at the start and after each cycle.
    EXPECT_EQ(detailed.phases[1].calls, detailed.iterations);
    const int cycles = (detailed.iterations + o.restart - 1) / o.restart;
    EXPECT_EQ(detailed.phases[2].calls, cycles);
    EXPECT_EQ(detailed.phases[0].calls, cycles + 2);  // + the final true residual
}

TEST(PseudoBlockGmresCpu, EachColumnTakesItsSingleGmresSteps)
{
    const Csr<double>& a = matrix();
    const index_type n = a.num_rows;
    const int s = 4;
    const auto b = random_block(n, s, 7);
    for (int restart : {15, 1000}) {
        BlockGmresOptions po;
        po.restart = restart;
        po.tolerance = 1e-10;
        std::vector<double> x(b.size(), 0.0);
        const SolveResult pseudo = pseudo_block_gmres_cpu(a, s, b, x, po);
        ASSERT_EQ(pseudo.status, SolveStatus::converged) << pseudo.detail;
        EXPECT_LE(pseudo.true_residual, 1e-9);
        EXPECT_EQ(pseudo.residual_history.size(), static_cast<std::size_t>(pseudo.iterations) + 1);
        GmresOptions go;
        go.restart = restart;
        go.tolerance = 1e-10;
        int slowest = 0;
        for (int k = 0; k < s; ++k) {
            std::vector<double> xk(static_cast<std::size_t>(n), 0.0);
            const SolveResult single = gmres_cpu(a, column(b, n, k), xk, go);
            ASSERT_EQ(single.status, SolveStatus::converged);
            slowest = std::max(slowest, single.iterations);
            EXPECT_LT(test::relative_difference(column(x, n, k), xk), 1e-6)
                << "column " << k << ", restart " << restart;
        }
        // The same Krylov spaces step for step: the slowest column's count (restarts add the
        // only difference: a column that converged waits for the others' cycle).
        EXPECT_NEAR(pseudo.iterations, slowest, 1) << "restart " << restart;
    }
}

TEST(PseudoBlockGmresCpu, DependentRightHandSidesAreNoBreakdown)
{
    const Csr<double>& a = matrix();
    const index_type n = a.num_rows;
    const auto one = test::smooth_rhs<double>(n);
    std::vector<double> b(one);
    b.insert(b.end(), one.begin(), one.end());
    std::vector<double> x(b.size(), 0.0);
    BlockGmresOptions o;
    o.tolerance = 1e-9;
    const SolveResult r = pseudo_block_gmres_cpu(a, 2, b, x, o);
    EXPECT_EQ(r.status, SolveStatus::converged) << r.detail;
    EXPECT_LE(r.true_residual, 1e-8);
    EXPECT_THROW(pseudo_block_gmres_cpu(a, 3, b, x, o), std::invalid_argument);
}

}  // namespace
}  // namespace kbench::solvers
