// Sparse times dense-block products Y = alpha*A*X + beta*Y (SpMM) for block Krylov methods
// (block GMRES: boman2022; matrix powers: yamazaki2014): host launchers for the GPU kernels and
// their CPU reference twin (same arguments, host pointers, no stream).
//
// Conventions: X is num_cols x k and Y num_rows x k, both column-major with leading dimensions
// ldx >= num_cols and ldy >= num_rows (column j of X starts at x + j*ldx). The matrix is read
// once per chunk of up to 4 columns (each thread keeps one accumulator per column of the
// chunk). When beta == 0, Y is not read. Launchers enqueue on `stream` and do not synchronize;
// they throw std::invalid_argument for k < 0, a leading dimension smaller than the rows it spans
// or an unsupported view, and kbench::cuda_error on a launch failure. T is float or double.
#pragma once

#include "matrices/csr.hpp"
#include "matrices/sellp.hpp"

#include <cuda_runtime_api.h>

namespace kbench::spmm {

/// CSR SpMM, a sub-warp of `subwarp` lanes (2..32, 0 = from the mean row length as
/// spmv::choose_csr_subwarp) per row, as spmv::csr_vector with one accumulator per column.
template <typename T>
void csr_vector(const CsrView<T>& a, T alpha, const T* x, index_type ldx, T beta, T* y,
                index_type ldy, index_type k, cudaStream_t stream, int subwarp = 0);

/// SELL-P SpMM (layout of matrices/sellp.hpp, long-row part and row permutation included), as
/// spmv::sellp with one accumulator per column.
template <typename T>
void sellp(const SellpView<T>& a, T alpha, const T* x, index_type ldx, T beta, T* y,
           index_type ldy, index_type k, cudaStream_t stream);

namespace reference {

/// CPU reference: column by column CSR products accumulated in double.
template <typename T>
void csr(const CsrView<T>& a, T alpha, const T* x, index_type ldx, T beta, T* y, index_type ldy,
         index_type k);

}  // namespace reference
}  // namespace kbench::spmm
