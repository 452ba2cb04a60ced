// The step-combination kernel of the distributed matrix powers kernel (distributed_mpk.hpp).
// Kept apart from the MPI headers, as pack.hpp, so that nvcc never sees mpi.h.
#pragma once

#include "matrices/csr.hpp"

#include <cuda_runtime_api.h>

namespace kbench::dist::detail {

/// One MPK step's combination on the device, for i < rows (rows >= num_owned >= 0):
///   y[i] := y[i] - alpha * w[i] + b2 * prev[i]    (prev not read when null),
/// and v_out[i] := y[i] for i < num_owned (v_out not written when null): y = A w on entry (the
/// step's product), w = v_k, prev = v_{k-1}, v_out the owned entries of v_{k+1} in the caller's
/// block (MpkStep of solvers/ca_gmres.hpp, same arithmetic order as matrix_powers). y may not
/// alias w, prev or v_out. No launch when rows <= 0. Throws kbench::cuda_error when the launch
/// fails.
template <typename T>
void mpk_combine(index_type rows, index_type num_owned, T* y, const T* w, const T* prev, T alpha,
                 T b2, T* v_out, cudaStream_t stream);

}  // namespace kbench::dist::detail
