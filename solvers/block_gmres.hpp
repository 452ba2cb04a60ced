// Block GMRES (BGMRES) for s right-hand sides (boman2022, "Algorithm BGMRES"; Saad, Iterative
// Methods for Sparse Linear Systems, 2nd ed., Sec. 6.12): block Arnoldi over n x s blocks with
// block CGS2 (BOrth) and a TSQR of each new block, and the band Hessenberg least squares of
// solvers/hessenberg.hpp. CPU reference (Eigen); the GPU version follows on the same steps.
#pragma once

#include "matrices/csr.hpp"
#include "solvers/orthogonalization/tsqr.hpp"
#include "solvers/solve_result.hpp"

#include <vector>

namespace kbench::solvers {

struct BlockGmresOptions {
    int restart = 30;           // block steps per cycle (m >= 1)
    double tolerance = 1e-8;    // stop when every column has ||b_k - A x_k|| / ||b_k|| <= it
    int max_iterations = 1000;  // block steps over all cycles (>= 0)
    /// TSQR of the residual block and of every new block; when it reports a failure (e.g.
    /// CholQR2's Gram matrix not numerically positive definite), CAQR (Householder) is used.
    ortho::TsqrMethod tsqr = ortho::TsqrMethod::cholqr2;
    /// Stop when this many consecutive cycles leave the largest relative residual unchanged
    /// (reduced by less than a relative 1e-12). 0: never.
    int stagnation_cycles = 3;
};

/// Solves A X = B for s right-hand sides with restarted block GMRES on the CPU. a: n x n host
/// CSR; B and X: n x s, column-major, ld n (X: X0 on entry, the solutions on return). Each
/// cycle works on the columns not yet converged (deflation at restart): their residual block
/// R = Q S (TSQR), then per block step W = A V_j (one sparse times dense-block product), two
/// block CGS passes against V_0..V_j, a TSQR W = V_{j+1} H_{j+1,j}, and s Givens columns.
/// SolveResult: iterations counts block steps; residual_history[i] is the largest relative
/// residual over the columns after step i (Givens estimates within a cycle); true_residual
/// the largest ||b_k - A x_k|| / ||b_k|| (absolute for b_k = 0) at the end.
/// Status: converged; max_iterations; breakdown for rank loss of the initial residual block
/// (dependent residuals, e.g. equal right-hand sides), which BGMRES without deflation cannot
/// handle; non_finite; stagnation. Rank loss of a new block within a cycle (its R factor's
/// diagonal at rounding level: the block Krylov space is invariant) ends the cycle.
/// Throws std::invalid_argument for a non-square matrix, s < 1, B or X not n s entries,
/// restart < 1, max_iterations < 0, a negative or non-finite tolerance, or
/// stagnation_cycles < 0. Source: boman2022 (BGMRES), Saad Sec. 6.12.
template <typename T>
SolveResult block_gmres_cpu(const Csr<T>& a, int s, const std::vector<T>& B, std::vector<T>& X,
                            const BlockGmresOptions& options);

}  // namespace kbench::solvers
