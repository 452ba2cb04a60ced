// Solvers for A X = B with s right-hand sides (boman2022), on the GPU and on the CPU (Eigen,
// OpenMP threads, dense products on OpenBLAS when built with it: solvers/cpu_gemm.hpp), both driven by the same iteration (solvers/block_gmres_cycle.hpp):
// * block GMRES (BGMRES; boman2022 "Algorithm BGMRES"; Saad, Iterative Methods for Sparse Linear
//   Systems, 2nd ed., Sec. 6.12): block Arnoldi over n x s blocks with block CGS2 (BOrth) and a
//   TSQR of each new block, and the band Hessenberg least squares of solvers/hessenberg.hpp;
// * pseudo-block GMRES (as Trilinos Belos' PseudoBlockGmres): s independent GMRES(m) advanced
//   together, one SpMM and batched CGS2 per step, no block orthogonalization.
// The third way, s x GMRES, is s calls of solvers/gmres.hpp.
#pragma once

#include "kernels/spmv_operator.hpp"
#include "matrices/csr.hpp"
#include "solvers/gmres.hpp"
#include "solvers/orthogonalization/tsqr.hpp"
#include "solvers/orthogonalization/tsqr_gpu.hpp"
#include "solvers/solve_result.hpp"

#include <stdexcept>
#include <string>
#include <vector>

namespace kbench::solvers {

/// Options of both solvers (tsqr: block GMRES only). Pseudo-block GMRES counts a step of all
/// its Krylov spaces as one iteration, as block GMRES counts a block step.
struct BlockGmresOptions {
    int restart = 30;           // block steps per cycle (m >= 1); >= max_iterations: none
    double tolerance = 1e-8;    // stop when every column has ||b_k - A x_k|| / ||b_k|| <= it
    int max_iterations = 1000;  // block steps over all cycles (>= 0)
    /// TSQR of the residual block and of every new block; when it reports a failure (e.g.
    /// CholQR2's Gram matrix not numerically positive definite), CAQR (Householder) is used.
    ortho::TsqrMethod tsqr = ortho::TsqrMethod::cholqr2;
    /// Stagnation over restart cycles as GmresOptions::stagnation_cycles, on the largest relative
    /// residual (solvers/stagnation.hpp). 0: never.
    int stagnation_cycles = 3;
    /// Detailed run: the solve split into phases (block GMRES: "SpMM W = A V_j", "block CGS2",
    /// "TSQR", "least squares (host)", "X update", "residual"; pseudo-block GMRES: "SpMM",
    /// "batched CGS2", "norms and scaling", the same last three), each bracketed by a
    /// synchronization and timed by the host clock, in SolveResult::phases (seconds summed over
    /// the solve, calls = times it ran). Block GMRES adds "TSQR fallback (CAQR)" whose calls
    /// count the blocks CAQR had to redo (its seconds are inside "TSQR"). The synchronizations
    /// cost time: time a solve in a run without it.
    bool detailed = false;
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

/// Block GMRES on the GPU, the same steps as block_gmres_cpu: W = A V_j by the operator's SpMM
/// (SpmvOperator::apply_block), block CGS2 by two cuBLAS GEMMs per pass over the basis, TSQR by
/// ortho::tsqr (options.tsqr, CAQR when it fails), the least squares on the host (one copy of
/// the block's Hessenberg columns per step) and X += V Y by cuBLAS GEMM. B and X: n x s DEVICE
/// blocks, column-major, ld n; work on handles.stream (cuBLAS and cuSOLVER bound to it), and the
/// call returns after the stream finished. The basis takes n (m + 1) s device values, m the
/// restart length capped by max_iterations. Statuses and history as block_gmres_cpu. Throws as
/// block_gmres_cpu, kbench::cuda_error on CUDA, cuBLAS and cuSOLVER failures; s <= 64
/// (blas::max_block_columns). Source: boman2022 (BGMRES), yamazaki2014 Sec. V (BOrth, TSQR).
template <typename T>
SolveResult block_gmres(spmv::SpmvOperator<T>& a, int s, const T* B, T* X,
                        const BlockGmresOptions& options, const ortho::GpuHandles& handles);

/// Pseudo-block GMRES on the CPU: each column of X solved by its own GMRES(m) (CGS2 Arnoldi,
/// Givens least squares), the s Krylov spaces advanced together so that a step is one sparse
/// times dense-block product and s independent CGS2 passes; converged columns drop out at
/// restart (within a cycle, a column that converged or broke down stops adding Hessenberg
/// columns). Arguments, history (largest relative residual per step), statuses and throws as
/// block_gmres_cpu, except that dependent right-hand sides are no breakdown here.
/// Source: Trilinos Belos PseudoBlockGmresSolMgr (the idea); boman2022 (its comparison).
template <typename T>
SolveResult pseudo_block_gmres_cpu(const Csr<T>& a, int s, const std::vector<T>& B,
                                   std::vector<T>& X, const BlockGmresOptions& options);

/// Pseudo-block GMRES on the GPU, the same steps as pseudo_block_gmres_cpu: one SpMM per step,
/// the s CGS2 passes as strided-batched cuBLAS GEMV (V_j^(c)T w_c and w_c -= V_j^(c) h_c for all
/// c in one call each), the s norms by one MDOT (kernels/dot.hpp), one copy of the s Hessenberg
/// columns to the host per step, the scaling by cuBLAS DGMM. Layout, stream and throws as
/// block_gmres.
template <typename T>
SolveResult pseudo_block_gmres(spmv::SpmvOperator<T>& a, int s, const T* B, T* X,
                               const BlockGmresOptions& options,
                               const ortho::GpuHandles& handles);

namespace detail {
/// Throws std::invalid_argument (prefixed with `who`) for the cases block_gmres_cpu lists.
inline void check_block_gmres_options(const char* who, long long rows, long long cols, int s,
                                      const BlockGmresOptions& o)
{
    check_krylov_options(who, rows, cols, o.restart, o.tolerance, o.max_iterations,
                         o.stagnation_cycles);
    if (s < 1)
        throw std::invalid_argument(std::string(who) + ": s = " + std::to_string(s) +
                                    ", expected >= 1 right-hand sides");
}
}  // namespace detail

}  // namespace kbench::solvers
