// The results file: Google Benchmark's JSON schema plus kbench's context (schema version 1):
// context.kbench = {schema_version, argv, id, git, gpu, machine, cache_mode, matrix_set,
// matrices}; each benchmark gets a "kbench" object {study, kernel, precision, matrix, params}.
#pragma once

#include "harness/core/git_info.hpp"
#include "harness/core/machine.hpp"
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

/// Whether the member of a results document at `where` (or one it lies in) describes the run
/// rather than its results: every member of "/context" but "kbench" and "kbench_schema_version"
/// (Google Benchmark's date, host, executable, CPUs, caches, load, library build, ...), and of
/// "/context/kbench": "argv", "git" (sha, dirty), "gpu", "machine" (the profile measured at
/// the start), "run_seconds" (a study's own timing of its run), "matrix_set/manifest" and
/// "matrix_set/matrix_dir" (paths on the machine that ran). Everything else (id, schema
/// versions, matrices, the study's parameters, the benchmarks) is the results.
bool is_run_context(const nlohmann::json::json_pointer& where);

/// `doc` without the members where is_run_context holds (members that are absent are fine).
nlohmann::json without_run_context(nlohmann::json doc);

/// True when `a` and `b` hold the same results and differ at most in their run context
/// (without_run_context(a) == without_run_context(b); numbers compare by value, so the stored
/// file, read back, equals the document it was written from).
bool same_results_but_for_context(const nlohmann::json& a, const nlohmann::json& b);

/// Writes `doc` pretty-printed (indent 2) to `path`, creating parent directories, atomically:
/// through the temporary file .<name>.<pid>.tmp beside it, renamed over `path` once complete, so
/// that a process killed mid-way leaves `path` as it was or complete. Throws std::runtime_error
/// naming the path when `doc` cannot be serialized (a string that is not UTF-8) or the file
/// cannot be written; `path` is then as it was and the temporary file removed.
void write_json_file(const nlohmann::json& doc, const std::string& path);

/// Removes the temporary files that atomic writes (write_json_file; analysis/report.py's
/// writer of table.md and figure.png) left in `dir` when their process was killed: files
/// .<name>.<pid>.tmp whose process no longer runs. Returns how many it removed. Never throws.
int remove_stale_temp_files(const std::string& dir);

/// Whether the results document `doc` was done at commit `head` and is to be kept by `kbench
/// reproduce --resume`: head is a known commit with a clean tree, doc's context.kbench.git
/// names the same sha with dirty false, its context.kbench.gpu.name is `gpu_name` (ids that need
/// a GPU; "" for those that need none, whose results are the same on any machine), and its
/// context.kbench.shared_gpus (absent: 0) is `shared_gpus` (a KBENCH_SHARE_GPUS dry run is done
/// only for a dry run). False for anything else, a doc that is not an object included. Never
/// throws.
bool done_at(const nlohmann::json& doc, const GitInfo& head, const std::string& gpu_name,
             int shared_gpus);

/// What keep_or_write_results did.
enum class StoreOutcome { written, kept };

/// Writes `doc` to `path` as write_json_file does, unless `path` already holds a results
/// document with the same results (same_results_but_for_context): then the stored file is kept
/// byte-for-byte (its run context stays that of the run that wrote it). A missing or unreadable
/// stored file, or one that is not JSON, is overwritten. For machine-independent results (the
/// reproductions that need no GPU), so that re-running them leaves a checkout clean unless
/// the results changed. Throws as write_json_file.
StoreOutcome keep_or_write_results(const nlohmann::json& doc, const std::string& path);

}  // namespace kbench::harness
