// Truncated SPIKE on the GPU (spike.hpp); spike_reference.cpp holds the CPU twin.
#include "solvers/spike/spike.hpp"

#include "solvers/spike/bad_pivot.cuh"

#include "kernels/base/cuda_check.hpp"
#include "kernels/base/cuda_handles.hpp"
#include "kernels/base/device.hpp"
#include "kernels/divide.cuh"

#include <cuda_pipeline.h>
#include <nvtx3/nvToolsExt.h>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>

namespace kbench::solvers::spike {
namespace {

constexpr int max_threads = 256;
constexpr int reduce_threads = 256;  // power of two (tree reduction in reduced_factor_kernel)
constexpr std::size_t default_shared_bytes = 48 * 1024;  // dynamic shared memory without opt-in
// Steps ahead at which the sequential kernels load their global operands (the LU's entering
// column, the substitutions' factor entries and right-hand side), so that a step waits for
// shared memory and its barrier rather than for a load from device memory.
constexpr int lu_prefetch = 4;
constexpr int solve_prefetch = 8;

/// Partitioning as the kernels see it (spike.hpp's Partitioning).
struct Parts {
    int n, K, psize, p;
    __host__ __device__ int offset(int i) const { return i * psize; }
    __host__ __device__ int size(int i) const { return i + 1 < p ? psize : n - (p - 1) * psize; }
    __host__ __device__ std::size_t ld() const { return 2 * K + 1; }
};

using detail::bad_pivot;

/// Whether `kernel` can run with `bytes` of dynamic shared memory on the current device: those
/// and its static shared memory up to the device's opt-in limit per block (227 KB on Hopper,
/// 99 KB on sm_86/89); above 48 KB the kernel's limit is raised to `bytes` first. Throws
/// kbench::cuda_error on CUDA failures.
bool fits_in_shared(const void* kernel, std::size_t bytes)
{
    cudaFuncAttributes attr{};
    KBENCH_CUDA_CHECK(cudaFuncGetAttributes(&attr, kernel));
    const std::size_t total = bytes + attr.sharedSizeBytes;  // with its static shared memory
    if (total <= default_shared_bytes) return true;
    int device = 0, optin = 0;
    KBENCH_CUDA_CHECK(cudaGetDevice(&device));
    KBENCH_CUDA_CHECK(
        cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    if (total > static_cast<std::size_t>(optin)) return false;
    KBENCH_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int>(bytes)));
    return true;
}

int threads_for(long long work)
{
    const long long t = (work + 31) / 32 * 32;
    return static_cast<int>(t < 32 ? 32 : (t > max_threads ? max_threads : t));
}

/// scale[i] = max_j |A(i,j)| over the band of row i.
template <typename T>
__global__ void __launch_bounds__(max_threads)
    row_scale_kernel(const T* __restrict__ ab, Parts P, T* __restrict__ scale)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= P.n) return;
    T s(0);
    const int lo = i - P.K < 0 ? 0 : i - P.K, hi = i + P.K >= P.n ? P.n - 1 : i + P.K;
    for (int j = lo; j <= hi; ++j) s = fmax(s, fabs(ab[(P.K + i - j) + j * P.ld()]));
    scale[i] = s;
}

/// rev = the reversed blocks J A_i J in band storage: column c of block i is column n_i-1-c of
/// A_i upside down; slots outside the block are zero.
template <typename T>
__global__ void __launch_bounds__(max_threads)
    reverse_kernel(const T* __restrict__ fac, Parts P, T* __restrict__ rev)
{
    const std::size_t ld = P.ld();
    const std::size_t e = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (e >= ld * P.n) return;
    const int col = static_cast<int>(e / ld), t = static_cast<int>(e % ld);
    const int part = col / P.psize < P.p ? col / P.psize : P.p - 1;
    const int off = P.offset(part), n = P.size(part), c = col - off, r = c + t - P.K;
    rev[e] = (r >= 0 && r < n) ? fac[(2 * P.K - t) + (off + n - 1 - c) * ld] : T(0);
}

/// The block an LU/UL kernel's thread block factors (band_lu_kernel's doc): blocks 0..p-1 the
/// LU of partition i in `fac`, blocks p..2p-1 the reversed one in `rev`, with `corner` only its
/// last 2K rows (`skip` leading columns left out; block p then idles). `a`: its first column in
/// band storage, `n` its rows, `sc` the bad-pivot scale of its row 0, `sstride` the step to the
/// next row's scale.
template <typename T>
struct LuBlock {
    T* a = nullptr;
    const T* sc = nullptr;
    int n = 0, skip = 0, sstride = 1;
    bool idle = false;
    __device__ LuBlock(T* fac, T* rev, const T* scale, const Parts& P, bool corner, int block)
    {
        const int part = block % P.p;
        const bool ul = block >= P.p;
        idle = ul && corner && part == 0;
        skip = ul && corner ? P.size(part) - 2 * P.K : 0;
        const int off = P.offset(part) + skip;
        n = P.size(part) - skip;
        a = (ul ? rev : fac) + off * P.ld();
        sc = scale + (ul ? P.offset(part) + n - 1 : off);
        sstride = ul ? -1 : 1;
    }
};

/// LU without pivoting, one block per partition: blocks 0..p-1 factor A_i in `fac`, blocks
/// p..2p-1 the reversed blocks in `rev` (the UL of A_i), with `corner` only the bottom-right
/// 2K x 2K corner of the reversed blocks 1..p-1 (li2012 Sec. 2.2's corner UL; block p idles).
/// For each pivot k the threads scale the K multipliers below it, then update the K x K window
/// to its lower right (li2012 Sec. 2.2); two barriers per step. The window's K+1 columns live in
/// shared memory as a ring of columns, column k going back to global memory and column k+K+1
/// coming in after step k (lu_window_in_shared must hold; band_lu_blocked.hpp factors the larger
/// bands).
/// status[block] = the first bad step of the whole (reversed) block (left at -1 otherwise).
template <typename T>
__global__ void __launch_bounds__(max_threads)
    band_lu_kernel(T* __restrict__ fac, T* __restrict__ rev, const T* __restrict__ scale, Parts P,
                   bool corner, int* __restrict__ status)
{
    extern __shared__ __align__(16) unsigned char smem_raw[];
    T* win = reinterpret_cast<T*>(smem_raw);
    const LuBlock<T> blk(fac, rev, scale, P, corner, blockIdx.x);
    if (blk.idle) return;
    const int K = P.K, tid = threadIdx.x, skip = blk.skip, n = blk.n, sstride = blk.sstride;
    const std::size_t ld = P.ld();
    T* a = blk.a;
    const T* sc = blk.sc;
    for (std::size_t e = tid; e < (K + 1) * ld; e += blockDim.x)
        if (e / ld < static_cast<std::size_t>(n)) win[e] = a[e];
    __syncthreads();
    // Column c of the band sits in window slot c % (K + 1); entry (r, c) at row K + r - c of
    // its slot. The column entering the window after step k (k + K + 1) is loaded lu_prefetch
    // steps ahead (blockDim >= ld: one entry per thread), so that its latency is off the chain.
    const int slots = K + 1;
    auto entering = [&](int k) {
        return k + K + 1 < n && tid < static_cast<int>(ld) ? a[tid + (k + K + 1) * ld] : T(0);
    };
    // The bad-pivot scale of row k is loaded as far ahead.
    auto row_scale = [&](int k) { return k < n ? sc[k * sstride] : T(0); };
    T ahead[lu_prefetch], scale_ahead[lu_prefetch];
#pragma unroll
    for (int d = 0; d < lu_prefetch; ++d) {
        ahead[d] = entering(d);
        scale_ahead[d] = row_scale(d);
    }
    // The update's thread map for m = min(K, n - 1 - k) rows and columns below and right of the
    // pivot: thread t keeps row i = 1 + t % m and takes every per_pass-th column from
    // 1 + t / m (blockDim >= ld > m). m is K until the last K steps, so the integer divisions
    // run once, not every step. Window offsets are ints (the window is in shared memory).
    const int ldw = static_cast<int>(ld);
    int map_m = -1, per_pass = 0, ui = 0, uj0 = 0;
    bool updates = false;
    int ck = 0;  // slot of column k
    for (int k0 = 0; k0 < n; k0 += lu_prefetch) {
#pragma unroll
        for (int d = 0; d < lu_prefetch; ++d) {
            const int k = k0 + d;
            if (k >= n) break;
            const T incoming = ahead[d], row_k_scale = scale_ahead[d];
            ahead[d] = entering(k + lu_prefetch);
            scale_ahead[d] = row_scale(k + lu_prefetch);
            T* colk = win + ck * ldw;  // colk[K + i] = A(k + i, k)
            const T piv = colk[K];
            if (bad_pivot(piv, row_k_scale)) {
                if (tid == 0) status[blockIdx.x] = skip + k;
                return;
            }
            const int m = K < n - 1 - k ? K : n - 1 - k;
            if (m != map_m) {
                map_m = m;
                per_pass = m > 0 ? static_cast<int>(blockDim.x) / m : 0;
                updates = m > 0 && tid < per_pass * m;
                ui = updates ? 1 + tid % m : 0;
                uj0 = updates ? 1 + tid / m : 0;
            }
            if (tid < m) colk[K + 1 + tid] /= piv;
            __syncthreads();
            // A(k + i, k + j) -= A(k + i, k) A(k, k + j), i, j = 1..m (the map above).
            if (updates) {
                const T li = colk[K + ui];
                int cj = ck + uj0 < slots ? ck + uj0 : ck + uj0 - slots;
                const int step = per_pass < slots ? per_pass : per_pass % slots;
                for (int j = uj0; j <= m; j += per_pass) {
                    T* colj = win + cj * ldw;
                    colj[K + ui - j] -= li * colj[K - j];
                    cj = cj + step < slots ? cj + step : cj + step - slots;
                }
            }
            __syncthreads();
            // Column k leaves, column k + K + 1 takes its slot. No barrier is needed before
            // the next step: it reads this slot only in its update, after its first barrier.
            if (tid < ldw) {
                a[tid + k * ld] = colk[tid];
                if (k + K + 1 < n) colk[tid] = incoming;
            }
            ck = ck + 1 < slots ? ck + 1 : 0;
        }
    }
}

