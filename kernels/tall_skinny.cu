// Tall-skinny kernels of yamazaki2014 Sec. V-C (kernels/tall_skinny.hpp): gemv_t_per_column,
// gemm_rowwise, trsm_right_upper and gram_batched (gram itself is in kernels/gram.cu).
// Declarations and conventions (shapes, workspace, errors) in kernels/tall_skinny.hpp.
//
// * gemv_t_per_column: a grid of exactly k blocks of 1024 threads; block j sums column j of V
//   times y (thread t takes rows t, t + 1024, ...), reduce::block_sum adds the 1024 sums in a
//   fixed order and thread 0 writes r[j]. One launch, no workspace (the paper's design).
// * gemm_rowwise with kw <= 2: each thread takes 4 rows one grid stride apart and streams V's
//   columns through them (no row held in registers; at most one wave of blocks).
// * gemm_rowwise with kw > 2, trsm_right_upper: one thread per row (grid-stride loop, 256-thread
//   blocks; consecutive threads take consecutive rows, so each column access is coalesced). The row
//   (K = k rounded up to a power of two, K <= 64, registers indexed statically) is read whole
//   before anything is written, which makes in-place updates safe; the small matrix (B or R) is
//   staged in shared memory and read by every thread at the same address (broadcast).
// * gram_batched: cuBLAS batched GEMM over the full h-row blocks, one GEMM for the shorter last
//   block, then sum_partials_kernel adds the per-block products in a fixed order.
//   Workspace layout (nf = n / h full blocks, nb = ceil(n / h) blocks, E = kv * kw):
//     [0, 24 nf)                     three arrays of nf device pointers: the batch's A (V_b),
//                                    B (W_b) and C (partial b) operands, written by
//                                    batch_pointers_kernel;
//     [p0, p0 + nb E sizeof(T))      p0 = 24 nf rounded up to 256: partial b (kv x kw,
//                                    column-major, leading dimension kv) at p0 + b E sizeof(T).
// Determinism: no atomics; every sum has an order fixed by the shapes alone; cuBLAS GEMM is
// deterministic for a given toolkit, architecture and SM count (cuBLAS "Results
// reproducibility").
#include "kernels/tall_skinny.hpp"

#include "kernels/divide.cuh"

#include "kernels/base/cuda_check.hpp"
#include "kernels/base/device.hpp"
#include "kernels/base/nvtx.hpp"
#include "kernels/block_reduce.cuh"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace kbench::blas {

// ---- Argument checks (shared with the reference twins; no CUDA call) ------------------------

