// Names the harness accepts: the shape of reproduction ids, SpMV kernels, precisions, benchmark
// names, and the results layout results/<gpu-slug>/<study>/<item>/ that maps an id to a
// directory. The reproductions themselves are registered by their studies (study.hpp).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace kbench::harness {

/// Splits "<study>/<item>" into its two parts. Throws std::invalid_argument when the id does
/// not have exactly one '/' with non-empty parts on both sides.
std::pair<std::string, std::string> split_id(const std::string& id);

/// The SpMV kernels a benchmark can run: spmv::kernel_names() (ours and the cuSPARSE
/// baselines, kernels/spmv_policy.hpp) followed by "auto", the operator's own choice.
const std::vector<std::string>& spmv_kernels();

/// Parses a comma-separated kernel list ("csr_scalar,sellp"); empty = all kernels. Throws
/// std::invalid_argument naming the unknown kernel and listing the valid ones; duplicates are
/// dropped, order follows the input.
std::vector<std::string> parse_kernel_list(const std::string& list);

/// "double", "float" or "both" -> the precisions to run. Throws std::invalid_argument otherwise.
std::vector<std::string> parse_precision(const std::string& precision);

/// Benchmark name "spmv/<kernel>/<precision>/<matrix>".
std::string spmv_benchmark_name(const std::string& kernel, const std::string& precision,
                                const std::string& matrix);

/// Parts of a benchmark name.
struct SpmvBenchmarkName {
    std::string kernel, precision, matrix;
};

/// Parses "spmv/<kernel>/<precision>/<matrix>" (an optional "_median"/"_mean"/... aggregate
/// suffix is not accepted). Throws std::invalid_argument for another shape, an unknown kernel or
/// precision, listing the valid values.
SpmvBenchmarkName parse_spmv_benchmark_name(const std::string& name);

/// GPU name with every character that is not [A-Za-z0-9] replaced by '_' ("NVIDIA H200" ->
/// "NVIDIA_H200"). Throws std::invalid_argument for an empty name.
std::string gpu_slug(const std::string& gpu_name);

/// results_root/<gpu-slug>/<study>/<item> for a reproduction id.
std::string results_dir(const std::string& results_root, const std::string& gpu_name,
                        const std::string& id);

/// Joins names as "a, b, c" for error messages.
std::string join(const std::vector<std::string>& names, const std::string& sep = ", ");

}  // namespace kbench::harness
