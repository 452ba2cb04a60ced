// CA-GMRES(s, m) on the CPU (solvers/ca_gmres.hpp): its host pieces (Leja ordering, Newton
// steps, basis-change matrix, matrix powers kernel, Hessenberg reconstruction, balancing) on
// hand-checkable cases, then the solver: convergence over s, m, bases and TSQRs, the Arnoldi
// relation of the rebuilt Hessenberg matrix, CA-GMRES(1, m) against GMRES(m), the TSQR
// fallback, statuses, limits, records and argument errors; then the two-stage block
// orthogonalization (CaBorth::two_stage): its change of basis, convergence, the orthonormal
// basis after stage 2, stage 1's fallback and its statuses.
#include "kernels/test/expect_invalid.hpp"
#include "matrices/generators.hpp"
#include "solvers/ca_gmres.hpp"
#include "solvers/test/ca_gmres_test_util.hpp"
#include "solvers/gmres.hpp"
#include "solvers/test/gmres_test_matrices.hpp"

#include <Eigen/Dense>
#include <Eigen/SparseCore>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace kbench::solvers {
namespace {

using cd = std::complex<double>;
using test::smooth_rhs;
using test::unit_rhs;
using ortho::TsqrMethod;
using ::kbench::test::expect_invalid;
using test_util::dense;
using test_util::ca_options;
using test_util::ca_label;

Csr<double> convection(index_type nx) { return convection_diffusion(nx, nx, 1, 20.0, -10.0, 0.0); }

/// Solves with ca_gmres_cpu from x0 = 0.
template <typename T>
CaGmresResult solve(const Csr<T>& a, const std::vector<T>& b, const CaGmresOptions& o,
                    std::vector<T>* x_out = nullptr)
{
    std::vector<T> x(b.size(), T(0));
    CaGmresResult r = ca_gmres_cpu(a, b, x, o);
    if (x_out) *x_out = x;
    return r;
}

/// The invariants every result keeps.
void expect_consistent(const CaGmresResult& r)
{
    ASSERT_EQ(r.residual_history.size(), r.history_iterations.size());
    ASSERT_FALSE(r.residual_history.empty());
    EXPECT_EQ(r.history_iterations.front(), 0);
    EXPECT_EQ(r.history_iterations.back(), r.iterations);
    for (std::size_t i = 1; i < r.history_iterations.size(); ++i)
        EXPECT_GT(r.history_iterations[i], r.history_iterations[i - 1]) << i;
    for (double h : r.residual_history) EXPECT_TRUE(std::isfinite(h));
    EXPECT_EQ(static_cast<int>(r.gram_condition.size()), r.restarts);
    EXPECT_EQ(static_cast<int>(r.restart_seconds.size()), r.restarts);
    double cycles = 0.0;
    for (double t : r.restart_seconds) {
        EXPECT_GE(t, 0.0);
        cycles += t;
    }
    EXPECT_LE(cycles, r.seconds);
    EXPECT_TRUE(std::isfinite(r.true_residual));
}

// ---- host pieces --------------------------------------------------------------------------

TEST(LejaOrder, OrdersAKnownSetWithConjugatePairsAdjacent)
{
    // Worked by hand: 4 has the largest modulus; -2 is farthest from 4; then 1 + 2i (product
    // 13 against 9 for 1 and 5.6 for 3 + 0.5i) with its conjugate; then 3 + 0.5i (45 against
    // 36 for 1) with its conjugate; 1 last.
    const std::vector<cd> set = {{1, 0}, {3, -0.5}, {1, -2}, {-2, 0}, {4, 0}, {3, 0.5}, {1, 2}};
    const std::vector<cd> expected = {{4, 0},   {-2, 0},   {1, 2}, {1, -2},
                                      {3, 0.5}, {3, -0.5}, {1, 0}};
    const std::vector<cd> got = leja_order(set);
    ASSERT_EQ(got.size(), expected.size());
    for (std::size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i], expected[i]) << i;
    // The same set in another order gives the same sequence (no ties here).
    std::vector<cd> reversed(set.rbegin(), set.rend());
    EXPECT_EQ(leja_order(reversed), expected);
    EXPECT_EQ(leja_order(expected), expected);  // ordered shifts can be passed back as they are
    // A value whose imaginary part is rounding noise counts as real.
    const std::vector<cd> noisy = leja_order({{2, 1e-17}, {-1, 0}});
    ASSERT_EQ(noisy.size(), 2u);
    EXPECT_EQ(noisy[0], cd(2, 0));
    // Repeated values (zero distance) are taken last, in input order, without NaN.
    const std::vector<cd> repeated = leja_order({{1, 0}, {1, 0}, {3, 0}});
    EXPECT_EQ(repeated, (std::vector<cd>{{3, 0}, {1, 0}, {1, 0}}));
    EXPECT_TRUE(leja_order({}).empty());
    expect_invalid([] { leja_order({{1, 1}, {2, 0}}); }, {"leja_order", "conjugate"});
    expect_invalid([] { leja_order({{std::nan(""), 0}}); }, {"leja_order", "finite"});
}

TEST(NewtonSteps, PairsBecomeTwoRealStepsAndACutPairARealOne)
{
    const std::vector<cd> shifts = {{4, 0}, {1, 2}, {1, -2}};
    const std::vector<MpkStep> steps = newton_steps(shifts, 5);  // 4, 1+2i, 1-2i, 4, (1+2i)
    ASSERT_EQ(steps.size(), 5u);
    const double expected[5][2] = {{4, 0}, {1, 0}, {1, 4}, {4, 0}, {1, 0}};
    for (int t = 0; t < 5; ++t) {
        EXPECT_EQ(steps[t].alpha, expected[t][0]) << t;
        EXPECT_EQ(steps[t].b2, expected[t][1]) << t;
    }
    for (const MpkStep& st : newton_steps({}, 3)) {  // monomial
        EXPECT_EQ(st.alpha, 0.0);
        EXPECT_EQ(st.b2, 0.0);
    }
    EXPECT_THROW(newton_steps(shifts, 0), std::invalid_argument);
    EXPECT_EQ(mpk_scale(4.0), 2.0);
    EXPECT_EQ(mpk_scale(0.0), 1.0);
    EXPECT_EQ(mpk_scale(std::numeric_limits<double>::infinity()), 1.0);
    EXPECT_EQ(mpk_scale(std::nan("")), 1.0);

    // B: shifts on the diagonal, the scales below, -b^2 / sigma_t above for a pair's second step.
    const std::vector<double> sigma = {1.0, 2.0, 3.0, 5.0, 7.0, 11.0};
    const std::vector<double> B = basis_change_matrix(steps, sigma);
    ASSERT_EQ(B.size(), 6u * 5u);
    Eigen::MatrixXd expect = Eigen::MatrixXd::Zero(6, 5);
    for (int t = 0; t < 5; ++t) {
        expect(t, t) = expected[t][0];
        expect(t + 1, t) = sigma[t + 1];
    }
    expect(1, 2) = -4.0 / sigma[2];
    EXPECT_EQ(Eigen::Map<const Eigen::MatrixXd>(B.data(), 6, 5), expect);
    EXPECT_THROW(basis_change_matrix(steps, {1.0}), std::invalid_argument);
}

