// BiCGStab preconditioned by truncated SPIKE (li2012 Algorithm 1 with M = truncated SPIKE,
// Sec. 1.4; mixed precision Sec. 2.4) for banded systems, on the GPU (spike_bicgstab.cu) and
// its CPU twin (spike_bicgstab.cpp).
//
// The iteration is right-preconditioned BiCGStab (van der Vorst 1992) on A M^{-1} y = b,
// x = M^{-1} y, carried in x directly:
//   p = r + beta (p - omega v);  p_hat = M^{-1} p;  v = A p_hat;  alpha = rho / (r_hat . v);
//   s = r - alpha v;  s_hat = M^{-1} s;  t = A s_hat;  omega = (t . s) / (t . t);
//   x += alpha p_hat + omega s_hat;  r = s - omega t;  rho = r_hat . r.
// Stopping test (li2012 Alg. 1): ||r||_inf / ||b||_inf <= tolerance on the recurrence residual.
// The scalar rules (breakdowns, half-step convergence) are those of kernels/bicgstab_kernels.hpp.
#pragma once

#include "kernels/spmv_operator.hpp"
#include "matrices/banded.hpp"
#include "models/spike_model.hpp"
#include "solvers/solve_result.hpp"
#include "solvers/spike/spike.hpp"

#include <cuda_runtime_api.h>

#include <optional>
#include <string>
#include <vector>

