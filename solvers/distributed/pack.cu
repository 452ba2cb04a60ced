// The gather kernel of the GPU halo exchange (halo_exchange_gpu.hpp) and the scatter-add of the
// overlapped distributed SpMV (distributed_spmv.hpp); see pack.hpp.
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

template <typename T>
__global__ void __launch_bounds__(gather_block_size)
    scatter_add_kernel(T alpha, const T* __restrict__ t, const index_type* __restrict__ rows,
                       index_type n, T* __restrict__ y)
{
    for (index_type i = blockIdx.x * gather_block_size + threadIdx.x; i < n;
         i += gridDim.x * gather_block_size) {
        const index_type r = rows[i];
        y[r] = fma(alpha, t[i], y[r]);
    }
}

/// Blocks of gather_block_size threads for n entries: one pass, up to 1024 blocks.
int blocks_for(index_type n)
{
    return static_cast<int>(
        std::min<index_type>(1024, (n + gather_block_size - 1) / gather_block_size));
}

}  // namespace

template <typename T>
void gather(const T* x, const index_type* idx, index_type n, T* out, cudaStream_t stream)
{
    if (n <= 0) return;
    // Halo lists are short next to the vector: one pass, up to 1024 blocks.
    gather_kernel<T><<<blocks_for(n), gather_block_size, 0, stream>>>(x, idx, n, out);
    KBENCH_CUDA_CHECK_LAUNCH();
}

template <typename T>
void scatter_add(T alpha, const T* t, const index_type* rows, index_type n, T* y,
                 cudaStream_t stream)
{
    if (n <= 0) return;
    scatter_add_kernel<T><<<blocks_for(n), gather_block_size, 0, stream>>>(alpha, t, rows, n, y);
    KBENCH_CUDA_CHECK_LAUNCH();
}

template void gather<float>(const float*, const index_type*, index_type, float*, cudaStream_t);
template void gather<double>(const double*, const index_type*, index_type, double*, cudaStream_t);
template void scatter_add<float>(float, const float*, const index_type*, index_type, float*,
                                 cudaStream_t);
template void scatter_add<double>(double, const double*, const index_type*, index_type, double*,
                                  cudaStream_t);

}  // namespace kbench::dist::detail
