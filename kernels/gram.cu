// Fused Gram-matrix kernel B = V^T W of kernels/tall_skinny.hpp (yamazaki2014 Sec. V-B/C, the
// product behind CholQR and SVQR, Fig. 11a), kbench variant.
//
// Stage 1: G blocks of 256 threads (8 warps); block b owns a contiguous range of rows (a
// multiple of the chunk height R). It walks its rows in chunks of R rows: the chunk of V (and of
// W) is staged in shared memory column by column (column c at smem[c * S], S = R + 4 so that
// every 8 x 4 tile starts 32-byte aligned and neighbouring columns fall in other banks), zero
// padded to KP columns (KP = 8, 16, 32, 48 or 64 >= kv, kw; a W of 3 to 8 columns only to 8, so
// that V's tile rows take one tile each and W's chunk is R x 8) and to whole chunks. R = 4096 / KP
// (64 for KP = 48, KP of V), so a chunk of V is 32 KiB of doubles whatever KP and each thread loads
// 16 values of it (12 for KP = 48): enough loads in flight for narrow blocks too. While the warps
// multiply one chunk, every thread already holds its share of the next chunk in registers, so loads
// stay in flight during the arithmetic.
// The KP x KP product is cut into 8 x 8 tiles (TI = KP / 8 tiles per side). Each warp owns a
// fixed list of tiles and a slice of the chunk's R / 4 steps of 4 rows:
//   * general (W != V): warp w owns tile row w % TI and every tile of it, steps s with
//     s % (8 / TI) == w / TI; the tile row's V^T fragment is loaded once per step and reused for
//     all TI tiles;
//   * symmetric (W == V, only tiles with ti <= tj; TI even): warp w owns the pair of tile rows
//     p = w % (TI / 2) and TI - 1 - p, that is TI + 1 upper tiles for every pair (balanced),
//     steps s with s % (8 / (TI / 2)) == w / (TI / 2).
//   When 8 is not a multiple of the groups (TI = 6), the last warps stay idle in the arithmetic.
// One step of one tile is one mma of shape m8n8k4: double uses the FP64 tensor cores (wmma,
// sm_80 and newer); float, and double on older architectures, use CUDA-core FMAs with the same
// tiling (each lane owns 2 entries of each tile).
// After its last chunk the block adds the step slices' tiles in slice order in shared memory and
// writes its kv x kw partial product (for W == V the upper triangle) to the workspace:
// partial[b][j * kv + i]. Stage 2 (G > 1; see "Finishing" below) sums the G partials of every
// entry in a fixed order (a warp per entry: lane l takes blocks l, l + 32, ... in order, then a
// fixed butterfly) and writes B (both triangles for W == V): for a product of few entries in the
// same launch (each block fences its partial and takes a ticket from a counter in the
// workspace; the block that draws the last ticket sums), for more in a second launch spread
// over the SMs. With G == 1 (n <= 512) stage 1 writes B and the workspace is not touched.
// G = ceil(n / 512), at most 512 and at most the blocks the SMs hold at once (one wave).
// Double V^T V on sm_80 and newer takes a faster path without shared-memory staging (see
// "Symmetric double product" below), and a W of at most 2 columns (W != V; the one-reduce
// Arnoldi step's [u, A u]) a CUDA-core kernel with the rows streamed (see "Narrow W"); the
// kernel above serves the other W != V products, float V^T V and older GPUs. All three kernels
// finish through one helper (sum_partials): the narrow one always in its launch (the one-reduce
// Arnoldi step's product is one launch), the others in theirs up to in_launch_entries entries.
// Every sum runs in an order fixed by n, the shapes and the grid, never by which block finishes
// last or which path finishes: the result is deterministic, the same bits either way.
//
// Workspace (gram_workspace_bytes, kernels/tall_skinny.hpp): gram_counter_bytes of ticket
// counters at offset 0 (counters[0] for the 1-D grids, counters[g] for column group g of the
// narrow kernel), then the partials, partial[b * kv * kw + j * kv + i]. The counters must be
// zero at launch (gram_workspace_init or GramWorkspace, once); each launch leaves them zero.
#include "kernels/tall_skinny.hpp"

#include "kernels/base/cuda_check.hpp"
#include "kernels/base/nvtx.hpp"
#include "kernels/base/device.hpp"
#include "kernels/block_reduce.cuh"
#include "kernels/dot.hpp"  // dot_counter_bytes, detail::init_counter_region
#include "kernels/packs.cuh"

