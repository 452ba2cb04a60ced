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
};

/// Computes the statistics of `a`; the padding ratio is that of to_sellp(a, sellp).
template <typename T>
MatrixStats compute_stats(const Csr<T>& a, const SellpParams& sellp = {});

void to_json(nlohmann::json& j, const MatrixStats& s);

}  // namespace kbench
