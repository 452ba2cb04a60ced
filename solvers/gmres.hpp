// Restarted GMRES(m) for one right-hand side (Saad & Schultz 1986), on the GPU over the shared
// SpMV operator and the tall-skinny kernels, and on the CPU (Eigen) as its reference: the
// single-vector baseline of boman2022 ("s x GMRES") and the base of CA-GMRES (yamazaki2014).
#pragma once

#include "kernels/spmv_operator.hpp"
#include "matrices/csr.hpp"
#include "solvers/solve_result.hpp"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
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
    /// Low-synchronization CGS2: classical Gram-Schmidt twice with ONE global reduction per
    /// step: the one-reduce CGS2 of Swirydowicz, Langou, Ananthan, Yang, Thomas, "Low
    /// synchronization Gram-Schmidt and generalized minimal residual algorithms", Numer. Linear
    /// Algebra Appl. 28(2):e2343, 2020 (CGS2 with the reorthogonalization and the normalization
    /// lagged by one step), in the Arnoldi form of Bielich, Langou, Thomas, Swirydowicz,
    /// Yamazaki, Boman, "Low-synch Gram-Schmidt with delayed reorthogonalization for Krylov
    /// solvers", Parallel Comput. 112:102940, 2022, Alg. 4 (DCGS2). The SpMV runs one vector
    /// ahead, on u_{j+1} = A v_j - V_j c_j (the first CGS pass, neither reorthogonalized nor
    /// normalized), and one fused product [V_j, u_{j+1}]^T [u_{j+1}, A u_{j+1}] gives at once
    /// the second pass of u_{j+1} (a = V_j^T u_{j+1}), its norm by the Pythagorean identity
    /// (nu^2 = ||u_{j+1} - V_j a||^2 = u_{j+1}^T u_{j+1} - a^T a) and the first pass of the
    /// next vector, corrected for the lag: with v_{j+1} = (u_{j+1} - V_j a) / nu and
    /// w = A u_{j+1},
    ///   d = V_{j+1}^T w = [V_j^T w; (u_{j+1}^T w - a^T V_j^T w) / nu],
    ///   u_{j+2} = (w - V_{j+1} d) / nu,
    ///   c_{j+1} = (d - H(0:j+1, 0:j) a) / nu   (A V_j = V_{j+1} H, so A V_j a = V_{j+1} H a).
    /// Column j of H is final after step j: [c_j + a; nu], what CGS2 gives in exact
    /// arithmetic. When the second pass removes half of u_{j+1}'s squared norm or more (the
    /// first pass cancelled: a happy breakdown is near), the Pythagorean norm is inaccurate and
    /// that step computes ||u_{j+1} - V_j a|| explicitly (one more reduction). gmres, gmres_cpu
    /// and the distributed GMRES of solvers/distributed/ (GPU and CPU ranks) implement it.
    cgs2_lowsync,
};

/// "cgs2", "mgs" or "lowsync" (cgs2_lowsync); parse_arnoldi_orth throws std::invalid_argument
/// naming them otherwise.
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
    /// Stagnation (solvers/stagnation.hpp, per restart cycle): the smallest window, in restart
    /// cycles; stop when the residual norm after cycle k is not a relative 1e-12 below its value
    /// W(k) = max(stagnation_cycles, 3k/4) cycles earlier (GMRES(m) with too small an m on an
    /// indefinite matrix). 0: never.
    int stagnation_cycles = 3;
};

/// Solves A x = b with GMRES(m) on the GPU; x holds x0 on entry and the solution on return.
/// A: the operator of an n x n matrix; b, x: device vectors of n entries; all work is on
/// `stream`, and the call returns after it completed. Per Arnoldi step: one SpMV, the
/// orthogonalization (cgs2: two blas::mdgm and two blas::gemm_rowwise over the basis, in
/// chunks of 64 columns, and one dot for the norm; mgs: a dot and an update per basis vector,
/// and the norm; cgs2_lowsync: one blas::gram [V_j, u]^T [u, A u] and two blas::gemm_rowwise,
/// see ArnoldiOrth, plus in the first step of a cycle one blas::mdgm for the first pass of
/// A v_0), and one copy of the Hessenberg column to the host for the Givens rotations
/// (hessenberg.hpp); cgs2_lowsync also copies one coefficient back to the device. A
/// cgs2_lowsync cycle runs as many SpMVs as steps, one of them ahead: a cycle that ends early
/// (convergence, happy breakdown, the iteration limit) has made one SpMV more than its steps.
/// The basis takes n (m + 1) device values.
/// Status: converged when the residual of a cycle's end (recomputed as b - A x) or the
/// Givens estimate within a cycle reaches the tolerance; a happy breakdown (h_{j+1,j} <= 10
/// eps times the norm of its Hessenberg column) ends the cycle (and a timing run, as
/// converged); breakdown when the least-squares problem is singular; non_finite for Inf/NaN;
/// stagnation as GmresOptions says. residual_history[i]: the Givens estimate after step i (entry 0: the
/// initial residual), relative to ||b|| (absolute when b = 0).
/// Throws std::invalid_argument for a non-square operator, restart < 1, max_iterations < 0,
/// a negative or non-finite tolerance or stagnation_cycles < 0; kbench::cuda_error on CUDA
/// and cuBLAS failures. Source: Saad & Schultz 1986; boman2022 Sec. 2 (GMRES(m) per column);
/// Swirydowicz et al. 2020 and Bielich et al. 2022 (cgs2_lowsync, see ArnoldiOrth).
template <typename T>
SolveResult gmres(spmv::SpmvOperator<T>& a, const T* b, T* x, const GmresOptions& options,
                  cudaStream_t stream);

/// The same algorithm on the CPU: Eigen's sparse matrix-vector product on the CSR arrays and
/// dense Eigen vectors for the basis; same steps, statuses and history as gmres, and for
/// cgs2_lowsync the same host arithmetic on the reduced values (gmres_lowsync.hpp). a: host CSR
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

/// Test hook: the basis of a restart cycle just before x is updated.
template <typename T>
struct GmresCycleSnapshot {
    int restart = 0;        // cycle (0-based)
    int columns = 0;        // c: Hessenberg columns of the cycle
    std::int64_t n = 0;
    const T* V = nullptr;   // host copy of v_0 .. v_c: n x (c + 1), ld n
};
template <typename T>
using GmresCycleObserver = std::function<void(const GmresCycleSnapshot<T>&)>;

/// gmres_cpu / gmres calling `observer` once per cycle (the GPU basis copied to the host).
template <typename T>
SolveResult gmres_cpu_observed(const Csr<T>& a, const std::vector<T>& b, std::vector<T>& x,
                               const GmresOptions& options, const GmresCycleObserver<T>& observer);
template <typename T>
SolveResult gmres_observed(spmv::SpmvOperator<T>& a, const T* b, T* x, const GmresOptions& options,
                           cudaStream_t stream, const GmresCycleObserver<T>& observer);
}  // namespace detail

}  // namespace kbench::solvers
