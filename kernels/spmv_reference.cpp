// CPU reference SpMV (twins of kernels/spmv.cu). Products are accumulated in double, so the
// reference is at least as accurate as the kernels, which accumulate in T.
#include "kernels/spmv.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace kbench::spmv::reference {
namespace {

template <typename T>
void store(T* y, index_type row, T alpha, double sum, T beta)
{
    const double out = double(alpha) * sum + (beta == T{0} ? 0.0 : double(beta) * double(y[row]));
    y[row] = static_cast<T>(out);
}

}  // namespace

template <typename T>
void csr(const CsrView<T>& a, T alpha, const T* x, T beta, T* y)
{
    if (a.num_rows < 0 || a.num_cols < 0)
        throw std::invalid_argument("spmv::reference::csr: negative dimension " +
                                    std::to_string(a.num_rows) + " x " +
                                    std::to_string(a.num_cols));
    for (index_type i = 0; i < a.num_rows; ++i) {
        double sum = 0.0;
        for (index_type k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k)
            sum += double(a.values[k]) * double(x[a.col_idx[k]]);
        store(y, i, alpha, sum, beta);
    }
}

template <typename T>
void sellp(const SellpView<T>& a, T alpha, const T* x, T beta, T* y)
{
    validate_view(a, "spmv::reference::sellp");
    const index_type b = a.slice_height;
    // Sum of a row's long-part entries (0 for a row that is not long; long_rows is increasing).
    const index_type* long_end = a.long_rows == nullptr ? nullptr : a.long_rows + a.num_long_rows;
    const auto long_sum = [&](index_type orig) {
        const index_type* it = std::lower_bound(a.long_rows, long_end, orig);
        if (it == long_end || *it != orig) return 0.0;
        const std::ptrdiff_t k = it - a.long_rows;
        double sum = 0.0;
        for (index_type e = a.long_row_ptr[k]; e < a.long_row_ptr[k + 1]; ++e)
            sum += double(a.long_values[e]) * double(x[a.long_col_idx[e]]);
        return sum;
    };
    for (index_type s = 0; s < a.num_slices; ++s) {
        const index_type len = (a.slice_ptr[s + 1] - a.slice_ptr[s]) / b;
        for (index_type r = 0; r < b; ++r) {
            const index_type row = s * b + r;
            if (row >= a.num_rows) break;
            double sum = 0.0;
            for (index_type j = 0; j < len; ++j) {
                const std::size_t k = std::size_t(a.slice_ptr[s]) + std::size_t(j) * b + r;
                sum += double(a.values[k]) * double(x[a.col_idx[k]]);
            }
            const index_type orig = a.row_perm == nullptr ? row : a.row_perm[row];
            store(y, orig, alpha, sum + long_sum(orig), beta);
        }
    }
}

template <typename T>
void csr_adaptive(const CsrAdaptiveView<T>& a, T alpha, const T* x, T beta, T* y)
{
    const CsrView<T>& m = a.csr;
    const auto row_sum = [&](index_type i) {
        double sum = 0.0;
        for (index_type k = m.row_ptr[i]; k < m.row_ptr[i + 1]; ++k)
            sum += double(m.values[k]) * double(x[m.col_idx[k]]);
        return sum;
    };
    for (index_type b = 0; b < a.num_blocks; ++b) {
        const CsrRowBlock& blk = a.blocks[b];
        if (blk.row_begin < 0 || blk.row_end > m.num_rows || blk.row_begin >= blk.row_end ||
            blk.nnz_begin != m.row_ptr[blk.row_begin] || blk.nnz_end != m.row_ptr[blk.row_end])
            throw std::invalid_argument("spmv::reference::csr_adaptive: row block " +
                                        std::to_string(b) + " does not match the matrix");
        for (index_type i = blk.row_begin; i < blk.row_end; ++i) store(y, i, alpha, row_sum(i), beta);
    }
    for (index_type k = 0; k < a.num_long_rows; ++k) {
        const index_type i = a.long_rows[k];
        if (i < 0 || i >= m.num_rows)
            throw std::invalid_argument("spmv::reference::csr_adaptive: long row " +
                                        std::to_string(i) + " out of range");
        store(y, i, alpha, row_sum(i), beta);
    }
}

template void csr<float>(const CsrView<float>&, float, const float*, float, float*);
template void csr<double>(const CsrView<double>&, double, const double*, double, double*);
template void sellp<float>(const SellpView<float>&, float, const float*, float, float*);
template void sellp<double>(const SellpView<double>&, double, const double*, double, double*);
template void csr_adaptive<float>(const CsrAdaptiveView<float>&, float, const float*, float,
                                  float*);
template void csr_adaptive<double>(const CsrAdaptiveView<double>&, double, const double*, double,
                                   double*);

}  // namespace kbench::spmv::reference
