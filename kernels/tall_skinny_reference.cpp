// CPU reference twins of the tall-skinny kernels (kernels/tall_skinny.hpp): plain loops over
// host arrays, every sum in long double in index order and rounded once to T. trsm keeps the
// whole solution row in long double and rounds it at the end. gram is the plain V^T W, which
// is exactly symmetric when W == V (the same products summed in the same order).
#include "kernels/tall_skinny.hpp"

#include <vector>

namespace kbench::blas {


namespace reference {
namespace {

namespace checks = detail::tall_skinny;

/// sum_{i < n} a[i] * b[i] in long double, in index order.
template <typename T>
long double dot_long(std::int64_t n, const T* a, const T* b)
{
    long double sum = 0.0L;
    for (std::int64_t i = 0; i < n; ++i)
        sum += static_cast<long double>(a[i]) * static_cast<long double>(b[i]);
    return sum;
}

}  // namespace

template <typename T>
void gemv_t(std::int64_t n, int k, const T* V, std::int64_t ld, const T* y, T* r)
{
    checks::check_gemv_t("kbench::blas::reference::gemv_t", n, k, V, ld, y, r);
    for (int j = 0; j < k; ++j) r[j] = n == 0 ? T{0} : static_cast<T>(dot_long(n, V + j * ld, y));
}

template <typename T>
void gemm_rowwise(std::int64_t n, int kv, int kw, T alpha, const T* V, std::int64_t ldv,
                  const T* B, int ldb, T beta, T* W, std::int64_t ldw)
{
    checks::check_gemm_rowwise("kbench::blas::reference::gemm_rowwise", n, kv, kw, V, ldv, B,
                               ldb, W, ldw);
    if (n == 0 || kw == 0) return;
    std::vector<long double> row(static_cast<std::size_t>(kv));
    std::vector<long double> out(static_cast<std::size_t>(kw));
    for (std::int64_t i = 0; i < n; ++i) {
        for (int p = 0; p < kv; ++p) row[p] = V[i + p * ldv];  // whole row first: W may be V
        for (int c = 0; c < kw; ++c) {
            long double sum = 0.0L;
            for (int p = 0; p < kv; ++p) sum += row[p] * static_cast<long double>(B[p + c * ldb]);
            out[c] = static_cast<long double>(alpha) * sum;
            if (beta != T{0}) out[c] += static_cast<long double>(beta) * W[i + c * ldw];
        }
        for (int c = 0; c < kw; ++c) W[i + c * ldw] = static_cast<T>(out[c]);
    }
}

template <typename T>
void trsm_right_upper(std::int64_t n, int k, T* V, std::int64_t ld, const T* R, int ldr)
{
    checks::check_trsm("kbench::blas::reference::trsm_right_upper", n, k, V, ld, R, ldr);
    std::vector<long double> x(static_cast<std::size_t>(k));
    for (std::int64_t i = 0; i < n; ++i) {
        for (int j = 0; j < k; ++j) {
            long double s = V[i + j * ld];
            for (int p = 0; p < j; ++p) s -= x[p] * static_cast<long double>(R[p + j * ldr]);
            x[j] = s / static_cast<long double>(R[j + j * ldr]);
        }
        for (int j = 0; j < k; ++j) V[i + j * ld] = static_cast<T>(x[j]);
    }
}

template <typename T>
void gram(std::int64_t n, int kv, const T* V, std::int64_t ldv, int kw, const T* W,
          std::int64_t ldw, T* B, int ldb)
{
    checks::check_gram("kbench::blas::reference::gram", n, kv, V, ldv, kw, W, ldw, B, ldb);
    for (int c = 0; c < kw; ++c) {
        for (int p = 0; p < kv; ++p) {
            B[p + c * ldb] = n == 0 ? T{0} : static_cast<T>(dot_long(n, V + p * ldv, W + c * ldw));
        }
    }
}

#define KBENCH_INSTANTIATE_TALL_SKINNY_REF(T)                                                    \
    template void gemv_t<T>(std::int64_t, int, const T*, std::int64_t, const T*, T*);            \
    template void gemm_rowwise<T>(std::int64_t, int, int, T, const T*, std::int64_t, const T*,   \
                                  int, T, T*, std::int64_t);                                     \
    template void trsm_right_upper<T>(std::int64_t, int, T*, std::int64_t, const T*, int);       \
    template void gram<T>(std::int64_t, int, const T*, std::int64_t, int, const T*, std::int64_t, \
                          T*, int)
KBENCH_INSTANTIATE_TALL_SKINNY_REF(float);
KBENCH_INSTANTIATE_TALL_SKINNY_REF(double);
#undef KBENCH_INSTANTIATE_TALL_SKINNY_REF

}  // namespace reference
}  // namespace kbench::blas
