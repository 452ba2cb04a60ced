// GPU SpMV kernels y = alpha*A*x + beta*y: CSR scalar, CSR vector (sub-warp per row),
// CSR-Adaptive, merge-based CSR (Merrill & Garland, SC16) and SELL-P (anzt2015 Sec. 3.1,
// Figs. 4-5) with its long-row CSR part (kbench extension, in the spirit of ELL+COO hybrids).
// Declarations and conventions in kernels/spmv.hpp.
//
// Memory hints used throughout: matrix arrays are read once per product, so they are loaded
// with __ldcs (ld.global.cs, evict-first) to leave L1/L2 to x, which is gathered through __ldg
// (read-only path) and reused across rows.
#include "kernels/spmv.hpp"

#include "kernels/base/cuda_check.hpp"
#include "kernels/base/nvtx.hpp"
#include "kernels/merge_path.hpp"
#include "kernels/row_dot.cuh"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace kbench::spmv {
namespace {

using sparse_detail::strided_dot;

constexpr int scalar_block_size = 256;
constexpr int vector_block_size = 256;
constexpr int sellp_max_block_size = 1024;
constexpr int long_row_block_size = 256;  // threads per long row (one block each)
constexpr int adaptive_block_size = 256;  // 8 warps, one CSR-Adaptive row block each
constexpr int adaptive_items = csr_adaptive_block_nnz / 32;  // entries per lane
constexpr int merge_block_size = 256;  // 8 warps, one merge tile each
constexpr int merge_items = csr_merge_items_per_thread;  // merge-path items per lane
constexpr int merge_tile = csr_merge_tile_items;         // items per tile (warp)
constexpr int merge_fixup_block_size = 256;             // one split row per thread
static_assert(csr_merge_tile_threads == 32, "a merge tile is one warp");

/// y = alpha*sum (+ beta*y when beta != 0: y is not read otherwise).
template <typename T>
__device__ __forceinline__ void store_result(T* __restrict__ y, index_type row, T alpha, T sum,
                                             T beta)
{
    y[row] = beta == T{0} ? alpha * sum : alpha * sum + beta * y[row];
}

template <typename T>
__global__ void __launch_bounds__(scalar_block_size)
    csr_scalar_kernel(index_type num_rows, const index_type* __restrict__ row_ptr,
                      const index_type* __restrict__ col_idx, const T* __restrict__ values,
                      T alpha, const T* __restrict__ x, T beta, T* __restrict__ y)
{
    const std::int64_t row = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (row >= num_rows) return;
    const T sum = strided_dot<T>(col_idx, values, x, __ldg(row_ptr + row),
                                    __ldg(row_ptr + row + 1), 1);
    store_result(y, static_cast<index_type>(row), alpha, sum, beta);
}

/// Subwarp lanes per row; the subwarp's partial sums are reduced with __shfl_down_sync inside
/// the subwarp (width = Subwarp), lane 0 writes. Rows past num_rows get an empty range so every
/// lane of the warp reaches the shuffles.
template <typename T, int Subwarp>
__global__ void __launch_bounds__(vector_block_size)
    csr_vector_kernel(index_type num_rows, const index_type* __restrict__ row_ptr,
                      const index_type* __restrict__ col_idx, const T* __restrict__ values,
                      T alpha, const T* __restrict__ x, T beta, T* __restrict__ y)
{
    const std::int64_t tid = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x;
    const std::int64_t row = tid / Subwarp;
    const int lane = static_cast<int>(tid % Subwarp);
    const bool valid = row < num_rows;
    const index_type begin = valid ? __ldg(row_ptr + row) : 0;
    const index_type end = valid ? __ldg(row_ptr + row + 1) : 0;
    T sum = strided_dot<T>(col_idx, values, x, begin + lane, end, Subwarp);
#pragma unroll
    for (int offset = Subwarp / 2; offset > 0; offset /= 2)
        sum += __shfl_down_sync(0xffffffffu, sum, offset, Subwarp);
    if (valid && lane == 0) store_result(y, static_cast<index_type>(row), alpha, sum, beta);
}

/// SELL-P: block s handles slice s with b*T threads, thread index = r + k*b (r fastest), so a
/// warp's loads of entry j of consecutive rows are consecutive addresses (coalesced). Thread
/// (r, k) sums entries j = k, k+T, ... of local row r (the slice row length is a multiple of T,
/// so every thread runs the same number of iterations). The T partial sums of a row lie in
/// different warps (stride b), so they are reduced through shared memory: partials are stored
/// at smem[k*S + r], S = b + 32/T; after one barrier, thread q reads the partial (k = q % T,
/// r = q / T) so that the T partials of a row sit in T consecutive lanes of one warp, and a
/// __shfl_xor_sync butterfly of width T finishes the sum (one barrier in all; the 32/T pad
/// makes the transposed read bank-conflict free when b is a multiple of 32).
template <typename T, int Tpr>
__global__ void __launch_bounds__(sellp_max_block_size)
    sellp_kernel(index_type num_rows, index_type b, const index_type* __restrict__ slice_ptr,
                 const index_type* __restrict__ col_idx, const T* __restrict__ values,
                 const index_type* __restrict__ row_perm, T alpha, const T* __restrict__ x,
                 T beta, T* __restrict__ y)
{
    const index_type s = static_cast<index_type>(blockIdx.x);
    const index_type r = static_cast<index_type>(threadIdx.x) % b;
    const index_type k = static_cast<index_type>(threadIdx.x) / b;
    const index_type start = __ldg(slice_ptr + s);
    const index_type len = (__ldg(slice_ptr + s + 1) - start) / b;
    // Entry j of local row r sits at start + j*b + r; thread k takes j = k, k+T, ...
    const index_type offset = start + r;
    T sum = strided_dot<T>(col_idx + offset, values + offset, x, k * b, len * b, Tpr * b);
    index_type out_row = s * b + r;
    if constexpr (Tpr > 1) {
        extern __shared__ unsigned char smem_raw[];
        T* smem = reinterpret_cast<T*>(smem_raw);
        const index_type stride = b + 32 / Tpr;
        smem[k * stride + r] = sum;
        __syncthreads();
        const index_type q = static_cast<index_type>(threadIdx.x);
        const index_type rr = q / Tpr;
        const index_type kk = q % Tpr;
        sum = smem[kk * stride + rr];
        // The last warp may be partial when b*T is not a multiple of 32; groups of T lanes are
        // always complete (32 and b*T are multiples of T).
        const unsigned warp_threads = min(32u, blockDim.x - (threadIdx.x & ~31u));
        const unsigned mask = warp_threads == 32 ? 0xffffffffu : (1u << warp_threads) - 1u;
#pragma unroll
        for (int m = Tpr / 2; m > 0; m /= 2) sum += __shfl_xor_sync(mask, sum, m, Tpr);
        if (kk != 0) return;
        out_row = s * b + rr;
    }
    if (out_row >= num_rows) return;
    const index_type dst = row_perm == nullptr ? out_row : __ldg(row_perm + out_row);
    store_result(y, dst, alpha, sum, beta);
}

/// Long rows, one block of long_row_block_size threads per row: block k sums row rows[k]
/// (strided, row_dot_unroll loads in flight per thread), reduces the partial sums with a warp
/// shuffle and then across the block's warps through shared memory (fixed order: deterministic,
/// no atomics). InCsr: the row's entries are [range_ptr[row], range_ptr[row + 1]) of the CSR
/// arrays and thread 0 stores alpha*sum + beta*y (CSR-Adaptive's long rows); otherwise they are
/// [range_ptr[k], range_ptr[k + 1]) of a separate long part and thread 0 adds alpha*sum to y,
/// which the SELL-P pass already set to beta*y_old (or 0).
template <typename T, bool InCsr>
__global__ void __launch_bounds__(long_row_block_size)
    long_rows_kernel(const index_type* __restrict__ rows, const index_type* __restrict__ range_ptr,
                     const index_type* __restrict__ col_idx, const T* __restrict__ values,
                     T alpha, const T* __restrict__ x, T beta, T* __restrict__ y)
{
    constexpr int warps = long_row_block_size / 32;
    __shared__ T warp_sums[warps];
    const index_type k = static_cast<index_type>(blockIdx.x);
    const index_type row = __ldg(rows + k);
    const index_type q = InCsr ? row : k;
    const index_type begin = __ldg(range_ptr + q);
    const index_type end = __ldg(range_ptr + q + 1);
    T sum = strided_dot<T>(col_idx, values, x, begin + static_cast<index_type>(threadIdx.x),
                              end, long_row_block_size);
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2)
        sum += __shfl_down_sync(0xffffffffu, sum, offset);
    const int lane = static_cast<int>(threadIdx.x % 32);
    const int warp = static_cast<int>(threadIdx.x / 32);
    if (lane == 0) warp_sums[warp] = sum;
    __syncthreads();
    if (warp != 0) return;
    sum = lane < warps ? warp_sums[lane] : T{0};
#pragma unroll
    for (int offset = warps / 2; offset > 0; offset /= 2)
        sum += __shfl_down_sync(0xffffffffu, sum, offset);
    if (lane != 0) return;
    if constexpr (InCsr) store_result(y, row, alpha, sum, beta);
    else y[row] += alpha * sum;
}

