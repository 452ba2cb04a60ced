// BiCGSTAB solves over a matrix set (anzt2015 Sec. 5): every (form, SpMV kernel, precision) on
// every matrix, b = A * ones, x0 = 0, timed with CUDA events over repeated solves (median), the
// results document that `kbench solve bicgstab` prints and the BiCGSTAB study modules render.
#pragma once

#include "harness/core/machine.hpp"
#include "harness/core/study_context.hpp"
#include "solvers/bicgstab.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace kbench::harness {

/// One solver configuration: a form, an SpMV operator policy ("auto" or a kernel name), and
/// whether to add a detailed (per-phase) run of it.
struct BicgstabConfig {
    solvers::BicgstabForm form = solvers::BicgstabForm::merged;
    std::string spmv = "auto";
    bool detailed = false;  // also one solve with BicgstabOptions::detailed (not for graph)
};

/// Every form with every policy; `detailed` for the forms that support it (not graph).
std::vector<BicgstabConfig> cross_configs(const std::vector<solvers::BicgstabForm>& forms,
                                          const std::vector<std::string>& spmv_policies,
                                          bool detailed);

struct BicgstabRunOptions {
    MatrixSource source;
    /// Run in this order on every matrix and precision.
    std::vector<BicgstabConfig> configs =
        cross_configs({solvers::BicgstabForm::reference, solvers::BicgstabForm::merged,
                       solvers::BicgstabForm::graph},
                      {"cusparse_csr", "auto"}, false);
    std::vector<std::string> precisions{"double"};
    solvers::BicgstabOptions solve;  // tolerance, max_iterations, timing_mode, stagnation
    int repetitions = 5;             // timed solves after one short warm-up solve (median)
    std::string filter;              // regex searched in bicgstab/<form>/<kernel>/<prec>/<matrix>
    bool cpu_baseline = true;        // also solve with Eigen on the CPU (once)
    bool residual_history = true;    // store each solve's residual history (first timed solve)
};

/// Runs the solves and returns a results document (results_json.hpp schema) with id `id`.
/// Its "benchmarks" array holds entries of two kinds:
/// * "solve", one per configuration: name (bicgstab/<form>/<policy>/<precision>/<matrix>),
///   form, spmv {policy, kernel, params}, precision, matrix, n, nnz, status, detail, iterations,
///   timing_mode, true_residual, error (||x - 1||_inf), seconds and seconds_per_iteration
///   (medians over the repetitions), repetitions, residual_history (first timed solve; when
///   options.residual_history); with a
///   machine profile also "model" (models::iteration_time per iteration, seconds: total, spmv,
///   dots, updates, check, host; spmv_source "measured": the operator's back-to-back device
///   time less the stream's gap, measured in the run; launch_figures, the
///   host costs measured for it in microseconds: source "cublas" or "kbench", kernel_us,
///   reduction_us, copy_us, sync_tail_us, stream_node_us and spmv_us, harness/core/op_cost.hpp)
///   and
///   lower_bound_seconds_per_iteration (anzt2015 Table 1 bytes of the form plus both SpMVs'
///   traffic, at the measured read bandwidth). The CPU baseline has form "cpu".
/// * "phases", one per detailed configuration (bicgstab-phases/...): iterations, seconds (sum of
///   the phases), phases [{name, group, seconds, calls}] and groups {spmv, dot, p_update,
///   s_update, xr_update, check} (seconds summed over the iterations; anzt2015 Table 4).
/// Progress goes to stderr. Throws std::invalid_argument for a bad filter regex, repetitions <
/// 1, an unknown set or kernel; kbench::cuda_error on CUDA failures.
nlohmann::json run_bicgstab_study(const BicgstabRunOptions& options, const std::string& id,
                                  const MachineProfile* machine);

/// One line per solve: name, status, iterations, true residual, us per iteration.
void print_bicgstab_summary(const nlohmann::json& doc);

}  // namespace kbench::harness
