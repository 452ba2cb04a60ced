// Device-resident copies of the host sparse formats (matrices/csr.hpp, matrices/sellp.hpp).
#pragma once

#include "kernels/base/device_buffer.hpp"
#include "kernels/spmv_plan.hpp"
#include "matrices/csr.hpp"
#include "matrices/sellp.hpp"

#include <vector>

namespace kbench {

/// A CSR matrix uploaded to the device. Throws kbench::cuda_error when allocation fails.
template <typename T>
struct DeviceCsr {
    index_type num_rows = 0, num_cols = 0, nnz = 0;
    device_buffer<index_type> row_ptr, col_idx;
    device_buffer<T> values;

    explicit DeviceCsr(const Csr<T>& a)
        : num_rows{a.num_rows}, num_cols{a.num_cols}, nnz{a.nnz()},
          row_ptr{a.row_ptr}, col_idx{a.col_idx}, values{a.values}
    {}
    CsrView<T> view() const
    {
        return {num_rows, num_cols, nnz, row_ptr.data(), col_idx.data(), values.data()};
    }
};

/// A CSR matrix and its CSR-Adaptive plan (kernels/spmv_plan.hpp) on the device. Throws
/// kbench::cuda_error when allocation fails.
template <typename T>
struct DeviceCsrAdaptive {
    DeviceCsr<T> csr;
    device_buffer<CsrRowBlock> blocks;
    device_buffer<index_type> long_rows;

    DeviceCsrAdaptive(const Csr<T>& a, const CsrAdaptivePlan& plan)
        : csr{a}, blocks{plan.blocks}, long_rows{plan.long_rows}
    {}
    CsrAdaptiveView<T> view() const
    {
        return {csr.view(), static_cast<index_type>(blocks.size()), blocks.data(),
                static_cast<index_type>(long_rows.size()), long_rows.data()};
    }
};

/// A CSR matrix, its merge-based plan (kernels/spmv_plan.hpp) and the kernel's carry-out
/// workspace (num_tiles values, allocated here once, not per product) on the device. Throws
/// kbench::cuda_error when allocation fails.
template <typename T>
struct DeviceCsrMerge {
    DeviceCsr<T> csr;
    device_buffer<CsrMergeCoord> coords;
    device_buffer<CsrMergeRun> runs;
    mutable device_buffer<T> carries;  // workspace: written by every product

    DeviceCsrMerge(const Csr<T>& a, const CsrMergePlan& plan)
        : csr{a}, coords{plan.coords}, runs{plan.runs},
          carries{static_cast<std::size_t>(plan.num_tiles())}
    {}
    std::int64_t num_tiles() const { return static_cast<std::int64_t>(coords.size()) - 1; }
    CsrMergeView<T> view() const
    {
        return {csr.view(),
                static_cast<index_type>(num_tiles()),
                coords.data(),
                static_cast<index_type>(runs.size()),
                runs.data(),
                carries.data()};
    }
};

/// A SELL-P matrix uploaded to the device, long-row part included (matrices/sellp.hpp).
/// Throws kbench::cuda_error when allocation fails.
template <typename T>
struct DeviceSellp {
    index_type num_rows = 0, num_cols = 0, nnz = 0;
    SellpParams params;
    index_type num_slices = 0;
    index_type num_long_rows = 0;
    device_buffer<index_type> slice_ptr, col_idx, row_perm;
    device_buffer<T> values;
    device_buffer<index_type> long_rows, long_row_ptr, long_col_idx;  // long-row CSR part
    device_buffer<T> long_values;

    explicit DeviceSellp(const Sellp<T>& a)
        : num_rows{a.num_rows}, num_cols{a.num_cols}, nnz{a.nnz}, params{a.params},
          num_slices{a.num_slices()}, num_long_rows{a.num_long_rows()}, slice_ptr{a.slice_ptr},
          col_idx{a.col_idx}, row_perm{a.row_perm}, values{a.values}, long_rows{a.long_rows},
          long_row_ptr{a.long_rows.empty() ? std::vector<index_type>{} : a.long_row_ptr},
          long_col_idx{a.long_col_idx}, long_values{a.long_values}
    {}
    SellpView<T> view() const
    {
        const bool split = num_long_rows > 0;
        return {num_rows,
                num_cols,
                nnz,
                params.slice_height,
                params.threads_per_row,
                num_slices,
                slice_ptr.data(),
                col_idx.data(),
                values.data(),
                row_perm.empty() ? nullptr : row_perm.data(),
                num_long_rows,
                split ? long_rows.data() : nullptr,
                split ? long_row_ptr.data() : nullptr,
                split ? long_col_idx.data() : nullptr,
                split ? long_values.data() : nullptr};
    }
};

}  // namespace kbench
