#include "kernels/base/device.hpp"

#include "kernels/base/cuda_check.hpp"

#include <fmt/format.h>

namespace kbench {

std::string gpu_unavailable_reason()
{
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess) {
        cudaGetLastError();  // clear the sticky error state
        return fmt::format("no usable CUDA device ({}: {})", cudaGetErrorName(status),
                           cudaGetErrorString(status));
    }
    if (count == 0) {
        return "no CUDA device present";
    }
    return {};
}

device_info query_device()
{
    device_info info;
    KBENCH_CUDA_CHECK(cudaGetDevice(&info.ordinal));
    cudaDeviceProp prop{};
    KBENCH_CUDA_CHECK(cudaGetDeviceProperties(&prop, info.ordinal));
    info.name = prop.name;
    info.sm_count = prop.multiProcessorCount;
    info.compute_capability = prop.major * 10 + prop.minor;
    int khz = 0;
    KBENCH_CUDA_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, info.ordinal));
    info.sm_clock_mhz = khz / 1000;
    KBENCH_CUDA_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, info.ordinal));
    info.memory_clock_mhz = khz / 1000;
    KBENCH_CUDA_CHECK(
        cudaDeviceGetAttribute(&info.memory_bus_width_bits, cudaDevAttrGlobalMemoryBusWidth, info.ordinal));
    info.global_memory_bytes = prop.totalGlobalMem;
    info.l2_cache_bytes = static_cast<std::size_t>(prop.l2CacheSize);
    info.ecc_enabled = prop.ECCEnabled != 0;
    KBENCH_CUDA_CHECK(cudaDriverGetVersion(&info.driver_version));
    KBENCH_CUDA_CHECK(cudaRuntimeGetVersion(&info.runtime_version));
    return info;
}

}  // namespace kbench
