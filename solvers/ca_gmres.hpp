// Communication-avoiding GMRES, CA-GMRES(s, m) (yamazaki2014 Sec. III Fig. 2; Hoemmen 2010),
// for one right-hand side on one GPU over the shared SpMV operator, and on the CPU (Eigen) as
// its reference twin. A restart cycle builds its m + 1 basis vectors s at a time: the matrix
// powers kernel (MPK) makes s vectors of a monomial or Newton basis from the last orthonormal
// one, BOrth (block classical Gram-Schmidt, one or two passes) projects them against the basis
// so far, a TSQR (solvers/orthogonalization/tsqr.hpp) orthonormalizes them, and the (m + 1) x m
// upper Hessenberg matrix of the Arnoldi relation A Q_m = Q_{m+1} H is rebuilt from the BOrth
// coefficients, the R factors and the basis-change matrix of the MPK recurrence. The
// least-squares problem is GMRES's (solvers/hessenberg.hpp, Givens rotations on the host).
//
// Both twins run the same host iteration (ca_gmres_cycle.hpp); the GPU twin keeps the basis on
// the device and takes the Hessenberg data to the host once per block (one synchronization per
// TSQR pass, as the paper's CPU-side small factorizations).
#pragma once

#include "kernels/spmv_operator.hpp"
#include "matrices/csr.hpp"
#include "solvers/orthogonalization/tsqr.hpp"
#include "solvers/orthogonalization/tsqr_gpu.hpp"
#include "solvers/solve_result.hpp"

#include <cuda_runtime_api.h>

#include <complex>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace kbench::solvers {

/// The basis the matrix powers kernel builds (yamazaki2014 Sec. IV-A, last paragraph).
enum class CaBasis {
    /// v, A v, A^2 v, ...: its condition number grows like |lambda_1 / lambda_2|^s.
    monomial,
    /// v, (A - theta_0 I) v, (A - theta_1 I)(A - theta_0 I) v, ... with the shifts theta_i the
    /// Leja-ordered Ritz values of the first restart cycle (run as plain GMRES) or given ones;
    /// a complex conjugate pair a +- b i is two real steps (Bai, Hu, Reichel 1994).
    newton,
};

/// "monomial" or "newton"; parse_ca_basis throws std::invalid_argument naming both otherwise.
const char* to_string(CaBasis basis);
CaBasis parse_ca_basis(const std::string& name);

/// How a communication-avoiding cycle orthogonalizes its blocks.
enum class CaBorth {
    /// yamazaki2014 Sec. V: each block of k new vectors W is projected against the basis so far
    /// by BOrth (block CGS, borth_passes passes), then orthonormalized by the TSQR `tsqr`
    /// (`fallback_tsqr` when it fails); its Hessenberg columns enter the least squares at once.
    block,
    /// Two-stage block orthogonalization (Yamazaki, Higgins, Boman, Szyld, "Two-stage block
    /// orthogonalization to improve performance of s-step GMRES", IPDPS 2024, arXiv 2402.15033):
    /// * stage 1, per block: one fused Gram product G = [Q_{0:j}, W]^T W (ONE reduction; C =
    ///   Q_{0:j}^T W, S = W^T W), then block CGS with the Pythagorean CholQR, R^T R = S - C^T C
    ///   (BCGS-PIP: Carson, Lund, Rozlozník, Thomas, "Block Gram-Schmidt algorithms and their
    ///   stability properties", Linear Algebra Appl. 638:150-195, 2022), W := (W - Q C) R^-1.
    ///   The basis stays well conditioned but is orthonormal only to O(eps kappa^2): the next
    ///   block's matrix powers start from it. When the Cholesky factorization fails (kappa(W)
    ///   beyond eps^-1/2), W := W - Q C and `fallback_tsqr` factors the block (a fallback).
    /// * stage 2, per panel of whole blocks (panel_columns): BOrth of the panel against the
    ///   panels before it (borth_passes passes: BCGS2 by default) and the TSQR `tsqr` of the
    ///   panel (CholQR2 by default; `fallback_tsqr` when it fails), which makes the basis
    ///   orthonormal to working accuracy. The stage-1 Hessenberg columns of the panel, in terms
    ///   of [Q, Z] (Z the stage-1 vectors), become the Hessenberg columns of the orthonormal
    ///   basis by H = T H1 T^-1 (Z = Q T, T the upper triangular stage-2 factors: BOrth
    ///   coefficients over the TSQR's R; detail::change_panel_basis), and only then enter the
    ///   least squares: the residual estimate, the convergence test and the history are per
    ///   panel. The paper's panels are "big blocks" of several s-step blocks (up to the restart
    ///   length); here a panel holds at most 64 columns (the TSQR limit).
    /// Only the communication-avoiding cycles run two stages: the plain GMRES cycle that finds
    /// the Newton shifts is per block.
    two_stage,
};

