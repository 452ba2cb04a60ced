// CSR-Adaptive row blocks (declarations in kernels/spmv_plan.hpp).
#include "kernels/spmv_plan.hpp"

#include <stdexcept>
#include <string>

namespace kbench {

template <typename T>
CsrAdaptivePlan make_csr_adaptive_plan(const CsrView<T>& a)
{
    if (a.num_rows < 0 || a.num_cols < 0 || a.nnz < 0)
        throw std::invalid_argument("make_csr_adaptive_plan: negative size (" +
                                    std::to_string(a.num_rows) + " x " +
                                    std::to_string(a.num_cols) + ", nnz " +
                                    std::to_string(a.nnz) + "), expected sizes >= 0");
    if (a.num_rows > 0 && a.row_ptr == nullptr)
        throw std::invalid_argument("make_csr_adaptive_plan: row_ptr is null for " +
                                    std::to_string(a.num_rows) + " rows");
    constexpr index_type cap = csr_adaptive_block_nnz;
    CsrAdaptivePlan plan;
    const index_type* rp = a.row_ptr;
    index_type r = 0;
    while (r < a.num_rows) {
        if (rp[r + 1] - rp[r] > cap) {
            plan.long_rows.push_back(r++);
            continue;
        }
        CsrRowBlock b;
        b.row_begin = r;
        b.nnz_begin = rp[r];
        while (r < a.num_rows && r - b.row_begin < cap && rp[r + 1] - rp[r] <= cap &&
               rp[r + 1] - b.nnz_begin <= cap) {
            ++r;
        }
        b.row_end = r;
        b.nnz_end = rp[r];
        plan.blocks.push_back(b);
    }
    return plan;
}

template CsrAdaptivePlan make_csr_adaptive_plan<float>(const CsrView<float>&);
template CsrAdaptivePlan make_csr_adaptive_plan<double>(const CsrView<double>&);

}  // namespace kbench
