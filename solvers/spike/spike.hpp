// Truncated SPIKE for banded systems (li2012 Sec. 1.2-1.3, 2.1-2.4): per-partition banded LU
// and UL factorizations without pivoting, the spike tips, the block-diagonal reduced system of
// the truncated algorithm, and its application as a preconditioner z = M^{-1} r. SpikeSolver
// runs on the GPU (spike.cu); SpikeReference is its CPU twin with the same steps and layouts
// (spike_reference.cpp), against which the GPU is tested.
//
// Notation (partition i = 0..p-1 holds rows and columns off_i .. off_i + n_i - 1):
//   A_i  the n_i x n_i diagonal block;
//   B_i  = A(last K rows of partition i, first K columns of partition i+1), K x K lower
//        triangular (i < p-1);
//   C_i  = A(first K rows of partition i, last K columns of partition i-1), K x K upper
//        triangular (i > 0);
//   V_i^b = bottom K x K of A_i^{-1} [0; B_i]   (bottom tip of the right spike, i < p-1),
//   W_i^t = top K x K of A_i^{-1} [C_i; 0]      (top tip of the left spike, i > 0).
// Both tips are exact by default: V_i^b = U_bb^{-1} L_bb^{-1} B_i from the bottom-right K x K corners of
// A_i = L U, and W_i^t likewise from A_i = U' L' (computed as the LU of the row- and
// column-reversed block). li2012 Sec. 2.2 approximates the UL by factoring only the top 2K x 2K
// corner; kbench factors the whole block by default (SpikeTips::exact), so the only
// approximation is the truncation; SpikeTips::corner_ul reproduces li2012's corner UL.
// Interface i (between partitions i and i+1, i = 0..p-2) has the 2K x 2K reduced block
//   R_i = [[I, V_i^b], [W_{i+1}^t, I]],   R_i [x_i^b; x_{i+1}^t] = [g_i^b; g_{i+1}^t],
// which drops the couplings to the neighbouring interfaces (li2012 Sec. 1.3, M_WV).
// apply: g = D^{-1} r (D = diag(A_i)), solve every R_i, then x_i = A_i^{-1} (r_i - [0; B_i
// x_{i+1}^t] - [C_i x_{i-1}^b; 0]) (purification). For p = 2 nothing is dropped and M = A.
#pragma once

#include "kernels/base/cuda_handles.hpp"
#include "kernels/base/device_buffer.hpp"
#include "solvers/spike/band_lu_blocked.hpp"
#include "matrices/banded.hpp"
#include "solvers/solve_result.hpp"

#include <cuda_runtime_api.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kbench::solvers::spike {

/// How rows are split (li2012 Sec. 1.2, 2.5): p = floor(n / psize) partitions of psize rows,
/// the last one also takes the remainder n - p * psize (so it has psize..2 psize - 1 rows).
struct Partitioning {
    index_type n = 0;
    index_type K = 0;
    index_type psize = 0;
    index_type count = 0;  // p
    index_type offset(index_type i) const { return i * psize; }
    index_type size(index_type i) const { return i + 1 < count ? psize : n - (count - 1) * psize; }
};

/// The partitioning of an n x n matrix of half-bandwidth K. Throws std::invalid_argument naming
/// psize, n and K unless K >= 1 and 2K <= psize <= n / 2 (li2012 Sec. 1.2: smaller partitions
/// cannot hold both spike tips; larger ones leave a single partition).
Partitioning make_partitioning(index_type n, index_type K, index_type psize);

/// Whether the CPU SPIKE (SpikeReference, spike_bicgstab_omp) was built with OpenMP
/// (solvers/CMakeLists.txt: find_package(OpenMP); without it every CPU solve runs on one thread).
bool cpu_openmp();

/// The threads "every core" means for the CPU SPIKE: omp_get_max_threads() (OMP_NUM_THREADS when
/// set, else the cores OpenMP sees) with OpenMP, 1 without.
int cpu_max_threads();

/// Partitions of a multi-core CPU solve on `threads` threads: one partition per thread, brought
/// within [2, floor(N / 2K)]. Derivation (li2012 gives no CPU rule: it compared against MKL's
/// banded LU, Sec. 3.1): SPIKE partitions the system over the processors (li2012 Sec. 1, stage
/// a1; Polizzi & Sameh's SPIKE, li2012 refs. [1, 2], one partition per processor), and on a CPU
/// each partition's LU/UL and substitutions are sequential sweeps (li2012 Sec. 2.2: psize - 1
/// dependent steps), so a partition is one thread's work. p = threads keeps every thread busy
/// with the largest partitions that do: the LU/UL and solve work (~4K^2 N and ~8K N flops with
/// exact tips) does not depend on p, but each further partition adds an interface (two K x K
/// tips and a 2K x 2K reduced block, ~12 K^3 flops) and shortens the partitions, and the
/// truncation error grows as psize shrinks (models::spike::truncation_error). Fewer than 2
/// partitions is no SPIKE (li2012 Sec. 1.2: psize <= N/2); more than floor(N / 2K) leaves
/// partitions shorter than 2K (psize >= 2K), so fewer threads than asked then work. Throws
/// std::invalid_argument naming threads (< 1), K (< 1) or N (< 4K: no valid psize).
index_type cpu_partition_count(index_type n, index_type K, int threads);

