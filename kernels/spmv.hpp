// Sparse matrix-vector products y = alpha*A*x + beta*y (SpMV): host launchers for the GPU kernels
// and their CPU reference twins (same arguments, host pointers, no stream).
//
// Conventions for every function here: x has num_cols entries, y has num_rows entries; views and
// vectors live in device memory for the GPU launchers and in host memory for the references.
// When beta == 0, y is not read (NaN/Inf in y do not propagate), as in BLAS. Launchers enqueue
// on `stream` and do not synchronize; they throw kbench::cuda_error on a launch failure and
// std::invalid_argument for inconsistent views (e.g. unsupported threads_per_row).
// T is float or double.
#pragma once

#include "matrices/csr.hpp"
#include "matrices/sellp.hpp"
#include "kernels/spmv_plan.hpp"

#include <cuda_runtime_api.h>

#include <cstdint>

namespace kbench::spmv {

/// CSR SpMV, one thread per row ("scalar" kernel; Bell & Garland 2009). Uncoalesced for long rows.
template <typename T>
void csr_scalar(const CsrView<T>& a, T alpha, const T* x, T beta, T* y, cudaStream_t stream);

/// CSR SpMV, a sub-warp of `subwarp` lanes per row (2, 4, 8, 16 or 32) with a shuffle reduction
/// ("vector" kernel). subwarp == 0 picks it from the mean row length (see choose_csr_subwarp).
template <typename T>
void csr_vector(const CsrView<T>& a, T alpha, const T* x, T beta, T* y, cudaStream_t stream,
                int subwarp = 0);

/// The sub-warp size csr_vector uses when given 0: the smallest power of two in [2, 32]
/// that is >= mean nonzeros per row.
int choose_csr_subwarp(const CsrView<double>& a);
int choose_csr_subwarp(const CsrView<float>& a);

/// SELL-P SpMV (anzt2015 Sec. 3.1, Fig. 4): one b x t thread block per slice, thread (r, k)
/// accumulates entries j = k, k+t, ... of local row r, then the t partial sums of a row are
/// reduced through shared memory (one transpose) and a width-t warp shuffle. Supports b*t <= 1024
/// and t in {1, 2, 4, 8, 16, 32}. When the view has a row permutation (SELL-C-sigma), y is
/// written in the original row order.
/// Long-row split (kbench extension, in the spirit of ELL+COO hybrids): when the view has
/// num_long_rows > 0, the SELL-P pass writes alpha*0 + beta*y (0 when beta == 0) to the long
/// rows (empty in the slices), then a second kernel on the same stream gives each long row one
/// block of 256 threads (strided loads, warp-shuffle + shared-memory reduction, deterministic,
/// no atomics) and adds alpha*(row sum) to y[row].
template <typename T>
void sellp(const SellpView<T>& a, T alpha, const T* x, T beta, T* y, cudaStream_t stream);

/// CSR-Adaptive SpMV (Greathouse & Daga, SC14; kbench variant): the rows are grouped into row
/// blocks of at most csr_adaptive_block_nnz nonzeros (make_csr_adaptive_plan); one warp per block
/// loads the block's entries coalesced (8 per lane, all in flight at once), multiplies them by the
/// gathered x into shared memory and reduces each row there with s lanes per row (s the largest
/// power of two with rows * s <= 32; one lane per row in turn for blocks of more than 32 rows).
/// Rows longer than a block (the plan's long rows) are reduced by a second kernel on the same
/// stream, one block of 256 threads per row. Deterministic (no atomics). The view's plan must
/// have been made from the same matrix.
template <typename T>
void csr_adaptive(const CsrAdaptiveView<T>& a, T alpha, const T* x, T beta, T* y,
                  cudaStream_t stream);

/// Merge-based CSR SpMV (Merrill & Garland, "Merge-based parallel sparse matrix-vector
/// multiplication", SC16; kbench variant). The merge path of the row ends and the nonzeros
/// (kernels/merge_path.hpp) is cut into tiles of csr_merge_tile_items = 224 items, one per
/// warp, whose start coordinates the view's plan holds (make_csr_merge_plan, computed once on
/// the host), so every warp has the same work whatever the row lengths (empty rows, one row
/// longer than many tiles, power-law rows). A warp stages its tile's row ends (row_ptr) and
/// products values[k] * x[col_idx[k]] in shared memory (coalesced loads, all in flight at once),
/// then each lane finds its share of 7 items by a merge-path binary search in shared memory and
/// consumes it: a nonzero adds its product to the running sum, a row end stores the row. Rows
/// split between lanes of a tile are summed by a segmented warp scan (shuffles, fixed tree);
/// rows split between tiles are finished by a second kernel on the same stream (only when the
/// plan has such rows): one thread per split row (a warp for a row split across more than 8
/// tiles) sums the tiles' carry-outs in a fixed order and adds alpha*sum to the y the ending
/// tile wrote. No atomics: results are bitwise reproducible
/// from run to run (but differ in rounding from the other kernels: a split row is
/// alpha*p_last + beta*y + alpha*(carries)).
/// Shapes: a.csr is num_rows x num_cols CSR (device arrays), a.coords num_tiles + 1
/// coordinates, a.runs num_runs split rows, a.carries num_tiles values of T (workspace,
/// overwritten; so two products with one view must not overlap in time). The view's plan must
/// have been made from the same matrix. Throws std::invalid_argument for negative sizes, null
/// arrays the sizes need or a tile count that is not ceil((num_rows + nnz) / 224).
template <typename T>
void csr_merge(const CsrMergeView<T>& a, T alpha, const T* x, T beta, T* y,
               cudaStream_t stream);

/// Default SELL-P parameters for the `sellp` kernel, from the mean row length m = nnz/num_rows
/// (host or device view: only the sizes are read): t = largest power of two <= m/16, clamped to
/// [1, 32]; b = 64 when t = 1, else 32; sigma = 1 (no row permutation); long_row_threshold =
/// default_long_row_threshold(num_rows, nnz).
/// Tuned on an H200 (kbench bench spmv --sellp-b/--sellp-t sweep over 3D 7- and 27-point
/// Laplacians and replicated fv1, steam1 and s3rmt3m3, 5..76 nonzeros per row): the loads are
/// coalesced over the b rows whatever t is, so t > 1 only pays (shared-memory reduction, padding
/// to a multiple of t) once a row is long enough to keep t threads busy; t = 1 with b = 64 was
/// within 1 % of the best (b, t) on every matrix with m < 32, and t = 4, b = 32 was best at m = 76.
/// The threshold splits off rows 16x longer than the mean (at least 256 entries, one full block
/// of the long-row kernel), so a few long rows (arrow matrices such as bloweybq) no longer pad
/// their slices and serialize on one thread, while regular matrices keep no long part.
SellpParams choose_sellp_params(const CsrView<double>& a);
SellpParams choose_sellp_params(const CsrView<float>& a);

/// The long_row_threshold of choose_sellp_params: max(256, 16 * ceil(nnz / num_rows)), clamped to
/// the index_type range (256 when num_rows == 0). Pure function of the sizes.
index_type default_long_row_threshold(std::int64_t num_rows, std::int64_t nnz);

namespace reference {

/// CPU reference of every CSR SpMV (scalar and vector compute the same product).
template <typename T>
void csr(const CsrView<T>& a, T alpha, const T* x, T beta, T* y);

/// CPU reference of CSR-Adaptive SpMV, computed block by block from the view's plan (so it checks
/// the plan as well: a row no block or long row covers keeps its old y).
template <typename T>
void csr_adaptive(const CsrAdaptiveView<T>& a, T alpha, const T* x, T beta, T* y);

/// CPU reference of merge-based CSR SpMV, computed tile by tile and lane by lane from the view's
/// plan with the kernel's merge-path search (kernels/merge_path.hpp), in double: lanes' row
/// ends, the lanes' carries within a tile, and the runs' carries across tiles are summed per
/// row and every row is stored once, so it checks the plan as well (throws
/// std::invalid_argument when a coordinate is not on the merge path of its diagonal, a row is
/// ended by no lane or by two, or the runs are not exactly the tiles that end inside a row).
/// a.carries is not used.
template <typename T>
void csr_merge(const CsrMergeView<T>& a, T alpha, const T* x, T beta, T* y);

/// CPU reference of SELL-P SpMV, computed from the SELL-P arrays themselves (so it checks the
/// conversion as well as the kernel), long part included: y[row] = alpha*(slice entries + long
/// entries of the row) + beta*y[row], accumulated in double and rounded once.
template <typename T>
void sellp(const SellpView<T>& a, T alpha, const T* x, T beta, T* y);

}  // namespace reference
}  // namespace kbench::spmv