namespace detail::tall_skinny {
namespace {

[[noreturn]] void fail(const char* who, const std::string& what)
{
    throw std::invalid_argument(std::string{who} + ": " + what);
}

std::string str(std::int64_t v) { return std::to_string(v); }

void check_n(const char* who, std::int64_t n)
{
    if (n < 0) fail(who, "n = " + str(n) + ", expected n >= 0");
}

void check_columns(const char* who, const char* name, int k)
{
    if (k < 0 || k > max_block_columns)
        fail(who, std::string{name} + " = " + str(k) + ", expected 0 <= " + name +
                      " <= max_block_columns = " + str(max_block_columns));
}

/// ld >= rows, naming both: "ldv = 9, expected ldv >= n = 10".
void check_ld(const char* who, const char* ld_name, std::int64_t ld, const char* rows_name,
              std::int64_t rows)
{
    if (ld < rows)
        fail(who, std::string{ld_name} + " = " + str(ld) + ", expected " + ld_name +
                      " >= " + rows_name + " = " + str(rows));
}

/// A null `name` for a rows x cols column-major device matrix with leading dimension ld.
void check_matrix(const char* who, const void* p, const char* name, std::int64_t rows,
                  std::int64_t cols, const char* ld_name, std::int64_t ld)
{
    if (p == nullptr)
        fail(who, std::string{name} + " is null, expected a " + str(rows) + " x " + str(cols) +
                      " column-major matrix with leading dimension " + ld_name + " = " + str(ld));
}

void check_h(const char* who, std::int64_t h)
{
    if (h <= 0 || h % 32 != 0)
        fail(who, "h = " + str(h) + ", expected a positive multiple of 32");
}

void check_value_bytes(const char* who, int value_bytes)
{
    if (value_bytes != 4 && value_bytes != 8)
        fail(who, "value_bytes = " + str(value_bytes) + ", expected 4 (float) or 8 (double)");
}

}  // namespace

void check_gemv_t(const char* who, std::int64_t n, int k, const void* V, std::int64_t ld,
                  const void* y, const void* r)
{
    check_n(who, n);
    check_columns(who, "k", k);
    check_ld(who, "ld", ld, "n", n);
    if (k == 0) return;
    if (n > 0) {
        check_matrix(who, V, "V", n, k, "ld", ld);
        if (y == nullptr) fail(who, "y is null, expected a pointer to n = " + str(n) + " elements");
    }
    if (r == nullptr) fail(who, "r is null, expected a pointer to k = " + str(k) + " elements");
}

void check_gemm_rowwise(const char* who, std::int64_t n, int kv, int kw, const void* V,
                        std::int64_t ldv, const void* B, int ldb, const void* W,
                        std::int64_t ldw)
{
    check_n(who, n);
    check_columns(who, "kv", kv);
    check_columns(who, "kw", kw);
    check_ld(who, "ldv", ldv, "n", n);
    check_ld(who, "ldw", ldw, "n", n);
    check_ld(who, "ldb", ldb, "kv", kv);
    if (n == 0 || kw == 0) return;
    if (kv > 0) {
        check_matrix(who, V, "V", n, kv, "ldv", ldv);
        check_matrix(who, B, "B", kv, kw, "ldb", ldb);
    }
    check_matrix(who, W, "W", n, kw, "ldw", ldw);
    if (W == V && kv > 0 && (kv != kw || ldw != ldv))
        fail(who, "W == V with kv = " + str(kv) + ", kw = " + str(kw) + ", ldv = " + str(ldv) +
                      ", ldw = " + str(ldw) + ", expected kv == kw and ldw == ldv in place");
}

void check_trsm(const char* who, std::int64_t n, int k, const void* V, std::int64_t ld,
                const void* R, int ldr)
{
    check_n(who, n);
    check_columns(who, "k", k);
    check_ld(who, "ld", ld, "n", n);
    check_ld(who, "ldr", ldr, "k", k);
    if (n == 0 || k == 0) return;
    check_matrix(who, V, "V", n, k, "ld", ld);
    check_matrix(who, R, "R", k, k, "ldr", ldr);
}

void check_gram(const char* who, std::int64_t n, int kv, const void* V, std::int64_t ldv, int kw,
                const void* W, std::int64_t ldw, const void* B, int ldb)
{
    check_n(who, n);
    check_columns(who, "kv", kv);
    check_columns(who, "kw", kw);
    check_ld(who, "ldv", ldv, "n", n);
    check_ld(who, "ldw", ldw, "n", n);
    check_ld(who, "ldb", ldb, "kv", kv);
    if (kv == 0 || kw == 0) return;
    if (n > 0) {
        check_matrix(who, V, "V", n, kv, "ldv", ldv);
        check_matrix(who, W, "W", n, kw, "ldw", ldw);
    }
    check_matrix(who, B, "B", kv, kw, "ldb", ldb);
}

void check_gram_shape(const char* who, std::int64_t n, int kv, int kw, int value_bytes)
{
    check_n(who, n);
    check_columns(who, "kv", kv);
    check_columns(who, "kw", kw);
    check_value_bytes(who, value_bytes);
}

void check_gram_batched_shape(const char* who, std::int64_t n, int kv, int kw, std::int64_t h,
                              int value_bytes)
{
    check_gram_shape(who, n, kv, kw, value_bytes);
    check_h(who, h);
}

}  // namespace detail::tall_skinny

