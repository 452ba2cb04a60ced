// Merge-path search of the merge-based CSR SpMV (Merrill & Garland, "Merge-based parallel sparse
// matrix-vector multiplication", SC16, Sec. 4 and Alg. 2), shared by the host plan
// (kernels/spmv_plan.cpp), the CPU reference and the GPU kernel (kernels/spmv.cu), so all three
// split the merge path identically. Plain C++ (host and device when compiled by nvcc).
//
// The merge path of a CSR matrix of n rows and nnz nonzeros merges list A, the row end offsets
// row_end[i] = row_ptr[i + 1] (i < n), with list B, the nonzero indices 0, 1, ..., nnz - 1:
// at coordinate (i, j) (i rows ended, j nonzeros consumed) nonzero j is consumed next when
// j < row_end[i], else row i ends (ties: the row end first, so that nonzero j = row_ptr[i + 1]
// goes to a later row). The path has n + nnz items; diagonal d is the set of coordinates with
// i + j = d, and the path crosses it at exactly one coordinate.
#pragma once

#include <cstdint>

#ifdef __CUDACC__
#define KBENCH_HOST_DEVICE __host__ __device__
#else
#define KBENCH_HOST_DEVICE
#endif

namespace kbench::spmv::merge_path {

/// A point of the merge path: `row` row ends and `nz` nonzeros consumed.
template <typename I>
struct Coord {
    I row;
    I nz;
};

/// The coordinate where the merge path of `num_rows` row ends row_end[0..num_rows) (non-
/// decreasing, row_end[num_rows - 1] == nnz) and `nnz` nonzeros crosses diagonal `diagonal`
/// (0 <= diagonal <= num_rows + nnz): the largest i in [max(0, d - nnz), min(d, num_rows)]
/// such that row_end[i - 1] <= d - i, i.e. every one of the first i row ends precedes the
/// (d - i)-th nonzero (M&G SC16 Alg. 2, MergePathSearch). O(log min(d, num_rows)) reads of
/// row_end, all within [max(0, d - nnz), min(d, num_rows) - 1]. I is a signed integer type
/// wide enough for num_rows + nnz (int64 for whole matrices, int within a tile).
template <typename I, typename RowEnd>
KBENCH_HOST_DEVICE inline Coord<I> search(I diagonal, const RowEnd* row_end, I num_rows, I nnz)
{
    I lo = diagonal > nnz ? diagonal - nnz : I{0};
    I hi = diagonal < num_rows ? diagonal : num_rows;
    while (lo < hi) {
        const I pivot = lo + (hi - lo) / 2;
        // Row end `pivot` is among the first `diagonal` items iff it precedes nonzero
        // diagonal - pivot - 1 (ties go to the row end).
        if (static_cast<I>(row_end[pivot]) <= diagonal - pivot - 1) lo = pivot + 1;
        else hi = pivot;
    }
    return {lo, diagonal - lo};
}

}  // namespace kbench::spmv::merge_path
