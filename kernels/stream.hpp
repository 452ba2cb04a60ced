// STREAM-style bandwidth kernels (McCalpin's STREAM; anzt2015 Sec. 3 uses bandwidth as the
// SpMV roofline). Each has a CPU reference twin. Pointers are device arrays of n elements for
// the GPU launchers, host arrays for the references. Launchers enqueue on `stream`, do not
// synchronize, and throw kbench::cuda_error on launch failure.
#pragma once

#include <cstddef>
#include <cuda_runtime_api.h>

namespace kbench::stream {

/// b[i] = a[i]. Traffic: n*sizeof(T) read + n*sizeof(T) written.
template <typename T>
void copy(const T* a, T* b, std::size_t n, cudaStream_t stream);

/// c[i] = a[i] + scalar*b[i]. Traffic: 2n*sizeof(T) read + n*sizeof(T) written.
template <typename T>
void triad(const T* a, const T* b, T* c, T scalar, std::size_t n, cudaStream_t stream);

/// Read-only reduction: *sum = sum_i a[i] (device scalar, overwritten). Traffic: n*sizeof(T)
/// read (+ one scalar written). `workspace` must hold read_workspace_size(n) elements.
template <typename T>
void read_sum(const T* a, std::size_t n, T* sum, T* workspace, cudaStream_t stream);

/// Elements of workspace read_sum needs for n elements (the number of per-block partial sums).
std::size_t read_workspace_size(std::size_t n);

namespace reference {
template <typename T>
void copy(const T* a, T* b, std::size_t n);
template <typename T>
void triad(const T* a, const T* b, T* c, T scalar, std::size_t n);
/// Sum in double precision (pairwise), returned as T in *sum.
template <typename T>
void read_sum(const T* a, std::size_t n, T* sum);
}  // namespace reference

}  // namespace kbench::stream