#include <mma.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace kbench::blas {
namespace {

constexpr int threads = 256;
constexpr int warps = threads / 32;
constexpr std::int64_t min_rows_per_block = 512;
static_assert(gram_counter_bytes == dot_counter_bytes,
              "gram's and the dot kernels' counter regions coincide in a shared workspace");

/// Padded column count of k columns: 8, 16, 32, 48 or 64.
constexpr int padded_columns(int k)
{
    return k <= 8 ? 8 : k <= 16 ? 16 : k <= 32 ? 32 : k <= 48 ? 48 : 64;
}

/// Chunk geometry for V padded to KP columns: R rows per chunk (4096 / KP, at least 64, so that
/// a chunk of V is 32 KiB of doubles and each thread loads R KP / 256 values of it), column
/// stride S = R + 4 (every 8 x 4 tile 32-byte aligned, neighbouring columns in other banks).
template <int KP>
struct Chunk {
    static constexpr int rows = 4096 / KP >= 64 ? (KP == 48 ? 64 : 4096 / KP) : 64;
    static constexpr int stride = rows + 4;
    static constexpr int steps = rows / 4;  // mma steps of 4 rows
};

/// Stage-1 blocks for n rows: one per 512 rows, at most 512 (about 4 per SM of a 132-SM GPU,
/// all resident at once at 32-64 KiB of shared memory each: one wave).
std::int64_t stage1_blocks(std::int64_t n)
{
    const std::int64_t g = (n + min_rows_per_block - 1) / min_rows_per_block;
    return std::clamp<std::int64_t>(g, 1, 512);
}

// ---- Tile arithmetic: FP64 tensor cores or CUDA-core FMAs ------------------------------------

/// CUDA-core m8n8k4 on tiles staged column-wise in shared memory: lane l owns the entries
/// (l % 8, 2 (l / 8)) and (l % 8, 2 (l / 8) + 1) of the 8 x 8 tile.
template <typename T>
struct ScalarTile {
    struct A { T v[4]; };
    struct B { T v[4][2]; };
    struct Acc { T v[2]; };
    __device__ static void zero(Acc& c) { c.v[0] = c.v[1] = T(0); }
    /// V^T fragment: rows r0..r0+3 of column ti*8 + l % 8.
    __device__ static void load_a(A& a, const T* s, int S, int ti, int r0)
    {
        const T* p = s + (ti * 8 + static_cast<int>(threadIdx.x % 8)) * S + r0;
#pragma unroll
        for (int r = 0; r < 4; ++r) a.v[r] = p[r];
    }
    __device__ static void load_b(B& b, const T* s, int S, int tj, int r0)
    {
        const int j = tj * 8 + 2 * static_cast<int>((threadIdx.x % 32) / 8);
#pragma unroll
        for (int r = 0; r < 4; ++r) {
            b.v[r][0] = s[j * S + r0 + r];
            b.v[r][1] = s[(j + 1) * S + r0 + r];
        }
    }
    __device__ static void mma(Acc& c, const A& a, const B& b)
    {
#pragma unroll
        for (int r = 0; r < 4; ++r) {
            c.v[0] += a.v[r] * b.v[r][0];
            c.v[1] += a.v[r] * b.v[r][1];
        }
    }
    /// out[(tj*8 + j) * ld + ti*8 + i] (= or +=) the tile.
    __device__ static void store(T* out, int ld, int ti, int tj, const Acc& c, bool add)
    {
        const int i = ti * 8 + static_cast<int>(threadIdx.x % 8);
        const int j = tj * 8 + 2 * static_cast<int>((threadIdx.x % 32) / 8);
        T* p0 = out + j * ld + i;
        T* p1 = out + (j + 1) * ld + i;
        *p0 = add ? *p0 + c.v[0] : c.v[0];
        *p1 = add ? *p1 + c.v[1] : c.v[1];
    }
};

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
/// FP64 tensor-core m8n8k4 (wmma). A = V^T tile (8 x 4, row-major in the column-wise staging:
/// element (i, r) at s[(ti*8 + i) * S + r0 + r]); B = W tile (4 x 8, column-major likewise).
struct TensorTile {
    using A = nvcuda::wmma::fragment<nvcuda::wmma::matrix_a, 8, 8, 4, double,
                                     nvcuda::wmma::row_major>;
    using B = nvcuda::wmma::fragment<nvcuda::wmma::matrix_b, 8, 8, 4, double,
                                     nvcuda::wmma::col_major>;
    using Acc = nvcuda::wmma::fragment<nvcuda::wmma::accumulator, 8, 8, 4, double>;
    __device__ static void zero(Acc& c) { nvcuda::wmma::fill_fragment(c, 0.0); }
    __device__ static void load_a(A& a, const double* s, int S, int ti, int r0)
    {
        nvcuda::wmma::load_matrix_sync(a, s + ti * 8 * S + r0, S);
    }
    __device__ static void load_b(B& b, const double* s, int S, int tj, int r0)
    {
        nvcuda::wmma::load_matrix_sync(b, s + tj * 8 * S + r0, S);
    }
    __device__ static void mma(Acc& c, const A& a, const B& b)
    {
        nvcuda::wmma::mma_sync(c, a, b, c);
    }
    __device__ static void store(double* out, int ld, int ti, int tj, const Acc& c, bool add)
    {
        double* p = out + tj * 8 * ld + ti * 8;
        if (add) {
            Acc prev;
            nvcuda::wmma::load_matrix_sync(prev, p, ld, nvcuda::wmma::mem_col_major);
#pragma unroll
            for (int e = 0; e < prev.num_elements; ++e) prev.x[e] += c.x[e];
            nvcuda::wmma::store_matrix_sync(p, prev, ld, nvcuda::wmma::mem_col_major);
        } else {
            nvcuda::wmma::store_matrix_sync(p, c, ld, nvcuda::wmma::mem_col_major);
        }
    }
};
template <typename T>
using Tile = std::conditional_t<std::is_same_v<T, double>, TensorTile, ScalarTile<T>>;
#else
template <typename T>
using Tile = ScalarTile<T>;
#endif

// ---- The warp's share of the tiles (see the file comment) -------------------------------------

template <int KPV, int KPW, bool Sym>
struct Plan {
    static_assert(!Sym || KPV == KPW, "V^T V pads V and W alike");
    static constexpr int ti_count = KPV / 8;                 // TI: tile rows (V's columns)
    static constexpr int tj_count = KPW / 8;                 // tile columns (W's columns)
    static constexpr bool paired = Sym && ti_count >= 2;
    static constexpr int groups = paired ? ti_count / 2 : ti_count;
    static constexpr int slices = warps / groups;            // step slices; warps with
                                                             // w / groups >= slices idle
    static constexpr int items = paired ? ti_count + 1 : tj_count;
    /// Tile (ti, tj) of item `it` for the warp's group g; `second` when it is in the pair's
    /// second tile row (then its V^T fragment is a1).
    __device__ static void tile(int g, int it, int& ti, int& tj, bool& second)
    {
        if (!paired) {
            ti = g;
            tj = it;
            second = false;
        } else if (it < ti_count - g) {
            ti = g;
            tj = g + it;
            second = false;
        } else {
            ti = ti_count - 1 - g;
            tj = ti + (it - (ti_count - g));
            second = true;
        }
    }
};

/// Values per thread of a chunk of Chunk<KP>::rows rows and KX columns.
template <int KP, int KX>
inline constexpr int chunk_share = Chunk<KP>::rows * KX / threads;

/// Loads this thread's share of a chunk (rows [row0, row0 + R) of columns 0..KX-1, R =
/// Chunk<KP>::rows, zero beyond `rows_end` and `k`) into registers: value q of thread t is
/// element e = t + 256 q of the chunk, row e % R of column e / R (a warp reads 32 consecutive
/// rows of one column).
template <typename T, int KP, int KX>
__device__ void load_chunk(T (&reg)[chunk_share<KP, KX>], const T* __restrict__ X,
                           std::int64_t ld, int k, std::int64_t row0, std::int64_t rows_end)
{
    using C = Chunk<KP>;
#pragma unroll
    for (int q = 0; q < chunk_share<KP, KX>; ++q) {
        const int e = static_cast<int>(threadIdx.x) + threads * q;
        const int c = e / C::rows;
        const std::int64_t row = row0 + e % C::rows;
        reg[q] = (c < k && row < rows_end) ? X[c * ld + row] : T(0);
    }
}

template <typename T, int KP, int KX>
__device__ void store_chunk(T* s, const T (&reg)[chunk_share<KP, KX>])
{
    using C = Chunk<KP>;
#pragma unroll
    for (int q = 0; q < chunk_share<KP, KX>; ++q) {
        const int e = static_cast<int>(threadIdx.x) + threads * q;
        s[(e / C::rows) * C::stride + e % C::rows] = reg[q];
    }
}

// ---- Finishing (stage 2) ------------------------------------------------------------------------
//
// In the launch: with G > 1 blocks in a row of the grid (gridDim.x; the narrow kernel has one row
// per column group, blockIdx.y) every block stores its partial, and then all its threads call
// finish_partials: reduce::block_is_last fences the block's stores and takes a ticket from the
// row's counter (atomicInc wraps it back to 0 with the last ticket), and the block that draws the
// row's last ticket sums the row's entries over the G partials into B. Order: its 8 warps take the
// entries q = w, w + 8, w + 16, ... (q = 0 .. rows * cols - 1, i = i0 + q % rows, j = q / rows);
// for each, lane l adds the partials of blocks l, l + 32, ... in that order, starting from 0, and
// reduce::warp_sum adds the 32 lane sums in its fixed butterfly; lane 0 writes the entry.
// gram_finish_kernel, the second launch of larger products, runs the same sum_partials over a share
// of the entries per block, so the bits are the same for the same grid whichever path finishes;
// which warp, block or SM does it does not enter the sum. A warp takes Batch of its entries at once
// (independent sums, one warp_sum over all of them: the butterfly of each value is unchanged) so
// that more loads are in flight: 4 for the 1-D kernels, 2 for the narrow one (8 warps x 2 covers a
// column group's at most 16 entries in one pass), 1 in gram_finish_kernel (one entry per warp).
// finish_partials is not inlined: its registers are then allocated apart from stage 1's, which
// stay as they were without it (and with them each kernel's occupancy and grid).

/// Sums entries q = first + w, first + w + warps, ... < min(last, rows * cols) (w: the calling
/// warp; entry q is (i, j) = (i0 + q % rows, q / rows), skipped for Sym when i > j) of B's kv x
/// cols product over the `blocks` partials at partial[b * kv * cols + j * kv + i] into B (for
/// Sym also the mirrored B(j, i)), in the order described above. Every thread of the block calls
/// it (the loop is uniform over each warp).
template <typename T, bool Sym, int Batch>
__device__ __forceinline__ void sum_partials(int blocks, int kv, int i0, int rows, int cols,
                                             int first, int last, const T* partial,
                                             T* __restrict__ B, int ldb)
{
    const int stride = kv * cols;  // one block's partial (blocks * stride < 2^21)
    const int warp = static_cast<int>(threadIdx.x / 32);
    const int lane = static_cast<int>(threadIdx.x % 32);
    const int count = min(last, rows * cols);
    for (int q0 = first + warp; q0 < count; q0 += warps * Batch) {  // uniform over the warp
        int at[Batch];  // the entry's offset j * kv + i in a partial, or -1: none
        T sum[Batch];
#pragma unroll
        for (int t = 0; t < Batch; ++t) {
            const int q = q0 + warps * t;
            const int i = i0 + q % rows;
            const int j = q / rows;
            at[t] = q < count && !(Sym && i > j) ? j * kv + i : -1;
            sum[t] = T(0);
        }
        for (int b = lane; b < blocks; b += 32) {
#pragma unroll
            for (int t = 0; t < Batch; ++t) {
                if (at[t] >= 0) sum[t] += __ldcg(partial + (b * stride + at[t]));
            }
        }
        reduce::warp_sum<T, Batch>(sum);
        if (lane == 0) {
#pragma unroll
            for (int t = 0; t < Batch; ++t) {
                if (at[t] < 0) continue;
                const int i = at[t] % kv;
                const int j = at[t] / kv;
                B[i + static_cast<std::int64_t>(j) * ldb] = sum[t];
                if (Sym) B[j + static_cast<std::int64_t>(i) * ldb] = sum[t];
            }
        }
    }
}

/// Stage 2 in the launch (see above): every thread of every block of a row with gridDim.x > 1
/// calls it after the block stored its partial (layout of sum_partials). `counter` is the row's
/// ticket counter (zero at launch; left zero). The block that draws the last ticket sums all
/// rows * cols entries; the other blocks return after the ticket.
template <typename T, bool Sym, int Batch>
__device__ __noinline__ void finish_partials(unsigned int* counter, int kv, int i0, int rows,
                                             int cols, const T* partial, T* __restrict__ B,
                                             int ldb)
{
    if (!reduce::block_is_last(counter, gridDim.x)) return;  // uniform over the block
    sum_partials<T, Sym, Batch>(static_cast<int>(gridDim.x), kv, i0, rows, cols, 0, rows * cols,
                                partial, B, ldb);
}

/// Entries the in-launch finishing takes at most: two passes of its block (8 warps x a batch
/// of 4). A product of more entries is finished by gram_finish_kernel instead, spread over many
/// SMs: one block summing 2080 entries (k = 64) over ~130 partials would take ~65
/// latency-bound passes, far more than the ~3 us of a second launch.
constexpr int in_launch_entries = 2 * warps * 4;

/// Stage 2 as its own launch (products of more than in_launch_entries entries): block e's warps
/// sum entries 8 e .. 8 e + 7, one each, over the `blocks` partials (the same order, so the
/// same bits, as finish_partials; the grid of the former separate stage 2).
template <typename T, bool Sym>
__global__ void __launch_bounds__(threads)
    gram_finish_kernel(int blocks, int kv, int kw, const T* __restrict__ partial,
                       T* __restrict__ B, int ldb)
{
    const int first = static_cast<int>(blockIdx.x) * warps;
    sum_partials<T, Sym, 1>(blocks, kv, 0, kv, kw, first, first + warps, partial, B, ldb);
}

/// Stage 1 (see the file comment). V is padded to KPV columns, W to KPW (Sym: W is V). Dynamic
/// shared memory: KPV * S elements for V, KPW * S more for W unless Sym. Writes
/// partial[blockIdx.x * kv * kw + j * kv + i] and finishes (finish_partials, counter 0 of
/// `counters`; null: gram_finish_kernel finishes), or writes B when gridDim.x == 1 (then
/// partial and counters may be null).
template <typename T, int KPV, int KPW, bool Sym>
__global__ void __launch_bounds__(threads, 1)
    gram_partial_kernel(std::int64_t n, std::int64_t rows_per_block, int kv,
                        const T* __restrict__ V, std::int64_t ldv, int kw,
                        const T* __restrict__ W, std::int64_t ldw, T* __restrict__ partial,
                        unsigned int* counters, T* __restrict__ B, int ldb)
{
    using P = Plan<KPV, KPW, Sym>;
    using M = Tile<T>;
    using C = Chunk<KPV>;
    constexpr int S = C::stride;
    extern __shared__ __align__(32) unsigned char smem_raw[];
    T* sv = reinterpret_cast<T*>(smem_raw);
    T* sw = Sym ? sv : sv + KPV * S;

    const int warp = static_cast<int>(threadIdx.x / 32);
    const int group = warp % P::groups;
    const int slice = warp / P::groups;
    const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * rows_per_block;
    const std::int64_t end = std::min<std::int64_t>(n, first + rows_per_block);

    typename M::Acc acc[P::items];
#pragma unroll
    for (int it = 0; it < P::items; ++it) M::zero(acc[it]);

    T rv[chunk_share<KPV, KPV>];
    T rw[Sym ? 1 : chunk_share<KPV, KPW>];
    if (first < end) {
        load_chunk<T, KPV, KPV>(rv, V, ldv, kv, first, end);
        if constexpr (!Sym) load_chunk<T, KPV, KPW>(rw, W, ldw, kw, first, end);
    }
    for (std::int64_t row0 = first; row0 < end; row0 += C::rows) {
        __syncthreads();  // the previous chunk is no longer read
        store_chunk<T, KPV, KPV>(sv, rv);
        if constexpr (!Sym) store_chunk<T, KPV, KPW>(sw, rw);
        __syncthreads();
        if (row0 + C::rows < end) {  // next chunk in flight during the arithmetic
            load_chunk<T, KPV, KPV>(rv, V, ldv, kv, row0 + C::rows, end);
            if constexpr (!Sym) load_chunk<T, KPV, KPW>(rw, W, ldw, kw, row0 + C::rows, end);
        }
        for (int s = slice; slice < P::slices && s < C::steps; s += P::slices) {
            const int r0 = 4 * s;
            int ti0, tj0, ti1, tj1;
            bool second;
            P::tile(group, 0, ti0, tj0, second);
            P::tile(group, P::items - 1, ti1, tj1, second);
            typename M::A a0, a1;
            M::load_a(a0, sv, S, ti0, r0);
            if constexpr (P::paired) M::load_a(a1, sv, S, ti1, r0);
#pragma unroll
            for (int it = 0; it < P::items; ++it) {
                int ti, tj;
                P::tile(group, it, ti, tj, second);
                typename M::B b;
                M::load_b(b, sw, S, tj, r0);
                if constexpr (P::paired) {
                    M::mma(acc[it], second ? a1 : a0, b);
                } else {
                    M::mma(acc[it], a0, b);
                }
            }
        }
    }

    // Sum the step slices in slice order in shared memory (sv reused: KPV * KPW <= KPV * S).
    T* red = sv;
    for (int s = 0; s < P::slices; ++s) {
        __syncthreads();
        if (slice == s) {
#pragma unroll
            for (int it = 0; it < P::items; ++it) {
                int ti, tj;
                bool second;
                P::tile(group, it, ti, tj, second);
                M::store(red, KPV, ti, tj, acc[it], s > 0);
            }
        }
    }
    __syncthreads();
    const bool direct = gridDim.x == 1;
    for (int e = static_cast<int>(threadIdx.x); e < kv * kw; e += threads) {
        const int i = e % kv;
        const int j = e / kv;
        if (Sym && i > j) continue;
        const T value = red[j * KPV + i];
        if (direct) {
            B[i + static_cast<std::int64_t>(j) * ldb] = value;
            if (Sym) B[j + static_cast<std::int64_t>(i) * ldb] = value;
        } else {
            partial[static_cast<std::int64_t>(blockIdx.x) * kv * kw + e] = value;
        }
    }
    if (!direct && counters != nullptr)
        finish_partials<T, Sym, 4>(counters, kv, 0, kv, kw, partial, B, ldb);
}

// ---- Symmetric double product: fragments straight from memory (sm_80 and newer) -------------
//
// For B = V^T V the m8n8k4 FP64 mma's A fragment of tile column t (V^T, 8 x 4, row-major) and
// its B fragment (V, 4 x 8, column-major) hold the same values in the same lanes: lane l holds
// V(r0 + l % 4, 8 t + l / 4) in both (the .f64 fragment layouts of the PTX ISA). So each warp
// loads one value per lane per tile column and step of 4 rows straight from global memory
// and multiplies every pair of tile columns t <= v in registers, with no shared-memory staging
// and no block synchronization until the end. On sm_90 one m16n8k8 mma takes two tile rows
// (t, t + 1) against tile column v over two steps (its A fragment is the pair's values, its B
// fragment column v's), so TI loads per step feed about TI^2 / 4 mmas. TI = ceil(k / 8) (1..8): padding
// columns are never read. Any 4 rows can form a step, as long as A and B take the same ones:
// with V 16-byte aligned and ld even, steps u and u + 1 take rows 4 u + 2 (l % 4) and the row
// after it from one 16-byte load (one load = 64 contiguous bytes of each of 8 columns); else
// step u takes rows 4 u + l % 4 (32 bytes of each of 8 columns). A warp walks strips of 4 U
// rows (U steps, ~16 loads per lane), strip s, s + warps in the grid, ...; the next strip's
// loads are issued before the current strip's mmas. At the end the block's 8 warps add their
// tiles in warp order in shared memory, and the block writes its upper-triangle partial (or B)
// and finishes (finish_partials) as stage 1 does above.
// Grid: min(stage1_blocks(n), the blocks resident on the device).

template <int TI>
struct DirectPlan {
    /// Tile rows are taken in pairs (t, t + 1), t even (the last one alone when TI is odd); pair
    /// p holds the tiles (t, v) and (t + 1, v) for v = t .. TI - 1 in one accumulator of 4.
    static constexpr int pairs = (TI + 1) / 2;
    static constexpr int accumulators = pairs * TI - pairs * (pairs - 1);
    /// Steps of 4 rows per strip (U): a power of two (strips of whole 32-byte sectors), even
    /// (pairs of steps per 16-byte load and per mma), with U TI ~ 16 loads per lane in flight as
    /// far as the registers allow: 8 accumulators + x and next 4 U TI registers.
    static constexpr int steps = TI >= 7 ? 2 : TI >= 4 ? 4 : TI >= 2 ? 8 : 16;
    static constexpr int strip_rows = 4 * steps;
    /// Two blocks per SM when the estimated registers fit in 128 per thread.
    static constexpr int min_blocks = 8 * accumulators + 4 * steps * TI + 24 <= 128 ? 2 : 1;
    /// Accumulator of tile pair p (rows 2p, 2p + 1) and tile column v >= 2p.
    __host__ __device__ static constexpr int index(int p, int v)
    {
        return p * TI - p * (p - 1) + v - 2 * p;
    }
};

/// c += A B for two steps of 4 rows: the m16n8k8 FP64 mma (sm_90) with A = the V^T fragments
/// of tile rows t, t + 1 (a = {row t step u, row t + 1 step u, row t step u + 1, row t + 1
/// step u + 1}) and B = those of tile column v (b = {step u, step u + 1}); c = {tile (t, v),
/// tile (t + 1, v)} in the m8n8 accumulator layout. On sm_80, four m8n8k4 mmas.
__device__ __forceinline__ void dmma_pair(double (&c)[4], const double (&a)[4],
                                          const double (&b)[2])
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
        "{%8, %9}, {%0, %1, %2, %3};"
        : "+d"(c[0]), "+d"(c[1]), "+d"(c[2]), "+d"(c[3])
        : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]));
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};"
        : "+d"(c[0]), "+d"(c[1])
        : "d"(a[0]), "d"(b[0]));
    asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};"
        : "+d"(c[0]), "+d"(c[1])
        : "d"(a[2]), "d"(b[1]));
    asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};"
        : "+d"(c[2]), "+d"(c[3])
        : "d"(a[1]), "d"(b[0]));
    asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};"
        : "+d"(c[2]), "+d"(c[3])
        : "d"(a[3]), "d"(b[1]));