/// Shared memory of band_lu_warp_kernel in values: for each of two groups of 32 steps (the one
/// running, the one being loaded) the entering columns (32 x 33), the new rows (32 x 32) and the
/// pivot rows' scales (32); then the pivot row being broadcast (33).
constexpr int lu_warp_values = 2 * (32 * 33 + 32 * 32 + 32) + 33;

/// band_lu_kernel's LU and UL for K <= 32 with one warp per block and the window in registers,
/// so that a pivot step is a warp's 32 FMAs per lane, not a block's barriers. Row r of the
/// window is lane r % 32's, as a ring of 32 values indexed by column % 32 (the columns k ..
/// k + 31 before step k; entries outside the band or the block are zero). Step k: lane k % 32
/// publishes its row (the pivot row, now final) in shared memory and takes over row k + 32;
/// every lane divides its entry of column k by the pivot (the multiplier, stored), puts the
/// entering column k + 32 in that slot and subtracts multiplier x pivot row from its ring. The
/// entering columns, new rows and row scales of the next group of 32 steps are copied to shared
/// memory asynchronously (cp.async) during the current group, so no step waits for device
/// memory. Same storage, status and arithmetic (correctly rounded multipliers, one FMA per
/// update) as band_lu_kernel.
template <typename T>
__global__ void __launch_bounds__(32)
    band_lu_warp_kernel(T* __restrict__ fac, T* __restrict__ rev, const T* __restrict__ scale,
                        Parts P, bool corner, int* __restrict__ status)
{
    extern __shared__ __align__(16) unsigned char smem_raw[];
    constexpr int G = 32;
    T* ecol = reinterpret_cast<T*>(smem_raw);  // [2][G][G + 1]: A(c - G + q, c), c = k + G
    T* nrow = ecol + 2 * G * (G + 1);          // [2][G][G]: row k + G, slot = column % G
    T* srow = nrow + 2 * G * G;                // [2][G]: scale of pivot row k
    T* pbuf = srow + 2 * G;                    // [G + 1]: the pivot row by slot, the pivot last
    const LuBlock<T> blk(fac, rev, scale, P, corner, blockIdx.x);
    if (blk.idle) return;
    const int K = P.K, lane = threadIdx.x, skip = blk.skip, n = blk.n, sstride = blk.sstride;
    const std::size_t ld = P.ld();
    T* a = blk.a;
    const T* sc = blk.sc;
    // A(r, c) of the block, or 0 outside the band or the block: its address and whether it is.
    auto inside = [&](int r, int c) { return r < n && c < n && r - c <= K && c - r <= K; };
    auto at = [&](int r, int c) { return a + (K + r - c) + static_cast<std::size_t>(c) * ld; };
    auto copy = [](T* dst, const T* src, bool ok) {  // zero-filled when !ok (src then unread)
        __pipeline_memcpy_async(dst, src, sizeof(T), ok ? 0 : sizeof(T));
    };
    // Operands of steps k0 .. k0 + G - 1, into buffer b. Where every row and column they touch
    // is in the block (k0 + 2G <= n), lane q takes entry q of each entering column and entry
    // (d + q) % G of each new row, both in the band when q >= G - K, and lane d the diagonal
    // entry of entering column d; else the general rule (inside()).
    auto prefetch = [&](int k0, int b) {
        if (k0 + 2 * G <= n) {
            const bool ok = lane >= G - K;
            const T* col = a + (K - G + lane) + static_cast<std::size_t>(k0 + G) * ld;
            const T* row = a + (K + G - lane) + static_cast<std::size_t>(k0 + lane) * ld;
            T* ecb = ecol + b * G * (G + 1) + lane;
            T* nrb = nrow + b * G * G;
#pragma unroll 8
            for (int d = 0; d < G; ++d) {
                const std::size_t step = static_cast<std::size_t>(d) * ld;
                copy(ecb + d * (G + 1), ok ? col + step : a, ok);
                copy(nrb + d * G + ((d + lane) & (G - 1)), ok ? row + step : a, ok);
            }
            copy(ecol + b * G * (G + 1) + lane * (G + 1) + G, at(k0 + G + lane, k0 + G + lane),
                 true);
            copy(srow + b * G + lane, sc + (k0 + lane) * sstride, true);
            __pipeline_commit();
            return;
        }
        for (int e = lane; e < G * (G + 1); e += G) {
            const int d = e / (G + 1), q = e - d * (G + 1);
            const int c = k0 + d + G, r = c - G + q;
            const bool ok = inside(r, c);
            copy(ecol + b * G * (G + 1) + e, ok ? at(r, c) : a, ok);
        }
        for (int d = 0; d < G; ++d) {
            const int r = k0 + d + G, c = k0 + d + lane;
            const bool ok = inside(r, c);
            copy(nrow + (b * G + d) * G + ((d + lane) & (G - 1)), ok ? at(r, c) : a, ok);
        }
        const int k = k0 + lane;
        copy(srow + b * G + lane, k < n ? sc + k * sstride : sc, k < n);
        __pipeline_commit();
    };
    T cur[G];  // row `lane` at columns 0 .. G - 1
#pragma unroll
    for (int s = 0; s < G; ++s) cur[s] = inside(lane, s) ? *at(lane, s) : T(0);
    prefetch(0, 0);
    __pipeline_wait_prior(0);
    __syncwarp();
    for (int k0 = 0, b = 0; k0 < n; k0 += G, b ^= 1) {
        if (k0 + G < n) prefetch(k0 + G, b ^ 1);
        const T* ec = ecol + b * G * (G + 1);
        const T* nr = nrow + b * G * G;
#pragma unroll
        for (int d = 0; d < G; ++d) {
            const int k = k0 + d;
            if (k >= n) break;
            if (lane == d) {  // publish the pivot row, take over row k + G
#pragma unroll
                for (int s = 0; s < G; ++s) pbuf[s] = cur[s];
                pbuf[G] = cur[d];
                pbuf[d] = ec[d * (G + 1)];  // U(k, k + G): entering, never updated
#pragma unroll
                for (int s = 0; s < G; ++s) cur[s] = nr[d * G + s];
            }
            __syncwarp();
            const T piv = pbuf[G];
            if (bad_pivot(piv, srow[b * G + d])) {
                if (lane == 0) status[blockIdx.x] = skip + k;
                __pipeline_wait_prior(0);
                return;
            }
            const T inv = T(1) / piv;
            const int o = ((lane - d - 1) & (G - 1)) + 1;  // this lane's row is k + o
            const T x = cur[d];
            cur[d] = ec[d * (G + 1) + o];
            const T l = divide(x, piv, inv);
            if (o <= K && k + o < n) a[(K + o) + static_cast<std::size_t>(k) * ld] = l;
            if (lane <= K && k + lane < n)  // U(k, k + lane); U(k, k + G) is unchanged
                a[(K - lane) + static_cast<std::size_t>(k + lane) * ld] =
                    lane == 0 ? piv : pbuf[(d + lane) & (G - 1)];
#pragma unroll
            for (int s = 0; s < G; ++s) cur[s] -= l * pbuf[s];
            __syncwarp();  // pbuf is rewritten by the next step's pivot lane
        }
        __pipeline_wait_prior(0);
        __syncwarp();
    }
}

/// Threads of band_lu_kernel for half-bandwidth K: one per window row (2K + 1) or per entry of
/// the K x K update, the more, within threads_for's bounds.
int lu_threads_for(int K)
{
    const long long ld = 2LL * K + 1, kk = 1LL * K * K;
    return threads_for(kk > ld ? kk : ld);
}

/// The LU/UL kernel for half-bandwidth K and its launch shape: the one-warp kernel for K <= 32
/// (lu_warp_values of shared memory), else band_lu_kernel (lu_threads_for(K) threads, the
/// window of (K + 1) (2K + 1) values).
template <typename T>
struct LuLaunch {
    using Kernel = void (*)(T*, T*, const T*, Parts, bool, int*);
    Kernel kernel;
    int threads;
    std::size_t smem;
    explicit LuLaunch(int K)
        : kernel(K <= 32 ? &band_lu_warp_kernel<T> : &band_lu_kernel<T>),
          threads(K <= 32 ? 32 : lu_threads_for(K)),
          smem((K <= 32 ? static_cast<std::size_t>(lu_warp_values)
                        : (K + 1) * (2 * static_cast<std::size_t>(K) + 1)) *
               sizeof(T))
    {}
};

