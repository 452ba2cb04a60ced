// Dot-product kernel family of anzt2015 (Sec. 3.2 "From dot product to matrix-vector multiply",
// Sec. 4.3 "Tuning of merged dot products"): one dot product (DDOT), several dot products in one
// launch (MDOT) and the tall-skinny product V^T y (MDGM). Host launchers for the GPU kernels and
// their CPU reference twins (same arguments minus workspace and stream, host pointers).
//
// Conventions shared by the launchers:
// * Lengths n are element counts (std::int64_t); T is float or double; every sum is accumulated
//   in T (as BLAS xDOT does).
// * Vector and result pointers are DEVICE pointers; results stay on the device (no host round
//   trip). Launchers enqueue on `stream` and do not synchronize.
// * Single-launch reduction (anzt2015 Sec. 3.2: every multiprocessor works on every vector,
//   then the per-block partial sums are reduced), ONE kernel launch per call: each block writes
//   one partial sum per product of its chunk into `workspace`, makes them visible
//   (__threadfence) and takes a ticket from its chunk's counter in `workspace`; the block that
//   draws the last ticket sums the chunk's partials in a fixed order (block order, as the former
//   second "stage 2" kernel did: the same bits for the same grid) and writes the results; the
//   last ticket also resets the counter to 0 (kbench::reduce::grid_sum,
//   kernels/block_reduce.cuh). When the launch has one block per chunk of products (always for
//   n <= 1024) that block writes the results itself and the workspace is not touched. No
//   floating-point atomics, and the order never depends on which block finishes last: the same
//   input, device and pointer alignment give the same bits on every call.
// * `workspace` is device memory of at least dot_workspace_bytes(n, k) bytes, aligned to
//   sizeof(T), laid out as: the counter region (the first dot_counter_bytes bytes: one 32-bit
//   ticket counter per chunk of products), then the partial sums. The counter region must be
//   ZERO before the first call that needs a workspace; every call leaves it zero again, so one
//   initialization serves every later call with any n and k (the counters are at offset 0 for
//   all of them) until other work writes the region. Get a workspace ready either with
//   DotWorkspace (RAII: allocates and zeroes) or, for memory the caller owns, with
//   dot_workspace_init (a cudaMemsetAsync of the counter region, once after allocating, before
//   any call; outside CUDA-graph capture or captured as a memset node, both fine). The partial
//   sums need no initialization. While a call runs nothing else may use the workspace, and
//   between calls no other kernel may write its counter region: a workspace shared with other
//   kernels must keep the dot's counter region out of their reach (or zero it again before the
//   next dot call). A counter found at or above the number of blocks per chunk traps (the
//   launch fails; the next synchronizing CUDA call reports it as kbench::cuda_error) instead of
//   returning a wrong sum; a stale value below it cannot be detected. The launch itself is
//   capturable into a CUDA graph; each replay leaves the counters zero for the next.
// * n == 0 writes zeros to the results; k == 0 does nothing (no CUDA call).
// * Errors: std::invalid_argument, whose message names the function, the parameter and what was
//   expected, for n < 0, k outside [0, max_dot_vectors], ld < n, a null pointer that would be
//   used, or a workspace that is null, too small (the message gives the counter region and the
//   partial sums it must hold) or misaligned; these are checked before any CUDA call.
//   kbench::cuda_error when a launch fails.
#pragma once

