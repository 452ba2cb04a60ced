// Merged BiCGSTAB kernels (kernels/bicgstab_kernels.hpp), label gpu: the GPU tests
// (KBENCH_REQUIRE_GPU): each kernel against its reference for n in {1, 31, 1000, 100003, 2^20},
// float and double; a merged iteration sequence on GPU and CPU with a tridiagonal SpMV done on the
// host; determinism; the workspace counter reset; CUDA graph capture; n = 0.
// The executable test_bicgstab_kernels_gpu also holds the CPU tests of the references
// (test_bicgstab_kernels_hand_checked.cpp), the breakdown statuses on the CPU and the GPU
// (test_bicgstab_kernels_breakdowns.cpp) and the argument validation
// (test_bicgstab_kernels_validation.cpp); their helpers are in bicgstab_kernels_test_util.hpp.
//
// Tolerances:
// * Updated vectors (p, s, x, r, and r_hat, p, v of init) must be equal: both sides evaluate the
//   same expression with the same explicit fused multiply-adds (__fma_rn / std::fma) and IEEE
//   divisions, each correctly rounded, so the results are the same numbers.
// * Dot products: see dot_tolerance.
// * Scalars derived from dots (alpha = rho / rhat_v, omega = ts / tt): the dots' relative
//   tolerance plus 2 eps(T) for the quotient.
// * Merged iteration: see iteration_tolerance.
#include "kernels/base/cuda_check.hpp"
#include "kernels/base/cuda_handles.hpp"
#include "kernels/base/device_buffer.hpp"
#include "kernels/bicgstab_kernels.hpp"
#include "kernels/test/bicgstab_kernels_test_util.hpp"
#include "kernels/test/gpu_test.hpp"
#include "matrices/test/random_data.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

