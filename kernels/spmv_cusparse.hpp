// Vendor baselines: cuSPARSE generic SpMV (cusparseSpMV) on CSR and on sliced ELL.
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
};

/// y = alpha*A*x + beta*y through cusparseSpMV. The constructor builds the cuSPARSE descriptors
/// (uploading its own copy of A in the requested storage), queries and allocates the workspace
/// and runs cusparseSpMV_preprocess, so that run() does only the product. x and y are device
/// arrays of num_cols and num_rows entries that must outlive this object.
/// Throws kbench::cuda_error on any cuSPARSE/CUDA failure.
template <typename T>
class CusparseSpmv {
public:
    CusparseSpmv(const Csr<T>& a, CusparseFormat format, const T* x, T* y);
    ~CusparseSpmv();
    CusparseSpmv(const CusparseSpmv&) = delete;
    CusparseSpmv& operator=(const CusparseSpmv&) = delete;

    /// Enqueues the product on `stream` (the handle's stream is set to it).
    void run(T alpha, T beta, cudaStream_t stream);
    /// Device bytes of the matrix in cuSPARSE's storage (values + indices + pointers).
    std::size_t matrix_bytes() const;
    /// Stored entries including padding (== nnz for CSR).
    std::size_t stored_entries() const;

private:
    struct State;
    std::unique_ptr<State> state_;
};

}  // namespace kbench::spmv
