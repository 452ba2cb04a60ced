// Checks shared by the GPU tests of `kbench bench <family>` (test_bench_families_gpu.cpp,
// test_bench_bicgstab_spmm_gpu.cpp): the fields of a timed entry and a machine profile with
// made-up bandwidths (for the bw_frac_* counters).
#pragma once

#include "harness/bench/kernel_bench.hpp"
#include "harness/core/machine.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace kbench::harness::test {

/// Asserts the fields every timed entry of a kernel family has (name, time, model counters,
/// rates, bw_frac_read, kbench object) and max_rel_error in [0, tolerance].
inline void expect_timed_entry(const nlohmann::json& e, const std::string& run_name,
                               double tolerance = 1e-8)
{
    SCOPED_TRACE(run_name);
    EXPECT_EQ(e.value("run_name", ""), run_name);
    EXPECT_EQ(e.value("name", ""), run_name + "_median");
    ASSERT_FALSE(e.value("error_occurred", false)) << e.value("error_message", "");
    for (const char* key : {"real_time", "bytes_read", "bytes_written", "flops", "GBps", "GFlops",
                            "max_rel_error", "n", "iterations", "bw_frac_read", "kbench"})
        ASSERT_TRUE(e.contains(key)) << key;
    EXPECT_GT(e["real_time"].get<double>(), 0.0);
    EXPECT_GT(e["bytes_read"].get<double>(), 0.0);
    EXPECT_GT(e["GBps"].get<double>(), 0.0);
    EXPECT_GE(e["max_rel_error"].get<double>(), 0.0);
    EXPECT_LE(e["max_rel_error"].get<double>(), tolerance);
}

/// Options of one small point per variant: sizes ns, block widths ks (empty: none), the
/// precisions, `repetitions` repetitions and no minimum time.
inline KernelBenchOptions small_options(std::vector<std::int64_t> ns, std::vector<int> ks,
                                        std::vector<std::string> precisions, int repetitions)
{
    KernelBenchOptions o;
    o.ns = std::move(ns);
    o.ks = std::move(ks);
    o.precisions = std::move(precisions);
    o.run.repetitions = repetitions;
    o.run.min_time = 0.0;
    return o;
}

/// A machine profile with read 1000 GB/s and triad 900 GB/s.
inline MachineProfile fake_machine()
{
    MachineProfile m;
    m.read_gbps = 1000.0;
    m.triad_gbps = 900.0;
    return m;
}

}  // namespace kbench::harness::test
