// GPU SpMM kernels Y = alpha*A*X + beta*Y on CSR (sub-warp per row) and SELL-P, the SpMV
// kernels of kernels/spmv.cu with C accumulators per thread (declarations in kernels/spmm.hpp).
#include "kernels/spmm.hpp"

#include "kernels/base/cuda_check.hpp"
#include "kernels/base/nvtx.hpp"
#include "kernels/row_dot.cuh"
#include "kernels/spmv.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace kbench::spmm {
namespace {

using sparse_detail::strided_block_dot;

constexpr int csr_block_size = 256;
constexpr int sellp_max_block_size = 1024;
constexpr int long_row_block_size = 256;
constexpr int max_chunk = 4;  // columns per pass over the matrix

template <typename T, int C>
__device__ __forceinline__ void store_chunk(T* __restrict__ y, std::int64_t ldy, index_type row,
                                            T alpha, const T (&sum)[C], T beta)
{
#pragma unroll
    for (int j = 0; j < C; ++j) {
        T* out = y + row + j * ldy;
        *out = beta == T{0} ? alpha * sum[j] : alpha * sum[j] + beta * *out;
    }
}

template <typename T, int Subwarp, int C>
__global__ void __launch_bounds__(csr_block_size)
    csr_vector_kernel(index_type num_rows, const index_type* __restrict__ row_ptr,
                      const index_type* __restrict__ col_idx, const T* __restrict__ values,
                      T alpha, const T* __restrict__ x, std::int64_t ldx, T beta,
                      T* __restrict__ y, std::int64_t ldy)
{
    const std::int64_t tid = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x;
    const std::int64_t row = tid / Subwarp;
    const int lane = static_cast<int>(tid % Subwarp);
    const bool valid = row < num_rows;
    const index_type begin = valid ? __ldg(row_ptr + row) : 0;
    const index_type end = valid ? __ldg(row_ptr + row + 1) : 0;
    T sum[C] = {};
    strided_block_dot<T, C>(col_idx, values, x, ldx, begin + lane, end, Subwarp, sum);
#pragma unroll
    for (int j = 0; j < C; ++j) {
#pragma unroll
        for (int offset = Subwarp / 2; offset > 0; offset /= 2)
            sum[j] += __shfl_down_sync(0xffffffffu, sum[j], offset, Subwarp);
    }
    if (valid && lane == 0) store_chunk<T, C>(y, ldy, static_cast<index_type>(row), alpha, sum, beta);
}

/// SELL-P as spmv's sellp_kernel (thread (r, k) = r + k*b of slice blockIdx.x); for Tpr > 1 the
/// partial sums of each column are reduced in turn through shared memory and a width-Tpr shuffle.
template <typename T, int Tpr, int C>
__global__ void __launch_bounds__(sellp_max_block_size)
    sellp_kernel(index_type num_rows, index_type b, const index_type* __restrict__ slice_ptr,
                 const index_type* __restrict__ col_idx, const T* __restrict__ values,
                 const index_type* __restrict__ row_perm, T alpha, const T* __restrict__ x,
                 std::int64_t ldx, T beta, T* __restrict__ y, std::int64_t ldy)
{
    const index_type s = static_cast<index_type>(blockIdx.x);
    const index_type r = static_cast<index_type>(threadIdx.x) % b;
    const index_type k = static_cast<index_type>(threadIdx.x) / b;
    const index_type start = __ldg(slice_ptr + s);
    const index_type len = (__ldg(slice_ptr + s + 1) - start) / b;
    const std::int64_t offset = std::int64_t{start} + r;
    T sum[C] = {};
    strided_block_dot<T, C>(col_idx + offset, values + offset, x, ldx, std::int64_t{k} * b,
                            std::int64_t{len} * b, std::int64_t{Tpr} * b, sum);
    index_type out_row = s * b + r;
    if constexpr (Tpr > 1) {
        extern __shared__ unsigned char smem_raw[];
        T* smem = reinterpret_cast<T*>(smem_raw);
        const index_type stride = b + 32 / Tpr;
        const index_type q = static_cast<index_type>(threadIdx.x);
        const index_type rr = q / Tpr;
        const index_type kk = q % Tpr;
        const unsigned warp_threads = min(32u, blockDim.x - (threadIdx.x & ~31u));
        const unsigned mask = warp_threads == 32 ? 0xffffffffu : (1u << warp_threads) - 1u;
#pragma unroll
        for (int j = 0; j < C; ++j) {
            smem[k * stride + r] = sum[j];
            __syncthreads();
            T v = smem[kk * stride + rr];
#pragma unroll
            for (int m = Tpr / 2; m > 0; m /= 2) v += __shfl_xor_sync(mask, v, m, Tpr);
            sum[j] = v;
            __syncthreads();
        }
        if (kk != 0) return;
        out_row = s * b + rr;
    }
    if (out_row >= num_rows) return;
    const index_type dst = row_perm == nullptr ? out_row : __ldg(row_perm + out_row);
    store_chunk<T, C>(y, ldy, dst, alpha, sum, beta);
}

/// SELL-P long rows: block k adds alpha * (long row k times X) to Y's row long_rows[k], which
/// the slice pass set to beta*Y (or 0). Deterministic block reduction per column.
template <typename T, int C>
__global__ void __launch_bounds__(long_row_block_size)
    long_rows_kernel(const index_type* __restrict__ long_rows,
                     const index_type* __restrict__ long_row_ptr,
                     const index_type* __restrict__ long_col_idx,
                     const T* __restrict__ long_values, T alpha, const T* __restrict__ x,
                     std::int64_t ldx, T* __restrict__ y, std::int64_t ldy)
{
    constexpr int warps = long_row_block_size / 32;
    __shared__ T warp_sums[C][warps];
    const index_type k = static_cast<index_type>(blockIdx.x);
    T sum[C] = {};
    strided_block_dot<T, C>(long_col_idx, long_values, x, ldx,
                            std::int64_t{__ldg(long_row_ptr + k)} + threadIdx.x,
                            __ldg(long_row_ptr + k + 1), long_row_block_size, sum);
    const int lane = static_cast<int>(threadIdx.x % 32);
    const int warp = static_cast<int>(threadIdx.x / 32);
#pragma unroll
    for (int j = 0; j < C; ++j) {
#pragma unroll
        for (int offset = 16; offset > 0; offset /= 2)
            sum[j] += __shfl_down_sync(0xffffffffu, sum[j], offset);
        if (lane == 0) warp_sums[j][warp] = sum[j];
    }
    __syncthreads();
    if (warp != 0) return;
    const index_type row = __ldg(long_rows + k);
#pragma unroll
    for (int j = 0; j < C; ++j) {
        T v = lane < warps ? warp_sums[j][lane] : T{0};
#pragma unroll
        for (int offset = warps / 2; offset > 0; offset /= 2)
            v += __shfl_down_sync(0xffffffffu, v, offset);
        if (lane == 0) y[row + j * ldy] += alpha * v;
    }
}

void check_block(index_type rows, index_type cols, index_type ldx, index_type ldy, index_type k,
                 const char* who)
{
    if (k < 0 || ldx < std::max<index_type>(cols, 1) || ldy < std::max<index_type>(rows, 1))
        throw std::invalid_argument(std::string{who} + ": k = " + std::to_string(k) +
                                    ", ldx = " + std::to_string(ldx) + ", ldy = " +
                                    std::to_string(ldy) + " for a " + std::to_string(rows) +
                                    " x " + std::to_string(cols) +
                                    " matrix, expected k >= 0, ldx >= num_cols, ldy >= num_rows");
}

/// Calls launch(std::integral_constant<int, C>{}, j0) for column chunks of 4, then 2, then 1.
template <typename F>
void for_each_chunk(index_type k, F&& launch)
{
    index_type j0 = 0;
    for (; j0 + max_chunk <= k; j0 += max_chunk) launch(std::integral_constant<int, 4>{}, j0);
    if (j0 + 2 <= k) {
        launch(std::integral_constant<int, 2>{}, j0);
        j0 += 2;
    }
    if (j0 < k) launch(std::integral_constant<int, 1>{}, j0);
}

template <typename T, int Subwarp>
void launch_csr(const CsrView<T>& a, T alpha, const T* x, index_type ldx, T beta, T* y,
                index_type ldy, index_type k, cudaStream_t stream)
{
    constexpr int rows_per_block = csr_block_size / Subwarp;
    const auto grid = static_cast<unsigned>((std::int64_t{a.num_rows} + rows_per_block - 1) /
                                            rows_per_block);
    for_each_chunk(k, [&](auto chunk, index_type j0) {
        constexpr int C = decltype(chunk)::value;
        csr_vector_kernel<T, Subwarp, C><<<grid, csr_block_size, 0, stream>>>(
            a.num_rows, a.row_ptr, a.col_idx, a.values, alpha, x + std::int64_t{j0} * ldx, ldx,
            beta, y + std::int64_t{j0} * ldy, ldy);
        KBENCH_CUDA_CHECK_LAUNCH();
    });
}

template <typename T, int Tpr>
void launch_sellp(const SellpView<T>& a, T alpha, const T* x, index_type ldx, T beta, T* y,
                  index_type ldy, index_type k, cudaStream_t stream)
{
    const int threads = a.slice_height * Tpr;
    const std::size_t smem =
        Tpr > 1 ? std::size_t(Tpr) * std::size_t(a.slice_height + 32 / Tpr) * sizeof(T) : 0;
    for_each_chunk(k, [&](auto chunk, index_type j0) {
        constexpr int C = decltype(chunk)::value;
        const T* xc = x + std::int64_t{j0} * ldx;
        T* yc = y + std::int64_t{j0} * ldy;
        sellp_kernel<T, Tpr, C><<<static_cast<unsigned>(a.num_slices), threads, smem, stream>>>(
            a.num_rows, a.slice_height, a.slice_ptr, a.col_idx, a.values, a.row_perm, alpha, xc,
            ldx, beta, yc, ldy);
        KBENCH_CUDA_CHECK_LAUNCH();
        if (a.num_long_rows > 0) {
            long_rows_kernel<T, C>
                <<<static_cast<unsigned>(a.num_long_rows), long_row_block_size, 0, stream>>>(
                    a.long_rows, a.long_row_ptr, a.long_col_idx, a.long_values, alpha, xc, ldx,
                    yc, ldy);
            KBENCH_CUDA_CHECK_LAUNCH();
        }
    });
}

}  // namespace