#include "kernels/base/device_buffer.hpp"
#include "models/spmv_traffic.hpp"  // models::Traffic

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace kbench::blas {

/// Most products (MDOT pairs, MDGM columns) one call may compute.
inline constexpr int max_dot_vectors = 64;

/// MDOT processes its pairs in chunks of this many (anzt2015 Sec. 4.3 found 4 best); each chunk
/// is one row of blocks of the same launch and reads each distinct vector of the chunk once.
inline constexpr int mdot_chunk_size = 4;

/// Upper bound on the blocks per chunk of products of one launch for vectors of length n
/// (n >= 0): one block per 1024 elements, at least 1, at most 2048. The partial sums per
/// product never exceed it.
constexpr std::int64_t dot_max_blocks(std::int64_t n)
{
    constexpr std::int64_t elements_per_block = 1024;  // 256 threads x 4 elements
    constexpr std::int64_t max_blocks = 2048;
    const std::int64_t blocks = (n + elements_per_block - 1) / elements_per_block;
    return blocks < 1 ? 1 : (blocks > max_blocks ? max_blocks : blocks);
}

/// Most ticket counters one call uses: one per chunk of mdot_chunk_size pairs (mdot) or per
/// group of 8 columns (mdgm's grouped launch), 1 for dot.
inline constexpr int dot_max_counters = max_dot_vectors / mdot_chunk_size;

/// Bytes of the counter region at the start of every non-empty dot workspace: room for
/// dot_max_counters 32-bit counters, padded so that the partial sums after it start 256-byte
/// aligned. The same for every n and k, so calls of any shape on one workspace share it.
inline constexpr std::size_t dot_counter_bytes = 256;

/// Bytes of device workspace dot, mdot and mdgm need for k simultaneous sums of length n, for
/// either T: dot_counter_bytes of counters followed by k * dot_max_blocks(n) partial sums of
/// sizeof(double) bytes, or 0 when one block suffices (n <= 1024) or k == 0 (CUB-style size
/// query; no device access). Nondecreasing in n and in k, so the size for the largest n and k
/// serves every smaller call. Throws std::invalid_argument for n < 0 or k outside
/// [0, max_dot_vectors].
std::size_t dot_workspace_bytes(std::int64_t n, int k);

/// Makes caller-owned device memory a ready dot workspace: zeroes its counter region (the
/// first dot_counter_bytes bytes) with one cudaMemsetAsync on `stream`; call once after
/// allocating (and again only if other work wrote the region), before the first dot, mdot or
/// mdgm on it, ordered before them (same stream, or synchronize). Does nothing (no CUDA call)
/// when workspace_bytes == 0. Throws std::invalid_argument (naming the parameter) for a null
/// workspace with workspace_bytes > 0 or 0 < workspace_bytes < dot_counter_bytes;
/// kbench::cuda_error when the memset fails.
void dot_workspace_init(void* workspace, std::size_t workspace_bytes, cudaStream_t stream);

/// RAII owner of a ready dot workspace (see the file comment): dot_workspace_bytes(n, k) bytes
/// of device memory with the counter region zeroed, freed on destruction. Pass data() and
/// bytes() to dot, mdot and mdgm for any n' and k' with dot_workspace_bytes(n', k') <= bytes().
/// Use it for dot calls only: other kernels must not write its memory. Move-only.
class DotWorkspace {
public:
    /// Empty (data() null, bytes() 0): enough for calls that need no workspace.
    DotWorkspace() = default;
    /// Allocates and zeroes the counter region (cudaMemset and a device synchronization, so
    /// work on any stream may use it at once); no CUDA call when dot_workspace_bytes(n, k) is 0.
    /// Not for use during stream capture. Throws std::invalid_argument as dot_workspace_bytes
    /// does, kbench::cuda_error when allocating or zeroing fails.
    DotWorkspace(std::int64_t n, int k);

    void* data() noexcept { return buffer_.data(); }
    std::size_t bytes() const noexcept { return buffer_.bytes(); }
    bool empty() const noexcept { return buffer_.empty(); }

private:
    device_buffer<unsigned char> buffer_;
};

/// DDOT: *result = sum_i x[i] * y[i] for device vectors x, y of n elements (contiguous, unit
/// stride) and a device scalar `result` (overwritten). x == y is allowed (squared 2-norm).
/// Workspace and errors: see the file comment (k = 1). Source: anzt2015 Sec. 3.2, 4.3 (the
/// cuBLAS ddot baseline of Fig. 8).
template <typename T>
void dot(std::int64_t n, const T* x, const T* y, T* result, void* workspace,
         std::size_t workspace_bytes, cudaStream_t stream);

/// MDOT: result[i] = sum_j x[i][j] * y[i][j] for i < k (0 <= k <= max_dot_vectors), in ONE
/// launch. x and y are HOST arrays of k device pointers to vectors of n elements; result
/// is a device array of k elements. Pairs are grouped in chunks of mdot_chunk_size (pairs 4c ..
/// 4c+3); inside a chunk every distinct vector pointer is read once, so a vector shared by
/// several pairs of the chunk (y[i] == y[j], x[i] == x[j], x[i] == y[i]) costs one read.
/// Workspace and errors: see the file comment. Source: anzt2015 Sec. 3.2 (simultaneous dot
/// products sharing a vector), Sec. 4.3 (chunk size 4).
template <typename T>
void mdot(std::int64_t n, int k, const T* const* x, const T* const* y, T* result,
          void* workspace, std::size_t workspace_bytes, cudaStream_t stream);

/// MDGM (tall-skinny V^T y): result[j] = sum_i V[i + j*ld] * y[i] for j < k, where V is an
/// n x k column-major device matrix with leading dimension ld >= n (rows n..ld-1 of each column
/// are never read), y a device vector of n elements and result a device array of k elements.
/// One pass: each thread reads y[i] once and keeps k accumulators, so y is read once for all k
/// <= max_dot_vectors columns; at small n, where the rows alone leave SMs idle, and wherever y
/// fits in half the L2 cache, columns are taken in groups of 8 by separate blocks of one wave
/// (fewer registers, more loads in flight) and y is read once per group, from L2 after the
/// first (deterministic either way). Workspace and errors: see the file comment (also ld < n). Source: anzt2015 Sec. 3.2
/// (A^T x for tall and skinny A, all multiprocessors on every column), Fig. 7.
template <typename T>
void mdgm(std::int64_t n, int k, const T* V, std::int64_t ld, const T* y, T* result,
          void* workspace, std::size_t workspace_bytes, cudaStream_t stream);

/// Vector reads per element that mdot makes for these k pairs (host arrays of pointers): the
/// number of distinct pointers in each chunk of mdot_chunk_size pairs, summed over the chunks
/// (2k when nothing is shared, k + ceil(k/4) when all pairs share one y). Pointers are only
/// compared. Throws std::invalid_argument as mdot does for k and the arrays.
template <typename T>
int mdot_vectors_read(int k, const T* const* x, const T* const* y);

// ---- Traffic and flop models (bytes of device memory, flops), anzt2015 Table 1 style. ------
// `partial_blocks` is the number of blocks per chunk of products (G): 1 (the default) means the
// single-block path with no partial sums; pass dot_max_blocks(n) for an upper bound on the cost
// of the partials, which is at most 1/1024 of the vector reads per product. With G > 1 every
// block writes its partial sums and the last block of the same launch reads them all back
// (from L2 in practice; counted as device memory here). The ticket counters (one 4-byte atomic
// per block) are not counted.

/// Traffic of dot on vectors of n elements of value_bytes bytes each.
constexpr models::Traffic dot_traffic(std::int64_t n, int value_bytes,
                                      std::int64_t partial_blocks = 1)
{
    const double partials = partial_blocks > 1 ? static_cast<double>(partial_blocks) : 0.0;
    models::Traffic t;
    t.bytes_read = static_cast<double>(n) * value_bytes    // x
                   + static_cast<double>(n) * value_bytes  // y
                   + partials * value_bytes;               // partial sums, read by the last block
    t.bytes_written = 1.0 * value_bytes                    // *result
                      + partials * value_bytes;            // partial sums, one per block
    t.flops = 2.0 * static_cast<double>(n);                // one multiply + one add per element
    return t;
}

/// Traffic of mdot on k pairs of vectors of n elements, `vectors_read` being
/// mdot_vectors_read(k, x, y) (between k + ceil(k/4) and 2k).
constexpr models::Traffic mdot_traffic(std::int64_t n, int k, int vectors_read, int value_bytes,
                                       std::int64_t partial_blocks = 1)
{
    const double partials =
        partial_blocks > 1 ? static_cast<double>(partial_blocks) * k : 0.0;
    models::Traffic t;
    t.bytes_read = static_cast<double>(vectors_read) * static_cast<double>(n) *
                       value_bytes                          // distinct vectors, once per chunk
                   + partials * value_bytes;                // partials, read by the last blocks
    t.bytes_written = static_cast<double>(k) * value_bytes  // result[0..k)
                      + partials * value_bytes;             // partial sums, per block and pair
    t.flops = 2.0 * static_cast<double>(n) * k;             // multiply + add per element per pair
    return t;
}

/// Traffic of mdgm on an n x k matrix V and a vector y of n elements.
constexpr models::Traffic mdgm_traffic(std::int64_t n, int k, int value_bytes,
                                       std::int64_t partial_blocks = 1)
{
    const double partials =
        partial_blocks > 1 ? static_cast<double>(partial_blocks) * k : 0.0;
    models::Traffic t;
    t.bytes_read = static_cast<double>(n) * k * value_bytes  // V, the n rows of each column
                   + static_cast<double>(n) * value_bytes    // y, once for all columns
                   + partials * value_bytes;                 // partials, read by the last blocks
    t.bytes_written = static_cast<double>(k) * value_bytes   // result[0..k)
                      + partials * value_bytes;              // partial sums, per block and column
    t.flops = 2.0 * static_cast<double>(n) * k;              // multiply + add per element per column
    return t;
}

namespace reference {

// CPU reference twins: host pointers, no workspace, no stream; each product summed in
// long double in index order, then rounded once to T. Same argument checks and exceptions as
// the launchers (ld, k and null pointers), with "kbench::blas::reference::" in the messages.

/// *result = sum_i x[i] * y[i].
template <typename T>
void dot(std::int64_t n, const T* x, const T* y, T* result);

/// result[i] = x[i] . y[i] for i < k (x, y: arrays of k host pointers).
template <typename T>
void mdot(std::int64_t n, int k, const T* const* x, const T* const* y, T* result);

/// result[j] = V(:, j) . y for an n x k column-major V with leading dimension ld >= n.
template <typename T>
void mdgm(std::int64_t n, int k, const T* V, std::int64_t ld, const T* y, T* result);

}  // namespace reference

namespace detail {

// Argument checks shared by the launchers and the references (defined in kernels/dot.cu, no
// CUDA call). `who` is the function's qualified name; each throws std::invalid_argument.
template <typename T>
void check_dot_args(const char* who, std::int64_t n, const T* x, const T* y, const T* result);
template <typename T>
void check_mdot_args(const char* who, std::int64_t n, int k, const T* const* x,
                     const T* const* y, const T* result);
template <typename T>
void check_mdgm_args(const char* who, std::int64_t n, int k, const T* V, std::int64_t ld,
                     const T* y, const T* result);

// The counter region (dot_counter_bytes, the same as gram_counter_bytes) at the start of a dot
// or gram workspace, shared by dot_workspace_init / DotWorkspace and gram_workspace_init /
// GramWorkspace (`family` is "dot" or "gram", named in the errors). init_counter_region checks
// the arguments as <family>_workspace_init documents and zeroes the region with cudaMemsetAsync
// on `stream`; zero_counter_region_now zeroes it with cudaMemset and a device synchronization.
void init_counter_region(const char* family, void* workspace, std::size_t workspace_bytes,
                         cudaStream_t stream);
void zero_counter_region_now(void* workspace);

}  // namespace detail
}  // namespace kbench::blas