/// The psize of li2012 Sec. 1.2's partitioning (p = floor(N / psize), the last partition taking
/// the remainder) for `partitions` requested partitions: floor(N / partitions). It gives exactly
/// that many partitions when N >= partitions^2 (the last one then has fewer than `partitions`
/// extra rows), else a few more (never fewer, so every thread keeps a partition). Throws
/// std::invalid_argument naming partitions unless 2 <= partitions <= floor(N / 2K) (each
/// partition needs 2K rows; this also rejects more partitions than rows), and naming K or N as
/// cpu_partition_count does.
index_type psize_for_partitions(index_type n, index_type K, index_type partitions);

enum class SpikeCode { ok, zero_pivot };
/// Where a zero pivot showed: the LU or the UL of a diagonal block, or the LU of a reduced block.
enum class SpikeStage { none, lu, ul, reduced };

/// Outcome of a factorization. A pivot u is zero when it is not finite or |u| <= eps * s, eps
/// the machine epsilon of T and s the largest |entry| of that row of A (lu, ul) or of R_i
/// (reduced); the factorization stops there, nothing is NaN-filled. With several, the one
/// reported is in the lowest partition (interface), LU before UL, first in elimination order.
struct SpikeStatus {
    SpikeCode code = SpikeCode::ok;
    SpikeStage stage = SpikeStage::none;
    index_type partition = -1;  // partition i (lu, ul) or interface i (reduced: partitions i, i+1)
    index_type row = -1;        // global row of the pivot (reduced: row off_{i+1} - K + k of
                                // unknown k of R_i)
    bool ok() const { return code == SpikeCode::ok; }
    /// e.g. "zero pivot in the LU of partition 2 at row 4096" or "ok".
    std::string message() const;
};

const char* to_string(SpikeStage stage);

/// Where the top spike tips W_{i+1}^t come from (li2012 Sec. 2.2).
enum class SpikeTips {
    exact,      // UL of the whole diagonal block A_{i+1}: the exact tip
    corner_ul,  // li2012 Sec. 2.2 (l = 2K): UL of the top-left 2K x 2K corner of A_{i+1} only,
                // W^t = top K x K of corner^{-1} [C_{i+1}; 0]; its error grows as the diagonal
                // dominance falls. Equal to exact when psize = 2K. Partition 0 gets no UL.
};
/// "exact" or "corner_ul"; parse_spike_tips throws std::invalid_argument naming both.
const char* to_string(SpikeTips tips);
SpikeTips parse_spike_tips(const std::string& name);

/// Truncated SPIKE on the CPU in T (float or double), host memory: SpikeSolver's CPU twin (the
/// same steps, layouts and status rules) on one thread, and the multi-core CPU solver of the
/// li2012 study (spike_bicgstab_omp) on several: every per-partition step (row scales, block
/// reversal, LU/UL, spike tips, reduced blocks; in apply the substitutions, reduced solves and
/// purification) is an OpenMP loop over the partitions (interfaces), static schedule, one
/// partition's work on one thread. A partition's arithmetic does not depend on the thread
/// count, so factors, statuses and apply's z are the same bit for bit for every `threads`.
/// Built without OpenMP (cpu_openmp() false) it runs on one thread whatever `threads` says.
template <typename T>
class SpikeReference {
public:
    /// threads >= 1: the OpenMP threads of the per-partition loops (1: serial, the twin).
    /// Throws std::invalid_argument naming threads for threads < 1.
    explicit SpikeReference(int threads = 1);
    /// Partitions `a` (band storage, see matrices/banded.hpp), factors every diagonal block
    /// (LU and UL, no pivoting; the UL as `tips` says), computes the spike tips and factors
    /// every reduced block (dense LU with partial pivoting). Returns the first zero pivot as a
    /// status (then apply throws). With `phases`, adds the host wall time (seconds) of "LU/UL",
    /// "spikes" and "reduced system" (group "setup") to the entries of those names, appending
    /// missing ones; a factorization stopped by a zero pivot adds only the phases it ran.
    /// Throws std::invalid_argument for a bad psize (make_partitioning) or an ab of the wrong
    /// size. Source: li2012 Sec. 1.2, 1.3, 2.2.
    SpikeStatus factor(const BandMatrix<T>& a, index_type psize,
                       SpikeTips tips = SpikeTips::exact,
                       std::vector<PhaseTime>* phases = nullptr);
    /// z = M^{-1} r, r and z host arrays of n entries (may not overlap). Throws std::logic_error
    /// without a successful factor(). Source: li2012 Sec. 1.3.
    void apply(const T* r, T* z) const;
    /// The same with double r and z, converted to and from T at the boundary (li2012 Sec. 2.4:
    /// the preconditioner in float inside a double BiCGStab).
    void apply_mixed(const double* r, double* z) const;
    index_type partition_count() const { return part_.count; }
    const Partitioning& partitioning() const { return part_; }
    /// Threads the per-partition loops run on: after a factor(), min(team, partitions) with team
    /// the size of the OpenMP team its first loop got (at most threads; less when OpenMP gives
    /// fewer, e.g. under OMP_THREAD_LIMIT), since no more threads than partitions work; before,
    /// the requested threads; 1 without OpenMP.
    int threads_used() const;

private:
    template <typename In, typename Out>
    void apply_impl(const In* r, Out* z) const;

