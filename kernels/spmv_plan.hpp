// Host-side plans of the CSR-Adaptive SpMV (kernels/spmv.hpp): the rows of a CSR matrix grouped
// into row blocks of bounded nonzeros, and the long rows that get a kernel of their own
// (CSR-Adaptive: Greathouse & Daga, "Efficient sparse matrix-vector multiplication on GPUs using
// the CSR storage format", SC14; kbench variant).
#pragma once

#include "matrices/csr.hpp"

#include <vector>

namespace kbench {

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

}  // namespace kbench