#else
    (void)c, (void)a, (void)b;
    __trap();  // never launched: the host dispatches here only on sm_80 and newer
#endif
}

/// Lane l's values of a strip: x[u][t] = V(row0 + 4 u + l % 4, 8 t + l / 4), zero for columns
/// >= k and rows >= n.
template <int TI>
__device__ __forceinline__ void load_strip_tail(double (&x)[DirectPlan<TI>::steps][TI],
                                                const double* __restrict__ V, std::int64_t ld,
                                                int k, std::int64_t row0, std::int64_t n)
{
    const int lane = static_cast<int>(threadIdx.x % 32);
    const int c = lane / 4;
#pragma unroll
    for (int u = 0; u < DirectPlan<TI>::steps; ++u) {
        const std::int64_t row = row0 + 4 * u + lane % 4;
#pragma unroll
        for (int t = 0; t < TI; ++t) {
            const bool ok = (t + 1 < TI || 8 * t + c < k) && row < n;
            x[u][t] = ok ? __ldg(V + static_cast<std::int64_t>(8 * t + c) * ld + row) : 0.0;
        }
    }
}

/// A whole strip. Vec (V 16-byte aligned, ld and row0 even): steps u and u + 1 (u even) take
/// rows row0 + 4 u + 2 (l % 4) and the row after it from one 16-byte load, so one load covers
/// 64 contiguous bytes of each of 8 columns; else as the tail.
template <int TI, bool Vec>
__device__ __forceinline__ void load_strip_full(double (&x)[DirectPlan<TI>::steps][TI],
                                                const double* __restrict__ V, std::int64_t ld,
                                                int k, std::int64_t row0)
{
    constexpr int U = DirectPlan<TI>::steps;
    const int lane = static_cast<int>(threadIdx.x % 32);
    const int c = lane / 4;
#pragma unroll
    for (int t = 0; t < TI; ++t) {
        const bool ok = t + 1 < TI || 8 * t + c < k;
        const double* p = V + static_cast<std::int64_t>(8 * t + c) * ld + row0;
        if constexpr (Vec) {
#pragma unroll
            for (int u = 0; u < U; u += 2) {
                const double2 v = ok ? __ldg(reinterpret_cast<const double2*>(p + 4 * u + 2 * (lane % 4))) : double2{0.0, 0.0};
                x[u][t] = v.x;
                x[u + 1][t] = v.y;
            }
        } else {
#pragma unroll
            for (int u = 0; u < U; ++u) x[u][t] = ok ? __ldg(p + 4 * u + lane % 4) : 0.0;
        }
    }
}

