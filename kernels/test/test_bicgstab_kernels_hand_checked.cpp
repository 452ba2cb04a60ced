// Merged BiCGSTAB kernels (kernels/bicgstab_kernels.hpp), CPU tests of the references (run
// everywhere; part of test_bicgstab_kernels_gpu): hand-checked tiny cases of each reference
// kernel, float and double, and a reference merged iteration that solves a tridiagonal system.
#include "kernels/bicgstab_kernels.hpp"
#include "kernels/test/bicgstab_kernels_test_util.hpp"
#include "matrices/test/random_data.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace kbench::bicgstab {
namespace {

using namespace test_util;

// ------------------------------------------------------------------------------------------
// Hand-checked reference kernels (CPU), float and double: every value below is exact in both.

template <typename T>
class BicgstabReference : public ::testing::Test {};
TYPED_TEST_SUITE(BicgstabReference, ScalarTypes);

TYPED_TEST(BicgstabReference, InitCopiesRAndResetsScalars)
{
    using T = TypeParam;
    const std::vector<T> r{3, 4};
    std::vector<T> r_hat(2, T(7)), p(2, T(7)), v(2, T(7));
    DeviceScalars<T> sc{T(9), T(9), T(9), T(9), T(9), T(9), T(9), T(9), T(9),
                        status_of(DeviceStatus::rhat_v_zero)};
    reference::init<T>(2, r.data(), r_hat.data(), p.data(), v.data(), &sc);
    EXPECT_EQ(r_hat, r);
    EXPECT_EQ(p, std::vector<T>(2, T(0)));
    EXPECT_EQ(v, std::vector<T>(2, T(0)));
    EXPECT_EQ(sc.rho, T(25));
    EXPECT_EQ(sc.rr, T(25));
    EXPECT_EQ(sc.rho_old, T(1));
    EXPECT_EQ(sc.alpha, T(1));
    EXPECT_EQ(sc.omega, T(1));
    EXPECT_EQ(sc.rhat_v, T(0));
    EXPECT_EQ(sc.ts, T(0));
    EXPECT_EQ(sc.tt, T(0));
    EXPECT_EQ(sc.ss, T(0));
    EXPECT_EQ(sc.status, status_of(DeviceStatus::ok));  // init restarts the iteration
}

TYPED_TEST(BicgstabReference, FirstPUpdateAfterInitGivesR)
{
    using T = TypeParam;
    const std::vector<T> r{T(0.5), T(-2), T(3)};
    std::vector<T> r_hat(3), p(3, T(1)), v(3, T(1));
    DeviceScalars<T> sc;
    reference::init<T>(3, r.data(), r_hat.data(), p.data(), v.data(), &sc);
    reference::p_update<T>(3, r.data(), v.data(), p.data(), &sc);
    EXPECT_EQ(p, r);
}

TYPED_TEST(BicgstabReference, PUpdate)
{
    using T = TypeParam;
    // beta = (2 / 1) * (1 / 2) = 1; p = r + (p - 2 v) = (1 + 2 - 2, 2 + 0 - 2).
    const std::vector<T> r{1, 2}, v{1, 1};
    std::vector<T> p{2, 0};
    DeviceScalars<T> sc;
    sc.rho = 2;
    sc.rho_old = 1;
    sc.alpha = 1;
    sc.omega = 2;
    reference::p_update<T>(2, r.data(), v.data(), p.data(), &sc);
    EXPECT_EQ(p, (std::vector<T>{1, 0}));
}

TYPED_TEST(BicgstabReference, AlphaDot)
{
    using T = TypeParam;
    const std::vector<T> r_hat{1, 2}, v{3, 4};
    DeviceScalars<T> sc;
    sc.rho = 22;
    reference::alpha_dot<T>(2, r_hat.data(), v.data(), &sc);
    EXPECT_EQ(sc.rhat_v, T(11));
    EXPECT_EQ(sc.alpha, T(2));
    EXPECT_EQ(sc.status, status_of(DeviceStatus::ok));
}

TYPED_TEST(BicgstabReference, SUpdate)
{
    using T = TypeParam;
    const std::vector<T> r{1, 2}, v{3, 4};
    std::vector<T> s(2);
    DeviceScalars<T> sc;
    sc.alpha = T(0.5);
    reference::s_update<T>(2, r.data(), v.data(), s.data(), &sc);
    EXPECT_EQ(s, (std::vector<T>{T(-0.5), T(0)}));
}

TYPED_TEST(BicgstabReference, OmegaDot)
{
    using T = TypeParam;
    const std::vector<T> t{1, 2}, s{3, 4};
    DeviceScalars<T> sc;
    reference::omega_dot<T>(2, t.data(), s.data(), &sc);
    EXPECT_EQ(sc.ts, T(11));
    EXPECT_EQ(sc.tt, T(5));
    EXPECT_EQ(sc.ss, T(25));
    EXPECT_EQ(sc.omega, T(11) / T(5));
    EXPECT_EQ(sc.status, status_of(DeviceStatus::ok));
}

TYPED_TEST(BicgstabReference, XrUpdate)
{
    using T = TypeParam;
    // x = x + 0.5 p + 2 s = (1 + 0.5 + 4, 1 + 1 + 0); r = s - 2 t = (0, 2);
    // rho = r_hat . r = 2, rr = 4, rho_old = the previous rho.
    const std::vector<T> r_hat{1, 1}, p{1, 2}, s{2, 0}, t{1, -1};
    std::vector<T> x{1, 1}, r(2);
    DeviceScalars<T> sc;
    sc.rho = 3;
    sc.alpha = T(0.5);
    sc.omega = 2;
    reference::xr_update<T>(2, r_hat.data(), p.data(), s.data(), t.data(), x.data(), r.data(), &sc);
    EXPECT_EQ(x, (std::vector<T>{T(5.5), T(2)}));
    EXPECT_EQ(r, (std::vector<T>{T(0), T(2)}));
    EXPECT_EQ(sc.rho_old, T(3));
    EXPECT_EQ(sc.rho, T(2));
    EXPECT_EQ(sc.rr, T(4));
    EXPECT_EQ(sc.status, status_of(DeviceStatus::ok));
}

TEST(BicgstabReference, ZeroLengthGivesZeroDots)
{
    DeviceScalars<double> sc;
    reference::init<double>(0, nullptr, nullptr, nullptr, nullptr, &sc);
    EXPECT_EQ(sc.rr, 0.0);
    EXPECT_EQ(sc.status, status_of(DeviceStatus::ok));
    reference::p_update<double>(0, nullptr, nullptr, nullptr, &sc);
    reference::s_update<double>(0, nullptr, nullptr, nullptr, &sc);
    reference::omega_dot<double>(0, nullptr, nullptr, &sc);
    EXPECT_EQ(sc.omega, 0.0);  // tt == ss == 0: half-step convergence, not a breakdown
    EXPECT_EQ(sc.status, status_of(DeviceStatus::ok));
    reference::xr_update<double>(0, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, &sc);
    EXPECT_EQ(sc.rr, 0.0);
    EXPECT_EQ(sc.status, status_of(DeviceStatus::ok));  // rr == 0: converged
    reference::alpha_dot<double>(0, nullptr, nullptr, &sc);
    EXPECT_EQ(sc.status, status_of(DeviceStatus::rhat_v_zero));
}

// ------------------------------------------------------------------------------------------
// Merged iterations of the references on the tridiagonal test matrix (apply_tridiagonal).

TEST(BicgstabReference, MergedIterationSolvesTridiagonalSystem)
{
    // b = A x_true; from x0 = 0 the iteration must reach x_true (the reference kernels together
    // are BiCGSTAB), and the recursive residual rr must match the true one.
    const std::int64_t n = 50;
    const std::vector<double> x_true = test::random_vector<double>(n, 41);
    std::vector<double> b;
    apply_tridiagonal(x_true, b);
    HostState<double> h(n);
    h.r = b;
    run_reference(Op::init, h);
    const double rr0 = h.sc.rr;
    int iterations = 0;
    while (iterations < 40 && h.sc.rr > 1e-24 * rr0) {
        reference_iteration(h);
        ASSERT_EQ(h.sc.status, status_of(DeviceStatus::ok)) << "iteration " << iterations;
        ++iterations;
    }
    EXPECT_LT(iterations, 40) << "no convergence: rr / rr0 = " << h.sc.rr / rr0;
    double err = 0.0;
    for (std::int64_t i = 0; i < n; ++i) err = std::max(err, std::abs(h.x[i] - x_true[i]));
    EXPECT_LE(err, 1e-10);
    std::vector<double> ax;
    apply_tridiagonal(h.x, ax);
    double true_rr = 0.0;
    for (std::int64_t i = 0; i < n; ++i) true_rr += (b[i] - ax[i]) * (b[i] - ax[i]);
    EXPECT_LE(std::sqrt(true_rr), 1e-10 * std::sqrt(rr0));
}

}  // namespace
}  // namespace kbench::bicgstab