/// "block" or "two_stage"; parse_ca_borth throws std::invalid_argument naming both otherwise.
const char* to_string(CaBorth borth);
CaBorth parse_ca_borth(const std::string& name);

struct CaGmresOptions {
    /// Step size s: MPK steps (new basis vectors) per block, 1 <= s <= min(restart, 64, n).
    int s = 10;
    /// Restart length m (>= s): basis vectors per cycle. m need not be a multiple of s: the
    /// last block of a cycle then has m mod s vectors (yamazaki2014 Sec. VI-A, CA-GMRES(20, 30)
    /// makes 20 and then 10).
    int restart = 30;
    /// Stop when ||b - A x|| / ||b|| <= tolerance. yamazaki2014's criterion ("the initial
    /// residual reduced by four orders of magnitude") is tolerance = 1e-4 with x0 = 0.
    double tolerance = 1e-8;
    int max_iterations = 1000;  // basis vectors (Krylov steps) over all cycles (>= 0)
    int max_restarts = 0;       // restart cycles (>= 0; 0: no limit besides max_iterations)
    CaBasis basis = CaBasis::newton;
    /// Newton basis only: the shifts (complex; every non-real one with its conjugate, finite).
    /// Empty: the first cycle runs plain GMRES(m) (s = 1, no shift) and the eigenvalues of its
    /// square Hessenberg matrix (Ritz values) become the shifts. Either way they are put in
    /// modified Leja order (leja_order) and a block of k steps takes the first k of them (cycled
    /// when there are fewer than k; a conjugate pair cut by the block's end becomes one real
    /// step with the pair's real part). A timing run can pass the shifts of an earlier solve
    /// (CaGmresResult::shifts; Leja ordering keeps their order) to skip the GMRES cycle.
    std::vector<std::complex<double>> shifts;
    /// Scale each new MPK vector to unit 2-norm (one dot product and one scaling on the device,
    /// no host round trip) so that neither basis over- or underflows. Off: the raw recurrence
    /// of the paper, whose caller balances A first (balance()).
    bool normalize_basis = true;
    /// TSQR of each block's new vectors (after BOrth); two_stage: of each stage-2 panel.
    ortho::TsqrMethod tsqr = ortho::TsqrMethod::cholqr2;
    /// Used on the same block when `tsqr` reports a failure (Gram matrix not numerically
    /// positive definite, rank deficiency, non-finite values); counted in tsqr_fallbacks.
    /// two_stage: also when stage 1's Cholesky fails (always then, even when equal to tsqr).
    ortho::TsqrMethod fallback_tsqr = ortho::TsqrMethod::caqr;
    /// BOrth: block classical Gram-Schmidt against the basis so far, 1 (CGS) or 2 (CGS2) passes;
    /// the coefficients are summed over the passes (two_stage: the BOrth of stage 2).
    int borth_passes = 2;
    /// Per-block orthogonalization (yamazaki2014) or the two-stage scheme (see CaBorth).
    CaBorth borth = CaBorth::block;
    /// two_stage: the most columns of a stage-2 panel (s <= panel_columns <= 64): a panel takes
    /// whole blocks while the next one fits, and ends early at a block that lost rank, at the
    /// cycle's end and at the iteration limit. 0: min(restart, 64).
    int panel_columns = 0;
    /// Fixed iteration count: run max_iterations steps with the tolerance and stagnation tests
    /// off (for timing); breakdowns still stop the run.
    bool timing_mode = false;
    /// Stagnation over restart cycles as GmresOptions::stagnation_cycles (solvers/stagnation.hpp:
    /// no relative 1e-12 reduction of ||b - A x|| over max(stagnation_cycles, 3k/4) cycles).
    /// 0: never.
    int stagnation_cycles = 3;
    /// Detailed run: SolveResult::phases holds "MPK" (SpMVs, shifts, scaling), "BOrth", "TSQR"
    /// (with the copy kept for a fallback and the fallback itself), "least squares" (Hessenberg
    /// reconstruction, Givens rotations, solve; host) and "other" (residuals, x update, shifts);
    /// two_stage: "BOrth" holds stage 1's fused product and stage 2's BOrth, "TSQR" stage 1's
    /// Cholesky factor, update and triangular solve and stage 2's TSQR,
    /// each bracketed by stream synchronizations and timed by the host clock. The
    /// synchronizations cost time: time a solve in a run without it.
    bool detailed = false;
    /// Record every block's TSQR errors ||I - Q^T Q||_2 and ||V - Q R||_F / ||V||_F (computed
    /// in double on the host from copies of the block: slow; for yamazaki2014 Fig. 13).
    bool measure_orthogonality = false;
};