template <int TI, bool Vec>
__device__ __forceinline__ void load_any_strip(double (&x)[DirectPlan<TI>::steps][TI],
                                               const double* __restrict__ V, std::int64_t ld,
                                               int k, std::int64_t row0, std::int64_t n)
{
    if (row0 + DirectPlan<TI>::strip_rows <= n)
        load_strip_full<TI, Vec>(x, V, ld, k, row0);
    else
        load_strip_tail<TI>(x, V, ld, k, row0, n);
}

template <int TI, bool Vec>
__global__ void __launch_bounds__(threads, DirectPlan<TI>::min_blocks)
    gram_sym_direct_kernel(std::int64_t n, int k, const double* __restrict__ V, std::int64_t ld,
                           double* __restrict__ partial, unsigned int* counters,
                           double* __restrict__ B, int ldb)
{
    using P = DirectPlan<TI>;
    constexpr int KP = 8 * TI;
    extern __shared__ __align__(16) unsigned char smem_raw[];
    double* red = reinterpret_cast<double*>(smem_raw);  // KP x KP, column-major

    const int warp = static_cast<int>(threadIdx.x / 32);
    const int lane = static_cast<int>(threadIdx.x % 32);
    const std::int64_t strips = (n + P::strip_rows - 1) / P::strip_rows;
    const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * warps;

    double acc[P::accumulators][4];
#pragma unroll
    for (int it = 0; it < P::accumulators; ++it) acc[it][0] = acc[it][1] = acc[it][2] = acc[it][3] = 0.0;

    double x[P::steps][TI];
    double next[P::steps][TI];
    std::int64_t s = static_cast<std::int64_t>(blockIdx.x) * warps + warp;
    if (s < strips) load_any_strip<TI, Vec>(x, V, ld, k, s * P::strip_rows, n);
    for (; s < strips; s += stride) {
        if (s + stride < strips) load_any_strip<TI, Vec>(next, V, ld, k, (s + stride) * P::strip_rows, n);
#pragma unroll
        for (int u = 0; u < P::steps; u += 2) {
#pragma unroll
            for (int p = 0; p < P::pairs; ++p) {
                const int t = 2 * p;
                const bool second = t + 1 < TI;  // else rows t + 1 are zero
                const double a[4] = {x[u][t], second ? x[u][t + 1] : 0.0, x[u + 1][t],
                                     second ? x[u + 1][t + 1] : 0.0};
#pragma unroll
                for (int v = 0; v < TI; ++v) {
                    if (v < t) continue;
                    const double b[2] = {x[u][v], x[u + 1][v]};
                    dmma_pair(acc[P::index(p, v)], a, b);
                }
            }
        }
#pragma unroll
        for (int u = 0; u < P::steps; ++u) {
#pragma unroll
            for (int t = 0; t < TI; ++t) x[u][t] = next[u][t];
        }
    }

    // acc[index(p, v)][2 h + e] is entry (i, j) of tile (2p + h, v): i = 8 (2p + h) + l / 4,
    // j = 8 v + 2 (l % 4) + e. Tile (2p + 1, 2p) is below the diagonal: written, never read.
    for (int w = 0; w < warps; ++w) {
        __syncthreads();
        if (warp == w) {
#pragma unroll
            for (int p = 0; p < P::pairs; ++p) {
#pragma unroll
                for (int v = 0; v < TI; ++v) {
                    if (v < 2 * p) continue;
                    const int it = P::index(p, v);
#pragma unroll
                    for (int h = 0; h < 2; ++h) {
                        if (2 * p + h >= TI) continue;
                        const int i = 8 * (2 * p + h) + lane / 4;
                        const int j = 8 * v + 2 * (lane % 4);
#pragma unroll
                        for (int e = 0; e < 2; ++e) {
                            double& r = red[(j + e) * KP + i];
                            r = w == 0 ? acc[it][2 * h + e] : r + acc[it][2 * h + e];
                        }
                    }
                }
            }
        }
    }
    __syncthreads();
    const bool direct = gridDim.x == 1;
    for (int e = static_cast<int>(threadIdx.x); e < k * k; e += threads) {
        const int i = e % k;
        const int j = e / k;
        if (i > j) continue;
        const double value = red[j * KP + i];
        if (direct) {
            B[i + static_cast<std::int64_t>(j) * ldb] = value;
            B[j + static_cast<std::int64_t>(i) * ldb] = value;
        } else {
            partial[static_cast<std::int64_t>(blockIdx.x) * k * k + e] = value;
        }
    }
    if (!direct && counters != nullptr)
        finish_partials<double, true, 4>(counters, k, 0, k, k, partial, B, ldb);
}

