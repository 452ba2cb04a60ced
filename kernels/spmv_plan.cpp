// CSR-Adaptive row blocks and merge-based CSR tiles (declarations in kernels/spmv_plan.hpp).
#include "kernels/spmv_plan.hpp"

#include "kernels/merge_path.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

namespace kbench {

template <typename T>
CsrAdaptivePlan make_csr_adaptive_plan(const CsrView<T>& a)
{
    if (a.num_rows < 0 || a.num_cols < 0 || a.nnz < 0)
        throw std::invalid_argument("make_csr_adaptive_plan: negative size (" +
                                    std::to_string(a.num_rows) + " x " +
                                    std::to_string(a.num_cols) + ", nnz " +
                                    std::to_string(a.nnz) + "), expected sizes >= 0");
    if (a.num_rows > 0 && a.row_ptr == nullptr)
        throw std::invalid_argument("make_csr_adaptive_plan: row_ptr is null for " +
                                    std::to_string(a.num_rows) + " rows");
    constexpr index_type cap = csr_adaptive_block_nnz;
    CsrAdaptivePlan plan;
    const index_type* rp = a.row_ptr;
    index_type r = 0;
    while (r < a.num_rows) {
        if (rp[r + 1] - rp[r] > cap) {
            plan.long_rows.push_back(r++);
            continue;
        }
        CsrRowBlock b;
        b.row_begin = r;
        b.nnz_begin = rp[r];
        while (r < a.num_rows && r - b.row_begin < cap && rp[r + 1] - rp[r] <= cap &&
               rp[r + 1] - b.nnz_begin <= cap) {
            ++r;
        }
        b.row_end = r;
        b.nnz_end = rp[r];
        plan.blocks.push_back(b);
    }
    return plan;
}

namespace {

template <typename T>
CsrMergeCoord coord_of(const CsrView<T>& a, std::int64_t diagonal)
{
    const auto c = spmv::merge_path::search<std::int64_t>(
        diagonal, a.num_rows > 0 ? a.row_ptr + 1 : a.row_ptr, std::int64_t{a.num_rows},
        std::int64_t{a.nnz});
    return {static_cast<index_type>(c.row), static_cast<index_type>(c.nz)};
}

}  // namespace

std::int64_t CsrMergePlan::carry_tiles() const
{
    std::int64_t n = 0;
    for (const CsrMergeRun& r : runs) n += r.tile_end - r.tile_begin;
    return n;
}

template <typename T>
CsrMergeCoord merge_path_coord(const CsrView<T>& a, std::int64_t diagonal)
{
    detail::check_csr_view(a, "merge_path_coord");
    const std::int64_t length = std::int64_t{a.num_rows} + a.nnz;
    if (diagonal < 0 || diagonal > length)
        throw std::invalid_argument("merge_path_coord: diagonal " + std::to_string(diagonal) +
                                    " outside [0, " + std::to_string(length) +
                                    "] (rows + nonzeros)");
    return coord_of(a, diagonal);
}

template <typename T>
CsrMergePlan make_csr_merge_plan(const CsrView<T>& a)
{
    detail::check_csr_view(a, "make_csr_merge_plan");
    const std::int64_t length = std::int64_t{a.num_rows} + a.nnz;
    const std::int64_t tiles = (length + csr_merge_tile_items - 1) / csr_merge_tile_items;
    if (tiles > std::numeric_limits<index_type>::max() - 1)
        throw std::invalid_argument("make_csr_merge_plan: merge path of " +
                                    std::to_string(length) + " items needs " +
                                    std::to_string(tiles) + " tiles, more than index_type holds");
    CsrMergePlan plan;
    plan.coords.resize(static_cast<std::size_t>(tiles) + 1);
    for (std::int64_t t = 0; t <= tiles; ++t)
        plan.coords[t] = coord_of(a, std::min(length, t * csr_merge_tile_items));
    // Tile t leaves a carry-out for row r = coords[t + 1].row when it ends inside r after
    // consuming some of r's nonzeros (r < num_rows, coords[t + 1].nz > row_ptr[r]); such tiles
    // are consecutive for one row.
    for (std::int64_t t = 0; t < tiles; ++t) {
        const CsrMergeCoord end = plan.coords[t + 1];
        if (end.row >= a.num_rows || end.nz <= a.row_ptr[end.row]) continue;
        if (!plan.runs.empty() && plan.runs.back().row == end.row &&
            plan.runs.back().tile_end == t) {
            ++plan.runs.back().tile_end;
        } else {
            plan.runs.push_back({end.row, static_cast<index_type>(t), static_cast<index_type>(t + 1), 0});
        }
    }
    return plan;
}

template CsrMergeCoord merge_path_coord<float>(const CsrView<float>&, std::int64_t);
template CsrMergeCoord merge_path_coord<double>(const CsrView<double>&, std::int64_t);
template CsrMergePlan make_csr_merge_plan<float>(const CsrView<float>&);
template CsrMergePlan make_csr_merge_plan<double>(const CsrView<double>&);
template CsrAdaptivePlan make_csr_adaptive_plan<float>(const CsrView<float>&);
template CsrAdaptivePlan make_csr_adaptive_plan<double>(const CsrView<double>&);

}  // namespace kbench
