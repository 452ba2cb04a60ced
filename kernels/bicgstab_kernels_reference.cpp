// CPU reference twins of the merged BiCGSTAB kernels (kernels/bicgstab_kernels.hpp), and the
// argument checks both sides share.
//
// The element updates use std::fma in the order the GPU kernels use __fma_rn (both correctly
// rounded), so updated vectors agree to the bit. Dot products are pairwise sums in double of
// fused products: error at most (8 + log2(n / 8)) eps(double) sum |a_i b_i|, small next to the
// GPU's; the scalars are then finished by the same detail::finish_* as on the GPU.
#include "kernels/bicgstab_kernels.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace kbench::bicgstab {

void detail::check_arguments(const char* function, std::int64_t n,
                             std::initializer_list<NamedPointer> vectors, const void* sc)
{
    const std::string where = std::string{function} + ": parameter ";
    if (n < 0)
        throw std::invalid_argument(where + "'n' is " + std::to_string(n) + ", expected n >= 0");
    if (n > 0) {
        for (const NamedPointer& v : vectors) {
            if (v.ptr == nullptr)
                throw std::invalid_argument(where + "'" + v.name +
                                            "' is null, expected an array of n = " +
                                            std::to_string(n) + " elements");
        }
    }
    if (sc == nullptr)
        throw std::invalid_argument(where + "'sc' is null, expected a DeviceScalars object");
}

namespace reference {
namespace {

/// Pairwise (cascade) sum of a[i] * b[i] in double, leaves of at most 8 fused products.
template <typename T>
double pairwise_dot(const T* a, const T* b, std::int64_t n)
{
    constexpr std::int64_t leaf = 8;
    if (n <= leaf) {
        double s = 0.0;
        for (std::int64_t i = 0; i < n; ++i) s = std::fma(double(a[i]), double(b[i]), s);
        return s;
    }
    const std::int64_t half = n / 2;
    return pairwise_dot(a, b, half) + pairwise_dot(a + half, b + half, n - half);
}

}  // namespace

template <typename T>
void init(std::int64_t n, const T* r, T* r_hat, T* p, T* v, DeviceScalars<T>* sc)
{
    detail::check_arguments("kbench::bicgstab::reference::init", n,
                            {{"r", r}, {"r_hat", r_hat}, {"p", p}, {"v", v}}, sc);
    for (std::int64_t i = 0; i < n; ++i) {
        r_hat[i] = r[i];
        p[i] = T(0);
        v[i] = T(0);
    }
    detail::finish_init(*sc, pairwise_dot(r, r, n));
}

template <typename T>
void p_update(std::int64_t n, const T* r, const T* v, T* p, const DeviceScalars<T>* sc)
{
    detail::check_arguments("kbench::bicgstab::reference::p_update", n,
                            {{"r", r}, {"v", v}, {"p", p}}, sc);
    const T beta = (sc->rho / sc->rho_old) * (sc->alpha / sc->omega);
    const T omega = sc->omega;
    for (std::int64_t i = 0; i < n; ++i) p[i] = std::fma(beta, std::fma(-omega, v[i], p[i]), r[i]);
}

template <typename T>
void alpha_dot(std::int64_t n, const T* r_hat, const T* v, DeviceScalars<T>* sc)
{
    detail::check_arguments("kbench::bicgstab::reference::alpha_dot", n,
                            {{"r_hat", r_hat}, {"v", v}}, sc);
    detail::finish_alpha(*sc, pairwise_dot(r_hat, v, n));
}

template <typename T>
void s_update(std::int64_t n, const T* r, const T* v, T* s_vec, const DeviceScalars<T>* sc)
{
    detail::check_arguments("kbench::bicgstab::reference::s_update", n,
                            {{"r", r}, {"v", v}, {"s_vec", s_vec}}, sc);
    const T alpha = sc->alpha;
    for (std::int64_t i = 0; i < n; ++i) s_vec[i] = std::fma(-alpha, v[i], r[i]);
}

template <typename T>
void omega_dot(std::int64_t n, const T* t, const T* s_vec, DeviceScalars<T>* sc)
{
    detail::check_arguments("kbench::bicgstab::reference::omega_dot", n,
                            {{"t", t}, {"s_vec", s_vec}}, sc);
    detail::finish_omega(*sc, pairwise_dot(t, s_vec, n), pairwise_dot(t, t, n),
                         pairwise_dot(s_vec, s_vec, n));
}

template <typename T>
void xr_update(std::int64_t n, const T* r_hat, const T* p, const T* s_vec, const T* t, T* x, T* r,
               DeviceScalars<T>* sc)
{
    detail::check_arguments(
        "kbench::bicgstab::reference::xr_update", n,
        {{"r_hat", r_hat}, {"p", p}, {"s_vec", s_vec}, {"t", t}, {"x", x}, {"r", r}}, sc);
    const T alpha = sc->alpha, omega = sc->omega;
    for (std::int64_t i = 0; i < n; ++i) {
        x[i] = std::fma(omega, s_vec[i], std::fma(alpha, p[i], x[i]));
        r[i] = std::fma(-omega, t[i], s_vec[i]);
    }
    detail::finish_xr(*sc, pairwise_dot(r_hat, r, n), pairwise_dot(r, r, n));
}

template <typename T>
double dot(std::int64_t n, const T* a, const T* b)
{
    // check_arguments wants an sc; any non-null pointer does.
    detail::check_arguments("kbench::bicgstab::reference::dot", n, {{"a", a}, {"b", b}}, &n);
    return pairwise_dot(a, b, n);
}

#define KBENCH_INSTANTIATE_BICGSTAB_REF(T)                                                        \
    template void init<T>(std::int64_t, const T*, T*, T*, T*, DeviceScalars<T>*);                 \
    template void p_update<T>(std::int64_t, const T*, const T*, T*, const DeviceScalars<T>*);     \
    template void alpha_dot<T>(std::int64_t, const T*, const T*, DeviceScalars<T>*);              \
    template void s_update<T>(std::int64_t, const T*, const T*, T*, const DeviceScalars<T>*);     \
    template void omega_dot<T>(std::int64_t, const T*, const T*, DeviceScalars<T>*);              \
    template void xr_update<T>(std::int64_t, const T*, const T*, const T*, const T*, T*, T*,      \
                               DeviceScalars<T>*);                                                \
    template double dot<T>(std::int64_t, const T*, const T*)
KBENCH_INSTANTIATE_BICGSTAB_REF(float);
KBENCH_INSTANTIATE_BICGSTAB_REF(double);
#undef KBENCH_INSTANTIATE_BICGSTAB_REF

}  // namespace reference
}  // namespace kbench::bicgstab
