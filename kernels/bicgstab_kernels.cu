// Merged BiCGSTAB vector kernels (anzt2015 Sec. 3.3, Fig. 2, Table 1). Declarations and the
// contract in kernels/bicgstab_kernels.hpp.
//
// Design:
// * Grid: blocks of 256 threads (anzt2015 Sec. 4.1), one block per 256 elements up to one
//   full-occupancy wave (8 blocks per SM; the SM count is queried once per device and cached),
//   at most max_blocks; grid-stride loops cover the rest.
// * Reductions in one launch: each block sums its elements' products in double (fixed order:
//   grid-stride order per thread, then reduce::block_sum), thread 0 writes the block's partial
//   sums to the workspace, makes them visible (__threadfence) and takes a ticket from the
//   workspace's launch counter (atomicInc wrapping at gridDim.x - 1, so the last ticket resets
//   the counter to 0 for the next launch). The block that draws the last ticket sums all partials
//   in block order (thread j: partials j, j + 256, ...; then block_sum), and its thread 0 applies
//   detail::finish_* to *sc. The order depends on n and the grid only, never on which block
//   finishes last: the result is deterministic. A one-block grid skips the workspace.
// * Element arithmetic uses explicit fused multiply-adds (__fma_rn) in a fixed order, as the
//   references do with std::fma, so the updated vectors are the same bits on both sides.
#include "kernels/bicgstab_kernels.hpp"

