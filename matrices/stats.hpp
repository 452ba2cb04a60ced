// Matrix statistics (anzt2015 Table 2 columns and more).
#pragma once

#include "matrices/csr.hpp"
#include "matrices/sellp.hpp"

#include <nlohmann/json_fwd.hpp>

namespace kbench {

struct MatrixStats {
    index_type num_rows = 0;
    index_type num_cols = 0;
    index_type nnz = 0;
    index_type row_nnz_min = 0;
    double row_nnz_mean = 0.0;
    index_type row_nnz_max = 0;
    index_type bandwidth = 0;           // max |i - j| over nonzeros
    bool pattern_symmetric = false;     // (i,j) stored <=> (j,i) stored
    bool value_symmetric = false;       // a_ij == a_ji for all stored entries
    double sellp_padding_ratio = 1.0;   // stored/nnz of SELL-P with the `sellp` parameters
    SellpParams sellp;                  // parameters the padding ratio refers to
    index_type sellp_long_rows = 0;     // rows split off (more than sellp.long_row_threshold
                                        // nonzeros, threshold > 0) into the long-row CSR part
};

/// Computes the statistics of `a` (T = float or double) in O(nnz) time with O(n) extra memory:
/// row lengths, bandwidth max |i - j| (the half-bandwidth; zianekhodja2014 Table 1 reports the
/// column span, at most 2*bandwidth + 1), pattern and exact value symmetry (false for a
/// non-square matrix), and the SELL-P padding ratio stored/nnz (anzt2015 Sec. 3.1): stored =
/// sum over slices of b * roundup(longest row in the slice, t), rows sorted by decreasing length
/// within windows of sigma rows when sigma > 1, plus the entries of the long rows when
/// sellp.long_row_threshold > 0 (long-row split, a kbench extension: rows with more nonzeros
/// than the threshold are stored compactly and count as empty in the slices); equal to
/// to_sellp(a, sellp).padding_ratio(), and sellp_long_rows to to_sellp(a, sellp).long_rows.size().
/// Throws std::invalid_argument for SELL-P parameters that to_sellp rejects.
template <typename T>
MatrixStats compute_stats(const Csr<T>& a, const SellpParams& sellp = {});

/// JSON object with keys num_rows, num_cols, nnz, row_nnz_min, row_nnz_mean, row_nnz_max,
/// bandwidth, pattern_symmetric, value_symmetric, sellp_padding_ratio, sellp_slice_height,
/// sellp_threads_per_row, sellp_sigma, sellp_long_row_threshold, sellp_long_rows.
void to_json(nlohmann::json& j, const MatrixStats& s);

}  // namespace kbench
