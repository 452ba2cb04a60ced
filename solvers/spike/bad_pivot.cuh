// The bad-pivot test every SPIKE factorization kernel applies (li2012 Sec. 2.2 factors without
// pivoting, so a pivot that vanishes against its row has to be reported, not divided by).
// Device code only: include from .cu files.
#pragma once

#include <cfloat>
#include <climits>
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

/// The first k in [0, n) whose pivot u(k) fails bad_pivot against scale(k), or INT_MAX when none
/// does; called by every thread of a block of Threads threads (a power of two), the result on
/// every thread. `least`: shared memory of Threads ints; the call ends with a barrier.
template <int Threads, typename Pivot, typename Scale>
__device__ int first_bad_pivot(int n, Pivot u, Scale scale, int* least)
{
    int first = INT_MAX;
    for (int k = threadIdx.x; k < n; k += blockDim.x)
        if (bad_pivot(u(k), scale(k))) {
            first = k;
            break;  // this thread's k only grow
        }
    least[threadIdx.x] = first;
    __syncthreads();
    for (int s = Threads / 2; s > 0; s /= 2) {
        if (threadIdx.x < s) least[threadIdx.x] = min(least[threadIdx.x], least[threadIdx.x + s]);
        __syncthreads();
    }
    return least[0];
}

}  // namespace kbench::solvers::spike::detail
