// The least-squares problem of GMRES, min_y || beta e1 - H y ||_2 for the (j+1) x j upper
// Hessenberg matrix H of the Arnoldi process, and of block GMRES, min_Y || E1 S - H Y ||_F for
// its band Hessenberg matrix, solved incrementally by Givens rotations, one column per step
// (Saad & Schultz 1986; boman2022). Host code, shared by the CPU and the GPU solvers.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

namespace kbench::solvers {

/// What adding a column found.
enum class HessenbergStatus {
    ok,
    non_finite,  // the column holds Inf or NaN
    singular,    // the rotated diagonal entry is 0: the least-squares problem has no unique y
};

/// Incremental QR, by Givens rotations, of the (m + 1) s x m s band upper Hessenberg matrix of
/// block GMRES with block size s (s subdiagonals; s = 1: GMRES's Hessenberg matrix), for s
/// right-hand sides G = [S; 0]. Columns come one at a time; the s entries below the diagonal
/// of each are zeroed bottom up. R is kept column-major with leading dimension (m + 1) s; G
/// row-major ((m + 1) s x s, so that a rotation of two rows is two contiguous vectors). T =
/// float or double. Source: Saad, Iterative Methods for Sparse Linear Systems, 2nd ed., Sec.
/// 6.5.3 (GMRES) and 6.12 (block GMRES); boman2022 (BGMRES).
///
/// Memory: the buffers are allocated at their full size on first use and never zero-filled:
/// a solve touches only the entries it writes (R's band upper trapezoid, G's leading rows),
/// not the (m + 1) s x m s capacity, so sizing m for a long non-restarted solve costs nothing
/// up front. Copies copy the live entries only.
template <typename T>
class HessenbergLsq {
public:
    /// Room for m block steps of s columns (m >= 1, s >= 1). Throws std::invalid_argument
    /// otherwise.
    explicit HessenbergLsq(int m, int s = 1);
    HessenbergLsq(const HessenbergLsq& other);
    HessenbergLsq& operator=(const HessenbergLsq& other);
    HessenbergLsq(HessenbergLsq&&) noexcept = default;
    HessenbergLsq& operator=(HessenbergLsq&&) noexcept = default;
    ~HessenbergLsq() = default;

    /// Starts a new cycle: no columns, G = [S; 0] for the s x s upper triangular S (column-
    /// major, ld lds; the R factor of the initial residual block). The strictly lower part of
    /// S is not read.
    void reset(const T* S, int lds);
    /// s = 1: G = beta e1.
    void reset(T beta);

    /// Adds column c = columns() of H: h[0 .. c + s] (c + s + 1 entries; for s = 1,
    /// h_{0,c} .. h_{c+1,c}). Applies the previous columns' rotations, zeroes the new column's
    /// s subdiagonal entries with s new rotations and applies them to G. Throws
    /// std::logic_error when m s columns are already in. A status other than ok leaves the
    /// column out (singular: the new diagonal entry of R is 0).
    HessenbergStatus add_column(const T* h);
    /// Adds `count` columns c0 = columns() .. c0 + count - 1 at once (block GMRES's s columns
    /// of a block step): column k is h + k ldh, entries 0 .. c0 + k + s. The same arithmetic,
    /// bit for bit, as `count` add_column calls (each new column takes every earlier column's
    /// rotations in the order they were made), but done on a row-major copy of the block, so
    /// that a rotation of two rows is two contiguous vectors of `count` values (SIMD), with the
    /// row shared by consecutive rotations kept in registers; the rotations of the columns
    /// before c0 run in chunks of 8 columns over OpenMP threads when the work is large. About
    /// 6 c0 s count flops. Stops at the first column whose status is not ok (columns() tells
    /// which: the columns before it are in) and returns that status. Throws std::logic_error
    /// when fewer than `count` columns are left.
    HessenbergStatus add_columns(const T* h, std::size_t ldh, int count);

    /// 2-norm of column k of G - H Y for the least-squares Y after c = columns() columns: the
    /// entries c .. c + s - 1 of G's column k; for GMRES the residual norm of right-hand side k.
    T residual(int k = 0) const;

    /// Columns added since reset().
    int columns() const { return cols_; }
    /// The block size s and the room m (block steps) given at construction.
    int block_size() const { return s_; }
    int capacity() const { return m_; }

    /// The least-squares solution Y: columns() x s, column-major, ld columns(), by a
    /// triangular solve R Y = G (Eigen's blocked solve for the s right-hand sides).
    std::vector<T> solve() const;

private:
    std::size_t rows_capacity() const { return static_cast<std::size_t>(m_ + 1) * s_; }
    /// First use: every buffer at its full size, uninitialized.
    void allocate();
    /// Makes G's rows up to `row` (inclusive) valid: rows not yet written are zero.
    void touch_g(int row);

    int m_;
    int s_;
    int cols_ = 0;
    int g_rows_ = 0;                 // G's leading rows holding values; the rest is unwritten
    std::unique_ptr<T[]> r_;         // (m + 1) s x m s, column c valid in rows 0 .. c + s
    std::unique_ptr<T[]> cos_, sin_; // s rotations per column, m s columns
    std::unique_ptr<T[]> g_;         // (m + 1) s x s, row-major
    std::unique_ptr<T[]> work_;      // add_columns' row-major copy of a block ((m + 1) s x s)
};

}  // namespace kbench::solvers