// ---- Narrow W (kw <= 2, W != V): CUDA cores, rows streamed ------------------------------------
//
// The one-reduce Arnoldi step's [V_j, u]^T [u, A u] has two columns in W. Stage 1 above pads them
// to a tile of 8 and stages every chunk in shared memory; on an H200 it read at about half the
// read bandwidth (GMRES step at n = 1e6). Here block (b, g) of a G x groups grid takes V's
// columns c0 .. c0 + per - 1 of group g (groups = ceil(kv / narrow_group), per = ceil(kv /
// groups): balanced) and every row pack p = b * threads + t, p + G * threads, ... (16-byte packs
// when V and W allow, else single elements; block (0, g) adds the n % width tail). Each thread
// keeps per x kw sums in registers, in row order, with no shared memory staging and no barrier
// until the block sum; W is read once per group (from L2 while the groups run together).
// reduce::block_sum adds the block's threads in a fixed order, and thread 0 writes the block's
// entries of the partial (layout of stage 1) or, with G == 1, B.
// Stage 2 is finished per column group: row g of the grid (its G blocks) takes its tickets from
// its own counter, counters[g], and the last block of the row sums the row's entries only (the
// rows c0 .. c0 + kc - 1 of B, which no other group writes) with finish_partials. So the groups
// finish independently and in parallel, each finishing block sums at most narrow_group * kw
// entries, and the per-entry order is that of the former gram_finish_kernel (bit-identical).
// G = min(stage1_blocks(n), the blocks the device holds at once / groups).
constexpr int narrow_group = 8;  // V columns per block of the narrow kernel
constexpr int max_narrow_groups = (max_block_columns + narrow_group - 1) / narrow_group;
static_assert(max_narrow_groups * sizeof(unsigned int) <= gram_counter_bytes &&
                  gram_counter_bytes % 256 == 0,
              "the counter region holds a counter per column group, partials 256-byte aligned");

