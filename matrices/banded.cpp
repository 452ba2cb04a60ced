#include "matrices/banded.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace kbench {

namespace {

void check_shape(const char* fn, index_type n, index_type K)
{
    if (n < 1 || K < 0 || K >= n)
        throw std::invalid_argument(std::string{fn} + ": need n >= 1 and 0 <= K < n, got n = " +
                                    std::to_string(n) + ", K = " + std::to_string(K));
}

template <typename T>
void check_square(const char* fn, const Csr<T>& a)
{
    if (a.num_rows != a.num_cols)
        throw std::invalid_argument(std::string{fn} + ": the matrix must be square, got " +
                                    std::to_string(a.num_rows) + " x " +
                                    std::to_string(a.num_cols));
}

}  // namespace

template <typename T>
BandMatrix<T> band_zeros(index_type n, index_type K)
{
    check_shape("band_zeros", n, K);
    BandMatrix<T> b;
    b.n = n;
    b.K = K;
    b.ab.assign(static_cast<std::size_t>(n) * static_cast<std::size_t>(2 * K + 1), T(0));
    return b;
}

template <typename T>
index_type bandwidth(const Csr<T>& a)
{
    check_square("bandwidth", a);
    index_type w = 0;
    for (index_type i = 0; i < a.num_rows; ++i)
        for (index_type k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k)
            w = std::max(w, a.col_idx[k] > i ? a.col_idx[k] - i : i - a.col_idx[k]);
    return w;
}

template <typename T>
BandMatrix<T> band_from_csr(const Csr<T>& a, index_type K)
{
    check_square("band_from_csr", a);
    check_shape("band_from_csr", a.num_rows, K);
    BandMatrix<T> b = band_zeros<T>(a.num_rows, K);
    for (index_type i = 0; i < a.num_rows; ++i) {
        for (index_type k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
            const index_type j = a.col_idx[k];
            const index_type d = i > j ? i - j : j - i;
            if (d > K)
                throw std::invalid_argument(
                    "band_from_csr: entry (" + std::to_string(i) + ", " + std::to_string(j) +
                    ") lies outside the band of half-bandwidth K = " + std::to_string(K) +
                    " (|i - j| = " + std::to_string(d) + "; the matrix's bandwidth is " +
                    std::to_string(bandwidth(a)) + ")");
            b.ab[b.index(i, j)] = a.values[k];
        }
    }
    return b;
}

template <typename T>
Csr<T> band_to_csr(const BandMatrix<T>& a, bool drop_zeros)
{
    Csr<T> c;
    c.num_rows = a.n;
    c.num_cols = a.n;
    c.row_ptr.assign(1, 0);
    for (index_type i = 0; i < a.n; ++i) {
        const index_type lo = std::max<index_type>(0, i - a.K);
        const index_type hi = std::min<index_type>(a.n - 1, i + a.K);
        for (index_type j = lo; j <= hi; ++j) {
            const T v = a.ab[a.index(i, j)];
            if (drop_zeros && v == T(0)) continue;
            c.col_idx.push_back(j);
            c.values.push_back(v);
        }
        c.row_ptr.push_back(static_cast<index_type>(c.col_idx.size()));
    }
    return c;
}

template <typename T>
void band_multiply(const BandMatrix<T>& a, const T* x, T* y)
{
    for (index_type i = 0; i < a.n; ++i) {
        const index_type lo = std::max<index_type>(0, i - a.K);
        const index_type hi = std::min<index_type>(a.n - 1, i + a.K);
        T s(0);
        for (index_type j = lo; j <= hi; ++j) s += a.ab[a.index(i, j)] * x[j];
        y[i] = s;
    }
}

template <typename T>
std::vector<T> to_gbsv_layout(const BandMatrix<T>& a)
{
    const std::size_t ld = static_cast<std::size_t>(gbsv_ldab(a.K));
    const std::size_t src_ld = static_cast<std::size_t>(a.ldab());
    std::vector<T> out(ld * static_cast<std::size_t>(a.n), T(0));
    for (index_type j = 0; j < a.n; ++j)
        std::copy_n(a.ab.begin() + static_cast<std::ptrdiff_t>(j * src_ld), src_ld,
                    out.begin() + static_cast<std::ptrdiff_t>(j * ld + a.K));
    return out;
}

#define KBENCH_BANDED_INSTANTIATE(T)                                             \
    template BandMatrix<T> band_zeros<T>(index_type, index_type);                \
    template index_type bandwidth<T>(const Csr<T>&);                             \
    template BandMatrix<T> band_from_csr<T>(const Csr<T>&, index_type);          \
    template Csr<T> band_to_csr<T>(const BandMatrix<T>&, bool);                  \
    template void band_multiply<T>(const BandMatrix<T>&, const T*, T*);          \
    template std::vector<T> to_gbsv_layout<T>(const BandMatrix<T>&);

KBENCH_BANDED_INSTANTIATE(float)
KBENCH_BANDED_INSTANTIATE(double)
#undef KBENCH_BANDED_INSTANTIATE

}  // namespace kbench
