// Packs: W consecutive elements of a vector held in registers, loaded by one 16-byte access
// (double2 / float4) or one scalar access, for the streaming reductions of kernels/dot.cu and
// kernels/gram.cu. Device code only: include from .cu files.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace kbench::blas {

/// Whether p allows 16-byte pack loads (host side: the launchers' choice of packs).
inline bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

/// W consecutive elements held in registers.
template <typename T, int W>
struct pack {
    T e[W];
};

/// Elements per 16-byte vector, or 1 for scalar access.
template <typename T, bool Vectorized>
inline constexpr int width = Vectorized ? static_cast<int>(16 / sizeof(T)) : 1;

/// Loads pack number i (elements i*W .. i*W+W-1) of p through the read-only path.
template <int W, typename T>
__device__ __forceinline__ pack<T, W> load_pack(const T* p, std::int64_t i)
{
    if constexpr (W == 1) {
        return {{__ldg(p + i)}};
    } else if constexpr (W == 2) {
        static_assert(sizeof(T) == 8, "width 2 is double2");
        const double2 v = __ldg(reinterpret_cast<const double2*>(p) + i);
        return {{v.x, v.y}};
    } else {
        static_assert(W == 4 && sizeof(T) == 4, "width 4 is float4");
        const float4 v = __ldg(reinterpret_cast<const float4*>(p) + i);
        return {{v.x, v.y, v.z, v.w}};
    }
}

/// acc += a . b over the W lanes, lane 0 first.
template <typename T, int W>
__device__ __forceinline__ void accumulate(T& acc, const pack<T, W>& a, const pack<T, W>& b)
{
#pragma unroll
    for (int e = 0; e < W; ++e) acc += a.e[e] * b.e[e];
}

}  // namespace kbench::blas