/// One block of a CA-GMRES run (CaGmresResult::blocks, measure_orthogonality runs only).
struct CaBlockRecord {
    int restart = 0;        // restart cycle (0-based)
    int first_column = 0;   // basis index j of the block's start vector; new vectors j+1..j+k
    int columns = 0;        // k: vectors the MPK made
    int used = 0;           // Hessenberg columns kept (< k when the block lost rank)
    ortho::TsqrMethod method = ortho::TsqrMethod::caqr;  // the TSQR whose R was used
    bool fallback = false;  // the first TSQR failed on this block
    double gram_condition = 0.0;  // kappa_2(R^T R) of the block (see CaGmresResult)
    double orthogonality = 0.0;   // ||I - Q^T Q||_2 of the k new vectors (NaN: no TSQR
                                  // succeeded, the block's first vector ended the cycle)
    double residual = 0.0;        // ||V - Q R||_F / ||V||_F, V the block after BOrth (NaN: same)
};

/// What a CA-GMRES solve reports beyond SolveResult. iterations counts basis vectors (Krylov
/// steps); residual_history[i] is the relative least-squares residual estimate after the
/// block (two_stage: the panel) that ended at iteration history_iterations[i] (entry 0: the
/// initial residual at 0), and at a restart the recomputed ||b - A x|| / ||b|| is NOT added
/// (as GMRES).
struct CaGmresResult : SolveResult {
    std::vector<int> history_iterations;  // same length as residual_history
    int restarts = 0;             // restart cycles run
    /// Host-clock seconds of each cycle, from scaling its start vector to the residual
    /// recomputed after the x update (yamazaki2014 Fig. 14's time per restart); the plain GMRES
    /// cycle of the Newton basis is entry 0.
    std::vector<double> restart_seconds;
    int tsqr_fallbacks = 0;       // blocks (two_stage: also panels) whose TSQR (stage 1's
                                  // Cholesky) failed and were redone by fallback_tsqr
    int first_fallback_restart = -1;  // restart cycle of the first fallback; -1: none
    /// kappa_2 of the Gram matrix V^T V of the last block of each cycle, V its new vectors after
    /// BOrth, estimated as (sigma_max(R) / sigma_min(R))^2 from the block's R factor (inf when R
    /// is singular); 1 for cycles of one-vector blocks (the plain GMRES cycle); NaN for a cycle
    /// whose first block failed.
    std::vector<double> gram_condition;
    /// gram_condition of the first communication-avoiding cycle (yamazaki2014 Fig. 12's
    /// "kappa of the last Gram matrix of the first restart"); 0 when none ran.
    double first_gram_condition = 0.0;
    /// The Newton shifts in the order used (Leja ordered, conjugate pairs adjacent); empty for
    /// the monomial basis or when no communication-avoiding cycle ran.
    std::vector<std::complex<double>> shifts;
    std::vector<CaBlockRecord> blocks;  // measure_orthogonality runs only
};

