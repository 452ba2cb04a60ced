// Running kbench under Nsight Compute (ncu) and adding up what it measured: the one path of
// `kbench profile <benchmark>` (harness/bench/bench_profile.hpp) and of any study that measures
// DRAM bytes of its kernels. Each re-runs this executable under ncu with
// kernel replay (ncu's default: every kernel launch inside the selected NVTX ranges is profiled
// on its own, replayed once per metric pass, caches flushed before each pass), read its CSV
// (ncu_csv.hpp) and sum the DRAM bytes and durations of the kernels.
//
// The NVTX range of a benchmark: each kernel-family benchmark (`kbench bench <family>`) makes
// its warm-up call, the one call of a point that is not timed, inside a push/pop range of
// kbench's NVTX domain ("kbench", kernels/base/nvtx.hpp) named profile_range_name(<benchmark
// name>). ncu's NVTX filter separates nested push/pop ranges with '/' and a domain from its
// range with '@', so a name "dot/mdot/double/n=1000000/k=8" is named in the range as
// "dot:mdot:double:n=1000000:k=8" (every '/' becomes ':'; '@', '[', ']', '*', ',', '\\', '"'
// and whitespace become '_').
#pragma once

#include "harness/core/ncu_csv.hpp"

#include <string>
#include <vector>

namespace kbench::harness {

/// The DRAM metrics every profile reads (bytes) and the kernel duration (seconds).
inline constexpr const char* ncu_dram_read = "dram__bytes_read.sum";
inline constexpr const char* ncu_dram_write = "dram__bytes_write.sum";
inline constexpr const char* ncu_duration = "gpu__time_duration.sum";

/// The NVTX range name of the benchmark `benchmark_name` (see the file comment for the
/// mapping). Throws std::invalid_argument for an empty name.
std::string profile_range_name(const std::string& benchmark_name);

/// ncu's --nvtx-include expression selecting every kernel launched inside that range of
/// kbench's domain: "kbench@<profile_range_name>/".
std::string profile_nvtx_include(const std::string& benchmark_name);

/// What ncu profiles and reports.
struct NcuRequest {
    std::string ncu = "ncu";                 // the Nsight Compute CLI
    std::vector<std::string> nvtx_include;   // --nvtx-include expressions
    std::vector<std::string> nvtx_exclude;   // --nvtx-exclude expressions
    bool rename_by_range = false;            // --print-nvtx-rename kernel: "<range>/<kernel>"
    std::vector<std::string> metrics;        // --metrics (comma-joined)
    std::vector<std::string> sections;       // one --section each
};

/// The ncu command line profiling `child` (this executable and its arguments): ncu --nvtx, the
/// include and exclude filters, [--print-nvtx-rename kernel], --metrics <metrics joined by
/// ','>, --section <s> per section, --clock-control none (the GPU's own clocks, as in the
/// timed runs), --print-units base, --csv, then child. No --launch-count: every kernel inside
/// the filter is profiled. Throws std::invalid_argument for an empty child or no metric and
/// no section.
std::vector<std::string> ncu_argv(const NcuRequest& request,
                                  const std::vector<std::string>& child);

/// Runs ncu_argv(request, child) (the command echoed on stderr), captures its output and
/// parses it (parse_ncu_csv, non-numeric values kept as text when request.sections is not
/// empty); no kernel (empty) when ncu printed no CSV header, i.e. profiled nothing. Throws
/// std::runtime_error naming `who`, ncu's exit status and its output when ncu fails or its CSV
/// does not parse.
std::vector<NcuKernel> run_ncu(const NcuRequest& request, const std::vector<std::string>& child,
                               const std::string& who);

/// Sums of the base metrics over a set of profiled kernels: DRAM bytes read and written,
/// seconds of kernel duration, and the number of kernels (a metric a kernel lacks counts 0).
struct NcuTotals {
    double bytes_read = 0.0, bytes_written = 0.0, seconds = 0.0;
    int kernels = 0;
    void add(const NcuKernel& k);
};

/// NcuTotals over every kernel of `kernels`.
NcuTotals sum_kernels(const std::vector<NcuKernel>& kernels);

}  // namespace kbench::harness
