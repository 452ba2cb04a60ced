// The Jacobi scaling kernel of distributed GMRES; see diagonal_scale.hpp.
#include "kernels/base/cuda_check.hpp"
#include "solvers/distributed/diagonal_scale.hpp"

#include <algorithm>

namespace kbench::dist::detail {

namespace {

constexpr int scale_block_size = 256;

// x and y may be the same vector (in place), so only d is __restrict__.
template <typename T>
__global__ void __launch_bounds__(scale_block_size)
    diagonal_scale_kernel(const T* __restrict__ d, const T* x, T* y, index_type n)
{
    for (index_type i = blockIdx.x * scale_block_size + threadIdx.x; i < n;
         i += gridDim.x * scale_block_size)
        y[i] = d[i] * x[i];
}

}  // namespace

template <typename T>
void diagonal_scale(const T* d, const T* x, T* y, index_type n, cudaStream_t stream)
{
    if (n <= 0) return;
    // Streaming, one element per thread and pass; a grid-stride loop beyond 4096 blocks.
    const int blocks = static_cast<int>(
        std::min<index_type>(4096, (n + scale_block_size - 1) / scale_block_size));
    diagonal_scale_kernel<T><<<blocks, scale_block_size, 0, stream>>>(d, x, y, n);
    KBENCH_CUDA_CHECK_LAUNCH();
}

template void diagonal_scale<float>(const float*, const float*, float*, index_type, cudaStream_t);
template void diagonal_scale<double>(const double*, const double*, double*, index_type,
                                     cudaStream_t);

}  // namespace kbench::dist::detail
