// `kbench profile <benchmark name>`: Nsight Compute on one benchmark of any family of `kbench
// bench` (harness/bench/bench_profile.hpp: the names, the ncu command line and the report),
// DRAM bytes read and written next to the traffic model's.
#pragma once

#include "harness/bench/bench_profile.hpp"

namespace kbench::harness {

/// Runs ncu_command(options, this executable, a temporary results file), prints
/// format_profile_report and returns the exit code (0). Throws std::invalid_argument for a
/// malformed benchmark name or --metrics; std::runtime_error when ncu fails, profiles no kernel
/// inside the benchmark's range, or the profiled run has no error-free result for it.
int run_profile(const ProfileOptions& options);

}  // namespace kbench::harness
