// The launch pipeline of models/launch_pipeline.hpp, op by op on hand-checked sequences.
#include "models/launch_pipeline.hpp"

#include "kernels/test/expect_invalid.hpp"

#include <gtest/gtest.h>

namespace kbench::models {
namespace {

// Launch 2 us, sync round trip 10 us (wake-up 10 - 2 - 1 = 7 us), fixed 3 us per streaming
// kernel and 5 us per reduction, node 1 us.
const LaunchCosts costs{2e-6, 1e-5, 3e-6, 5e-6, 1e-6};

TEST(LaunchPipeline, ShortKernelsWaitForTheirLaunches)
{
    LaunchTimeline tl(costs);
    tl.kernel(0);  // host 2, device 2 -> 3
    tl.kernel(0);  // host 4, device 4 -> 5
    EXPECT_DOUBLE_EQ(tl.seconds(), 5e-6);
    tl.synchronize();  // host max(4, 5) + 7 = 12
    EXPECT_DOUBLE_EQ(tl.seconds(), 12e-6);
    EXPECT_EQ(tl.launches(), 2);
    EXPECT_EQ(tl.syncs(), 1);
}

TEST(LaunchPipeline, ALongKernelLetsTheHostRunAhead)
{
    LaunchTimeline tl(costs);
    tl.kernel(20e-6);  // host 2, device 2 -> 25
    tl.kernel(1e-6);   // host 4, device 25 -> 29
    tl.kernel(0);      // host 6, device 29 -> 30
    EXPECT_DOUBLE_EQ(tl.seconds(), 30e-6);
    tl.host(5e-6);  // host 11: hidden behind the queue
    EXPECT_DOUBLE_EQ(tl.seconds(), 30e-6);
    tl.synchronize();  // host 30 + 7
    tl.host(5e-6);     // after a sync: adds
    EXPECT_DOUBLE_EQ(tl.seconds(), 42e-6);
    EXPECT_DOUBLE_EQ(tl.work_seconds(), 31e-6);
}

TEST(LaunchPipeline, AReductionIsOneKernelWithItsFixedCost)
{
    LaunchTimeline tl(costs);
    tl.reduction(10e-6);  // host 2, device 2 -> 2 + 5 + 10 = 17
    EXPECT_DOUBLE_EQ(tl.seconds(), 17e-6);
    EXPECT_EQ(tl.launches(), 1);
    EXPECT_DOUBLE_EQ(tl.work_seconds(), 10e-6);
    LaunchCosts small = costs;
    small.reduction_fixed_s = 0.5e-6;  // below an empty kernel: node_s
    LaunchTimeline t2(small);
    t2.reduction(0);
    EXPECT_DOUBLE_EQ(t2.seconds(), 3e-6);  // host 2, device 2 -> 3
}

TEST(LaunchPipeline, MeasuredHostCostsReplaceTheLaunchLatency)
{
    LaunchCosts measured = costs;
    measured.reduction_launch_s = 4e-6;
    measured.copy_launch_s = 0.5e-6;
    measured.sync_tail_s = 12e-6;
    LaunchTimeline tl(measured);
    tl.reduction(0);  // host 4, device 4 -> 9
    tl.copy();        // host 4.5, device 9 -> 10
    EXPECT_DOUBLE_EQ(tl.seconds(), 10e-6);
    tl.synchronize();  // host max(10 + 7, 4.5 + 12) = 17
    EXPECT_DOUBLE_EQ(tl.seconds(), 17e-6);
    tl.kernel(0);  // host 19 (launch_s), device 19 -> 20
    tl.copy();     // host 19.5, device 20 -> 21
    tl.synchronize();  // host max(21 + 7, 19.5 + 12) = 31.5: the tail on an idle device
    EXPECT_DOUBLE_EQ(tl.seconds(), 31.5e-6);
    EXPECT_EQ(tl.launches(), 4);
    // Not measured (0): a copy costs launch_s, a sync the wake-up alone.
    LaunchTimeline plain(costs);
    plain.copy();       // host 2, device 2 -> 3
    plain.synchronize();  // 3 + 7
    EXPECT_DOUBLE_EQ(plain.seconds(), 10e-6);
    LaunchCosts bad = costs;
    bad.sync_tail_s = -1;
    test::expect_invalid([&] { LaunchTimeline{bad}; }, {"sync_tail_s = -1"});
}

TEST(LaunchPipeline, LaunchedOpsLeaveAGapOnTheDevice)
{
    LaunchCosts launched = costs;
    launched.stream_node_s = 1.5e-6;  // 0.5 us more than a graph node
    LaunchTimeline tl(launched);
    tl.kernel(20e-6);  // host 2, device 2 -> 2 + 3 + 20 + 0.5 = 25.5
    tl.kernel(1e-6);   // host 4, device 25.5 -> 30
    tl.copy();         // host 6, device 30 -> 31.5
    EXPECT_DOUBLE_EQ(tl.seconds(), 31.5e-6);
}

TEST(LaunchPipeline, AnOpOfGivenCostsAndTheDeviceBusyTime)
{
    LaunchCosts launched = costs;
    launched.stream_node_s = 1.5e-6;
    LaunchTimeline tl(launched);
    tl.op(4e-6, 10e-6);  // host 4, device 4 -> 4 + 10 + 0.5 = 14.5
    tl.op(1e-6, 0.2e-6);  // at least a node: host 5, device 14.5 -> 14.5 + 1 + 0.5 = 16
    tl.kernel(0);         // host 7, device 16 -> 17.5
    EXPECT_DOUBLE_EQ(tl.seconds(), 17.5e-6);
    EXPECT_DOUBLE_EQ(tl.busy_seconds(), 10.5e-6 + 1.5e-6 + 1.5e-6);
    EXPECT_DOUBLE_EQ(tl.work_seconds(), 10.2e-6);
    test::expect_invalid([&] { tl.op(-1, 0); }, {"host_s"});
    test::expect_invalid([&] { tl.op(0, 1.0 / 0.0); }, {"device_s"});
}

TEST(LaunchPipeline, WithoutLatenciesItIsTheWork)
{
    LaunchTimeline tl(LaunchCosts{});
    tl.kernel(1e-6);
    tl.synchronize();
    tl.host(2e-6);
    tl.kernel(3e-6);
    EXPECT_DOUBLE_EQ(tl.seconds(), 6e-6);
    EXPECT_DOUBLE_EQ(tl.work_seconds(), 6e-6);
}

TEST(LaunchPipeline, BadCostsNameTheParameter)
{
    test::expect_invalid([] { LaunchTimeline(LaunchCosts{-1, 0, 0, 0, 0}); }, {"launch_s = -1"});
    LaunchTimeline tl(costs);
    test::expect_invalid([&] { tl.kernel(-1); }, {"work_s"});
    test::expect_invalid([&] { tl.host(0.0 / 0.0); }, {"seconds"});
}

}  // namespace
}  // namespace kbench::models