    int threads_ = 1;
    int team_ = 1;  // the OpenMP team size of factor()'s first loop
    Partitioning part_;
    bool factored_ = false;
    // The O(N K) arrays are not zero-filled when allocated: factor() writes every slot in the
    // loop over the partitions, each partition's slots (and pages) on its own thread.
    std::unique_ptr<T[]> fac_;    // n (2K+1): LU factors of every A_i in place of A (band
                                  // storage, ldab 2K+1); the couplings B_i, C_i stay in the
                                  // out-of-block band slots
    std::unique_ptr<T[]> rev_;    // n (2K+1): LU of the reversed A_i (= UL of A_i), same layout
    std::unique_ptr<T[]> scale_;  // n: max |A(row, :)| per row
    std::vector<T> vtip_;   // (p-1) blocks K x K column-major: V_i^b
    std::vector<T> wtip_;   // (p-1) blocks: W_{i+1}^t
    std::vector<T> rlu_;    // (p-1) blocks 2K x 2K column-major: LU of R_i
    std::vector<int> rpiv_;  // (p-1) x 2K row interchanges (LAPACK getrf convention, 0-based)
};

/// Seconds per sequential step of the per-partition kernels (SpikeSolver<T>::step_seconds).
struct StepSeconds {
    double lu_pivot = 0.0;   // one pivot of the LU/UL kernel
    double solve_row = 0.0;  // one row of a substitution sweep
    // One wave of the spike-tip kernel and of the reduced blocks' LU kernel (one block per tip
    // or interface), and the blocks resident on the device in a wave; 0 where that kernel does
    // not run for K (the tips by batched cuBLAS, the reduced blocks by batched getrf).
    double tips_wave = 0.0, tips_slots = 0.0;
    double reduced_wave = 0.0, reduced_slots = 0.0;
    // One block-row step of the blocked LU (band_lu_blocked.hpp: batched getrf, two trsm and
    // gemm) over a batch of b blocks: blocked_fixed + b x blocked_per_block seconds; 0 where
    // the LU is not blocked.
    double blocked_fixed = 0.0, blocked_per_block = 0.0;
};

