// Tall-skinny kernel family of yamazaki2014 Sec. V-C (Fig. 11): the products that block
// orthogonalization (BOrth) and tall-skinny QR (TSQR) are made of, for an n x k block V with
// n >> k (n up to 1e8, k <= max_block_columns):
// * gemv_t_per_column  r = V^T y, one thread block per column (the paper's dot-product-based
//                      DGEMV); the one-pass V^T y is kernels/dot.hpp's mdgm.
// * gemm_rowwise       W := beta W + alpha V B for a small k_v x k_w matrix B (v -= V r, V := V Q,
//                      block CGS's W := W - V (V^T W)); one pass over the rows.
// * trsm_right_upper   V := V R^-1 for an upper triangular k x k R (CholQR, SVQR).
// * gram               B = V^T W (Gram matrix, V^T V when W == V) in one fused launch (the
//                      per-block partial products summed by the last block to finish), two
//                      for products of more than 64 summed entries.
// * gram_batched       the same through cuBLAS batched DGEMM over h-row blocks, then a reduction
//                      (the paper's batched DGEMM).
// Host launchers for the GPU kernels; CPU reference twins in namespace reference.
//
// Conventions shared by the launchers:
// * Tall blocks (V, W) are column-major DEVICE arrays with n rows and a leading dimension
//   ld >= n (rows n..ld-1 of each column are never touched). Small matrices (B, R, r) are
//   column-major DEVICE arrays with a leading dimension >= their row count; all sizes are
//   element counts. T is float or double; sums are accumulated in T.
// * Launchers enqueue on `stream` and do not synchronize; results stay on the device.
// * Deterministic: no floating-point atomics; the same input, device, shapes and alignment give
//   the same bits on every call.
// * Workspace (where taken): device scratch of at least the size query's bytes, aligned to 256
//   bytes (cudaMalloc alignment). gram_batched's holds nothing between calls. gram's starts with
//   a region of ticket counters (gram_counter_bytes) that must be zero before the first call
//   that needs a workspace and that every call leaves zero (see gram); the rest holds nothing
//   between calls.
// * n == 0 writes zeros to the results of reductions (r, B) and leaves updates untouched; k == 0
//   does nothing.
// * Errors: std::invalid_argument, naming the function, the parameter and what was expected,
//   for n < 0, k outside [0, max_block_columns], a leading dimension too small, a null pointer
//   that would be used, or a bad workspace; checked before any CUDA call. kbench::cuda_error
//   when a launch or a cuBLAS call fails.
#pragma once

