// Compressed sparse row (CSR) matrices on the host, 32-bit indices (anzt2015 Sec. 3.1, Fig. 3).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace kbench {

/// Index type of every sparse format in kbench (32-bit, as cuSPARSE CUSPARSE_INDEX_32I).
using index_type = std::int32_t;

/// Read-only view of a CSR matrix whose arrays live in host or device memory.
/// row_ptr has num_rows + 1 entries (row_ptr[0] == 0, row_ptr[num_rows] == nnz); col_idx and
/// values have nnz entries; column indices are zero-based.
template <typename T>
struct CsrView {
    index_type num_rows = 0;
    index_type num_cols = 0;
    index_type nnz = 0;
    const index_type* row_ptr = nullptr;
    const index_type* col_idx = nullptr;
    const T* values = nullptr;
};

/// A CSR matrix in host memory. Column indices are zero-based and sorted increasingly within
/// each row; duplicates are not allowed (the Matrix Market reader sums them).
template <typename T>
struct Csr {
    using value_type = T;
    index_type num_rows = 0;
    index_type num_cols = 0;
    std::vector<index_type> row_ptr{0};  // num_rows + 1
    std::vector<index_type> col_idx;     // nnz
    std::vector<T> values;               // nnz

    index_type nnz() const { return static_cast<index_type>(col_idx.size()); }
    CsrView<T> view() const
    {
        return {num_rows, num_cols, nnz(), row_ptr.data(), col_idx.data(), values.data()};
    }
    /// The same pattern with values converted to U (e.g. double -> float).
    template <typename U>
    Csr<U> cast() const
    {
        Csr<U> out;
        out.num_rows = num_rows;
        out.num_cols = num_cols;
        out.row_ptr = row_ptr;
        out.col_idx = col_idx;
        out.values.assign(values.begin(), values.end());
        return out;
    }
};

/// Checks the CSR invariants (sizes, monotone row_ptr, column indices in range and strictly
/// increasing within a row). Throws std::invalid_argument naming `what` and the first violation.
template <typename T>
void validate(const Csr<T>& a, const std::string& what = "CSR matrix")
{
    auto fail = [&](const std::string& msg) { throw std::invalid_argument(what + ": " + msg); };
    if (a.num_rows < 0 || a.num_cols < 0) fail("negative dimension");
    if (a.row_ptr.size() != static_cast<std::size_t>(a.num_rows) + 1)
        fail("row_ptr must have num_rows + 1 = " + std::to_string(a.num_rows + 1) + " entries");
    if (a.values.size() != a.col_idx.size()) fail("values and col_idx differ in length");
    if (a.row_ptr.front() != 0 || a.row_ptr.back() != a.nnz())
        fail("row_ptr must start at 0 and end at nnz = " + std::to_string(a.nnz()));
    for (index_type i = 0; i < a.num_rows; ++i) {
        if (a.row_ptr[i + 1] < a.row_ptr[i]) fail("row_ptr decreases at row " + std::to_string(i));
        for (index_type k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
            const index_type c = a.col_idx[k];
            if (c < 0 || c >= a.num_cols)
                fail("column index " + std::to_string(c) + " out of range [0, " +
                     std::to_string(a.num_cols) + ") in row " + std::to_string(i));
            if (k > a.row_ptr[i] && a.col_idx[k - 1] >= c)
                fail("column indices not strictly increasing in row " + std::to_string(i));
        }
    }
}

}  // namespace kbench