/// Solves A x = b with CA-GMRES(s, m) on the GPU; x holds x0 on entry and the solution on
/// return. A: the operator of an n x n matrix; b, x: device vectors of n entries. All work runs
/// on handles.stream (cuBLAS and cuSOLVER handles bound to it, host pointer mode); the call
/// returns after the stream finished. Per block of k vectors: matrix_powers (k SpMVs, plus a
/// combination, a dot product and a scaling per step for shifts and normalization), k-column
/// ortho::borth against the basis (chunks of 256 basis columns: beyond that the chunks follow
/// one another, block MGS over chunks), a device copy of the block kept for the fallback,
/// ortho::tsqr, and one copy of the coefficients to the host (pinned). two_stage: per block
/// the matrix powers, one blas::gram [Q_{0:j}, W]^T W (chunks of 64 basis columns), its copy
/// to the host, the k x k Cholesky factor on the host, one blas::gemm_rowwise W -= Q C and one
/// blas::trsm_right_upper; per panel of kp columns ortho::borth and ortho::tsqr of kp columns
/// and one copy of the coefficients. The basis takes n (m + 1) device values, the fallback
/// copy n s (two_stage: n times the panel's columns).
/// Status: converged when the recomputed residual at a cycle's end, or the least-squares
/// estimate after a block, reaches the tolerance; max_iterations (also when max_restarts is
/// reached: detail says so); breakdown when the TSQR and its fallback both fail on a block
/// (detail names the restart, the block's columns and both failures; a failure at the block's
/// first vector is an invariant Krylov space, a happy breakdown instead) or the least-squares
/// problem is singular; non_finite for Inf/NaN in the block or the residual; stagnation as
/// the options say (two_stage: the estimate after a panel; a failing stage 2 is a breakdown
/// naming the panel's columns, non_finite for Inf/NaN in it). A block whose R factor has a
/// diagonal entry at rounding level (<= 10 eps
/// times the norm of its column before BOrth) at position i > 0 keeps its first i vectors and
/// the next block starts from the last of them; at position 0 it is GMRES's happy breakdown
/// (A v_j lies in the basis): the cycle ends.
/// Throws std::invalid_argument for a non-square operator, a null b or x, or options that
/// check_ca_gmres_options rejects; kbench::cuda_error on CUDA, cuBLAS and cuSOLVER failures.
/// Source: yamazaki2014 Sec. III (Fig. 2), IV (MPK, Newton basis), V (BOrth, TSQR); Yamazaki,
/// Higgins, Boman, Szyld, IPDPS 2024 (two_stage, see CaBorth); Hoemmen,
/// "Communication-avoiding Krylov subspace methods", PhD thesis, UC Berkeley 2010, Ch. 3
/// (CA-GMRES, the Hessenberg reconstruction) and Ch. 7 (the bases; Sec. 7.3.2 the real
/// arithmetic of complex shifts, as yamazaki2014 cites it).
template <typename T>
CaGmresResult ca_gmres(spmv::SpmvOperator<T>& a, const T* b, T* x,
                       const CaGmresOptions& options, const ortho::GpuHandles& handles);

/// The same with its own cuBLAS and cuSOLVER handles bound to `stream` (created per call).
template <typename T>
CaGmresResult ca_gmres(spmv::SpmvOperator<T>& a, const T* b, T* x,
                       const CaGmresOptions& options, cudaStream_t stream);