template <typename T>
void csr_vector(const CsrView<T>& a, T alpha, const T* x, index_type ldx, T beta, T* y,
                index_type ldy, index_type k, cudaStream_t stream, int subwarp)
{
    KBENCH_NVTX_RANGE("spmm::csr_vector");
    check_block(a.num_rows, a.num_cols, ldx, ldy, k, "spmm::csr_vector");
    if (subwarp == 0) subwarp = spmv::choose_csr_subwarp(a);
    if (a.num_rows == 0 || k == 0) return;
    switch (subwarp) {
    case 2: return launch_csr<T, 2>(a, alpha, x, ldx, beta, y, ldy, k, stream);
    case 4: return launch_csr<T, 4>(a, alpha, x, ldx, beta, y, ldy, k, stream);
    case 8: return launch_csr<T, 8>(a, alpha, x, ldx, beta, y, ldy, k, stream);
    case 16: return launch_csr<T, 16>(a, alpha, x, ldx, beta, y, ldy, k, stream);
    case 32: return launch_csr<T, 32>(a, alpha, x, ldx, beta, y, ldy, k, stream);
    default:
        throw std::invalid_argument("spmm::csr_vector: subwarp = " + std::to_string(subwarp) +
                                    ", expected 0 (automatic), 2, 4, 8, 16 or 32");
    }
}