/// The LU/UL kernel's window in shared memory: it fits (fits_in_shared) and, for
/// band_lu_kernel, every one of its ld = 2K + 1 rows has a thread to move it in and out
/// (blockDim >= ld).
template <typename T>
bool lu_window_in_shared(int K)
{
    const LuLaunch<T> lu(K);
    return (K <= 32 || 2 * K + 1 <= lu.threads) &&
           fits_in_shared(reinterpret_cast<const void*>(lu.kernel), lu.smem);
}

/// The leading dimension of a K x K block in shared memory that one thread per column walks
/// down: odd, so that the threads' columns fall in different banks (K would put every column
/// of a power-of-two K in the same bank: a 16- to 32-way conflict on every access).
__host__ __device__ inline int padded_ld(int K) { return K | 1; }

/// y := U_bb^{-1} L_bb^{-1} y for the K x K column-major y (leading dimension ldy, one column
/// per thread), the corner's L and U a dense K x K copy f (column-major, ld K) in shared memory.
template <typename T>
__device__ void corner_solve_dense(const T* __restrict__ f, int K, T* __restrict__ y, int ldy)
{
    for (int c = threadIdx.x; c < K; c += blockDim.x) {
        T* col = y + c * ldy;
        for (int q = 0; q < K; ++q) {
            const T v = col[q];
            for (int r = q + 1; r < K; ++r) col[r] -= f[r + q * K] * v;
        }
        for (int q = K - 1; q >= 0; --q) {
            const T v = col[q] / f[q + q * K];
            col[q] = v;
            for (int r = 0; r < q; ++r) col[r] -= f[r + q * K] * v;
        }
    }
}

/// Tip t of the 2(p-1) tips: t < p-1 is V_t^b (right-hand side B_t, solved through the LU of
/// partition t), t = p-1+i is W_{i+1}^t (right-hand side J C_{i+1}, through the reversed factors
/// of partition i+1). Fills the K x K column-major right-hand side y (leading dimension ldy,
/// one column per thread).
template <typename T>
__device__ void load_tip_rhs(const T* __restrict__ fac, const Parts& P, int t, T* __restrict__ y,
                             int ldy)
{
    const int K = P.K;
    const std::size_t ld = P.ld();
    const bool w = t >= P.p - 1;
    const int off1 = P.offset((w ? t - (P.p - 1) : t) + 1);
    for (int c = threadIdx.x; c < K; c += blockDim.x) {
        T* col = y + c * ldy;
        for (int r = 0; r < K; ++r) {
            if (!w)  // B_i(r, c), lower triangular, in column off_{i+1} + c
                col[r] = r >= c ? fac[(r - c) + (off1 + c) * ld] : T(0);
            else  // (J C_{i+1})(r, c) = C_{i+1}(K-1-r, c), upper triangular, column off_{i+1}-K+c
                col[r] = K - 1 - r <= c ? fac[(2 * K + (K - 1 - r) - c) + (off1 - K + c) * ld]
                                        : T(0);
        }
    }
}

/// W^t(r, c) = Vr(K-1-r, c): reverses the rows of the K x K column-major y (leading dimension
/// ldy, a thread a column).
template <typename T>
__device__ void reverse_tip_rows(int K, T* __restrict__ y, int ldy)
{
    for (int c = threadIdx.x; c < K; c += blockDim.x) {
        T* col = y + c * ldy;
        for (int r = 0; r < K / 2; ++r) {
            const T t = col[r];
            col[r] = col[K - 1 - r];
            col[K - 1 - r] = t;
        }
    }
}

/// Shared memory of tips_kernel, in values: the right-hand side (K x padded_ld(K)) and the
/// corner (K x K).
inline std::size_t tips_values(int K)
{
    return static_cast<std::size_t>(K) * (padded_ld(K) + K);
}

/// Spike tips in shared memory, 2(p-1) blocks (load_tip_rhs's numbering): the corner of the
/// factors and the K x K right-hand side are solved in shared memory (tips_values(K)).
template <typename T>
__global__ void __launch_bounds__(max_threads)
    tips_kernel(const T* __restrict__ fac, const T* __restrict__ rev, Parts P,
                T* __restrict__ vtip, T* __restrict__ wtip)
{
    extern __shared__ __align__(16) unsigned char smem_raw[];
    const int K = P.K;
    const std::size_t ld = P.ld(), KK = static_cast<std::size_t>(K) * K;
    const bool w = blockIdx.x >= P.p - 1;
    const int i = w ? blockIdx.x - (P.p - 1) : blockIdx.x;
    T* out = (w ? wtip : vtip) + i * KK;
    T* y = reinterpret_cast<T*>(smem_raw);
    const int ldy = padded_ld(K);
    load_tip_rhs(fac, P, blockIdx.x, y, ldy);
    const T* blk = w ? rev + P.offset(i + 1) * ld : fac + P.offset(i) * ld;
    const int nb = w ? P.size(i + 1) : P.size(i);
    T* f = y + static_cast<std::size_t>(K) * ldy;  // the corner's L and U, dense
    const int o = nb - K;
    for (std::size_t e = threadIdx.x; e < KK; e += blockDim.x) {
        const int r = static_cast<int>(e % K), c = static_cast<int>(e / K);
        f[e] = blk[(K + r - c) + (o + c) * ld];
    }
    __syncthreads();
    corner_solve_dense(f, K, y, ldy);
    if (w) reverse_tip_rows(K, y, ldy);
    // Each thread wrote only its own columns: no barrier needed before this.
    for (int c = threadIdx.x; c < K; c += blockDim.x)
        for (int r = 0; r < K; ++r) out[c * K + r] = y[c * ldy + r];
}

/// Tips too large for shared memory, step 1: the right-hand sides in place of the tips
/// (load_tip_rhs), 2(p-1) blocks; tips_by_trsm solves them; tips_reverse_kernel finishes W.
template <typename T>
__global__ void __launch_bounds__(max_threads)
    tips_rhs_kernel(const T* __restrict__ fac, Parts P, T* __restrict__ vtip, T* __restrict__ wtip)
{
    const std::size_t KK = static_cast<std::size_t>(P.K) * P.K;
    const bool w = blockIdx.x >= P.p - 1;
    load_tip_rhs(fac, P, blockIdx.x,
                 (w ? wtip : vtip) + (w ? blockIdx.x - (P.p - 1) : blockIdx.x) * KK, P.K);
}

/// Step 3: the rows of every W tip reversed (p-1 blocks).
template <typename T>
__global__ void __launch_bounds__(max_threads) tips_reverse_kernel(Parts P, T* __restrict__ wtip)
{
    reverse_tip_rows(P.K, wtip + blockIdx.x * static_cast<std::size_t>(P.K) * P.K, P.K);
}

/// Called by every thread of a block of reduce_threads threads for interface i: writes
/// R_i = [[I, V_i^b], [W_{i+1}^t, I]] (2K x 2K, column-major, leading dimension ldr) to R and
/// returns max |R_i| to every thread (the scale of the bad-pivot test). `val`: shared memory
/// of reduce_threads.
template <typename T>
__device__ T build_reduced_block(const T* __restrict__ vtip, const T* __restrict__ wtip, int K,
                                 int i, T* __restrict__ R, int ldr, T* val)
{
    const int m = 2 * K, tid = threadIdx.x;
    const std::size_t KK = static_cast<std::size_t>(K) * K, mm = static_cast<std::size_t>(m) * m;
    T local(0);
    for (std::size_t e = tid; e < mm; e += blockDim.x) {
        const int r = static_cast<int>(e % m), c = static_cast<int>(e / m);
        T v;
        if ((r < K) == (c < K))
            v = r == c ? T(1) : T(0);
        else if (r < K)
            v = vtip[i * KK + r + (c - K) * K];
        else
            v = wtip[i * KK + (r - K) + c * K];
        R[r + static_cast<std::size_t>(c) * ldr] = v;
        local = fmax(local, fabs(v));
    }
    val[tid] = local;
    __syncthreads();
    for (int s = reduce_threads / 2; s > 0; s /= 2) {
        if (tid < s) val[tid] = fmax(val[tid], val[tid + s]);
        __syncthreads();
    }
    const T scale = val[0];
    __syncthreads();
    return scale;
}

/// Shared memory of reduced_factor_kernel working in shared memory, in values: the 2K x 2K
/// block with the odd leading dimension 2K + 1 (row swaps and column reads free of conflicts).
inline std::size_t reduced_values(int K)
{
    return static_cast<std::size_t>(2 * K) * (2 * K + 1);
}

