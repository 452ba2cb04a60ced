// The gather kernel of the GPU halo exchange (halo_exchange_gpu.hpp); see pack.hpp.
#include "kernels/base/cuda_check.hpp"
#include "solvers/distributed/pack.hpp"

#include <algorithm>

namespace kbench::dist::detail {

namespace {

constexpr int gather_block_size = 256;

template <typename T>
__global__ void __launch_bounds__(gather_block_size)
    gather_kernel(const T* __restrict__ x, const index_type* __restrict__ idx, index_type n,
                  T* __restrict__ out)
{
    for (index_type e = blockIdx.x * gather_block_size + threadIdx.x; e < n;
         e += gridDim.x * gather_block_size)
        out[e] = x[idx[e]];
}

}  // namespace

template <typename T>
void gather(const T* x, const index_type* idx, index_type n, T* out, cudaStream_t stream)
{
    if (n <= 0) return;
    // Halo lists are short next to the vector: one pass, up to 1024 blocks.
    const int blocks = static_cast<int>(
        std::min<index_type>(1024, (n + gather_block_size - 1) / gather_block_size));
    gather_kernel<T><<<blocks, gather_block_size, 0, stream>>>(x, idx, n, out);
    KBENCH_CUDA_CHECK_LAUNCH();
}

template void gather<float>(const float*, const index_type*, index_type, float*, cudaStream_t);
template void gather<double>(const double*, const index_type*, index_type, double*, cudaStream_t);

}  // namespace kbench::dist::detail