/// CSR-Adaptive (see kernels/spmv.hpp): warp w of the grid takes row block w. Its lanes first
/// issue the row pointers of their first row (independent of the products), then all
/// adaptive_items column indices and values of the block (coalesced, entry nnz_begin + lane +
/// 32u), then all the x gathers; the products go to the warp's shared-memory slice, and each row is
/// summed there by s lanes (s a power of two, rows * s <= 32) finished by a width-s shuffle, or,
/// in blocks of more than 32 rows, by one lane per row in turn.
template <typename T>
__global__ void __launch_bounds__(adaptive_block_size)
    csr_adaptive_kernel(index_type num_blocks, const CsrRowBlock* __restrict__ blocks,
                        const index_type* __restrict__ row_ptr,
                        const index_type* __restrict__ col_idx, const T* __restrict__ values,
                        T alpha, const T* __restrict__ x, T beta, T* __restrict__ y)
{
    constexpr int warps = adaptive_block_size / 32;
    __shared__ T products[warps][csr_adaptive_block_nnz];
    const int lane = static_cast<int>(threadIdx.x % 32);
    const int warp = static_cast<int>(threadIdx.x / 32);
    const std::int64_t w = std::int64_t{blockIdx.x} * warps + warp;
    if (w >= num_blocks) return;  // whole warps only: w is uniform over the warp
    const int4 blk = __ldg(reinterpret_cast<const int4*>(blocks) + w);
    const index_type rs = blk.x, re = blk.y, k0 = blk.z, k1 = blk.w;
    const index_type rows = re - rs;
    int s = 1;
    while (s < 32 && rows * 2 * s <= 32) s *= 2;
    index_type r = rs + (rows <= 32 ? lane / s : lane);
    index_type a = 0, e = 0;
    if (r < re) {
        a = __ldg(row_ptr + r) - k0;
        e = __ldg(row_ptr + r + 1) - k0;
    }
    T* prod = products[warp];
    if (k1 > k0) {  // warp-uniform; a block of empty rows gathers nothing (x may be empty)
        index_type c[adaptive_items];
        T v[adaptive_items];
        T xv[adaptive_items];
#pragma unroll
        for (int u = 0; u < adaptive_items; ++u) {
            const index_type k = k0 + lane + 32 * u;
            c[u] = k < k1 ? __ldcs(col_idx + k) : 0;
            v[u] = k < k1 ? __ldcs(values + k) : T{0};
        }
        // Unconditional gathers (slots past k1 read x[0]) and stores (slots past k1 are never
        // summed): all adaptive_items gathers are in flight at once (see kernels/row_dot.cuh).
#pragma unroll
        for (int u = 0; u < adaptive_items; ++u) xv[u] = __ldg(x + c[u]);
#pragma unroll
        for (int u = 0; u < adaptive_items; ++u) prod[lane + 32 * u] = v[u] * xv[u];
    }
    __syncwarp();
    if (rows <= 32) {
        T sum{0};
        for (index_type j = a + lane % s; j < e; j += s) sum += prod[j];
        for (int offset = s / 2; offset > 0; offset /= 2)
            sum += __shfl_down_sync(0xffffffffu, sum, offset, s);
        if (r < re && lane % s == 0) store_result(y, r, alpha, sum, beta);
        return;
    }
    for (; r < re; r += 32) {
        if (r != rs + lane) {
            a = __ldg(row_ptr + r) - k0;
            e = __ldg(row_ptr + r + 1) - k0;
        }
        T sum{0};
        for (index_type j = a; j < e; ++j) sum += prod[j];
        store_result(y, r, alpha, sum, beta);
    }
}