TEST(MatrixPowersCpu, BuildsTheScaledNewtonBasisOfItsBasisChangeMatrix)
{
    const Csr<double> a = convection(6);  // 36 rows
    const index_type n = a.num_rows;
    const Eigen::MatrixXd A = dense(a);
    const std::vector<cd> shifts = {{7.0, 0.0}, {4.0, 1.5}, {4.0, -1.5}, {1.0, 0.0}};
    for (const bool normalize : {false, true}) {
        SCOPED_TRACE(normalize ? "normalized" : "raw");
        const int k = 6;
        const std::vector<MpkStep> steps = newton_steps(shifts, k);
        std::vector<double> V(static_cast<std::size_t>(n) * (k + 1), 0.0), n2(k + 1, -1.0);
        const std::vector<double> b = smooth_rhs<double>(n);
        Eigen::Map<Eigen::MatrixXd> W(V.data(), n, k + 1);
        W.col(0) = Eigen::Map<const Eigen::VectorXd>(b.data(), n).normalized();
        reference::matrix_powers(a, steps, k, normalize, V.data(), n, n2.data());
        std::vector<double> sigma(k + 1, 1.0);
        for (int t = 1; t <= k; ++t) {
            if (normalize) {
                sigma[t] = mpk_scale(n2[t]);
                EXPECT_NEAR(W.col(t).norm(), 1.0, 1e-14) << t;
            } else {
                EXPECT_EQ(n2[t], -1.0) << "norm2 written without normalization";
            }
        }
        // A W_{0:k-1} = W B.
        const std::vector<double> B = basis_change_matrix(steps, sigma);
        const Eigen::Map<const Eigen::MatrixXd> Bm(B.data(), k + 1, k);
        const Eigen::MatrixXd lhs = A * W.leftCols(k);
        EXPECT_LE((lhs - W * Bm).norm() / lhs.norm(), 1e-14);
        // The pair makes ((A - 4)^2 + 1.5^2) w_1 in real arithmetic, up to the scales.
        const Eigen::MatrixXd I = Eigen::MatrixXd::Identity(n, n);
        const Eigen::VectorXd pair =
            ((A - 4.0 * I) * (A - 4.0 * I) + 2.25 * I) * W.col(1) / (sigma[2] * sigma[3]);
        EXPECT_LE((pair - W.col(3)).norm() / pair.norm(), 1e-13);
    }
    std::vector<double> V(36 * 3);
    expect_invalid(
        [&] {
            reference::matrix_powers<double>(a, {{0.0, 1.0}, {0.0, 0.0}}, 2, false, V.data(), 36,
                                             nullptr);
        },
        {"matrix_powers", "b2"});
    expect_invalid(
        [&] { reference::matrix_powers<double>(a, {{0.0, 0.0}}, 2, false, V.data(), 36, nullptr); },
        {"matrix_powers", "steps"});
    expect_invalid(
        [&] { reference::matrix_powers<double>(a, {{0.0, 0.0}}, 1, false, V.data(), 10, nullptr); },
        {"matrix_powers", "ld"});
}

TEST(ReconstructHessenberg, OneVectorMonomialBlocksAreArnoldiColumns)
{
    // s = 1, monomial, unscaled: H(:, j) = [C; R(0, 0)] (Gram-Schmidt coefficients and norm).
    const int j = 2, k = 1;
    const double C[3] = {0.5, -0.25, 2.0}, R[1] = {0.75};
    const std::vector<double> B = basis_change_matrix(newton_steps({}, 1), {1.0, 1.0});
    std::vector<double> H(4 * 3, 0.0);
    H[0] = 1.0;  // columns 0 and 1 (their values do not enter a one-vector block: X = 0)
    H[1] = 0.5;
    H[4] = 0.3;
    H[5] = 0.2;
    H[6] = 0.9;
    detail::reconstruct_hessenberg(j, k, 1, C, R, B.data(), H.data(), 4);
    EXPECT_EQ(H[8], 0.5);
    EXPECT_EQ(H[9], -0.25);
    EXPECT_EQ(H[10], 2.0);
    EXPECT_EQ(H[11], 0.75);
    bool happy = true;
    EXPECT_EQ(detail::usable_columns(j, k, C, R, 1e-16, &happy), 1);
    EXPECT_FALSE(happy);
    const double tiny[1] = {1e-17};
    EXPECT_EQ(detail::usable_columns(j, k, C, tiny, 1e-16, &happy), 1);
    EXPECT_TRUE(happy);
    EXPECT_THROW(detail::reconstruct_hessenberg(j, k, 2, C, R, B.data(), H.data(), 4),
                 std::invalid_argument);
}

