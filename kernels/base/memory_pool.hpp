// Reusable device and page-locked host memory for kbench's RAII owners (device_buffer,
// pinned_value, pinned_array): a solve that allocates its workspace on entry and frees it on
// return pays the allocation once per process, not once per call. Measured on an H200
// (session 21, median of 20): cudaMalloc 46-85 us + cudaFree 41-174 us per device buffer and
// cudaMallocHost 0.85 ms + cudaFreeHost 0.35 ms per page-locked block, against 1.3 us for
// cudaMallocAsync from a pool that keeps its memory; GMRES(30) with 11 steps on 1M rows spent
// about half its solve in such setup. CuPy keeps both kinds of memory in pools too.
#pragma once

#include <cstddef>

namespace kbench::memory {

/// `bytes` of device memory on the current device, from the device's default stream-ordered
/// pool (cudaMallocAsync on the legacy default stream, then that stream synchronized, so any
/// stream may use it at once). The pool keeps freed memory for reuse up to a quarter of the
/// device's memory (cudaMemPoolAttrReleaseThreshold, set once per device); when an allocation
/// fails it gives all kept memory back (trim_device_pool) and tries once more. Returns nullptr
/// for 0 bytes. Free it with device_free while the same device is current (kbench runs one
/// device per process). Throws kbench::cuda_error when the device has no room.
void* device_allocate(std::size_t bytes);

/// Returns a block of device_allocate to the pool once all work on the device is done
/// (cudaDeviceSynchronize, then cudaFreeAsync): no stream still reads or writes it, and the
/// next owner may take it on any stream. Never throws; errors are reported to stderr.
void device_free(void* p) noexcept;

/// Gives the current device's pool's kept memory back to the driver, so cudaMemGetInfo counts it
/// as free again and library allocations (cudaMalloc in cuBLAS, cuSPARSE) may take it.
void trim_device_pool();

/// A page-locked host block (cudaMallocHost: mapped for the device under unified addressing) of
/// at least `bytes` (>= 1) bytes, from a process-wide cache of size classes (powers of two
/// from 256 B). Thread-safe. Throws kbench::cuda_error when page-locking fails,
/// std::invalid_argument for more than 2^48 bytes.
void* pinned_allocate(std::size_t bytes);

/// Returns a block of pinned_allocate to the cache once all work on the device is done
/// (cudaDeviceSynchronize: no asynchronous copy still reads or writes it). Cached blocks live
/// until the process ends. Never throws.
void pinned_free(void* p) noexcept;

}  // namespace kbench::memory