/// One block per interface i: R_i (build_reduced_block) and its LU with partial pivoting
/// (LAPACK getrf order; first largest |entry| wins ties), written to rlu (column-major, ld 2K).
/// With `in_shared` the LU runs on a copy in dynamic shared memory (reduced_values(K)), else in
/// rlu itself (every step then waits for the L1/L2 cache); the same arithmetic either way.
template <typename T>
__global__ void __launch_bounds__(reduce_threads)
    reduced_factor_kernel(const T* __restrict__ vtip, const T* __restrict__ wtip, int K,
                          T* __restrict__ rlu, int* __restrict__ rpiv, int* __restrict__ status,
                          bool in_shared)
{
    extern __shared__ __align__(16) unsigned char smem_raw[];
    __shared__ T val[reduce_threads];
    __shared__ int idx[reduce_threads];
    __shared__ bool bad;
    const int m = 2 * K, tid = threadIdx.x, i = blockIdx.x;
    const std::size_t mm = static_cast<std::size_t>(m) * m;
    T* out = rlu + i * mm;
    T* R = in_shared ? reinterpret_cast<T*>(smem_raw) : out;
    const int ld = in_shared ? m + 1 : m;
    int* piv = rpiv + static_cast<std::size_t>(i) * m;
    const T scale = build_reduced_block(vtip, wtip, K, i, R, ld, val);
    for (int k = 0; k < m; ++k) {
        T best(-1);
        int bi = m;
        for (int r = k + tid; r < m; r += blockDim.x) {
            const T v = fabs(R[r + k * ld]);
            if (v > best) {
                best = v;
                bi = r;
            }
        }
        val[tid] = best;
        idx[tid] = bi;
        __syncthreads();
        for (int s = reduce_threads / 2; s > 0; s /= 2) {
            if (tid < s &&
                (val[tid + s] > val[tid] || (val[tid + s] == val[tid] && idx[tid + s] < idx[tid]))) {
                val[tid] = val[tid + s];
                idx[tid] = idx[tid + s];
            }
            __syncthreads();
        }
        const int p = idx[0] < m ? idx[0] : k;
        if (tid == 0) {
            piv[k] = p;
            bad = bad_pivot(R[p + k * ld], scale);
            if (bad) status[i] = k;
        }
        __syncthreads();
        if (bad) return;
        if (p != k)
            for (int j = tid; j < m; j += blockDim.x) {
                const T t = R[k + j * ld];
                R[k + j * ld] = R[p + j * ld];
                R[p + j * ld] = t;
            }
        __syncthreads();
        const T d = R[k + k * ld];
        for (int r = k + 1 + tid; r < m; r += blockDim.x) R[r + k * ld] /= d;
        __syncthreads();
        const int w = m - 1 - k;
        for (int e = tid; e < w * w; e += blockDim.x) {
            const int r = k + 1 + e % w, c = k + 1 + e / w;
            R[r + c * ld] -= R[r + k * ld] * R[k + c * ld];
        }
        __syncthreads();
    }
    if (in_shared)
        for (int e = tid; e < m * m; e += blockDim.x) out[e] = R[(e % m) + (e / m) * ld];
}

/// For the batched reduced LU (large K): R_i per interface (build_reduced_block), and its scale.
template <typename T>
__global__ void __launch_bounds__(reduce_threads)
    reduced_build_kernel(const T* __restrict__ vtip, const T* __restrict__ wtip, int K,
                         T* __restrict__ rlu, T* __restrict__ rscale)
{
    __shared__ T val[reduce_threads];
    const std::size_t mm = 4 * static_cast<std::size_t>(K) * K;
    const T scale =
        build_reduced_block(vtip, wtip, K, blockIdx.x, rlu + blockIdx.x * mm, 2 * K, val);
    if (threadIdx.x == 0) rscale[blockIdx.x] = scale;
}

/// After cuBLAS getrfBatched of the R_i (1-based LAPACK pivots): pivots to 0-based and
/// status[i] = the first step k whose pivot u_kk fails bad_pivot against R_i's scale (the step
/// reduced_factor_kernel stops at), left as it is when none does.
template <typename T>
__global__ void __launch_bounds__(reduce_threads)
    reduced_check_kernel(const T* __restrict__ rlu, const T* __restrict__ rscale, int K,
                         int* __restrict__ rpiv, int* __restrict__ status)
{
    __shared__ int least[reduce_threads];
    const int m = 2 * K, i = blockIdx.x;
    const T* R = rlu + static_cast<std::size_t>(i) * m * m;
    int* piv = rpiv + static_cast<std::size_t>(i) * m;
    for (int k = threadIdx.x; k < m; k += blockDim.x) piv[k] -= 1;
    const T scale = rscale[i];
    const int first = detail::first_bad_pivot<reduce_threads>(
        m, [&](int k) { return R[k + static_cast<std::size_t>(k) * m]; },
        [&](int) { return scale; }, least);
    if (threadIdx.x == 0 && first != INT_MAX) status[i] = first;
}

/// The truncated SPIKE corrections of partition `part`'s right-hand side (li2012 Sec. 1.3):
/// ctop = C_i x_{i-1}^b (its first K rows; 0 for the first partition), cbot = B_i x_{i+1}^t (its
/// last K rows; 0 for the last), x from xhat (2K values per interface). Threads over the K rows.
template <typename T>
__device__ void purify_corrections(const T* __restrict__ fac, const Parts& P, int part,
                                   const T* __restrict__ xhat, T* ctop, T* cbot)
{
    const int K = P.K, m2 = 2 * K, off = P.offset(part), n = P.size(part);
    const std::size_t ld = P.ld();
    for (int q = threadIdx.x; q < K; q += blockDim.x) {
        T s(0);
        if (part > 0) {
            const T* xb = xhat + static_cast<std::size_t>(part - 1) * m2;
            for (int c = q; c < K; ++c) s += fac[(2 * K + q - c) + (off - K + c) * ld] * xb[c];
        }
        ctop[q] = s;
        s = T(0);
        if (part + 1 < P.p) {
            const T* xt = xhat + static_cast<std::size_t>(part) * m2 + K;
            for (int c = 0; c <= q; ++c) s += fac[(q - c) + (off + n + c) * ld] * xt[c];
        }
        cbot[q] = s;
    }
}

/// Row j of a partition's right-hand side v (n rows), with Purify minus its corrections from
/// purify_corrections: ctop[j] for the first K rows, cbot[j - (n - K)] for the last K.
template <bool Purify, typename T>
__device__ T purified_rhs(T v, int j, int K, int n, const T* ctop, const T* cbot)
{
    if (Purify) {
        if (j < K) v -= ctop[j];
        if (j >= n - K) v -= cbot[j - (n - K)];
    }
    return v;
}