TEST(GramCondition, IsTheSquaredConditionNumberOfR)
{
    const double R[4] = {2.0, 0.0, 0.0, 0.5};  // diag(2, 0.5): kappa(R) = 4
    EXPECT_NEAR(detail::gram_condition(2, R, 2), 16.0, 1e-12);
    const double singular[4] = {1.0, 0.0, 1.0, 0.0};
    EXPECT_TRUE(std::isinf(detail::gram_condition(2, singular, 2)));
    const double H[4] = {0.0, 1.0, -1.0, 0.0};  // rotation: eigenvalues +- i
    const std::vector<cd> ritz = detail::ritz_values(2, H, 2);
    ASSERT_EQ(ritz.size(), 2u);
    EXPECT_NEAR(std::abs(ritz[0].imag()), 1.0, 1e-14);
    EXPECT_EQ(ritz[0], std::conj(ritz[1]));
}

TEST(Balance, ScalesRowsThenColumnsAndKeepsTheSolution)
{
    Csr<double> a = convection(8);
    for (index_type i = 0; i < a.num_rows; ++i)  // rows of very different scales
        for (index_type p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p)
            a.values[p] *= std::pow(10.0, (i % 7) - 3);
    const Balanced<double> bal = balance(a);
    const Eigen::MatrixXd D = dense(bal.matrix);
    for (index_type j = 0; j < a.num_cols; ++j) EXPECT_NEAR(D.col(j).norm(), 1.0, 1e-14);
    const Eigen::MatrixXd A = dense(a);
    for (index_type i = 0; i < a.num_rows; ++i)
        for (index_type j = 0; j < a.num_cols; ++j)
            EXPECT_NEAR(D(i, j), bal.row_scale[i] * A(i, j) * bal.col_scale[j], 1e-15);
    // Solve the balanced system and map back.
    const std::vector<double> b = smooth_rhs<double>(a.num_rows);
    std::vector<double> bb(b.size());
    for (std::size_t i = 0; i < b.size(); ++i) bb[i] = bal.row_scale[i] * b[i];
    CaGmresOptions o = ca_options(5, 30, CaBasis::newton);
    o.tolerance = 1e-12;
    o.normalize_basis = false;  // the paper's setting: balancing instead of scaling
    std::vector<double> y;
    const CaGmresResult r = solve(bal.matrix, bb, o, &y);
    ASSERT_EQ(r.status, SolveStatus::converged) << r.detail;
    Eigen::VectorXd x(y.size());
    for (std::size_t i = 0; i < y.size(); ++i) x(i) = bal.col_scale[i] * y[i];
    const Eigen::VectorXd exact =
        A.fullPivLu().solve(Eigen::Map<const Eigen::VectorXd>(b.data(), b.size()));
    EXPECT_LE((x - exact).norm() / exact.norm(), 1e-8);
}

// ---- the solver ---------------------------------------------------------------------------

TEST(CaGmresCpu, ConvergesOverStepSizesRestartsBasesAndTsqrs)
{
    const Csr<double> a = convection(30);  // 900 rows, nonsymmetric
    const auto b = smooth_rhs<double>(a.num_rows);
    const Eigen::MatrixXd A = dense(a);
    const Eigen::Map<const Eigen::VectorXd> bv(b.data(), static_cast<Eigen::Index>(b.size()));
    for (const int s : {1, 2, 5}) {
        for (const int m : {10, 20, 30}) {
            for (const CaBasis basis : {CaBasis::monomial, CaBasis::newton}) {
                for (const TsqrMethod tsqr : {TsqrMethod::cholqr2, TsqrMethod::cgs2,
                                              TsqrMethod::caqr, TsqrMethod::mgs}) {
                    CaGmresOptions o = ca_options(s, m, basis, tsqr);
                    o.tolerance = 1e-8;
                    o.max_iterations = 4000;
                    SCOPED_TRACE(ca_label(o));
                    std::vector<double> x;
                    const CaGmresResult r = solve(a, b, o, &x);
                    ASSERT_EQ(r.status, SolveStatus::converged) << r.detail;
                    expect_consistent(r);
                    EXPECT_LE(r.true_residual, 1e-8 * 1.01);
                    EXPECT_DOUBLE_EQ(r.residual_history.front(), 1.0);  // x0 = 0
                    EXPECT_LE(r.residual_history.back(), 1e-8 * 1.01);
                    // The true residual of the returned x (not the solver's own number).
                    const Eigen::VectorXd res =
                        bv - A * Eigen::Map<const Eigen::VectorXd>(x.data(), x.size());
                    EXPECT_NEAR(res.norm() / bv.norm(), r.true_residual, 1e-12);
                    if (basis == CaBasis::newton && s > 1) {
                        EXPECT_FALSE(r.shifts.empty());
                        EXPECT_GE(r.first_gram_condition, 1.0);
                    }
                    if (basis == CaBasis::monomial) {
                        EXPECT_TRUE(r.shifts.empty());
                    }
                }
            }
        }
    }
}

TEST(CaGmresCpu, RebuiltHessenbergSatisfiesTheArnoldiRelation)
{
    const Csr<double> a = convection(12);  // 144 rows
    const Eigen::MatrixXd A = dense(a);
    const auto b = smooth_rhs<double>(a.num_rows);
    struct Case {
        int s, m;
        CaBasis basis;
        std::vector<cd> shifts;
        bool normalize;
    };
    const std::vector<Case> cases = {
        {1, 20, CaBasis::monomial, {}, true},
        {5, 20, CaBasis::monomial, {}, true},
        {4, 20, CaBasis::monomial, {}, false},
        {5, 20, CaBasis::newton, {}, true},   // cycle 0 plain GMRES, then Ritz shifts
        {7, 20, CaBasis::newton, {}, true},   // m not a multiple of s: blocks 7, 7, 6
        {5, 20, CaBasis::newton, {{6.5, 0.0}, {4.0, 2.0}, {4.0, -2.0}, {1.5, 0.0}}, false},
        {6, 18, CaBasis::newton, {{6.5, 0.0}, {4.0, 2.0}, {4.0, -2.0}, {1.5, 0.0}}, true},
    };
    for (const Case& c : cases) {
        CaGmresOptions o = ca_options(c.s, c.m, c.basis);
        o.shifts = c.shifts;
        o.normalize_basis = c.normalize;
        o.tolerance = 1e-14;
        o.max_restarts = 2;
        SCOPED_TRACE(ca_label(o) + (c.normalize ? ", normalized" : ", raw") + ", " +
                     std::to_string(c.shifts.size()) + " given shifts");
        int cycles = 0, ca_cycles = 0;
        const detail::CaCycleObserver<double> check =
            [&](const detail::CaCycleSnapshot<double>& snap) {
                ++cycles;
                ca_cycles += snap.communication_avoiding ? 1 : 0;
                ASSERT_EQ(snap.n, a.num_rows);
                EXPECT_EQ(snap.columns, c.m);  // no early end at this tolerance
                test_util::expect_arnoldi_relation(A, snap);
        };
        std::vector<double> x(b.size(), 0.0);
        const CaGmresResult r = detail::ca_gmres_cpu_observed(a, b, x, o, check);
        expect_consistent(r);
        EXPECT_EQ(cycles, 2);
        EXPECT_EQ(ca_cycles, c.basis == CaBasis::newton && c.shifts.empty() ? 1 : 2);
        EXPECT_EQ(r.restarts, 2);
        EXPECT_EQ(r.status, SolveStatus::max_iterations);
        EXPECT_NE(r.detail.find("max_restarts"), std::string::npos) << r.detail;
        EXPECT_EQ(r.iterations, 2 * c.m);
        if (!c.shifts.empty()) {
            EXPECT_EQ(r.shifts, leja_order(c.shifts));
        }
    }
}

