// Host and device costs of enqueued ops (harness/core/op_cost.hpp): an empty kernel, kbench's
// launchers and cuBLAS's calls give positive, plausible figures, and a spin kernel's device time
// is what it spins (GPU tests: skipped, never passed, without a GPU); bad arguments throw before
// any CUDA call.
#include "harness/core/op_cost.hpp"

#include "kernels/base/cuda_handles.hpp"
#include "kernels/idle_kernels.hpp"
#include "kernels/test/expect_invalid.hpp"
#include "kernels/test/gpu_test.hpp"

#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

namespace kbench::harness {
namespace {

TEST(OpCostGpu, AnEmptyKernelCostsMicrosecondsOnBothSides)
{
    KBENCH_REQUIRE_GPU();
    cuda_stream s;
    const OpCost c = measure_op_cost(launch_empty_kernel, s.get());
    EXPECT_GT(c.host_us, 0.0);
    EXPECT_LT(c.host_us, 100.0);
    EXPECT_GT(c.device_us, 0.0);
    EXPECT_LT(c.device_us, 100.0);
}

TEST(OpCostGpu, TheDeviceTimeOfAKernelIsItsOwnBackToBack)
{
    KBENCH_REQUIRE_GPU();
    cuda_stream s;
    // 20 us kernels: 20-40 us each on the device whatever the host's enqueue time (33.8 us was
    // measured under compute-sanitizer memcheck on an H200).
    const OpCost c =
        measure_op_cost([](cudaStream_t q) { launch_spin_kernel(20000, q); }, s.get(), 16, 3);
    EXPECT_GE(c.device_us, 20.0);
    EXPECT_LT(c.device_us, 40.0);
}

TEST(OpCostGpu, LaunchFiguresOfKbenchsLaunchersArePositive)
{
    KBENCH_REQUIRE_GPU();
    cuda_stream s;
    for (const std::int64_t n : {1, 1000, 1000000}) {
        SCOPED_TRACE(n);
        const LaunchFigures f = measure_launch_figures(n, s.get());
        EXPECT_GT(f.kernel_us, 0.0);
        EXPECT_GT(f.reduction_us, 0.0);
        EXPECT_GT(f.copy_us, 0.0);
        EXPECT_GE(f.sync_tail_us, 0.0);
        EXPECT_GT(f.stream_node_us, 0.0);
        EXPECT_LT(f.kernel_us + f.reduction_us + f.copy_us + f.sync_tail_us, 1000.0);
    }
}

TEST(OpCostGpu, CublasLaunchFiguresArePositive)
{
    KBENCH_REQUIRE_GPU();
    cuda_stream s;
    for (const std::int64_t n : {1, 1000, 1000000}) {
        SCOPED_TRACE(n);
        for (const LaunchFigures& f : {measure_cublas_launch_figures<double>(n, s.get()),
                                       measure_cublas_launch_figures<float>(n, s.get())}) {
            EXPECT_GT(f.kernel_us, 0.0);
            EXPECT_GT(f.reduction_us, 0.0);
            EXPECT_EQ(f.copy_us, 0.0);
            EXPECT_GT(f.sync_tail_us, 0.0);  // a dot returning to the host waits for the device
            EXPECT_GT(f.stream_node_us, 0.0);
            EXPECT_LT(f.kernel_us + f.reduction_us + f.sync_tail_us, 1000.0);
        }
    }
}

TEST(OpCost, BadArgumentsThrowBeforeAnyCudaCall)
{
    const auto op = [](cudaStream_t) {};
    test::expect_invalid([&] { measure_op_cost(op, nullptr, 0); }, {"calls = 0"});
    test::expect_invalid([&] { measure_op_cost(op, nullptr, 4, 0); }, {"samples = 0"});
    test::expect_invalid([] { measure_launch_figures(0, nullptr); }, {"n = 0"});
    test::expect_invalid([] { measure_cublas_launch_figures<double>(0, nullptr); }, {"n = 0"});
    test::expect_invalid([] { measure_cublas_launch_figures<float>(3000000000, nullptr); },
                         {"n = 3000000000", "INT_MAX"});
}

}  // namespace
}  // namespace kbench::harness
