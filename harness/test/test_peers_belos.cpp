// Trilinos Belos as a peer of kbench's CPU block and pseudo-block GMRES (harness/studies/peers/peers_belos.hpp):
// on the same nonsymmetric systems both converge to the tolerance, and kbench's iteration counts
// are within 10 % of Belos' (issue 28's goal for boman2022's points), restarted and not. Without
// Belos the tests are skipped with a message and belos_gmres must say what is missing.
#include "harness/studies/boman2022/bench_block_gmres.hpp"
#include "harness/studies/peers/peers_belos.hpp"

#include "kernels/spmv.hpp"
#include "matrices/generators.hpp"
#include "solvers/block_gmres.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace kbench::harness {
namespace {

using peers::BelosSolver;

struct Point {
    int s;
    int restart;  // block steps per cycle; 0: not restarted
};

class PeersBelos : public ::testing::TestWithParam<Point> {
protected:
    void SetUp() override
    {
        if (!peers::belos_available())
            GTEST_SKIP() << "kbench was built without Trilinos Belos (Debian: "
                            "libtrilinos-belos-dev, libtrilinos-epetra-dev): nothing to compare";
    }
};

// A 3D convection-diffusion operator (cell Peclet about 0.6): nonsymmetric, a few hundred
// GMRES steps, as boman2022's matrices.
const Csr<double>& matrix()
{
    static const Csr<double> a = convection_diffusion(14, 14, 14, 20.0, 10.0, 5.0);
    return a;
}

TEST_P(PeersBelos, IterationCountsAgreeWithinTenPercent)
{
    const Point p = GetParam();
    const Csr<double>& a = matrix();
    const std::vector<double> B = boman2022_right_hand_sides(a.num_rows, p.s);
    solvers::BlockGmresOptions o;
    o.tolerance = 1e-8;
    o.max_iterations = 1000;
    o.restart = p.restart > 0 ? p.restart : o.max_iterations;
    for (const bool block : {true, false}) {
        SCOPED_TRACE(block ? "block GMRES" : "pseudo-block GMRES");
        std::vector<double> xk(B.size(), 0.0), xb(B.size(), 0.0);
        const solvers::SolveResult k = block ? solvers::block_gmres_cpu(a, p.s, B, xk, o)
                                             : solvers::pseudo_block_gmres_cpu(a, p.s, B, xk, o);
        const solvers::SolveResult b = peers::belos_gmres(
            a, p.s, B, xb, o, block ? BelosSolver::block_gmres : BelosSolver::pseudo_block_gmres);
        ASSERT_EQ(k.status, solvers::SolveStatus::converged) << k.detail;
        ASSERT_EQ(b.status, solvers::SolveStatus::converged) << b.detail;
        // Both stop on a recurrence residual of 1e-8; the true residual may trail it a little.
        EXPECT_LE(k.true_residual, 1e-7);
        EXPECT_LE(b.true_residual, 1e-7);
        ASSERT_GT(b.iterations, 0);
        const double ratio = static_cast<double>(k.iterations) / b.iterations;
        EXPECT_NEAR(ratio, 1.0, 0.10) << "kbench " << k.iterations << ", Belos " << b.iterations;
    }
}

INSTANTIATE_TEST_SUITE_P(Points, PeersBelos,
                         ::testing::Values(Point{1, 30}, Point{4, 30}, Point{8, 0}, Point{4, 0}),
                         [](const auto& info) {
                             return "s" + std::to_string(info.param.s) + "_restart" +
                                    (info.param.restart > 0 ? std::to_string(info.param.restart)
                                                            : std::string("none"));
                         });

TEST(PeersBelosErrors, BadShapesAreRejectedBeforeBelos)
{
    const Csr<double>& a = matrix();
    std::vector<double> B(static_cast<std::size_t>(a.num_rows) * 2), X(3);
    EXPECT_THROW(peers::belos_gmres(a, 2, B, X, {}, BelosSolver::block_gmres),
                 std::invalid_argument);
    EXPECT_THROW(peers::belos_gmres(a, 0, B, X, {}, BelosSolver::block_gmres),
                 std::invalid_argument);
}

// Pseudo-block GMRES advances the s systems in lockstep: its step count is the slowest system's,
// in both libraries. The last column is made the easiest (a right-hand side A * ones, smooth), so
// that a count of the last system alone would differ.
TEST(PeersBelosLockstep, PseudoBlockCountsTheSlowestSystem)
{
    if (!peers::belos_available()) GTEST_SKIP() << "kbench was built without Trilinos Belos";
    const Csr<double>& a = matrix();
    const auto n = static_cast<std::size_t>(a.num_rows);
    std::vector<double> B = boman2022_right_hand_sides(a.num_rows, 2);
    std::vector<double> ones(n, 1.0);
    std::fill(B.begin() + n, B.end(), 0.0);
    spmv::reference::csr(a.view(), 1.0, ones.data(), 0.0, B.data() + n);
    solvers::BlockGmresOptions o;
    o.tolerance = 1e-8;
    o.max_iterations = 1000;
    o.restart = 30;
    int slowest = 0, fastest = 1 << 30;
    for (int c = 0; c < 2; ++c) {
        const std::vector<double> b(B.begin() + c * n, B.begin() + (c + 1) * n);
        std::vector<double> x(n, 0.0);
        const auto r = peers::belos_gmres(a, 1, b, x, o, BelosSolver::pseudo_block_gmres);
        ASSERT_EQ(r.status, solvers::SolveStatus::converged);
        slowest = std::max(slowest, r.iterations);
        fastest = std::min(fastest, r.iterations);
    }
    ASSERT_LT(fastest + 5, slowest) << "the two systems should differ in difficulty";
    std::vector<double> X(B.size(), 0.0), Xk(B.size(), 0.0);
    const auto both = peers::belos_gmres(a, 2, B, X, o, BelosSolver::pseudo_block_gmres);
    const auto kb = solvers::pseudo_block_gmres_cpu(a, 2, B, Xk, o);
    EXPECT_NEAR(both.iterations, slowest, 2);
    EXPECT_NEAR(kb.iterations, slowest, 2);
}

// With Belos a diagonal system converges in one step; without it the error names the packages.
TEST(PeersBelosErrors, SolvesOrNamesTheMissingPackages)
{
    Csr<double> a;
    a.num_rows = a.num_cols = 3;
    a.row_ptr = {0, 1, 2, 3};
    a.col_idx = {0, 1, 2};
    a.values = {2.0, 4.0, 8.0};
    const std::vector<double> B{2.0, 4.0, 8.0};
    std::vector<double> X(3, 0.0);
    if (peers::belos_available()) {
        const auto r = peers::belos_gmres(a, 1, B, X, {}, BelosSolver::block_gmres);
        EXPECT_EQ(r.status, solvers::SolveStatus::converged);
        for (double x : X) EXPECT_NEAR(x, 1.0, 1e-12);
        return;
    }
    try {
        peers::belos_gmres(a, 1, B, X, {}, BelosSolver::block_gmres);
        FAIL() << "expected std::runtime_error";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("libtrilinos-belos-dev"), std::string::npos)
            << e.what();
    }
}

}  // namespace
}  // namespace kbench::harness