/// Merge-based CSR (see kernels/spmv.hpp): warp w of the grid takes tile w, items [w*224,
/// (w+1)*224) of the merge path, from coords[w] = (r0, k0) to coords[w + 1] = (r1, k1): row ends
/// r0..r1-1 and nonzeros k0..k1-1 (local row i is row r0 + i, local nonzero j is k0 + j).
/// 1. Stage (coalesced, every load issued before the first use, the row ends first so that their
///    latency overlaps the gathers'): end[i] = row_ptr[r0 + i + 1]
///    - k0 for i < r1 - r0 and a sentinel past the tile at end[r1 - r0] (the row still open at
///    the tile's end), prod[j] = values[k0 + j] * x[col_idx[k0 + j]] for j < k1 - k0.
/// 2. Lane l takes local diagonals [7l, 7l + 7) clipped to the tile, its start found by
///    merge_path::search in shared memory, and consumes them: a nonzero adds prod[j] to its
///    running sum; a row end stores the row (the lane's first row end is held back: that row may
///    have begun in earlier lanes) and restarts the sum at 0.
/// 3. Segmented inclusive scan over the lanes of (row open at the lane's end, running sum), keys
///    non-decreasing: Hillis-Steele with shuffles, lane l adding lane l - d's value when both have
///    the same key. Lane l's first row end then adds lane l - 1's scan (lane l - 1 ends where lane
///    l starts, in the row lane l ends first) and stores the row; lane 31's scan is the tile's
///    carry-out, the partial sum of row r1 (read by the fix-up only when the tile ends inside r1
///    after some of its nonzeros; written always).
/// Local indices are int (< 225); global ones index_type (row_ptr and nnz fit it).
template <typename T>
__global__ void __launch_bounds__(merge_block_size)
    csr_merge_kernel(index_type num_tiles, const CsrMergeCoord* __restrict__ coords,
                     const index_type* __restrict__ row_ptr,
                     const index_type* __restrict__ col_idx, const T* __restrict__ values,
                     T alpha, const T* __restrict__ x, T beta, T* __restrict__ y,
                     T* __restrict__ carries)
{
    constexpr int warps = merge_block_size / 32;
    __shared__ T products[warps][merge_tile];
    __shared__ index_type row_ends[warps][merge_tile + 1];
    const int lane = static_cast<int>(threadIdx.x % 32);
    const int warp = static_cast<int>(threadIdx.x / 32);
    const std::int64_t tile = std::int64_t{blockIdx.x} * warps + warp;
    if (tile >= num_tiles) return;  // whole warps only: tile is uniform over the warp
    const int2 c0 = __ldg(reinterpret_cast<const int2*>(coords) + tile);
    const int2 c1 = __ldg(reinterpret_cast<const int2*>(coords) + tile + 1);
    const index_type r0 = c0.x, k0 = c0.y;
    const int rows = c1.x - c0.x;  // row ends in the tile
    const int nnz = c1.y - c0.y;   // nonzeros in the tile; rows + nnz <= merge_tile
    T* prod = products[warp];
    index_type* end = row_ends[warp];
    // The row ends first, so that their loads overlap the nonzeros' and the gathers' latency.
    index_type re[merge_items];
#pragma unroll
    for (int u = 0; u < merge_items; ++u) {
        const int i = lane + 32 * u;
        re[u] = i < rows ? __ldg(row_ptr + r0 + i + 1) : 0;
    }
    if (nnz > 0) {  // warp-uniform; a tile of row ends only gathers nothing (x may be empty)
        index_type c[merge_items];
        T v[merge_items];
        T xv[merge_items];
#pragma unroll
        for (int u = 0; u < merge_items; ++u) {
            const int j = lane + 32 * u;
            c[u] = j < nnz ? __ldcs(col_idx + k0 + j) : 0;
            v[u] = j < nnz ? __ldcs(values + k0 + j) : T{0};
        }
        // Unconditional gathers (slots past nnz read x[0], which exists: the matrix has a
        // nonzero) and stores (slots past nnz are never read), all in flight at once.
#pragma unroll
        for (int u = 0; u < merge_items; ++u) xv[u] = __ldg(x + c[u]);
#pragma unroll
        for (int u = 0; u < merge_items; ++u) prod[lane + 32 * u] = v[u] * xv[u];
    }
#pragma unroll
    for (int u = 0; u < merge_items; ++u) {
        const int i = lane + 32 * u;
        if (i < rows) end[i] = re[u] - k0;
    }
    if (lane == 0) end[rows] = merge_tile + 1;  // > every local nonzero index
    __syncwarp();

    const int length = rows + nnz;
    const int d0 = min(lane * merge_items, length);
    const int d1 = min(d0 + merge_items, length);
    const merge_path::Coord<int> start = merge_path::search<int>(d0, end, rows, nnz);
    int row = start.row, j = start.nz;
    T sum{0};
    T first_sum{0};
    bool first_done = false;
    for (int d = d0; d < d1; ++d) {
        if (j < end[row]) {
            sum += prod[j];
            ++j;
        } else {
            if (first_done) store_result(y, r0 + row, alpha, sum, beta);
            else first_sum = sum;
            first_done = true;
            sum = T{0};
            ++row;
        }
    }
    T scan = sum;
#pragma unroll
    for (int offset = 1; offset < 32; offset *= 2) {
        const T up = __shfl_up_sync(0xffffffffu, scan, offset);
        const int up_row = __shfl_up_sync(0xffffffffu, row, offset);
        if (lane >= offset && up_row == row) scan += up;
    }
    const T before = __shfl_up_sync(0xffffffffu, scan, 1);
    const int before_row = __shfl_up_sync(0xffffffffu, row, 1);
    if (first_done) {
        const T carry_in = lane > 0 && before_row == start.row ? before : T{0};
        store_result(y, r0 + start.row, alpha, first_sum + carry_in, beta);
    }
    if (lane == 31) carries[tile] = scan;
}

