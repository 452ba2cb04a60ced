// The end of a restart cycle, shared by GMRES(m) (gmres_cycle.hpp) and CA-GMRES
// (ca_gmres_cycle.hpp): after ||b - A x|| is recomputed, whether the solve stops and why.
// Internal header: include only from the solver sources.
#pragma once

#include "solvers/solve_result.hpp"
#include "solvers/stagnation.hpp"

#include <string>

namespace kbench::solvers::detail {

/// Whether the solve stops after a restart cycle that took ||b - A x|| from `previous` to
/// `beta`, setting result.status and result.detail when it does:
/// * a failed cycle (breakdown or non-finite Hessenberg column; its status is already set) stops;
/// * a happy breakdown (the Krylov space is invariant: `happy_what` says how the solver saw it)
///   in timing mode is a convergence, there is nothing left to iterate on; outside timing mode
///   it only ended the cycle, and the next one starts from the recomputed residual;
/// * outside timing mode, the stagnation test over cycles (solvers/stagnation.hpp) stops a loop
///   without progress.
inline bool stop_after_cycle(SolveResult& result, bool failed, bool happy, bool timing_mode,
                             const std::string& happy_what, CycleStagnation& stagnation,
                             double beta, double previous)
{
    if (failed) return true;
    if (happy && timing_mode) {
        result.status = SolveStatus::converged;
        result.detail = "happy breakdown (" + happy_what + ") in iteration " +
                        std::to_string(result.iterations);
        return true;
    }
    if (!timing_mode && stagnation.stalled(beta, previous)) {
        result.status = SolveStatus::stagnation;
        result.detail = "||b - A x||: " + stagnation.detail() + " (last cycle ended at iteration " +
                        std::to_string(result.iterations) + ")";
        return true;
    }
    return false;
}

}  // namespace kbench::solvers::detail
