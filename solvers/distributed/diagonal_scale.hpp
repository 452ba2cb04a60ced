// The Jacobi scaling of distributed GMRES (distributed_gmres.hpp), y = d .* x on the device.
// Kept apart from the MPI headers, as pack.hpp, so that nvcc never sees mpi.h.
#pragma once

#include "matrices/csr.hpp"

#include <cuda_runtime_api.h>

namespace kbench::dist::detail {

/// y[i] = d[i] * x[i] for i < n on `stream` (d, x, y: device vectors of n entries; y == x is
/// allowed, in place). Applies M^-1 for M = diag(A) when d holds 1 / diag(A). No launch when
/// n <= 0. Throws kbench::cuda_error when the launch fails.
template <typename T>
void diagonal_scale(const T* d, const T* x, T* y, index_type n, cudaStream_t stream);

}  // namespace kbench::dist::detail