namespace kbench::solvers::spike {

/// Precision of the preconditioner; BiCGStab itself always runs in double.
enum class SpikePrecision {
    double_precision,  // SPIKE factors and applies in double
    mixed,             // SPIKE factors and applies in float, vectors converted at the boundary
                       // (li2012 Sec. 2.4)
};

/// "double" or "mixed"; parse_spike_precision throws std::invalid_argument naming both.
const char* to_string(SpikePrecision precision);
SpikePrecision parse_spike_precision(const std::string& name);

struct SpikeBicgstabOptions {
    /// Rows per partition. 0: automatic, models::spike::choose_psize with the GPU's SM count
    /// and SpikeSolver::resident_blocks_per_sm (the CPU twin: one slot, 1 SM x 1 block). An
    /// explicit value must satisfy 2K <= psize <= N/2 (make_partitioning throws otherwise).
    index_type psize = 0;
    SpikePrecision precision = SpikePrecision::double_precision;
    double tolerance = 1e-8;  // ||r_k||_inf / ||b||_inf <= tolerance, recurrence residual
    int max_iterations = 1000;
    /// Time the phases (result.phases) with CUDA events between them (the CPU twin: a host
    /// clock) and NVTX ranges of the same names. Off: no event beyond the solve's two.
    bool detailed = false;
    /// Stagnation: the smallest window of the rule of solvers/stagnation.hpp, in iterations
    /// (0: never), as BicgstabOptions::stagnation_window.
    int stagnation_window = 200;
    /// How the top spike tips are computed (li2012 Sec. 2.2: corner_ul).
    SpikeTips tips = SpikeTips::exact;
};

struct SpikeBicgstabResult {
    /// iterations, status, detail, residual_history (entry i: ||r_i||_inf / ||b||_inf of the
    /// recurrence), true_residual (||b - A x||_inf / ||b||_inf recomputed; ||b - A x||_inf when
    /// b = 0), seconds (the iterations, from r_0 ready to the last residual read).
    SolveResult solve;
    /// The factorization's outcome. A zero pivot makes solve.status breakdown with detail =
    /// factor_status.message(); no iteration runs and x keeps x0.
    SpikeStatus factor_status;
    index_type psize = 0;       // rows per partition used (the choice when options.psize = 0)
    /// When options.psize = 0 and the shape allows a choice (K >= 1, n >= 4K): the spike decay
    /// the partition-size chooser was given (detail::measure_spike_decay; what choose_psize
    /// saw, for a reader to check the choice against). Empty otherwise.
    std::optional<models::spike::SpikeDecay> psize_decay;
    index_type partitions = 0;  // p
    /// CPU solves: the OpenMP threads the partitions ran on (SpikeReference::threads_used: 1 for
    /// spike_bicgstab_cpu and without OpenMP); 0 on the GPU.
    int threads = 0;
    double factor_seconds = 0.0;  // SPIKE setup: copy of A to the device, LU/UL, spikes,
                                  // reduced system (CUDA events; CPU: host clock)
    double transfer_seconds = 0.0;  // GPU: the copy of the band to the device (pageable host
                                    // memory), inside factor_seconds; CPU: 0
    double total_seconds = 0.0;   // factor_seconds + solve.seconds (what li2012 times)
    /// Detailed runs only, summed seconds in this order: "LU/UL", "spikes", "reduced system"
    /// (group "setup"), "BiCGStab SpMV", "preconditioner", "other" (group "iteration"; other =
    /// the vector kernels and the per-iteration residual read); li2012 Fig. 6's split. Their
    /// sum is at most total_seconds.
    std::vector<PhaseTime> phases;
};

/// Solves A x = b on the GPU. a: the band matrix on the host (copied to the device: band
/// storage for SPIKE, CSR for the shared SpMV operator with policy "auto"); b, x: device vectors
/// of a.n doubles (x: x0 on entry, the solution on return). All work is enqueued on `stream`
/// and the call returns when it completed. A zero b gives x = 0, converged at iteration 0.
/// Throws std::invalid_argument for a bad psize (naming it), tolerance < 0 or not finite,
/// max_iterations < 0 or stagnation_window < 0; kbench::cuda_error on CUDA/cuBLAS failures.
/// Breakdowns (zero pivot, rho = 0, r_hat . v = 0, omega = 0), non-finite values and
/// stagnation are statuses. Source: li2012 Sec. 1.3-1.4, 2.4, Algorithm 1.
SpikeBicgstabResult spike_bicgstab(const BandMatrix<double>& a, const double* b, double* x,
                                   const SpikeBicgstabOptions& options, cudaStream_t stream);

/// The same solve with the SpMV operator of A built by the caller (for repeated solves of one
/// matrix: band_to_csr and the operator's format choice are host work of about a second per
/// 1e6 rows at K = 32). op must hold A in CSR (op.num_rows() == a.n; throws
/// std::invalid_argument naming both sizes otherwise).
SpikeBicgstabResult spike_bicgstab(const BandMatrix<double>& a, spmv::SpmvOperator<double>& op,
                                   const double* b, double* x,
                                   const SpikeBicgstabOptions& options, cudaStream_t stream);

/// The same solve on the CPU, one thread: SpikeReference as preconditioner, band_multiply as
/// SpMV, the vector updates and dot products of kernels/bicgstab_kernels.hpp's references. b, x:
/// host vectors of a.n entries (x: x0 on entry). Same options (psize = 0: see
/// SpikeBicgstabOptions), results and errors; times with the host clock; result.threads = 1.
SpikeBicgstabResult spike_bicgstab_cpu(const BandMatrix<double>& a, const std::vector<double>& b,
                                       std::vector<double>& x,
                                       const SpikeBicgstabOptions& options);

/// What spike_bicgstab_omp runs on.
struct SpikeOmpOptions {
    /// OpenMP threads, >= 0; 0: cpu_max_threads() (every core unless OMP_NUM_THREADS says
    /// otherwise). Without OpenMP the solve runs on one thread (result.threads says so).
    int threads = 0;
    /// Partitions asked for, >= 0; 0: cpu_partition_count(N, K, threads), one per thread. An
    /// explicit value goes through psize_for_partitions (2 <= partitions <= N / 2K). Not
    /// together with SpikeBicgstabOptions::psize (give one or neither).
    index_type partitions = 0;
};

/// The multi-core CPU solve of the li2012 study (series spike_cpu_all_cores): the same
/// SPIKE-preconditioned BiCGStab as spike_bicgstab (li2012 Alg. 1 with truncated SPIKE, Sec.
/// 1.2-1.4) with every per-partition step on OpenMP threads: SpikeReference(threads) factors
/// and applies, the SpMV (band_multiply_rows) and the vector updates run per partition's rows,
/// and each dot product is a sum over the partitions' partial dots (kernels/bicgstab_kernels.hpp
/// reference::dot) in partition order. x and every iterate are therefore the same bit for bit
/// for any thread count at the same partitioning (they differ from spike_bicgstab_cpu's in
/// rounding only: its dots run over [0, N) at once).
/// Partitioning: options.psize when given (2K <= psize <= N/2), else psize_for_partitions(N,
/// K, omp.partitions or cpu_partition_count(N, K, threads)), li2012 Sec. 1.2's p = floor(N /
/// psize). a: band storage (matrices/banded.hpp, ldab = 2K + 1, column-major); b, x: host
/// vectors of a.n doubles (x: x0 on entry, the solution on return). Results as spike_bicgstab
/// (seconds of the host clock; transfer_seconds 0; psize_decay empty: the rule needs no decay
/// estimate) plus threads (OpenMP threads the partitions ran on: min(threads, partitions), 1
/// without OpenMP); total_seconds = factor_seconds + solve.seconds (the band is read where it
/// is). Throws std::invalid_argument naming the parameter for omp.threads < 0, omp.partitions
/// < 0, both omp.partitions and options.psize given, a bad partition count
/// (psize_for_partitions: e.g. more partitions than rows), K < 1 or N < 4K (no two partitions
/// of 2K rows), a bad psize (make_partitioning), ab of the wrong size (SpikeReference::factor),
/// b or x not of a.n entries, and the options of check_options.
SpikeBicgstabResult spike_bicgstab_omp(const BandMatrix<double>& a, const std::vector<double>& b,
                                       std::vector<double>& x,
                                       const SpikeBicgstabOptions& options,
                                       const SpikeOmpOptions& omp = {});

namespace detail {
/// Throws std::invalid_argument naming the field and its value for tolerance < 0 or not
/// finite, max_iterations < 0 or stagnation_window < 0.
void check_options(const SpikeBicgstabOptions& options);
/// The spike decay of `a` for models::spike::choose_psize: band_decay_stats's d_min and rho on
/// its default window; while the psize that rho asks for (min_psize_for_truncation at `target`)
/// is longer than the window, rho is measured again on a window grown to twice that (at most
/// 5e7 multiply-adds of power steps, ~30 ms), and kept once its decay rate -ln rho holds within
/// a factor 2 as the window grows (an intrinsic decay); a rate that keeps falling up to the
/// largest window (a diffusive matrix: a weakly dominant M-matrix, 1 - rho ~ (K / window)^2)
/// gives rho = 1 (no decay). Requires K >= 1 and n >= 4K; throws as band_decay_stats.
models::spike::SpikeDecay measure_spike_decay(const BandMatrix<double>& a, double target);
/// options.psize (validated by make_partitioning), or, when 0, models::spike::choose_psize for
/// a GPU of sm_count SMs holding resident_blocks_per_sm partition blocks each (value bytes of
/// options.precision; blocked_lu: the GPU factors with the blocked LU, SpikeSolver<T>::
/// blocked_lu), its accuracy floor from measure_spike_decay(a), which is stored in *decay when
/// decay is not null (left empty when psize was given or the shape allows no choice).
index_type resolve_psize(const BandMatrix<double>& a, const SpikeBicgstabOptions& options,
                         int sm_count, int resident_blocks_per_sm,
                         std::optional<models::spike::SpikeDecay>* decay = nullptr,
                         bool blocked_lu = false);
/// The stopping test after iteration `iteration` (0: the initial residual), in the order of
/// solvers/bicgstab.cu: converged (rel <= tolerance), status (bicgstab::DeviceStatus, or a
/// non-finite rel), max_iterations, stagnation. Sets result.status and detail and returns true
/// when the solve stops. result.residual_history must hold entries 0 .. iteration (rel last);
/// `stagnation` carries the state of solvers/stagnation.hpp's rule (started at iteration 0).
bool stop_after(SolveResult& result, int iteration, double rel, int status,
                const SpikeBicgstabOptions& options, StagnationState& stagnation);
/// The detailed run's phases in li2012 Fig. 6's order, all at zero.
std::vector<PhaseTime> empty_phases();
/// Completes a solve that runs no iteration: b = 0 (converged; the caller has set x = 0) or a
/// zero pivot in the factorization (breakdown, detail naming it). bnorm = ||b||_inf, r0 =
/// ||b - A x0||_inf. Shared by both twins.
void finish_without_iterations(SpikeBicgstabResult& result, double bnorm, double r0,
                               std::vector<PhaseTime>&& phases);
}  // namespace detail

}  // namespace kbench::solvers::spike