TEST(CaGmresCpu, OneStepBlocksFollowGmres)
{
    const Csr<double> a = convection(30);
    const auto b = smooth_rhs<double>(a.num_rows);
    for (const int m : {10, 30}) {
        GmresOptions g;
        g.restart = m;
        g.tolerance = 1e-10;
        g.max_iterations = 4000;
        std::vector<double> xg(b.size(), 0.0);
        const SolveResult ref = gmres_cpu(a, b, xg, g);
        ASSERT_EQ(ref.status, SolveStatus::converged) << ref.detail;
        for (const CaBasis basis : {CaBasis::monomial, CaBasis::newton}) {
            for (const TsqrMethod tsqr : {TsqrMethod::cgs2, TsqrMethod::cholqr, TsqrMethod::caqr}) {
                CaGmresOptions o = ca_options(1, m, basis, tsqr);
                o.borth_passes = 2;  // BOrth = CGS2, as GMRES's Arnoldi
                o.tolerance = g.tolerance;
                o.max_iterations = g.max_iterations;
                SCOPED_TRACE(ca_label(o));
                std::vector<double> x;
                const CaGmresResult r = solve(a, b, o, &x);
                ASSERT_EQ(r.status, SolveStatus::converged) << r.detail;
                EXPECT_NEAR(r.iterations, ref.iterations, 1 + 0.01 * ref.iterations);
                if (basis == CaBasis::monomial) {
                    // The same Krylov bases to rounding: the same estimates step by step.
                    ASSERT_EQ(r.residual_history.size(),
                              static_cast<std::size_t>(r.iterations) + 1);
                    const std::size_t common = std::min<std::size_t>(
                        {r.residual_history.size(), ref.residual_history.size(), 40});
                    for (std::size_t i = 0; i < common; ++i)
                        EXPECT_NEAR(r.residual_history[i], ref.residual_history[i], 1e-9) << i;
                }
                EXPECT_LT(test::relative_difference(x, xg), 1e-6);
            }
        }
    }
}

TEST(CaGmresCpu, PaperShapesRunTheirBlocks)
{
    // CA-GMRES(20, 30) makes 20 then 10 vectors per cycle; CA-GMRES(30, 30) one block
    // (yamazaki2014 Sec. VI-A). The records carry what Fig. 13 plots.
    const Csr<double> a = convection(30);
    const auto b = smooth_rhs<double>(a.num_rows);
    for (const int s : {20, 30}) {
        CaGmresOptions o = ca_options(s, 30, CaBasis::newton, TsqrMethod::caqr);
        o.measure_orthogonality = true;
        o.tolerance = 1e-8;  // several cycles (the paper stops at 1e-4)
        SCOPED_TRACE(ca_label(o));
        const CaGmresResult r = solve(a, b, o);
        ASSERT_EQ(r.status, SolveStatus::converged) << r.detail;
        expect_consistent(r);
        ASSERT_FALSE(r.blocks.empty());
        bool saw_ca = false;
        for (const CaBlockRecord& rec : r.blocks) {
            if (rec.restart == 0) {  // the plain GMRES cycle: one-vector blocks
                EXPECT_EQ(rec.columns, 1);
                continue;
            }
            saw_ca = true;
            EXPECT_TRUE(rec.columns == s || rec.columns == 30 - s) << rec.columns;
            EXPECT_EQ(rec.method, TsqrMethod::caqr);
            EXPECT_FALSE(rec.fallback);
            EXPECT_LE(rec.orthogonality, 1e-12);  // Householder: O(eps)
            EXPECT_LE(rec.residual, 1e-13);
            EXPECT_GE(rec.gram_condition, 1.0);
            EXPECT_LE(rec.used, rec.columns);
        }
        EXPECT_TRUE(saw_ca);
        EXPECT_GT(r.first_gram_condition, 1.0);
        EXPECT_EQ(r.gram_condition.front(), 1.0);  // one-vector blocks
    }
}