template <typename T>
void sellp(const SellpView<T>& a, T alpha, const T* x, index_type ldx, T beta, T* y,
           index_type ldy, index_type k, cudaStream_t stream)
{
    KBENCH_NVTX_RANGE("spmm::sellp");
    validate_view(a, "spmm::sellp");
    check_block(a.num_rows, a.num_cols, ldx, ldy, k, "spmm::sellp");
    const index_type b = a.slice_height, t = a.threads_per_row;
    if (std::int64_t{b} * t > sellp_max_block_size)
        throw std::invalid_argument("spmm::sellp: b = " + std::to_string(b) + ", t = " +
                                    std::to_string(t) + ", expected b*t <= 1024");
    if (a.num_slices == 0 || k == 0) return;
    switch (t) {
    case 1: return launch_sellp<T, 1>(a, alpha, x, ldx, beta, y, ldy, k, stream);
    case 2: return launch_sellp<T, 2>(a, alpha, x, ldx, beta, y, ldy, k, stream);
    case 4: return launch_sellp<T, 4>(a, alpha, x, ldx, beta, y, ldy, k, stream);
    case 8: return launch_sellp<T, 8>(a, alpha, x, ldx, beta, y, ldy, k, stream);
    case 16: return launch_sellp<T, 16>(a, alpha, x, ldx, beta, y, ldy, k, stream);
    case 32: return launch_sellp<T, 32>(a, alpha, x, ldx, beta, y, ldy, k, stream);
    default:
        throw std::invalid_argument("spmm::sellp: threads_per_row t = " + std::to_string(t) +
                                    ", expected 1, 2, 4, 8, 16 or 32");
    }
}

template void csr_vector<float>(const CsrView<float>&, float, const float*, index_type, float,
                                float*, index_type, index_type, cudaStream_t, int);
template void csr_vector<double>(const CsrView<double>&, double, const double*, index_type,
                                 double, double*, index_type, index_type, cudaStream_t, int);
template void sellp<float>(const SellpView<float>&, float, const float*, index_type, float,
                           float*, index_type, index_type, cudaStream_t);
template void sellp<double>(const SellpView<double>&, double, const double*, index_type, double,
                            double*, index_type, index_type, cudaStream_t);

}  // namespace kbench::spmm
