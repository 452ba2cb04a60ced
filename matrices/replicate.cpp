// The zianekhodja2014 band-matrix replication generator (Sec. 5.2, Fig. 4; Sec. 6.2, Fig. 7).
// The exact reading of the paper is documented at replicate() in matrices/generators.hpp.
#include "matrices/generators.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <vector>

namespace kbench {
namespace {

constexpr std::int64_t index_max = std::numeric_limits<index_type>::max();

/// Half-bandwidth max |i - j| over the stored entries of `a`.
index_type half_bandwidth(const Csr<double>& a)
{
    index_type w = 0;
    for (index_type i = 0; i < a.num_rows; ++i) {
        const index_type lo = a.row_ptr[i], hi = a.row_ptr[i + 1];
        if (lo < hi) {
            w = std::max({w, i - a.col_idx[lo], a.col_idx[hi - 1] - i});
        }
    }
    return w;
}

/// Entries of row i of `a` with column in [lo, hi) as the range [first, last) into col_idx.
struct Range {
    index_type first, last;
    index_type size() const { return last - first; }
};
Range columns_in(const Csr<double>& a, index_type i, index_type lo, index_type hi)
{
    const index_type* b = a.col_idx.data() + a.row_ptr[i];
    const index_type* e = a.col_idx.data() + a.row_ptr[i + 1];
    const index_type* f = std::lower_bound(b, e, lo);
    const index_type* l = std::lower_bound(f, e, hi);
    return {static_cast<index_type>(f - a.col_idx.data()),
            static_cast<index_type>(l - a.col_idx.data())};
}

}  // namespace

Csr<double> replicate(const Csr<double>& a, index_type target_rows, ReplicationLayout layout)
{
    if (a.num_rows < 1 || a.num_rows != a.num_cols) {
        throw std::invalid_argument(fmt::format(
            "replicate: the seed matrix is {} x {}, expected a non-empty square matrix",
            a.num_rows, a.num_cols));
    }
    if (target_rows < 1) {
        throw std::invalid_argument(
            fmt::format("replicate: target_rows = {}, expected >= 1", target_rows));
    }
    if (layout != ReplicationLayout::diagonal && layout != ReplicationLayout::five_band) {
        throw std::invalid_argument("replicate: unknown ReplicationLayout value");
    }
    validate(a, "replicate: seed matrix");
    const index_type n = a.num_rows;
    const std::int64_t blocks64 = (static_cast<std::int64_t>(target_rows) + n - 1) / n;
    const std::int64_t rows64 = blocks64 * n;
    if (rows64 > index_max) {
        throw std::invalid_argument(fmt::format(
            "replicate: {} copies of a {}-row matrix make {} rows, which overflow the 32-bit "
            "index type (max {})",
            blocks64, n, rows64, index_max));
    }
    const index_type blocks = static_cast<index_type>(blocks64);
    const index_type m = std::min(half_bandwidth(a), n);  // gap-copy size
    // Far-band block offset (five_band only); no far copies when blocks <= d.
    const index_type d =
        layout == ReplicationLayout::five_band ? std::max<index_type>(2, blocks / 2) : blocks;
    constexpr double far_scale = 0.5;

    // Per local row: entries of the lower gap copy (rows i < m, columns i < j < m) and of the
    // upper gap copy (rows i = n - m + r, columns j < r of seed row r).
    std::vector<index_type> lower_len(static_cast<std::size_t>(n), 0);
    std::vector<index_type> upper_len(static_cast<std::size_t>(n), 0);
    for (index_type i = 0; i < m; ++i) {
        lower_len[i] = columns_in(a, i, i + 1, m).size();
        upper_len[n - m + i] = columns_in(a, i, 0, i).size();
    }
    // Count rows block by block (64-bit) before allocating.
    std::int64_t nnz64 = 0;
    for (index_type b = 0; b < blocks; ++b) {
        const bool has_lower = b > 0, has_upper = b + 1 < blocks;
        const int far = (b >= d ? 1 : 0) + (static_cast<std::int64_t>(b) + d < blocks ? 1 : 0);
        for (index_type i = 0; i < n; ++i) {
            const index_type len = a.row_ptr[i + 1] - a.row_ptr[i];
            nnz64 += static_cast<std::int64_t>(len) * (1 + far) +
                     (has_lower ? lower_len[i] : 0) + (has_upper ? upper_len[i] : 0);
        }
        if (nnz64 > index_max) {
            throw std::invalid_argument(fmt::format(
                "replicate: the replicated matrix ({} rows) has more than {} nonzeros, which "
                "overflow the 32-bit index type",
                rows64, index_max));
        }
    }

    Csr<double> r;
    r.num_rows = r.num_cols = static_cast<index_type>(rows64);
    r.row_ptr.assign(static_cast<std::size_t>(rows64) + 1, 0);
    r.col_idx.resize(static_cast<std::size_t>(nnz64));
    r.values.resize(static_cast<std::size_t>(nnz64));
    index_type k = 0;
    auto copy = [&](Range src, index_type col_shift, double scale) {
        for (index_type s = src.first; s < src.last; ++s) {
            r.col_idx[k] = a.col_idx[s] + col_shift;
            r.values[k++] = a.values[s] * scale;
        }
    };
    for (index_type b = 0; b < blocks; ++b) {
        const index_type off = b * n;  // fits: b * n < rows64 <= index_max
        for (index_type i = 0; i < n; ++i) {
            const Range row{a.row_ptr[i], a.row_ptr[i + 1]};
            // Columns increase from left to right: far-left block (b - d), lower gap copy (end
            // of block b - 1), diagonal block b, upper gap copy (start of block b + 1),
            // far-right block (b + d). d >= 2 keeps the far blocks clear of the gap copies.
            if (b >= d) copy(row, off - d * n, far_scale);
            if (b > 0 && i < m) copy(columns_in(a, i, i + 1, m), off - m, 1.0);
            copy(row, off, 1.0);
            if (b + 1 < blocks && i >= n - m) {
                copy(columns_in(a, i - (n - m), 0, i - (n - m)), off + n, 1.0);
            }
            if (static_cast<std::int64_t>(b) + d < blocks) copy(row, off + d * n, far_scale);
            r.row_ptr[static_cast<std::size_t>(off) + i + 1] = k;
        }
    }
    return r;
}

}  // namespace kbench