/// One block per partition: out_i = A_i^{-1} rhs_i by forward (unit L) and backward (U)
/// substitution over the band, threads over the K entries each step updates. rhs = r converted
/// to T, minus, with Purify, [C_i x_{i-1}^b; 0] and [0; B_i x_{i+1}^t] (x from xhat). The rows
/// still to be reached live in a ring of K+2 values in shared memory; `out` holds the forward
/// result between the sweeps.
template <typename T, typename In, typename Out, bool Purify>
__global__ void __launch_bounds__(max_threads)
    band_solve_kernel(const T* __restrict__ fac, Parts P, const In* __restrict__ r,
                      Out* __restrict__ out, const T* __restrict__ xhat)
{
    extern __shared__ __align__(16) unsigned char smem_raw[];
    const int K = P.K, tid = threadIdx.x, part = blockIdx.x, ring = K + 2;
    T* buf = reinterpret_cast<T*>(smem_raw);
    T* ctop = buf + ring;
    T* cbot = ctop + K;
    const int off = P.offset(part), n = P.size(part);
    const std::size_t ld = P.ld();
    const T* a = fac + off * ld;
    r += off;
    out += off;
    if (Purify) {
        purify_corrections(fac, P, part, xhat, ctop, cbot);
        __syncthreads();
    }
    auto rhs = [&](int j) {
        return purified_rhs<Purify>(static_cast<T>(r[j]), j, K, n, ctop, cbot);
    };
    for (int j = tid; j <= K && j < n; j += blockDim.x) buf[j % ring] = rhs(j);
    __syncthreads();
    // blockDim >= K (threads_for(K)): thread tid owns row offset i = 1 + tid of every step. The
    // global loads of step k + solve_prefetch (its column of L, the row entering the ring) are
    // issued before step k's update, so their latency is off the sequential chain. Ring slots
    // advance by one per step (s = index % ring, kept without a division).
    const int i = 1 + tid;
    const bool owns_row = i <= K;
    auto next_slot = [ring](int s) { return s + 1 < ring ? s + 1 : 0; };
    auto prev_slot = [ring](int s) { return s > 0 ? s - 1 : ring - 1; };
    auto slot_of = [ring](int j) { return (j % ring + ring) % ring; };
    // The step's global operands through pointers that advance by a column (ld) or a row per
    // step, not index products: the loads are most of a step's instructions.
    const T* lower_at = a + (K + i);  // A(k + i, k) of step k = 0, then of the step loaded next
    auto lower = [&](int k) {
        const T v = owns_row && k + i < n ? *lower_at : T(0);
        lower_at += ld;
        return v;
    };
    // The row entering the ring at step k is k + K + 1 > K: of the purified corrections only
    // the bottom one (rows >= n - K) can apply.
    auto entering = [&](int k) {
        const int j = k + K + 1;
        if (tid != 0 || j >= n) return T(0);
        T v = static_cast<T>(r[j]);
        if (Purify && j >= n - K) v -= cbot[j - (n - K)];
        return v;
    };
    T l_ahead[solve_prefetch], r_ahead[solve_prefetch];
#pragma unroll
    for (int d = 0; d < solve_prefetch; ++d) {
        l_ahead[d] = lower(d);
        r_ahead[d] = entering(d);
    }
    int sk = 0, si = slot_of(i), se = slot_of(K + 1);  // slots of k, k + i, k + K + 1
    for (int k0 = 0; k0 < n; k0 += solve_prefetch) {
#pragma unroll
        for (int d = 0; d < solve_prefetch; ++d) {
            const int k = k0 + d;
            if (k >= n) break;
            const T lk = l_ahead[d], rk = r_ahead[d];
            l_ahead[d] = lower(k + solve_prefetch);
            r_ahead[d] = entering(k + solve_prefetch);
            const T yk = buf[sk];
            if (owns_row && k + i < n) buf[si] -= lk * yk;
            if (tid == 0) {
                if (k + K + 1 < n) buf[se] = rk;
                out[k] = static_cast<Out>(yk);
            }
            __syncthreads();
            sk = next_slot(sk);
            si = next_slot(si);
            se = next_slot(se);
        }
    }
    for (int j = n - 1 - tid; j >= 0 && j >= n - 1 - K; j -= blockDim.x)
        buf[j % ring] = static_cast<T>(out[j]);
    __syncthreads();
    // Column k's U entry of this thread's row and diagonal, by pointers moving back a column
    // per step (step k = n - 1 first).
    const T* upper_at = a + (K - i) + static_cast<std::size_t>(n - 1) * ld;
    const T* diagonal_at = a + K + static_cast<std::size_t>(n - 1) * ld;
    auto upper = [&](int k) {
        const T v = owns_row && k - i >= 0 ? *upper_at : T(0);
        upper_at -= ld;
        return v;
    };
    auto diagonal = [&](int k) {
        const T v = k >= 0 ? *diagonal_at : T(1);
        diagonal_at -= ld;
        return v;
    };
    auto leaving = [&](int k) {
        return tid == 0 && k - K - 1 >= 0 ? static_cast<T>(out[k - K - 1]) : T(0);
    };
    T u_ahead[solve_prefetch], d_ahead[solve_prefetch], b_ahead[solve_prefetch];
#pragma unroll
    for (int d = 0; d < solve_prefetch; ++d) {
        const int k = n - 1 - d;
        u_ahead[d] = upper(k);
        d_ahead[d] = diagonal(k);
        b_ahead[d] = leaving(k);
    }
    // Slots of k, k - i and k - K - 1 (the latter two only used when their index is >= 0).
    sk = slot_of(n - 1);
    si = slot_of(n - 1 - i);
    se = slot_of(n - 2 - K);
    for (int k0 = n - 1; k0 >= 0; k0 -= solve_prefetch) {
#pragma unroll
        for (int d = 0; d < solve_prefetch; ++d) {
            const int k = k0 - d;
            if (k < 0) break;
            const T uk = u_ahead[d], dk = d_ahead[d], bk = b_ahead[d];
            u_ahead[d] = upper(k - solve_prefetch);
            d_ahead[d] = diagonal(k - solve_prefetch);
            b_ahead[d] = leaving(k - solve_prefetch);
            const T v = buf[sk] / dk;
            if (owns_row && k - i >= 0) buf[si] -= uk * v;
            if (tid == 0) {
                if (k - K - 1 >= 0) buf[se] = bk;
                out[k] = static_cast<Out>(v);
            }
            __syncthreads();
            sk = prev_slot(sk);
            si = prev_slot(si);
            se = prev_slot(se);
        }
    }
}

/// band_solve_kernel for K <= 32, one warp per partition and no barrier: lane t holds the row
/// r = t (mod 32) still to be reached, so the ring of the K + 1 live rows is the warp's 32
/// registers. Forward step k: the lane of row k broadcasts y_k (a shuffle), stores it and takes
/// over row k + 32 (whose first update is step k + 32 - K >= k); the lanes of rows k + 1 .. k + K
/// subtract L(k + i, k) y_k. The backward sweep mirrors it with x_k = y_k / U(k, k), divided by a
/// reciprocal computed ahead (divide: correctly rounded). The same operations in the same order
/// as band_solve_kernel.
/// Steps run in groups of 32. At a group's start every lane issues the loads of the next group
/// (its 32 factor entries, the right-hand side or forward value of the row it will take over)
/// and finishes what the previous group's start loaded (conversion, the purified correction,
/// the reciprocal): no instruction inside a group waits for device memory, so a step is a
/// shuffle and an FMA on the chain (a load consumed a few steps after it was issued, or copied
/// by a loop-carried move, made every step of the earlier kernels wait a memory latency).
template <typename T, typename In, typename Out, bool Purify>
__global__ void __launch_bounds__(32)
    band_solve_warp_kernel(const T* __restrict__ fac, Parts P, const In* __restrict__ r,
                           Out* __restrict__ out, const T* __restrict__ xhat)
{
    extern __shared__ __align__(16) unsigned char smem_raw[];
    constexpr unsigned all = 0xffffffffu;
    constexpr int G = 32;  // steps per group = lanes
    const int K = P.K, lane = threadIdx.x, part = blockIdx.x;
    T* ctop = reinterpret_cast<T*>(smem_raw);
    T* cbot = ctop + K;
    const int off = P.offset(part), n = P.size(part);
    const std::size_t ld = P.ld();
    const T* a = fac + off * ld;
    r += off;
    out += off;
    if (Purify) {
        purify_corrections(fac, P, part, xhat, ctop, cbot);
        __syncwarp();
    }
    auto rhs = [&](int j) {  // the whole right-hand side of row j (loads and waits)
        return j < n ? purified_rhs<Purify>(static_cast<T>(r[j]), j, K, n, ctop, cbot) : T(0);
    };
    // Row j >= 2G > K of the right-hand side in two parts, loaded early, finished a group later:
    // its raw value and its bottom correction (rows >= n - K).
    auto raw_rhs = [&](int j) { return j < n ? r[j] : In(0); };
    auto bottom = [&](int j) { return Purify && j < n && j >= n - K ? cbot[j - (n - K)] : T(0); };
    auto finish = [&](In raw, T corr, int j) {
        T v = static_cast<T>(raw);
        if (Purify && j < n && j >= n - K) v -= corr;
        return v;
    };
    // Offset of this lane's row from step k's row: (lane - k) mod G forward, (k - lane) mod G
    // backward, G for the step's own row once its lane has taken over the next one.
    auto offset_at = [](int c) { return (c & (G - 1)) == 0 ? G : (c & (G - 1)); };
    auto lower = [&](int k) {
        const int i = offset_at(lane - k);
        return i <= K && k + i < n ? a[(K + i) + static_cast<std::size_t>(k) * ld] : T(0);
    };

    // Away from the block's end the entries of a group starting at kb (a multiple of G) are at
    // a + K + lane + kb ld + d (ld - 1) (+ G for d >= lane), present where offset_at(lane - d)
    // <= K (bit d of `in_band`): the loads without the bounds tests of lower().
    const int ldm1 = static_cast<int>(ld) - 1;
    unsigned in_band = 0;
#pragma unroll
    for (int d = 0; d < G; ++d) in_band |= (offset_at(lane - d) <= K ? 1u : 0u) << d;

    T v = rhs(lane);  // row lane
    T take = rhs(lane + G);  // the row this lane takes over in the current group
    In raw = raw_rhs(lane + 2 * G);  // ... in the next group, loaded
    T corr = bottom(lane + 2 * G);
    // Factor entries of this lane at the steps of this and the next group: zero where the lane's
    // row is outside the band or the block, so the update needs no test.
    T cur[G], next[G];
#pragma unroll
    for (int d = 0; d < G; ++d) next[d] = lower(d);
    for (int k0 = 0; k0 < n; k0 += G) {
        const T taken = take;
        take = finish(raw, corr, k0 + lane + 2 * G);
        raw = raw_rhs(k0 + lane + 3 * G);
        corr = bottom(k0 + lane + 3 * G);
        if (k0 + 3 * G <= n) {  // every row the next group touches is in the block
            const T* p = a + K + lane + static_cast<std::size_t>(k0 + G) * ld;
#pragma unroll
            for (int d = 0; d < G; ++d) {
                cur[d] = next[d];
                next[d] = (in_band >> d) & 1u ? p[d * ldm1 + (d >= lane ? G : 0)] : T(0);
            }
        } else {
#pragma unroll
            for (int d = 0; d < G; ++d) {
                cur[d] = next[d];
                next[d] = lower(k0 + G + d);
            }
        }
#pragma unroll
        for (int d = 0; d < G; ++d) {
            const int k = k0 + d;
            if (k >= n) break;
            const T yk = __shfl_sync(all, v, d);
            if (lane == d) {
                out[k] = static_cast<Out>(yk);
                v = taken;
            }
            v -= cur[d] * yk;
        }
    }
    __syncwarp();  // the forward result in `out` is read by other lanes below

    auto upper = [&](int k) {
        const int i = offset_at(k - lane);
        return i <= K && k - i >= 0 ? a[(K - i) + static_cast<std::size_t>(k) * ld] : T(0);
    };
    auto raw_forward = [&](int j) { return j >= 0 ? out[j] : Out(0); };
    auto diagonal = [&](int j) { return j >= 0 ? a[K + static_cast<std::size_t>(j) * ld] : T(1); };
    // The row this lane reaches in the group of steps k0, k0 - 1, ..., k0 - G + 1 (negative when
    // the block has fewer rows than lanes: the lane then never owns a step).
    auto row_in_group = [lane](int k0) { return k0 - ((k0 - lane) & (G - 1)); };
    const int top = row_in_group(n - 1);
    v = static_cast<T>(raw_forward(top));
    T dv = diagonal(top);
    T dinv = T(1) / dv;
    T take_y = static_cast<T>(raw_forward(top - G));  // the row taken over in the current group
    T take_d = diagonal(top - G);
    Out raw_y = raw_forward(top - 2 * G);  // ... in the next group, loaded
    T raw_d = diagonal(top - 2 * G);
    // As forward: with e = (k0 - lane) mod G (the same for every group), the entries of the
    // group starting at kb = k0 - G are at a + K - e + kb ld - d (ld - 1) (- G for d >= e),
    // present where offset_at(e - d) <= K.
    const int e = (n - 1 - lane) & (G - 1);
    in_band = 0;
#pragma unroll
    for (int d = 0; d < G; ++d) in_band |= (offset_at(e - d) <= K ? 1u : 0u) << d;
#pragma unroll
    for (int d = 0; d < G; ++d) next[d] = upper(n - 1 - d);
    for (int k0 = n - 1; k0 >= 0; k0 -= G) {
        const T taken_y = take_y, taken_d = take_d, taken_inv = T(1) / take_d;
        take_y = static_cast<T>(raw_y);
        take_d = raw_d;
        const int row = row_in_group(k0);
        raw_y = raw_forward(row - 3 * G);
        raw_d = diagonal(row - 3 * G);
        if (k0 >= 3 * G) {  // every row the next group touches is in the block
            const T* p = a + K - e + static_cast<std::size_t>(k0 - G) * ld;
#pragma unroll
            for (int d = 0; d < G; ++d) {
                cur[d] = next[d];
                next[d] = (in_band >> d) & 1u ? p[-(d * ldm1 + (d >= e ? G : 0))] : T(0);
            }
        } else {
#pragma unroll
            for (int d = 0; d < G; ++d) {
                cur[d] = next[d];
                next[d] = upper(k0 - G - d);
            }
        }
#pragma unroll
        for (int d = 0; d < G; ++d) {
            const int k = k0 - d;
            if (k < 0) break;
            const int src = k & (G - 1);
            const T xk = __shfl_sync(all, divide(v, dv, dinv), src);
            if (lane == src) {
                out[k] = static_cast<Out>(xk);
                v = taken_y;
                dv = taken_d;
                dinv = taken_inv;
            }
            v -= cur[d] * xk;
        }
    }
}

