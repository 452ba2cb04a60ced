// Host and device costs of enqueued ops (harness/core/op_cost.hpp): an empty kernel and kbench's
// launchers give positive, plausible figures, and a spin kernel's device time is what it spins
// (GPU tests: skipped, never passed, without a GPU); bad arguments throw before any CUDA call.
#include "harness/core/op_cost.hpp"

#include "kernels/base/cuda_handles.hpp"
#include "kernels/test/expect_invalid.hpp"
#include "kernels/test/gpu_test.hpp"

#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

namespace kbench::harness {
namespace {

__global__ void nothing() {}

/// One thread waits `ns` nanoseconds on the global timer.
__global__ void wait_ns(unsigned long long ns)
{
    unsigned long long t0 = 0, t = 0;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    } while (t - t0 < ns);
}

TEST(OpCostGpu, AnEmptyKernelCostsMicrosecondsOnBothSides)
{
    KBENCH_REQUIRE_GPU();
    cuda_stream s;
    const OpCost c =
        measure_op_cost([](cudaStream_t q) { nothing<<<1, 1, 0, q>>>(); }, s.get());
    EXPECT_GT(c.host_us, 0.0);
    EXPECT_LT(c.host_us, 100.0);
    EXPECT_GT(c.device_us, 0.0);
    EXPECT_LT(c.device_us, 100.0);
}

TEST(OpCostGpu, TheDeviceTimeOfAKernelIsItsOwnBackToBack)
{
    KBENCH_REQUIRE_GPU();
    cuda_stream s;
    // 20 us kernels: 20-30 us each on the device whatever the host's enqueue time.
    const OpCost c =
        measure_op_cost([](cudaStream_t q) { wait_ns<<<1, 1, 0, q>>>(20000); }, s.get(), 16, 3);
    EXPECT_GE(c.device_us, 20.0);
    EXPECT_LT(c.device_us, 30.0);
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

TEST(OpCost, BadArgumentsThrowBeforeAnyCudaCall)
{
    const auto op = [](cudaStream_t) {};
    test::expect_invalid([&] { measure_op_cost(op, nullptr, 0); }, {"calls = 0"});
    test::expect_invalid([&] { measure_op_cost(op, nullptr, 4, 0); }, {"samples = 0"});
    test::expect_invalid([] { measure_launch_figures(0, nullptr); }, {"n = 0"});
}

}  // namespace
}  // namespace kbench::harness
