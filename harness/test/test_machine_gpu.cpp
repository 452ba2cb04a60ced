// The machine profile (harness/core/machine.hpp) on a GPU: every figure the models divide by or
// add is measured, positive and of a plausible size (GPU test: skipped, never passed, without
// a GPU).
#include "harness/core/machine.hpp"

#include "kernels/test/gpu_test.hpp"

#include <gtest/gtest.h>

#include <iostream>

namespace kbench::harness {
namespace {

TEST(MachineGpu, EveryFigureIsMeasured)
{
    KBENCH_REQUIRE_GPU();
    const MachineProfile m = measure_machine();
    EXPECT_GT(m.read_gbps, 100.0);
    EXPECT_GT(m.triad_gbps, 100.0);
    EXPECT_GT(m.launch_latency_us, 0.0);
    EXPECT_GT(m.graph_node_us, 0.0);
    // Bounds catch a wrong unit, not a slow machine: under compute-sanitizer memcheck a replayed
    // node measured 32 us on an H200 (0.5 us without).
    EXPECT_LT(m.graph_node_us, 200.0);
    // A WHILE node's iteration beyond its body: at least 0, at most a few launches' worth.
    EXPECT_GE(m.graph_while_iteration_us, 0.0);
    EXPECT_LT(m.graph_while_iteration_us, 500.0);
    EXPECT_GT(m.kernel_fixed_us + m.reduction_fixed_us, 0.0);
    EXPECT_GT(m.dgemm_gflops, 0.0);
    EXPECT_GT(m.spmv.sm_count, 0);
    print_machine_profile(std::cout, m);  // the figures, for the log
}

}  // namespace
}  // namespace kbench::harness