/// The substitution kernel for half-bandwidth K and its launch shape: the one-warp kernel for
/// K <= 32 (2K values of shared memory: the purified corrections), else band_solve_kernel
/// (threads_for(K), a ring of K + 2 values and the corrections).
template <typename T, typename In, typename Out, bool Purify>
struct SolveLaunch {
    using Kernel = void (*)(const T*, Parts, const In*, Out*, const T*);
    Kernel kernel;
    int threads;
    std::size_t smem;
    explicit SolveLaunch(int K)
        : kernel(K <= 32 ? &band_solve_warp_kernel<T, In, Out, Purify>
                         : &band_solve_kernel<T, In, Out, Purify>),
          threads(K <= 32 ? 32 : threads_for(K)),
          smem(static_cast<std::size_t>(K <= 32 ? 2 * K : 3 * K + 2) * sizeof(T))
    {}
};

/// One block per interface i: xhat_i = R_i^{-1} [g_i^b; g_{i+1}^t] with the LU of R_i.
template <typename T>
__global__ void __launch_bounds__(max_threads)
    reduced_solve_kernel(const T* __restrict__ g, const T* __restrict__ rlu,
                         const int* __restrict__ rpiv, Parts P, T* __restrict__ xhat)
{
    extern __shared__ __align__(16) unsigned char smem_raw[];
    T* b = reinterpret_cast<T*>(smem_raw);
    const int m = 2 * P.K, tid = threadIdx.x, i = blockIdx.x;
    const T* lu = rlu + static_cast<std::size_t>(i) * m * m;
    const int* piv = rpiv + static_cast<std::size_t>(i) * m;
    const T* src = g + P.offset(i + 1) - P.K;
    for (int k = tid; k < m; k += blockDim.x) b[k] = src[k];
    __syncthreads();
    if (tid == 0)
        for (int k = 0; k < m; ++k) {
            const T t = b[k];
            b[k] = b[piv[k]];
            b[piv[k]] = t;
        }
    __syncthreads();
    for (int k = 0; k < m; ++k) {
        const T bk = b[k];
        for (int q = k + 1 + tid; q < m; q += blockDim.x) b[q] -= lu[q + k * m] * bk;
        __syncthreads();
    }
    T* x = xhat + static_cast<std::size_t>(i) * m;
    for (int k = m - 1; k >= 0; --k) {
        const T v = b[k] / lu[k + k * m];
        for (int q = tid; q < k; q += blockDim.x) b[q] -= lu[q + k * m] * v;
        if (tid == 0) x[k] = v;
        __syncthreads();
    }
}

template <typename U>
void ensure(device_buffer<U>& buf, std::size_t size)
{
    if (buf.size() != size) buf = device_buffer<U>(size);
}

Parts parts_of(const Partitioning& p) { return {p.n, p.K, p.psize, p.count}; }

unsigned blocks_for(std::size_t work, int threads)
{
    return static_cast<unsigned>((work + threads - 1) / threads);
}

/// The blocks band_lu_kernel would factor (its blocks 0..2p-1, the UL of partition 0 left out
/// with `corner`), for the blocked LU: the same storage, bad-pivot scales and status slots.
template <typename T>
std::vector<detail::BandBlock<T>> lu_blocks(T* fac, T* rev, const T* scale, const Parts& P,
                                            bool corner)
{
    std::vector<detail::BandBlock<T>> blocks;
    const std::size_t ld = P.ld();
    for (int part = 0; part < P.p; ++part)
        blocks.push_back({fac + P.offset(part) * ld, scale + P.offset(part), 1, P.size(part), part,
                          0});
    for (int part = corner ? 1 : 0; part < P.p; ++part) {
        const int skip = corner ? P.size(part) - 2 * P.K : 0;
        const int n = P.size(part) - skip;
        blocks.push_back({rev + (P.offset(part) + skip) * ld, scale + P.offset(part) + n - 1, -1,
                          n, P.p + part, skip});
    }
    return blocks;
}

/// Times the phases of SpikeSolver::factor with CUDA events and NVTX ranges of the same names
/// when `phases` is given; otherwise records nothing. end() waits for the phase's last event.
class FactorClock {
public:
    FactorClock(std::vector<PhaseTime>* phases, cudaStream_t stream)
        : phases_(phases), stream_(stream)
    {
        if (phases_ == nullptr) return;
        start_.emplace();
        stop_.emplace();
    }
    void begin(const char* name)
    {
        if (phases_ == nullptr) return;
        name_ = name;
        nvtxRangePushA(name);
        start_->record(stream_);
    }
    void end()
    {
        if (phases_ == nullptr) return;
        stop_->record(stream_);
        nvtxRangePop();
        stop_->synchronize();
        detail::add_phase(*phases_, name_, "setup", stop_->seconds_since(*start_));
    }

private:
    std::vector<PhaseTime>* phases_;
    cudaStream_t stream_;
    const char* name_ = "";
    std::optional<cuda_event> start_, stop_;
};

}  // namespace