/// Fix-up of the rows split across merge tiles: thread k of the grid takes run k. A run of at
/// most csr_merge_serial_run_tiles tiles (nearly all: a row split across a tile boundary spans
/// one or two) is summed by its thread in tile order; the warp's longer runs go one after the
/// other (ballot order) to the whole warp, lane l summing tiles tile_begin + l, + 32, ... in
/// order, then a fixed shuffle tree. The run's thread adds alpha*sum to y[row], which the tile
/// ending the row wrote. The order depends only on the plan: bitwise reproducible.
template <typename T>
__global__ void __launch_bounds__(merge_fixup_block_size)
    csr_merge_fixup_kernel(index_type num_runs, const CsrMergeRun* __restrict__ runs,
                           const T* __restrict__ carries, T alpha, T* __restrict__ y)
{
    const int lane = static_cast<int>(threadIdx.x % 32);
    const std::int64_t k = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (k - lane >= num_runs) return;  // whole warps only: the warp's shuffles need every lane
    const bool valid = k < num_runs;
    const int4 run = valid ? __ldg(reinterpret_cast<const int4*>(runs) + k) : int4{0, 0, 0, 0};
    const bool serial = run.z - run.y <= csr_merge_serial_run_tiles;
    T sum{0};
    if (valid && serial)
        for (index_type t = run.y; t < run.z; ++t) sum += __ldg(carries + t);
    for (unsigned long_runs = __ballot_sync(0xffffffffu, valid && !serial); long_runs != 0;
         long_runs &= long_runs - 1) {
        const int owner = __ffs(static_cast<int>(long_runs)) - 1;
        const index_type begin = __shfl_sync(0xffffffffu, run.y, owner);
        const index_type end = __shfl_sync(0xffffffffu, run.z, owner);
        T part{0};
        for (index_type t = begin + lane; t < end; t += 32) part += __ldg(carries + t);
#pragma unroll
        for (int offset = 16; offset > 0; offset /= 2)
            part += __shfl_down_sync(0xffffffffu, part, offset);
        part = __shfl_sync(0xffffffffu, part, 0);
        if (lane == owner) sum = part;
    }
    if (valid) y[run.x] += alpha * sum;
}

