// The results file: Google Benchmark's JSON schema plus kbench's context (schema version 1):
// context.kbench = {schema_version, argv, id, git, gpu, machine, cache_mode, matrix_set,
// matrices}; each benchmark gets a "kbench" object {study, kernel, precision, matrix, params}.
#pragma once

#include "harness/git_info.hpp"
#include "harness/machine.hpp"
#include "kernels/base/device.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace kbench {
/// gpu section of the context: every field of device_info except the ordinal.
void to_json(nlohmann::json& j, const device_info& d);
}  // namespace kbench

namespace kbench::harness {

inline constexpr int results_schema_version = 1;

void to_json(nlohmann::json& j, const MachineProfile& m);
void to_json(nlohmann::json& j, const GitInfo& g);

/// Google Benchmark's own context object (date, host_name, executable, num_cpus, mhz_per_cpu,
/// caches, load_avg, library_build_type, ...), as its JSONReporter writes it. Requires
/// benchmark::Initialize to have run (it sets the executable name); sets "kbench" when not.
nlohmann::json benchmark_context();

/// A results document: {"context": benchmark_context() + kbench_schema_version + {"kbench":
/// kbench_context}, "benchmarks": []}. `kbench_context` gets "schema_version" added.
nlohmann::json make_results_document(nlohmann::json kbench_context);

/// Parses a Google Benchmark JSONReporter output. Its non-JSON number spellings NaN, -NaN,
/// Infinity and -Infinity (e.g. the "cv" aggregate of a counter whose mean is 0) become null.
/// Throws nlohmann::json::parse_error for other malformed text.
nlohmann::json parse_benchmark_json(const std::string& text);

/// Appends the entries of run_output["benchmarks"] (one JSONReporter output) to
/// doc["benchmarks"]. Throws std::invalid_argument when run_output has no "benchmarks" array.
void append_benchmarks(nlohmann::json& doc, const nlohmann::json& run_output);

/// Seconds of a benchmark entry's real_time given its time_unit (ns, us, ms, s). Throws
/// std::invalid_argument for a missing time or an unknown unit.
double real_time_seconds(const nlohmann::json& benchmark);

/// Recomputes the rate counters of the "median" and "mean" aggregates from their own time:
/// GBps = (bytes_read + bytes_written) / time * 1e-9, GFlops = flops / time * 1e-9 and
/// bw_frac_read / bw_frac_triad = GBps / machine read / triad GB/s (left out when the machine
/// rate is 0). Google Benchmark's aggregate of a rate counter is the median (mean) of the
/// per-repetition rates, which for an even repetition count differs from bytes / median time.
/// Entries without bytes counters (errors) are left alone.
void fix_aggregate_rates(nlohmann::json& doc, const MachineProfile& machine);

/// Writes `doc` pretty-printed (indent 2) to `path`, creating parent directories. Throws
/// std::runtime_error naming the path when it cannot be written.
void write_json_file(const nlohmann::json& doc, const std::string& path);

}  // namespace kbench::harness