/// Adds pack p of L rows of the kc columns at v0 (ldv) times the KW columns of W (ldw) to
/// acc[c * narrow_group + j]. Every load first, then the arithmetic: kc + KW loads in flight per
/// thread (with each load used at once, ptxas kept the kernel at 64 registers and few loads in
/// flight: 12 % slower at n = 1e6 on an H200).
template <typename T, int L, int KW>
__device__ __forceinline__ void accumulate_rows(T (&acc)[narrow_group * KW], const T* v0,
                                                std::int64_t ldv, int kc, const T* W,
                                                std::int64_t ldw, std::int64_t p)
{
    pack<T, L> w[KW];
    pack<T, L> x[narrow_group];
#pragma unroll
    for (int c = 0; c < KW; ++c) w[c] = load_pack<L>(W + c * ldw, p);
#pragma unroll
    for (int j = 0; j < narrow_group; ++j) {
        if (j < kc) x[j] = load_pack<L>(v0 + j * ldv, p);
    }
#pragma unroll
    for (int j = 0; j < narrow_group; ++j) {
        if (j < kc) {
#pragma unroll
            for (int c = 0; c < KW; ++c) accumulate(acc[c * narrow_group + j], x[j], w[c]);
        }
    }
}

template <typename T, int KW, bool Vectorized>
__global__ void __launch_bounds__(threads)
    gram_narrow_kernel(std::int64_t n, int kv, int per, const T* __restrict__ V,
                       std::int64_t ldv, const T* __restrict__ W, std::int64_t ldw,
                       T* __restrict__ partial, unsigned int* counters, T* __restrict__ B,
                       int ldb)
{
    constexpr int L = width<T, Vectorized>;
    constexpr int P = narrow_group * KW;  // sums per thread: acc[c * narrow_group + j]
    __shared__ T smem[P * warps];
    const int c0 = static_cast<int>(blockIdx.y) * per;
    const int kc = min(per, kv - c0);
    const T* v0 = V + static_cast<std::int64_t>(c0) * ldv;
    T acc[P];
#pragma unroll
    for (int e = 0; e < P; ++e) acc[e] = T(0);

    const std::int64_t packs = n / L;
    const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * threads;
    for (std::int64_t p = static_cast<std::int64_t>(blockIdx.x) * threads + threadIdx.x;
         p < packs; p += stride)
        accumulate_rows<T, L, KW>(acc, v0, ldv, kc, W, ldw, p);
    if constexpr (L > 1) {  // the n % L tail, one row per thread of block (0, g)
        const std::int64_t r = packs * L + threadIdx.x;
        if (blockIdx.x == 0 && r < n) accumulate_rows<T, 1, KW>(acc, v0, ldv, kc, W, ldw, r);
    }

    reduce::block_sum<T, P, threads>(acc, smem);
    const bool direct = gridDim.x == 1;
    if (threadIdx.x == 0) {
#pragma unroll
        for (int c = 0; c < KW; ++c) {
#pragma unroll
            for (int j = 0; j < narrow_group; ++j) {
                if (j >= kc) continue;
                const int i = c0 + j;
                if (direct)
                    B[i + static_cast<std::int64_t>(c) * ldb] = acc[c * narrow_group + j];
                else
                    partial[static_cast<std::int64_t>(blockIdx.x) * kv * KW + c * kv + i] =
                        acc[c * narrow_group + j];
            }
        }
    }
    // Every thread: the finishing needs the whole block (barriers, its 8 warps).
    if (!direct)
        finish_partials<T, false, 2>(counters + blockIdx.y, kv, c0, kc, KW, partial, B, ldb);
}

