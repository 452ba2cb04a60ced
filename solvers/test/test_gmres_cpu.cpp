// GMRES(m) on the CPU (solvers/gmres.hpp) and its Givens least squares (solvers/hessenberg.hpp),
// with the three Arnoldi orthogonalizations (CGS2, MGS, the one-reduce CGS2 "lowsync").
#include "matrices/generators.hpp"
#include "solvers/gmres.hpp"
#include "solvers/hessenberg.hpp"
#include "solvers/test/gmres_test_matrices.hpp"

#include <Eigen/Dense>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <vector>

namespace kbench::solvers {
namespace {

using test::smooth_rhs;
using test::unit_rhs;

const ArnoldiOrth all_orths[] = {ArnoldiOrth::cgs2, ArnoldiOrth::mgs, ArnoldiOrth::cgs2_lowsync};

TEST(HessenbergLsq, MatchesADenseLeastSquaresSolveColumnByColumn)
{
    const int m = 12;
    std::mt19937 gen(7);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    Eigen::MatrixXd h = Eigen::MatrixXd::Zero(m + 1, m);
    for (int j = 0; j < m; ++j)
        for (int i = 0; i <= j + 1; ++i) h(i, j) = u(gen);
    const double beta = 2.5;
    HessenbergLsq<double> lsq(m);
    lsq.reset(beta);
    for (int j = 0; j < m; ++j) {
        std::vector<double> col(j + 2);
        for (int i = 0; i <= j + 1; ++i) col[i] = h(i, j);
        ASSERT_EQ(lsq.add_column(col.data()), HessenbergStatus::ok);
        // Dense reference: min || beta e1 - H(0:j+2, 0:j+1) y ||.
        const Eigen::MatrixXd hj = h.topLeftCorner(j + 2, j + 1);
        Eigen::VectorXd rhs = Eigen::VectorXd::Zero(j + 2);
        rhs(0) = beta;
        const Eigen::VectorXd y = hj.colPivHouseholderQr().solve(rhs);
        const std::vector<double> got = lsq.solve();
        ASSERT_EQ(static_cast<int>(got.size()), j + 1);
        for (int i = 0; i <= j; ++i) EXPECT_NEAR(got[i], y(i), 1e-10 * (1 + std::abs(y(i))));
        EXPECT_NEAR(lsq.residual(), (rhs - hj * y).norm(), 1e-12);
    }
    std::vector<double> extra(m + 2, 1.0);
    EXPECT_THROW(lsq.add_column(extra.data()), std::logic_error);
    EXPECT_THROW(HessenbergLsq<double>(0), std::invalid_argument);
    EXPECT_THROW(HessenbergLsq<double>(3, 0), std::invalid_argument);
}

TEST(HessenbergLsq, BlockHessenbergMatchesADenseLeastSquaresSolvePerRightHandSide)
{
    // Block size s = 3, m = 5 block steps: a 18 x 15 band Hessenberg matrix (3 subdiagonals).
    const int m = 5, s = 3, rows = (m + 1) * s, cols = m * s;
    std::mt19937 gen(11);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    Eigen::MatrixXd h = Eigen::MatrixXd::Zero(rows, cols);
    for (int c = 0; c < cols; ++c)
        for (int i = 0; i <= c + s; ++i) h(i, c) = u(gen);
    Eigen::MatrixXd S = Eigen::MatrixXd::Zero(s, s);
    for (int k = 0; k < s; ++k)
        for (int i = 0; i <= k; ++i) S(i, k) = u(gen) + (i == k ? 2.0 : 0.0);
    HessenbergLsq<double> lsq(m, s);
    lsq.reset(S.data(), s);
    for (int c = 0; c < cols; ++c) {
        std::vector<double> col(c + s + 1);
        for (int i = 0; i <= c + s; ++i) col[i] = h(i, c);
        ASSERT_EQ(lsq.add_column(col.data()), HessenbergStatus::ok);
        const Eigen::MatrixXd hc = h.topLeftCorner(c + 1 + s, c + 1);
        Eigen::MatrixXd rhs = Eigen::MatrixXd::Zero(c + 1 + s, s);
        rhs.topRows(s) = S;
        const Eigen::MatrixXd y = hc.colPivHouseholderQr().solve(rhs);
        const std::vector<double> got = lsq.solve();
        for (int k = 0; k < s; ++k) {
            for (int i = 0; i <= c; ++i)
                EXPECT_NEAR(got[k * (c + 1) + i], y(i, k), 1e-9 * (1 + std::abs(y(i, k))));
            EXPECT_NEAR(lsq.residual(k), (rhs.col(k) - hc * y.col(k)).norm(), 1e-11);
        }
    }
}

TEST(HessenbergLsq, AddingABlockOfColumnsAtOnceIsAddingThemOneByOne)
{
    // s = 40, 6 block steps: large enough for the threaded path of add_columns.
    const int m = 6, s = 40, rows = (m + 1) * s, cols = m * s;
    std::mt19937 gen(5);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    Eigen::MatrixXd h = Eigen::MatrixXd::Zero(rows, cols);
    for (int c = 0; c < cols; ++c)
        for (int i = 0; i <= c + s; ++i) h(i, c) = u(gen) + (i == c ? 4.0 : 0.0);
    Eigen::MatrixXd S = Eigen::MatrixXd::Identity(s, s);
    HessenbergLsq<double> one(m, s), block(m, s);
    one.reset(S.data(), s);
    block.reset(S.data(), s);
    for (int c = 0; c < cols; ++c) ASSERT_EQ(one.add_column(h.col(c).data()), HessenbergStatus::ok);
    for (int j = 0; j < m; ++j)
        ASSERT_EQ(block.add_columns(h.col(j * s).data(), rows, s), HessenbergStatus::ok);
    ASSERT_EQ(block.columns(), cols);
    EXPECT_EQ(one.solve(), block.solve());  // the same rotations in the same order
    for (int k = 0; k < s; ++k) EXPECT_EQ(one.residual(k), block.residual(k));
    // A non-finite column stops the block there; the columns before it are in.
    HessenbergLsq<double> bad(m, s);
    bad.reset(S.data(), s);
    Eigen::MatrixXd first = h.leftCols(s);
    first(0, 7) = std::numeric_limits<double>::infinity();
    EXPECT_EQ(bad.add_columns(first.data(), rows, s), HessenbergStatus::non_finite);
    EXPECT_EQ(bad.columns(), 7);
    EXPECT_THROW(block.add_columns(h.col(0).data(), rows, 1), std::logic_error);
}

TEST(HessenbergLsq, CopiesCarryTheStateAndLongRunsOfColumnsMatchOneByOne)
{
    // s = 5, 7 block steps; add_columns with more than s columns is split into pieces of s.
    const int m = 7, s = 5, rows = (m + 1) * s, cols = m * s;
    std::mt19937 gen(3);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    Eigen::MatrixXd h = Eigen::MatrixXd::Zero(rows, cols);
    for (int c = 0; c < cols; ++c)
        for (int i = 0; i <= c + s; ++i) h(i, c) = u(gen) + (i == c ? 3.0 : 0.0);
    const Eigen::MatrixXd S = Eigen::MatrixXd::Identity(s, s);
    HessenbergLsq<double> one(m, s), run(m, s);
    one.reset(S.data(), s);
    run.reset(S.data(), s);
    for (int c = 0; c < 13; ++c) ASSERT_EQ(one.add_column(h.col(c).data()), HessenbergStatus::ok);
    ASSERT_EQ(run.add_columns(h.data(), rows, 13), HessenbergStatus::ok);
    HessenbergLsq<double> copy(run), assigned(1, 1);
    assigned = run;
    for (HessenbergLsq<double>* l : {&one, &run, &copy, &assigned})
        ASSERT_EQ(l->add_columns(h.col(13).data(), rows, cols - 13), HessenbergStatus::ok);
    for (const HessenbergLsq<double>* l : {&run, &copy, &assigned}) {
        EXPECT_EQ(l->columns(), cols);
        EXPECT_EQ(l->solve(), one.solve());
        for (int k = 0; k < s; ++k) EXPECT_EQ(l->residual(k), one.residual(k));
    }
}

TEST(HessenbergLsq, ReportsNonFiniteAndSingularColumns)
{
    HessenbergLsq<double> lsq(3);
    lsq.reset(1.0);
    const double nan[2] = {std::numeric_limits<double>::quiet_NaN(), 1.0};
    EXPECT_EQ(lsq.add_column(nan), HessenbergStatus::non_finite);
    const double zero[2] = {0.0, 0.0};
    EXPECT_EQ(lsq.add_column(zero), HessenbergStatus::singular);
    EXPECT_EQ(lsq.columns(), 0);
}

Csr<double> convection(index_type nx) { return convection_diffusion(nx, nx, 1, 20.0, -10.0, 0.0); }

/// Solves with gmres_cpu from x0 = 0.
template <typename T>
SolveResult solve(const Csr<T>& a, const std::vector<T>& b, const GmresOptions& o,
                  std::vector<T>* x_out = nullptr)
{
    std::vector<T> x(b.size(), T(0));
    const SolveResult r = gmres_cpu(a, b, x, o);
    if (x_out) *x_out = x;
    return r;
}

TEST(GmresCpu, RestartedAndFullGmresConvergeWithAMonotoneResidual)
{
    const Csr<double> a = convection(30);  // 900 rows, nonsymmetric
    const auto b = smooth_rhs<double>(a.num_rows);
    for (const ArnoldiOrth orth : all_orths) {
        for (const int m : {20, 1000}) {
            SCOPED_TRACE(std::string{to_string(orth)} + ", m = " + std::to_string(m));
            GmresOptions o;
            o.restart = m;
            o.orth = orth;
            o.tolerance = 1e-10;
            const SolveResult r = solve(a, b, o);
            ASSERT_EQ(r.status, SolveStatus::converged) << r.detail;
            EXPECT_LE(r.true_residual, 1e-9);
            ASSERT_EQ(r.residual_history.size(), static_cast<std::size_t>(r.iterations) + 1);
            EXPECT_DOUBLE_EQ(r.residual_history.front(), 1.0);  // x0 = 0
            for (std::size_t i = 1; i < r.residual_history.size(); ++i)
                EXPECT_LE(r.residual_history[i], r.residual_history[i - 1] * (1 + 1e-8)) << i;
        }
    }
    GmresOptions full, restarted;
    full.restart = 1000;
    restarted.restart = 10;
    full.tolerance = restarted.tolerance = 1e-10;
    EXPECT_LE(solve(a, b, full).iterations, solve(a, b, restarted).iterations);
}

TEST(GmresCpu, CgsTwiceAndMgsTakeTheSameSteps)
{
    const Csr<double> a = convection(24);
    const auto b = smooth_rhs<double>(a.num_rows);
    GmresOptions o;
    o.tolerance = 1e-10;
    o.orth = ArnoldiOrth::cgs2;
    const SolveResult c = solve(a, b, o);
    o.orth = ArnoldiOrth::mgs;
    const SolveResult m = solve(a, b, o);
    EXPECT_NEAR(c.iterations, m.iterations, 1);
}

TEST(GmresCpu, LowSyncTakesCgs2sStepsWithOneReductionPerStep)
{
    // Well-conditioned nonsymmetric matrices: the one-reduce CGS2 computes the Hessenberg
    // columns CGS2 computes, in another order: the estimates agree to rounding step by step.
    for (const index_type nx : {24, 40}) {
        const Csr<double> a = convection(nx);
        const auto b = smooth_rhs<double>(a.num_rows);
        // m = 1: no step runs the SpMV ahead; m = 2: one of two; m = 1000: no restart.
        for (const int m : {1, 2, 7, 30, 1000}) {
            SCOPED_TRACE("n = " + std::to_string(a.num_rows) + ", m = " + std::to_string(m));
            GmresOptions o;
            o.restart = m;
            o.tolerance = 1e-10;
            o.max_iterations = m == 1 ? 200 : 3000;  // GMRES(1) does not converge here
            std::vector<double> xc, xl;
            const SolveResult c = solve(a, b, o, &xc);
            o.orth = ArnoldiOrth::cgs2_lowsync;
            const SolveResult l = solve(a, b, o, &xl);
            const SolveStatus expected =
                m == 1 ? SolveStatus::max_iterations : SolveStatus::converged;
            ASSERT_EQ(c.status, expected) << c.detail;
            ASSERT_EQ(l.status, expected) << l.detail;
            EXPECT_NEAR(l.iterations, c.iterations, 1);
            const std::size_t common =
                std::min(l.residual_history.size(), c.residual_history.size());
            for (std::size_t i = 0; i < common; ++i)
                EXPECT_NEAR(l.residual_history[i], c.residual_history[i],
                            1e-10 * std::max(1.0, c.residual_history[i] * 1e4))
                    << "step " << i;
            EXPECT_NEAR(l.true_residual, c.true_residual, 1e-10);
            EXPECT_LT(test::relative_difference(xl, xc), 1e-7);
        }
    }
}

/// max over the cycles of ||I - V^T V||_F of the cycle's basis v_0 .. v_c.
double loss_of_orthogonality(const Csr<double>& a, const std::vector<double>& b,
                             const GmresOptions& o, int* cycles = nullptr)
{
    double loss = 0.0;
    int count = 0;
    const detail::GmresCycleObserver<double> observe =
        [&](const detail::GmresCycleSnapshot<double>& s) {
            const Eigen::Map<const Eigen::MatrixXd> v(s.V, s.n, s.columns + 1);
            const Eigen::MatrixXd i = Eigen::MatrixXd::Identity(s.columns + 1, s.columns + 1);
            loss = std::max(loss, (i - v.transpose() * v).norm());
            ++count;
        };
    std::vector<double> x(b.size(), 0.0);
    detail::gmres_cpu_observed(a, b, x, o, observe);
    if (cycles) *cycles = count;
    return loss;
}

TEST(GmresCpu, LowSyncBasisIsAsOrthonormalAsCgs2s)
{
    // A harder case for the orthogonalization: convection dominated (cond ~ 1e4), long cycles.
    const Csr<double> a = convection_diffusion(40, 40, 1, 80.0, -60.0, 0.0);
    const auto b = smooth_rhs<double>(a.num_rows);
    for (const int m : {20, 150}) {
        SCOPED_TRACE("m = " + std::to_string(m));
        GmresOptions o;
        o.restart = m;
        o.timing_mode = true;  // two whole cycles
        o.max_iterations = 2 * m;
        int cycles = 0;
        const double cgs2 = loss_of_orthogonality(a, b, o, &cycles);
        ASSERT_EQ(cycles, 2);
        o.orth = ArnoldiOrth::cgs2_lowsync;
        const double lowsync = loss_of_orthogonality(a, b, o);
        o.orth = ArnoldiOrth::mgs;
        const double mgs = loss_of_orthogonality(a, b, o);
        EXPECT_LE(cgs2, 1e-13);
        // O(eps) as CGS2 (DCGS2: Bielich et al. 2022, Sec. 5), not MGS's O(eps kappa).
        EXPECT_LE(lowsync, std::max(10.0 * cgs2, 1e-14)) << "cgs2 " << cgs2 << ", mgs " << mgs;
        if (m == 150) {
            EXPECT_GT(mgs, 1e-8);  // (measured: cgs2 1.1e-14, lowsync 1.1e-14, mgs 1.4)
        }
    }
}

TEST(GmresCpu, HappyBreakdownAfterAsManyStepsAsDistinctEigenvalues)
{
    const auto a = test::diagonal_with_distinct_values<double>(200, 4);
    const auto b = smooth_rhs<double>(200);
    for (const ArnoldiOrth orth : all_orths) {
        SCOPED_TRACE(to_string(orth));
        GmresOptions o;
        o.orth = orth;
        o.tolerance = 1e-14;
        const SolveResult r = solve(a, b, o);
        EXPECT_EQ(r.status, SolveStatus::converged) << r.detail;
        EXPECT_EQ(r.iterations, 4);
        EXPECT_LE(r.true_residual, 1e-13);
    }
}

TEST(GmresCpu, StagnationOfAShortRestartIsAStatus)
{
    const auto a = test::cyclic_shift<double>(64);
    for (const ArnoldiOrth orth : all_orths) {
        SCOPED_TRACE(to_string(orth));
        GmresOptions o;
        o.orth = orth;
        o.restart = 8;
        o.max_iterations = 1000;
        const SolveResult r = solve(a, unit_rhs<double>(64), o);
        EXPECT_EQ(r.status, SolveStatus::stagnation) << r.detail;
        EXPECT_EQ(r.iterations, 8 * o.stagnation_cycles);
        EXPECT_NEAR(r.true_residual, 1.0, 1e-12);  // no progress at all
    }
}

TEST(GmresCpu, ASingularLeastSquaresProblemIsABreakdown)
{
    const auto a = test::nilpotent_shift<double>(5);
    for (const ArnoldiOrth orth : all_orths) {
        SCOPED_TRACE(to_string(orth));
        GmresOptions o;
        o.orth = orth;
        o.restart = 10;
        const SolveResult r = solve(a, unit_rhs<double>(5), o);
        EXPECT_EQ(r.status, SolveStatus::breakdown) << r.detail;
        EXPECT_EQ(r.iterations, 5);
        EXPECT_TRUE(std::isfinite(r.true_residual));
    }
}

/// The iteration limit, a timing run and b = 0 with the orthogonalization of `o`.
void limits_timing_mode_and_zero_rhs(GmresOptions o)
{
    const Csr<double> a = convection(20);
    const auto b = smooth_rhs<double>(a.num_rows);
    o.max_iterations = 5;
    SolveResult r = solve(a, b, o);
    EXPECT_EQ(r.status, SolveStatus::max_iterations);
    EXPECT_EQ(r.iterations, 5);
    EXPECT_EQ(r.residual_history.size(), 6u);

    o.max_iterations = 40;
    o.restart = 15;
    o.timing_mode = true;
    r = solve(a, b, o);
    EXPECT_EQ(r.iterations, 40);
    EXPECT_TRUE(r.timing_mode);
    // A happy breakdown ends a timing run early: there is nothing left to iterate on.
    r = solve(test::diagonal_with_distinct_values<double>(100, 3), smooth_rhs<double>(100), o);
    EXPECT_EQ(r.status, SolveStatus::converged) << r.detail;
    EXPECT_LE(r.iterations, 4);

    GmresOptions plain;
    plain.orth = o.orth;
    std::vector<double> x;
    r = solve(a, std::vector<double>(b.size(), 0.0), plain, &x);
    EXPECT_EQ(r.status, SolveStatus::converged);
    EXPECT_EQ(r.iterations, 0);
    EXPECT_EQ(r.true_residual, 0.0);
}

TEST(GmresCpu, IterationLimitTimingModeAndZeroRightHandSide)
{
    for (const ArnoldiOrth orth : all_orths) {
        SCOPED_TRACE(to_string(orth));
        GmresOptions o;
        o.orth = orth;
        limits_timing_mode_and_zero_rhs(o);
    }
}

TEST(GmresCpu, SinglePrecisionConverges)
{
    const Csr<float> a = convection(20).cast<float>();
    for (const ArnoldiOrth orth : all_orths) {
        SCOPED_TRACE(to_string(orth));
        GmresOptions o;
        o.orth = orth;
        o.tolerance = 1e-5;
        const SolveResult r = solve(a, smooth_rhs<float>(a.num_rows), o);
        EXPECT_EQ(r.status, SolveStatus::converged) << r.detail;
        EXPECT_LE(r.true_residual, 1e-4);
    }
}

TEST(GmresCpu, BadArgumentsThrowNamingTheParameter)
{
    const Csr<double> a = convection(5);
    const auto b = smooth_rhs<double>(a.num_rows);
    std::vector<double> x(b.size());
    auto expect_throw = [&](GmresOptions o, const std::string& what) {
        try {
            gmres_cpu(a, b, x, o);
            ADD_FAILURE() << "no exception for " << what;
        } catch (const std::invalid_argument& e) {
            EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
        }
    };
    GmresOptions o;
    o.restart = 0;
    expect_throw(o, "restart");
    o = {};
    o.max_iterations = -1;
    expect_throw(o, "max_iterations");
    o = {};
    o.tolerance = std::nan("");
    expect_throw(o, "tolerance");
    o = {};
    o.stagnation_cycles = -2;
    expect_throw(o, "stagnation_cycles");
    std::vector<double> short_x(3);
    EXPECT_THROW(gmres_cpu(a, b, short_x, GmresOptions{}), std::invalid_argument);
    EXPECT_THROW(parse_arnoldi_orth("householder"), std::invalid_argument);
    for (const ArnoldiOrth orth : all_orths) EXPECT_EQ(parse_arnoldi_orth(to_string(orth)), orth);
    EXPECT_EQ(parse_arnoldi_orth("lowsync"), ArnoldiOrth::cgs2_lowsync);
}

}  // namespace
}  // namespace kbench::solvers
