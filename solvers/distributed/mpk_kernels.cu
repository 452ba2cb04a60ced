// The step-combination kernel of the distributed MPK; see mpk_kernels.hpp.
#include "kernels/base/cuda_check.hpp"
#include "solvers/distributed/mpk_kernels.hpp"

#include <algorithm>

namespace kbench::dist::detail {

namespace {

constexpr int combine_block_size = 256;

template <typename T>
__global__ void __launch_bounds__(combine_block_size)
    mpk_combine_kernel(index_type rows, index_type num_owned, T* __restrict__ y,
                       const T* __restrict__ w, const T* __restrict__ prev, T alpha, T b2,
                       T* __restrict__ v_out)
{
    for (index_type i = blockIdx.x * combine_block_size + threadIdx.x; i < rows;
         i += gridDim.x * combine_block_size) {
        T v = y[i] - alpha * w[i];
        if (prev != nullptr) v += b2 * prev[i];
        y[i] = v;
        if (v_out != nullptr && i < num_owned) v_out[i] = v;
    }
}

}  // namespace

template <typename T>
void mpk_combine(index_type rows, index_type num_owned, T* y, const T* w, const T* prev, T alpha,
                 T b2, T* v_out, cudaStream_t stream)
{
    if (rows <= 0) return;
    // Streaming, one element per thread and pass; a grid-stride loop beyond 4096 blocks.
    const int blocks = static_cast<int>(
        std::min<index_type>(4096, (rows + combine_block_size - 1) / combine_block_size));
    mpk_combine_kernel<T><<<blocks, combine_block_size, 0, stream>>>(rows, num_owned, y, w, prev,
                                                                     alpha, b2, v_out);
    KBENCH_CUDA_CHECK_LAUNCH();
}

template void mpk_combine<float>(index_type, index_type, float*, const float*, const float*,
                                 float, float, float*, cudaStream_t);
template void mpk_combine<double>(index_type, index_type, double*, const double*, const double*,
                                  double, double, double*, cudaStream_t);

}  // namespace kbench::dist::detail
