// GPU tall-skinny QR (TSQR) and block orthogonalization (BOrth) of yamazaki2014 Sec. V, built on
// kernels/tall_skinny.hpp and kernels/dot.hpp. Methods, statuses and layouts as in
// solvers/orthogonalization/tsqr.hpp, whose CPU references these are tested against.
//
// Conventions:
// * V (n x k) and Q (n x kq) are column-major DEVICE arrays with leading dimension >= n;
//   1 <= k <= blas::max_block_columns.
// * Work runs on handles.stream; handles.blas and handles.solver must be bound to that stream by
//   the caller (cublasSetStream / cusolverDnSetStream). The small k x k factorizations (Cholesky
//   of the Gram matrix, the SVD of SVQR, the QR of CAQR's stacked R factors) run on the host,
//   so the Gram-based methods wait for the stream once per pass; tsqr returns after the stream
//   has finished the factorization.
// * Workspace: device scratch of at least the size query's bytes (CUB style); it holds nothing
//   between calls and must not be used by other work meanwhile.
// * Errors: std::invalid_argument naming the parameter for bad shapes, null pointers or a small
//   workspace (before any CUDA call); kbench::cuda_error / cublas_error / cusolver failures as
//   std::runtime_error. Numerical failure is a status (TsqrOutcome), never an exception.
#pragma once

#include "solvers/orthogonalization/tsqr.hpp"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cusolverDn.h>

#include <cstddef>
#include <cstdint>

namespace kbench::ortho {

/// The stream and library handles a TSQR or BOrth call works with (not owned).
struct GpuHandles {
    cudaStream_t stream = nullptr;
    cublasHandle_t blas = nullptr;        // host pointer mode, bound to stream
    cusolverDnHandle_t solver = nullptr;  // bound to stream; used by CAQR only (may be null
                                          // for the other methods)
};

/// CAQR's row-block height on the GPU when block_rows == 0: the rows split into at most
/// 8 blocks (each a cuSOLVER geqrf + orgqr), each of at least k rows.
std::int64_t caqr_default_block_rows(std::int64_t n, int k);

/// Bytes of device workspace tsqr needs for this method and shape (CAQR asks cuSOLVER for its
/// buffer sizes through handles.solver). Throws std::invalid_argument as tsqr does.
std::size_t tsqr_workspace_bytes(TsqrMethod method, const GpuHandles& handles, std::int64_t n,
                                 int k, int value_bytes, std::int64_t block_rows = 0);

/// TSQR of the device block V in place (V := Q) on the GPU; R (k x k, ldr >= k) is a HOST array
/// written in full (upper triangle, zeros below). Method by method:
/// * mgs: right-looking MGS; per column a norm, a scaling, one one-pass V^T v (mdgm) over the
///   remaining columns and a rank-1 update (gemm_rowwise).
/// * cgs / cgs2: per column one (two) one-pass V^T v (mdgm) over the previous columns and their
///   update v -= V h, then the norm and scaling.
/// * cholqr / cholqr2 / shifted_cholqr3: per pass the Gram matrix (blas::gram), its Cholesky
///   factor on the host, V := V U^-1 (blas::trsm_right_upper).
/// * svqr: the Gram matrix, the scaled eigen/QR factorization on the host, V := V M
///   (blas::gemm_rowwise).
/// * caqr: cuSOLVER geqrf + orgqr on each row block of block_rows rows (0: the default above;
///   block_rows >= n is one block, i.e. cuSOLVER's own QR), the stacked R factors' QR on the
///   host, then each block's Q times its part of the stacked Q (blas::gemm_rowwise). cuSOLVER
///   indexes with int: when ld k exceeds INT_MAX each block is factored in a staging copy
///   (two extra passes over V), and a block of more than INT_MAX / k rows is rejected by the
///   size query and by tsqr (std::invalid_argument naming "CAQR block rows x k").
/// Rank deficiency of the Gram-Schmidt methods is judged against the norm of the column before
/// its projections, reconstructed as the 2-norm of its column of R. Source: yamazaki2014 Sec.
/// V-B; Fukaya et al. 2020 (shifted CholQR3).
template <typename T>
TsqrOutcome tsqr(TsqrMethod method, const GpuHandles& handles, std::int64_t n, int k, T* V,
                 std::int64_t ld, T* R, int ldr, void* workspace, std::size_t workspace_bytes,
                 std::int64_t block_rows = 0);

/// Block orthogonalization schemes (yamazaki2014 Sec. V-A): block classical Gram-Schmidt in one
/// or two passes, or block modified Gram-Schmidt (one basis column at a time).
enum class BorthMethod { cgs, cgs2, mgs };

const char* to_string(BorthMethod method);
/// "cgs", "cgs2", "mgs"; throws std::invalid_argument listing them for anything else.
BorthMethod parse_borth_method(const std::string& name);

/// Bytes of device workspace borth needs. Throws std::invalid_argument as borth does.
std::size_t borth_workspace_bytes(BorthMethod method, std::int64_t n, int kq, int kv,
                                  int value_bytes);

/// BOrth: V := V - Q C with C = Q^T V (accumulated over the passes), making V orthogonal to the
/// kq orthonormal columns of Q. Q is n x kq (ldq), V is n x kv (ldv), both on the device,
/// 1 <= kq <= 4 * blas::max_block_columns (processed in chunks of max_block_columns columns),
/// 1 <= kv <= blas::max_block_columns; C is a kq x kv DEVICE array (ldc >= kq), overwritten.
/// Asynchronous on handles.stream (no host round trip). cgs: one Gram product Q^T V and one
/// update; cgs2: that twice, C the sum; mgs: per column q_i, c = V^T q_i (mdgm) and
/// V -= q_i c^T. Source: yamazaki2014 Sec. V-A (BOrth of CA-GMRES), Fig. 9.
template <typename T>
void borth(BorthMethod method, const GpuHandles& handles, std::int64_t n, int kq, const T* Q,
           std::int64_t ldq, int kv, T* V, std::int64_t ldv, T* C, int ldc, void* workspace,
           std::size_t workspace_bytes);

}  // namespace kbench::ortho
