// CA-GMRES(s, m) on the CPU (solvers/ca_gmres.hpp), part of test_ca_gmres_cpu: its host pieces
// (Leja ordering, Newton steps, basis-change matrix, matrix powers kernel, Hessenberg
// reconstruction, balancing) on hand-checkable cases.
#include "kernels/test/expect_invalid.hpp"
#include "solvers/ca_gmres.hpp"
#include "solvers/test/ca_gmres_cpu_test_util.hpp"
#include "solvers/test/ca_gmres_test_util.hpp"
#include "solvers/test/gmres_test_matrices.hpp"

#include <Eigen/Dense>
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <limits>
#include <stdexcept>
#include <vector>

namespace kbench::solvers {
namespace {

using namespace test_util;  // ca_gmres_test_util.hpp, ca_gmres_cpu_test_util.hpp

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

}  // namespace
}  // namespace kbench::solvers
