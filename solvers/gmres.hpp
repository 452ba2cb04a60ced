// Restarted GMRES(m) for one right-hand side (Saad & Schultz 1986), on the GPU over the shared
// SpMV operator and the tall-skinny kernels, and on the CPU (Eigen) as its reference: the
// single-vector baseline of boman2022 ("s x GMRES") and the base of CA-GMRES (yamazaki2014).
#pragma once

#include "kernels/spmv_operator.hpp"
#include "matrices/csr.hpp"
#include "solvers/solve_result.hpp"

#include <cuda_runtime_api.h>

#include <string>
#include <vector>

namespace kbench::solvers {

/// How the Arnoldi process orthogonalizes A v_j against the basis V_j = [v_0 .. v_j].
enum class ArnoldiOrth {
    /// Classical Gram-Schmidt twice: h = V_j^T w, w -= V_j h, repeated once (two passes over
    /// V_j, each one tall-skinny product V^T w and one update; orthogonal to working accuracy).
    cgs2,
    /// Modified Gram-Schmidt: one dot product and one update per basis vector, in order.
    mgs,
};

/// "cgs2" or "mgs"; parse_arnoldi_orth throws std::invalid_argument naming both otherwise.
const char* to_string(ArnoldiOrth orth);
ArnoldiOrth parse_arnoldi_orth(const std::string& name);

struct GmresOptions {
    int restart = 30;           // restart length m (>= 1); m >= max_iterations: no restart
    double tolerance = 1e-8;    // stop when ||b - A x|| / ||b|| <= tolerance
    int max_iterations = 1000;  // Arnoldi steps over all cycles (>= 0)
    ArnoldiOrth orth = ArnoldiOrth::cgs2;
    /// Fixed iteration count: run max_iterations steps with the tolerance and stagnation tests
    /// off (for timing); breakdowns still stop the run.
    bool timing_mode = false;
    /// Stagnation: stop when this many consecutive restart cycles leave the residual norm
    /// unchanged (reduced by less than a relative 1e-12; GMRES(m) with too small an m on an
    /// indefinite matrix). 0: never.
    int stagnation_cycles = 3;
};

/// Solves A x = b with GMRES(m) on the GPU; x holds x0 on entry and the solution on return.
/// A: the operator of an n x n matrix; b, x: device vectors of n entries; all work is on
/// `stream`, and the call returns after it completed. Per Arnoldi step: one SpMV, the
/// orthogonalization (cgs2: two blas::mdgm and two blas::gemm_rowwise over the basis, in
/// chunks of 64 columns; mgs: a dot and an update per basis vector), one dot for the norm, and
/// one copy of the Hessenberg column to the host for the Givens rotations (hessenberg.hpp).
/// The basis takes n (m + 1) device values.
/// Status: converged when the residual of a cycle's end (recomputed as b - A x) or the
/// Givens estimate within a cycle reaches the tolerance; a happy breakdown (h_{j+1,j} <= 10
/// eps times the norm of its Hessenberg column) ends the cycle (and a timing run, as
/// converged); breakdown when the least-squares problem is singular; non_finite for Inf/NaN;
/// stagnation as GmresOptions says. residual_history[i]: the Givens estimate after step i (entry 0: the
/// initial residual), relative to ||b|| (absolute when b = 0).
/// Throws std::invalid_argument for a non-square operator, restart < 1, max_iterations < 0,
/// a negative or non-finite tolerance or stagnation_cycles < 0; kbench::cuda_error on CUDA
/// and cuBLAS failures. Source: Saad & Schultz 1986; boman2022 Sec. 2 (GMRES(m) per column).
template <typename T>
SolveResult gmres(spmv::SpmvOperator<T>& a, const T* b, T* x, const GmresOptions& options,
                  cudaStream_t stream);

/// The same algorithm on the CPU: Eigen's sparse matrix-vector product on the CSR arrays and
/// dense Eigen vectors for the basis; same steps, statuses and history as gmres. a: host CSR
/// (n x n), b and x: host vectors of n entries (x: x0 on entry). Throws as gmres does, and
/// for b or x of the wrong size.
template <typename T>
SolveResult gmres_cpu(const Csr<T>& a, const std::vector<T>& b, std::vector<T>& x,
                      const GmresOptions& options);

namespace detail {
/// Throws std::invalid_argument (prefixed with `who`) for the cases gmres lists; shared by the
/// GMRES variants (block GMRES passes its own restart, tolerance, limits).
void check_krylov_options(const char* who, long long rows, long long cols, int restart,
                          double tolerance, int max_iterations, int stagnation_cycles);
inline void check_gmres_options(const char* who, long long rows, long long cols,
                                const GmresOptions& o)
{
    check_krylov_options(who, rows, cols, o.restart, o.tolerance, o.max_iterations,
                         o.stagnation_cycles);
}
}  // namespace detail

}  // namespace kbench::solvers
