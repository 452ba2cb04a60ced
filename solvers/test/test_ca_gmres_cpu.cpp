// CA-GMRES(s, m) on the CPU (solvers/ca_gmres.hpp), the solver: convergence over s, m, bases
// and TSQRs, the Arnoldi relation of the rebuilt Hessenberg matrix, CA-GMRES(1, m) against
// GMRES(m), the TSQR fallback, statuses, limits, records, single precision and argument errors.
// The executable test_ca_gmres_cpu also holds the tests of its host pieces
// (test_ca_gmres_host_pieces.cpp) and of the two-stage block orthogonalization
// (test_ca_gmres_two_stage_cpu.cpp); the helpers they share are in ca_gmres_cpu_test_util.hpp.
#include "kernels/test/expect_invalid.hpp"
#include "solvers/ca_gmres.hpp"
#include "solvers/test/ca_gmres_cpu_test_util.hpp"
#include "solvers/test/ca_gmres_test_util.hpp"
#include "solvers/gmres.hpp"
#include "solvers/test/gmres_test_matrices.hpp"

#include <Eigen/Dense>
#include <Eigen/SparseCore>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <set>
#include <string>
#include <vector>

namespace kbench::solvers {
namespace {

using namespace test_util;  // ca_gmres_test_util.hpp, ca_gmres_cpu_test_util.hpp

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
