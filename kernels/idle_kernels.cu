// Kernels that do no work (declarations in kernels/idle_kernels.hpp).
#include "kernels/idle_kernels.hpp"

#include "kernels/base/cuda_check.hpp"

namespace kbench {
namespace {

__global__ void empty_kernel() {}

__global__ void spin_kernel(std::uint64_t ns)
{
    std::uint64_t t0 = 0;
    std::uint64_t t = 0;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    } while (t - t0 < ns);
}

}  // namespace

void launch_empty_kernel(cudaStream_t stream)
{
    empty_kernel<<<1, 1, 0, stream>>>();
    KBENCH_CUDA_CHECK_LAUNCH();
}

void launch_spin_kernel(std::uint64_t ns, cudaStream_t stream)
{
    spin_kernel<<<1, 1, 0, stream>>>(ns);
    KBENCH_CUDA_CHECK_LAUNCH();
}

}  // namespace kbench
