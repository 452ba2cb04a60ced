// `kbench profile <benchmark name>` for a benchmark of any family of `kbench bench`: the names
// it accepts, the ncu command line (harness/core/ncu_profile.hpp) that re-runs kbench on exactly
// that benchmark, and the report of what Nsight Compute measured next to the traffic model.
//
// What is profiled: the benchmark's warm-up call, made inside the NVTX range
// profile_range_name(<name>) of kbench's domain (kernel_bench.hpp, profiled_warm_up). It is
// one call of the point, untimed, on the data the timed calls use; it may launch several
// kernels (dot's k cuBLAS calls, a two-stage reduction, the kernels of a TSQR, SELL-P's
// long-row pass) and every one of them is profiled (kernel replay, no --launch-count). The
// report sums dram__bytes_read.sum, dram__bytes_write.sum and gpu__time_duration.sum over them
// and puts the sums next to the benchmark entry's model bytes (bytes_read, bytes_written). Kernel
// replay flushes the caches before each kernel, so data that consecutive kernels of one call
// share through L2 is counted once per kernel (the models count such calls alike: dot's
// k x (2n reads)). Range replay (one measurement of the whole call) is not used: it refuses
// ranges with host synchronization (cuBLAS in host pointer mode, the Gram-based TSQRs) and
// gives no per-kernel table.
#pragma once

#include "harness/core/ncu_profile.hpp"
#include "harness/core/study_context.hpp"
#include "models/spmv_traffic.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace kbench::harness {

/// A benchmark name of `kbench bench <family>` in its parts.
struct BenchmarkName {
    std::string family, variant, precision;
    std::int64_t n = 0;  // n=<n> (0: the family has none)
    int k = 0;           // k=<k> (0: the family has none)
    std::string matrix;  // spmv, spmm: the matrix of the set
};

/// The families `kbench profile` accepts, in the order of `kbench list --kernels`.
std::vector<std::string> profile_families();

/// Parses a benchmark name of any family:
///   spmv/<kernel>/<precision>/<matrix>
///   spmm/<kernel>/<precision>/<matrix>/k=<k>
///   dot|tall-skinny|tsqr/<variant>/<precision>/n=<n>/k=<k>
///   stream|bicgstab-kernels/<variant>/<precision>/n=<n>
/// Throws std::invalid_argument naming the benchmark name and what was expected for an unknown
/// family (listing them), an unknown variant (listing the family's), a precision other than
/// double or float, or a part not of the family's form (n and k positive integers).
BenchmarkName parse_benchmark_name(const std::string& name);

/// Escapes the regex metacharacters of `text` (ECMAScript) so it matches literally.
std::string regex_escape(const std::string& text);

/// What `kbench profile` was asked.
struct ProfileOptions {
    std::string name;     // the benchmark name
    MatrixSource source;  // spmv, spmm: the matrix set and directory
    std::string ncu = "ncu";
    std::string metrics;  // --metrics: extra ncu sections and metrics, comma-separated
};

/// The ncu request of `o`: the range of o.name (profile_nvtx_include), the three base metrics,
/// and o.metrics split at ',': an item with "__" in it or starting with "regex:" is a metric
/// (--metrics), any other a section (--section, e.g. SpeedOfLight). Throws
/// std::invalid_argument naming --metrics for an empty item.
NcuRequest profile_request(const ProfileOptions& o);

/// The `kbench` arguments (after the executable) that run exactly benchmark `b` named `name`:
/// bench <family> [--kernels <variant>] [--n <n>] [--k <k>] --precision <p> --filter
/// ^<name escaped>$ --repetitions 1 --min-time 0 --no-machine --json <json_out>, and for the
/// families over a matrix set (spmv, spmm: --kernels) the matrix source of `source` (--set,
/// --matrix-dir, --real).
std::vector<std::string> profile_bench_args(const BenchmarkName& b, const std::string& name,
                                            const MatrixSource& source,
                                            const std::string& json_out);

/// The program ncu runs: [self, profile_bench_args(parse_benchmark_name(o.name), o.name,
/// o.source, json_out)...]. Throws as parse_benchmark_name.
std::vector<std::string> profile_child(const ProfileOptions& o, const std::string& self,
                                       const std::string& json_out);

/// The whole ncu command line: ncu_argv(profile_request(o), profile_child(o, self, json_out)).
/// Throws as parse_benchmark_name and profile_request.
std::vector<std::string> ncu_command(const ProfileOptions& o, const std::string& self,
                                     const std::string& json_out);

/// The model traffic of benchmark `name` in the results document of the profiled run: its
/// entry's bytes_read and bytes_written. Throws std::runtime_error naming the benchmark when
/// the document has no entry of that run_name, or with the entry's error message when it is an
/// error entry (e.g. the CPU-reference check failed).
models::Traffic model_traffic(const nlohmann::json& doc, const std::string& name);

/// The report: the benchmark and its NVTX range, one row per profiled kernel (kernel name cut
/// to 60 characters, DRAM bytes read and written, duration in us), their total, the model's
/// bytes and measured / model; then, when `request` asks for more than the base metrics, each
/// kernel's other rows (section, metric, value, unit) as ncu printed them.
std::string format_profile_report(const std::string& name, const std::vector<NcuKernel>& kernels,
                                  const models::Traffic& model, const NcuRequest& request);

}  // namespace kbench::harness
