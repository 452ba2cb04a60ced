// GMRES(m) solves on one GPU over a matrix set (`kbench solve gmres`): every Arnoldi
// orthogonalization asked, with one SpMV operator policy, b = A * ones, x0 = 0, timed as a user
// calls the solver (harness/bench/solve_timing.hpp). The target for profiling a GMRES step under
// Nsight Compute: its NVTX ranges are solvers::gmres and gmres::arnoldi_step(_lowsync).
#pragma once

#include "harness/core/machine.hpp"
#include "harness/core/study_context.hpp"
#include "solvers/gmres.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace kbench::harness {

struct GmresRunOptions {
    MatrixSource source;
    /// Run in this order on every matrix.
    std::vector<solvers::ArnoldiOrth> orths{solvers::ArnoldiOrth::cgs2,
                                            solvers::ArnoldiOrth::cgs2_lowsync};
    std::string spmv = "auto";   // SpMV operator policy: auto or a kernel name
    solvers::GmresOptions solve; // restart, tolerance, max_iterations, timing_mode (orth: above)
    int repetitions = 3;         // timed solves after one untimed solve (median)
    std::string filter;          // regex searched in gmres/<orth>/<spmv>/<matrix>
};

/// Runs the solves and returns a results document (results_json.hpp schema) with id `id`; one
/// entry per (matrix, orthogonalization): name gmres/<orth>/<spmv policy>/<matrix>, orth, spmv
/// {policy, kernel}, matrix, n, nnz, restart, status, steps (Arnoldi steps), seconds (median host
/// wall time of a whole solve, seconds), seconds_per_step, true_residual (||b - A x|| / ||b||
/// recomputed on the host), repetitions. Progress goes to stderr. Throws std::invalid_argument
/// for a bad filter regex, repetitions < 1, invalid GMRES options, an unknown set or kernel;
/// kbench::cuda_error on CUDA failures. Source: solvers/gmres.hpp (Saad & Schultz 1986;
/// the one-reduce CGS2 of Swirydowicz et al. 2020).
nlohmann::json run_gmres_solves(const GmresRunOptions& options, const std::string& id,
                                const MachineProfile* machine);

/// One line per solve: name, status, Arnoldi steps, true residual, us per Arnoldi step.
void print_gmres_summary(const nlohmann::json& doc);

}  // namespace kbench::harness