/// Truncated SPIKE on the GPU in T (float or double): one thread block per partition for the
/// factorizations and substitutions (li2012 Sec. 2.2, window-sliding; for K <= 32 one warp
/// with the window in registers, else the window in shared memory) where (K+1)(2K+1) values
/// fit in the device's per-block opt-in limit (227 KB on Hopper: K <= 119 in double, 127 in
/// float); for larger K the LU/UL of every partition is the
/// blocked one of band_lu_blocked.hpp (batched cuBLAS over K x K blocks, kbench's), and
/// one block per interface for the reduced blocks. Owns its device memory (about
/// 2 n (2K+1) + 6 p K^2 values, plus 3 n K for the blocked LU); move-only.
/// All work is on the caller's stream.
template <typename T>
class SpikeSolver {
public:
    SpikeSolver() = default;
    /// As SpikeReference::factor; `a` is copied to the device. Synchronizes `stream` twice (to
    /// read the statuses). With `phases`, the phases are timed with CUDA events on `stream`
    /// (and wrapped in NVTX ranges of the same names): "LU/UL" covers the row scales, the block
    /// reversal and the LU/UL kernel (not the copy of `a`), "spikes" the tips kernel, "reduced
    /// system" the reduced blocks' LU; without it no event is recorded. Throws
    /// std::invalid_argument (psize, size of ab, K > 256) and kbench::cuda_error.
    SpikeStatus factor(const BandMatrix<T>& a, index_type psize, cudaStream_t stream,
                       SpikeTips tips = SpikeTips::exact,
                       std::vector<PhaseTime>* phases = nullptr);
    /// z = M^{-1} r for device arrays of n entries (may not overlap), asynchronous on `stream`.
    /// Throws std::logic_error without a successful factor().
    void apply(const T* r, T* z, cudaStream_t stream);
    /// The same with double device arrays r and z, converted in the kernels (li2012 Sec. 2.4).
    void apply_mixed(const double* r, double* z, cudaStream_t stream);
    index_type partition_count() const { return part_.count; }
    const Partitioning& partitioning() const { return part_; }
    /// Seconds of the last factor()'s copy of the band from the host to the device (CUDA
    /// events; pageable host memory): the part of a solve that a band already on the device
    /// would not pay.
    double upload_seconds() const { return upload_seconds_; }
    /// Thread blocks of the per-partition kernels (factorization and substitution, the fewer of
    /// the two) resident on one SM of the current device for half-bandwidth K, at least 1: the
    /// resident_blocks_per_sm that models::spike::choose_psize takes. Throws
    /// std::invalid_argument for K < 1, kbench::cuda_error on CUDA failures.
    static int resident_blocks_per_sm(index_type K);
    /// Whether factor() runs the blocked LU (band_lu_blocked.hpp) for half-bandwidth K on the
    /// current device: the window-sliding kernel's window does not fit. Throws
    /// std::invalid_argument for K < 1, kbench::cuda_error on CUDA failures.
    static bool blocked_lu(index_type K);
    /// Seconds per sequential step of the per-partition kernels factor() and apply() run for
    /// half-bandwidth K, measured on the current device with every thread-block slot busy (the
    /// figures models::spike::MachineRates::lu_step_s and solve_step_s): `lu_pivot`, one pivot
    /// of the LU/UL kernel (0 where blocked_lu(K): no kernel walks the pivots then); `solve_row`,
    /// one row of a substitution sweep. Each is the difference of the kernel's time (CUDA
    /// events, median of 3) on partitions of 1280 and of 256 rows of a diagonally dominant band,
    /// over 1024 (2 x 1024 for the sweeps, forward and backward), so launch and ramp costs
    /// cancel; the tips' and the reduced blocks' waves are the difference of two waves' and one
    /// wave's times (no bad pivot: the reduced blocks' V and W are small); where blocked_lu(K),
    /// one block-row step of the blocked LU is the difference of its time on blocks of 6K and
    /// of 2K rows over 4, at a batch of as many blocks as SMs and of 3 times that, and its fixed
    /// and per-block parts the line through the two. Measured once per K
    /// and precision in a process. Throws std::invalid_argument for
    /// K < 1 or K > 256, kbench::cuda_error on CUDA failures.
    static StepSeconds step_seconds(index_type K);

private:
    template <typename In, typename Out>
    void apply_impl(const In* r, Out* z, cudaStream_t stream);

    Partitioning part_;
    bool factored_ = false;
    double upload_seconds_ = 0.0;
    device_buffer<T> fac_, rev_, scale_, vtip_, wtip_, rlu_, g_, xhat_;
    device_buffer<int> rpiv_, status_;
    // Large K: the blocked LU (blocked_lu(K)), the reduced blocks' LU and the tips that do not
    // fit in shared memory on batched cuBLAS (ptrs_: the batches' pointer arrays).
    detail::BlockedBandLu<T> blocked_lu_;
    std::optional<cublas_handle> blas_;
    device_buffer<T> rscale_;
    device_buffer<T*> ptrs_;
    device_buffer<int> rinfo_;
};

namespace detail {
/// The status to report from per-partition results: lu[i], ul[i] (i < p) and red[i] (i < p-1)
/// hold the local elimination step of the first zero pivot, or -1. Shared by both twins.
SpikeStatus pick_status(const Partitioning& part, const std::vector<int>& lu,
                        const std::vector<int>& ul, const std::vector<int>& red);
/// Rows of the UL factorization of partition i: its size (exact), 2K (corner_ul, i > 0) or 0
/// (corner_ul, i = 0: no UL). The factored rows are the top ones of A_i, i.e. the bottom-right
/// corner of the reversed block. The CPU twin's rule; band_lu_kernel applies the same.
index_type ul_rows(const Partitioning& part, index_type i, SpikeTips tips);
/// Adds `seconds` to the phase `name` of `phases` (one more call), appending it when missing.
void add_phase(std::vector<PhaseTime>& phases, const char* name, const char* group,
               double seconds);
}  // namespace detail

}  // namespace kbench::solvers::spike