#include "kernels/base/cuda_check.hpp"
#include "kernels/base/nvtx.hpp"
#include "kernels/block_reduce.cuh"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace kbench::bicgstab {
namespace {

constexpr int block_size = 256;
constexpr int blocks_per_sm = 2048 / block_size;  // one full-occupancy wave on sm_80 / sm_90
constexpr std::int64_t max_blocks = 2048;         // grid bound (and workspace bound)
constexpr int max_dots = 3;                       // omega_dot: ts, tt, ss
constexpr std::size_t partials_offset = 256;      // counter first, partials 256-byte aligned
constexpr std::size_t ws_alignment = 16;

/// Blocks needed to give every thread at most one element, within [1, max_blocks].
std::int64_t blocks_needed(std::int64_t n)
{
    const std::int64_t blocks = n / block_size + (n % block_size != 0 ? 1 : 0);
    return std::clamp<std::int64_t>(blocks, 1, max_blocks);
}

/// SM count of the current device, queried once per device and cached.
int sm_count()
{
    int device = 0;
    KBENCH_CUDA_CHECK(cudaGetDevice(&device));
    static std::array<std::atomic<int>, 64> cache{};  // 0: not queried yet
    if (device >= 0 && device < static_cast<int>(cache.size())) {
        const int cached = cache[device].load(std::memory_order_relaxed);
        if (cached > 0) return cached;
    }
    int sms = 0;
    KBENCH_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    sms = std::max(sms, 1);
    if (device >= 0 && device < static_cast<int>(cache.size()))
        cache[device].store(sms, std::memory_order_relaxed);
    return sms;
}

unsigned grid_for(std::int64_t n)
{
    const std::int64_t wave = std::int64_t{sm_count()} * blocks_per_sm;
    return static_cast<unsigned>(std::min(blocks_needed(n), wave));
}

/// Validates the workspace of a reducing launcher (before any CUDA call).
void check_workspace(const char* function, std::int64_t n, const void* ws, std::size_t ws_bytes)
{
    const std::size_t needed = workspace_bytes(n);
    const std::string where = std::string{function} + ": parameter ";
    if (ws_bytes < needed)
        throw std::invalid_argument(where + "'ws_bytes' is " + std::to_string(ws_bytes) +
                                    ", expected at least workspace_bytes(n) = " +
                                    std::to_string(needed) + " for n = " + std::to_string(n));
    if (needed > 0 && ws == nullptr)
        throw std::invalid_argument(where + "'ws' is null, expected a device workspace of " +
                                    std::to_string(needed) + " bytes for n = " +
                                    std::to_string(n));
    if (needed > 0 && reinterpret_cast<std::uintptr_t>(ws) % ws_alignment != 0)
        throw std::invalid_argument(where + "'ws' is misaligned, expected an address aligned to " +
                                    std::to_string(ws_alignment) + " bytes");
}

/// The workspace's launch counter and partial sums (null when one block covers n).
struct Workspace {
    unsigned int* counter = nullptr;
    double* partials = nullptr;  // max_dots x gridDim.x, value-major
};

Workspace workspace_of(std::int64_t n, void* ws)
{
    if (workspace_bytes(n) == 0) return {};
    return {static_cast<unsigned int*>(ws),
            reinterpret_cast<double*>(static_cast<char*>(ws) + partials_offset)};
}

__device__ __forceinline__ float fma_rn(float a, float b, float c) { return __fmaf_rn(a, b, c); }
__device__ __forceinline__ double fma_rn(double a, double b, double c) { return __fma_rn(a, b, c); }

/// acc += a * b in double, one rounding.
template <typename T>
__device__ __forceinline__ void add_product(double& acc, T a, T b)
{
    acc = __fma_rn(static_cast<double>(a), static_cast<double>(b), acc);
}

__device__ __forceinline__ std::int64_t first_index()
{
    return std::int64_t{blockIdx.x} * block_size + threadIdx.x;
}
__device__ __forceinline__ std::int64_t grid_stride()
{
    return std::int64_t{gridDim.x} * block_size;
}

/// Sums acc[0..K) over the grid. Returns true in exactly one thread of the grid (thread 0 of the
/// block that finishes last, or of the only block), which then holds the grid's sums in acc.
/// Every thread of every block must call it.
template <int K>
__device__ __forceinline__ bool grid_sum(double (&acc)[K], Workspace ws)
{
    __shared__ double smem[K * block_size / 32];
    __shared__ bool is_last;
    reduce::block_sum<double, K, block_size>(acc, smem);
    if (gridDim.x == 1) return threadIdx.x == 0;
    if (threadIdx.x == 0) {
#pragma unroll
        for (int j = 0; j < K; ++j) ws.partials[j * gridDim.x + blockIdx.x] = acc[j];
        __threadfence();  // the partials are visible device-wide before the ticket is taken
        is_last = atomicInc(ws.counter, gridDim.x - 1) == gridDim.x - 1;  // last one wraps to 0
    }
    __syncthreads();
    if (!is_last) return false;  // uniform over the block
    __threadfence();
#pragma unroll
    for (int j = 0; j < K; ++j) acc[j] = 0.0;
    for (unsigned b = threadIdx.x; b < gridDim.x; b += block_size) {
#pragma unroll
        for (int j = 0; j < K; ++j) acc[j] += __ldcg(ws.partials + j * gridDim.x + b);
    }
    reduce::block_sum<double, K, block_size>(acc, smem);
    return threadIdx.x == 0;
}

template <typename T>
__global__ void __launch_bounds__(block_size)
    init_kernel(std::int64_t n, const T* __restrict__ r, T* __restrict__ r_hat, T* __restrict__ p,
                T* __restrict__ v, DeviceScalars<T>* __restrict__ sc, Workspace ws)
{
    double acc[1] = {0.0};
    for (std::int64_t i = first_index(); i < n; i += grid_stride()) {
        const T ri = r[i];
        r_hat[i] = ri;
        p[i] = T(0);
        v[i] = T(0);
        add_product(acc[0], ri, ri);
    }
    if (grid_sum(acc, ws)) detail::finish_init(*sc, acc[0]);
}

template <typename T>
__global__ void __launch_bounds__(block_size)
    p_update_kernel(std::int64_t n, const T* __restrict__ r, const T* __restrict__ v,
                    T* __restrict__ p, const DeviceScalars<T>* __restrict__ sc)
{
    const T beta = (sc->rho / sc->rho_old) * (sc->alpha / sc->omega);
    const T omega = sc->omega;
    for (std::int64_t i = first_index(); i < n; i += grid_stride())
        p[i] = fma_rn(beta, fma_rn(-omega, v[i], p[i]), r[i]);
}

template <typename T>
__global__ void __launch_bounds__(block_size)
    alpha_dot_kernel(std::int64_t n, const T* __restrict__ r_hat, const T* __restrict__ v,
                     DeviceScalars<T>* __restrict__ sc, Workspace ws)
{
    double acc[1] = {0.0};
    for (std::int64_t i = first_index(); i < n; i += grid_stride())
        add_product(acc[0], r_hat[i], v[i]);
    if (grid_sum(acc, ws)) detail::finish_alpha(*sc, acc[0]);
}

template <typename T>
__global__ void __launch_bounds__(block_size)
    s_update_kernel(std::int64_t n, const T* __restrict__ r, const T* __restrict__ v,
                    T* __restrict__ s, const DeviceScalars<T>* __restrict__ sc)
{
    const T alpha = sc->alpha;
    for (std::int64_t i = first_index(); i < n; i += grid_stride())
        s[i] = fma_rn(-alpha, v[i], r[i]);
}

template <typename T>
__global__ void __launch_bounds__(block_size)
    omega_dot_kernel(std::int64_t n, const T* __restrict__ t, const T* __restrict__ s,
                     DeviceScalars<T>* __restrict__ sc, Workspace ws)
{
    double acc[3] = {0.0, 0.0, 0.0};  // ts, tt, ss
    for (std::int64_t i = first_index(); i < n; i += grid_stride()) {
        const T ti = t[i], si = s[i];
        add_product(acc[0], ti, si);
        add_product(acc[1], ti, ti);
        add_product(acc[2], si, si);
    }
    if (grid_sum(acc, ws)) detail::finish_omega(*sc, acc[0], acc[1], acc[2]);
}

template <typename T>
__global__ void __launch_bounds__(block_size)
    xr_update_kernel(std::int64_t n, const T* __restrict__ r_hat, const T* __restrict__ p,
                     const T* __restrict__ s, const T* __restrict__ t, T* __restrict__ x,
                     T* __restrict__ r, DeviceScalars<T>* __restrict__ sc, Workspace ws)
{
    // finish_xr (last block, after every other block's ticket) changes rho_old, rho, rr and the
    // status only, never alpha or omega: no block can read a half-updated *sc.
    const T alpha = sc->alpha, omega = sc->omega;
    double acc[2] = {0.0, 0.0};  // r_hat . r, r . r
    for (std::int64_t i = first_index(); i < n; i += grid_stride()) {
        const T si = s[i];
        x[i] = fma_rn(omega, si, fma_rn(alpha, p[i], x[i]));
        const T ri = fma_rn(-omega, t[i], si);
        r[i] = ri;
        add_product(acc[0], r_hat[i], ri);
        add_product(acc[1], ri, ri);
    }
    if (grid_sum(acc, ws)) detail::finish_xr(*sc, acc[0], acc[1]);
}

}  // namespace

