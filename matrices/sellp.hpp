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
    index_type long_row_threshold = 0;  // rows with MORE nonzeros than this are split off into a
                                        // separate CSR part; 0 = no split. Must be >= 0.
};

/// Read-only view of a SELL-P matrix whose arrays live in host or device memory
/// (anzt2015 Sec. 3.1, Figs. 3-4).
/// Slice s holds rows [s*b, (s+1)*b) of the (possibly permuted) matrix, stored column-major:
/// entry j of local row r sits at index slice_ptr[s] + j*b + r. The slice's row length
/// (slice_ptr[s+1] - slice_ptr[s]) / b is the longest row of the slice rounded up to a multiple
/// of t. Padding entries have value 0 and column index 0. Rows past num_rows in the last slice
/// are padding. row_perm (null when sigma == 1) maps storage row -> original row.
///
/// Long-row split (kbench extension, in the spirit of ELL+COO hybrids): when
/// long_row_threshold > 0, every row with more than long_row_threshold nonzeros is stored in a
/// separate CSR part and has length 0 in the slices (it does not set its slice's width; the
/// sigma sorting sees it as empty). Long row k (original row index long_rows[k], increasing)
/// holds entries [long_row_ptr[k], long_row_ptr[k+1]) of long_col_idx / long_values, columns
/// increasing. The long-part pointers are null and num_long_rows is 0 when there is no split.
template <typename T>
struct SellpView {
    index_type num_rows = 0;
    index_type num_cols = 0;
    index_type nnz = 0;  // true nonzeros (without padding), long part included
    index_type slice_height = 0;
    index_type threads_per_row = 0;
    index_type num_slices = 0;
    const index_type* slice_ptr = nullptr;  // num_slices + 1 element offsets
    const index_type* col_idx = nullptr;    // slice_ptr[num_slices] entries
    const T* values = nullptr;              // slice_ptr[num_slices] entries
    const index_type* row_perm = nullptr;   // num_rows entries, or null
    index_type num_long_rows = 0;
    const index_type* long_rows = nullptr;     // num_long_rows original row indices, or null
    const index_type* long_row_ptr = nullptr;  // num_long_rows + 1 offsets, or null
    const index_type* long_col_idx = nullptr;  // long_row_ptr[num_long_rows] entries, or null
    const T* long_values = nullptr;            // long_row_ptr[num_long_rows] entries, or null
};

/// A SELL-P matrix in host memory (see SellpView for the layout and the long-row split).
template <typename T>
struct Sellp {
    index_type num_rows = 0;
    index_type num_cols = 0;
    index_type nnz = 0;
    SellpParams params;
    std::vector<index_type> slice_ptr{0};
    std::vector<index_type> col_idx;
    std::vector<T> values;
    std::vector<index_type> row_perm;      // empty when params.sigma == 1
    std::vector<index_type> long_rows;     // original row of each long row, increasing
    std::vector<index_type> long_row_ptr{0};  // long_rows.size() + 1 offsets
    std::vector<index_type> long_col_idx;  // columns of the long rows, increasing per row
    std::vector<T> long_values;

    index_type num_slices() const { return static_cast<index_type>(slice_ptr.size()) - 1; }
    index_type num_long_rows() const { return static_cast<index_type>(long_rows.size()); }
    /// Stored entries: slice entries including padding plus the long part's entries.
    std::size_t stored_entries() const { return values.size() + long_values.size(); }
    /// stored_entries / nnz (1.0 = no padding; 1.0 for an empty matrix).
    double padding_ratio() const
    {
        return nnz == 0 ? 1.0
                        : static_cast<double>(stored_entries()) / static_cast<double>(nnz);
    }
    SellpView<T> view() const
    {
        const bool split = !long_rows.empty();
        return {num_rows,
                num_cols,
                nnz,
                params.slice_height,
                params.threads_per_row,
                num_slices(),
                slice_ptr.data(),
                col_idx.data(),
                values.data(),
                row_perm.empty() ? nullptr : row_perm.data(),
                num_long_rows(),
                split ? long_rows.data() : nullptr,
                split ? long_row_ptr.data() : nullptr,
                split ? long_col_idx.data() : nullptr,
                split ? long_values.data() : nullptr};
    }
};

/// Checks what every SELL-P product needs of a view (host or device arrays: only sizes and
/// pointers are read): b >= 1, t >= 1, ceil(num_rows / b) slices, and a long part of
/// 0..num_rows rows whose arrays are non-null when present. Throws std::invalid_argument naming
/// `who` and the offending value.
template <typename T>
void validate_view(const SellpView<T>& a, const char* who);

/// Converts CSR to SELL-P (anzt2015 Sec. 3.1), splitting rows longer than
/// params.long_row_threshold (when > 0) off into the CSR long part (kbench extension).
/// Throws std::invalid_argument when b < 1, t < 1, t not a power of two, b*t > 1024, sigma is
/// neither 1 nor a positive multiple of b, or long_row_threshold < 0, and when the padded size
/// overflows index_type.
template <typename T>
Sellp<T> to_sellp(const Csr<T>& a, const SellpParams& params);

/// Converts SELL-P back to CSR, dropping padding (explicit zeros stored in `a` are dropped too
/// only where they are padding) and merging the long part back. Used to test the conversion.
/// Throws std::invalid_argument for inconsistent slice, permutation or long-part arrays.
template <typename T>
Csr<T> to_csr(const Sellp<T>& a);

}  // namespace kbench
