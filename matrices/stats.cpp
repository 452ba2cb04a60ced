// Matrix statistics: row lengths, bandwidth, symmetry and SELL-P padding (anzt2015 Table 2,
// Sec. 3.1; long-row split: kbench extension, see matrices/sellp.hpp).
#include "matrices/stats.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <vector>

namespace kbench {
namespace {

/// Checks SELL-P parameters with the rules of to_sellp (matrices/sellp.hpp).
void check_sellp_params(const SellpParams& p)
{
    const index_type b = p.slice_height, t = p.threads_per_row, s = p.sigma;
    if (b < 1) {
        throw std::invalid_argument(fmt::format("SELL-P slice_height = {}, expected >= 1", b));
    }
    if (t < 1 || (t & (t - 1)) != 0) {
        throw std::invalid_argument(
            fmt::format("SELL-P threads_per_row = {}, expected a power of two", t));
    }
    if (static_cast<std::int64_t>(b) * t > 1024) {
        throw std::invalid_argument(fmt::format(
            "SELL-P slice_height * threads_per_row = {} * {}, expected <= 1024", b, t));
    }
    if (s != 1 && (s < 1 || s % b != 0)) {
        throw std::invalid_argument(fmt::format(
            "SELL-P sigma = {}, expected 1 or a positive multiple of slice_height {}", s, b));
    }
    if (p.long_row_threshold < 0) {
        throw std::invalid_argument(fmt::format(
            "SELL-P long_row_threshold = {}, expected >= 0 (0 = no split)", p.long_row_threshold));
    }
}

/// Stored entries (with padding) of SELL-P from row lengths: sum over slices of
/// b * roundup(longest row of the slice, t), rows sorted by decreasing length within windows
/// of sigma rows when sigma > 1 (anzt2015 Sec. 3.1, Fig. 4), plus the entries of the long rows
/// (more than long_row_threshold > 0 nonzeros), which are stored compactly and are empty in the
/// slices. Counts the long rows into `long_rows`.
std::int64_t sellp_stored(std::vector<index_type> len, const SellpParams& p,
                          index_type& long_rows)
{
    const std::int64_t n = static_cast<std::int64_t>(len.size());
    const std::int64_t b = p.slice_height, t = p.threads_per_row;
    std::int64_t long_entries = 0;
    long_rows = 0;
    if (p.long_row_threshold > 0) {
        for (index_type& l : len) {
            if (l <= p.long_row_threshold) continue;
            long_entries += l;
            ++long_rows;
            l = 0;
        }
    }
    if (p.sigma > 1) {
        for (std::int64_t w = 0; w < n; w += p.sigma) {
            std::sort(len.begin() + w, len.begin() + std::min(n, w + p.sigma),
                      std::greater<index_type>());
        }
    }
    std::int64_t stored = long_entries;
    for (std::int64_t s = 0; s < n; s += b) {
        const std::int64_t longest =
            *std::max_element(len.begin() + s, len.begin() + std::min(n, s + b));
        stored += b * ((longest + t - 1) / t * t);
    }
    return stored;
}

}  // namespace

template <typename T>
MatrixStats compute_stats(const Csr<T>& a, const SellpParams& sellp)
{
    check_sellp_params(sellp);
    MatrixStats s;
    s.num_rows = a.num_rows;
    s.num_cols = a.num_cols;
    s.nnz = a.nnz();
    s.sellp = sellp;
    const index_type n = a.num_rows;
    std::vector<index_type> len(static_cast<std::size_t>(n));
    index_type lmin = n > 0 ? a.row_ptr[1] - a.row_ptr[0] : 0, lmax = 0, band = 0;
    for (index_type i = 0; i < n; ++i) {
        const index_type lo = a.row_ptr[i], hi = a.row_ptr[i + 1];
        len[i] = hi - lo;
        lmin = std::min(lmin, len[i]);
        lmax = std::max(lmax, len[i]);
        if (lo < hi) band = std::max({band, i - a.col_idx[lo], a.col_idx[hi - 1] - i});
    }
    s.row_nnz_min = lmin;
    s.row_nnz_max = lmax;
    s.row_nnz_mean = n > 0 ? static_cast<double>(s.nnz) / n : 0.0;
    s.bandwidth = band;

    // Symmetry in one streaming pass: rows are visited in increasing order, so the partners
    // (j, i) of the upper entries (i, j), j > i, are met in increasing i within row j. A cursor
    // per row (next[j]) must find exactly them, and every lower entry of row i must have been
    // consumed before row i is reached.
    bool pattern = a.num_rows == a.num_cols, values = pattern;
    if (pattern) {
        std::vector<index_type> next(a.row_ptr.begin(), a.row_ptr.end() - 1);
        for (index_type i = 0; i < n && pattern; ++i) {
            const index_type end = a.row_ptr[i + 1];
            if (next[i] < end && a.col_idx[next[i]] < i) {
                pattern = false;  // a lower entry of row i without its upper partner
                break;
            }
            for (index_type k = next[i]; k < end; ++k) {
                const index_type j = a.col_idx[k];
                if (j == i) continue;
                const index_type p = next[j]++;
                if (p >= a.row_ptr[j + 1] || a.col_idx[p] != i) {
                    pattern = false;
                    break;
                }
                values = values && a.values[p] == a.values[k];
            }
        }
        values = values && pattern;
    }
    s.pattern_symmetric = pattern;
    s.value_symmetric = values;
    const std::int64_t stored = sellp_stored(std::move(len), sellp, s.sellp_long_rows);
    s.sellp_padding_ratio = s.nnz == 0 ? 1.0 : static_cast<double>(stored) / s.nnz;
    return s;
}

void to_json(nlohmann::json& j, const MatrixStats& s)
{
    j = nlohmann::json{{"num_rows", s.num_rows},
                       {"num_cols", s.num_cols},
                       {"nnz", s.nnz},
                       {"row_nnz_min", s.row_nnz_min},
                       {"row_nnz_mean", s.row_nnz_mean},
                       {"row_nnz_max", s.row_nnz_max},
                       {"bandwidth", s.bandwidth},
                       {"pattern_symmetric", s.pattern_symmetric},
                       {"value_symmetric", s.value_symmetric},
                       {"sellp_padding_ratio", s.sellp_padding_ratio},
                       {"sellp_slice_height", s.sellp.slice_height},
                       {"sellp_threads_per_row", s.sellp.threads_per_row},
                       {"sellp_sigma", s.sellp.sigma},
                       {"sellp_long_row_threshold", s.sellp.long_row_threshold},
                       {"sellp_long_rows", s.sellp_long_rows}};
}

template MatrixStats compute_stats<float>(const Csr<float>&, const SellpParams&);
template MatrixStats compute_stats<double>(const Csr<double>&, const SellpParams&);

}  // namespace kbench
