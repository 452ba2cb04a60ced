// The interior/boundary split of a local matrix; see interior_boundary.hpp.
#include "solvers/distributed/interior_boundary.hpp"

#include <stdexcept>
#include <string>

namespace kbench::dist {

namespace {

template <typename T>
void check_num_owned(const Csr<T>& a, index_type num_owned)
{
    if (a.num_rows < 0 || a.row_ptr.size() != static_cast<std::size_t>(a.num_rows) + 1)
        throw std::invalid_argument("a: row_ptr has " + std::to_string(a.row_ptr.size()) +
                                    " entries, expected num_rows + 1 = " +
                                    std::to_string(static_cast<long long>(a.num_rows) + 1));
    if (num_owned < 0 || num_owned > a.num_cols)
        throw std::invalid_argument("num_owned = " + std::to_string(num_owned) +
                                    ", expected in [0, a.num_cols = " +
                                    std::to_string(a.num_cols) + "]");
}

/// Whether row i of `a` has a ghost column. Columns are sorted within a row: the last decides.
template <typename T>
bool is_boundary(const Csr<T>& a, index_type i, index_type num_owned)
{
    const index_type end = a.row_ptr[static_cast<std::size_t>(i) + 1];
    return end > a.row_ptr[static_cast<std::size_t>(i)] &&
           a.col_idx[static_cast<std::size_t>(end) - 1] >= num_owned;
}

template <typename T>
void append_row(const Csr<T>& a, index_type i, Csr<T>& out)
{
    const auto begin = a.row_ptr[static_cast<std::size_t>(i)];
    const auto end = a.row_ptr[static_cast<std::size_t>(i) + 1];
    out.col_idx.insert(out.col_idx.end(), a.col_idx.begin() + begin, a.col_idx.begin() + end);
    out.values.insert(out.values.end(), a.values.begin() + begin, a.values.begin() + end);
}

}  // namespace

template <typename T>
InteriorBoundarySplit<T> split_interior_boundary(const Csr<T>& a, index_type num_owned)
{
    validate(a, "a");
    check_num_owned(a, num_owned);
    const InteriorBoundaryCounts counts = interior_boundary_counts(a, num_owned);
    InteriorBoundarySplit<T> s;
    s.interior.num_rows = a.num_rows;
    s.interior.num_cols = num_owned;
    s.interior.row_ptr.reserve(static_cast<std::size_t>(a.num_rows) + 1);
    s.interior.col_idx.reserve(static_cast<std::size_t>(counts.interior_nnz));
    s.interior.values.reserve(static_cast<std::size_t>(counts.interior_nnz));
    s.boundary.num_rows = counts.boundary_rows;
    s.boundary.num_cols = a.num_cols;
    s.boundary.row_ptr.reserve(static_cast<std::size_t>(counts.boundary_rows) + 1);
    s.boundary.col_idx.reserve(static_cast<std::size_t>(counts.boundary_nnz));
    s.boundary.values.reserve(static_cast<std::size_t>(counts.boundary_nnz));
    s.boundary_rows.reserve(static_cast<std::size_t>(counts.boundary_rows));
    for (index_type i = 0; i < a.num_rows; ++i) {
        if (is_boundary(a, i, num_owned)) {
            append_row(a, i, s.boundary);
            s.boundary.row_ptr.push_back(s.boundary.nnz());
            s.boundary_rows.push_back(i);
        } else {
            append_row(a, i, s.interior);
        }
        s.interior.row_ptr.push_back(s.interior.nnz());
    }
    return s;
}

template <typename T>
InteriorBoundaryCounts interior_boundary_counts(const Csr<T>& a, index_type num_owned)
{
    check_num_owned(a, num_owned);
    InteriorBoundaryCounts c;
    for (index_type i = 0; i < a.num_rows; ++i) {
        const std::int64_t len = a.row_ptr[static_cast<std::size_t>(i) + 1] -
                                 a.row_ptr[static_cast<std::size_t>(i)];
        if (is_boundary(a, i, num_owned)) {
            ++c.boundary_rows;
            c.boundary_nnz += len;
        } else {
            ++c.interior_rows;
            c.interior_nnz += len;
        }
    }
    return c;
}

template InteriorBoundarySplit<float> split_interior_boundary<float>(const Csr<float>&,
                                                                     index_type);
template InteriorBoundarySplit<double> split_interior_boundary<double>(const Csr<double>&,
                                                                       index_type);
template InteriorBoundaryCounts interior_boundary_counts<float>(const Csr<float>&, index_type);
template InteriorBoundaryCounts interior_boundary_counts<double>(const Csr<double>&, index_type);

}  // namespace kbench::dist