// ---- Host side ---------------------------------------------------------------------------------

constexpr const char* who = "kbench::blas::gram";

[[noreturn]] void fail(const char* fn, const std::string& what)
{
    throw std::invalid_argument(std::string{fn} + ": " + what);
}

/// The workspace's two regions (both null when the call needs none: one block writes B itself
/// and never touches the workspace).
template <typename T>
struct Carved {
    T* partial = nullptr;              // partial[b * kv * kw + j * kv + i]
    unsigned int* counters = nullptr;  // counters[0], or counters[g] per narrow column group
};

template <typename T>
Carved<T> carve(void* workspace)
{
    if (workspace == nullptr) return {};
    return {reinterpret_cast<T*>(static_cast<char*>(workspace) + gram_counter_bytes),
            static_cast<unsigned int*>(workspace)};
}

/// The counters a stage-1 kernel of `blocks` blocks finishes with in its own launch (the
/// product's summed entries, Sym: its upper triangle, at most in_launch_entries), else null.
template <typename T>
unsigned int* in_launch_counters(const Carved<T>& ws, std::int64_t blocks, int kv, int kw,
                                 bool sym)
{
    const int entries = sym ? kv * (kv + 1) / 2 : kv * kw;
    return blocks > 1 && entries <= in_launch_entries ? ws.counters : nullptr;
}

/// Stage 2 as a second launch after a stage 1 of `blocks` > 1 blocks that did not finish itself
/// (in_launch_counters gave null): gram_finish_kernel over ceil(kv kw / 8) blocks.
template <typename T, bool Sym>
void finish_separately(std::int64_t blocks, int kv, int kw, const Carved<T>& ws, T* B, int ldb,
                       cudaStream_t stream)
{
    gram_finish_kernel<T, Sym>
        <<<(kv * kw + warps - 1) / warps, threads, 0, stream>>>(
            static_cast<int>(blocks), kv, kw, ws.partial, B, ldb);
    KBENCH_CUDA_CHECK_LAUNCH();
}

template <typename T, int KPV, int KPW, bool Sym>
void launch(std::int64_t n, int kv, const T* V, std::int64_t ldv, int kw, const T* W,
            std::int64_t ldw, T* B, int ldb, const Carved<T>& ws, cudaStream_t stream)
{
    const auto kernel = gram_partial_kernel<T, KPV, KPW, Sym>;
    using C = Chunk<KPV>;
    const int smem = (KPV + (Sym ? 0 : KPW)) * C::stride * static_cast<int>(sizeof(T));
    static const bool configured = [&] {
        KBENCH_CUDA_CHECK(cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel),
                                               cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
        return true;
    }();
    (void)configured;
    // One wave: no more blocks than the SMs hold at once (a second, partial wave would leave
    // most SMs idle for its duration).
    const std::int64_t blocks = std::min<std::int64_t>(
        stage1_blocks(n), resident_blocks(reinterpret_cast<const void*>(kernel), threads, smem));
    const std::int64_t per_block = (n + blocks - 1) / blocks;
    const std::int64_t rows_per_block = (per_block + C::rows - 1) / C::rows * C::rows;
    unsigned int* const counters = in_launch_counters(ws, blocks, kv, kw, Sym);
    kernel<<<static_cast<unsigned>(blocks), threads, smem, stream>>>(
        n, rows_per_block, kv, V, ldv, kw, W, ldw, ws.partial, counters, B, ldb);
    KBENCH_CUDA_CHECK_LAUNCH();
    if (blocks > 1 && counters == nullptr)
        finish_separately<T, Sym>(blocks, kv, kw, ws, B, ldb, stream);
}

template <typename T, int KW>
void launch_narrow(std::int64_t n, int kv, const T* V, std::int64_t ldv, const T* W,
                   std::int64_t ldw, T* B, int ldb, const Carved<T>& ws, cudaStream_t stream)
{
    const bool vec = aligned16(V) && aligned16(W) && (ldv * sizeof(T)) % 16 == 0 &&
                     (ldw * sizeof(T)) % 16 == 0;
    const auto kernel = vec ? gram_narrow_kernel<T, KW, true> : gram_narrow_kernel<T, KW, false>;
    const int groups = (kv + narrow_group - 1) / narrow_group;
    const int per = (kv + groups - 1) / groups;
    const std::int64_t blocks = std::min<std::int64_t>(
        stage1_blocks(n),
        std::max(1, resident_blocks(reinterpret_cast<const void*>(kernel), threads) / groups));
    kernel<<<dim3(static_cast<unsigned>(blocks), static_cast<unsigned>(groups)), threads, 0,
             stream>>>(n, kv, per, V, ldv, W, ldw, ws.partial, ws.counters, B, ldb);
    KBENCH_CUDA_CHECK_LAUNCH();
}

template <int TI>
void launch_sym_direct(std::int64_t n, int k, const double* V, std::int64_t ld, double* B, int ldb,
                       const Carved<double>& ws, cudaStream_t stream)
{
    const bool vec = ld % 2 == 0 && reinterpret_cast<std::uintptr_t>(V) % 16 == 0;
    const auto kernel = vec ? gram_sym_direct_kernel<TI, true> : gram_sym_direct_kernel<TI, false>;
    const std::size_t smem = sizeof(double) * 64 * TI * TI;
    const std::int64_t blocks = std::min<std::int64_t>(
        stage1_blocks(n), resident_blocks(reinterpret_cast<const void*>(kernel), threads, smem));
    unsigned int* const counters = in_launch_counters(ws, blocks, k, k, true);
    kernel<<<static_cast<unsigned>(blocks), threads, smem, stream>>>(
        n, k, V, ld, ws.partial, counters, B, ldb);
    KBENCH_CUDA_CHECK_LAUNCH();
    if (blocks > 1 && counters == nullptr)
        finish_separately<double, true>(blocks, k, k, ws, B, ldb, stream);
}

