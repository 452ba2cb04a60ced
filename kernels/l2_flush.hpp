// Cold-cache timing support: evicts the GPU's L2 cache (as nvbench's detail/l2flush.cuh).
#pragma once

#include "kernels/base/device_buffer.hpp"

#include <cuda_runtime_api.h>

namespace kbench {

/// Owns a device buffer twice the size of the L2 cache; flush() overwrites it with
/// cudaMemsetAsync on `stream`, evicting every line that benchmarks left in L2.
class L2Flush {
public:
    L2Flush();
    void flush(cudaStream_t stream);

private:
    device_buffer<char> scratch_;
};

}  // namespace kbench
