// Host and device costs of enqueued ops (harness/core/op_cost.hpp): an empty kernel, kbench's
// launchers and cuBLAS's calls give positive, plausible figures, and a spin kernel's device time
// is what it spins (GPU tests: skipped, never passed, without a GPU); bad arguments throw before
// any CUDA call.
#include "harness/core/op_cost.hpp"

#include "kernels/base/cuda_handles.hpp"
#include "kernels/base/device.hpp"
#include "kernels/idle_kernels.hpp"
#include "kernels/test/expect_invalid.hpp"
#include "kernels/test/gpu_test.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cuda_runtime_api.h>

#include <cmath>

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

// cuBLAS's calls at two sizes: every time positive, and 4M doubles take longer than 4k (the
// bytes, 64 MB or more per call, dwarf the launch); a copy moves no more than an axpy; an axpy
// going round vectors that L2 cannot hold (reuse distance 1 GB) is no faster than one reusing a
// pair. Not the dot: cuBLAS's sdot over 4M floats runs at ~2 TB/s, below both the L2 and the
// device-memory rate, so its cold and hot times agree only within noise (15.1 vs 17.2 us, an
// H200).
TEST(OpCostGpu, CublasCallTimesGrowWithTheVectors)
{
    KBENCH_REQUIRE_GPU();
    cuda_stream s;
    const CublasCallTimes small = measure_cublas_call_times<double>(4096, 0, s.get());
    const CublasCallTimes large = measure_cublas_call_times<double>(1 << 22, 0, s.get());
    const CublasCallTimes single = measure_cublas_call_times<float>(1 << 22, 0, s.get());
    const CublasCallTimes cold = measure_cublas_call_times<float>(1 << 22, 1e9, s.get());
    for (const CublasCallTimes* t : {&small, &large, &single, &cold}) {
        for (double us : {t->axpy_us, t->scal_us, t->copy_us, t->dot_us, t->dot_self_us,
                          t->nrm2_us})
            EXPECT_GT(us, 0.0);
    }
    EXPECT_GT(large.axpy_us, 2 * small.axpy_us);
    EXPECT_GT(large.dot_us, 2 * small.dot_us);
    EXPECT_LE(large.copy_us, 1.2 * large.axpy_us);
    EXPECT_GE(cold.axpy_us, 0.95 * single.axpy_us);
    const nlohmann::json j = large;
    EXPECT_DOUBLE_EQ(j.get<CublasCallTimes>().dot_self_us, large.dot_self_us);
    EXPECT_EQ(large.pairs, 1);
    EXPECT_GT(cold.pairs, 1);
    EXPECT_EQ(nlohmann::json(cold).get<CublasCallTimes>().pairs, cold.pairs);
}

// The pairs: one where the solver's bytes stay in L2, enough to span twice the L2 size
// otherwise, at most 64.
TEST(OpCostGpu, CublasCallPairsSpanTheReuseDistance)
{
    KBENCH_REQUIRE_GPU();
    const double l2 = static_cast<double>(l2_cache_bytes());
    EXPECT_EQ(cublas_call_pairs(1 << 20, 8, 0), 1);
    EXPECT_EQ(cublas_call_pairs(1 << 20, 8, 16.0 * (1 << 20)), 1);  // one pair's bytes
    EXPECT_EQ(cublas_call_pairs(1 << 20, 8, 16.0 * (1 << 20) + 1), 2);
    const int far = cublas_call_pairs(1 << 20, 8, 1e12);  // capped at 2 L2
    EXPECT_EQ(far, static_cast<int>(std::ceil(2 * l2 / (16.0 * (1 << 20)))));
    EXPECT_EQ(cublas_call_pairs(16, 4, 1e12), 64);
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
    test::expect_invalid([] { measure_cublas_call_times<double>(0, 0, nullptr); }, {"n = 0"});
    test::expect_invalid([] { measure_cublas_call_times<double>(8, -1, nullptr); },
                         {"reuse_distance_bytes = -1", ">= 0"});
}

}  // namespace
}  // namespace kbench::harness