namespace {

namespace checks = detail::tall_skinny;

constexpr int gemv_block_size = 1024;
constexpr int row_block_size = 256;     // gemm_rowwise, trsm_right_upper
constexpr int reduce_block_size = 256;  // sum_partials_kernel
constexpr std::int64_t max_row_blocks = std::int64_t{1} << 20;  // grid-stride beyond this
constexpr std::size_t workspace_alignment = 256;

/// Blocks for a one-thread-per-row kernel over n > 0 rows.
unsigned row_blocks(std::int64_t n)
{
    const std::int64_t blocks = (n + row_block_size - 1) / row_block_size;
    return static_cast<unsigned>(std::min(blocks, max_row_blocks));
}

/// Rows each thread of gemm_rowwise_narrow_kernel takes per pass (one grid stride apart), and
/// the unroll of its column loop: narrow_rows x narrow_unroll<KW> independent loads per thread in
/// flight. Measured on an H200 (double, n = 1e6 and 1e7, kv = 2..64, against 2 and 8 rows and
/// unrolls of 4 and 8): 4 rows, unrolled 8 deep for kw = 1 (3.8-4.4 TB/s for kv >= 17) and 4
/// deep for kw = 2 (3.4-4.3 TB/s for kv >= 8), at or above cuBLAS dgemv / dgemm on every shape.
constexpr int narrow_rows = 4;
template <int KW>
inline constexpr int narrow_unroll = KW == 1 ? 8 : 4;

/// Blocks of gemm_rowwise_kernel each SM must hold at once (its register cap). One thread per
/// row keeps KV values of its row in flight, so the loads in flight per SM are the resident
/// warps x KV: at KV = 16, 32 (double) the kernel's 108-150 registers let one block (8 warps)
/// per SM run, about half the read bandwidth (GMRES's fused update with kw = 2, n = 1e6, H200,
/// before it moved to gemm_rowwise_narrow_kernel); 2 blocks
/// fit in 128 registers (the beta = 0 instance at KV = 32 spills 16 bytes). KV = 64 keeps its
/// row in 192 registers (no cap).
template <int KV>
inline constexpr int rowwise_min_blocks = KV >= 16 && KV <= 32 ? 2 : 1;

/// Calls f(std::integral_constant<int, K>{}) for K = k rounded up to a power of two (1..64).
template <typename F>
void with_padded_columns(int k, F&& f)
{
    static_assert(max_block_columns == 64, "the dispatch below stops at 64");
    if (k <= 1) return f(std::integral_constant<int, 1>{});
    if (k <= 2) return f(std::integral_constant<int, 2>{});
    if (k <= 4) return f(std::integral_constant<int, 4>{});
    if (k <= 8) return f(std::integral_constant<int, 8>{});
    if (k <= 16) return f(std::integral_constant<int, 16>{});
    if (k <= 32) return f(std::integral_constant<int, 32>{});
    f(std::integral_constant<int, 64>{});
}

// ---- Kernels --------------------------------------------------------------------------------

/// Grid: k blocks of gemv_block_size threads. Block j: thread t sums V(i, j) y(i) over
/// i = t, t + 1024, ... < n in order; block_sum adds the threads' sums; thread 0 writes r[j].
template <typename T>
__global__ void __launch_bounds__(gemv_block_size)
    gemv_t_kernel(std::int64_t n, const T* __restrict__ V, std::int64_t ld,
                  const T* __restrict__ y, T* __restrict__ r)
{
    __shared__ T smem[gemv_block_size / 32];
    const T* v = V + std::int64_t{blockIdx.x} * ld;
    T acc[1] = {T{0}};
#pragma unroll 4
    for (std::int64_t i = threadIdx.x; i < n; i += gemv_block_size) acc[0] += v[i] * y[i];
    reduce::block_sum<T, 1, gemv_block_size>(acc, smem);
    if (threadIdx.x == 0) r[blockIdx.x] = acc[0];
}

/// Copies the kv x kw device matrix B (leading dimension ldb) into shared memory, column c at
/// Bs + c * lds, with the whole block, and synchronizes the block.
template <typename T>
__device__ __forceinline__ void stage_coefficients(T* Bs, int lds, const T* __restrict__ B, int ldb,
                                                   int kv, int kw)
{
    for (int e = static_cast<int>(threadIdx.x); e < kv * kw; e += row_block_size) {
        const int i = e % kv, c = e / kv;
        Bs[c * lds + i] = B[i + std::int64_t{c} * ldb];
    }
    __syncthreads();
}

/// Grid-stride over rows, row_block_size threads per block, KV >= kv. The block first copies B
/// into shared memory (Bs[c * KV + i] = B(i, c)). Each thread then loads its row v of V
/// (kv registers), and for c < kw writes W(row, c) = alpha (v . B(:, c)) [+ beta W(row, c) when
/// ReadsW], the dot product taken over i = 0 .. kv-1 in order. ReadsW is beta != 0: a template
/// parameter so that the beta == 0 instance contains no load of W at all. V and W are not
/// __restrict__: W == V (in place) is allowed, and the whole row is loaded before any store.
/// For kw <= 2 the launcher takes gemm_rowwise_narrow_kernel instead.
template <typename T, int KV, bool ReadsW>
__global__ void __launch_bounds__(row_block_size, rowwise_min_blocks<KV>)
    gemm_rowwise_kernel(std::int64_t n, int kv, int kw, T alpha, const T* V, std::int64_t ldv,
                        const T* __restrict__ B, int ldb, T beta, T* W, std::int64_t ldw)
{
    __shared__ T Bs[KV * max_block_columns];
    stage_coefficients(Bs, KV, B, ldb, kv, kw);

    const std::int64_t stride = std::int64_t{gridDim.x} * row_block_size;
    const std::int64_t first = std::int64_t{blockIdx.x} * row_block_size + threadIdx.x;
    for (std::int64_t row = first; row < n; row += stride) {
        T v[KV];
#pragma unroll
        for (int i = 0; i < KV; ++i) v[i] = i < kv ? V[row + i * ldv] : T{0};
        T* w = W + row;
        for (int c = 0; c < kw; ++c, w += ldw) {
            const T* b = Bs + c * KV;
            T acc = T{0};
#pragma unroll
            for (int i = 0; i < KV; ++i) {
                if (i < kv) acc += v[i] * b[i];
            }
            if constexpr (ReadsW) {
                *w = alpha * acc + beta * *w;
            } else {
                *w = alpha * acc;
            }
        }
    }
}

/// W := beta W + alpha V B for kw = KW <= 2 (the Gram-Schmidt updates v -= V h and GMRES's fused
/// [u, w] := [V_j, u, w] C). The block copies B into shared memory; each thread takes narrow_rows
/// rows, one grid stride apart, and walks V's columns i = 0 .. kv - 1 once, loading the column's
/// entries of all its rows (independent loads, narrow_unroll<KW> columns deep) and adding V(row, i)
/// B(i, c) to its kw sums per row in the order of gemm_rowwise_kernel (same bits). No row of V is
/// held in registers: a thread's loads of its rows all come before its stores, and no other thread
/// touches those rows, so W may still be columns of V.
template <typename T, int KW, bool ReadsW>
__global__ void __launch_bounds__(row_block_size)
    gemm_rowwise_narrow_kernel(std::int64_t n, int kv, T alpha, const T* V, std::int64_t ldv,
                               const T* __restrict__ B, int ldb, T beta, T* W, std::int64_t ldw)
{
    __shared__ T Bs[KW * max_block_columns];
    stage_coefficients(Bs, max_block_columns, B, ldb, kv, KW);

    constexpr int R = narrow_rows;
    const std::int64_t stride = std::int64_t{gridDim.x} * row_block_size;
    for (std::int64_t row = std::int64_t{blockIdx.x} * row_block_size + threadIdx.x; row < n;
         row += R * stride) {
        bool in[R];
        T acc[R][KW];
#pragma unroll
        for (int r = 0; r < R; ++r) {
            in[r] = row + r * stride < n;
#pragma unroll
            for (int c = 0; c < KW; ++c) acc[r][c] = T{0};
        }
        const T* v = V + row;
#pragma unroll narrow_unroll<KW>
        for (int i = 0; i < kv; ++i, v += ldv) {
            T x[R];
#pragma unroll
            for (int r = 0; r < R; ++r) x[r] = in[r] ? v[r * stride] : T{0};
#pragma unroll
            for (int c = 0; c < KW; ++c) {
                const T b = Bs[c * max_block_columns + i];
#pragma unroll
                for (int r = 0; r < R; ++r) acc[r][c] += x[r] * b;
            }
        }
        T w[R][KW];
        if constexpr (ReadsW) {
#pragma unroll
            for (int r = 0; r < R; ++r) {
#pragma unroll
                for (int c = 0; c < KW; ++c) w[r][c] = in[r] ? W[row + r * stride + c * ldw] : T{0};
            }
        }
#pragma unroll
        for (int r = 0; r < R; ++r) {
            if (!in[r]) break;
#pragma unroll
            for (int c = 0; c < KW; ++c) {
                T* out = W + row + r * stride + c * ldw;
                if constexpr (ReadsW) {
                    *out = alpha * acc[r][c] + beta * w[r][c];
                } else {
                    *out = alpha * acc[r][c];
                }
            }
        }
    }
}

/// Grid-stride over rows, row_block_size threads per block, K >= k. The block copies the upper
/// triangle of R into shared memory (Rs[j * K + i] = R(i, j), i <= j) and the reciprocals of its
/// diagonal (inv[j] = 1 / R(j, j)). Each thread loads its row into registers and overwrites it by
/// forward substitution: x_j = (v_j - x_0 R(0, j) - ... - x_{j-1} R(j-1, j)) / R(j, j),
/// subtracting in index order and dividing (correctly rounded, see divide), then stores the row.
template <typename T, int K>
__global__ void __launch_bounds__(row_block_size, 1)  // min. 1 block: no cap below 255 regs
    trsm_right_upper_kernel(std::int64_t n, int k, T* __restrict__ V, std::int64_t ld,
                            const T* __restrict__ R, int ldr)
{
    __shared__ T Rs[K * K];
    __shared__ T inv[K];
    for (int e = static_cast<int>(threadIdx.x); e < k * k; e += row_block_size) {
        const int i = e % k, j = e / k;
        if (i > j) continue;
        const T r = R[i + std::int64_t{j} * ldr];
        Rs[j * K + i] = r;
        if (i == j) inv[j] = T{1} / r;
    }
    __syncthreads();

    const std::int64_t stride = std::int64_t{gridDim.x} * row_block_size;
    for (std::int64_t row = std::int64_t{blockIdx.x} * row_block_size + threadIdx.x; row < n;
         row += stride) {
        T x[K];
        const T* v = V + row;
#pragma unroll
        for (int j = 0; j < K; ++j, v += ld) x[j] = j < k ? *v : T{0};
#pragma unroll
        for (int j = 0; j < K; ++j) {
            if (j < k) {
                T s = x[j];
#pragma unroll
                for (int i = 0; i < j; ++i) s -= x[i] * Rs[j * K + i];
                x[j] = divide(s, Rs[j * K + j], inv[j]);
            }
        }
        // The store pointer is made opaque to the optimizer: otherwise it keeps the K load
        // addresses (2K registers) live across the substitution and spills.
        T* w = V + row;
        asm("" : "+l"(w));
#pragma unroll
        for (int j = 0; j < K; ++j, w += ld) {
            if (j < k) *w = x[j];
        }
    }
}

/// One thread per full row block b < batches (grid-stride): the batched GEMM's operands
/// a[b] = V + b h, w[b] = W + b h, c[b] = partial + b E.
template <typename T>
__global__ void batch_pointers_kernel(std::int64_t batches, std::int64_t h, const T* V,
                                      const T* W, T* partial, std::int64_t entries,
                                      const T** a, const T** w, T** c)
{
    const std::int64_t stride = std::int64_t{gridDim.x} * blockDim.x;
    for (std::int64_t b = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; b < batches;
         b += stride) {
        a[b] = V + b * h;
        w[b] = W + b * h;
        c[b] = partial + b * entries;
    }
}

/// B = sum over b < blocks of partial b (kv x kw, leading dimension kv, E = kv * kw entries,
/// partial b at partial + b E). Block x handles entries x * tile .. x * tile + tile - 1 (tile a
/// power of two <= 32); its reduce_block_size / tile slices split the blocks: thread (slice s,
/// lane l) sums partials s, s + slices, ... of entry x * tile + l in order, then the slices'
/// sums are added in slice order. `mirror` (B = V^T V): only entries i <= j are summed, and
/// each is written to B(i, j) and B(j, i), so B is exactly symmetric.
template <typename T>
__global__ void __launch_bounds__(reduce_block_size)
    sum_partials_kernel(const T* __restrict__ partial, std::int64_t blocks, int kv, int kw,
                        int tile, bool mirror, T* __restrict__ B, int ldb)
{
    __shared__ T smem[reduce_block_size];
    const std::int64_t entries = std::int64_t{kv} * kw;
    const int slices = reduce_block_size / tile;
    const int lane = static_cast<int>(threadIdx.x) % tile;
    const int slice = static_cast<int>(threadIdx.x) / tile;
    const std::int64_t e = std::int64_t{blockIdx.x} * tile + lane;
    const int i = static_cast<int>(e % kv), j = static_cast<int>(e / kv);
    const bool active = e < entries && (!mirror || i <= j);
    T acc = T{0};
    if (active) {
#pragma unroll 4
        for (std::int64_t b = slice; b < blocks; b += slices) acc += partial[b * entries + e];
    }
    smem[threadIdx.x] = acc;
    __syncthreads();
    if (slice == 0 && active) {
        T sum = smem[lane];
        for (int s = 1; s < slices; ++s) sum += smem[s * tile + lane];
        B[i + std::int64_t{j} * ldb] = sum;
        if (mirror) B[j + std::int64_t{i} * ldb] = sum;
    }
}

// ---- cuBLAS (64-bit integer API, cuBLAS >= 12) ----------------------------------------------

/// C = A^T B for one product: A is rows x m (lda), B is rows x nc (ldb), C is m x nc (ldc).
cublasStatus_t gemm_tn(cublasHandle_t h, std::int64_t m, std::int64_t nc, std::int64_t rows,
                       const double* A, std::int64_t lda, const double* B, std::int64_t ldb,
                       double* C, std::int64_t ldc)
{
    const double one = 1.0, zero = 0.0;
    return cublasDgemm_64(h, CUBLAS_OP_T, CUBLAS_OP_N, m, nc, rows, &one, A, lda, B, ldb, &zero,
                          C, ldc);
}
cublasStatus_t gemm_tn(cublasHandle_t h, std::int64_t m, std::int64_t nc, std::int64_t rows,
                       const float* A, std::int64_t lda, const float* B, std::int64_t ldb,
                       float* C, std::int64_t ldc)
{
    const float one = 1.0f, zero = 0.0f;
    return cublasSgemm_64(h, CUBLAS_OP_T, CUBLAS_OP_N, m, nc, rows, &one, A, lda, B, ldb, &zero,
                          C, ldc);
}

/// C[b] = A[b]^T B[b] for b < batches (device pointer arrays).
cublasStatus_t gemm_tn_batched(cublasHandle_t h, std::int64_t m, std::int64_t nc,
                               std::int64_t rows, const double* const* A, std::int64_t lda,
                               const double* const* B, std::int64_t ldb, double* const* C,
                               std::int64_t ldc, std::int64_t batches)
{
    const double one = 1.0, zero = 0.0;
    return cublasDgemmBatched_64(h, CUBLAS_OP_T, CUBLAS_OP_N, m, nc, rows, &one, A, lda, B, ldb,
                                 &zero, C, ldc, batches);
}
cublasStatus_t gemm_tn_batched(cublasHandle_t h, std::int64_t m, std::int64_t nc,
                               std::int64_t rows, const float* const* A, std::int64_t lda,
                               const float* const* B, std::int64_t ldb, float* const* C,
                               std::int64_t ldc, std::int64_t batches)
{
    const float one = 1.0f, zero = 0.0f;
    return cublasSgemmBatched_64(h, CUBLAS_OP_T, CUBLAS_OP_N, m, nc, rows, &one, A, lda, B, ldb,
                                 &zero, C, ldc, batches);
}

// ---- gram_batched workspace -----------------------------------------------------------------

std::size_t round_up(std::size_t bytes, std::size_t to) { return (bytes + to - 1) / to * to; }

/// Byte offset of the partials: after three arrays of nf pointers, rounded up to 256.
std::size_t partials_offset(std::int64_t full_blocks)
{
    return round_up(3 * static_cast<std::size_t>(full_blocks) * sizeof(void*), workspace_alignment);
}

std::size_t batched_bytes(std::int64_t n, int kv, int kw, std::int64_t h, int value_bytes)
{
    if (n == 0 || kv == 0 || kw == 0) return 0;
    const std::int64_t blocks = (n + h - 1) / h;
    return partials_offset(n / h) + static_cast<std::size_t>(blocks) *
                                        static_cast<std::size_t>(kv) *
                                        static_cast<std::size_t>(kw) *
                                        static_cast<std::size_t>(value_bytes);
}

template <typename T>
void zero_matrix(T* B, int rows, int cols, int ld, cudaStream_t stream)
{
    KBENCH_CUDA_CHECK(cudaMemset2DAsync(B, sizeof(T) * static_cast<std::size_t>(ld), 0,
                                        sizeof(T) * static_cast<std::size_t>(rows),
                                        static_cast<std::size_t>(cols), stream));
}

}  // namespace

