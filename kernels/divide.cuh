// Correctly rounded division by a reciprocal computed ahead (device code), shared by the
// sequential substitutions (kernels/tall_skinny.cu's trsm, solvers/spike's band solve) whose
// chains cannot afford the division's slow-path call.
#pragma once

#include <cmath>

namespace kbench {

/// s / d correctly rounded, given inv = RN(1 / d), without the call to the division slow path
/// that `s / d` compiles to (a call inside the unrolled substitution spills the whole row):
/// q = RN(s inv) is within 1 ulp of s / d, r = s - q d is exact (FMA), and RN(q + r inv) is
/// RN(s / d) (Markstein's theorem) unless s / d or r over- or underflows. d = 0 gives inf/NaN.
template <typename T>
__device__ __forceinline__ T divide(T s, T d, T inv)
{
    const T q = s * inv;
    const T r = std::fma(-q, d, s);
    return std::fma(r, inv, q);
}

}  // namespace kbench
