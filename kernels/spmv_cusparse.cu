// cuSPARSE generic-API SpMV baselines on CSR and sliced ELL (declarations in
// kernels/spmv_cusparse.hpp).
#include "kernels/spmv_cusparse.hpp"

#include "kernels/base/nvtx.hpp"

#include "matrices/sellp.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace kbench::spmv {
namespace {

template <typename T>
constexpr cudaDataType value_type_of()
{
    return std::is_same_v<T, float> ? CUDA_R_32F : CUDA_R_64F;
}

}  // namespace

template <typename T>
struct CusparseSpmv<T>::State {
    cusparse_handle handle;
    CusparseFormat format{};
    device_buffer<index_type> ptr;  // CSR row pointers or sliced-ELL slice offsets
    device_buffer<index_type> col_idx;
    device_buffer<T> values;
    device_buffer<char> workspace;
    device_buffer<char> spmm_workspace;
    index_type num_rows = 0, num_cols = 0;
    cusparseSpMatDescr_t mat = nullptr;
    cusparseDnVecDescr_t vec_x = nullptr;
    cusparseDnVecDescr_t vec_y = nullptr;
    std::size_t stored = 0;

    cusparseSpMVAlg_t algorithm() const
    {
        switch (format) {
        case CusparseFormat::csr: return CUSPARSE_SPMV_CSR_ALG1;
        case CusparseFormat::csr_alg2: return CUSPARSE_SPMV_CSR_ALG2;
        default: return CUSPARSE_SPMV_SELL_ALG1;
        }
    }
    ~State()
    {
        // Destruction must not throw: statuses are ignored (nothing useful can be done).
        if (vec_y != nullptr) cusparseDestroyDnVec(vec_y);
        if (vec_x != nullptr) cusparseDestroyDnVec(vec_x);
        if (mat != nullptr) cusparseDestroySpMat(mat);
    }
};

/// Sliced ELL is built with to_sellp(b = 32, t = 1, sigma = 1), whose layout (column-major
/// slices, element offsets) is cuSPARSE's; padding columns are set to -1 as cuSPARSE requires.
template <typename T>
CusparseSpmv<T>::CusparseSpmv(const Csr<T>& a, CusparseFormat format)
    : state_{std::make_unique<State>()}
{
    State& st = *state_;
    st.format = format;
    st.num_rows = a.num_rows;
    st.num_cols = a.num_cols;
    constexpr cudaDataType vt = value_type_of<T>();
    if (format == CusparseFormat::csr || format == CusparseFormat::csr_alg2) {
        st.ptr = device_buffer<index_type>(a.row_ptr);
        st.col_idx = device_buffer<index_type>(a.col_idx);
        st.values = device_buffer<T>(a.values);
        st.stored = a.values.size();
        KBENCH_CUSPARSE_CHECK(cusparseCreateCsr(
            &st.mat, a.num_rows, a.num_cols, a.nnz(), st.ptr.data(), st.col_idx.data(),
            st.values.data(), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
            vt));
    } else {
        constexpr index_type slice = 32;
        Sellp<T> s = to_sellp(a, SellpParams{slice, 1, 1});
        // Padding entries are exactly those past each row's length.
        for (index_type sl = 0; sl < s.num_slices(); ++sl) {
            const index_type len = (s.slice_ptr[sl + 1] - s.slice_ptr[sl]) / slice;
            for (index_type r = 0; r < slice; ++r) {
                const index_type row = sl * slice + r;
                const index_type row_len =
                    row < a.num_rows ? a.row_ptr[row + 1] - a.row_ptr[row] : 0;
                for (index_type j = row_len; j < len; ++j)
                    s.col_idx[std::size_t(s.slice_ptr[sl]) + std::size_t(j) * slice + r] = -1;
            }
        }
        st.ptr = device_buffer<index_type>(s.slice_ptr);
        st.col_idx = device_buffer<index_type>(s.col_idx);
        st.values = device_buffer<T>(s.values);
        st.stored = s.values.size();
        KBENCH_CUSPARSE_CHECK(cusparseCreateSlicedEll(
            &st.mat, a.num_rows, a.num_cols, a.nnz(), static_cast<std::int64_t>(st.stored),
            slice, st.ptr.data(), st.col_idx.data(), st.values.data(), CUSPARSE_INDEX_32I,
            CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, vt));
    }
    // Workspace query and preprocessing need vectors: scratch ones, replaced in every run().
    device_buffer<T> x(std::max<std::size_t>(1, std::size_t(a.num_cols)));
    device_buffer<T> y(std::max<std::size_t>(1, std::size_t(a.num_rows)));
    KBENCH_CUSPARSE_CHECK(cusparseCreateDnVec(&st.vec_x, a.num_cols, x.data(), vt));
    KBENCH_CUSPARSE_CHECK(cusparseCreateDnVec(&st.vec_y, a.num_rows, y.data(), vt));
    const T alpha{1}, beta{0};
    std::size_t bytes = 0;
    KBENCH_CUSPARSE_CHECK(cusparseSpMV_bufferSize(st.handle, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                                  &alpha, st.mat, st.vec_x, &beta, st.vec_y, vt,
                                                  st.algorithm(), &bytes));
    st.workspace = device_buffer<char>(bytes);
    KBENCH_CUSPARSE_CHECK(cusparseSpMV_preprocess(
        st.handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, st.mat, st.vec_x, &beta, st.vec_y,
        vt, st.algorithm(), st.workspace.data()));
    // Preprocessing ran on the handle's default stream; run() may use a non-blocking one.
    KBENCH_CUDA_CHECK(cudaDeviceSynchronize());
}