#include "kernels/base/device_buffer.hpp"
#include "models/spmv_traffic.hpp"  // models::Traffic

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace kbench::blas {

/// Most columns a tall block may have in this family.
inline constexpr int max_block_columns = 64;

/// r[j] = sum_i V[i + j*ld] * y[i] for j < k: one thread block per column sums the whole column
/// (no second stage), so the grid has exactly k blocks. r is a device array of k elements.
/// Source: yamazaki2014 Sec. V-C (the MAGMA DGEMV for tall-skinny matrices, "each thread block
/// computes a dot product between a column and v").
template <typename T>
void gemv_t_per_column(std::int64_t n, int k, const T* V, std::int64_t ld, const T* y, T* r,
                       cudaStream_t stream);

/// W := beta * W + alpha * V * B, where V is n x kv (ldv), B is kv x kw (ldb >= kv, device) and W
/// is n x kw (ldw); 0 <= kv, kw <= max_block_columns (kv == 0: W := beta W). Each row of W depends
/// only on the same row of V, and the thread that owns a row loads all of that row of V before it
/// stores any of W's, so W may be columns of V with the same leading dimension: W == V (in place,
/// kv == kw, ldw == ldv), e.g. V := V Q, or W = V + c ldv (c + kw <= kv), e.g. GMRES's fused
/// [u, w] := [V_j, u, w] C (solvers/gmres_device.hpp). Any other overlap of W with V or B is not.
/// beta == 0 does not read W. Cases:
/// v -= V r (kw = 1, alpha = -1, beta = 1), V := V Q (alpha = 1, beta = 0, W == V), block
/// CGS's W := W - V C.
/// Source: yamazaki2014 Sec. V-A/B (the DGEMV/DGEMM updates of BOrth and TSQR).
template <typename T>
void gemm_rowwise(std::int64_t n, int kv, int kw, T alpha, const T* V, std::int64_t ldv,
                  const T* B, int ldb, T beta, T* W, std::int64_t ldw, cudaStream_t stream);

/// V := V * R^-1 in place for an upper triangular k x k device matrix R (ldr >= k; the strictly
/// lower part is not read): each row x of the result solves x R = v by forward substitution
/// over the columns. A zero or non-finite diagonal entry gives inf/NaN in V (callers check R
/// before: see solvers/orthogonalization). Source: yamazaki2014 Sec. V-B (CholQR and SVQR's
/// Q = V R^-1; MAGMA DTRSM in the paper).
template <typename T>
void trsm_right_upper(std::int64_t n, int k, T* V, std::int64_t ld, const T* R, int ldr,
                      cudaStream_t stream);

/// Bytes of the counter region at the start of every non-empty gram workspace: room for the
/// 32-bit ticket counters of one call (at most 8: one per group of 8 columns of V in the
/// kernel for W of 1 or 2 columns, else 1), padded so that the partial products after it start
/// 256-byte aligned. The same for every shape, so calls of any shape on one workspace share
/// it; equal to dot_counter_bytes (kernels/dot.hpp), so a workspace that gram and the dot
/// kernels use from the same base pointer has one counter region that both leave zero.
inline constexpr std::size_t gram_counter_bytes = 256;

/// Bytes of workspace gram needs (size query; no device access): gram_counter_bytes of ticket
/// counters, then the per-block partial kv x kw products of the first stage (one per block of
/// at least 512 rows, at most 512 blocks; value_bytes bytes per value); 0 when one block
/// suffices (n <= 512) or kv or kw is 0. Nondecreasing in n, kv, kw and value_bytes, so the
/// size for the largest shape serves every smaller call. Throws std::invalid_argument for
/// n < 0, kv or kw outside [0, max_block_columns] or value_bytes other than 4 and 8.
/// Source: yamazaki2014 Sec. V-B/C, kbench's single-launch reduction.
std::size_t gram_workspace_bytes(std::int64_t n, int kv, int kw, int value_bytes);

/// Makes caller-owned device memory a ready gram workspace: zeroes its counter region (the
/// first gram_counter_bytes bytes) with one cudaMemsetAsync on `stream`. Call it once after
/// allocating, ordered before the first gram on the memory (same stream, or synchronize), and
/// again only when other work wrote the region (a workspace lent to other kernels between gram
/// calls: before the next gram). Fine outside CUDA-graph capture or captured as a memset node.
/// Does nothing (no CUDA call) when workspace_bytes == 0. Throws std::invalid_argument
/// (naming the parameter) for a null workspace with workspace_bytes > 0 or 0 < workspace_bytes
/// < gram_counter_bytes; kbench::cuda_error when the memset fails.
/// Source: yamazaki2014 Sec. V-B/C, kbench's single-launch reduction.
void gram_workspace_init(void* workspace, std::size_t workspace_bytes, cudaStream_t stream);

/// RAII owner of a ready gram workspace: gram_workspace_bytes(n, kv, kw, value_bytes) bytes of
/// device memory with the counter region zeroed, freed on destruction. Pass data() and bytes()
/// to gram for any shape with gram_workspace_bytes(n', kv', kw', sizeof(T)) <= bytes(). Use it
/// for gram calls only (or gram and dot calls: their counter regions coincide): other kernels
/// must not write its memory. Move-only.
class GramWorkspace {
public:
    /// Empty (data() null, bytes() 0): enough for calls that need no workspace.
    GramWorkspace() = default;
    /// Allocates and zeroes the counter region (cudaMemset and a device synchronization, so
    /// work on any stream may use it at once); no CUDA call when gram_workspace_bytes(n, kv,
    /// kw, value_bytes) is 0. Not for use during stream capture. Throws std::invalid_argument
    /// as gram_workspace_bytes does, kbench::cuda_error when allocating or zeroing fails.
    GramWorkspace(std::int64_t n, int kv, int kw, int value_bytes);

    void* data() noexcept { return buffer_.data(); }
    std::size_t bytes() const noexcept { return buffer_.bytes(); }
    bool empty() const noexcept { return buffer_.empty(); }

private:
    device_buffer<unsigned char> buffer_;
};

/// B = V^T W in one fused launch: V is n x kv (ldv), W is n x kw (ldw), B is kv x kw (ldb >= kv),
/// all on the device. When W == V (same pointer, kv == kw, ldw == ldv) only the upper triangle
/// is computed and mirrored, so B = V^T V is exactly symmetric. Double uses the FP64 tensor
/// cores (mma m8n8k4); float, and W of at most 2 columns (W != V), CUDA cores. Each block sums
/// its rows into a partial product in the workspace and takes a ticket from a counter there;
/// the block that draws the last ticket sums the partials in a fixed order (per entry, in block
/// order: the same bits whichever block finishes last) and writes B, and the last ticket resets
/// the counter to 0. A product of more than 64 summed entries (W == V: the upper triangle's;
/// never with W of at most 2 columns) is summed by a second launch spread over the SMs instead,
/// in the same order (one block would take tens of microseconds over the partials of k = 64).
/// With one block (n <= 512) the block writes B itself and the workspace is not touched (it
/// may be null).
/// Workspace: device memory of at least gram_workspace_bytes(n, kv, kw, sizeof(T)) bytes,
/// aligned to sizeof(T), whose counter region is zero (GramWorkspace, or gram_workspace_init
/// once after allocating); every call leaves it zero, so one initialization serves every later
/// call of any shape until other work writes the region. Nothing else may use the workspace
/// while a call runs. A counter found at or above the number of blocks traps (the launch
/// fails; the next synchronizing CUDA call reports kbench::cuda_error) instead of returning a
/// wrong B; a stale smaller value cannot be detected. The launch is capturable into a CUDA
/// graph; each replay leaves the counters zero.
/// n == 0 writes zeros to B; kv == 0 or kw == 0 does nothing. Throws std::invalid_argument for
/// n < 0, kv or kw outside [0, max_block_columns], a leading dimension too small, a null
/// pointer that would be used, or a workspace that is null, too small or misaligned (before any
/// CUDA call); kbench::cuda_error when the launch fails.
/// Source: yamazaki2014 Sec. V-B/C (the Gram matrix of CholQR and SVQR, Fig. 11a), kbench
/// variant.
template <typename T>
void gram(std::int64_t n, int kv, const T* V, std::int64_t ldv, int kw, const T* W,
          std::int64_t ldw, T* B, int ldb, void* workspace, std::size_t workspace_bytes,
          cudaStream_t stream);

/// Bytes of workspace gram_batched needs: ceil(n / h) partial kv x kw products plus three
/// arrays of n / h device pointers (the batched GEMM's operands); 0 when n, kv or kw is 0 (size
/// query; no device access). h is the row-block height (a positive multiple of 32). Throws
/// std::invalid_argument for bad n, kv, kw, h or value_bytes (4 or 8).
std::size_t gram_batched_workspace_bytes(std::int64_t n, int kv, int kw, std::int64_t h,
                                         int value_bytes);

/// B = V^T W through cuBLAS: the rows are split into blocks of h rows (the last one shorter),
/// one batched GEMM computes every block's kv x kw product into the workspace (the last block
/// by a separate GEMM when it is shorter), and a reduction kernel sums them in a fixed order.
/// `handle` must be bound to `stream` by the caller (cublasSetStream) and use the host pointer
/// mode. Shapes as gram. Source: yamazaki2014 Sec. V-C (batched DGEMM, h a multiple of 32).
template <typename T>
void gram_batched(cublasHandle_t handle, std::int64_t n, int kv, const T* V, std::int64_t ldv,
                  int kw, const T* W, std::int64_t ldw, T* B, int ldb, std::int64_t h,
                  void* workspace, std::size_t workspace_bytes, cudaStream_t stream);

// ---- Traffic and flop models (bytes of device memory, flops; the small matrices and the
// partial sums are ignored: at most k^2 values per 1e3 rows). ------------------------------

/// r = V^T y: reads V and y once (gemv_t_per_column reads y once per column from L2 at best).
constexpr models::Traffic gemv_t_traffic(std::int64_t n, int k, int value_bytes)
{
    models::Traffic t;
    t.bytes_read = (static_cast<double>(k) + 1.0) * static_cast<double>(n) * value_bytes;
    t.bytes_written = static_cast<double>(k) * value_bytes;
    t.flops = 2.0 * static_cast<double>(n) * k;
    return t;
}

/// W := beta W + alpha V B: reads V (and W when beta != 0), writes W.
constexpr models::Traffic gemm_rowwise_traffic(std::int64_t n, int kv, int kw, bool reads_w,
                                               int value_bytes)
{
    models::Traffic t;
    t.bytes_read = (static_cast<double>(kv) + (reads_w ? kw : 0)) * static_cast<double>(n) *
                   value_bytes;
    t.bytes_written = static_cast<double>(kw) * static_cast<double>(n) * value_bytes;
    t.flops = 2.0 * static_cast<double>(n) * kv * kw;
    return t;
}

/// V := V R^-1: reads and writes V; k^2 flops per row (k(k-1)/2 multiply-adds and k divides
/// counted as k^2).
constexpr models::Traffic trsm_traffic(std::int64_t n, int k, int value_bytes)
{
    models::Traffic t;
    t.bytes_read = static_cast<double>(k) * static_cast<double>(n) * value_bytes;
    t.bytes_written = t.bytes_read;
    t.flops = static_cast<double>(n) * k * k;
    return t;
}

/// B = V^T W (symmetric: W is V, read once, and half the products).
constexpr models::Traffic gram_traffic(std::int64_t n, int kv, int kw, bool symmetric,
                                       int value_bytes)
{
    models::Traffic t;
    t.bytes_read = (static_cast<double>(kv) + (symmetric ? 0 : kw)) * static_cast<double>(n) *
                   value_bytes;
    t.bytes_written = static_cast<double>(kv) * kw * value_bytes;
    t.flops = symmetric ? static_cast<double>(n) * kv * (kv + 1)
                        : 2.0 * static_cast<double>(n) * kv * kw;
    return t;
}

namespace reference {

// CPU reference twins: host pointers, no workspace, stream or handle; every sum in long double
// in index order, rounded once to T. Same argument checks (and messages, with
// "kbench::blas::reference::") as the launchers.

template <typename T>
void gemv_t(std::int64_t n, int k, const T* V, std::int64_t ld, const T* y, T* r);

template <typename T>
void gemm_rowwise(std::int64_t n, int kv, int kw, T alpha, const T* V, std::int64_t ldv,
                  const T* B, int ldb, T beta, T* W, std::int64_t ldw);

template <typename T>
void trsm_right_upper(std::int64_t n, int k, T* V, std::int64_t ld, const T* R, int ldr);

template <typename T>
void gram(std::int64_t n, int kv, const T* V, std::int64_t ldv, int kw, const T* W,
          std::int64_t ldw, T* B, int ldb);

}  // namespace reference

namespace detail::tall_skinny {
// Argument checks shared by the launchers and the references (defined in kernels/tall_skinny.cu,
// no CUDA call); `who` is the function's qualified name; each throws std::invalid_argument.
void check_gemv_t(const char* who, std::int64_t n, int k, const void* V, std::int64_t ld,
                  const void* y, const void* r);
void check_gemm_rowwise(const char* who, std::int64_t n, int kv, int kw, const void* V,
                        std::int64_t ldv, const void* B, int ldb, const void* W,
                        std::int64_t ldw);
void check_trsm(const char* who, std::int64_t n, int k, const void* V, std::int64_t ld,
                const void* R, int ldr);
void check_gram(const char* who, std::int64_t n, int kv, const void* V, std::int64_t ldv, int kw,
                const void* W, std::int64_t ldw, const void* B, int ldb);
/// n >= 0, kv and kw in [0, max_block_columns], value_bytes 4 or 8 (the Gram size queries).
void check_gram_shape(const char* who, std::int64_t n, int kv, int kw, int value_bytes);
}  // namespace detail::tall_skinny
}  // namespace kbench::blas
