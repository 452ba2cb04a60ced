// Blocked banded LU without pivoting on batched cuBLAS, for the partitions of SpikeSolver whose
// elimination window, (K+1)(2K+1) values, does not fit in one thread block's shared memory
// (on Hopper: K >= 120 in double, K >= 128 in float). li2012 Sec. 2.2 factors each partition with one thread block
// sliding over the band; with the window in global memory every one of the n_i elimination steps
// then waits on K^2 dependent global read-modify-writes (kbench, H100: 0.63 s at N = 4e5,
// K = 128). Here a partition of n_i rows is viewed as block tridiagonal with K x K blocks
// (kl = ku = K: block row j couples only to block rows j - 1 and j + 1), so that
//   D_0 = L_0 U_0;  for j >= 0:  C_j := C_j U_j^{-1},  B_j := L_j^{-1} B_j,
//                                D_{j+1} := D_{j+1} - C_j B_j = L_{j+1} U_{j+1},
// with D_j the diagonal blocks, B_j = A(block j, block j+1) (lower triangular) and
// C_j = A(block j+1, block j) (upper triangular). Every partition's step j runs as one batched
// cuBLAS call per operation (getrf without pivoting, two trsm, one gemm): ceil(n_i / K) steps of
// four calls in all, each over every partition at once. LU without pivoting is unique, so L and
// U are those of the element-wise elimination up to rounding; they are written back into the
// band storage, where the other SPIKE kernels read them. A block row past the partition's end is
// padded with the identity.
#pragma once

#include "kernels/base/cuda_handles.hpp"
#include "kernels/base/device_buffer.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <vector>

namespace kbench::solvers::spike::detail {

/// One square diagonal block of a band matrix to factor in place (band storage, ldab = 2K + 1,
/// entry (r, c) of the block at a[(K + r - c) + c * ldab] for |r - c| <= K).
template <typename T>
struct BandBlock {
    T* a = nullptr;              // device: column 0 of the block
    const T* scale = nullptr;    // device: the row scale of the block's row 0 (bad-pivot test)
    int scale_stride = 1;        // row k's scale at scale[k * scale_stride] (+1, or -1 for UL)
    int rows = 0;                // n_i >= 1
    int status_slot = 0;         // status[status_slot] := status_base + first bad step
    int status_base = 0;
};

/// Owner of the workspace of the blocked LU (dense K x K blocks, the batched pointer arrays),
/// reused across factor() calls; move-only.
template <typename T>
class BlockedBandLu {
public:
    /// Factors every block of `blocks` (rows >= 1 each; they must not overlap) in place, in
    /// stream order on `stream` (which `blas` is set to), K >= 1 the half-bandwidth. status: device array; for each block
    /// whose pivot k fails the bad-pivot test of band_lu_kernel (non-finite, or |u_kk| <= eps x
    /// the row's scale) status[status_slot] = status_base + the first such k; other slots are
    /// left as they are. Synchronizes on the host while uploading the block list (pageable
    /// copies); the factorization itself is asynchronous. Throws std::invalid_argument for
    /// K < 1 or a block with rows < 1, kbench::cuda_error on CUDA or cuBLAS failures.
    /// Device memory: (3 ceil(n_i / K) - 2) K^2 values and 4 ceil(n_i / K) pointers per block.
    void factor(const std::vector<BandBlock<T>>& blocks, int K, int* status, cublasHandle_t blas,
                cudaStream_t stream);

private:
    device_buffer<T> dense_;
    device_buffer<T*> pointers_;
    device_buffer<unsigned char> entries_;
    device_buffer<int> info_;
};

/// LU with partial pivoting (cuBLAS getrfBatched) of `count` dense m x m column-major matrices
/// (leading dimension m) stored one after another from `a`, in place, on `stream` (which `blas`
/// is set to). ipiv: device array of count x m 1-based LAPACK pivots; info: device array of
/// count (cuBLAS's zero-pivot report); pointers: scratch for the batch's pointer array, grown as
/// needed (synchronous upload). Throws kbench::cuda_error on CUDA or cuBLAS failures.
template <typename T>
void batched_dense_lu(T* a, int m, int count, int* ipiv, int* info, device_buffer<T*>& pointers,
                      cublasHandle_t blas, cudaStream_t stream);

/// y_t := U_t^{-1} L_t^{-1} y_t for t < corners.size(), on `stream` (which `blas` is set to):
/// y_t = rhs[t] a K x K column-major device matrix (leading dimension K), L_t (unit lower) and
/// U_t (upper) the K x K corner of band-storage LU factors (ldab = 2K + 1) at corners[t] = the
/// address of the corner's entry (0, 0). The corner is read as a dense matrix of leading
/// dimension 2K: entry (r, c) of the band sits at (K + r - c) + c (2K + 1) = K + r + 2K c from
/// the column's start, and each triangle a solve references has |r - c| < K (two batched cuBLAS
/// trsm; li2012 Sec. 1.3's spike tips). pointers: as batched_dense_lu. Throws kbench::cuda_error.
template <typename T>
void batched_corner_solves(const std::vector<const T*>& corners, const std::vector<T*>& rhs, int K,
                           device_buffer<T*>& pointers, cublasHandle_t blas, cudaStream_t stream);

}  // namespace kbench::solvers::spike::detail
