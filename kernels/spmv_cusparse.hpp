// Vendor baselines: cuSPARSE generic SpMV (cusparseSpMV) on CSR (ALG1, and the merge-based
// ALG2) and on sliced ELL.
#pragma once

#include "kernels/base/cuda_handles.hpp"
#include "kernels/base/device_buffer.hpp"
#include "matrices/csr.hpp"

#include <memory>
#include <string>

namespace kbench::spmv {

/// Which cuSPARSE storage the baseline uses.
enum class CusparseFormat {
    csr,         // cusparseCreateCsr, CUSPARSE_SPMV_CSR_ALG1
    sliced_ell,  // cusparseCreateSlicedEll (slice size 32, padding col -1), CUSPARSE_SPMV_SELL_ALG1
    csr_alg2,    // cusparseCreateCsr, CUSPARSE_SPMV_CSR_ALG2: cuSPARSE's merge-based CSR SpMV
                 // (equal work per thread whatever the row lengths; deterministic: the same
                 // result in every run, as the cuSPARSE documentation states for ALG2)
};

/// A matrix in cuSPARSE's storage, multiplied through cuSPARSE's generic API: y = alpha*A*x +
/// beta*y with cusparseSpMV, and Y = alpha*A*X + beta*Y on n x k column-major blocks with
/// cusparseSpMM (CSR, CUSPARSE_SPMM_CSR_ALG1; sliced ELL has no SpMM in cuSPARSE, so one SpMV
/// per column). The constructor uploads its own copy of A, queries and allocates the SpMV
/// workspace and runs cusparseSpMV_preprocess, so that a product does only the product; the
/// vectors are given per call (the descriptors' pointers are reset with cusparseDnVecSetValues).
/// Throws kbench::cuda_error on any cuSPARSE/CUDA failure.
template <typename T>
class CusparseSpmv {
public:
    CusparseSpmv(const Csr<T>& a, CusparseFormat format);
    ~CusparseSpmv();
    CusparseSpmv(const CusparseSpmv&) = delete;
    CusparseSpmv& operator=(const CusparseSpmv&) = delete;

    /// Enqueues y = alpha*A*x + beta*y on `stream` (x: num_cols, y: num_rows device entries).
    void run(T alpha, const T* x, T beta, T* y, cudaStream_t stream);
    /// Enqueues Y = alpha*A*X + beta*Y on `stream` (see kernels/spmm.hpp for the layout). A
    /// larger SpMM workspace than any before is allocated synchronously on first use.
    void run_block(T alpha, const T* x, index_type ldx, T beta, T* y, index_type ldy,
                   index_type k, cudaStream_t stream);
    /// Device bytes of the matrix in cuSPARSE's storage (values + indices + pointers).
    std::size_t matrix_bytes() const;
    /// Stored entries including padding (== nnz for CSR).
    std::size_t stored_entries() const;

private:
    struct State;
    std::unique_ptr<State> state_;
};

}  // namespace kbench::spmv