template <typename T>
SpikeStatus SpikeSolver<T>::factor(const BandMatrix<T>& a, index_type psize, cudaStream_t stream,
                                   SpikeTips tips, std::vector<PhaseTime>* phases)
{
    factored_ = false;
    const Partitioning part = make_partitioning(a.n, a.K, psize);
    const std::size_t ld = a.ldab(), n = a.n, K = a.K, p = part.count;
    if (a.ab.size() != ld * n)
        throw std::invalid_argument("spike: band storage has " + std::to_string(a.ab.size()) +
                                    " entries, expected n (2K+1) = " + std::to_string(ld * n));
    if (a.K > max_threads)  // band_solve_kernel gives each of the K row offsets a thread
        throw std::invalid_argument("spike: K = " + std::to_string(a.K) +
                                    ", the GPU solver supports K <= " +
                                    std::to_string(max_threads));
    part_ = part;
    const Parts P = parts_of(part);
    ensure(fac_, ld * n);
    ensure(rev_, ld * n);
    ensure(scale_, n);
    ensure(g_, n);
    ensure(vtip_, (p - 1) * K * K);
    ensure(wtip_, (p - 1) * K * K);
    ensure(rlu_, (p - 1) * 4 * K * K);
    ensure(rpiv_, (p - 1) * 2 * K);
    ensure(xhat_, (p - 1) * 2 * K);
    ensure(status_, 3 * p);
    FactorClock clock(phases, stream);
    cuda_event up0, up1;
    up0.record(stream);
    KBENCH_CUDA_CHECK(cudaMemcpyAsync(fac_.data(), a.ab.data(), fac_.bytes(),
                                      cudaMemcpyHostToDevice, stream));
    up1.record(stream);
    KBENCH_CUDA_CHECK(cudaMemsetAsync(status_.data(), 0xFF, status_.bytes(), stream));
    clock.begin("LU/UL");
    row_scale_kernel<T><<<blocks_for(n, max_threads), max_threads, 0, stream>>>(fac_.data(), P,
                                                                                scale_.data());
    KBENCH_CUDA_CHECK_LAUNCH();
    reverse_kernel<T><<<blocks_for(ld * n, max_threads), max_threads, 0, stream>>>(
        fac_.data(), P, rev_.data());
    KBENCH_CUDA_CHECK_LAUNCH();
    const bool corner = tips == SpikeTips::corner_ul;
    if (lu_window_in_shared<T>(static_cast<int>(K))) {
        const LuLaunch<T> lu(static_cast<int>(K));
        lu.kernel<<<2 * p, lu.threads, lu.smem, stream>>>(fac_.data(), rev_.data(), scale_.data(),
                                                          P, corner, status_.data());
        KBENCH_CUDA_CHECK_LAUNCH();
    } else {
        if (!blas_) blas_.emplace();
        blocked_lu_.factor(lu_blocks(fac_.data(), rev_.data(), scale_.data(), P, corner), P.K,
                           status_.data(), *blas_, stream);
    }
    clock.end();
    std::vector<int> st(3 * p);
    KBENCH_CUDA_CHECK(cudaMemcpyAsync(st.data(), status_.data(), status_.bytes(),
                                      cudaMemcpyDeviceToHost, stream));
    KBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
    upload_seconds_ = up1.seconds_since(up0);
    const std::vector<int> lu(st.begin(), st.begin() + p), ul(st.begin() + p, st.begin() + 2 * p);
    SpikeStatus s = detail::pick_status(part, lu, ul, {});
    if (!s.ok()) return s;

    clock.begin("spikes");
    const std::size_t tips_smem = tips_values(static_cast<int>(K)) * sizeof(T);
    if (fits_in_shared(reinterpret_cast<const void*>(&tips_kernel<T>), tips_smem)) {
        tips_kernel<T><<<2 * (p - 1), threads_for(K), tips_smem, stream>>>(
            fac_.data(), rev_.data(), P, vtip_.data(), wtip_.data());
        KBENCH_CUDA_CHECK_LAUNCH();
    } else {  // right-hand sides, two batched trsm through the corners, W's rows reversed
        tips_rhs_kernel<T><<<2 * (p - 1), threads_for(K), 0, stream>>>(fac_.data(), P,
                                                                        vtip_.data(), wtip_.data());
        KBENCH_CUDA_CHECK_LAUNCH();
        std::vector<const T*> corners;
        std::vector<T*> rhs;
        for (int t = 0; t + 1 < P.p; ++t) {  // V_t^b through A_t's LU, W_{t+1}^t through A_{t+1}'s UL
            corners.push_back(fac_.data() + P.offset(t) * ld + K + (P.size(t) - K) * ld);
            rhs.push_back(vtip_.data() + t * K * K);
        }
        for (int t = 0; t + 1 < P.p; ++t) {
            corners.push_back(rev_.data() + P.offset(t + 1) * ld + K + (P.size(t + 1) - K) * ld);
            rhs.push_back(wtip_.data() + t * K * K);
        }
        if (!blas_) blas_.emplace();
        detail::batched_corner_solves(corners, rhs, P.K, ptrs_, *blas_, stream);
        tips_reverse_kernel<T><<<p - 1, threads_for(K), 0, stream>>>(P, wtip_.data());
        KBENCH_CUDA_CHECK_LAUNCH();
    }
    clock.end();
    clock.begin("reduced system");
    if (blocked_lu(a.K)) {  // one thread block's pivot steps on 2K x 2K: batched cuBLAS
        if (!blas_) blas_.emplace();
        ensure(rscale_, p - 1);
        ensure(rinfo_, p - 1);
        reduced_build_kernel<T><<<p - 1, reduce_threads, 0, stream>>>(
            vtip_.data(), wtip_.data(), P.K, rlu_.data(), rscale_.data());
        KBENCH_CUDA_CHECK_LAUNCH();
        detail::batched_dense_lu(rlu_.data(), 2 * P.K, P.p - 1, rpiv_.data(), rinfo_.data(), ptrs_,
                                 *blas_, stream);
        reduced_check_kernel<T><<<p - 1, reduce_threads, 0, stream>>>(
            rlu_.data(), rscale_.data(), P.K, rpiv_.data(), status_.data() + 2 * p);
    } else {
        const std::size_t smem = reduced_values(P.K) * sizeof(T);
        const bool in_shared =
            fits_in_shared(reinterpret_cast<const void*>(&reduced_factor_kernel<T>), smem);
        reduced_factor_kernel<T><<<p - 1, reduce_threads, in_shared ? smem : 0, stream>>>(
            vtip_.data(), wtip_.data(), P.K, rlu_.data(), rpiv_.data(), status_.data() + 2 * p,
            in_shared);
    }
    KBENCH_CUDA_CHECK_LAUNCH();
    clock.end();
    std::vector<int> red(p - 1);
    KBENCH_CUDA_CHECK(cudaMemcpyAsync(red.data(), status_.data() + 2 * p, red.size() * sizeof(int),
                                      cudaMemcpyDeviceToHost, stream));
    KBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
    s = detail::pick_status(part, lu, ul, red);
    factored_ = s.ok();
    return s;
}

template <typename T>
bool SpikeSolver<T>::blocked_lu(index_type K)
{
    if (K < 1)
        throw std::invalid_argument("SpikeSolver::blocked_lu: K = " + std::to_string(K) +
                                    ", expected >= 1");
    return !lu_window_in_shared<T>(static_cast<int>(K));
}

template <typename T>
int SpikeSolver<T>::resident_blocks_per_sm(index_type K)
{
    if (K < 1)
        throw std::invalid_argument("SpikeSolver::resident_blocks_per_sm: K = " +
                                    std::to_string(K) + ", expected >= 1");
    // The blocked LU (band_lu_blocked.hpp) runs no block per partition: the solve limits.
    const LuLaunch<T> lul(static_cast<int>(K));
    const int lu = lu_window_in_shared<T>(static_cast<int>(K))
                       ? resident_blocks(reinterpret_cast<const void*>(lul.kernel), lul.threads,
                                         lul.smem)
                       : std::numeric_limits<int>::max();
    const SolveLaunch<T, T, T, false> sl(static_cast<int>(K));
    const int solve = resident_blocks(reinterpret_cast<const void*>(sl.kernel), sl.threads,
                                      sl.smem);
    int device = 0, sms = 0;
    KBENCH_CUDA_CHECK(cudaGetDevice(&device));
    KBENCH_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    return std::max(1, std::min(lu, solve) / std::max(sms, 1));
}

namespace {

/// x[e] for e < count: `diag` where e % ld == row, else amp u with u in [-1, 1) deterministic
/// in e. A band (ld 2K + 1, row K, diag 2 ld, amp 1) is then row dominant: no bad pivot.
template <typename T>
__global__ void __launch_bounds__(max_threads)
    fill_kernel(T* __restrict__ x, std::size_t count, int ld, int row, T diag, T amp)
{
    const std::size_t e = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (e >= count) return;
    const unsigned h = static_cast<unsigned>(e) * 2654435761u;
    x[e] = static_cast<int>(e % ld) == row ? diag : amp * T((h >> 8) * (2.0 / 16777216.0) - 1.0);
}

/// Median seconds of 3 runs of `launch` (CUDA events on `stream`), `before` run untimed first.
template <typename Before, typename Launch>
double median_of_3(cudaStream_t stream, Before before, Launch launch)
{
    double t[3];
    for (double& v : t) {
        before();
        cuda_event a, b;
        a.record(stream);
        launch();
        b.record(stream);
        b.synchronize();
        v = b.seconds_since(a);
    }
    std::sort(t, t + 3);
    return t[1];
}

}  // namespace

