// CPU reference twins of the STREAM kernels (kernels/stream.hpp).
#include "kernels/stream.hpp"

namespace kbench::stream::reference {
namespace {

/// Pairwise (cascade) sum in double of a[0, n): error O(log n * eps) instead of O(n * eps).
template <typename T>
double pairwise_sum(const T* a, std::size_t n)
{
    constexpr std::size_t leaf = 64;
    if (n <= leaf) {
        double s = 0.0;
        for (std::size_t i = 0; i < n; ++i) s += double(a[i]);
        return s;
    }
    const std::size_t half = n / 2;
    return pairwise_sum(a, half) + pairwise_sum(a + half, n - half);
}

}  // namespace

template <typename T>
void copy(const T* a, T* b, std::size_t n)
{
    for (std::size_t i = 0; i < n; ++i) b[i] = a[i];
}

template <typename T>
void triad(const T* a, const T* b, T* c, T scalar, std::size_t n)
{
    for (std::size_t i = 0; i < n; ++i) c[i] = a[i] + scalar * b[i];
}

template <typename T>
void read_sum(const T* a, std::size_t n, T* sum)
{
    *sum = static_cast<T>(pairwise_sum(a, n));
}

#define KBENCH_INSTANTIATE_STREAM_REF(T)                            \
    template void copy<T>(const T*, T*, std::size_t);               \
    template void triad<T>(const T*, const T*, T*, T, std::size_t); \
    template void read_sum<T>(const T*, std::size_t, T*)
KBENCH_INSTANTIATE_STREAM_REF(float);
KBENCH_INSTANTIATE_STREAM_REF(double);
#undef KBENCH_INSTANTIATE_STREAM_REF

}  // namespace kbench::stream::reference