TEST(CaGmresCpu, AFailingTsqrFallsBackAndIsReported)
{
    // A monomial basis of 16 vectors: its Gram matrix is far beyond 1 / eps, so CholQR's
    // Cholesky fails and CAQR redoes the block.
    const Csr<double> a = convection(30);
    const auto b = smooth_rhs<double>(a.num_rows);
    CaGmresOptions o = ca_options(16, 32, CaBasis::monomial, TsqrMethod::cholqr);
    o.tolerance = 1e-8;
    o.max_iterations = 4000;
    o.measure_orthogonality = true;
    const CaGmresResult r = solve(a, b, o);
    expect_consistent(r);
    EXPECT_EQ(r.status, SolveStatus::converged) << r.detail;
    EXPECT_GT(r.tsqr_fallbacks, 0);
    EXPECT_EQ(r.first_fallback_restart, 0);
    int flagged = 0;
    for (const CaBlockRecord& rec : r.blocks) {
        if (!rec.fallback) continue;
        ++flagged;
        EXPECT_EQ(rec.method, TsqrMethod::caqr);
        EXPECT_GT(rec.gram_condition, 1e15);
    }
    EXPECT_EQ(flagged, r.tsqr_fallbacks);

    // A fallback that fails too (CholQR2 starts with the same Cholesky) is a breakdown that
    // names the block and both failures.
    o.fallback_tsqr = TsqrMethod::cholqr2;
    o.measure_orthogonality = false;
    const CaGmresResult broken = solve(a, b, o);
    expect_consistent(broken);
    EXPECT_EQ(broken.status, SolveStatus::breakdown) << broken.detail;
    for (const char* part : {"restart 0", "block", "cholqr failed", "fallback cholqr2"})
        EXPECT_NE(broken.detail.find(part), std::string::npos) << part << " in " << broken.detail;
    EXPECT_EQ(broken.tsqr_fallbacks, 1);

    // Without a fallback (the same method) the failure is a breakdown at once.
    o.fallback_tsqr = TsqrMethod::cholqr;
    const CaGmresResult alone = solve(a, b, o);
    EXPECT_EQ(alone.status, SolveStatus::breakdown) << alone.detail;
    EXPECT_EQ(alone.tsqr_fallbacks, 0);
    EXPECT_EQ(alone.first_fallback_restart, -1);
}

TEST(CaGmresCpu, HappyBreakdownAfterAsManyStepsAsDistinctEigenvalues)
{
    const auto a = test::diagonal_with_distinct_values<double>(200, 4);
    const auto b = smooth_rhs<double>(200);
    for (const int s : {1, 2, 5}) {
        for (const CaBasis basis : {CaBasis::monomial, CaBasis::newton}) {
            CaGmresOptions o = ca_options(s, 10, basis, TsqrMethod::cholqr2);
            o.tolerance = 1e-13;
            SCOPED_TRACE(ca_label(o));
            const CaGmresResult r = solve(a, b, o);
            EXPECT_EQ(r.status, SolveStatus::converged) << r.detail;
            // One-vector blocks detect the invariant space as GMRES does. With s > 1 the basis
            // spans the Krylov space to eps kappa(block) only, so the rank test (10 eps) may
            // let one more block run before it sees the invariance: at most s more steps.
            if (s == 1) {
                EXPECT_EQ(r.iterations, 4);
            } else {
                EXPECT_GE(r.iterations, 4);
                EXPECT_LE(r.iterations, 4 + s);
            }
            EXPECT_LE(r.true_residual, 1e-13);
            expect_consistent(r);
        }
    }
}

TEST(CaGmresCpu, StagnationBreakdownAndNonFiniteAreStatuses)
{
    // The cyclic shift with b = e_0: no progress before step n, as GMRES(m).
    for (const int s : {1, 4}) {
        CaGmresOptions o = ca_options(s, 8, CaBasis::monomial);
        o.max_iterations = 1000;
        const CaGmresResult r = solve(test::cyclic_shift<double>(64), unit_rhs<double>(64), o);
        EXPECT_EQ(r.status, SolveStatus::stagnation) << r.detail;
        EXPECT_EQ(r.iterations, 8 * o.stagnation_cycles);
        EXPECT_NEAR(r.true_residual, 1.0, 1e-12);
        expect_consistent(r);
    }
    // The nilpotent shift: A^5 e_0 = 0, the least-squares problem (s = 1) or the block (s = 5)
    // is singular.
    for (const int s : {1, 5}) {
        CaGmresOptions o = ca_options(s, 10, CaBasis::monomial);
        const CaGmresResult r = solve(test::nilpotent_shift<double>(5), unit_rhs<double>(5), o);
        EXPECT_EQ(r.status, SolveStatus::breakdown) << r.detail;
        expect_consistent(r);
    }
    // A raw monomial basis of a matrix of norm 1e120 overflows at A^3 v.
    const auto big = test::one_per_row<double>(
        50, [](index_type i) { return i; }, [](index_type i) { return 1e120 * (1 + i % 5); });
    CaGmresOptions o = ca_options(5, 10, CaBasis::monomial);
    o.normalize_basis = false;
    const CaGmresResult r = solve(big, smooth_rhs<double>(50), o);
    EXPECT_EQ(r.status, SolveStatus::non_finite) << r.detail;
    EXPECT_NE(r.detail.find("not finite"), std::string::npos) << r.detail;
    expect_consistent(r);
    // Normalized, the same basis is fine.
    o.normalize_basis = true;
    EXPECT_EQ(solve(big, smooth_rhs<double>(50), o).status, SolveStatus::converged);
}

TEST(CaGmresCpu, IterationAndRestartLimitsTimingModeAndZeroRightHandSide)
{
    const Csr<double> a = convection(20);
    const auto b = smooth_rhs<double>(a.num_rows);
    CaGmresOptions o = ca_options(5, 20, CaBasis::monomial);
    o.max_iterations = 7;  // one block of 5, then one of 2
    CaGmresResult r = solve(a, b, o);
    EXPECT_EQ(r.status, SolveStatus::max_iterations);
    EXPECT_EQ(r.iterations, 7);
    EXPECT_EQ(r.history_iterations, (std::vector<int>{0, 5, 7}));
    expect_consistent(r);

    o.max_iterations = 1000;
    o.max_restarts = 2;
    r = solve(a, b, o);
    EXPECT_EQ(r.status, SolveStatus::max_iterations);
    EXPECT_EQ(r.restarts, 2);
    EXPECT_EQ(r.iterations, 40);
    EXPECT_NE(r.detail.find("max_restarts = 2"), std::string::npos) << r.detail;

    o = ca_options(5, 15, CaBasis::newton);
    o.max_iterations = 43;
    o.timing_mode = true;
    r = solve(a, b, o);
    EXPECT_EQ(r.iterations, 43);
    EXPECT_TRUE(r.timing_mode);
    EXPECT_EQ(r.status, SolveStatus::max_iterations);
    // A happy breakdown ends a timing run early.
    r = solve(test::diagonal_with_distinct_values<double>(100, 3), smooth_rhs<double>(100), o);
    EXPECT_EQ(r.status, SolveStatus::converged) << r.detail;
    EXPECT_LE(r.iterations, 4);

    std::vector<double> x;
    r = solve(a, std::vector<double>(b.size(), 0.0), CaGmresOptions{}, &x);
    EXPECT_EQ(r.status, SolveStatus::converged);
    EXPECT_EQ(r.iterations, 0);
    EXPECT_EQ(r.true_residual, 0.0);
    EXPECT_EQ(r.restarts, 0);
}

