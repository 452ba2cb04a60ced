// Timing of a whole GPU solve as a user calls it: host wall time around the solver call (which
// returns after its stream finished), median over repetitions after an untimed one, and the true
// residual of the last solution recomputed on the host. Shared by `kbench solve gmres` and the
// peers study.
#pragma once

#include "matrices/csr.hpp"
#include "solvers/solve_result.hpp"

#include <cuda_runtime_api.h>

#include <functional>
#include <vector>

namespace kbench::harness {

/// A solver call on the GPU: solve(b, x, stream) with device vectors b, x (x holds x0 = 0 on
/// entry), returning after its stream finished.
using GpuSolve = std::function<solvers::SolveResult(const double*, double*, cudaStream_t)>;

struct TimedSolve {
    solvers::SolveResult last;  // the last call's result
    double seconds = 0.0;       // median host wall time of the timed calls
    double true_residual = 0.0; // ||b - A x|| / ||b|| of the last call's x (||b - A x|| for b = 0)
    int repetitions = 0;
};

/// Runs `solve` 1 + reps times on a fresh stream, x0 = 0 each time (set and synchronized before
/// the clock starts); the first call is untimed (first launches, allocations). a: the n x n host
/// matrix, b: n host values. Throws std::invalid_argument for reps < 1 or a b of the wrong size,
/// kbench::cuda_error on CUDA failures; whatever `solve` throws.
TimedSolve time_gpu_solve(const Csr<double>& a, const std::vector<double>& b, int reps,
                          const GpuSolve& solve);

/// b = A * ones (n values), the right-hand side of kbench's solver runs (x = ones solves it).
std::vector<double> rhs_of_ones(const Csr<double>& a);

/// ||b - A x||_2 / ||b||_2 on the host (||b - A x||_2 when b = 0). a: n x n CSR, b, x: n values.
double relative_residual(const Csr<double>& a, const std::vector<double>& b,
                         const std::vector<double>& x);

}  // namespace kbench::harness
