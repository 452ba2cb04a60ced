// The SpMV benchmarks (anzt2015 Sec. 4.1, Table 3): each kernel of spmv_kernels(), our own, the
// operator's auto choice and the cuSPARSE baselines, run through spmv::SpmvOperator over a
// matrix set, timed with CUDA events through Google Benchmark (manual time), one matrix in
// memory at a time.
#pragma once

#include "harness/core/machine.hpp"
#include "harness/core/study_context.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace kbench::harness {

struct SpmvOptions {
    MatrixSource source;
    std::vector<std::string> kernels;     // subset of spmv_kernels()
    std::vector<std::string> precisions;  // "double" and/or "float"
    RunOptions run;                       // cold, repetitions, min_time, spmv_tune/_trials
    std::string filter;                   // ECMAScript regex searched in benchmark names
    SellpParams sellp{0, 0, 0, 0};        // kernel sellp: b, t, sigma, long_row_threshold;
                                          // 0 = spmv::choose_sellp_params
};

/// Runs the SpMV benchmarks (each kernel through spmv::SpmvOperator, "auto" included) and
/// returns the results document (results_json.hpp schema) with id `id`. `machine` (may be null)
/// feeds bw_frac_read / bw_frac_triad and the auto policy's model (without it the figures are
/// measured by spmv::machine_figures()). Progress goes to stderr. Throws std::invalid_argument
/// for a bad filter regex, an unknown set or run options out of range (validate(RunOptions));
/// kbench::cuda_error on CUDA failures; the matrix readers' errors.
nlohmann::json run_spmv_study(const SpmvOptions& options, const std::string& id,
                              const MachineProfile* machine);

/// Results document of the matrix statistics only (anzt2015 Table 2): empty "benchmarks".
nlohmann::json run_stats_study(const MatrixSource& source, const std::string& id,
                               const MachineProfile* machine);

/// One line per median (or single-run) entry: name, time (us), GB/s, GFlop/s, max_rel_error.
void print_spmv_summary(const nlohmann::json& doc);

}  // namespace kbench::harness
