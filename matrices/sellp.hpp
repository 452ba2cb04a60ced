// SELL-P (padded sliced ELLPACK) and SELL-C-sigma storage (anzt2015 Sec. 3.1, Figs. 3-4).
#pragma once

#include "matrices/csr.hpp"

#include <cstddef>
#include <vector>

namespace kbench {

/// Parameters of the SELL-P layout.
struct SellpParams {
    index_type slice_height = 32;    // b: rows per slice (= rows per thread block of the kernel)
    index_type threads_per_row = 1;  // t: row lengths in a slice are padded to a multiple of t
    index_type sigma = 1;            // sorting window (rows): rows are sorted by decreasing
                                     // length within windows of sigma rows (SELL-C-sigma);
                                     // 1 = no sorting. Must be 1 or a multiple of slice_height.
};

/// Read-only view of a SELL-P matrix whose arrays live in host or device memory.
/// Slice s holds rows [s*b, (s+1)*b) of the (possibly permuted) matrix, stored column-major:
/// entry j of local row r sits at index slice_ptr[s] + j*b + r. The slice's row length
/// (slice_ptr[s+1] - slice_ptr[s]) / b is the longest row of the slice rounded up to a multiple
/// of t. Padding entries have value 0 and column index 0. Rows past num_rows in the last slice
/// are padding. row_perm (null when sigma == 1) maps storage row -> original row.
template <typename T>
struct SellpView {
    index_type num_rows = 0;
    index_type num_cols = 0;
    index_type nnz = 0;  // true nonzeros (without padding)
    index_type slice_height = 0;
    index_type threads_per_row = 0;
    index_type num_slices = 0;
    const index_type* slice_ptr = nullptr;  // num_slices + 1 element offsets
    const index_type* col_idx = nullptr;    // slice_ptr[num_slices] entries
    const T* values = nullptr;              // slice_ptr[num_slices] entries
    const index_type* row_perm = nullptr;   // num_rows entries, or null
};

/// A SELL-P matrix in host memory (see SellpView for the layout).
template <typename T>
struct Sellp {
    index_type num_rows = 0;
    index_type num_cols = 0;
    index_type nnz = 0;
    SellpParams params;
    std::vector<index_type> slice_ptr{0};
    std::vector<index_type> col_idx;
    std::vector<T> values;
    std::vector<index_type> row_perm;  // empty when params.sigma == 1

    index_type num_slices() const { return static_cast<index_type>(slice_ptr.size()) - 1; }
    /// Stored entries including padding.
    std::size_t stored_entries() const { return values.size(); }
    /// stored_entries / nnz (1.0 = no padding; 1.0 for an empty matrix).
    double padding_ratio() const
    {
        return nnz == 0 ? 1.0 : static_cast<double>(values.size()) / static_cast<double>(nnz);
    }
    SellpView<T> view() const
    {
        return {num_rows, num_cols, nnz, params.slice_height, params.threads_per_row,
                num_slices(), slice_ptr.data(), col_idx.data(), values.data(),
                row_perm.empty() ? nullptr : row_perm.data()};
    }
};

/// Converts CSR to SELL-P. Throws std::invalid_argument when b < 1, t < 1, t not a power of two,
/// b*t > 1024, or sigma is neither 1 nor a positive multiple of b, and when the padded size
/// overflows index_type.
template <typename T>
Sellp<T> to_sellp(const Csr<T>& a, const SellpParams& params);

/// Converts SELL-P back to CSR, dropping padding (explicit zeros stored in `a` are dropped too
/// only where they are padding). Used to test the conversion.
template <typename T>
Csr<T> to_csr(const Sellp<T>& a);

}  // namespace kbench