/// The same algorithm on the CPU: Eigen's sparse matrix-vector product on the CSR arrays, the
/// basis as a dense Eigen matrix, BOrth by two dense products per pass, the TSQR by
/// ortho::reference::tsqr. a: host CSR (n x n); b, x: host vectors of n entries (x: x0 on
/// entry). Statuses, history and records as ca_gmres. Throws as ca_gmres does, and for b or x
/// of the wrong size.
template <typename T>
CaGmresResult ca_gmres_cpu(const Csr<T>& a, const std::vector<T>& b, std::vector<T>& x,
                           const CaGmresOptions& options);

/// One step of the matrix powers kernel's recurrence, producing w_{t+1} from w_t (and w_{t-1}):
///   w~ = (A - alpha I) w_t + (b2 / sigma_t) w_{t-1},   w_{t+1} = w~ / sigma_{t+1},
/// sigma_t the scale w_t was divided by (1 without normalization). monomial: alpha = b2 = 0;
/// real shift theta: alpha = theta; conjugate pair a +- b i: {a, 0} then {a, b^2}, which makes
/// w_{t+2} = ((A - a I)^2 + b^2 I) w_t / (sigma_{t+1} sigma_{t+2}) in real arithmetic.
/// Source: Bai, Hu, Reichel 1994; Hoemmen 2010 Sec. 7.3.2 (as cited by yamazaki2014 Sec. IV).
struct MpkStep {
    double alpha = 0.0;
    double b2 = 0.0;  // > 0 only for the second step of a conjugate pair (never the first step)
};

/// The steps of a block of k vectors for Leja-ordered shifts (leja_order's output): shift t
/// mod shifts.size() for step t; a pair's first member gives {a, 0}, its second {a, b^2}; a
/// pair whose second member would fall beyond step k - 1 gives {a, 0}. Empty shifts: k
/// monomial steps. Throws std::invalid_argument for k < 1.
std::vector<MpkStep> newton_steps(const std::vector<std::complex<double>>& shifts, int k);

/// The scale sigma of a vector of squared norm norm2 as matrix_powers applies it: sqrt(norm2)
/// when norm2 is positive and finite, else 1 (the vector is left as it is).
double mpk_scale(double norm2);

/// The basis-change matrix B ((k + 1) x k, column-major, ld k + 1) with A W_{0:k-1} = W B for
/// the block W = [w_0 .. w_k] the steps made: B(t, t) = alpha_t, B(t + 1, t) = sigma_{t+1},
/// B(t - 1, t) = -b2_t / sigma_t; sigma[t] (t = 0..k, sigma[0] = 1 for the orthonormal start
/// vector) the scales (all 1 without normalization). Source: Hoemmen 2010 Ch. 7.
std::vector<double> basis_change_matrix(const std::vector<MpkStep>& steps,
                                        const std::vector<double>& sigma);

/// Modified Leja ordering of a set of shifts closed under conjugation (Bai, Hu, Reichel 1994;
/// Hoemmen 2010 Ch. 7): first the one of largest modulus, then repeatedly the one that
/// maximizes the product of its distances to those already taken (log sums; ties to the
/// earlier in the input); a non-real value is taken with its conjugate right after it, the
/// member with positive imaginary part first. Values with |Im z| <= 1e-14 |z| count as real
/// (their imaginary part set to 0). Throws std::invalid_argument for a non-finite value or a
/// non-real one without its conjugate (matched to a relative 1e-12).
std::vector<std::complex<double>> leja_order(const std::vector<std::complex<double>>& values);

/// The paper's balancing of A (yamazaki2014 Sec. VI): rows scaled to unit 2-norm, then the
/// columns of the result to unit 2-norm: A_bal = diag(row_scale) A diag(col_scale). Solve
/// A_bal y = diag(row_scale) b, then x = diag(col_scale) y. Empty rows / columns keep scale 1.
template <typename T>
struct Balanced {
    Csr<T> matrix;
    std::vector<T> row_scale, col_scale;
};
template <typename T>
Balanced<T> balance(const Csr<T>& a);