std::size_t workspace_bytes(std::int64_t n)
{
    if (n < 0)
        throw std::invalid_argument("kbench::bicgstab::workspace_bytes: parameter 'n' is " +
                                    std::to_string(n) + ", expected n >= 0");
    const std::int64_t blocks = blocks_needed(n);
    if (blocks == 1) return 0;
    return partials_offset + std::size_t(max_dots) * std::size_t(blocks) * sizeof(double);
}

template <typename T>
void init(std::int64_t n, const T* r, T* r_hat, T* p, T* v, DeviceScalars<T>* sc, void* ws,
          std::size_t ws_bytes, cudaStream_t s)
{
    KBENCH_NVTX_RANGE("bicgstab::init");
    detail::check_arguments("kbench::bicgstab::init", n,
                            {{"r", r}, {"r_hat", r_hat}, {"p", p}, {"v", v}}, sc);
    check_workspace("kbench::bicgstab::init", n, ws, ws_bytes);
    const Workspace w = workspace_of(n, ws);
    if (w.counter != nullptr)
        KBENCH_CUDA_CHECK(cudaMemsetAsync(w.counter, 0, sizeof(unsigned int), s));
    init_kernel<T><<<grid_for(n), block_size, 0, s>>>(n, r, r_hat, p, v, sc, w);
    KBENCH_CUDA_CHECK_LAUNCH();
}

template <typename T>
void p_update(std::int64_t n, const T* r, const T* v, T* p, const DeviceScalars<T>* sc,
              cudaStream_t s)
{
    KBENCH_NVTX_RANGE("bicgstab::p_update");
    detail::check_arguments("kbench::bicgstab::p_update", n, {{"r", r}, {"v", v}, {"p", p}}, sc);
    if (n == 0) return;
    p_update_kernel<T><<<grid_for(n), block_size, 0, s>>>(n, r, v, p, sc);
    KBENCH_CUDA_CHECK_LAUNCH();
}

