// The zianekhodja2014 band-matrix replication generator (Sec. 5.2, Fig. 4; Sec. 6.2, Fig. 7).
// The exact reading of the paper is documented at replicate() in matrices/generators.hpp.
#include "matrices/generators.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <string>
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

/// The shape of the replicated matrix: K blocks of n rows, gap-copy size m, far-band offset d.
struct Geometry {
    index_type n = 0;       // seed rows
    index_type blocks = 0;  // K
    index_type rows = 0;    // N = K * n
    index_type m = 0;       // gap-copy size min(w, n)
    index_type d = 0;       // far-band block offset; blocks for the diagonal layout (no far band)
};

/// Checks the seed and target_rows (errors prefixed by `fn`) and computes N, K and m.
Geometry geometry(const Csr<double>& a, index_type target_rows, const char* fn)
{
    if (a.num_rows < 1 || a.num_rows != a.num_cols) {
        throw std::invalid_argument(fmt::format(
            "{}: the seed matrix is {} x {}, expected a non-empty square matrix", fn, a.num_rows,
            a.num_cols));
    }
    if (target_rows < 1) {
        throw std::invalid_argument(
            fmt::format("{}: target_rows = {}, expected >= 1", fn, target_rows));
    }
    validate(a, std::string(fn) + ": seed matrix");
    const index_type n = a.num_rows;
    const std::int64_t blocks64 = (static_cast<std::int64_t>(target_rows) + n - 1) / n;
    const std::int64_t rows64 = blocks64 * n;
    if (rows64 > index_max) {
        throw std::invalid_argument(fmt::format(
            "{}: {} copies of a {}-row matrix make {} rows, which overflow the 32-bit index "
            "type (max {})",
            fn, blocks64, n, rows64, index_max));
    }
    Geometry g;
    g.n = n;
    g.blocks = static_cast<index_type>(blocks64);
    g.rows = static_cast<index_type>(rows64);
    g.m = std::min(half_bandwidth(a), n);
    g.d = g.blocks;
    return g;
}

constexpr double far_scale = 0.5;  // far-band copies (five_band), see replicate()

/// Calls emit(src, col_shift, scale) for every piece of row i of block b (global row b*n + i),
/// left to right (columns increase): far-left block (b - d), lower gap copy (end of block
/// b - 1), diagonal block b, upper gap copy (start of block b + 1), far-right block (b + d).
/// d >= 2 keeps the far blocks clear of the gap copies. Each piece is a range of seed entries
/// with its column shift.
template <typename Emit>
void row_pieces(const Csr<double>& a, const Geometry& g, index_type b, index_type i, Emit&& emit)
{
    const index_type off = b * g.n;  // fits: b * n < N <= index_max
    const Range whole{a.row_ptr[i], a.row_ptr[i + 1]};
    if (b >= g.d) emit(whole, off - g.d * g.n, far_scale);
    if (b > 0 && i < g.m) emit(columns_in(a, i, i + 1, g.m), off - g.m, 1.0);
    emit(whole, off, 1.0);
    if (b + 1 < g.blocks && i >= g.n - g.m) {
        const index_type r = i - (g.n - g.m);  // seed row of the upper gap copy
        emit(columns_in(a, r, 0, r), off + g.n, 1.0);
    }
    if (static_cast<std::int64_t>(b) + g.d < g.blocks) emit(whole, off + g.d * g.n, far_scale);
}

/// Calls f(b, i) for the global rows row_begin..row_end-1 in order (row = b*n + i).
template <typename F>
void for_rows(const Geometry& g, index_type row_begin, index_type row_end, F&& f)
{
    index_type b = row_begin / g.n, i = row_begin % g.n;
    for (index_type row = row_begin; row < row_end; ++row) {
        f(b, i);
        if (++i == g.n) {
            i = 0;
            ++b;
        }
    }
}

/// Rows [row_begin, row_end) of the replicated matrix; errors prefixed by `fn`.
Csr<double> build_rows(const Csr<double>& a, index_type target_rows, ReplicationLayout layout,
                       index_type row_begin, index_type row_end, const char* fn)
{
    Geometry g = geometry(a, target_rows, fn);
    if (layout != ReplicationLayout::diagonal && layout != ReplicationLayout::five_band) {
        throw std::invalid_argument(fmt::format("{}: unknown ReplicationLayout value", fn));
    }
    if (layout == ReplicationLayout::five_band) g.d = std::max<index_type>(2, g.blocks / 2);
    if (row_begin < 0 || row_begin > g.rows) {
        throw std::invalid_argument(fmt::format(
            "{}: row_begin = {}, expected in [0, N = {}]", fn, row_begin, g.rows));
    }
    if (row_end < row_begin || row_end > g.rows) {
        throw std::invalid_argument(fmt::format("{}: row_end = {}, expected in [row_begin = {}, "
                                                "N = {}]",
                                                fn, row_end, row_begin, g.rows));
    }
    // Count the block's entries (64-bit) before allocating anything.
    std::int64_t nnz64 = 0;
    for_rows(g, row_begin, row_end, [&](index_type b, index_type i) {
        row_pieces(a, g, b, i, [&](Range src, index_type, double) { nnz64 += src.size(); });
        if (nnz64 > index_max) {
            throw std::invalid_argument(fmt::format(
                "{}: rows [{}, {}) of the replicated matrix ({} rows) hold more than {} "
                "nonzeros, which overflow the 32-bit index type; build it in smaller row ranges",
                fn, row_begin, row_end, g.rows, index_max));
        }
    });

    Csr<double> r;
    r.num_rows = row_end - row_begin;
    r.num_cols = g.rows;
    r.row_ptr.assign(static_cast<std::size_t>(r.num_rows) + 1, 0);
    r.col_idx.resize(static_cast<std::size_t>(nnz64));
    r.values.resize(static_cast<std::size_t>(nnz64));
    index_type k = 0;
    auto copy = [&](Range src, index_type col_shift, double scale) {
        for (index_type s = src.first; s < src.last; ++s) {
            r.col_idx[k] = a.col_idx[s] + col_shift;
            r.values[k++] = a.values[s] * scale;
        }
    };
    std::size_t out_row = 0;
    for_rows(g, row_begin, row_end, [&](index_type b, index_type i) {
        row_pieces(a, g, b, i, copy);
        r.row_ptr[++out_row] = k;
    });
    return r;
}

}  // namespace

index_type replicated_rows(const Csr<double>& a, index_type target_rows)
{
    return geometry(a, target_rows, "replicated_rows").rows;
}

Csr<double> replicate_rows(const Csr<double>& a, index_type target_rows, ReplicationLayout layout,
                           index_type row_begin, index_type row_end)
{
    return build_rows(a, target_rows, layout, row_begin, row_end, "replicate_rows");
}

Csr<double> replicate(const Csr<double>& a, index_type target_rows, ReplicationLayout layout)
{
    // One extra check of the seed (O(nnz(a))) to learn N; negligible against the N-row result.
    return build_rows(a, target_rows, layout, 0, geometry(a, target_rows, "replicate").rows,
                      "replicate");
}

}  // namespace kbench
