// STREAM-style bandwidth kernels (copy, triad, read-only sum). Declarations in kernels/stream.hpp.
//
// Design for peak DRAM bandwidth: 16-byte vector accesses (float4 / double2) whenever every
// pointer is 16-byte aligned, scalar accesses otherwise; grid-stride loops over a grid of
// blocks_per_sm x SM count blocks (one full-occupancy wave), each thread issuing `unroll`
// independent vector loads before using them; the n % width tail is done by the first threads.
#include "kernels/stream.hpp"

#include "kernels/base/cuda_check.hpp"
#include "kernels/base/nvtx.hpp"

#include <algorithm>
#include <cstdint>

namespace kbench::stream {
namespace {

constexpr int block_size = 256;
constexpr int blocks_per_sm = 2048 / block_size;  // full occupancy on sm_80/sm_90
constexpr int unroll = 4;
constexpr std::size_t max_sum_blocks = 4096;     // bound on read_sum's partial sums

template <typename T> struct vec16;
template <> struct vec16<float> { using type = float4; static constexpr int width = 4; };
template <> struct vec16<double> { using type = double2; static constexpr int width = 2; };

__device__ __forceinline__ float4 fma_vec(float4 a, float s, float4 b)
{
    return {a.x + s * b.x, a.y + s * b.y, a.z + s * b.z, a.w + s * b.w};
}
__device__ __forceinline__ double2 fma_vec(double2 a, double s, double2 b)
{
    return {a.x + s * b.x, a.y + s * b.y};
}
__device__ __forceinline__ float fma_vec(float a, float s, float b) { return a + s * b; }
__device__ __forceinline__ double fma_vec(double a, double s, double b) { return a + s * b; }
__device__ __forceinline__ double vec_sum(float4 v)
{
    return (double(v.x) + double(v.y)) + (double(v.z) + double(v.w));
}
__device__ __forceinline__ double vec_sum(double2 v) { return v.x + v.y; }

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

unsigned grid_for(std::size_t work_items)
{
    int device = 0, sms = 0;
    KBENCH_CUDA_CHECK(cudaGetDevice(&device));
    KBENCH_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    const std::size_t wave = std::size_t(std::max(sms, 1)) * blocks_per_sm;
    const std::size_t needed = (work_items + block_size - 1) / block_size;
    return static_cast<unsigned>(std::max<std::size_t>(1, std::min(wave, needed)));
}

/// Grid-stride loop over `count` items: store(i, load(i)), `unroll` loads issued before use.
template <typename Load, typename Store>
__device__ __forceinline__ void grid_stride(std::size_t count, Load load, Store store)
{
    const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
    std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    for (; i + (unroll - 1) * stride < count; i += unroll * stride) {
        decltype(load(i)) v[unroll];
#pragma unroll
        for (int u = 0; u < unroll; ++u) v[u] = load(i + u * stride);
#pragma unroll
        for (int u = 0; u < unroll; ++u) store(i + u * stride, v[u]);
    }
    for (; i < count; i += stride) store(i, load(i));
}

template <typename V>
__global__ void __launch_bounds__(block_size)
    copy_kernel(const V* __restrict__ a, V* __restrict__ b, std::size_t count)
{
    grid_stride(count, [=](std::size_t i) { return __ldcs(a + i); },
                [=](std::size_t i, V v) { __stcs(b + i, v); });
}

template <typename V, typename T>
__global__ void __launch_bounds__(block_size)
    triad_kernel(const V* __restrict__ a, const V* __restrict__ b, V* __restrict__ c, T scalar,
                 std::size_t count)
{
    struct pair { V a, b; };
    grid_stride(count, [=](std::size_t i) { return pair{__ldcs(a + i), __ldcs(b + i)}; },
                [=](std::size_t i, pair p) { __stcs(c + i, fma_vec(p.a, scalar, p.b)); });
}

/// Scalar tail: elements [first, n) handled by the first threads of block 0.
template <typename T>
__global__ void __launch_bounds__(block_size)
    tail_kernel(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ c, T scalar,
                std::size_t first, std::size_t n)
{
    const std::size_t i = first + threadIdx.x;
    if (i >= n) return;
    c[i] = b == nullptr ? a[i] : a[i] + scalar * b[i];
}

template <typename T> __device__ __forceinline__ double to_acc(T v) { return double(v); }

/// Block-wide sum of per-thread doubles; the result is valid in thread 0.
__device__ __forceinline__ double block_sum(double v)
{
    __shared__ double warp_sums[block_size / 32];
#pragma unroll
    for (int m = 16; m > 0; m /= 2) v += __shfl_xor_sync(0xffffffffu, v, m);
    if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = v;
    __syncthreads();
    v = threadIdx.x < block_size / 32 ? warp_sums[threadIdx.x] : 0.0;
    if (threadIdx.x < 32) {
#pragma unroll
        for (int m = 16; m > 0; m /= 2) v += __shfl_xor_sync(0xffffffffu, v, m);
    }
    return v;
}

/// Per-block partial sums (accumulated in double) of the vector part plus, in block 0, of the
/// scalar elements [tail_first, n).
template <typename T, bool Vectorized>
__global__ void __launch_bounds__(block_size)
    read_sum_kernel(const T* __restrict__ a, std::size_t n, T* __restrict__ partial)
{
    using V = typename vec16<T>::type;
    constexpr int width = Vectorized ? vec16<T>::width : 1;
    const std::size_t count = n / width;
    double acc = 0.0;
    if constexpr (Vectorized) {
        grid_stride(count, [=](std::size_t i) { return __ldcs(reinterpret_cast<const V*>(a) + i); },
                    [&](std::size_t, V v) { acc += vec_sum(v); });
        if (blockIdx.x == 0 && count * width + threadIdx.x < n)
            acc += to_acc(a[count * width + threadIdx.x]);
    } else {
        grid_stride(count, [=](std::size_t i) { return __ldcs(a + i); },
                    [&](std::size_t, T v) { acc += to_acc(v); });
    }
    acc = block_sum(acc);
    if (threadIdx.x == 0) partial[blockIdx.x] = static_cast<T>(acc);
}

/// One block sums `count` partials into *sum (writes 0 when count == 0).
template <typename T>
__global__ void __launch_bounds__(block_size)
    finish_sum_kernel(const T* __restrict__ partial, std::size_t count, T* __restrict__ sum)
{
    double acc = 0.0;
    for (std::size_t i = threadIdx.x; i < count; i += block_size) acc += to_acc(partial[i]);
    acc = block_sum(acc);
    if (threadIdx.x == 0) *sum = static_cast<T>(acc);
}

std::size_t sum_blocks(std::size_t n)
{
    return std::min(max_sum_blocks, (n + block_size - 1) / block_size);
}

}  // namespace

std::size_t read_workspace_size(std::size_t n) { return sum_blocks(n); }

template <typename T>
void copy(const T* a, T* b, std::size_t n, cudaStream_t stream)
{
    KBENCH_NVTX_RANGE("stream::copy");
    if (n == 0) return;
    using V = typename vec16<T>::type;
    constexpr int w = vec16<T>::width;
    if (aligned16(a) && aligned16(b)) {
        const std::size_t count = n / w;
        if (count > 0) {
            copy_kernel<V><<<grid_for(count), block_size, 0, stream>>>(
                reinterpret_cast<const V*>(a), reinterpret_cast<V*>(b), count);
            KBENCH_CUDA_CHECK_LAUNCH();
        }
        if (count * w < n) {  // at most w - 1 < block_size elements
            tail_kernel<T><<<1, block_size, 0, stream>>>(a, nullptr, b, T{0}, count * w, n);
            KBENCH_CUDA_CHECK_LAUNCH();
        }
        return;
    }
    copy_kernel<T><<<grid_for(n), block_size, 0, stream>>>(a, b, n);  // misaligned: scalar
    KBENCH_CUDA_CHECK_LAUNCH();
}

template <typename T>
void triad(const T* a, const T* b, T* c, T scalar, std::size_t n, cudaStream_t stream)
{
    KBENCH_NVTX_RANGE("stream::triad");
    if (n == 0) return;
    using V = typename vec16<T>::type;
    constexpr int w = vec16<T>::width;
    if (aligned16(a) && aligned16(b) && aligned16(c)) {
        const std::size_t count = n / w;
        if (count > 0) {
            triad_kernel<V, T><<<grid_for(count), block_size, 0, stream>>>(
                reinterpret_cast<const V*>(a), reinterpret_cast<const V*>(b),
                reinterpret_cast<V*>(c), scalar, count);
            KBENCH_CUDA_CHECK_LAUNCH();
        }
        if (count * w < n) {
            tail_kernel<T><<<1, block_size, 0, stream>>>(a, b, c, scalar, count * w, n);
            KBENCH_CUDA_CHECK_LAUNCH();
        }
        return;
    }
    // Misaligned: a scalar grid-stride loop (the vector type of width 1 is T itself).
    triad_kernel<T, T><<<grid_for(n), block_size, 0, stream>>>(a, b, c, scalar, n);
    KBENCH_CUDA_CHECK_LAUNCH();
}

template <typename T>
void read_sum(const T* a, std::size_t n, T* sum, T* workspace, cudaStream_t stream)
{
    KBENCH_NVTX_RANGE("stream::read_sum");
    const std::size_t blocks = std::min<std::size_t>(sum_blocks(n), grid_for(n));
    if (blocks > 0) {
        if (aligned16(a)) {
            read_sum_kernel<T, true><<<static_cast<unsigned>(blocks), block_size, 0, stream>>>(
                a, n, workspace);
        } else {
            read_sum_kernel<T, false><<<static_cast<unsigned>(blocks), block_size, 0, stream>>>(
                a, n, workspace);
        }
        KBENCH_CUDA_CHECK_LAUNCH();
    }
    finish_sum_kernel<T><<<1, block_size, 0, stream>>>(workspace, blocks, sum);
    KBENCH_CUDA_CHECK_LAUNCH();
}

#define KBENCH_INSTANTIATE_STREAM(T)                                                  \
    template void copy<T>(const T*, T*, std::size_t, cudaStream_t);                   \
    template void triad<T>(const T*, const T*, T*, T, std::size_t, cudaStream_t);     \
    template void read_sum<T>(const T*, std::size_t, T*, T*, cudaStream_t)
KBENCH_INSTANTIATE_STREAM(float);
KBENCH_INSTANTIATE_STREAM(double);
#undef KBENCH_INSTANTIATE_STREAM

}  // namespace kbench::stream