/// Bytes of device workspace matrix_powers needs for vectors of n entries (its dot products):
/// blas::dot_workspace_bytes(n, 1).
std::size_t matrix_powers_workspace_bytes(std::int64_t n);

/// The matrix powers kernel on one GPU: for t = 0 .. k - 1, column t + 1 of V from column t
/// (and t - 1) by steps[t] (MpkStep): one SpMV (a.apply), one fused combination when alpha or
/// b2 is not 0, and with `normalize` one dot product into norm2[t + 1] and a scaling by
/// 1 / mpk_scale(norm2[t + 1]) read on the device (no host round trip). V: n x (k + 1) device
/// block (ld >= n), column 0 the start vector, columns 1..k written. norm2: device array of k + 1
/// values, entries 1..k written when normalize (not read or written otherwise; entry 0 never);
/// sigma_t for the b2 term is mpk_scale(norm2[t]). Enqueued on `stream`, no synchronization. The
/// multi-GPU MPK of yamazaki2014 Sec. IV (ghost exchange, boundary rows) replaces this function.
/// `workspace` is a dot workspace (kernels/dot.hpp) of >= matrix_powers_workspace_bytes(n)
/// bytes: its counter region zeroed before the first call (blas::DotWorkspace(n, 1), or
/// blas::dot_workspace_init) and written by nothing but dot kernels; each call leaves it ready
/// for the next. Throws std::invalid_argument for k < 1, steps.size() < k, steps[0].b2 != 0,
/// ld < n, null pointers or a workspace below matrix_powers_workspace_bytes(n).
template <typename T>
void matrix_powers(spmv::SpmvOperator<T>& a, const std::vector<MpkStep>& steps, int k,
                   bool normalize, T* V, std::int64_t ld, T* norm2, void* workspace,
                   std::size_t workspace_bytes, cudaStream_t stream);

namespace reference {
/// matrix_powers on the CPU (Eigen): same arguments as host arrays, same arithmetic order per
/// step (SpMV, combination, norm, scaling).
template <typename T>
void matrix_powers(const Csr<T>& a, const std::vector<MpkStep>& steps, int k, bool normalize,
                   T* V, std::int64_t ld, T* norm2);
}  // namespace reference

