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
// * Two-stage reduction (anzt2015 Sec. 3.2: every multiprocessor works on every vector, then the
//   per-block partial sums are reduced): stage 1 writes one partial sum per block and per
//   product into `workspace`; stage 2 is a second small kernel, one block per product, that sums
//   those partials in a fixed order. When stage 1 runs one block per chunk of products (always
//   for n <= 1024) it writes the results itself and stage 2 is not launched. No floating-point
//   atomics: the same input, device and pointer alignment give the same bits on every call.
// * `workspace` is scratch device memory of at least dot_workspace_bytes(n, k) bytes, aligned
//   to sizeof(T); it holds nothing between calls (no initialization needed) and must not be
//   used by other work while the call runs.
// * n == 0 writes zeros to the results; k == 0 does nothing (no CUDA call).
// * Errors: std::invalid_argument, whose message names the function, the parameter and what was
//   expected, for n < 0, k outside [0, max_dot_vectors], ld < n, a null pointer that would be
//   used, or a workspace that is null, too small or misaligned; these are checked before any
//   CUDA call. kbench::cuda_error when a launch fails.
#pragma once

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

/// Upper bound on the blocks of one stage-1 launch for vectors of length n (n >= 0): one block
/// per 1024 elements, at least 1, at most 2048. The partial sums per product never exceed it.
constexpr std::int64_t dot_max_blocks(std::int64_t n)
{
    constexpr std::int64_t elements_per_block = 1024;  // 256 threads x 4 elements
    constexpr std::int64_t max_blocks = 2048;
    const std::int64_t blocks = (n + elements_per_block - 1) / elements_per_block;
    return blocks < 1 ? 1 : (blocks > max_blocks ? max_blocks : blocks);
}

/// Bytes of device workspace dot, mdot and mdgm need for k simultaneous sums of length n, for
/// either T: k * dot_max_blocks(n) partial sums of sizeof(double) bytes, or 0 when one block
/// suffices (n <= 1024) or k == 0 (CUB-style size query; no device access). Throws
/// std::invalid_argument for n < 0 or k outside [0, max_dot_vectors].
std::size_t dot_workspace_bytes(std::int64_t n, int k);

/// DDOT: *result = sum_i x[i] * y[i] for device vectors x, y of n elements (contiguous, unit
/// stride) and a device scalar `result` (overwritten). x == y is allowed (squared 2-norm).
/// Workspace and errors: see the file comment (k = 1). Source: anzt2015 Sec. 3.2, 4.3 (the
/// cuBLAS ddot baseline of Fig. 8).
template <typename T>
void dot(std::int64_t n, const T* x, const T* y, T* result, void* workspace,
         std::size_t workspace_bytes, cudaStream_t stream);

/// MDOT: result[i] = sum_j x[i][j] * y[i][j] for i < k (0 <= k <= max_dot_vectors), in ONE
/// stage-1 launch. x and y are HOST arrays of k device pointers to vectors of n elements; result
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
/// <= max_dot_vectors columns; at small n, where the rows alone leave SMs idle, columns are
/// taken in groups of 8 by separate blocks and y is read once per group (deterministic either
/// way). Workspace and errors: see the file comment (also ld < n). Source: anzt2015 Sec. 3.2
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
// `partial_blocks` is the number of stage-1 blocks: 1 (the default) means the single-block path
// with no partial sums; pass dot_max_blocks(n) for an upper bound on the two-stage cost, which
// is at most 1/1024 of the vector reads per product.

/// Traffic of dot on vectors of n elements of value_bytes bytes each.
constexpr models::Traffic dot_traffic(std::int64_t n, int value_bytes,
                                      std::int64_t partial_blocks = 1)
{
    const double partials = partial_blocks > 1 ? static_cast<double>(partial_blocks) : 0.0;
    models::Traffic t;
    t.bytes_read = static_cast<double>(n) * value_bytes    // x
                   + static_cast<double>(n) * value_bytes  // y
                   + partials * value_bytes;               // partial sums, read by stage 2
    t.bytes_written = 1.0 * value_bytes                    // *result
                      + partials * value_bytes;            // partial sums, written by stage 1
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
                   + partials * value_bytes;                // partial sums, read by stage 2
    t.bytes_written = static_cast<double>(k) * value_bytes  // result[0..k)
                      + partials * value_bytes;             // partial sums, written by stage 1
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
                   + partials * value_bytes;                 // partial sums, read by stage 2
    t.bytes_written = static_cast<double>(k) * value_bytes   // result[0..k)
                      + partials * value_bytes;              // partial sums, written by stage 1
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

}  // namespace detail
}  // namespace kbench::blas
