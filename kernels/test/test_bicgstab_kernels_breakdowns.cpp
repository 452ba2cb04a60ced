// Merged BiCGSTAB kernels (kernels/bicgstab_kernels.hpp), part of test_bicgstab_kernels_gpu:
// the breakdown statuses (rhat_v_zero, omega_zero, rho_zero, non_finite), half-step convergence
// and the statuses' stickiness, each scenario written once and run on the references on the CPU
// (run everywhere) and on the GPU (KBENCH_REQUIRE_GPU).
#include "kernels/bicgstab_kernels.hpp"
#include "kernels/test/bicgstab_kernels_test_util.hpp"
#include "kernels/test/gpu_test.hpp"
#include "matrices/test/random_data.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <vector>

namespace kbench::bicgstab {
namespace {

using namespace test_util;

constexpr double nan = std::numeric_limits<double>::quiet_NaN();
constexpr double inf = std::numeric_limits<double>::infinity();

// ------------------------------------------------------------------------------------------
// Breakdown scenarios, written once for a runner `run(Op, HostState<double>&)`: the reference
// on the CPU, or the GPU (upload, launch, download) with one workspace for the whole scenario.

using Runner = std::function<void(Op, HostState<double>&)>;

/// +1, -1, +1, ... (n even: orthogonal to all ones, and every partial sum is exact).
std::vector<double> alternating(std::int64_t n)
{
    std::vector<double> a(static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = i % 2 == 0 ? 1.0 : -1.0;
    return a;
}

void scenario_rhat_orthogonal_to_v(const Runner& run, std::int64_t n)
{
    HostState<double> h = random_state<double>(n, 100);
    h.r_hat.assign(h.size(), 1.0);
    h.v = alternating(n);
    run(Op::alpha_dot, h);
    EXPECT_EQ(h.sc.rhat_v, 0.0);
    EXPECT_EQ(h.sc.status, status_of(DeviceStatus::rhat_v_zero));
    EXPECT_EQ(h.sc.alpha, 0.375);  // left unchanged
}

void scenario_half_step_convergence(const Runner& run, std::int64_t n)
{
    // A = 2 I: v = 2 p = 2 r gives alpha = r.r / (2 r.r) = 0.5 exactly (the two sums differ by
    // an exact factor 2 term by term), so s = r - 0.5 (2 r) = 0 and t = 0.
    HostState<double> h(n);
    h.r = test::random_vector<double>(h.size(), 200);
    const std::vector<double> b = h.r;
    run(Op::init, h);
    run(Op::p_update, h);
    EXPECT_EQ(h.p, b);
    for (std::size_t i = 0; i < h.size(); ++i) h.v[i] = 2.0 * h.p[i];
    run(Op::alpha_dot, h);
    EXPECT_EQ(h.sc.alpha, 0.5);
    run(Op::s_update, h);
    EXPECT_EQ(h.s, std::vector<double>(h.size(), 0.0));
    h.t.assign(h.size(), 0.0);
    run(Op::omega_dot, h);
    EXPECT_EQ(h.sc.tt, 0.0);
    EXPECT_EQ(h.sc.ss, 0.0);
    EXPECT_EQ(h.sc.omega, 0.0);
    EXPECT_EQ(h.sc.status, status_of(DeviceStatus::ok));  // not a breakdown
    run(Op::xr_update, h);
    std::vector<double> half_b(h.size());
    for (std::size_t i = 0; i < h.size(); ++i) half_b[i] = 0.5 * b[i];
    EXPECT_EQ(h.x, half_b);  // the solution of 2 x = b
    EXPECT_EQ(h.r, std::vector<double>(h.size(), 0.0));
    EXPECT_EQ(h.sc.rr, 0.0);
    EXPECT_EQ(h.sc.status, status_of(DeviceStatus::ok));
}

void scenario_t_zero_with_s_nonzero(const Runner& run, std::int64_t n)
{
    HostState<double> h = random_state<double>(n, 300);  // A s = 0 for s != 0: A is singular
    h.t.assign(h.size(), 0.0);
    run(Op::omega_dot, h);
    EXPECT_GT(h.sc.ss, 0.0);
    EXPECT_EQ(h.sc.omega, 0.0);
    EXPECT_EQ(h.sc.status, status_of(DeviceStatus::omega_zero));
}

void scenario_t_orthogonal_to_s(const Runner& run, std::int64_t n)
{
    // ts == 0, tt != 0: omega = 0 without a status in omega_dot; xr_update then finds
    // omega == 0 with rr != 0.
    HostState<double> h = random_state<double>(n, 400);
    h.t.assign(h.size(), 1.0);
    h.s = alternating(n);
    run(Op::omega_dot, h);
    EXPECT_EQ(h.sc.ts, 0.0);
    EXPECT_EQ(h.sc.tt, double(n));
    EXPECT_EQ(h.sc.omega, 0.0);
    EXPECT_EQ(h.sc.status, status_of(DeviceStatus::ok));
    run(Op::xr_update, h);
    EXPECT_EQ(h.r, h.s);
    EXPECT_EQ(h.sc.rr, double(n));
    EXPECT_EQ(h.sc.status, status_of(DeviceStatus::omega_zero));
}

void scenario_rhat_orthogonal_to_new_r(const Runner& run, std::int64_t n)
{
    HostState<double> h = random_state<double>(n, 500);
    h.sc.omega = 0.5;
    h.t.assign(h.size(), 0.0);
    h.s = alternating(n);  // r = s - 0.5 * 0 = s
    h.r_hat.assign(h.size(), 1.0);
    run(Op::xr_update, h);
    EXPECT_EQ(h.sc.rho_old, 0.8);
    EXPECT_EQ(h.sc.rho, 0.0);
    EXPECT_EQ(h.sc.rr, double(n));
    EXPECT_EQ(h.sc.status, status_of(DeviceStatus::rho_zero));
}

void scenario_non_finite(const Runner& run, std::int64_t n)
{
    const std::size_t mid = static_cast<std::size_t>(n / 2);
    {
        HostState<double> h = random_state<double>(n, 600);
        h.r[mid] = nan;
        run(Op::init, h);
        EXPECT_EQ(h.sc.status, status_of(DeviceStatus::non_finite)) << "init";
    }
    {
        HostState<double> h = random_state<double>(n, 601);
        h.v.back() = inf;
        run(Op::alpha_dot, h);
        EXPECT_EQ(h.sc.status, status_of(DeviceStatus::non_finite)) << "alpha_dot";
        EXPECT_EQ(h.sc.alpha, 0.375) << "alpha_dot leaves alpha unchanged";
    }
    {
        HostState<double> h = random_state<double>(n, 602);
        h.s.front() = nan;
        run(Op::omega_dot, h);
        EXPECT_EQ(h.sc.status, status_of(DeviceStatus::non_finite)) << "omega_dot";
        EXPECT_EQ(h.sc.omega, -0.625) << "omega_dot leaves omega unchanged";
    }
    {
        HostState<double> h = random_state<double>(n, 603);
        h.t[mid] = inf;
        run(Op::xr_update, h);
        EXPECT_EQ(h.sc.status, status_of(DeviceStatus::non_finite)) << "xr_update";
    }
}

void scenario_status_is_sticky(const Runner& run, std::int64_t n)
{
    HostState<double> h = random_state<double>(n, 700);
    h.r_hat.assign(h.size(), 1.0);
    h.v = alternating(n);
    run(Op::alpha_dot, h);
    ASSERT_EQ(h.sc.status, status_of(DeviceStatus::rhat_v_zero));
    h.t.assign(h.size(), 0.0);  // alone: omega_zero
    run(Op::omega_dot, h);
    EXPECT_EQ(h.sc.omega, 0.0);  // the scalars still update ...
    EXPECT_EQ(h.sc.status, status_of(DeviceStatus::rhat_v_zero));  // ... the status does not
    h.t[0] = nan;  // alone: non_finite
    run(Op::xr_update, h);
    EXPECT_TRUE(std::isnan(h.sc.rr));
    EXPECT_EQ(h.sc.status, status_of(DeviceStatus::rhat_v_zero));
    h.r = test::random_vector<double>(h.size(), 701);
    run(Op::init, h);  // only init restarts
    EXPECT_EQ(h.sc.status, status_of(DeviceStatus::ok));
}

void run_all_scenarios(const std::function<Runner(std::int64_t)>& make_runner, std::int64_t n)
{
    SCOPED_TRACE(testing::Message() << "n=" << n);
    scenario_rhat_orthogonal_to_v(make_runner(n), n);
    scenario_half_step_convergence(make_runner(n), n);
    scenario_t_zero_with_s_nonzero(make_runner(n), n);
    scenario_t_orthogonal_to_s(make_runner(n), n);
    scenario_rhat_orthogonal_to_new_r(make_runner(n), n);
    scenario_non_finite(make_runner(n), n);
    scenario_status_is_sticky(make_runner(n), n);
}

TEST(BicgstabReference, BreakdownStatuses)
{
    const auto cpu = [](std::int64_t) -> Runner {
        return [](Op op, HostState<double>& h) { run_reference(op, h); };
    };
    for (std::int64_t n : {2, 64, 100000}) run_all_scenarios(cpu, n);
}

TEST(BicgstabKernelsGpuSequence, BreakdownStatuses)
{
    KBENCH_REQUIRE_GPU();
    // One device state (and workspace) per scenario, kept across the scenario's launches.
    const auto gpu = [](std::int64_t n) -> Runner {
        auto d = std::make_shared<DeviceState<double>>(n);
        return [d](Op op, HostState<double>& h) {
            d->upload(h);
            d->run(op);
            d->download(h);
        };
    };
    for (std::int64_t n : {2, 64, 100000}) run_all_scenarios(gpu, n);  // 100000: multi-block
}

}  // namespace
}  // namespace kbench::bicgstab
