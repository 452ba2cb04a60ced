// CPU reference SpMM (twin of kernels/spmm.cu): one CSR product per column, accumulated in
// double and rounded once.
#include "kernels/spmm.hpp"

#include <stdexcept>
#include <string>

namespace kbench::spmm::reference {

template <typename T>
void csr(const CsrView<T>& a, T alpha, const T* x, index_type ldx, T beta, T* y, index_type ldy,
         index_type k)
{
    if (k < 0 || ldx < a.num_cols || ldy < a.num_rows)
        throw std::invalid_argument("spmm::reference::csr: k = " + std::to_string(k) +
                                    ", ldx = " + std::to_string(ldx) + ", ldy = " +
                                    std::to_string(ldy) + ", expected k >= 0, ldx >= " +
                                    std::to_string(a.num_cols) + ", ldy >= " +
                                    std::to_string(a.num_rows));
    for (index_type j = 0; j < k; ++j) {
        const T* xj = x + std::int64_t{j} * ldx;
        T* yj = y + std::int64_t{j} * ldy;
        for (index_type i = 0; i < a.num_rows; ++i) {
            double sum = 0.0;
            for (index_type e = a.row_ptr[i]; e < a.row_ptr[i + 1]; ++e)
                sum += double(a.values[e]) * double(xj[a.col_idx[e]]);
            const double out = double(alpha) * sum + (beta == T{0} ? 0.0 : double(beta) * double(yj[i]));
            yj[i] = static_cast<T>(out);
        }
    }
}

template void csr<float>(const CsrView<float>&, float, const float*, index_type, float, float*,
                         index_type, index_type);
template void csr<double>(const CsrView<double>&, double, const double*, index_type, double,
                          double*, index_type, index_type);

}  // namespace kbench::spmm::reference