template <typename T>
StepSeconds SpikeSolver<T>::step_seconds(index_type K)
{
    if (K < 1 || K > max_threads)
        throw std::invalid_argument("SpikeSolver::step_seconds: K = " + std::to_string(K) +
                                    ", expected 1 <= K <= " + std::to_string(max_threads));
    static std::map<index_type, StepSeconds> measured;
    if (const auto it = measured.find(K); it != measured.end()) return it->second;
    constexpr int short_rows = 256, long_rows = 1280;
    cuda_stream stream;
    const int k = static_cast<int>(K), ld = 2 * k + 1;
    // Seconds of `kernel` on `blocks` partitions of `rows` rows each (fresh band before each run).
    auto time_rows = [&](int blocks, int rows, auto launch) {
        const Parts P{blocks * rows, k, rows, blocks};
        const std::size_t count = static_cast<std::size_t>(ld) * P.n;
        device_buffer<T> ab(count), rhs(static_cast<std::size_t>(P.n)),
            out(static_cast<std::size_t>(P.n)), scale(static_cast<std::size_t>(P.n));
        device_buffer<int> status(static_cast<std::size_t>(2 * blocks));
        auto fill = [&] {
            fill_kernel<T><<<blocks_for(count, max_threads), max_threads, 0, stream.get()>>>(
                ab.data(), count, ld, k, T(2 * ld), T(1));
            KBENCH_CUDA_CHECK_LAUNCH();
            // The row scales: 2 ld each (ld 1: every entry is a diagonal one).
            fill_kernel<T><<<blocks_for(P.n, max_threads), max_threads, 0, stream.get()>>>(
                scale.data(), P.n, 1, 0, T(2 * ld), T(0));
            KBENCH_CUDA_CHECK_LAUNCH();
            KBENCH_CUDA_CHECK(cudaMemsetAsync(rhs.data(), 0, rhs.bytes(), stream.get()));
        };
        return median_of_3(stream.get(), fill, [&] {
            launch(P, ab.data(), scale.data(), status.data(), rhs.data(), out.data());
            KBENCH_CUDA_CHECK_LAUNCH();
        });
    };
    StepSeconds s;
    if (lu_window_in_shared<T>(k)) {
        const LuLaunch<T> lu(k);
        const int slots = resident_blocks(reinterpret_cast<const void*>(lu.kernel), lu.threads,
                                          lu.smem);  // on the whole device
        auto run = [&](const Parts& P, T* ab, T* scale, int* status, T*, T*) {
            lu.kernel<<<P.p, lu.threads, lu.smem, stream.get()>>>(ab, ab, scale, P, false, status);
        };
        s.lu_pivot = (time_rows(slots, long_rows, run) - time_rows(slots, short_rows, run)) /
                     (long_rows - short_rows);
    }
    const SolveLaunch<T, T, T, false> sl(k);
    const int slots =
        resident_blocks(reinterpret_cast<const void*>(sl.kernel), sl.threads, sl.smem);
    auto run = [&](const Parts& P, T* ab, T*, int*, T* rhs, T* out) {
        sl.kernel<<<P.p, sl.threads, sl.smem, stream.get()>>>(ab, P, rhs, out, nullptr);
    };
    s.solve_row = (time_rows(slots, long_rows, run) - time_rows(slots, short_rows, run)) /
                  (2.0 * (long_rows - short_rows));
    // The per-interface kernels: one wave of resident blocks and two, the difference.
    const std::size_t KK = static_cast<std::size_t>(k) * k;
    auto wave = [&](auto launch, int slots) {
        const double one = median_of_3(stream.get(), [] {}, [&] { launch(slots); });
        const double two = median_of_3(stream.get(), [] {}, [&] { launch(2 * slots); });
        return std::max(0.0, two - one);
    };
    const std::size_t tips_smem = tips_values(k) * sizeof(T);
    if (fits_in_shared(reinterpret_cast<const void*>(&tips_kernel<T>), tips_smem)) {
        const int threads = threads_for(k);
        const int slots =
            resident_blocks(reinterpret_cast<const void*>(&tips_kernel<T>), threads, tips_smem);
        // slots + 1 partitions of 4K rows: slots V tips (blocks < slots) and slots W tips.
        const Parts P{(slots + 1) * 4 * k, k, 4 * k, slots + 1};
        const std::size_t count = static_cast<std::size_t>(ld) * P.n;
        device_buffer<T> ab(count), vt(slots * KK), wt(slots * KK);
        fill_kernel<T><<<blocks_for(count, max_threads), max_threads, 0, stream.get()>>>(
            ab.data(), count, ld, k, T(2 * ld), T(1));
        KBENCH_CUDA_CHECK_LAUNCH();
        auto launch = [&](int blocks) {
            tips_kernel<T><<<blocks, threads, tips_smem, stream.get()>>>(ab.data(), ab.data(), P,
                                                                         vt.data(), wt.data());
            KBENCH_CUDA_CHECK_LAUNCH();
        };
        s.tips_wave = wave(launch, slots);
        s.tips_slots = slots;
    }
    if (!blocked_lu(K)) {
        const std::size_t smem = reduced_values(k) * sizeof(T);
        const bool in_shared =
            fits_in_shared(reinterpret_cast<const void*>(&reduced_factor_kernel<T>), smem);
        const std::size_t dyn = in_shared ? smem : 0;
        const int slots = resident_blocks(reinterpret_cast<const void*>(&reduced_factor_kernel<T>),
                                          reduce_threads, dyn);
        const std::size_t most = 2 * static_cast<std::size_t>(slots);
        // V and W entries within 0.5 / K: R = [[I, V], [W, I]] is diagonally dominant.
        device_buffer<T> vt(most * KK), wt(most * KK), lu(most * 4 * KK);
        device_buffer<int> piv(most * 2 * k), st(most);
        for (T* x : {vt.data(), wt.data()}) {
            fill_kernel<T><<<blocks_for(most * KK, max_threads), max_threads, 0, stream.get()>>>(
                x, most * KK, 1, -1, T(0), T(0.5) / T(k));
            KBENCH_CUDA_CHECK_LAUNCH();
        }
        auto launch = [&](int blocks) {
            reduced_factor_kernel<T><<<blocks, reduce_threads, dyn, stream.get()>>>(
                vt.data(), wt.data(), k, lu.data(), piv.data(), st.data(), in_shared);
            KBENCH_CUDA_CHECK_LAUNCH();
        };
        s.reduced_wave = wave(launch, slots);
        s.reduced_slots = slots;
    }
    if (blocked_lu(K)) {
        // Blocks of 2K and 6K rows take 1 and 5 full block-row steps (and a last getrf each):
        // their difference over 4 is one step over the batch.
        cublas_handle blas;
        detail::BlockedBandLu<T> blocked;
        auto step = [&](int batch) {
            auto factor = [&](const Parts& P, T* ab, T* scale, int* status, T*, T*) {
                std::vector<detail::BandBlock<T>> blocks;
                for (int part = 0; part < P.p; ++part)
                    blocks.push_back({ab + P.offset(part) * static_cast<std::size_t>(ld),
                                      scale + P.offset(part), 1, P.size(part), part, 0});
                blocked.factor(blocks, k, status, blas.get(), stream.get());
            };
            return (time_rows(batch, 6 * k, factor) - time_rows(batch, 2 * k, factor)) / 4.0;
        };
        int device = 0, sms = 0;
        KBENCH_CUDA_CHECK(cudaGetDevice(&device));
        KBENCH_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
        const int small = std::max(1, sms), large = 3 * small;
        const double t_small = step(small), t_large = step(large);
        s.blocked_per_block = std::max(0.0, (t_large - t_small) / (large - small));
        s.blocked_fixed = std::max(0.0, t_small - small * s.blocked_per_block);
    }
    s.lu_pivot = std::max(0.0, s.lu_pivot);
    s.solve_row = std::max(0.0, s.solve_row);
    measured[K] = s;
    return s;
}

template <typename T>
template <typename In, typename Out>
void SpikeSolver<T>::apply_impl(const In* r, Out* z, cudaStream_t stream)
{
    if (!factored_) throw std::logic_error("SpikeSolver::apply: no successful factor()");
    const Parts P = parts_of(part_);
    const unsigned p = static_cast<unsigned>(P.p);
    const SolveLaunch<T, In, T, false> first(P.K);
    first.kernel<<<p, first.threads, first.smem, stream>>>(fac_.data(), P, r, g_.data(), nullptr);
    KBENCH_CUDA_CHECK_LAUNCH();
    reduced_solve_kernel<T><<<p - 1, threads_for(2 * P.K), 2 * P.K * sizeof(T), stream>>>(
        g_.data(), rlu_.data(), rpiv_.data(), P, xhat_.data());
    KBENCH_CUDA_CHECK_LAUNCH();
    const SolveLaunch<T, In, Out, true> second(P.K);
    second.kernel<<<p, second.threads, second.smem, stream>>>(fac_.data(), P, r, z,
                                                               xhat_.data());
    KBENCH_CUDA_CHECK_LAUNCH();
}

template <typename T>
void SpikeSolver<T>::apply(const T* r, T* z, cudaStream_t stream)
{
    apply_impl(r, z, stream);
}

template <typename T>
void SpikeSolver<T>::apply_mixed(const double* r, double* z, cudaStream_t stream)
{
    apply_impl(r, z, stream);
}

template class SpikeSolver<float>;
template class SpikeSolver<double>;

}  // namespace kbench::solvers::spike
