// `kbench profile <benchmark-name>`: measure one SpMV launch's DRAM traffic with Nsight Compute
// and compare it with the traffic model (models/spmv_traffic.hpp; anzt2015 Sec. 3.1).
#pragma once

#include "harness/core/study_context.hpp"

#include <string>
#include <vector>

namespace kbench::harness {

struct ProfileOptions {
    std::string name;    // spmv/<kernel>/<precision>/<matrix>
    MatrixSource source;
    std::string ncu = "ncu";
};

/// Escapes the regex metacharacters of `text` (ECMAScript) so it matches literally.
std::string regex_escape(const std::string& text);

/// The ncu command line that profiles exactly one launch of `name`, re-running `self` (this
/// executable) as `bench spmv` and writing the benchmark results to `json_out`.
std::vector<std::string> ncu_command(const ProfileOptions& options, const std::string& self,
                                     const std::string& json_out);

/// Runs the profile and prints measured vs model bytes; returns the exit code. Throws
/// std::invalid_argument for a malformed benchmark name, std::runtime_error when ncu fails or
/// its output has no kernel.
int run_profile(const ProfileOptions& options);

}  // namespace kbench::harness
