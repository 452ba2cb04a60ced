// The interior/boundary split of a rank's local matrix, so that the halo exchange of a
// distributed SpMV can overlap the product of the rows that need no ghost entry
// (zianekhodja2014 Sec. 4: the GPUs compute while the halo travels; yamazaki2014 Sec. IV: the
// rows of a part are its interior, computed from its own entries, and its boundary, which need
// the neighbours'). The columns of the local matrix are those of row_distribution.hpp: the
// num_owned owned columns first, then the ghosts (column >= num_owned).
//  * an interior row has no ghost column: its product can start before the exchange;
//  * a boundary row has at least one: it is multiplied, with all its columns (owned and ghost),
//    after the exchange.
// Every row is in exactly one part with all its entries, so each row's sum is one CSR row sum
// in both, as in the unsplit product. Host only (no CUDA, no MPI).
#pragma once

#include "matrices/csr.hpp"

#include <cstdint>
#include <vector>

namespace kbench::dist {

/// The two parts of a local matrix `a` (a.num_rows rows, a.num_cols columns, the first
/// num_owned of them owned).
template <typename T>
struct InteriorBoundarySplit {
    /// a.num_rows x num_owned: the interior rows as in `a`, every boundary row empty (so that
    /// y = alpha * interior * x + beta * y also scales the boundary rows of y by beta). Reads only
    /// the owned entries of x.
    Csr<T> interior;
    /// boundary_rows.size() x a.num_cols: the boundary rows of `a`, all their entries, in
    /// increasing row order (row i of it is row boundary_rows[i] of `a`).
    Csr<T> boundary;
    /// The row of `a` of each boundary row, increasing.
    std::vector<index_type> boundary_rows;

    /// Rows with no ghost column (a.num_rows - boundary_rows.size()).
    index_type num_interior() const { return interior.num_rows - boundary.num_rows; }
    index_type num_boundary() const { return boundary.num_rows; }
};

/// Splits `a` into its interior rows (no column >= num_owned) and boundary rows (at least one);
/// see InteriorBoundarySplit for the shapes. An empty row is interior. O(rows + nnz).
/// y = alpha * a * x + beta * y is then y = alpha * interior * x + beta * y followed, for every
/// boundary row i, by y[boundary_rows[i]] += alpha * (boundary * x)[i].
/// Throws std::invalid_argument for an invalid `a` (validate, naming "a") and num_owned outside
/// [0, a.num_cols] ("num_owned").
template <typename T>
InteriorBoundarySplit<T> split_interior_boundary(const Csr<T>& a, index_type num_owned);

/// What split_interior_boundary would put in each part, counted without building it.
struct InteriorBoundaryCounts {
    index_type interior_rows = 0;
    index_type boundary_rows = 0;
    std::int64_t interior_nnz = 0;
    std::int64_t boundary_nnz = 0;  // all entries of the boundary rows, owned and ghost
};

/// The counts of the split of `a` (the same as split_interior_boundary on a valid matrix; only
/// row_ptr's length is checked). O(rows). Throws std::invalid_argument for a row_ptr of another
/// length than a.num_rows + 1 ("a") and num_owned outside [0, a.num_cols] ("num_owned").
template <typename T>
InteriorBoundaryCounts interior_boundary_counts(const Csr<T>& a, index_type num_owned);

}  // namespace kbench::dist
