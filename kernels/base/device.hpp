// Device discovery: whether a usable CUDA device is present, and its properties.
#pragma once

#include <cstddef>
#include <string>

namespace kbench {

/// Static facts about a CUDA device, read with cudaGetDeviceProperties and the driver/runtime
/// version queries. Clocks in MHz, sizes in bytes.
struct device_info {
    int ordinal = 0;
    std::string name;          // e.g. "NVIDIA H200"
    int sm_count = 0;          // streaming multiprocessors
    int compute_capability = 0;  // major*10 + minor, e.g. 90
    int sm_clock_mhz = 0;      // maximum SM clock
    int memory_clock_mhz = 0;  // peak memory clock
    int memory_bus_width_bits = 0;
    std::size_t global_memory_bytes = 0;
    std::size_t l2_cache_bytes = 0;
    bool ecc_enabled = false;
    int driver_version = 0;   // e.g. 13000 for 13.0
    int runtime_version = 0;
};

/// Empty string when a CUDA device can be used; otherwise why not, starting "no usable GPU"
/// (no NVIDIA driver loaded, none visible to the driver, or the CUDA error). Never throws.
std::string gpu_unavailable_reason();

/// True when a CUDA device can be used. Never throws.
inline bool has_gpu() { return gpu_unavailable_reason().empty(); }

/// Properties of the current device. Throws kbench::cuda_error without a usable device.
device_info query_device();

/// Blocks of `kernel` (a __global__ function's address) resident on the whole current device
/// when launched with `block_size` threads and `dynamic_smem_bytes` of dynamic shared memory:
/// SM count x resident blocks per SM (at least 1). Queried once per (device, kernel, shape)
/// and cached; thread-safe. Throws kbench::cuda_error on CUDA failures.
int resident_blocks(const void* kernel, int block_size, std::size_t dynamic_smem_bytes = 0);

/// Compute capability (major * 10 + minor) of the current device, cached per device. Throws
/// kbench::cuda_error on CUDA failures.
int compute_capability();

/// L2 cache size of the current device in bytes, cached per device. Throws kbench::cuda_error
/// on CUDA failures.
std::size_t l2_cache_bytes();

}  // namespace kbench