template <typename T, int Subwarp>
void launch_vector(const CsrView<T>& a, T alpha, const T* x, T beta, T* y, cudaStream_t stream)
{
    constexpr int rows_per_block = vector_block_size / Subwarp;
    const auto blocks = static_cast<unsigned>((std::int64_t{a.num_rows} + rows_per_block - 1) /
                                              rows_per_block);
    csr_vector_kernel<T, Subwarp><<<blocks, vector_block_size, 0, stream>>>(
        a.num_rows, a.row_ptr, a.col_idx, a.values, alpha, x, beta, y);
    KBENCH_CUDA_CHECK_LAUNCH();
}

template <typename T, int Tpr>
void launch_sellp(const SellpView<T>& a, T alpha, const T* x, T beta, T* y, cudaStream_t stream)
{
    const int threads = a.slice_height * Tpr;
    const std::size_t smem =
        Tpr > 1 ? std::size_t(Tpr) * std::size_t(a.slice_height + 32 / Tpr) * sizeof(T) : 0;
    sellp_kernel<T, Tpr><<<static_cast<unsigned>(a.num_slices), threads, smem, stream>>>(
        a.num_rows, a.slice_height, a.slice_ptr, a.col_idx, a.values, a.row_perm, alpha, x, beta,
        y);
    KBENCH_CUDA_CHECK_LAUNCH();
    if (a.num_long_rows > 0) {
        long_rows_kernel<T, false>
            <<<static_cast<unsigned>(a.num_long_rows), long_row_block_size, 0, stream>>>(
                a.long_rows, a.long_row_ptr, a.long_col_idx, a.long_values, alpha, x, beta, y);
        KBENCH_CUDA_CHECK_LAUNCH();
    }
}

