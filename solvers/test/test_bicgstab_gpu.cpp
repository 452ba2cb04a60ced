// GPU tests of BiCGSTAB in its three forms (solvers/bicgstab.hpp) against the CPU (Eigen)
// solver and constructed breakdowns, label gpu.
#include "kernels/base/cuda_handles.hpp"
#include "kernels/base/device_buffer.hpp"
#include "kernels/machine_probe.hpp"
#include "kernels/test/gpu_test.hpp"
#include "matrices/generators.hpp"
#include "models/bicgstab_model.hpp"
#include "solvers/bicgstab.hpp"
#include "solvers/test/solver_test_util.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

namespace kbench::solvers {
namespace {

constexpr BicgstabForm all_forms[] = {BicgstabForm::reference, BicgstabForm::merged,
                                      BicgstabForm::graph};

template <typename T>
struct Solve {
    SolveResult result;
    std::vector<T> x;
};

template <typename T>
Solve<T> solve_gpu(const Csr<T>& a, const std::vector<T>& b, const std::string& kernel,
                   const BicgstabOptions& opts)
{
    spmv::SpmvOperator<T> op(a, spmv::Policy{kernel}, spmv::machine_figures());
    cuda_stream stream;
    device_buffer<T> db(b), dx(std::vector<T>(b.size(), T{0}));
    Solve<T> s;
    s.result = bicgstab(op, db.data(), dx.data(), opts, stream);
    s.x = dx.to_host();
    return s;
}

TEST(BicgstabGpu, EveryFormMatchesTheCpuSolverInDouble)
{
    KBENCH_REQUIRE_GPU();
    const Csr<double> a = convection_diffusion(60, 60, 1, 30.0, -20.0, 0.0);  // 3600 rows
    const std::vector<double> b = test::smooth_rhs<double>(a.num_rows);
    BicgstabOptions opts;
    opts.tolerance = 1e-10;
    opts.max_iterations = 2000;
    std::vector<double> x_cpu(b.size(), 0.0);
    const SolveResult cpu = bicgstab_cpu(a, b, x_cpu, opts);
    ASSERT_EQ(cpu.status, SolveStatus::converged);
    for (const auto form : all_forms) {
        for (const std::string kernel : {"cusparse_csr", "auto"}) {
            SCOPED_TRACE(std::string{to_string(form)} + " / " + kernel);
            opts.form = form;
            const Solve<double> gpu = solve_gpu(a, b, kernel, opts);
            EXPECT_EQ(gpu.result.status, SolveStatus::converged) << gpu.result.detail;
            // Both solutions have a relative residual <= ~1e-10; the condition number of this
            // M-matrix is ~1e3, so they agree to ~1e-7 (a loose 1e-6 leaves room for rounding).
            EXPECT_LT(gpu.result.true_residual, 1e-9);
            EXPECT_LT(test::relative_difference(gpu.x, x_cpu), 1e-6);
            // Same algorithm as Eigen's (without its restarts): iteration counts close.
            EXPECT_NEAR(gpu.result.iterations, cpu.iterations, 0.25 * cpu.iterations + 3);
            ASSERT_EQ(gpu.result.residual_history.size(),
                      static_cast<std::size_t>(gpu.result.iterations) + 1);
            EXPECT_NEAR(gpu.result.residual_history.front(), 1.0, 1e-12);  // x0 = 0
            EXPECT_LE(gpu.result.residual_history.back(), opts.tolerance);
            EXPECT_GT(gpu.result.seconds, 0.0);
        }
    }
}

TEST(BicgstabGpu, FormsAgreeIterationByIteration)
{
    KBENCH_REQUIRE_GPU();
    const Csr<double> a = convection_diffusion(50, 40, 1, 10.0, 5.0, 0.0);
    const std::vector<double> b(static_cast<std::size_t>(a.num_rows), 1.0);
    BicgstabOptions opts;
    opts.tolerance = 1e-9;
    std::vector<std::vector<double>> histories;
    for (const auto form : all_forms) {
        opts.form = form;
        histories.push_back(solve_gpu(a, b, "csr_vector", opts).result.residual_history);
    }
    // Same arithmetic up to the order of the dot products' sums: the histories agree closely
    // while the residual is far above rounding (1e-6 relative over the first 20 iterations).
    for (std::size_t f = 1; f < histories.size(); ++f) {
        const std::size_t m = std::min<std::size_t>({20, histories[0].size(), histories[f].size()});
        for (std::size_t i = 0; i < m; ++i)
            EXPECT_NEAR(histories[f][i], histories[0][i], 1e-6 * histories[0][i])
                << "form " << f << " iteration " << i;
    }
}

TEST(BicgstabGpu, FloatConverges)
{
    KBENCH_REQUIRE_GPU();
    const Csr<float> a = convection_diffusion(40, 40, 1, 10.0, 10.0, 0.0).cast<float>();
    const std::vector<float> b(static_cast<std::size_t>(a.num_rows), 1.0f);
    BicgstabOptions opts;
    opts.tolerance = 1e-5;  // float: eps = 6e-8, condition ~1e3
    for (const auto form : all_forms) {
        opts.form = form;
        const Solve<float> s = solve_gpu(a, b, "auto", opts);
        EXPECT_EQ(s.result.status, SolveStatus::converged) << to_string(form);
        EXPECT_LT(s.result.true_residual, 1e-4) << to_string(form);
    }
}

TEST(BicgstabGpu, TimingModeRunsTheFixedCount)
{
    KBENCH_REQUIRE_GPU();
    const Csr<double> a = laplacian_2d_5pt(64, 64);
    const std::vector<double> b(static_cast<std::size_t>(a.num_rows), 1.0);
    BicgstabOptions opts;
    opts.timing_mode = true;
    opts.max_iterations = 37;
    opts.tolerance = 0.5;  // would stop after a few iterations if the test were on
    for (const auto form : all_forms) {
        opts.form = form;
        const SolveResult r = solve_gpu(a, b, "sellp", opts).result;
        EXPECT_EQ(r.status, SolveStatus::max_iterations) << to_string(form);
        EXPECT_EQ(r.iterations, 37) << to_string(form);
        EXPECT_TRUE(r.timing_mode);
    }
}

TEST(BicgstabGpu, ConvergenceInHalfAStepIsNotADivisionByZero)
{
    KBENCH_REQUIRE_GPU();
    // A = 2 I: v = 2 r, alpha = 1/2, s = r - alpha v = 0 exactly, t = 0: omega = 0/0 avoided.
    Csr<double> a;
    a.num_rows = a.num_cols = 1000;
    for (index_type i = 0; i < 1000; ++i) {
        a.col_idx.push_back(i);
        a.values.push_back(2.0);
        a.row_ptr.push_back(i + 1);
    }
    const std::vector<double> b(1000, 3.0);
    BicgstabOptions opts;
    for (const auto form : all_forms) {
        opts.form = form;
        const Solve<double> s = solve_gpu(a, b, "csr_scalar", opts);
        EXPECT_EQ(s.result.status, SolveStatus::converged) << to_string(form) << s.result.detail;
        EXPECT_EQ(s.result.iterations, 1) << to_string(form);
        EXPECT_EQ(s.result.true_residual, 0.0) << to_string(form);
        EXPECT_EQ(s.x[17], 1.5);
    }
}

TEST(BicgstabGpu, BreakdownIsAStatus)
{
    KBENCH_REQUIRE_GPU();
    // Blocks [[0, 1], [-1, 0]] (skew-symmetric): r_hat . A r_hat = 0, so alpha = rho / 0 in the
    // first iteration.
    Csr<double> a;
    a.num_rows = a.num_cols = 512;
    for (index_type i = 0; i < 512; ++i) {
        a.col_idx.push_back(i % 2 == 0 ? i + 1 : i - 1);
        a.values.push_back(i % 2 == 0 ? 1.0 : -1.0);
        a.row_ptr.push_back(i + 1);
    }
    std::vector<double> b(512);
    for (std::size_t i = 0; i < b.size(); ++i) b[i] = 1.0 + double(i % 7);
    for (const auto form : all_forms) {
        BicgstabOptions opts;
        opts.form = form;
        const SolveResult r = solve_gpu(a, b, "csr_vector", opts).result;
        EXPECT_EQ(r.status, SolveStatus::breakdown) << to_string(form);
        EXPECT_NE(r.detail.find("r_hat . v"), std::string::npos) << r.detail;
        EXPECT_EQ(r.iterations, 1) << to_string(form);
    }
}

TEST(BicgstabGpu, NonFiniteRightHandSideStopsAtOnce)
{
    KBENCH_REQUIRE_GPU();
    const Csr<double> a = laplacian_2d_5pt(16, 16);
    std::vector<double> b(256, 1.0);
    b[5] = std::nan("");
    for (const auto form : all_forms) {
        BicgstabOptions opts;
        opts.form = form;
        const SolveResult r = solve_gpu(a, b, "csr_vector", opts).result;
        EXPECT_EQ(r.status, SolveStatus::non_finite) << to_string(form);
        EXPECT_EQ(r.iterations, 0) << to_string(form);
    }
}

TEST(BicgstabGpu, ZeroRightHandSideConvergesAtOnce)
{
    KBENCH_REQUIRE_GPU();
    const Csr<double> a = laplacian_2d_5pt(16, 16);
    const std::vector<double> b(256, 0.0);
    for (const auto form : all_forms) {
        BicgstabOptions opts;
        opts.form = form;
        const Solve<double> s = solve_gpu(a, b, "csr_vector", opts);
        EXPECT_EQ(s.result.status, SolveStatus::converged) << to_string(form);
        EXPECT_EQ(s.result.iterations, 0);
        EXPECT_EQ(s.result.true_residual, 0.0);
    }
}

TEST(BicgstabGpu, RejectsBadOptions)
{
    KBENCH_REQUIRE_GPU();
    const Csr<double> a = laplacian_2d_5pt(8, 8);
    const std::vector<double> b(64, 1.0);
    BicgstabOptions opts;
    opts.max_iterations = -1;
    EXPECT_THROW(solve_gpu(a, b, "csr_vector", opts), std::invalid_argument);
    opts.max_iterations = 10;
    opts.tolerance = std::nan("");
    EXPECT_THROW(solve_gpu(a, b, "csr_vector", opts), std::invalid_argument);
}

/// The detailed run names its phases after the traffic model's kernel tables (the table1
/// reproduction joins Nsight Compute's NVTX-named kernels with them), times every one of them in
/// every iteration, and its phases add up to the loop's time.
TEST(BicgstabGpu, DetailedRunTimesEveryPhaseUnderTheModelsNames)
{
    KBENCH_REQUIRE_GPU();
    const Csr<double> a = convection_diffusion(40, 40, 1, 10.0, 5.0, 0.0);
    const std::vector<double> b(static_cast<std::size_t>(a.num_rows), 1.0);
    const std::pair<BicgstabForm, models::BicgstabVariant> forms[] = {
        {BicgstabForm::reference, models::BicgstabVariant::reference},
        {BicgstabForm::merged, models::BicgstabVariant::merged}};
    for (const auto& [form, variant] : forms) {
        SCOPED_TRACE(to_string(form));
        BicgstabOptions opts;
        opts.form = form;
        opts.timing_mode = true;
        opts.max_iterations = 12;
        opts.detailed = true;
        const SolveResult r = solve_gpu(a, b, "cusparse_csr", opts).result;
        ASSERT_EQ(r.iterations, 12);
        std::set<std::string> model_names{"SpMV v = A p", "SpMV t = A s", "stopping test"};
        for (const auto& k : models::kernels(variant)) model_names.emplace(k.name);
        const std::size_t expected =
            models::kernels(variant).size() + 2 + (form == BicgstabForm::merged ? 1 : 0);
        ASSERT_EQ(r.phases.size(), expected);
        double sum = 0.0;
        for (const PhaseTime& p : r.phases) {
            EXPECT_TRUE(model_names.count(p.name)) << p.name;
            EXPECT_EQ(p.calls, 12) << p.name;
            EXPECT_GT(p.seconds, 0.0) << p.name;
            const std::set<std::string> groups{"spmv", "dot", "p_update", "s_update",
                                               "xr_update", "check"};
            EXPECT_TRUE(groups.count(p.group)) << p.group;
            sum += p.seconds;
        }
        // The loop's events bracket the phases' events (host work in between adds a little).
        EXPECT_LE(sum, r.seconds * 1.0001);
        EXPECT_GE(sum, 0.5 * r.seconds);
    }
    BicgstabOptions graph;
    graph.form = BicgstabForm::graph;
    graph.detailed = true;
    EXPECT_THROW(solve_gpu(a, b, "cusparse_csr", graph), std::invalid_argument);
}

}  // namespace
}  // namespace kbench::solvers
