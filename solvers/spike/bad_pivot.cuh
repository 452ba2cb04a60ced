// The bad-pivot test every SPIKE factorization kernel applies (li2012 Sec. 2.2 factors without
// pivoting, so a pivot that vanishes against its row has to be reported, not divided by).
// Device code only: include from .cu files.
#pragma once

#include <cfloat>
#include <cmath>

namespace kbench::solvers::spike::detail {

template <typename T>
struct Eps;
template <>
struct Eps<float> {
    static constexpr float value = FLT_EPSILON;
};
template <>
struct Eps<double> {
    static constexpr double value = DBL_EPSILON;
};

/// Whether pivot u is unusable: not finite, or |u| <= machine epsilon x `scale` (the largest
/// |entry| of its row in A, or of the whole reduced block).
template <typename T>
__device__ inline bool bad_pivot(T u, T scale)
{
    return !isfinite(u) || fabs(u) <= Eps<T>::value * scale;
}

}  // namespace kbench::solvers::spike::detail
