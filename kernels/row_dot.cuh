// The inner loop shared by the SpMV (kernels/spmv.cu) and SpMM (kernels/spmm.cu) kernels: a
// thread's strided part of a sparse row times C columns of a dense block. Device code only.
#pragma once

#include "matrices/csr.hpp"

#include <cstdint>

namespace kbench::sparse_detail {

/// Independent entries a thread loads per step.
inline constexpr int row_dot_unroll = 4;

/// sum[j] += sum over entries k in [begin, end) with stride `stride` of values[k] *
/// x[col_idx[k] + j*ldx], j < C (x column-major with leading dimension ldx; C = 1 for SpMV).
/// Each step issues the column indices and values of row_dot_unroll entries (predicated past
/// the end, evict-first: the matrix is streamed once), then all their x gathers
/// unconditionally (an entry past the end gathers row 0 of x, valid since the step holds at
/// least one entry, hence x has >= 1 row), then the products, selected so that a non-finite
/// x[0] cannot leak into the sum. A thread thus waits for two load latencies per step. (With the
/// gathers predicated like the index loads, nvcc interleaves the two and fewer loads are in
/// flight: measured on an H100, CSR-Adaptive on a 2M-row matrix with random columns within a
/// band of +-2000 took 1.4x longer.)
template <typename T, int C>
__device__ __forceinline__ void strided_block_dot(const index_type* __restrict__ col_idx,
                                                  const T* __restrict__ values,
                                                  const T* __restrict__ x, std::int64_t ldx,
                                                  std::int64_t begin, std::int64_t end,
                                                  std::int64_t stride, T (&sum)[C])
{
    constexpr int unroll = row_dot_unroll;
    for (std::int64_t k = begin; k < end; k += unroll * stride) {
        index_type c[unroll];
        T v[unroll];
        T xv[unroll][C];
#pragma unroll
        for (int u = 0; u < unroll; ++u) {
            const std::int64_t kk = k + u * stride;
            c[u] = kk < end ? __ldcs(col_idx + kk) : 0;
            v[u] = kk < end ? __ldcs(values + kk) : T{0};
        }
#pragma unroll
        for (int u = 0; u < unroll; ++u) {
#pragma unroll
            for (int j = 0; j < C; ++j) xv[u][j] = __ldg(x + c[u] + j * ldx);
        }
#pragma unroll
        for (int u = 0; u < unroll; ++u) {
            if (k + u * stride >= end) continue;
#pragma unroll
            for (int j = 0; j < C; ++j) sum[j] += v[u] * xv[u][j];
        }
    }
}

/// One column (SpMV): returns the strided part of a row times x.
template <typename T>
__device__ __forceinline__ T strided_dot(const index_type* __restrict__ col_idx,
                                         const T* __restrict__ values, const T* __restrict__ x,
                                         std::int64_t begin, std::int64_t end, std::int64_t stride)
{
    T sum[1] = {T{0}};
    strided_block_dot<T, 1>(col_idx, values, x, 0, begin, end, stride, sum);
    return sum[0];
}

}  // namespace kbench::sparse_detail