template <typename T>
CusparseSpmv<T>::~CusparseSpmv() = default;

template <typename T>
void CusparseSpmv<T>::run(T alpha, const T* x, T beta, T* y, cudaStream_t stream)
{
    KBENCH_NVTX_RANGE("spmv::cusparse_run");
    State& st = *state_;
    KBENCH_CUSPARSE_CHECK(cusparseDnVecSetValues(st.vec_x, const_cast<T*>(x)));
    KBENCH_CUSPARSE_CHECK(cusparseDnVecSetValues(st.vec_y, y));
    KBENCH_CUSPARSE_CHECK(cusparseSetStream(st.handle, stream));
    KBENCH_CUSPARSE_CHECK(cusparseSpMV(st.handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha,
                                       st.mat, st.vec_x, &beta, st.vec_y, value_type_of<T>(),
                                       st.algorithm(), st.workspace.data()));
}

template <typename T>
void CusparseSpmv<T>::run_block(T alpha, const T* x, index_type ldx, T beta, T* y,
                                index_type ldy, index_type k, cudaStream_t stream)
{
    KBENCH_NVTX_RANGE("spmv::cusparse_run_block");
    State& st = *state_;
    if (k < 0 || ldx < std::max<index_type>(st.num_cols, 1) ||
        ldy < std::max<index_type>(st.num_rows, 1))
        throw std::invalid_argument("CusparseSpmv::run_block: k = " + std::to_string(k) +
                                    ", ldx = " + std::to_string(ldx) + ", ldy = " +
                                    std::to_string(ldy) + ", expected k >= 0, ldx >= " +
                                    std::to_string(st.num_cols) + ", ldy >= " +
                                    std::to_string(st.num_rows));
    if (k == 0) return;
    if (st.format == CusparseFormat::sliced_ell) {
        for (index_type j = 0; j < k; ++j)
            run(alpha, x + std::int64_t{j} * ldx, beta, y + std::int64_t{j} * ldy, stream);
        return;
    }
    constexpr cudaDataType vt = value_type_of<T>();
    cusparseDnMatDescr_t mx = nullptr, my = nullptr;
    KBENCH_CUSPARSE_CHECK(cusparseCreateDnMat(&mx, st.num_cols, k, ldx, const_cast<T*>(x), vt,
                                              CUSPARSE_ORDER_COL));
    const auto destroy = [&] {
        if (my != nullptr) cusparseDestroyDnMat(my);
        cusparseDestroyDnMat(mx);
    };
    try {
        KBENCH_CUSPARSE_CHECK(cusparseCreateDnMat(&my, st.num_rows, k, ldy, y, vt,
                                                  CUSPARSE_ORDER_COL));
        KBENCH_CUSPARSE_CHECK(cusparseSetStream(st.handle, stream));
        std::size_t bytes = 0;
        KBENCH_CUSPARSE_CHECK(cusparseSpMM_bufferSize(
            st.handle, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha,
            st.mat, mx, &beta, my, vt, CUSPARSE_SPMM_CSR_ALG1, &bytes));
        if (bytes > st.spmm_workspace.size()) st.spmm_workspace = device_buffer<char>(bytes);
        KBENCH_CUSPARSE_CHECK(cusparseSpMM(st.handle, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                           CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, st.mat, mx,
                                           &beta, my, vt, CUSPARSE_SPMM_CSR_ALG1,
                                           st.spmm_workspace.data()));
    } catch (...) {
        destroy();
        throw;
    }
    destroy();
}

template <typename T>
std::size_t CusparseSpmv<T>::matrix_bytes() const
{
    return state_->ptr.bytes() + state_->col_idx.bytes() + state_->values.bytes();
}

template <typename T>
std::size_t CusparseSpmv<T>::stored_entries() const
{
    return state_->stored;
}

template class CusparseSpmv<float>;
template class CusparseSpmv<double>;

}  // namespace kbench::spmv
