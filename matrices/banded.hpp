// Banded matrices in LAPACK general band storage (li2012 Sec. 2.1: the column-major copy that
// SPIKE's factorization and substitutions read), conversions from and to CSR, and the layout
// LAPACK's ?gbsv needs.
#pragma once

#include "matrices/csr.hpp"

#include <cstddef>
#include <vector>

namespace kbench {

/// An n x n matrix with half-bandwidth K (A(i,j) = 0 for |i - j| > K) in LAPACK general band
/// storage without pivot rows: column-major, leading dimension ldab = 2K + 1,
///
///     A(i,j) is ab[(K + i - j) + j * ldab]   for |i - j| <= K   (zero-based i, j),
///
/// so column j of A occupies ab[j*ldab .. j*ldab + 2K]: band row 0 holds A(j-K, j) (the K-th
/// superdiagonal), band row K the diagonal A(j,j), band row 2K A(j+K, j) (the K-th subdiagonal).
/// The K(K+1) slots of the triangles outside the matrix (i < 0 or i >= n) are kept at zero.
/// ab has n * ldab entries. This is li2012 Sec. 2.1's column-major copy, transposed into
/// LAPACK's convention (li2012 shows it with one matrix column per row of the picture).
template <typename T>
struct BandMatrix {
    using value_type = T;
    index_type n = 0;
    index_type K = 0;
    std::vector<T> ab;  // n * (2K + 1), column-major

    index_type ldab() const { return 2 * K + 1; }
    /// Position of A(i,j) in ab; requires 0 <= i, j < n and |i - j| <= K (not checked).
    std::size_t index(index_type i, index_type j) const
    {
        return static_cast<std::size_t>(K + i - j) + static_cast<std::size_t>(j) * ldab();
    }
    /// A(i,j); zero outside the band. Requires 0 <= i, j < n (not checked).
    T operator()(index_type i, index_type j) const
    {
        const index_type d = i - j;
        return (d > K || d < -K) ? T(0) : ab[index(i, j)];
    }
};

/// An n x n band matrix of half-bandwidth K, all zero. Throws std::invalid_argument for n < 1,
/// K < 0 or K >= n.
template <typename T>
BandMatrix<T> band_zeros(index_type n, index_type K);

/// The half-bandwidth of a square CSR matrix: max |i - j| over its stored entries (explicit
/// zeros count), 0 for a diagonal or empty matrix. Throws std::invalid_argument when the matrix
/// is not square.
template <typename T>
index_type bandwidth(const Csr<T>& a);

/// A square CSR matrix in band storage of half-bandwidth K (entries not stored are zero).
/// Throws std::invalid_argument when the matrix is not square, is empty, K < 0 or K >= n, or
/// when a stored entry lies outside the band; that message names the first such entry in row
/// order, e.g. "band_from_csr: entry (12, 40) lies outside the band of half-bandwidth K = 8
/// (|i - j| = 28; the matrix's bandwidth is 28)".
template <typename T>
BandMatrix<T> band_from_csr(const Csr<T>& a, index_type K);

/// The band matrix as CSR: every band position inside the matrix (n(2K+1) - K(K+1) entries, the
/// pattern of generators.hpp's banded()), or only the nonzero ones with drop_zeros.
template <typename T>
Csr<T> band_to_csr(const BandMatrix<T>& a, bool drop_zeros = false);

/// The same band with values converted to U (li2012 Sec. 2.4: the factorization in float).
template <typename U, typename T>
BandMatrix<U> band_cast(const BandMatrix<T>& a)
{
    BandMatrix<U> out;
    out.n = a.n;
    out.K = a.K;
    out.ab.assign(a.ab.begin(), a.ab.end());
    return out;
}

/// y = A x on the host (x and y have n entries, must not overlap).
template <typename T>
void band_multiply(const BandMatrix<T>& a, const T* x, T* y);

/// Rows first .. last - 1 of y = A x on the host: y[i] for first <= i < last (the other entries
/// of y are not touched), each row summed in the same order as band_multiply, so that disjoint
/// row ranges computed apart (e.g. one per thread) give band_multiply's y bit for bit. x and y
/// have n entries and must not overlap; requires 0 <= first <= last <= n (not checked).
template <typename T>
void band_multiply_rows(const BandMatrix<T>& a, const T* x, T* y, index_type first,
                        index_type last);

/// Statistics of a band matrix that predict how fast truncated SPIKE's spikes decay (li2012
/// Sec. 1.3: they decay for diagonally dominant matrices; models/spike_model.hpp SpikeDecay
/// turns them into a truncation-error estimate), from a sample of rows, in O(samples K) time.
struct BandDecayStats {
    /// min over the sampled rows of |a_ii| / sum_{j != i} |a_ij|, li2012 footnote 1's degree
    /// of diagonal dominance (every row when n <= max_rows, else an upper estimate of the true
    /// minimum); +inf when no sampled row has a nonzero off-diagonal entry.
    double d_min = 0.0;
    /// Growth factor per application of the Jacobi matrix E = I - D^-1 A (D = diag A) measured
    /// on the principal window of window_rows rows in the middle of A: the larger of
    /// (||E^16 x|| / ||E^4 x||)^(1/12) for x = all ones and x = a fixed +-1 pattern (2-norms).
    /// It estimates E's spectral radius, which sets how fast the Neumann terms of A^-1 (and so
    /// the spikes) shrink per band-width: ~1/d for same-sign off-diagonals (E >= 0 up to a
    /// diagonal similarity), far less with random signs (cancellations). +inf when a window
    /// row has a zero diagonal; 0 when E vanishes (K = 0).
    double rho = 0.0;
    index_type rows_sampled = 0;  // rows whose dominance entered d_min
    index_type window_rows = 0;   // the window's rows
};

/// band_decay_stats of `a`: rows 0, s, 2s, ... with s = ceil(n / max_rows), and the window's
/// rows, enter d_min. window_rows: the window (clamped to [1, n]); 0: min(n, max(8K, 256)).
/// Cost: about (rows_sampled + 32 window_rows)(2K + 1) multiply-adds (K = 32, default window:
/// ~0.8 M). Throws std::invalid_argument for n < 1, K < 0, K >= n, ab.size() != n (2K + 1),
/// max_rows < 1 or window_rows < 0.
BandDecayStats band_decay_stats(const BandMatrix<double>& a, index_type max_rows = 4096,
                                index_type window_rows = 0);

/// Leading dimension of the ?gbsv layout: 3K + 1 (kl = ku = K).
inline index_type gbsv_ldab(index_type K) { return 3 * K + 1; }

/// The matrix in the layout LAPACK ?gbsv takes with kl = ku = K: column-major, ldab = 3K + 1,
/// A(i,j) at [(2K + i - j) + j * ldab]; band rows 0..K-1 are zero, room for the fill-in that
/// partial pivoting creates (LAPACK dgbsv, argument AB). n * (3K + 1) entries.
template <typename T>
std::vector<T> to_gbsv_layout(const BandMatrix<T>& a);

}  // namespace kbench
