// The merged BiCGSTAB vector kernels (kernels/bicgstab_kernels.hpp), CPU only: one iteration of
// the reference twins on a 2 x 2 system worked by hand, the breakdown statuses, and the argument
// checks, label cpu.
#include "kernels/bicgstab_kernels.hpp"
#include "kernels/test/expect_invalid.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace kbench::bicgstab {
namespace {

// A = diag(2, 4), b = (2, 4), x0 = 0: r = b. BiCGSTAB (anzt2015 Fig. 1, left), by hand:
//   init:       r_hat = r = (2, 4), p = v = 0, rho = rr = 20
//   p_update:   beta = (20 / 1) (1 / 1) = 20, p = r + 20 (0 - 1 * 0) = (2, 4)
//   v = A p = (4, 16)
//   alpha_dot:  rhat_v = 8 + 64 = 72, alpha = 20 / 72 = 5/18
//   s_update:   s = r - alpha v = (2 - 10/9, 4 - 40/9) = (8/9, -4/9)
//   t = A s = (16/9, -16/9)
//   omega_dot:  ts = 128/81 + 64/81 = 192/81, tt = 512/81, ss = 80/81, omega = 192/512 = 3/8
//   xr_update:  x = alpha p + omega s = (5/9 + 1/3, 10/9 - 1/6) = (8/9, 17/18),
//               r = s - omega t = (8/9 - 2/3, -4/9 + 2/3) = (2/9, 2/9),
//               rho_old = 20, rho = r_hat . r = 4/9 + 8/9 = 4/3, rr = 8/81
TEST(BicgstabKernelsReference, OneIterationByHand)
{
    const std::vector<double> b = {2, 4};
    std::vector<double> r = b, r_hat(2), p(2, -1), v(2, -1), s(2), t(2), x = {0, 0};
    DeviceScalars<double> sc;
    reference::init<double>(2, r.data(), r_hat.data(), p.data(), v.data(), &sc);
    EXPECT_EQ(r_hat, r);
    EXPECT_EQ(p, (std::vector<double>{0, 0}));
    EXPECT_EQ(v, (std::vector<double>{0, 0}));
    EXPECT_EQ(sc.rho, 20.0);
    EXPECT_EQ(sc.rr, 20.0);
    EXPECT_EQ(sc.status, static_cast<int>(DeviceStatus::ok));

    reference::p_update<double>(2, r.data(), v.data(), p.data(), &sc);
    EXPECT_EQ(p, (std::vector<double>{2, 4}));

    v = {4, 16};
    reference::alpha_dot<double>(2, r_hat.data(), v.data(), &sc);
    EXPECT_EQ(sc.rhat_v, 72.0);
    EXPECT_DOUBLE_EQ(sc.alpha, 5.0 / 18);

    reference::s_update<double>(2, r.data(), v.data(), s.data(), &sc);
    EXPECT_DOUBLE_EQ(s[0], 8.0 / 9);
    EXPECT_DOUBLE_EQ(s[1], -4.0 / 9);

    t = {2 * s[0], 4 * s[1]};
    reference::omega_dot<double>(2, t.data(), s.data(), &sc);
    EXPECT_DOUBLE_EQ(sc.ts, 192.0 / 81);
    EXPECT_DOUBLE_EQ(sc.tt, 512.0 / 81);
    EXPECT_DOUBLE_EQ(sc.ss, 80.0 / 81);
    EXPECT_DOUBLE_EQ(sc.omega, 3.0 / 8);

    reference::xr_update<double>(2, r_hat.data(), p.data(), s.data(), t.data(), x.data(),
                                 r.data(), &sc);
    EXPECT_DOUBLE_EQ(x[0], 8.0 / 9);
    EXPECT_DOUBLE_EQ(x[1], 17.0 / 18);
    EXPECT_DOUBLE_EQ(r[0], 2.0 / 9);
    EXPECT_DOUBLE_EQ(r[1], 2.0 / 9);
    EXPECT_EQ(sc.rho_old, 20.0);
    EXPECT_DOUBLE_EQ(sc.rho, 4.0 / 3);
    EXPECT_DOUBLE_EQ(sc.rr, 8.0 / 81);
    EXPECT_EQ(sc.status, static_cast<int>(DeviceStatus::ok));
}

TEST(BicgstabKernelsReference, BreakdownsSetStickyStatuses)
{
    // r_hat . v == 0: rhat_v_zero, alpha left unchanged.
    const std::vector<double> r_hat = {1, 0}, v = {0, 1};
    DeviceScalars<double> sc;
    sc.rho = 1;
    reference::alpha_dot<double>(2, r_hat.data(), v.data(), &sc);
    EXPECT_EQ(sc.status, static_cast<int>(DeviceStatus::rhat_v_zero));
    EXPECT_EQ(sc.alpha, 1.0);

    // t = 0 with s != 0: omega = 0 and omega_zero; the earlier status stays (sticky).
    const std::vector<double> t = {0, 0}, s = {1, 0};
    reference::omega_dot<double>(2, t.data(), s.data(), &sc);
    EXPECT_EQ(sc.omega, 0.0);
    EXPECT_EQ(sc.status, static_cast<int>(DeviceStatus::rhat_v_zero));

    DeviceScalars<double> fresh;
    reference::omega_dot<double>(2, t.data(), s.data(), &fresh);
    EXPECT_EQ(fresh.status, static_cast<int>(DeviceStatus::omega_zero));

    // t = s = 0: convergence in half a step, not a breakdown.
    DeviceScalars<double> half;
    const std::vector<double> zero = {0, 0};
    reference::omega_dot<double>(2, zero.data(), zero.data(), &half);
    EXPECT_EQ(half.omega, 0.0);
    EXPECT_EQ(half.status, static_cast<int>(DeviceStatus::ok));
}

TEST(BicgstabKernelsReference, StatusTextSaysWhatBrokeDown)
{
    EXPECT_STREQ(status_text(static_cast<int>(DeviceStatus::rho_zero)),
                 "rho = r_hat . r = 0 with r != 0");
    EXPECT_STREQ(status_text(static_cast<int>(DeviceStatus::rhat_v_zero)),
                 "r_hat . v = 0 (alpha = rho / 0)");
    EXPECT_STREQ(status_text(static_cast<int>(DeviceStatus::omega_zero)),
                 "omega = t.s / t.t = 0 with r != 0");
    EXPECT_STREQ(status_text(static_cast<int>(DeviceStatus::non_finite)),
                 "a scalar or the residual is not finite");
    EXPECT_STREQ(status_text(99), "unknown status");
}

TEST(BicgstabKernelsReference, ArgumentChecksNameTheReference)
{
    std::vector<double> a(2), b(2);
    DeviceScalars<double> sc;
    test::expect_invalid(
        [&] { reference::s_update<double>(2, a.data(), nullptr, b.data(), &sc); },
        {"kbench::bicgstab::reference::s_update", "'v'"});
    test::expect_invalid(
        [&] { reference::alpha_dot<double>(-1, a.data(), b.data(), &sc); },
        {"kbench::bicgstab::reference::alpha_dot"});
    test::expect_invalid(
        [&] { reference::alpha_dot<double>(2, a.data(), b.data(), nullptr); },
        {"kbench::bicgstab::reference::alpha_dot"});
    test::expect_invalid([&] { reference::dot<double>(2, nullptr, b.data()); },
                         {"kbench::bicgstab::reference::dot", "'a'"});
    test::expect_invalid([&] { reference::dot<double>(-1, a.data(), b.data()); },
                         {"kbench::bicgstab::reference::dot", "'n' is -1"});
}

TEST(BicgstabKernelsReference, DotIsTheSumTheReferencesUse)
{
    // reference::dot is the pairwise sum alpha_dot finishes: the same bits; 0 for n = 0.
    std::vector<double> a(1000), b(1000);
    for (int i = 0; i < 1000; ++i) {
        a[i] = 1.0 / (i + 1);
        b[i] = (i % 7) - 3.1;
    }
    DeviceScalars<double> sc;
    sc.rho = 1.0;
    reference::alpha_dot<double>(1000, a.data(), b.data(), &sc);
    EXPECT_EQ(reference::dot<double>(1000, a.data(), b.data()), sc.rhat_v);
    EXPECT_EQ(reference::dot<double>(0, nullptr, nullptr), 0.0);
    const std::vector<float> f = {1.5f, 2.0f, -0.25f};
    EXPECT_EQ(reference::dot<float>(3, f.data(), f.data()), 2.25 + 4.0 + 0.0625);
}

}  // namespace
}  // namespace kbench::bicgstab
