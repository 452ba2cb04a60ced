// Dot-product kernels of anzt2015 Sec. 3.2 / 4.3 (DDOT, MDOT, MDGM). Declarations and the
// conventions (workspace, errors, determinism) in kernels/dot.hpp.
//
// One launch per call: a grid of G x C blocks of 256 threads, C = 1 for dot, C = the number of
// chunks of 4 pairs for mdot (blockIdx.y picks the chunk), C = 1 for mdgm or, at small n where
// G x ceil(k / 8) blocks fit in one wave and wherever y fits in half the L2 cache, ceil(k / 8)
// groups of 8 columns. G fills the GPU once
// (resident blocks per SM x SM count, queried once per device and kernel and cached, divided
// among the C chunks), and is at most dot_max_blocks(n) so the partials stay below k * n / 1024.
// Threads run a grid-stride loop over 16-byte vectors (double2 / float4) when every pointer is
// 16-byte aligned (and, for mdgm, ld * sizeof(T) is a multiple of 16), over scalars otherwise;
// block 0 adds the n % width tail. Each thread keeps one accumulator per product; then
// kbench::reduce::grid_sum (kernels/block_reduce.cuh) finishes each row of G blocks in the same
// launch: block_sum over the block, thread 0 writes one partial sum per product
// (partial[product * G + block]), fences and takes a ticket from its chunk's counter
// (counters[blockIdx.y]); the block that draws the chunk's last ticket sums the chunk's partials
// in block order (thread t: partials t, t + 256, ...; then block_sum: the order of the former
// stage-2 kernel, so the same bits for the same G), writes the results, and the atomicInc's
// wrap leaves the counter 0. With G == 1 (always for n <= 1024) the block writes the results
// directly and the workspace is not touched.
//
// Workspace layout (dot_workspace_bytes): the counter region (dot_counter_bytes, at offset 0 so
// that every call on the same workspace finds its counters at the same place whatever n and k),
// then the partial sums (256-byte aligned).
#include "kernels/dot.hpp"

#include "kernels/base/cuda_check.hpp"
#include "kernels/base/nvtx.hpp"
#include "kernels/base/device.hpp"
#include "kernels/block_reduce.cuh"
#include "kernels/packs.cuh"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

