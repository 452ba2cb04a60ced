// CPU reference twins of the dot-product kernels (kernels/dot.hpp): plain loops, each product
// summed in long double in index order and rounded once to T. On x86-64 long double has a
// 64-bit significand, so for double inputs the sum carries 11 more bits than the GPU's and its
// own rounding error (<= n * 2^-64 relative to sum |x_i y_i|) is negligible next to the GPU's.
#include "kernels/dot.hpp"

namespace kbench::blas::reference {
namespace {

/// sum_{i < n} a[i] * b[i] in long double, in index order.
template <typename T>
long double dot_long(std::int64_t n, const T* a, const T* b)
{
    long double sum = 0.0L;
    for (std::int64_t i = 0; i < n; ++i) {
        sum += static_cast<long double>(a[i]) * static_cast<long double>(b[i]);
    }
    return sum;
}

}  // namespace

template <typename T>
void dot(std::int64_t n, const T* x, const T* y, T* result)
{
    detail::check_dot_args("kbench::blas::reference::dot", n, x, y, result);
    *result = static_cast<T>(dot_long(n, x, y));
}

template <typename T>
void mdot(std::int64_t n, int k, const T* const* x, const T* const* y, T* result)
{
    detail::check_mdot_args("kbench::blas::reference::mdot", n, k, x, y, result);
    for (int i = 0; i < k; ++i) {
        result[i] = n == 0 ? T{0} : static_cast<T>(dot_long(n, x[i], y[i]));
    }
}

template <typename T>
void mdgm(std::int64_t n, int k, const T* V, std::int64_t ld, const T* y, T* result)
{
    detail::check_mdgm_args("kbench::blas::reference::mdgm", n, k, V, ld, y, result);
    for (int j = 0; j < k; ++j) {
        result[j] = n == 0 ? T{0} : static_cast<T>(dot_long(n, V + j * ld, y));
    }
}

#define KBENCH_INSTANTIATE_DOT_REF(T)                                                  \
    template void dot<T>(std::int64_t, const T*, const T*, T*);                        \
    template void mdot<T>(std::int64_t, int, const T* const*, const T* const*, T*);    \
    template void mdgm<T>(std::int64_t, int, const T*, std::int64_t, const T*, T*)
KBENCH_INSTANTIATE_DOT_REF(float);
KBENCH_INSTANTIATE_DOT_REF(double);
#undef KBENCH_INSTANTIATE_DOT_REF

}  // namespace kbench::blas::reference