TEST(CaGmresCpu, BorthOnePassAndDetailedPhases)
{
    const Csr<double> a = convection(30);
    const auto b = smooth_rhs<double>(a.num_rows);
    CaGmresOptions o = ca_options(5, 30, CaBasis::newton, TsqrMethod::cholqr2);
    o.borth_passes = 1;
    o.detailed = true;
    o.tolerance = 1e-8;
    const CaGmresResult r = solve(a, b, o);
    ASSERT_EQ(r.status, SolveStatus::converged) << r.detail;
    const std::set<std::string> names = {"MPK", "BOrth", "TSQR", "least squares", "other"};
    double sum = 0.0;
    std::set<std::string> seen;
    for (const PhaseTime& p : r.phases) {
        EXPECT_TRUE(names.count(p.name)) << p.name;
        EXPECT_GE(p.seconds, 0.0);
        EXPECT_GT(p.calls, 0);
        seen.insert(p.name);
        sum += p.seconds;
    }
    EXPECT_EQ(seen, names);
    EXPECT_LE(sum, r.seconds);
    o.detailed = false;
    EXPECT_TRUE(solve(a, b, o).phases.empty());
}

// ---- two-stage block orthogonalization ----------------------------------------------------

/// `o` with the two-stage scheme and panels of at most `panel` columns (0: min(m, 64)).
CaGmresOptions two_stage(CaGmresOptions o, int panel = 0)
{
    o.borth = CaBorth::two_stage;
    o.panel_columns = panel;
    return o;
}

/// ||I - V^T V||_F of a cycle's basis.
double orthogonality_loss(const detail::CaCycleSnapshot<double>& snap)
{
    const Eigen::Map<const Eigen::MatrixXd> v(snap.V, snap.n, snap.columns + 1);
    return (Eigen::MatrixXd::Identity(snap.columns + 1, snap.columns + 1) - v.transpose() * v)
        .norm();
}

TEST(ChangePanelBasis, GivesTheHessenbergMatrixOfTheOrthonormalBasis)
{
    // A Q_{0:c-1} = Q H with H upper Hessenberg; stage 2 of the panel a..e made Z = Q T
    // (T: identity but columns a..e = [C2; R2]); the stage-1 columns are H1 = T^-1 H T_c
    // (T_c = T(0:c-1, 0:c-1)), the earlier columns are H's. change_panel_basis gives H back.
    const int a = 4, e = 8, c = 8, ldh = c + 1;
    std::mt19937 gen(3);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    Eigen::MatrixXd H = Eigen::MatrixXd::Zero(c + 1, c);
    for (int j = 0; j < c; ++j)
        for (int i = 0; i <= j + 1; ++i) H(i, j) = u(gen) + (i == j + 1 ? 2.0 : 0.0);
    Eigen::MatrixXd T = Eigen::MatrixXd::Identity(c + 1, c + 1);
    const int kp = e - a + 1;
    Eigen::MatrixXd C2(a, kp), R2 = Eigen::MatrixXd::Zero(kp, kp);
    for (int t = 0; t < kp; ++t) {
        for (int r = 0; r < a; ++r) C2(r, t) = 0.3 * u(gen);
        for (int r = 0; r <= t; ++r) R2(r, t) = r == t ? 1.0 + 0.5 * std::abs(u(gen)) : u(gen);
        T.col(a + t).setZero();
        T.col(a + t).head(a) = C2.col(t);
        T.col(a + t).segment(a, t + 1) = R2.col(t).head(t + 1);
    }
    const Eigen::MatrixXd H1 = T.inverse() * H * T.topLeftCorner(c, c);
    Eigen::MatrixXd in = H;
    in.rightCols(c - (a - 1)) = H1.rightCols(c - (a - 1));
    EXPECT_LE((in.leftCols(a - 1) - H1.leftCols(a - 1)).norm(), 1e-14);  // unchanged before a-1
    detail::change_panel_basis(a, e, c - 1, C2.data(), R2.data(), in.data(), ldh);
    EXPECT_LE((in - H).norm() / H.norm(), 1e-13);
    expect_invalid([&] { detail::change_panel_basis(0, 2, 1, C2.data(), R2.data(), in.data(), 9); },
                   {"change_panel_basis", "a = 0"});
}

TEST(CaGmresCpu, TwoStageConvergesLikeThePerBlockScheme)
{
    const Csr<double> a = convection(30);
    const auto b = smooth_rhs<double>(a.num_rows);
    for (const int s : {2, 5}) {
        for (const int m : {10, 30}) {
            for (const CaBasis basis : {CaBasis::monomial, CaBasis::newton}) {
                for (const TsqrMethod tsqr : {TsqrMethod::cholqr2, TsqrMethod::caqr}) {
                    for (const int panel : {0, 2 * s}) {
                        CaGmresOptions o = ca_options(s, m, basis, tsqr);
                        o.tolerance = 1e-8;
                        o.max_iterations = 4000;
                        SCOPED_TRACE(ca_label(o) + ", two-stage panels of " +
                                     std::to_string(panel));
                        const CaGmresResult ref = solve(a, b, o);
                        ASSERT_EQ(ref.status, SolveStatus::converged) << ref.detail;
                        std::vector<double> x;
                        const CaGmresResult r = solve(a, b, two_stage(o, panel), &x);
                        ASSERT_EQ(r.status, SolveStatus::converged) << r.detail;
                        expect_consistent(r);
                        EXPECT_LE(r.true_residual, 1e-8 * 1.01);
                        EXPECT_LE(r.residual_history.back(), 1e-8 * 1.01);
                        // Convergence is tested per panel: up to a panel (m) more steps.
                        EXPECT_NEAR(r.iterations, ref.iterations, m + 0.02 * ref.iterations);
                        EXPECT_EQ(r.tsqr_fallbacks, 0);
                    }
                }
            }
        }
    }
}