// ---- Public functions -----------------------------------------------------------------------

template <typename T>
void gemv_t_per_column(std::int64_t n, int k, const T* V, std::int64_t ld, const T* y, T* r,
                       cudaStream_t stream)
{
    KBENCH_NVTX_RANGE("blas::gemv_t_per_column");
    checks::check_gemv_t("kbench::blas::gemv_t_per_column", n, k, V, ld, y, r);
    if (k == 0) return;
    if (n == 0) {
        KBENCH_CUDA_CHECK(cudaMemsetAsync(r, 0, sizeof(T) * static_cast<std::size_t>(k), stream));
        return;
    }
    gemv_t_kernel<T><<<static_cast<unsigned>(k), gemv_block_size, 0, stream>>>(n, V, ld, y, r);
    KBENCH_CUDA_CHECK_LAUNCH();
}

template <typename T>
void gemm_rowwise(std::int64_t n, int kv, int kw, T alpha, const T* V, std::int64_t ldv,
                  const T* B, int ldb, T beta, T* W, std::int64_t ldw, cudaStream_t stream)
{
    KBENCH_NVTX_RANGE("blas::gemm_rowwise");
    checks::check_gemm_rowwise("kbench::blas::gemm_rowwise", n, kv, kw, V, ldv, B, ldb, W, ldw);
    if (n == 0 || kw == 0) return;
    if (kw <= 2) {
        const auto launch = [&](auto kernel) {
            // One wave of blocks at most (grid-stride beyond), each thread narrow_rows rows.
            const unsigned blocks = std::min<unsigned>(
                row_blocks((n + narrow_rows - 1) / narrow_rows),
                static_cast<unsigned>(
                    resident_blocks(reinterpret_cast<const void*>(kernel), row_block_size)));
            kernel<<<blocks, row_block_size, 0, stream>>>(n, kv, alpha, V, ldv, B, ldb, beta, W,
                                                          ldw);
        };
        if (kw == 1)
            beta == T{0} ? launch(gemm_rowwise_narrow_kernel<T, 1, false>)
                         : launch(gemm_rowwise_narrow_kernel<T, 1, true>);
        else
            beta == T{0} ? launch(gemm_rowwise_narrow_kernel<T, 2, false>)
                         : launch(gemm_rowwise_narrow_kernel<T, 2, true>);
        KBENCH_CUDA_CHECK_LAUNCH();
        return;
    }
    with_padded_columns(kv, [&](auto padded) {
        constexpr int KV = decltype(padded)::value;
        const auto kernel = beta == T{0} ? gemm_rowwise_kernel<T, KV, false>
                                         : gemm_rowwise_kernel<T, KV, true>;
        kernel<<<row_blocks(n), row_block_size, 0, stream>>>(n, kv, kw, alpha, V, ldv, B, ldb,
                                                             beta, W, ldw);
    });
    KBENCH_CUDA_CHECK_LAUNCH();
}