template <typename T>
int subwarp_for(const CsrView<T>& a)
{
    const double mean = a.num_rows > 0 ? double(a.nnz) / double(a.num_rows) : 0.0;
    int sw = 2;
    while (sw < 32 && sw < mean) sw *= 2;
    return sw;
}

template <typename T>
SellpParams sellp_params_for(const CsrView<T>& a)
{
    const double mean = a.num_rows > 0 ? double(a.nnz) / double(a.num_rows) : 0.0;
    index_type t = 1;
    while (t < 32 && 2 * t <= mean / 16.0) t *= 2;
    SellpParams p;
    p.threads_per_row = t;
    p.slice_height = t == 1 ? 64 : 32;
    p.sigma = 1;
    p.long_row_threshold = default_long_row_threshold(a.num_rows, a.nnz);
    return p;
}

}  // namespace

int choose_csr_subwarp(const CsrView<double>& a) { return subwarp_for(a); }
int choose_csr_subwarp(const CsrView<float>& a) { return subwarp_for(a); }
SellpParams choose_sellp_params(const CsrView<double>& a) { return sellp_params_for(a); }
SellpParams choose_sellp_params(const CsrView<float>& a) { return sellp_params_for(a); }

index_type default_long_row_threshold(std::int64_t num_rows, std::int64_t nnz)
{
    const std::int64_t mean_ceil = num_rows > 0 ? (nnz + num_rows - 1) / num_rows : 0;
    const std::int64_t threshold = std::max<std::int64_t>(256, 16 * mean_ceil);
    return static_cast<index_type>(
        std::min<std::int64_t>(threshold, std::numeric_limits<index_type>::max()));
}

