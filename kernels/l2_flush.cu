// L2 eviction for cold-cache timing (in the manner of nvbench's detail/l2flush.cuh).
#include "kernels/l2_flush.hpp"

#include "kernels/base/cuda_check.hpp"

namespace kbench {

/// Allocates 2x the current device's L2 size (cudaDevAttrL2CacheSize); a device reporting no L2
/// gets an empty buffer and flush() does nothing. Throws kbench::cuda_error on CUDA failure.
L2Flush::L2Flush()
{
    int device = 0;
    KBENCH_CUDA_CHECK(cudaGetDevice(&device));
    int l2_bytes = 0;
    KBENCH_CUDA_CHECK(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device));
    if (l2_bytes > 0) scratch_ = device_buffer<char>(2 * static_cast<std::size_t>(l2_bytes));
}

void L2Flush::flush(cudaStream_t stream)
{
    if (scratch_.empty()) return;
    KBENCH_CUDA_CHECK(cudaMemsetAsync(scratch_.data(), 0, scratch_.bytes(), stream));
}

}  // namespace kbench