template <typename T>
void trsm_right_upper(std::int64_t n, int k, T* V, std::int64_t ld, const T* R, int ldr,
                      cudaStream_t stream)
{
    KBENCH_NVTX_RANGE("blas::trsm_right_upper");
    checks::check_trsm("kbench::blas::trsm_right_upper", n, k, V, ld, R, ldr);
    if (n == 0 || k == 0) return;
    with_padded_columns(k, [&](auto padded) {
        constexpr int K = decltype(padded)::value;
        trsm_right_upper_kernel<T, K><<<row_blocks(n), row_block_size, 0, stream>>>(n, k, V, ld,
                                                                                   R, ldr);
    });
    KBENCH_CUDA_CHECK_LAUNCH();
}

std::size_t gram_batched_workspace_bytes(std::int64_t n, int kv, int kw, std::int64_t h,
                                         int value_bytes)
{
    checks::check_gram_batched_shape("kbench::blas::gram_batched_workspace_bytes", n, kv, kw, h,
                                     value_bytes);
    return batched_bytes(n, kv, kw, h, value_bytes);
}

template <typename T>
void gram_batched(cublasHandle_t handle, std::int64_t n, int kv, const T* V, std::int64_t ldv,
                  int kw, const T* W, std::int64_t ldw, T* B, int ldb, std::int64_t h,
                  void* workspace, std::size_t workspace_bytes, cudaStream_t stream)
{
    KBENCH_NVTX_RANGE("blas::gram_batched");
    constexpr const char* who = "kbench::blas::gram_batched";
    constexpr int value_bytes = static_cast<int>(sizeof(T));
    checks::check_gram(who, n, kv, V, ldv, kw, W, ldw, B, ldb);
    checks::check_gram_batched_shape(who, n, kv, kw, h, value_bytes);
    if (kv == 0 || kw == 0) return;
    if (n > 0 && handle == nullptr)
        checks::fail(who, "handle is null, expected a cuBLAS handle bound to stream");
    const std::size_t needed = batched_bytes(n, kv, kw, h, value_bytes);
    const std::string query = "gram_batched_workspace_bytes(n = " + std::to_string(n) +
                              ", kv = " + std::to_string(kv) + ", kw = " + std::to_string(kw) +
                              ", h = " + std::to_string(h) + ", value_bytes = " +
                              std::to_string(value_bytes) + ") = " + std::to_string(needed);
    if (workspace_bytes < needed)
        checks::fail(who, "workspace_bytes = " + std::to_string(workspace_bytes) +
                              ", expected >= " + query);
    if (needed > 0 && workspace == nullptr)
        checks::fail(who, "workspace is null, expected " + query + " bytes of device memory");
    if (reinterpret_cast<std::uintptr_t>(workspace) % workspace_alignment != 0)
        checks::fail(who, "workspace is not aligned to " + std::to_string(workspace_alignment) +
                              " bytes");
    if (n == 0) return zero_matrix(B, kv, kw, ldb, stream);

    const std::int64_t full = n / h;               // batched GEMM entries
    const std::int64_t blocks = (n + h - 1) / h;   // partials
    const std::int64_t entries = std::int64_t{kv} * kw;
    auto* bytes = static_cast<unsigned char*>(workspace);
    const auto pointer_array = [&](int index) { return bytes + index * full * sizeof(void*); };
    const T** a_ptrs = reinterpret_cast<const T**>(pointer_array(0));
    const T** w_ptrs = reinterpret_cast<const T**>(pointer_array(1));
    T** c_ptrs = reinterpret_cast<T**>(pointer_array(2));
    T* partial = reinterpret_cast<T*>(bytes + partials_offset(full));

    if (full > 0) {
        constexpr int threads = 256;
        const auto grid =
            static_cast<unsigned>(std::min<std::int64_t>((full + threads - 1) / threads, 4096));
        batch_pointers_kernel<T><<<grid, threads, 0, stream>>>(full, h, V, W, partial, entries,
                                                                a_ptrs, w_ptrs, c_ptrs);
        KBENCH_CUDA_CHECK_LAUNCH();
        KBENCH_CUBLAS_CHECK(gemm_tn_batched(handle, kv, kw, h, a_ptrs, ldv, w_ptrs, ldw, c_ptrs,
                                            kv, full));
    }
    if (blocks > full) {  // the last, shorter block
        const std::int64_t first = full * h;
        KBENCH_CUBLAS_CHECK(gemm_tn(handle, kv, kw, n - first, V + first, ldv, W + first, ldw,
                                    partial + full * entries, kv));
    }
    const bool mirror = W == V && kv == kw && ldw == ldv;
    int tile = 1;
    while (tile < 32 && tile < entries) tile *= 2;
    const auto grid = static_cast<unsigned>((entries + tile - 1) / tile);
    sum_partials_kernel<T><<<grid, reduce_block_size, 0, stream>>>(partial, blocks, kv, kw, tile,
                                                                   mirror, B, ldb);
    KBENCH_CUDA_CHECK_LAUNCH();
}

#define KBENCH_INSTANTIATE_TALL_SKINNY(T)                                                      \
    template void gemv_t_per_column<T>(std::int64_t, int, const T*, std::int64_t, const T*, T*, \
                                       cudaStream_t);                                          \
    template void gemm_rowwise<T>(std::int64_t, int, int, T, const T*, std::int64_t, const T*, \
                                  int, T, T*, std::int64_t, cudaStream_t);                     \
    template void trsm_right_upper<T>(std::int64_t, int, T*, std::int64_t, const T*, int,      \
                                      cudaStream_t);                                           \
    template void gram_batched<T>(cublasHandle_t, std::int64_t, int, const T*, std::int64_t,   \
                                  int, const T*, std::int64_t, T*, int, std::int64_t, void*,   \
                                  std::size_t, cudaStream_t)
KBENCH_INSTANTIATE_TALL_SKINNY(float);
KBENCH_INSTANTIATE_TALL_SKINNY(double);
#undef KBENCH_INSTANTIATE_TALL_SKINNY

}  // namespace kbench::blas