namespace kbench::bicgstab {
namespace {

using namespace test_util;

const std::int64_t sizes[] = {1, 31, 1000, 100003, std::int64_t{1} << 20};

// ------------------------------------------------------------------------------------------
// GPU kernels against their references.

template <typename T>
class BicgstabKernelsGpu : public ::testing::Test {};
TYPED_TEST_SUITE(BicgstabKernelsGpu, ScalarTypes);

TYPED_TEST(BicgstabKernelsGpu, InitMatchesReference)
{
    KBENCH_REQUIRE_GPU();
    using T = TypeParam;
    for (std::int64_t n : sizes) {
        SCOPED_TRACE(testing::Message() << "n=" << n);
        HostState<T> ref = random_state<T>(n, 1);
        ref.sc.status = status_of(DeviceStatus::omega_zero);  // init resets it
        HostState<T> got = ref;
        run_reference(Op::init, ref);
        run_gpu(Op::init, got);
        expect_same_values(got.r_hat, ref.r_hat, "r_hat");
        expect_same_values(got.p, ref.p, "p");
        expect_same_values(got.v, ref.v, "v");
        const double tol = dot_tolerance<T>(abs_dot(got.r, got.r), ref.sc.rr);
        expect_close(got.sc.rr, ref.sc.rr, tol, "rr");
        expect_close(got.sc.rho, ref.sc.rho, tol, "rho");
        expect_fields_equal_except(got.sc, ref.sc, {"rr", "rho"});
        EXPECT_EQ(got.sc.status, status_of(DeviceStatus::ok));
    }
}

TYPED_TEST(BicgstabKernelsGpu, PUpdateMatchesReference)
{
    KBENCH_REQUIRE_GPU();
    using T = TypeParam;
    for (std::int64_t n : sizes) {
        SCOPED_TRACE(testing::Message() << "n=" << n);
        HostState<T> ref = random_state<T>(n, 10), got = ref;
        run_reference(Op::p_update, ref);
        run_gpu(Op::p_update, got);
        expect_same_values(got.p, ref.p, "p");
        expect_same_values(got.r, ref.r, "r (input)");
        expect_fields_equal_except(got.sc, ref.sc, {});
    }
}

TYPED_TEST(BicgstabKernelsGpu, AlphaDotMatchesReference)
{
    KBENCH_REQUIRE_GPU();
    using T = TypeParam;
    const double eps = std::numeric_limits<T>::epsilon();
    for (std::int64_t n : sizes) {
        SCOPED_TRACE(testing::Message() << "n=" << n);
        HostState<T> ref = random_state<T>(n, 20), got = ref;
        run_reference(Op::alpha_dot, ref);
        run_gpu(Op::alpha_dot, got);
        const double rv = ref.sc.rhat_v;
        const double tol = dot_tolerance<T>(abs_dot(got.r_hat, got.v), rv);
        expect_close(got.sc.rhat_v, rv, tol, "rhat_v");
        expect_close(got.sc.alpha, ref.sc.alpha,
                     std::abs(double(ref.sc.alpha)) * (tol / std::abs(rv) + 2 * eps), "alpha");
        expect_fields_equal_except(got.sc, ref.sc, {"rhat_v", "alpha"});
        EXPECT_EQ(got.sc.status, status_of(DeviceStatus::ok));
    }
}

TYPED_TEST(BicgstabKernelsGpu, SUpdateMatchesReference)
{
    KBENCH_REQUIRE_GPU();
    using T = TypeParam;
    for (std::int64_t n : sizes) {
        SCOPED_TRACE(testing::Message() << "n=" << n);
        HostState<T> ref = random_state<T>(n, 30), got = ref;
        run_reference(Op::s_update, ref);
        run_gpu(Op::s_update, got);
        expect_same_values(got.s, ref.s, "s");
        expect_fields_equal_except(got.sc, ref.sc, {});
    }
}

TYPED_TEST(BicgstabKernelsGpu, OmegaDotMatchesReference)
{
    KBENCH_REQUIRE_GPU();
    using T = TypeParam;
    const double eps = std::numeric_limits<T>::epsilon();
    for (std::int64_t n : sizes) {
        SCOPED_TRACE(testing::Message() << "n=" << n);
        HostState<T> ref = random_state<T>(n, 40), got = ref;
        run_reference(Op::omega_dot, ref);
        run_gpu(Op::omega_dot, got);
        const double tol_ts = dot_tolerance<T>(abs_dot(got.t, got.s), ref.sc.ts);
        const double tol_tt = dot_tolerance<T>(abs_dot(got.t, got.t), ref.sc.tt);
        const double tol_ss = dot_tolerance<T>(abs_dot(got.s, got.s), ref.sc.ss);
        expect_close(got.sc.ts, ref.sc.ts, tol_ts, "ts");
        expect_close(got.sc.tt, ref.sc.tt, tol_tt, "tt");
        expect_close(got.sc.ss, ref.sc.ss, tol_ss, "ss");
        const double rel = tol_ts / std::abs(double(ref.sc.ts)) +
                           tol_tt / std::abs(double(ref.sc.tt)) + 2 * eps;
        expect_close(got.sc.omega, ref.sc.omega, std::abs(double(ref.sc.omega)) * rel, "omega");
        expect_fields_equal_except(got.sc, ref.sc, {"ts", "tt", "ss", "omega"});
        EXPECT_EQ(got.sc.status, status_of(DeviceStatus::ok));
    }
}

TYPED_TEST(BicgstabKernelsGpu, XrUpdateMatchesReference)
{
    KBENCH_REQUIRE_GPU();
    using T = TypeParam;
    for (std::int64_t n : sizes) {
        SCOPED_TRACE(testing::Message() << "n=" << n);
        HostState<T> ref = random_state<T>(n, 50), got = ref;
        run_reference(Op::xr_update, ref);
        run_gpu(Op::xr_update, got);
        expect_same_values(got.x, ref.x, "x");
        expect_same_values(got.r, ref.r, "r");
        expect_close(got.sc.rho, ref.sc.rho,
                     dot_tolerance<T>(abs_dot(ref.r_hat, ref.r), ref.sc.rho), "rho");
        expect_close(got.sc.rr, ref.sc.rr, dot_tolerance<T>(abs_dot(ref.r, ref.r), ref.sc.rr),
                     "rr");
        EXPECT_EQ(got.sc.rho_old, T(0.8));  // the previous rho, moved
        expect_fields_equal_except(got.sc, ref.sc, {"rho", "rr"});
        EXPECT_EQ(got.sc.status, status_of(DeviceStatus::ok));
    }
}

// ------------------------------------------------------------------------------------------
// Sequences, determinism, workspace reuse, graph capture, n = 0 on the GPU.

/// Tolerance of the GPU scalars against the reference ones after iteration k of the merged
/// sequence. The two sides differ only in the order of the dot sums (O(eps) relative at
/// first); the iteration amplifies such differences roughly like ||r_0|| / ||r_k||, the
/// cancellation that forms the small residual from large vectors. Simulating this matrix with
/// two summation orders (n = 31, 1000, 100003, 8 seeds, 10 iterations) gave differences of at
/// most 0.8 eps sqrt(rr0 / rr_k); 64 times that leaves a margin of 80 and is still far below
/// what any wrong formula gives (differences of order 1).
double iteration_tolerance(double rr0, double rr_k)
{
    return 64.0 * dbl_eps * std::sqrt(rr0 / rr_k);
}

TEST(BicgstabKernelsGpuSequence, MergedIterationMatchesReference)
{
    KBENCH_REQUIRE_GPU();
    for (std::int64_t n : {std::int64_t{31}, std::int64_t{1000}, std::int64_t{100003}}) {
        SCOPED_TRACE(testing::Message() << "n=" << n);
        HostState<double> ref(n);
        ref.r = test::random_vector<double>(ref.size(), 60);  // b, with x0 = 0
        const std::vector<double> b = ref.r;
        DeviceState<double> d(n);
        d.upload(ref);
        run_reference(Op::init, ref);
        d.run(Op::init);
        const double rr0 = ref.sc.rr;
        for (int k = 0; k < 8; ++k) {
            SCOPED_TRACE(testing::Message() << "iteration " << k);
            reference_iteration(ref);
            gpu_iteration(d);
            const DeviceScalars<double> got = d.scalars();
            const DeviceScalars<double>& e = ref.sc;
            const double tol = iteration_tolerance(rr0, e.rr);
            ASSERT_EQ(e.status, status_of(DeviceStatus::ok));
            ASSERT_EQ(got.status, status_of(DeviceStatus::ok));
            expect_close(got.alpha, e.alpha, tol * std::abs(e.alpha), "alpha");
            expect_close(got.omega, e.omega, tol * std::abs(e.omega), "omega");
            expect_close(got.rr, e.rr, tol * e.rr, "rr");
            // rho = r_hat . r_k may be small next to ||r_hat|| ||r_k||: scale by that product.
            expect_close(got.rho, e.rho, tol * std::sqrt(rr0 * e.rr), "rho");
        }
        // BiCGSTAB converges fast on this matrix (simulated: rr_8 / rr0 < 1e-10), and the
        // recursive residual of the GPU iterate matches the true one.
        const DeviceScalars<double> got = d.scalars();
        EXPECT_LT(got.rr, 1e-8 * rr0);
        std::vector<double> ax;
        const std::vector<double> x = d.x.to_host();
        apply_tridiagonal(x, ax);
        double true_rr = 0.0, dx = 0.0, xmax = 0.0;
        for (std::size_t i = 0; i < x.size(); ++i) {
            true_rr += (b[i] - ax[i]) * (b[i] - ax[i]);
            dx = std::max(dx, std::abs(x[i] - ref.x[i]));
            xmax = std::max(xmax, std::abs(ref.x[i]));
        }
        EXPECT_NEAR(std::sqrt(true_rr), std::sqrt(got.rr), 1e-6 * std::sqrt(got.rr));
        EXPECT_LE(dx, iteration_tolerance(rr0, ref.sc.rr) * xmax);
    }
}

TEST(BicgstabKernelsGpuSequence, RepeatedSequenceIsBitwiseIdentical)
{
    KBENCH_REQUIRE_GPU();
    for (std::int64_t n : {std::int64_t{100003}, std::int64_t{1} << 20}) {
        SCOPED_TRACE(testing::Message() << "n=" << n);
        HostState<double> start(n);
        start.r = test::random_vector<double>(start.size(), 70);
        DeviceState<double> d(n);
        std::vector<HostState<double>> results;
        for (int repeat = 0; repeat < 2; ++repeat) {
            d.upload(start);
            d.run(Op::init);
            for (int k = 0; k < 3; ++k) gpu_iteration(d);
            results.emplace_back(n);
            d.download(results.back());
        }
        expect_bitwise_equal(results[0].sc, results[1].sc);
        expect_bitwise_equal(results[0].x, results[1].x, "x");
        expect_bitwise_equal(results[0].r, results[1].r, "r");
        EXPECT_EQ(results[0].sc.status, status_of(DeviceStatus::ok));
    }
}

TEST(BicgstabKernelsGpuSequence, WorkspaceCounterIsResetByEveryLaunch)
{
    KBENCH_REQUIRE_GPU();
    // One zero-filled workspace, no init: each reducing launch must find the counter at 0 (or
    // the finishing block is not the last one and *sc is wrong or unchanged) and leave it at 0.
    const std::int64_t n = 100003;
    DeviceState<double> d(n);
    for (std::uint32_t round = 0; round < 3; ++round) {
        for (Op op : {Op::alpha_dot, Op::omega_dot, Op::xr_update}) {
            SCOPED_TRACE(testing::Message() << "round " << round << " op " << int(op));
            HostState<double> ref = random_state<double>(n, 80 + 10 * round);
            d.upload(ref);
            d.run(op);
            run_reference(op, ref);
            const DeviceScalars<double> got = d.scalars();
            expect_close(got.rhat_v, ref.sc.rhat_v, 1e-9 * std::abs(ref.sc.rhat_v), "rhat_v");
            expect_close(got.ts, ref.sc.ts, 1e-9 * std::abs(ref.sc.ts), "ts");
            expect_close(got.rr, ref.sc.rr, 1e-9 * std::abs(ref.sc.rr), "rr");
            unsigned int counter = 1;
            const std::vector<unsigned char> ws = d.ws.to_host();
            std::memcpy(&counter, ws.data(), sizeof(counter));
            EXPECT_EQ(counter, 0u);
        }
    }
}

/// Runs `ops` twice from `start` by direct launches, then captures them once into a CUDA graph
/// and launches it twice from `start`: the two end states must be the same bits.
void expect_graph_matches_direct(const HostState<double>& start, const std::vector<Op>& ops)
{
    DeviceState<double> d(start.n);
    d.upload(start);
    for (int repeat = 0; repeat < 2; ++repeat)
        for (Op op : ops) d.run(op);
    HostState<double> direct(start.n);
    d.download(direct);

    d.upload(start);
    cudaGraph_t graph = nullptr;
    KBENCH_CUDA_CHECK(cudaStreamBeginCapture(d.stream, cudaStreamCaptureModeGlobal));
    for (Op op : ops) d.enqueue(op);  // no host synchronization, no allocation: capturable
    KBENCH_CUDA_CHECK(cudaStreamEndCapture(d.stream, &graph));
    cudaGraphExec_t exec = nullptr;
    KBENCH_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    KBENCH_CUDA_CHECK(cudaGraphLaunch(exec, d.stream));
    KBENCH_CUDA_CHECK(cudaGraphLaunch(exec, d.stream));
    d.stream.synchronize();
    KBENCH_CUDA_CHECK(cudaGraphExecDestroy(exec));
    KBENCH_CUDA_CHECK(cudaGraphDestroy(graph));
    HostState<double> captured(start.n);
    d.download(captured);

    EXPECT_EQ(direct.sc.status, status_of(DeviceStatus::ok));
    expect_bitwise_equal(captured.sc, direct.sc);
    expect_bitwise_equal(captured.x, direct.x, "x");
    expect_bitwise_equal(captured.r, direct.r, "r");
    expect_bitwise_equal(captured.p, direct.p, "p");
    expect_bitwise_equal(captured.s, direct.s, "s");
    expect_bitwise_equal(captured.r_hat, direct.r_hat, "r_hat");
}

TEST(BicgstabKernelsGpuSequence, CapturedGraphMatchesDirectLaunches)
{
    KBENCH_REQUIRE_GPU();
    const std::int64_t n = 100003;  // several blocks: counter and partials in use
    const HostState<double> start = random_state<double>(n, 90);
    // The iteration's five kernels (v and t stay the random ones: no SpMV in the graph).
    expect_graph_matches_direct(
        start, {Op::p_update, Op::alpha_dot, Op::s_update, Op::omega_dot, Op::xr_update});
    // init: its counter memset is captured too.
    expect_graph_matches_direct(start, {Op::init});
}

TEST(BicgstabKernelsGpuSequence, ZeroLengthDoesNotCrash)
{
    KBENCH_REQUIRE_GPU();
    const cuda_stream stream;
    device_buffer<DeviceScalars<double>> sc(std::vector<DeviceScalars<double>>(1));
    ASSERT_EQ(workspace_bytes(0), 0u);
    init<double>(0, nullptr, nullptr, nullptr, nullptr, sc.data(), nullptr, 0, stream);
    p_update<double>(0, nullptr, nullptr, nullptr, sc.data(), stream);
    s_update<double>(0, nullptr, nullptr, nullptr, sc.data(), stream);
    omega_dot<double>(0, nullptr, nullptr, sc.data(), nullptr, 0, stream);
    xr_update<double>(0, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, sc.data(), nullptr,
                      0, stream);
    stream.synchronize();
    DeviceScalars<double> got = sc.to_host()[0];
    EXPECT_EQ(got.rr, 0.0);
    EXPECT_EQ(got.tt, 0.0);
    EXPECT_EQ(got.omega, 0.0);
    EXPECT_EQ(got.status, status_of(DeviceStatus::ok));  // empty system: converged
    alpha_dot<double>(0, nullptr, nullptr, sc.data(), nullptr, 0, stream);
    stream.synchronize();
    got = sc.to_host()[0];
    EXPECT_EQ(got.rhat_v, 0.0);
    EXPECT_EQ(got.status, status_of(DeviceStatus::rhat_v_zero));
}

}  // namespace
}  // namespace kbench::bicgstab
