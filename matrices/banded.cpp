#include "matrices/banded.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

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
    c.row_ptr.reserve(static_cast<std::size_t>(a.n) + 1);
    c.row_ptr.assign(1, 0);
    // every band position: n (2K + 1) less the K (K + 1) cut off at the two corners
    const std::int64_t k = std::min<std::int64_t>(a.K, a.n);
    const std::int64_t positions = std::int64_t{a.n} * (2 * k + 1) - k * (k + 1);
    c.col_idx.reserve(static_cast<std::size_t>(std::max<std::int64_t>(0, positions)));
    c.values.reserve(c.col_idx.capacity());
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
    band_multiply_rows(a, x, y, 0, a.n);
}

template <typename T>
void band_multiply_rows(const BandMatrix<T>& a, const T* x, T* y, index_type first,
                        index_type last)
{
    for (index_type i = first; i < last; ++i) {
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

BandDecayStats band_decay_stats(const BandMatrix<double>& a, index_type max_rows,
                                index_type window_rows)
{
    check_shape("band_decay_stats", a.n, a.K);
    if (a.ab.size() != static_cast<std::size_t>(a.n) * static_cast<std::size_t>(a.ldab()))
        throw std::invalid_argument("band_decay_stats: ab has " + std::to_string(a.ab.size()) +
                                    " entries, expected n (2K + 1) = " +
                                    std::to_string(static_cast<std::size_t>(a.n) *
                                                   static_cast<std::size_t>(a.ldab())));
    if (max_rows < 1)
        throw std::invalid_argument("band_decay_stats: max_rows = " + std::to_string(max_rows) +
                                    ", expected >= 1");
    if (window_rows < 0)
        throw std::invalid_argument("band_decay_stats: window_rows = " +
                                    std::to_string(window_rows) + ", expected >= 0 (0: default)");
    const index_type n = a.n, K = a.K;
    BandDecayStats st;
    st.d_min = std::numeric_limits<double>::infinity();
    const index_type w = window_rows > 0 ? std::min(n, window_rows)
                                         : std::min<index_type>(n, std::max<index_type>(8 * K, 256));
    const index_type w0 = (n - w) / 2;  // first window row
    st.window_rows = w;
    auto dominance = [&](index_type i) {
        const index_type lo = std::max<index_type>(0, i - K);
        const index_type hi = std::min<index_type>(n - 1, i + K);
        double off = 0.0;
        for (index_type j = lo; j <= hi; ++j)
            if (j != i) off += std::abs(a.ab[a.index(i, j)]);
        if (off > 0.0) st.d_min = std::min(st.d_min, std::abs(a.ab[a.index(i, i)]) / off);
        ++st.rows_sampled;
    };
    const index_type stride = static_cast<index_type>(
        (static_cast<std::int64_t>(n) + max_rows - 1) / max_rows);
    for (std::int64_t i = 0; i < n; i += stride)
        if (i < w0 || i >= w0 + w) dominance(static_cast<index_type>(i));
    for (index_type i = w0; i < w0 + w; ++i) dominance(i);

    if (K == 0) return st;  // E = 0
    for (index_type i = w0; i < w0 + w; ++i)
        if (a.ab[a.index(i, i)] == 0.0) {
            st.rho = std::numeric_limits<double>::infinity();
            return st;
        }
    // Power steps y = E x on the window (Dirichlet cut: columns outside it are dropped),
    // normalized each step; log_growth sums the logs of the norms of the measured steps.
    constexpr int warm_up = 4, measured = 12;
    std::vector<double> x(static_cast<std::size_t>(w)), y(x.size());
    for (int start = 0; start < 2; ++start) {
        for (index_type r = 0; r < w; ++r) {
            // ones, or a fixed +-1 pattern (a multiplicative hash of the row's lowest bits)
            const std::uint32_t h = static_cast<std::uint32_t>(r) * 2654435761u;
            x[static_cast<std::size_t>(r)] = start == 0 || ((h >> 16) & 1u) == 0 ? 1.0 : -1.0;
        }
        double norm = 0.0, log_growth = 0.0;
        for (double v : x) norm += v * v;
        norm = std::sqrt(norm);
        for (int step = 0; step < warm_up + measured; ++step) {
            double next = 0.0;
            for (index_type r = 0; r < w; ++r) {
                const index_type i = w0 + r;
                const index_type lo = std::max<index_type>(w0, i - K);
                const index_type hi = std::min<index_type>(w0 + w - 1, i + K);
                double s = 0.0;
                for (index_type j = lo; j <= hi; ++j)
                    if (j != i) s += a.ab[a.index(i, j)] * x[static_cast<std::size_t>(j - w0)];
                const double v = -s / a.ab[a.index(i, i)] / norm;
                y[static_cast<std::size_t>(r)] = v;
                next += v * v;
            }
            next = std::sqrt(next);  // ||E x_step|| / ||x_step||
            if (!(next > 0.0)) {     // E^m x = 0: no growth at all
                log_growth = -std::numeric_limits<double>::infinity();
                break;
            }
            if (step >= warm_up) log_growth += std::log(next);
            std::swap(x, y);
            norm = next;
        }
        st.rho = std::max(st.rho, std::exp(log_growth / measured));
    }
    return st;
}

#define KBENCH_BANDED_INSTANTIATE(T)                                             \
    template BandMatrix<T> band_zeros<T>(index_type, index_type);                \
    template index_type bandwidth<T>(const Csr<T>&);                             \
    template BandMatrix<T> band_from_csr<T>(const Csr<T>&, index_type);          \
    template Csr<T> band_to_csr<T>(const BandMatrix<T>&, bool);                  \
    template void band_multiply<T>(const BandMatrix<T>&, const T*, T*);          \
    template void band_multiply_rows<T>(const BandMatrix<T>&, const T*, T*,      \
                                        index_type, index_type);                 \
    template std::vector<T> to_gbsv_layout<T>(const BandMatrix<T>&);

KBENCH_BANDED_INSTANTIATE(float)
KBENCH_BANDED_INSTANTIATE(double)
#undef KBENCH_BANDED_INSTANTIATE

}  // namespace kbench