TEST(CaGmresCpu, TwoStageBasisIsOrthonormalAfterStageTwo)
{
    const Csr<double> small = convection(12);  // 144 rows
    const Csr<double> large = convection(20);  // 400 rows
    struct Case {
        const Csr<double>* a;
        int s, m, panel;
        CaBasis basis;
        std::vector<cd> shifts;
        bool normalize;
        std::vector<int> panel_ends;  // history_iterations of the first cycle
    };
    const std::vector<cd> shifts = {{6.5, 0.0}, {4.0, 2.0}, {4.0, -2.0}, {1.5, 0.0}};
    const std::vector<Case> cases = {
        {&small, 5, 20, 0, CaBasis::monomial, {}, true, {20}},
        {&small, 4, 20, 0, CaBasis::monomial, {}, false, {20}},
        {&small, 5, 30, 10, CaBasis::monomial, {}, true, {10, 20, 30}},
        {&small, 7, 20, 14, CaBasis::newton, shifts, true, {14, 20}},  // blocks 7, 7 | 6
        {&small, 6, 18, 12, CaBasis::newton, shifts, false, {12, 18}},
        {&large, 8, 100, 0, CaBasis::newton, shifts, true, {64, 100}},  // panels 64 | 36
    };
    for (const Case& c : cases) {
        const Eigen::MatrixXd A = dense(*c.a);
        const auto b = smooth_rhs<double>(c.a->num_rows);
        CaGmresOptions o = ca_options(c.s, c.m, c.basis);
        o.shifts = c.shifts;
        o.normalize_basis = c.normalize;
        o.timing_mode = true;  // two whole cycles
        o.max_iterations = 2 * c.m;
        SCOPED_TRACE(ca_label(o) + ", panels of " + std::to_string(c.panel) +
                     (c.normalize ? ", normalized" : ", raw"));
        double block_loss = 0.0, two_loss = 0.0;
        int cycles = 0;
        const detail::CaCycleObserver<double> per_block =
            [&](const detail::CaCycleSnapshot<double>& snap) {
                block_loss = std::max(block_loss, orthogonality_loss(snap));
            };
        std::vector<double> x(b.size(), 0.0);
        detail::ca_gmres_cpu_observed(*c.a, b, x, o, per_block);
        const detail::CaCycleObserver<double> check =
            [&](const detail::CaCycleSnapshot<double>& snap) {
                ++cycles;
                EXPECT_EQ(snap.columns, c.m);
                test_util::expect_arnoldi_relation(A, snap);
                two_loss = std::max(two_loss, orthogonality_loss(snap));
            };
        std::fill(x.begin(), x.end(), 0.0);
        const CaGmresResult r =
            detail::ca_gmres_cpu_observed(*c.a, b, x, two_stage(o, c.panel), check);
        expect_consistent(r);
        EXPECT_EQ(cycles, 2);
        EXPECT_EQ(r.iterations, 2 * c.m);
        EXPECT_EQ(r.status, SolveStatus::max_iterations);
        // O(eps) after stage 2 (CholQR2 of a panel that BCGS2 and stage 1 left well
        // conditioned), as CGS2's; the per-block scheme's CholQR2 works on the raw MPK blocks
        // (measured: two-stage 1.4e-15 .. 5.1e-15, per block 1.9e-14 .. 9.8e-13).
        EXPECT_LE(two_loss, 1e-13) << "per block " << block_loss;
        EXPECT_LE(block_loss, 1e-11);
        // One estimate per panel.
        std::vector<int> first_cycle(r.history_iterations.begin() + 1,
                                     r.history_iterations.begin() + 1 + c.panel_ends.size());
        EXPECT_EQ(first_cycle, c.panel_ends);
    }
}

TEST(CaGmresCpu, TwoStageFallsBackWhenStageOneCannotFactorABlock)
{
    // A monomial block of 16 vectors: W^T W - C^T C is not numerically positive definite, so
    // stage 1's Cholesky fails and fallback_tsqr (CAQR) factors W - Q C.
    const Csr<double> a = convection(30);
    const auto b = smooth_rhs<double>(a.num_rows);
    CaGmresOptions o = two_stage(ca_options(16, 32, CaBasis::monomial, TsqrMethod::cholqr2));
    o.tolerance = 1e-8;
    o.max_iterations = 4000;
    const CaGmresResult r = solve(a, b, o);
    expect_consistent(r);
    EXPECT_EQ(r.status, SolveStatus::converged) << r.detail;
    EXPECT_GT(r.tsqr_fallbacks, 0);
    EXPECT_EQ(r.first_fallback_restart, 0);

    // A fallback that fails too is a breakdown naming the block and both failures.
    o.fallback_tsqr = TsqrMethod::cholqr;
    const CaGmresResult broken = solve(a, b, o);
    expect_consistent(broken);
    EXPECT_EQ(broken.status, SolveStatus::breakdown) << broken.detail;
    for (const char* part : {"restart 0", "block", "stage-1 CholQR failed", "fallback cholqr"})
        EXPECT_NE(broken.detail.find(part), std::string::npos) << part << " in " << broken.detail;
}

