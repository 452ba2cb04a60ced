// Kernels that do no work, for measuring what the launch path and the stream cost: an empty
// kernel (one launch, one stream node) and a spin kernel that holds the stream for a set time
// (so that the host can enqueue work behind it while the device is busy).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace kbench {

/// Launches an empty kernel (1 block of 1 thread) on `stream`. Throws kbench::cuda_error when
/// the launch fails.
void launch_empty_kernel(cudaStream_t stream);

/// Launches one thread on `stream` that spins on the global timer (%globaltimer, ns) for
/// `ns` nanoseconds. Throws kbench::cuda_error when the launch fails.
void launch_spin_kernel(std::uint64_t ns, cudaStream_t stream);

}  // namespace kbench
