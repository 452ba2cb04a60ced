// What an iterative solve reports: how it stopped, after how many iterations, its residual
// history and the true residual of the solution it returns. Shared by every solver in solvers/.
#pragma once

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "solvers/stagnation.hpp"

namespace kbench::solvers {

/// How a solve stopped. Breakdowns and stagnation are outcomes, never exceptions or NaN loops.
enum class SolveStatus {
    converged,        // relative residual <= tolerance
    max_iterations,   // the iteration limit was reached (the normal end of a timing run)
    breakdown,        // a division by zero ahead (detail names the scalar)
    non_finite,       // a scalar or the residual became Inf/NaN
    stagnation,       // no progress over the stagnation window (solvers/stagnation.hpp)
};

/// "converged", "max_iterations", "breakdown", "non_finite" or "stagnation".
const char* to_string(SolveStatus status);

/// Time of one phase of an iteration (one library call or kernel, or a group of them) summed
/// over the iterations of a detailed run.
struct PhaseTime {
    std::string name;    // e.g. "axpy p += r" or "SpMV v = A p"; also its NVTX range name
    std::string group;   // the profile column it adds to: "spmv", "dot", "p_update",
                         // "s_update", "xr_update" or "check" (anzt2015 Table 4)
    double seconds = 0.0;  // summed over the iterations (CUDA events around the phase)
    int calls = 0;         // iterations in which it ran
};

/// The outcome of one solve.
struct SolveResult {
    SolveStatus status = SolveStatus::max_iterations;
    std::string detail;   // e.g. "rho = r_hat . r = 0 after iteration 12"; empty when converged
    int iterations = 0;   // iterations run, including one in which a breakdown showed
    bool timing_mode = false;  // fixed iteration count, stopping test off
    /// Relative residual ||r_i|| / ||b|| of the recurrence after iteration i = 0..iterations
    /// (entry 0: the initial residual), as the solver saw it.
    std::vector<double> residual_history;
    double true_residual = 0.0;  // ||b - A x|| / ||b|| recomputed at the end (||b - Ax|| if b = 0)
    double seconds = 0.0;        // wall time of the iterations (setup and final check excluded)
    /// Detailed runs only (solver option `detailed`): the iteration split into phases, in
    /// execution order; their seconds add up to `seconds` up to the host work between phases.
    std::vector<PhaseTime> phases;
    double seconds_per_iteration() const { return iterations > 0 ? seconds / iterations : 0.0; }
};

/// Checks a solver's stopping options. Throws std::invalid_argument "<solver>: <field> = <value>,
/// expected ..." for tolerance < 0 or not finite, max_iterations < 0 or stagnation_window < 0
/// (0 turns the stagnation test off; solvers/stagnation.hpp states the rule).
inline void check_stopping_options(const char* solver, double tolerance, int max_iterations,
                                   int stagnation_window)
{
    const std::string who{solver};
    if (!(tolerance >= 0.0) || !std::isfinite(tolerance))
        throw std::invalid_argument(who + ": tolerance = " + std::to_string(tolerance) +
                                    ", expected a finite value >= 0");
    if (max_iterations < 0)
        throw std::invalid_argument(who + ": max_iterations = " + std::to_string(max_iterations) +
                                    ", expected >= 0");
    if (stagnation_window < 0)
        throw std::invalid_argument(who + ": stagnation_window = " +
                                    std::to_string(stagnation_window) + ", expected >= 0 (0: off)");
}

}  // namespace kbench::solvers
