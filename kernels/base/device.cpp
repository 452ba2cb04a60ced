#include "kernels/base/device.hpp"

#include "kernels/base/cuda_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>
#include <tuple>
#include <utility>

namespace kbench {

std::string gpu_unavailable_reason()
{
    int driver = 0;
    if (cudaDriverGetVersion(&driver) == cudaSuccess && driver == 0)
        return "no usable GPU: no NVIDIA driver is loaded on this machine";
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess) cudaGetLastError();  // clear the sticky error state
    const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
    if (status == cudaErrorNoDevice || (status == cudaSuccess && count == 0))
        return visible != nullptr ? fmt::format("no usable GPU: the driver shows none "
                                                "(CUDA_VISIBLE_DEVICES='{}')",
                                                visible)
                                  : "no usable GPU: the driver shows none";
    if (status != cudaSuccess)
        return fmt::format("no usable GPU ({}: {})", cudaGetErrorName(status),
                           cudaGetErrorString(status));
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

int resident_blocks(const void* kernel, int block_size, std::size_t dynamic_smem_bytes)
{
    static std::mutex mutex;
    static std::map<std::tuple<int, const void*, int, std::size_t>, int> cache;
    int device = 0;
    KBENCH_CUDA_CHECK(cudaGetDevice(&device));
    const std::lock_guard<std::mutex> lock(mutex);
    const auto key = std::make_tuple(device, kernel, block_size, dynamic_smem_bytes);
    if (const auto it = cache.find(key); it != cache.end()) return it->second;
    int sms = 0, per_sm = 0;
    KBENCH_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    KBENCH_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block_size,
                                                                    dynamic_smem_bytes));
    const int blocks = std::max(1, sms) * std::max(1, per_sm);
    cache.emplace(key, blocks);
    return blocks;
}

namespace {

/// cudaDeviceGetAttribute(attribute) of the current device, cached per (device, attribute).
int cached_attribute(cudaDeviceAttr attribute)
{
    static std::mutex mutex;
    static std::map<std::pair<int, int>, int> cache;
    int device = 0;
    KBENCH_CUDA_CHECK(cudaGetDevice(&device));
    const std::lock_guard<std::mutex> lock(mutex);
    const auto key = std::make_pair(device, static_cast<int>(attribute));
    if (const auto it = cache.find(key); it != cache.end()) return it->second;
    int value = 0;
    KBENCH_CUDA_CHECK(cudaDeviceGetAttribute(&value, attribute, device));
    cache.emplace(key, value);
    return value;
}

}  // namespace

int compute_capability()
{
    return cached_attribute(cudaDevAttrComputeCapabilityMajor) * 10 +
           cached_attribute(cudaDevAttrComputeCapabilityMinor);
}

std::size_t l2_cache_bytes()
{
    return static_cast<std::size_t>(cached_attribute(cudaDevAttrL2CacheSize));
}

}  // namespace kbench