namespace kbench::blas {
namespace {

constexpr int block_size = 256;
constexpr int max_chunks = max_dot_vectors / mdot_chunk_size;
constexpr int mdgm_group = 8;        // columns per block of mdgm's grouped launch (small n)
constexpr int mdgm_wide_group = 16;  // the same when y is read from device memory (large n)
static_assert(max_chunks <= dot_max_counters &&
                  (max_dot_vectors + mdgm_group - 1) / mdgm_group <= dot_max_counters,
              "one ticket counter per chunk of mdot and per column group of mdgm");
static_assert(dot_max_counters * sizeof(unsigned int) <= dot_counter_bytes &&
                  dot_counter_bytes % 256 == 0,
              "the counter region holds the counters and keeps the partials 256-byte aligned");

// ---- Argument checks ------------------------------------------------------------------------

[[noreturn]] void fail(const char* who, const std::string& what)
{
    throw std::invalid_argument(std::string{who} + ": " + what);
}

void check_n(const char* who, std::int64_t n)
{
    if (n < 0) fail(who, "n = " + std::to_string(n) + ", expected n >= 0");
}

void check_k(const char* who, int k)
{
    if (k < 0 || k > max_dot_vectors)
        fail(who, "k = " + std::to_string(k) + ", expected 0 <= k <= max_dot_vectors = " +
                      std::to_string(max_dot_vectors));
}

void check_pointer(const char* who, const void* p, const std::string& name,
                   const std::string& expected)
{
    if (p == nullptr) fail(who, name + " is null, expected " + expected);
}

std::string elements(std::int64_t n) { return "a pointer to n = " + std::to_string(n) + " elements"; }

void check_result(const char* who, const void* result, int k)
{
    if (result == nullptr)
        fail(who, "result is null, expected a pointer to " + std::to_string(k) +
                      (k == 1 ? " element" : " elements"));
}

/// The size of the counter region and the partial-sum region, for messages.
std::string layout(std::int64_t n, int k)
{
    return "(the counter region, dot_counter_bytes = " + std::to_string(dot_counter_bytes) +
           " bytes of ticket counters, zeroed once, then k x dot_max_blocks(n) = " +
           std::to_string(k) + " x " + std::to_string(dot_max_blocks(n)) +
           " partial sums of 8 bytes)";
}

template <typename T>
void check_workspace(const char* who, std::int64_t n, int k, const void* workspace,
                     std::size_t workspace_bytes)
{
    const std::size_t needed = dot_workspace_bytes(n, k);
    const std::string query = "dot_workspace_bytes(n = " + std::to_string(n) +
                              ", k = " + std::to_string(k) + ") = " + std::to_string(needed);
    if (workspace_bytes < needed)
        fail(who, "workspace_bytes = " + std::to_string(workspace_bytes) + ", expected >= " +
                      query + " " + layout(n, k));
    if (needed > 0 && workspace == nullptr)
        fail(who, "workspace is null, expected " + query + " bytes of device memory " +
                      layout(n, k));
    if (reinterpret_cast<std::uintptr_t>(workspace) % alignof(T) != 0)
        fail(who, "workspace is not aligned to " + std::to_string(alignof(T)) + " bytes");
}

/// The workspace's two regions (both null when the call needs no workspace: one block per
/// chunk never touches it).
template <typename T>
struct carved_workspace {
    unsigned int* counters = nullptr;  // one per chunk / column group
    T* partial = nullptr;              // partial[product * G + block]
};

template <typename T>
carved_workspace<T> carve(void* workspace)
{
    if (workspace == nullptr) return {};
    return {static_cast<unsigned int*>(workspace),
            reinterpret_cast<T*>(static_cast<char*>(workspace) + dot_counter_bytes)};
}

// ---- Launch shape ---------------------------------------------------------------------------

/// Blocks per chunk (the row length G): one GPU-filling wave shared by `chunks` chunks, at
/// most dot_max_blocks(n).
unsigned row_blocks(const void* kernel, std::int64_t n, int chunks)
{
    const std::int64_t fill = std::max(1, resident_blocks(kernel, block_size) / chunks);
    return static_cast<unsigned>(std::min(dot_max_blocks(n), fill));
}

// ---- Device helpers -------------------------------------------------------------------------

/// v[slot] for a run-time slot <= max_slot, without indexing registers at run time (which would
/// move v to local memory): a chain of selects that unrolling reduces to max_slot selects.
template <typename Pack, int S>
__device__ __forceinline__ Pack pick(const Pack (&v)[S], int slot, int max_slot)
{
    Pack r = v[0];
#pragma unroll
    for (int s = 1; s < S; ++s) {
        if (s <= max_slot && slot == s) r = v[s];
    }
    return r;
}

/// The partial sums of the chunk (or column group) whose first product is `first`: G values
/// per product from partial[first * G] on (null with one block per chunk: the workspace may
/// then be null, and grid_sum does not touch it).
template <typename T>
__device__ __forceinline__ T* chunk_partials(T* partial, int first)
{
    return gridDim.x == 1 ? nullptr : partial + std::int64_t{first} * gridDim.x;
}

/// The ticket counter of the calling block's chunk (or column group), counters[blockIdx.y]
/// (null with one block per chunk, as chunk_partials).
__device__ __forceinline__ unsigned int* chunk_counter(unsigned int* counters)
{
    return gridDim.x == 1 ? nullptr : counters + blockIdx.y;
}

/// The thread that grid_sum picked (thread 0 of the row's finishing block): the sums
/// acc[0..count) of products first..first+count-1 into result.
template <typename T, int K>
__device__ __forceinline__ void write_results(const T (&acc)[K], int first, int count,
                                              T* __restrict__ result)
{
#pragma unroll
    for (int j = 0; j < K; ++j) {
        if (j < count) result[first + j] = acc[j];
    }
}

// ---- DDOT / MDOT ----------------------------------------------------------------------------

/// The operands of one chunk of up to P pairs: the distinct vectors in order of first
/// appearance (x0, y0, x1, y1, ...), and for each pair the slots of its x and y. The ordering
/// makes slot_x[p] <= 2p and slot_y[p] <= 2p + 1.
template <typename T, int P>
struct pair_chunk {
    const T* vec[2 * P];
    std::int8_t slot_x[P];
    std::int8_t slot_y[P];
    int vectors;  // distinct vectors in vec
    int pairs;    // pairs of this chunk (<= P)
};

/// All chunks of one launch, passed by value as a kernel parameter (<= 1.3 KB).
template <typename T, int P>
struct pair_operands {
    static constexpr int chunks = P == mdot_chunk_size ? max_chunks : 1;
    pair_chunk<T, P> chunk[chunks];
};

/// Groups k pairs into chunks of P and deduplicates each chunk's pointers. Returns the chunks.
template <typename T, int P>
int build_chunks(int k, const T* const* x, const T* const* y, pair_operands<T, P>& ops)
{
    const int chunks = (k + P - 1) / P;
    for (int c = 0; c < chunks; ++c) {
        pair_chunk<T, P>& ch = ops.chunk[c];
        ch.vectors = 0;
        ch.pairs = std::min(P, k - c * P);
        for (int s = 0; s < 2 * P; ++s) ch.vec[s] = nullptr;
        const auto slot_of = [&ch](const T* v) {
            for (int s = 0; s < ch.vectors; ++s) {
                if (ch.vec[s] == v) return static_cast<std::int8_t>(s);
            }
            ch.vec[ch.vectors] = v;
            return static_cast<std::int8_t>(ch.vectors++);
        };
        for (int p = 0; p < P; ++p) {
            ch.slot_x[p] = ch.slot_y[p] = 0;
            if (p < ch.pairs) {
                ch.slot_x[p] = slot_of(x[c * P + p]);
                ch.slot_y[p] = slot_of(y[c * P + p]);
            }
        }
    }
    return chunks;
}

/// dot and mdot: block (b, c) sums its share of the pairs of chunk c; the last block of chunk
/// c to finish (grid_sum) writes the chunk's results.
template <typename T, int P, bool Vectorized>
__global__ void __launch_bounds__(block_size)
    pairs_kernel(const pair_operands<T, P> ops, std::int64_t n, T* __restrict__ partial,
                 unsigned int* __restrict__ counters, T* __restrict__ result)
{
    constexpr int W = width<T, Vectorized>;
    constexpr int S = 2 * P;                 // operand slots
    constexpr int U = 4 / P;                 // iterations unrolled: ~8 loads in flight/thread
    using Pk = pack<T, W>;
    __shared__ T smem[P * block_size / 32];

    // The chunk's operands, copied once into registers (constant indices after unrolling).
    const pair_chunk<T, P>& ch = ops.chunk[pair_operands<T, P>::chunks == 1 ? 0 : blockIdx.y];
    const int vectors = ch.vectors;
    const int pairs = ch.pairs;
    const T* vec[S];
    int slot_x[P], slot_y[P];
#pragma unroll
    for (int s = 0; s < S; ++s) vec[s] = ch.vec[s];
#pragma unroll
    for (int p = 0; p < P; ++p) {
        slot_x[p] = ch.slot_x[p];
        slot_y[p] = ch.slot_y[p];
    }
    T acc[P];
#pragma unroll
    for (int p = 0; p < P; ++p) acc[p] = T{0};

    const auto add = [&](const Pk (&v)[S]) {
#pragma unroll
        for (int p = 0; p < P; ++p) {
            if (p < pairs) {
                accumulate(acc[p], pick(v, slot_x[p], 2 * p), pick(v, slot_y[p], 2 * p + 1));
            }
        }
    };
    const auto load = [&](Pk (&v)[S], std::int64_t i) {
#pragma unroll
        for (int s = 0; s < S; ++s) {
            v[s] = Pk{};
            if (s < vectors) v[s] = load_pack<W>(vec[s], i);
        }
    };

    const std::int64_t count = n / W;  // whole packs
    const std::int64_t stride = std::int64_t{gridDim.x} * block_size;
    std::int64_t i = std::int64_t{blockIdx.x} * block_size + threadIdx.x;
    for (; i + (U - 1) * stride < count; i += U * stride) {
        Pk v[U][S];
#pragma unroll
        for (int u = 0; u < U; ++u) load(v[u], i + u * stride);
#pragma unroll
        for (int u = 0; u < U; ++u) add(v[u]);
    }
    for (; i < count; i += stride) {
        Pk v[S];
        load(v, i);
        add(v);
    }
    if constexpr (W > 1) {  // the n % W tail, one element per thread of block 0
        const std::int64_t t = count * W + threadIdx.x;
        if (blockIdx.x == 0 && t < n) {
            pack<T, 1> v[S];
#pragma unroll
            for (int s = 0; s < S; ++s) {
                v[s] = pack<T, 1>{};
                if (s < vectors) v[s] = load_pack<1>(vec[s], t);
            }
#pragma unroll
            for (int p = 0; p < P; ++p) {
                if (p < pairs) {
                    accumulate(acc[p], pick(v, slot_x[p], 2 * p), pick(v, slot_y[p], 2 * p + 1));
                }
            }
        }
    }

    const int first = static_cast<int>(blockIdx.y) * P;
    if (reduce::grid_sum<T, P, block_size>(acc, pairs, chunk_partials(partial, first),
                                           chunk_counter(counters), smem))
        write_results(acc, first, pairs, result);
}

// ---- MDGM -----------------------------------------------------------------------------------

/// mdgm: block (b, g) sums its share of V(:, j) . y for the columns j of group g,
/// K g <= j < min(K (g + 1), k) (one group, all k <= K columns, when gridDim.y == 1); each
/// thread loads y once per pack and keeps K accumulators (columns past the group's last are
/// neither read nor written); the last block of group g to finish (grid_sum) writes the group's
/// results. For a given row-block count, each product's sum runs in the same order whatever K
/// and the grouping.
constexpr int mdgm_batch = 8;  // columns whose loads mdgm issues together (at most K of them)

template <typename T, int K, bool Vectorized>
__global__ void __launch_bounds__(block_size)
    mdgm_kernel(std::int64_t n, int k, const T* __restrict__ V, std::int64_t ld,
                const T* __restrict__ y, T* __restrict__ partial,
                unsigned int* __restrict__ counters, T* __restrict__ result)
{
    const int first = static_cast<int>(blockIdx.y) * K;
    k = min(K, k - first);
    V += static_cast<std::int64_t>(first) * ld;
    constexpr int W = width<T, Vectorized>;
    __shared__ T smem[K * block_size / 32];
    T acc[K];
#pragma unroll
    for (int j = 0; j < K; ++j) acc[j] = T{0};

    const std::int64_t count = n / W;  // whole packs
    const std::int64_t stride = std::int64_t{gridDim.x} * block_size;
    for (std::int64_t i = std::int64_t{blockIdx.x} * block_size + threadIdx.x; i < count;
         i += stride) {
        const pack<T, W> yv = load_pack<W>(y, i);
        // A running pointer down the row: precomputing V + j*ld for every j would keep K
        // 64-bit addresses live across the loop (~2K more registers). The columns in batches
        // of mdgm_group, each batch's loads first, then its arithmetic: with each load used at
        // once ptxas kept few loads in flight (the pattern that cost gram's narrow kernel 12 %
        // at n = 1e6 on an H200).
        constexpr int Bt = K < mdgm_batch ? K : mdgm_batch;  // K is 1, 2, 4 or a multiple of 8
        const T* v = V + i * W;
#pragma unroll
        for (int j0 = 0; j0 < K; j0 += Bt) {
            pack<T, W> x[Bt];
#pragma unroll
            for (int j = 0; j < Bt; ++j, v += ld) {
                if (j0 + j < k) x[j] = load_pack<W>(v, 0);
            }
#pragma unroll
            for (int j = 0; j < Bt; ++j) {
                if (j0 + j < k) accumulate(acc[j0 + j], x[j], yv);
            }
        }
    }
    if constexpr (W > 1) {  // the n % W tail, one row per thread of block 0
        const std::int64_t t = count * W + threadIdx.x;
        if (blockIdx.x == 0 && t < n) {
            const pack<T, 1> yv = load_pack<1>(y, t);
            const T* v = V + t;
#pragma unroll
            for (int j = 0; j < K; ++j, v += ld) {
                if (j < k) accumulate(acc[j], load_pack<1>(v, 0), yv);
            }
        }
    }

    if (reduce::grid_sum<T, K, block_size>(acc, k, chunk_partials(partial, first),
                                           chunk_counter(counters), smem))
        write_results(acc, first, k, result);
}

// ---- Launchers ------------------------------------------------------------------------------

/// One launch for k pairs in chunks of P (P = 1, 2 or mdot_chunk_size).
template <typename T, int P>
void launch_pairs(std::int64_t n, int k, const T* const* x, const T* const* y, T* result,
                  void* workspace, cudaStream_t stream)
{
    pair_operands<T, P> ops{};
    const int chunks = build_chunks(k, x, y, ops);
    bool vectorized = true;
    for (int c = 0; c < chunks; ++c) {
        for (int s = 0; s < ops.chunk[c].vectors; ++s)
            vectorized = vectorized && aligned16(ops.chunk[c].vec[s]);
    }
    const auto kernel = vectorized ? pairs_kernel<T, P, true> : pairs_kernel<T, P, false>;
    const unsigned blocks = row_blocks(reinterpret_cast<const void*>(kernel), n, chunks);
    const carved_workspace<T> w = carve<T>(workspace);
    kernel<<<dim3(blocks, static_cast<unsigned>(chunks)), block_size, 0, stream>>>(
        ops, n, w.partial, w.counters, result);
    KBENCH_CUDA_CHECK_LAUNCH();
}

/// mdgm's columns in groups of G: blocks (b, g) take the columns of group g, one wave of them in
/// all (row_blocks divides the resident blocks among the groups, as mdot's chunks).
template <typename T, int G>
void launch_mdgm_groups(std::int64_t n, int k, bool vectorized, const T* V, std::int64_t ld,
                        const T* y, const carved_workspace<T>& w, T* result, cudaStream_t stream)
{
    const auto kernel = vectorized ? mdgm_kernel<T, G, true> : mdgm_kernel<T, G, false>;
    const int groups = (k + G - 1) / G;
    const unsigned blocks = row_blocks(reinterpret_cast<const void*>(kernel), n, groups);
    kernel<<<dim3(blocks, static_cast<unsigned>(groups)), block_size, 0, stream>>>(
        n, k, V, ld, y, w.partial, w.counters, result);
    KBENCH_CUDA_CHECK_LAUNCH();
}

template <typename T, int K>
void launch_mdgm(std::int64_t n, int k, const T* V, std::int64_t ld, const T* y, T* result,
                 void* workspace, cudaStream_t stream)
{
    const bool vectorized =
        aligned16(V) && aligned16(y) && (static_cast<std::uint64_t>(ld) * sizeof(T)) % 16 == 0;
    const carved_workspace<T> w = carve<T>(workspace);
    if constexpr (K > mdgm_group) {
        // Groups of mdgm_group columns, each block with mdgm_group accumulators instead of K:
        // fewer registers per thread, more blocks per SM, more loads in flight; y is read once
        // per group. Taken
        //  * when one wave holds every row block of every group (small n: the rows alone would
        //    leave SMs idle), or
        //  * when y fits in half the L2 cache, so that the groups, running together, read it
        //    from L2 and device memory sees V and y once, as with one K-column pass.
        const void* gk = reinterpret_cast<const void*>(
            vectorized ? mdgm_kernel<T, mdgm_group, true> : mdgm_kernel<T, mdgm_group, false>);
        const std::int64_t groups = (k + mdgm_group - 1) / mdgm_group;
        const bool one_wave =
            std::int64_t{row_blocks(gk, n, 1)} * groups <= resident_blocks(gk, block_size);
        const bool y_in_l2 = 2 * static_cast<std::uint64_t>(n) * sizeof(T) <= l2_cache_bytes();
        if (groups > 1 && (one_wave || y_in_l2))
            return launch_mdgm_groups<T, mdgm_group>(n, k, vectorized, V, ld, y, w, result,
                                                     stream);
        // y past half the L2: groups of mdgm_wide_group columns, y read from device memory once
        // per group. Against one K-column pass (k = 30-64, n = 4e6 and 1e7, same run on an
        // H200): 0.78-0.92 -> 0.98-1.04 of cuBLAS dgemv; groups of 8 reached 0.95-1.03.
        if constexpr (K > mdgm_wide_group) {
            if (k > mdgm_wide_group)
                return launch_mdgm_groups<T, mdgm_wide_group>(n, k, vectorized, V, ld, y, w,
                                                              result, stream);
        }
    }
    const auto kernel = vectorized ? mdgm_kernel<T, K, true> : mdgm_kernel<T, K, false>;
    const unsigned blocks = row_blocks(reinterpret_cast<const void*>(kernel), n, 1);
    kernel<<<blocks, block_size, 0, stream>>>(n, k, V, ld, y, w.partial, w.counters, result);
    KBENCH_CUDA_CHECK_LAUNCH();
}

template <typename T>
void zero_results(T* result, int k, cudaStream_t stream)
{
    KBENCH_CUDA_CHECK(cudaMemsetAsync(result, 0, sizeof(T) * static_cast<std::size_t>(k), stream));
}

}  // namespace

// ---- Public functions -----------------------------------------------------------------------

std::size_t dot_workspace_bytes(std::int64_t n, int k)
{
    check_n("kbench::blas::dot_workspace_bytes", n);
    check_k("kbench::blas::dot_workspace_bytes", k);
    const std::int64_t blocks = dot_max_blocks(n);
    if (k == 0 || blocks == 1) return 0;
    return dot_counter_bytes +
           static_cast<std::size_t>(k) * static_cast<std::size_t>(blocks) * sizeof(double);
}

void dot_workspace_init(void* workspace, std::size_t workspace_bytes, cudaStream_t stream)
{
    detail::init_counter_region("dot", workspace, workspace_bytes, stream);
}

DotWorkspace::DotWorkspace(std::int64_t n, int k)
    : buffer_(dot_workspace_bytes(n, k))
{
    if (!buffer_.empty()) detail::zero_counter_region_now(buffer_.data());
}

namespace detail {

void init_counter_region(const char* family, void* workspace, std::size_t workspace_bytes,
                         cudaStream_t stream)
{
    const std::string who = std::string{"kbench::blas::"} + family + "_workspace_init";
    if (workspace_bytes == 0) return;
    if (workspace == nullptr)
        fail(who.c_str(), "workspace is null with workspace_bytes = " +
                              std::to_string(workspace_bytes) +
                              ", expected device memory (or workspace_bytes = 0)");
    if (workspace_bytes < dot_counter_bytes)
        fail(who.c_str(), "workspace_bytes = " + std::to_string(workspace_bytes) +
                              ", expected 0 or >= " + family + "_counter_bytes = " +
                              std::to_string(dot_counter_bytes) +
                              " (the counter region at the start of every " + family +
                              " workspace)");
    KBENCH_CUDA_CHECK(cudaMemsetAsync(workspace, 0, dot_counter_bytes, stream));
}

void zero_counter_region_now(void* workspace)
{
    // The legacy default stream plus a device synchronization: ready for work on any stream,
    // non-blocking ones included.
    KBENCH_CUDA_CHECK(cudaMemset(workspace, 0, dot_counter_bytes));
    KBENCH_CUDA_CHECK(cudaDeviceSynchronize());
}

template <typename T>
void check_dot_args(const char* who, std::int64_t n, const T* x, const T* y, const T* result)
{
    check_n(who, n);
    if (n > 0) {
        check_pointer(who, x, "x", elements(n));
        check_pointer(who, y, "y", elements(n));
    }
    check_result(who, result, 1);
}

template <typename T>
void check_mdot_args(const char* who, std::int64_t n, int k, const T* const* x,
                     const T* const* y, const T* result)
{
    check_n(who, n);
    check_k(who, k);
    if (k == 0) return;
    if (n > 0) {
        if (x == nullptr)
            fail(who, "x is null, expected a host array of k = " + std::to_string(k) +
                          " device pointers");
        if (y == nullptr)
            fail(who, "y is null, expected a host array of k = " + std::to_string(k) +
                          " device pointers");
        for (int i = 0; i < k; ++i) {
            check_pointer(who, x[i], "x[" + std::to_string(i) + "]", elements(n));
            check_pointer(who, y[i], "y[" + std::to_string(i) + "]", elements(n));
        }
    }
    check_result(who, result, k);
}

template <typename T>
void check_mdgm_args(const char* who, std::int64_t n, int k, const T* V, std::int64_t ld,
                     const T* y, const T* result)
{
    check_n(who, n);
    check_k(who, k);
    if (ld < n)
        fail(who, "ld = " + std::to_string(ld) + ", expected ld >= n = " + std::to_string(n));
    if (k == 0) return;
    if (n > 0) {
        check_pointer(who, V, "V",
                      "an n x k = " + std::to_string(n) + " x " + std::to_string(k) +
                          " column-major matrix with leading dimension ld = " + std::to_string(ld));
        check_pointer(who, y, "y", elements(n));
    }
    check_result(who, result, k);
}

}  // namespace detail

template <typename T>
int mdot_vectors_read(int k, const T* const* x, const T* const* y)
{
    constexpr const char* who = "kbench::blas::mdot_vectors_read";
    check_k(who, k);
    if (k > 0 && (x == nullptr || y == nullptr))
        fail(who, std::string{x == nullptr ? "x" : "y"} + " is null, expected a host array of k = " +
                      std::to_string(k) + " pointers");
    pair_operands<T, mdot_chunk_size> ops{};
    const int chunks = build_chunks(k, x, y, ops);
    int reads = 0;
    for (int c = 0; c < chunks; ++c) reads += ops.chunk[c].vectors;
    return reads;
}

template <typename T>
void dot(std::int64_t n, const T* x, const T* y, T* result, void* workspace,
         std::size_t workspace_bytes, cudaStream_t stream)
{
    KBENCH_NVTX_RANGE("blas::dot");
    constexpr const char* who = "kbench::blas::dot";
    detail::check_dot_args(who, n, x, y, result);
    check_workspace<T>(who, n, 1, workspace, workspace_bytes);
    if (n == 0) return zero_results(result, 1, stream);
    launch_pairs<T, 1>(n, 1, &x, &y, result, workspace, stream);
}

template <typename T>
void mdot(std::int64_t n, int k, const T* const* x, const T* const* y, T* result,
          void* workspace, std::size_t workspace_bytes, cudaStream_t stream)
{
    KBENCH_NVTX_RANGE("blas::mdot");
    constexpr const char* who = "kbench::blas::mdot";
    detail::check_mdot_args(who, n, k, x, y, result);
    check_workspace<T>(who, n, k, workspace, workspace_bytes);
    if (k == 0) return;
    if (n == 0) return zero_results(result, k, stream);
    if (k == 1) return launch_pairs<T, 1>(n, k, x, y, result, workspace, stream);
    if (k == 2) return launch_pairs<T, 2>(n, k, x, y, result, workspace, stream);
    launch_pairs<T, mdot_chunk_size>(n, k, x, y, result, workspace, stream);
}

template <typename T>
void mdgm(std::int64_t n, int k, const T* V, std::int64_t ld, const T* y, T* result,
          void* workspace, std::size_t workspace_bytes, cudaStream_t stream)
{
    KBENCH_NVTX_RANGE("blas::mdgm");
    constexpr const char* who = "kbench::blas::mdgm";
    detail::check_mdgm_args(who, n, k, V, ld, y, result);
    check_workspace<T>(who, n, k, workspace, workspace_bytes);
    if (k == 0) return;
    if (n == 0) return zero_results(result, k, stream);
    // Accumulators per thread: the next power of two >= k (registers are indexed statically).
    if (k <= 1) return launch_mdgm<T, 1>(n, k, V, ld, y, result, workspace, stream);
    if (k <= 2) return launch_mdgm<T, 2>(n, k, V, ld, y, result, workspace, stream);
    if (k <= 4) return launch_mdgm<T, 4>(n, k, V, ld, y, result, workspace, stream);
    if (k <= 8) return launch_mdgm<T, 8>(n, k, V, ld, y, result, workspace, stream);
    if (k <= 16) return launch_mdgm<T, 16>(n, k, V, ld, y, result, workspace, stream);
    if (k <= 32) return launch_mdgm<T, 32>(n, k, V, ld, y, result, workspace, stream);
    launch_mdgm<T, max_dot_vectors>(n, k, V, ld, y, result, workspace, stream);
}

#define KBENCH_INSTANTIATE_DOT(T)                                                                \
    template void dot<T>(std::int64_t, const T*, const T*, T*, void*, std::size_t, cudaStream_t); \
    template void mdot<T>(std::int64_t, int, const T* const*, const T* const*, T*, void*,        \
                          std::size_t, cudaStream_t);                                            \
    template void mdgm<T>(std::int64_t, int, const T*, std::int64_t, const T*, T*, void*,        \
                          std::size_t, cudaStream_t);                                            \
    template int mdot_vectors_read<T>(int, const T* const*, const T* const*);                    \
    template void detail::check_dot_args<T>(const char*, std::int64_t, const T*, const T*,       \
                                            const T*);                                           \
    template void detail::check_mdot_args<T>(const char*, std::int64_t, int, const T* const*,    \
                                             const T* const*, const T*);                         \
    template void detail::check_mdgm_args<T>(const char*, std::int64_t, int, const T*,           \
                                             std::int64_t, const T*, const T*)
KBENCH_INSTANTIATE_DOT(float);
KBENCH_INSTANTIATE_DOT(double);
#undef KBENCH_INSTANTIATE_DOT

}  // namespace kbench::blas
