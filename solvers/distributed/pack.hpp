// The pack (gather) kernel of the GPU halo exchange (halo_exchange_gpu.hpp). Kept apart from the
// MPI headers so that nvcc never sees mpi.h.
#pragma once

#include "matrices/csr.hpp"

#include <cuda_runtime_api.h>

namespace kbench::dist::detail {

/// out[e] = x[idx[e]] for e < n on `stream`: packs a halo send list (idx: local indices, device
/// memory; x, out: device vectors). No launch when n <= 0. Throws kbench::cuda_error when the
/// launch fails.
template <typename T>
void gather(const T* x, const index_type* idx, index_type n, T* out, cudaStream_t stream);

}  // namespace kbench::dist::detail