TEST(CaGmresCpu, TwoStageStatusesLimitsAndPhases)
{
    // Happy breakdown: found by stage 1's rank test, the panel ends there.
    const auto diag = test::diagonal_with_distinct_values<double>(200, 4);
    for (const int s : {2, 5}) {
        CaGmresOptions o = two_stage(ca_options(s, 10, CaBasis::newton));
        o.tolerance = 1e-13;
        SCOPED_TRACE(ca_label(o));
        const CaGmresResult r = solve(diag, smooth_rhs<double>(200), o);
        EXPECT_EQ(r.status, SolveStatus::converged) << r.detail;
        EXPECT_GE(r.iterations, 4);
        EXPECT_LE(r.iterations, 4 + s);
        EXPECT_LE(r.true_residual, 1e-13);
        expect_consistent(r);
    }
    // Stagnation of the cyclic shift and the singular nilpotent shift.
    CaGmresOptions o = two_stage(ca_options(4, 8, CaBasis::monomial));
    o.max_iterations = 1000;
    CaGmresResult r = solve(test::cyclic_shift<double>(64), unit_rhs<double>(64), o);
    EXPECT_EQ(r.status, SolveStatus::stagnation) << r.detail;
    EXPECT_EQ(r.iterations, 8 * o.stagnation_cycles);
    expect_consistent(r);
    r = solve(test::nilpotent_shift<double>(5), unit_rhs<double>(5),
              two_stage(ca_options(5, 10, CaBasis::monomial)));
    EXPECT_EQ(r.status, SolveStatus::breakdown) << r.detail;
    expect_consistent(r);

    // The iteration limit ends the panel: one estimate after blocks of 5 and 2.
    const Csr<double> a = convection(20);
    const auto b = smooth_rhs<double>(a.num_rows);
    o = two_stage(ca_options(5, 20, CaBasis::monomial));
    o.max_iterations = 7;
    r = solve(a, b, o);
    EXPECT_EQ(r.status, SolveStatus::max_iterations);
    EXPECT_EQ(r.iterations, 7);
    EXPECT_EQ(r.history_iterations, (std::vector<int>{0, 7}));

    // Detailed phases: the same names (stage 1's product in BOrth, its factor in TSQR).
    o = two_stage(ca_options(5, 30, CaBasis::newton), 10);
    o.detailed = true;
    o.tolerance = 1e-8;
    r = solve(convection(30), smooth_rhs<double>(900), o);
    ASSERT_EQ(r.status, SolveStatus::converged) << r.detail;
    std::set<std::string> seen;
    for (const PhaseTime& p : r.phases) seen.insert(p.name);
    EXPECT_EQ(seen, (std::set<std::string>{"MPK", "BOrth", "TSQR", "least squares", "other"}));

    // Single precision.
    o = two_stage(ca_options(4, 20, CaBasis::newton));
    o.tolerance = 1e-5;
    const Csr<float> af = a.cast<float>();
    const CaGmresResult rf = solve(af, smooth_rhs<float>(af.num_rows), o);
    EXPECT_EQ(rf.status, SolveStatus::converged) << rf.detail;
    EXPECT_LE(rf.true_residual, 1e-4);
}

TEST(CaGmresCpu, SinglePrecisionConverges)
{
    const Csr<float> a = convection(20).cast<float>();
    for (const CaBasis basis : {CaBasis::monomial, CaBasis::newton}) {
        CaGmresOptions o = ca_options(4, 20, basis, TsqrMethod::cholqr2);
        o.tolerance = 1e-5;
        const CaGmresResult r = solve(a, smooth_rhs<float>(a.num_rows), o);
        EXPECT_EQ(r.status, SolveStatus::converged) << to_string(basis) << ": " << r.detail;
        EXPECT_LE(r.true_residual, 1e-4);
    }
}

TEST(CaGmresCpu, BadArgumentsThrowNamingTheParameter)
{
    const Csr<double> a = convection(5);  // 25 rows
    const auto b = smooth_rhs<double>(a.num_rows);
    std::vector<double> x(b.size());
    auto expect = [&](CaGmresOptions o, std::vector<std::string> parts) {
        parts.insert(parts.begin(), "ca_gmres_cpu");
        expect_invalid([&] { ca_gmres_cpu(a, b, x, o); }, parts);
    };
    CaGmresOptions o;
    o.s = 0;
    expect(o, {"s = 0"});
    o = {};
    o.s = 40;
    expect(o, {"s = 40", "restart = 30"});
    o = {};
    o.s = 65;
    o.restart = 100;
    expect(o, {"s = 65", "64"});
    o = {};
    o.s = 30;
    o.restart = 40;
    expect(o, {"s = 30", "n = 25"});
    o = {};
    o.restart = 0;
    expect(o, {"restart = 0"});
    o = {};
    o.tolerance = std::nan("");
    expect(o, {"tolerance"});
    o = {};
    o.max_iterations = -1;
    expect(o, {"max_iterations = -1"});
    o = {};
    o.max_restarts = -1;
    expect(o, {"max_restarts = -1"});
    o = {};
    o.stagnation_cycles = -2;
    expect(o, {"stagnation_cycles = -2"});
    o = {};
    o.borth_passes = 3;
    expect(o, {"borth_passes = 3"});
    o = {};
    o.basis = CaBasis::monomial;
    o.shifts = {{1.0, 0.0}};
    expect(o, {"shifts", "monomial"});
    o = {};
    o.shifts = {{1.0, 1.0}};
    expect(o, {"shifts", "conjugate"});
    o = {};
    o.panel_columns = 5;  // s = 10
    expect(o, {"panel_columns = 5", "64"});
    o = {};
    o.panel_columns = 65;
    o.restart = 100;
    expect(o, {"panel_columns = 65"});
    o = {};
    o.borth = CaBorth::two_stage;
    o.measure_orthogonality = true;
    expect(o, {"measure_orthogonality", "two_stage"});
    std::vector<double> short_x(3);
    expect_invalid([&] { ca_gmres_cpu(a, b, short_x, CaGmresOptions{}); },
                         {"ca_gmres_cpu", "entries"});
    Csr<double> rect;
    rect.num_rows = 2;
    rect.num_cols = 3;
    rect.row_ptr = {0, 1, 2};
    rect.col_idx = {0, 2};
    rect.values = {1.0, 1.0};
    std::vector<double> two(2, 1.0);
    CaGmresOptions tiny;
    tiny.s = 1;
    expect_invalid([&] { ca_gmres_cpu(rect, two, two, tiny); },
                   {"ca_gmres_cpu", "square"});
    expect_invalid([] { parse_ca_basis("chebyshev"); }, {"chebyshev", "monomial", "newton"});
    EXPECT_EQ(parse_ca_basis("newton"), CaBasis::newton);
    EXPECT_STREQ(to_string(CaBasis::monomial), "monomial");
    expect_invalid([] { parse_ca_borth("three_stage"); }, {"three_stage", "block", "two_stage"});
    for (const CaBorth borth : {CaBorth::block, CaBorth::two_stage})
        EXPECT_EQ(parse_ca_borth(to_string(borth)), borth);
}

}  // namespace
}  // namespace kbench::solvers
