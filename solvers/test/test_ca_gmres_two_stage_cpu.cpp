// CA-GMRES(s, m) on the CPU (solvers/ca_gmres.hpp), part of test_ca_gmres_cpu: the two-stage
// block orthogonalization (CaBorth::two_stage): its change of basis, convergence, the orthonormal
// basis after stage 2, stage 1's fallback and its statuses.
#include "kernels/test/expect_invalid.hpp"
#include "solvers/ca_gmres.hpp"
#include "solvers/test/ca_gmres_cpu_test_util.hpp"
#include "solvers/test/ca_gmres_test_util.hpp"
#include "solvers/test/gmres_test_matrices.hpp"

#include <Eigen/Dense>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace kbench::solvers {
namespace {

using namespace test_util;  // ca_gmres_test_util.hpp, ca_gmres_cpu_test_util.hpp

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

}  // namespace
}  // namespace kbench::solvers
