// Reusable device and page-locked host memory (kernels/base/memory_pool.hpp).
#include "kernels/base/memory_pool.hpp"

#include "kernels/base/cuda_check.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace kbench::memory {
namespace {

std::mutex& pool_mutex()
{
    static auto* m = new std::mutex;  // outlives static owners released at exit
    return *m;
}

/// The current device's default pool, its release threshold set on first use: a quarter of the
/// device's memory stays reserved across synchronizations (the default, 0, gives everything
/// back at each one, and every solve would pay cudaMalloc's price again).
cudaMemPool_t default_pool()
{
    int device = 0;
    KBENCH_CUDA_CHECK(cudaGetDevice(&device));
    cudaMemPool_t pool{};
    KBENCH_CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, device));
    const std::lock_guard<std::mutex> lock(pool_mutex());
    static auto* configured = new std::set<int>;
    if (configured->insert(device).second) {
        std::size_t free_bytes = 0, total_bytes = 0;
        KBENCH_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
        std::uint64_t keep = total_bytes / 4;
        KBENCH_CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
    }
    return pool;
}

}  // namespace

void* device_allocate(std::size_t bytes)
{
    if (bytes == 0) return nullptr;
    const cudaMemPool_t pool = default_pool();
    void* p = nullptr;
    const cudaError_t first = cudaMallocAsync(&p, bytes, cudaStreamLegacy);
    if (first == cudaErrorMemoryAllocation) {
        (void)cudaGetLastError();  // not sticky: clear it and retry with the kept memory freed
        KBENCH_CUDA_CHECK(cudaDeviceSynchronize());
        KBENCH_CUDA_CHECK(cudaMemPoolTrimTo(pool, 0));
        KBENCH_CUDA_CHECK(cudaMallocAsync(&p, bytes, cudaStreamLegacy));
    } else {
        KBENCH_CUDA_CHECK(first);  // this call's status, not an earlier launch's pending error
    }
    KBENCH_CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));
    return p;
}

void device_free(void* p) noexcept
{
    if (p == nullptr) return;
    KBENCH_CUDA_CHECK_NOTHROW(cudaDeviceSynchronize());
    KBENCH_CUDA_CHECK_NOTHROW(cudaFreeAsync(p, cudaStreamLegacy));
}

void trim_device_pool()
{
    const cudaMemPool_t pool = default_pool();
    KBENCH_CUDA_CHECK(cudaDeviceSynchronize());
    KBENCH_CUDA_CHECK(cudaMemPoolTrimTo(pool, 0));
}

namespace {

/// The page-locked blocks: every block made, with its capacity (a power of two >= 256 bytes; the
/// blocks live until the process ends), and the free ones by capacity.
struct PinnedCache {
    std::map<void*, std::size_t> capacity;
    std::map<std::size_t, std::vector<void*>> free;
};
PinnedCache& pinned_cache()
{
    static auto* cache = new PinnedCache;  // outlives the runtime
    return *cache;
}

}  // namespace

void* pinned_allocate(std::size_t bytes)
{
    if (bytes > (std::size_t{1} << 48))
        throw std::invalid_argument("pinned_allocate: bytes = " + std::to_string(bytes) +
                                    ", expected at most 2^48");
    std::size_t size = 256;
    while (size < bytes) size *= 2;
    const std::lock_guard<std::mutex> lock(pool_mutex());
    PinnedCache& cache = pinned_cache();
    auto& blocks = cache.free[size];
    if (!blocks.empty()) {
        void* p = blocks.back();
        blocks.pop_back();
        return p;
    }
    void* p = nullptr;
    KBENCH_CUDA_CHECK(cudaMallocHost(&p, size));
    try {
        cache.capacity.emplace(p, size);
    } catch (...) {
        KBENCH_CUDA_CHECK_NOTHROW(cudaFreeHost(p));
        throw;
    }
    return p;
}

void pinned_free(void* p) noexcept
{
    if (p == nullptr) return;
    KBENCH_CUDA_CHECK_NOTHROW(cudaDeviceSynchronize());
    try {
        const std::lock_guard<std::mutex> lock(pool_mutex());
        PinnedCache& cache = pinned_cache();
        cache.free[cache.capacity.at(p)].push_back(p);
    } catch (...) {  // no memory for the cache's bookkeeping: give the block back instead
        KBENCH_CUDA_CHECK_NOTHROW(cudaFreeHost(p));
    }
}

}  // namespace kbench::memory
