// Deterministic block-wide sums of K values per thread, for the two-stage reductions of the dot
// kernels (kernels/dot.hpp) and the fused BiCGSTAB kernels (kernels/bicgstab_kernels.hpp).
// Device code only: include from .cu files.
//
// Determinism: every sum is taken in a fixed order that depends only on the launch shape (warp
// butterflies, then the warps' totals in warp order), never on timing; with the same grid and
// the same input the result has the same bits (anzt2015 Sec. 3.2's reduction, kbench variant).
#pragma once

#include <cuda_runtime.h>

namespace kbench::reduce {

/// Sums v[0..K) over the calling warp (full warp, all lanes active); every lane gets the sums.
template <typename T, int K>
__device__ __forceinline__ void warp_sum(T (&v)[K])
{
#pragma unroll
    for (int m = 16; m > 0; m /= 2) {
#pragma unroll
        for (int j = 0; j < K; ++j) v[j] += __shfl_xor_sync(0xffffffffu, v[j], m);
    }
}

/// Sums v[0..K) over a block of BlockSize threads (a multiple of 32, at most 1024, every thread
/// calling). On return thread 0 holds the block sums in v; other threads hold partial values.
/// `smem` is shared memory of at least K * BlockSize / 32 elements; the call starts with no
/// barrier and ends with one, so `smem` may be reused afterwards.
template <typename T, int K, int BlockSize>
__device__ __forceinline__ void block_sum(T (&v)[K], T* smem)
{
    static_assert(BlockSize % 32 == 0 && BlockSize <= 1024, "BlockSize: multiple of 32, <= 1024");
    constexpr int warps = BlockSize / 32;
    warp_sum<T, K>(v);
    const int lane = static_cast<int>(threadIdx.x % 32);
    const int warp = static_cast<int>(threadIdx.x / 32);
    if (lane == 0) {
#pragma unroll
        for (int j = 0; j < K; ++j) smem[j * warps + warp] = v[j];
    }
    __syncthreads();
    if (warp == 0) {
#pragma unroll
        for (int j = 0; j < K; ++j) v[j] = lane < warps ? smem[j * warps + lane] : T{0};
        warp_sum<T, K>(v);
    }
    __syncthreads();
}

}  // namespace kbench::reduce
