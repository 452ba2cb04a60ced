// BiCGSTAB solves over a matrix set (anzt2015 Sec. 5): every (form, SpMV kernel, precision) on
// every matrix, b = A * ones, x0 = 0, timed with CUDA events over repeated solves (median), the
// results document that `kbench solve bicgstab` prints and the BiCGSTAB study modules render.
#pragma once

#include "harness/machine.hpp"
#include "harness/study_context.hpp"
#include "solvers/bicgstab.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace kbench::harness {

struct BicgstabRunOptions {
    MatrixSource source;
    std::vector<solvers::BicgstabForm> forms{solvers::BicgstabForm::reference,
                                            solvers::BicgstabForm::merged,
                                            solvers::BicgstabForm::graph};
    std::vector<std::string> spmv_kernels{"cusparse_csr", "auto"};  // operator policies
    std::vector<std::string> precisions{"double"};
    solvers::BicgstabOptions solve;  // tolerance, max_iterations, timing_mode, stagnation
    int repetitions = 5;             // timed solves after one warm-up solve (median reported)
    std::string filter;              // regex searched in bicgstab/<form>/<kernel>/<prec>/<matrix>
    bool cpu_baseline = true;        // also solve with Eigen on the CPU (once)
};

/// Runs the solves and returns a results document (results_json.hpp schema) with id `id`; its
/// "benchmarks" hold one entry per solve configuration: name, form, spmv {policy, kernel,
/// params}, precision, matrix, status, detail, iterations, true_residual, error (||x - 1||_inf),
/// seconds and seconds_per_iteration (medians over the repetitions), residual_history (of the
/// first timed solve). Progress goes to stderr. Throws std::invalid_argument for a bad filter
/// regex, repetitions < 1, an unknown set or kernel; kbench::cuda_error on CUDA failures.
nlohmann::json run_bicgstab_study(const BicgstabRunOptions& options, const std::string& id,
                                  const MachineProfile* machine);

/// One line per solve: name, status, iterations, true residual, us per iteration.
void print_bicgstab_summary(const nlohmann::json& doc);

}  // namespace kbench::harness