template <typename T>
void csr_scalar(const CsrView<T>& a, T alpha, const T* x, T beta, T* y, cudaStream_t stream)
{
    KBENCH_NVTX_RANGE("spmv::csr_scalar");
    kbench::detail::check_csr_view(a, "spmv::csr_scalar");
    if (a.num_rows == 0) return;
    const auto blocks = static_cast<unsigned>((std::int64_t{a.num_rows} + scalar_block_size - 1) /
                                              scalar_block_size);
    csr_scalar_kernel<T><<<blocks, scalar_block_size, 0, stream>>>(
        a.num_rows, a.row_ptr, a.col_idx, a.values, alpha, x, beta, y);
    KBENCH_CUDA_CHECK_LAUNCH();
}

template <typename T>
void csr_vector(const CsrView<T>& a, T alpha, const T* x, T beta, T* y, cudaStream_t stream,
                int subwarp)
{
    KBENCH_NVTX_RANGE("spmv::csr_vector");
    kbench::detail::check_csr_view(a, "spmv::csr_vector");
    if (subwarp == 0) subwarp = subwarp_for(a);
    if (a.num_rows == 0) return;
    switch (subwarp) {
    case 2: return launch_vector<T, 2>(a, alpha, x, beta, y, stream);
    case 4: return launch_vector<T, 4>(a, alpha, x, beta, y, stream);
    case 8: return launch_vector<T, 8>(a, alpha, x, beta, y, stream);
    case 16: return launch_vector<T, 16>(a, alpha, x, beta, y, stream);
    case 32: return launch_vector<T, 32>(a, alpha, x, beta, y, stream);
    default:
        throw std::invalid_argument("spmv::csr_vector: subwarp = " + std::to_string(subwarp) +
                                    ", expected 0 (automatic), 2, 4, 8, 16 or 32");
    }
}

template <typename T>
void sellp(const SellpView<T>& a, T alpha, const T* x, T beta, T* y, cudaStream_t stream)
{
    KBENCH_NVTX_RANGE("spmv::sellp");
    validate_view(a, "spmv::sellp");
    const index_type b = a.slice_height;
    const index_type t = a.threads_per_row;
    if (std::int64_t{b} * t > sellp_max_block_size)
        throw std::invalid_argument("spmv::sellp: b = " + std::to_string(b) + ", t = " +
                                    std::to_string(t) + ", expected b*t <= 1024");
    if (a.num_slices == 0) return;
    switch (t) {
    case 1: return launch_sellp<T, 1>(a, alpha, x, beta, y, stream);
    case 2: return launch_sellp<T, 2>(a, alpha, x, beta, y, stream);
    case 4: return launch_sellp<T, 4>(a, alpha, x, beta, y, stream);
    case 8: return launch_sellp<T, 8>(a, alpha, x, beta, y, stream);
    case 16: return launch_sellp<T, 16>(a, alpha, x, beta, y, stream);
    case 32: return launch_sellp<T, 32>(a, alpha, x, beta, y, stream);
    default:
        throw std::invalid_argument("spmv::sellp: threads_per_row t = " + std::to_string(t) +
                                    ", expected 1, 2, 4, 8, 16 or 32");
    }
}

