// Host-side plans of the CSR SpMV kernels that need one (kernels/spmv.hpp):
//  - CSR-Adaptive: the rows of a CSR matrix grouped into row blocks of bounded nonzeros, and the
//    long rows that get a kernel of their own (Greathouse & Daga, "Efficient sparse
//    matrix-vector multiplication on GPUs using the CSR storage format", SC14; kbench variant);
//  - merge-based CSR: the merge path of row ends and nonzeros cut into tiles of equal length,
//    the coordinates where each tile starts, and the rows split across tiles (Merrill &
//    Garland, "Merge-based parallel sparse matrix-vector multiplication", SC16).
#pragma once

#include "matrices/csr.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace kbench {

namespace detail {
/// The shape checks shared by the CSR plans and the CSR SpMV launchers (kernels/spmv.hpp):
/// throws std::invalid_argument prefixed with `who` for negative sizes, or a null row_ptr
/// with rows > 0.
template <typename T>
void check_csr_view(const CsrView<T>& a, const char* who)
{
    if (a.num_rows < 0 || a.num_cols < 0 || a.nnz < 0)
        throw std::invalid_argument(std::string{who} + ": negative size (" +
                                    std::to_string(a.num_rows) + " x " +
                                    std::to_string(a.num_cols) + ", nnz " +
                                    std::to_string(a.nnz) + "), expected sizes >= 0");
    if (a.num_rows > 0 && a.row_ptr == nullptr)
        throw std::invalid_argument(std::string{who} + ": row_ptr is null for " +
                                    std::to_string(a.num_rows) + " rows");
}
}  // namespace detail

/// Nonzeros one warp of the CSR-Adaptive kernel holds at once: 32 lanes x 8 entries.
inline constexpr index_type csr_adaptive_block_nnz = 256;

/// One row block: rows [row_begin, row_end) holding nonzeros [nnz_begin, nnz_end) of the CSR
/// arrays (nnz_begin = row_ptr[row_begin], nnz_end = row_ptr[row_end], stored so that a warp
/// learns both ranges from one 16-byte load).
struct alignas(16) CsrRowBlock {
    index_type row_begin = 0;
    index_type row_end = 0;
    index_type nnz_begin = 0;
    index_type nnz_end = 0;
};

/// The plan of a CSR matrix: `blocks` in increasing row order, each of 1..csr_adaptive_block_nnz
/// rows and at most csr_adaptive_block_nnz nonzeros; `long_rows`, increasing, the rows with more
/// than csr_adaptive_block_nnz nonzeros, which no block holds. Together they cover every row
/// exactly once (empty rows sit in blocks).
struct CsrAdaptivePlan {
    std::vector<CsrRowBlock> blocks;
    std::vector<index_type> long_rows;
};

/// Builds the plan of `a` (host arrays) greedily in O(num_rows): a block grows row by row until
/// the next row would take it past csr_adaptive_block_nnz nonzeros or rows, or is long.
/// Throws std::invalid_argument for a view with negative sizes or a null row_ptr.
template <typename T>
CsrAdaptivePlan make_csr_adaptive_plan(const CsrView<T>& a);

/// Read-only view of a CSR matrix with its plan (host or device arrays).
template <typename T>
struct CsrAdaptiveView {
    CsrView<T> csr;
    index_type num_blocks = 0;
    const CsrRowBlock* blocks = nullptr;
    index_type num_long_rows = 0;
    const index_type* long_rows = nullptr;
};

/// Merge-based CSR SpMV (kernels/spmv.hpp csr_merge): merge-path items (row ends + nonzeros)
/// each thread consumes, and threads per tile (one warp: a tile is one warp's share).
inline constexpr int csr_merge_items_per_thread = 7;
inline constexpr int csr_merge_tile_threads = 32;
inline constexpr index_type csr_merge_tile_items =
    csr_merge_items_per_thread * csr_merge_tile_threads;  // 224
/// Split rows of at most this many tiles are summed by one thread of the fix-up (its carry-outs
/// in tile order); longer ones by a whole warp (strided, then a fixed shuffle tree).
inline constexpr index_type csr_merge_serial_run_tiles = 8;

/// A point of the merge path: `row` rows ended and `nz` nonzeros consumed (so the next item is
/// nonzero `nz` of row `row`, or the end of row `row`). 8 bytes, read with one load.
struct alignas(8) CsrMergeCoord {
    index_type row = 0;
    index_type nz = 0;
};

/// A row split across tiles: tiles [tile_begin, tile_end) end inside row `row` (each after
/// consuming at least one of its nonzeros) and leave their partial sums (carry-outs) for it;
/// the tile after them ends the row. 16 bytes, read with one load.
struct alignas(16) CsrMergeRun {
    index_type row = 0;
    index_type tile_begin = 0;
    index_type tile_end = 0;
    index_type unused = 0;
};

/// The plan of the merge-based kernel for one CSR matrix (independent of the value type):
/// `coords` holds num_tiles + 1 coordinates, coords[t] where tile t starts, i.e. where the merge
/// path crosses diagonal t * csr_merge_tile_items (the last one is (num_rows, nnz), the path's
/// end); num_tiles = ceil((num_rows + nnz) / csr_merge_tile_items) (0 for an empty path, which
/// still has the one coordinate (0, 0)). `runs`, in increasing row order, are the rows split
/// across tiles; every tile index appears in at most one run.
struct CsrMergePlan {
    std::vector<CsrMergeCoord> coords{CsrMergeCoord{}};
    std::vector<CsrMergeRun> runs;
    std::int64_t num_tiles() const { return static_cast<std::int64_t>(coords.size()) - 1; }
    /// Tiles whose carry-out is read by the fix-up (sum of the runs' lengths).
    std::int64_t carry_tiles() const;
};

/// The merge-path coordinate of diagonal `diagonal` (0 <= diagonal <= num_rows + nnz) of `a`
/// (host arrays), by binary search (kernels/merge_path.hpp). Throws std::invalid_argument for
/// a diagonal out of range.
template <typename T>
CsrMergeCoord merge_path_coord(const CsrView<T>& a, std::int64_t diagonal);

/// Builds the plan of `a` (host arrays): one merge-path search per tile boundary
/// (O(num_tiles log num_rows)), then one pass over the tiles for the runs. Throws
/// std::invalid_argument for a view with negative sizes, a null row_ptr, or a merge path longer
/// than csr_merge_tile_items * (2^31 - 1) items (tile indices are index_type).
template <typename T>
CsrMergePlan make_csr_merge_plan(const CsrView<T>& a);

/// A CSR matrix with its merge plan and the kernel's workspace: `carries`, num_tiles values of
/// T that every product overwrites (one partial sum per tile). Device arrays for the kernel,
/// host arrays for the reference. Because of the workspace, two products with the same view
/// must not run concurrently (on two streams).
template <typename T>
struct CsrMergeView {
    CsrView<T> csr;
    index_type num_tiles = 0;
    const CsrMergeCoord* coords = nullptr;  // num_tiles + 1
    index_type num_runs = 0;
    const CsrMergeRun* runs = nullptr;
    T* carries = nullptr;  // num_tiles (workspace)
};

}  // namespace kbench