template <typename T>
void alpha_dot(std::int64_t n, const T* r_hat, const T* v, DeviceScalars<T>* sc, void* ws,
               std::size_t ws_bytes, cudaStream_t s)
{
    KBENCH_NVTX_RANGE("bicgstab::alpha_dot");
    detail::check_arguments("kbench::bicgstab::alpha_dot", n, {{"r_hat", r_hat}, {"v", v}}, sc);
    check_workspace("kbench::bicgstab::alpha_dot", n, ws, ws_bytes);
    alpha_dot_kernel<T><<<grid_for(n), block_size, 0, s>>>(n, r_hat, v, sc, workspace_of(n, ws));
    KBENCH_CUDA_CHECK_LAUNCH();
}

template <typename T>
void s_update(std::int64_t n, const T* r, const T* v, T* s_vec, const DeviceScalars<T>* sc,
              cudaStream_t s)
{
    KBENCH_NVTX_RANGE("bicgstab::s_update");
    detail::check_arguments("kbench::bicgstab::s_update", n,
                            {{"r", r}, {"v", v}, {"s_vec", s_vec}}, sc);
    if (n == 0) return;
    s_update_kernel<T><<<grid_for(n), block_size, 0, s>>>(n, r, v, s_vec, sc);
    KBENCH_CUDA_CHECK_LAUNCH();
}

template <typename T>
void omega_dot(std::int64_t n, const T* t, const T* s_vec, DeviceScalars<T>* sc, void* ws,
               std::size_t ws_bytes, cudaStream_t s)
{
    KBENCH_NVTX_RANGE("bicgstab::omega_dot");
    detail::check_arguments("kbench::bicgstab::omega_dot", n, {{"t", t}, {"s_vec", s_vec}}, sc);
    check_workspace("kbench::bicgstab::omega_dot", n, ws, ws_bytes);
    omega_dot_kernel<T><<<grid_for(n), block_size, 0, s>>>(n, t, s_vec, sc, workspace_of(n, ws));
    KBENCH_CUDA_CHECK_LAUNCH();
}

template <typename T>
void xr_update(std::int64_t n, const T* r_hat, const T* p, const T* s_vec, const T* t, T* x, T* r,
               DeviceScalars<T>* sc, void* ws, std::size_t ws_bytes, cudaStream_t s)
{
    KBENCH_NVTX_RANGE("bicgstab::xr_update");
    detail::check_arguments(
        "kbench::bicgstab::xr_update", n,
        {{"r_hat", r_hat}, {"p", p}, {"s_vec", s_vec}, {"t", t}, {"x", x}, {"r", r}}, sc);
    check_workspace("kbench::bicgstab::xr_update", n, ws, ws_bytes);
    xr_update_kernel<T><<<grid_for(n), block_size, 0, s>>>(n, r_hat, p, s_vec, t, x, r, sc,
                                                           workspace_of(n, ws));
    KBENCH_CUDA_CHECK_LAUNCH();
}

#define KBENCH_INSTANTIATE_BICGSTAB(T)                                                            \
    template void init<T>(std::int64_t, const T*, T*, T*, T*, DeviceScalars<T>*, void*,           \
                          std::size_t, cudaStream_t);                                             \
    template void p_update<T>(std::int64_t, const T*, const T*, T*, const DeviceScalars<T>*,      \
                              cudaStream_t);                                                      \
    template void alpha_dot<T>(std::int64_t, const T*, const T*, DeviceScalars<T>*, void*,        \
                               std::size_t, cudaStream_t);                                        \
    template void s_update<T>(std::int64_t, const T*, const T*, T*, const DeviceScalars<T>*,      \
                              cudaStream_t);                                                      \
    template void omega_dot<T>(std::int64_t, const T*, const T*, DeviceScalars<T>*, void*,        \
                               std::size_t, cudaStream_t);                                        \
    template void xr_update<T>(std::int64_t, const T*, const T*, const T*, const T*, T*, T*,      \
                               DeviceScalars<T>*, void*, std::size_t, cudaStream_t)
KBENCH_INSTANTIATE_BICGSTAB(float);
KBENCH_INSTANTIATE_BICGSTAB(double);
#undef KBENCH_INSTANTIATE_BICGSTAB

}  // namespace kbench::bicgstab
