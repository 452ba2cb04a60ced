// The pack (gather) kernel of the GPU halo exchange (halo_exchange_gpu.hpp) and the scatter-add
// of the boundary rows' products of the overlapped distributed SpMV (distributed_spmv.hpp,
// interior_boundary.hpp). Kept apart from the MPI headers so that nvcc never sees mpi.h.
#pragma once

#include "matrices/csr.hpp"

#include <cuda_runtime_api.h>

namespace kbench::dist::detail {

/// out[e] = x[idx[e]] for e < n on `stream`: packs a halo send list (idx: local indices, device
/// memory; x, out: device vectors). No launch when n <= 0. Throws kbench::cuda_error when the
/// launch fails.
template <typename T>
void gather(const T* x, const index_type* idx, index_type n, T* out, cudaStream_t stream);

/// y[rows[i]] = fma(alpha, t[i], y[rows[i]]) for i < n on `stream` (one rounding: the same bits
/// as reference::scatter_add): adds the products t of a local matrix's boundary rows to their
/// rows of y (yamazaki2014 Sec. IV, zianekhodja2014 Sec. 4: the rows that need the halo, once it
/// has arrived). t: n device entries; rows: n distinct local row indices of y, device memory;
/// y: device vector. No launch when n <= 0. Throws kbench::cuda_error when the launch fails.
template <typename T>
void scatter_add(T alpha, const T* t, const index_type* rows, index_type n, T* y,
                 cudaStream_t stream);

namespace reference {

/// CPU twin of detail::scatter_add on host arrays: y[rows[i]] = std::fma(alpha, t[i],
/// y[rows[i]]) for i < n (nothing for n <= 0).
template <typename T>
void scatter_add(T alpha, const T* t, const index_type* rows, index_type n, T* y);

}  // namespace reference

}  // namespace kbench::dist::detail