namespace detail {

/// Throws std::invalid_argument "<who>: <field> = <value>, expected ..." for a non-square
/// matrix (rows != cols), n < s, restart < 1, s < 1, s > restart, s > 64, a negative or
/// non-finite tolerance, max_iterations < 0, max_restarts < 0, stagnation_cycles < 0,
/// borth_passes not 1 or 2, shifts given with the monomial basis, shifts leja_order rejects,
/// panel_columns not 0 nor in [s, 64], or measure_orthogonality with borth = two_stage (the
/// records measure the per-block TSQR).
void check_ca_gmres_options(const char* who, long long rows, long long cols,
                            const CaGmresOptions& o);

/// The Hessenberg columns j .. j + used - 1 of a block (Hoemmen 2010 Ch. 3): with the
/// orthonormal basis Q_{0:j} so far and H(0:j, 0:j-1) (A Q_{0:j-1} = Q_{0:j} H), the block
/// W = [q_j, w_1 .. w_k] (A W_{0:k-1} = W B) after BOrth (w_i = Q_{0:j} C(:, i-1) + w'_i) and
/// TSQR (W' = Q_new R) is W = [Q_{0:j} Q_new] Rh, Rh = [e_j, [C; R]], so that
///   H(:, j:j+k-1) = (Rh B - [H(0:j, 0:j-1) X; 0]) Y^-1
/// with X = Rh(0:j-1, 0:k-1) and Y = Rh(j:j+k-1, 0:k-1) (upper triangular). Writes rows
/// 0 .. j + i + 1 of column j + i of H (column-major, ldh >= j + used + 1; other rows are
/// zeroed up to j + used) for i < used <= k. C: (j + 1) x k (ld j + 1), R: k x k upper (ld k),
/// B: (k + 1) x k (ld k + 1). Needs R(i, i) != 0 for i < used - 1.
void reconstruct_hessenberg(int j, int k, int used, const double* C, const double* R,
                            const double* B, double* H, int ldh);

/// Two-stage CA-GMRES (CaBorth::two_stage): the Hessenberg columns a - 1 .. last of a cycle
/// after stage 2 of the panel of basis columns a .. e (1 <= a <= e, last <= e; last = e - 1,
/// or e when column last's subdiagonal entry is 0). On entry H's columns 0 .. a - 2 are final
/// (A Q_{0:a-2} = Q_{0:a-1} H) and columns a - 1 .. last hold the stage-1 values, in terms of
/// [Q_{0:a-1}, Z_{a:e}]; stage 2 made Z_{a:e} = Q_{0:a-1} C2 + Q_{a:e} R2, i.e. Z = Q T with
/// T upper triangular (identity outside columns a .. e). Writes H := T H1 T^-1 column by
/// column, H(:, l) = (T H1(:, l) - sum_{i<l} H(:, i) T(i, l)) / T(l, l), rows 0 .. l + 1 (the
/// rows below zeroed up to e). C2: a x kp (ld a), R2: kp x kp upper triangular (ld kp), kp =
/// e - a + 1; H column-major, ldh >= last + 2. Source: the change of basis of s-step GMRES
/// (Hoemmen 2010 Ch. 3, as reconstruct_hessenberg) applied to the two-stage scheme.
void change_panel_basis(int a, int e, int last, const double* C2, const double* R2, double* H,
                        int ldh);

/// How many of a block's k Hessenberg columns are sound: the first i with R(i, i) <= 10 eps
/// ||[C(:, i); R(0:i, i)]|| (the rank test of GMRES's happy breakdown; eps of the working
/// precision) gives i (i > 0) or 1 with *happy = true (i = 0); none gives k.
int usable_columns(int j, int k, const double* C, const double* R, double eps, bool* happy);

/// kappa_2(R^T R) = (sigma_max(R) / sigma_min(R))^2 of a k x k R (ld ldr); inf when singular.
double gram_condition(int k, const double* R, int ldr);

/// The eigenvalues of the leading c x c block of H (column-major, ld ldh): the Ritz values.
std::vector<std::complex<double>> ritz_values(int c, const double* H, int ldh);

/// Test hook: the state of a restart cycle just before x is updated.
template <typename T>
struct CaCycleSnapshot {
    int restart = 0;
    bool communication_avoiding = false;  // false: the plain GMRES cycle of the Newton basis
    int columns = 0;                      // c: Hessenberg columns (H is (c + 1) x c)
    std::int64_t n = 0;
    const T* V = nullptr;       // host copy of Q_{0:c}: n x (c + 1), ld n
    const double* H = nullptr;  // ld ldh
    int ldh = 0;
};
template <typename T>
using CaCycleObserver = std::function<void(const CaCycleSnapshot<T>&)>;

/// ca_gmres_cpu / ca_gmres calling `observer` once per cycle (with the basis copied to the
/// host on the GPU).
template <typename T>
CaGmresResult ca_gmres_cpu_observed(const Csr<T>& a, const std::vector<T>& b, std::vector<T>& x,
                                    const CaGmresOptions& options,
                                    const CaCycleObserver<T>& observer);
template <typename T>
CaGmresResult ca_gmres_observed(spmv::SpmvOperator<T>& a, const T* b, T* x,
                                const CaGmresOptions& options, const ortho::GpuHandles& handles,
                                const CaCycleObserver<T>& observer);

}  // namespace detail

}  // namespace kbench::solvers