void dispatch_sym_direct(std::int64_t n, int k, const double* V, std::int64_t ld, double* B,
                         int ldb, const Carved<double>& ws, cudaStream_t stream)
{
    switch ((k + 7) / 8) {
    case 1: return launch_sym_direct<1>(n, k, V, ld, B, ldb, ws, stream);
    case 2: return launch_sym_direct<2>(n, k, V, ld, B, ldb, ws, stream);
    case 3: return launch_sym_direct<3>(n, k, V, ld, B, ldb, ws, stream);
    case 4: return launch_sym_direct<4>(n, k, V, ld, B, ldb, ws, stream);
    case 5: return launch_sym_direct<5>(n, k, V, ld, B, ldb, ws, stream);
    case 6: return launch_sym_direct<6>(n, k, V, ld, B, ldb, ws, stream);
    case 7: return launch_sym_direct<7>(n, k, V, ld, B, ldb, ws, stream);
    default: return launch_sym_direct<8>(n, k, V, ld, B, ldb, ws, stream);
    }
}

/// V padded to KPV columns, W to KPW (8 when W has at most 8 columns, as the one-reduce Arnoldi
/// step's [u, A u]: its tile row then costs one mma per step, not KPV / 8; else both to the
/// larger padding).
template <typename T, int KPW, bool Sym>
void dispatch_v(std::int64_t n, int kv, const T* V, std::int64_t ldv, int kw, const T* W,
                std::int64_t ldw, T* B, int ldb, const Carved<T>& ws, cudaStream_t stream)
{
    constexpr bool same = KPW == 0;  // W padded as V
    switch (padded_columns(same ? std::max(kv, kw) : kv)) {
    case 8: return launch<T, 8, same ? 8 : KPW, Sym>(n, kv, V, ldv, kw, W, ldw, B, ldb, ws, stream);
    case 16: return launch<T, 16, same ? 16 : KPW, Sym>(n, kv, V, ldv, kw, W, ldw, B, ldb, ws, stream);
    case 32: return launch<T, 32, same ? 32 : KPW, Sym>(n, kv, V, ldv, kw, W, ldw, B, ldb, ws, stream);
    case 48: return launch<T, 48, same ? 48 : KPW, Sym>(n, kv, V, ldv, kw, W, ldw, B, ldb, ws, stream);
    default: return launch<T, 64, same ? 64 : KPW, Sym>(n, kv, V, ldv, kw, W, ldw, B, ldb, ws, stream);
    }
}

template <typename T, bool Sym>
void dispatch(std::int64_t n, int kv, const T* V, std::int64_t ldv, int kw, const T* W,
              std::int64_t ldw, T* B, int ldb, const Carved<T>& ws, cudaStream_t stream)
{
    if constexpr (!Sym) {
        if (kw <= 8)
            return dispatch_v<T, 8, false>(n, kv, V, ldv, kw, W, ldw, B, ldb, ws, stream);
    }
    dispatch_v<T, 0, Sym>(n, kv, V, ldv, kw, W, ldw, B, ldb, ws, stream);
}

}  // namespace

std::size_t gram_workspace_bytes(std::int64_t n, int kv, int kw, int value_bytes)
{
    detail::tall_skinny::check_gram_shape("kbench::blas::gram_workspace_bytes", n, kv, kw,
                                          value_bytes);
    const std::int64_t blocks = stage1_blocks(n);
    if (blocks == 1 || kv == 0 || kw == 0) return 0;
    return gram_counter_bytes + static_cast<std::size_t>(blocks) * static_cast<std::size_t>(kv) *
                                    static_cast<std::size_t>(kw) *
                                    static_cast<std::size_t>(value_bytes);
}

void gram_workspace_init(void* workspace, std::size_t workspace_bytes, cudaStream_t stream)
{
    detail::init_counter_region("gram", workspace, workspace_bytes, stream);
}

GramWorkspace::GramWorkspace(std::int64_t n, int kv, int kw, int value_bytes)
    : buffer_(gram_workspace_bytes(n, kv, kw, value_bytes))
{
    if (!buffer_.empty()) detail::zero_counter_region_now(buffer_.data());
}

template <typename T>
void gram(std::int64_t n, int kv, const T* V, std::int64_t ldv, int kw, const T* W,
          std::int64_t ldw, T* B, int ldb, void* workspace, std::size_t workspace_bytes,
          cudaStream_t stream)
{
    KBENCH_NVTX_RANGE("blas::gram");
    detail::tall_skinny::check_gram(who, n, kv, V, ldv, kw, W, ldw, B, ldb);
    if (kv == 0 || kw == 0) return;
    if (n == 0) {
        KBENCH_CUDA_CHECK(cudaMemset2DAsync(B, sizeof(T) * static_cast<std::size_t>(ldb), 0,
                                            sizeof(T) * static_cast<std::size_t>(kv),
                                            static_cast<std::size_t>(kw), stream));
        return;
    }
    const std::size_t needed = gram_workspace_bytes(n, kv, kw, sizeof(T));
    if (needed > 0) {
        if (workspace == nullptr || workspace_bytes < needed)
            fail(who, "workspace of " + std::to_string(workspace_bytes) + " bytes" +
                          (workspace == nullptr ? " (null)" : "") + ", expected >= " +
                          std::to_string(needed) + " bytes (gram_workspace_bytes: the counter " +
                          "region, gram_counter_bytes = " + std::to_string(gram_counter_bytes) +
                          " bytes zeroed once, then the partial products)");
        if (reinterpret_cast<std::uintptr_t>(workspace) % sizeof(T) != 0)
            fail(who, "workspace is not aligned to " + std::to_string(sizeof(T)) + " bytes");
    }
    // With needed == 0 one block writes B: the workspace (maybe null or short) is not touched.
    const Carved<T> ws = needed > 0 ? carve<T>(workspace) : Carved<T>{};
    if (W == V && kw == kv && ldw == ldv) {
        if constexpr (std::is_same_v<T, double>) {
            if (compute_capability() >= 80)
                return dispatch_sym_direct(n, kv, V, ldv, B, ldb, ws, stream);
        }
        dispatch<T, true>(n, kv, V, ldv, kw, W, ldw, B, ldb, ws, stream);
    } else if (kw == 1) {
        launch_narrow<T, 1>(n, kv, V, ldv, W, ldw, B, ldb, ws, stream);
    } else if (kw == 2) {
        launch_narrow<T, 2>(n, kv, V, ldv, W, ldw, B, ldb, ws, stream);
    } else {
        dispatch<T, false>(n, kv, V, ldv, kw, W, ldw, B, ldb, ws, stream);
    }
}

template void gram<float>(std::int64_t, int, const float*, std::int64_t, int, const float*,
                          std::int64_t, float*, int, void*, std::size_t, cudaStream_t);
template void gram<double>(std::int64_t, int, const double*, std::int64_t, int, const double*,
                           std::int64_t, double*, int, void*, std::size_t, cudaStream_t);

}  // namespace kbench::blas
