// The least-squares problem of GMRES: min_y || beta e1 - H y ||_2 for the (j+1) x j upper
// Hessenberg matrix H of the Arnoldi process, solved incrementally by Givens rotations, one
// column per Arnoldi step (Saad & Schultz 1986; the single right-hand-side GMRES(m) of
// boman2022 Sec. 2). Host code, shared by the CPU and the GPU GMRES.
#pragma once

#include <vector>

namespace kbench::solvers {

/// What adding a column found.
enum class HessenbergStatus {
    ok,
    non_finite,  // the column holds Inf or NaN
    singular,    // the rotated diagonal entry is 0: the least-squares problem has no unique y
};

/// Incremental QR of an upper Hessenberg matrix by Givens rotations. R is kept column-major
/// with leading dimension m + 1 (rows 0..j of column j); g = Q^T beta e1 (m + 1 entries).
/// T = float or double.
template <typename T>
class HessenbergLsq {
public:
    /// Room for m columns (the restart length, m >= 1). Throws std::invalid_argument otherwise.
    explicit HessenbergLsq(int m);

    /// Starts a new cycle with residual norm beta: no columns, g = beta e1.
    void reset(T beta);

    /// Adds column j = columns() of H: h[0..j+1], that is h_{0,j} .. h_{j+1,j} (j + 2 entries).
    /// Applies the j previous rotations, forms rotation j from (r_jj, h_{j+1,j}) so that the
    /// new subdiagonal entry vanishes, and updates g. Throws std::logic_error when m columns
    /// are already in. A status other than ok leaves the column out.
    HessenbergStatus add_column(const T* h);

    /// |g_j| after j = columns() columns: the 2-norm of beta e1 - H y for the least-squares y,
    /// which is the residual norm of the GMRES iterate (in exact arithmetic).
    T residual() const;

    /// Columns added since reset().
    int columns() const { return j_; }

    /// The least-squares solution y (columns() entries) by back substitution R y = g.
    std::vector<T> solve() const;

private:
    int m_;
    int j_ = 0;
    std::vector<T> r_;  // (m + 1) x m, column-major, ld m + 1
    std::vector<T> c_, s_;  // rotation j: [c s; -s c] acting on rows j, j + 1
    std::vector<T> g_;  // m + 1
};

}  // namespace kbench::solvers