template <typename T>
void csr_adaptive(const CsrAdaptiveView<T>& a, T alpha, const T* x, T beta, T* y,
                  cudaStream_t stream)
{
    KBENCH_NVTX_RANGE("spmv::csr_adaptive");
    kbench::detail::check_csr_view(a.csr, "spmv::csr_adaptive");
    if ((a.num_blocks > 0 && a.blocks == nullptr) ||
        (a.num_long_rows > 0 && a.long_rows == nullptr) || a.num_blocks < 0 ||
        a.num_long_rows < 0)
        throw std::invalid_argument("spmv::csr_adaptive: plan of " + std::to_string(a.num_blocks) +
                                    " blocks and " + std::to_string(a.num_long_rows) +
                                    " long rows has null or negative arrays");
    if (a.num_blocks > 0) {
        constexpr int warps = adaptive_block_size / 32;
        const auto grid = static_cast<unsigned>((std::int64_t{a.num_blocks} + warps - 1) / warps);
        csr_adaptive_kernel<T><<<grid, adaptive_block_size, 0, stream>>>(
            a.num_blocks, a.blocks, a.csr.row_ptr, a.csr.col_idx, a.csr.values, alpha, x, beta, y);
        KBENCH_CUDA_CHECK_LAUNCH();
    }
    if (a.num_long_rows > 0) {
        long_rows_kernel<T, true>
            <<<static_cast<unsigned>(a.num_long_rows), long_row_block_size, 0, stream>>>(
                a.long_rows, a.csr.row_ptr, a.csr.col_idx, a.csr.values, alpha, x, beta, y);
        KBENCH_CUDA_CHECK_LAUNCH();
    }
}

template <typename T>
void csr_merge(const CsrMergeView<T>& a, T alpha, const T* x, T beta, T* y, cudaStream_t stream)
{
    KBENCH_NVTX_RANGE("spmv::csr_merge");
    kbench::detail::check_csr_view(a.csr, "spmv::csr_merge");
    const std::int64_t length = std::int64_t{a.csr.num_rows} + a.csr.nnz;
    const std::int64_t tiles = (length + merge_tile - 1) / merge_tile;
    if (a.num_tiles != tiles || a.coords == nullptr || a.num_runs < 0 ||
        (a.num_runs > 0 && a.runs == nullptr) || (a.num_tiles > 0 && a.carries == nullptr))
        throw std::invalid_argument(
            "spmv::csr_merge: plan of " + std::to_string(a.num_tiles) + " tiles and " +
            std::to_string(a.num_runs) + " split rows (coords " +
            (a.coords == nullptr ? "null" : "set") + ", carries " +
            (a.carries == nullptr ? "null" : "set") + "), expected " + std::to_string(tiles) +
            " tiles for " + std::to_string(a.csr.num_rows) + " rows and " +
            std::to_string(a.csr.nnz) + " nonzeros and non-null arrays");
    if (a.num_tiles == 0) return;
    constexpr int warps = merge_block_size / 32;
    const auto grid = static_cast<unsigned>((std::int64_t{a.num_tiles} + warps - 1) / warps);
    csr_merge_kernel<T><<<grid, merge_block_size, 0, stream>>>(
        a.num_tiles, a.coords, a.csr.row_ptr, a.csr.col_idx, a.csr.values, alpha, x, beta, y,
        a.carries);
    KBENCH_CUDA_CHECK_LAUNCH();
    if (a.num_runs > 0) {
        const auto fix_grid = static_cast<unsigned>(
            (std::int64_t{a.num_runs} + merge_fixup_block_size - 1) / merge_fixup_block_size);
        csr_merge_fixup_kernel<T><<<fix_grid, merge_fixup_block_size, 0, stream>>>(
            a.num_runs, a.runs, a.carries, alpha, y);
        KBENCH_CUDA_CHECK_LAUNCH();
    }
}

#define KBENCH_INSTANTIATE_SPMV(T)                                                          \
    template void csr_scalar<T>(const CsrView<T>&, T, const T*, T, T*, cudaStream_t);       \
    template void csr_vector<T>(const CsrView<T>&, T, const T*, T, T*, cudaStream_t, int);  \
    template void sellp<T>(const SellpView<T>&, T, const T*, T, T*, cudaStream_t);          \
    template void csr_adaptive<T>(const CsrAdaptiveView<T>&, T, const T*, T, T*, cudaStream_t); \
    template void csr_merge<T>(const CsrMergeView<T>&, T, const T*, T, T*, cudaStream_t)
KBENCH_INSTANTIATE_SPMV(float);
KBENCH_INSTANTIATE_SPMV(double);
#undef KBENCH_INSTANTIATE_SPMV

}  // namespace kbench::spmv
