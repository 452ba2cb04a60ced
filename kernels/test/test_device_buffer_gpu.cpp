#include "kernels/base/cuda_handles.hpp"
#include "kernels/base/device_buffer.hpp"
#include "kernels/base/memory_pool.hpp"
#include "kernels/test/gpu_test.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <thread>
#include <vector>

TEST(DeviceBuffer, RoundTripAndMove)
{
    KBENCH_REQUIRE_GPU();
    const std::vector<double> host{1.0, -2.5, 3.25};
    kbench::device_buffer<double> a(host);
    kbench::device_buffer<double> b(std::move(a));
    EXPECT_TRUE(a.empty());
    EXPECT_EQ(b.to_host(), host);
}

namespace {
std::uint64_t pool_bytes(cudaMemPoolAttr attr)
{
    int device = 0;
    KBENCH_CUDA_CHECK(cudaGetDevice(&device));
    cudaMemPool_t pool{};
    KBENCH_CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, device));
    std::uint64_t bytes = 0;
    KBENCH_CUDA_CHECK(cudaMemPoolGetAttribute(pool, attr, &bytes));
    return bytes;
}
}  // namespace

// A freed buffer's memory stays in the pool and serves the next allocation of its size (the
// pool reserves no more), live buffers never overlap, and trim_device_pool gives the kept
// memory back.
TEST(DeviceBuffer, PoolKeepsFreedMemoryAndBuffersKeepTheirData)
{
    KBENCH_REQUIRE_GPU();
    constexpr std::size_t n = std::size_t{1} << 23;  // 64 MiB of doubles
    { kbench::device_buffer<double> warm(n); }
    const std::uint64_t reserved = pool_bytes(cudaMemPoolAttrReservedMemCurrent);
    EXPECT_GE(reserved, n * sizeof(double));
    std::vector<double> x(n), y(n);
    for (std::size_t i = 0; i < n; ++i) {
        x[i] = static_cast<double>(i);
        y[i] = -0.5 * static_cast<double>(i);
    }
    {
        kbench::device_buffer<double> a(x);
        EXPECT_EQ(pool_bytes(cudaMemPoolAttrReservedMemCurrent), reserved);
        kbench::device_buffer<double> b(y);
        EXPECT_EQ(a.to_host(), x);
        EXPECT_EQ(b.to_host(), y);
    }
    EXPECT_EQ(pool_bytes(cudaMemPoolAttrUsedMemCurrent), 0u);
    kbench::memory::trim_device_pool();
    EXPECT_LT(pool_bytes(cudaMemPoolAttrReservedMemCurrent), n * sizeof(double));
}

// A page-locked block given back is handed out again for a request of its size class, and it
// is mapped: the device writes it through cudaHostGetDevicePointer's address.
TEST(PinnedArray, ReusesABlockGivenBackAndIsMapped)
{
    KBENCH_REQUIRE_GPU();
    const double* first = nullptr;
    {
        kbench::pinned_array<double> a(100);
        first = a.data();
    }
    kbench::pinned_array<double> b(120);  // 960 bytes: the same 1 KiB class as 800
    EXPECT_EQ(b.data(), first);
    EXPECT_EQ(b.size(), 120u);
    for (std::size_t i = 0; i < b.size(); ++i) b[i] = 1.0;
    void* on_device = nullptr;
    ASSERT_EQ(cudaHostGetDevicePointer(&on_device, b.data(), 0), cudaSuccess);
    ASSERT_EQ(cudaMemset(on_device, 0, sizeof(double) * b.size()), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    for (std::size_t i = 0; i < b.size(); ++i) EXPECT_EQ(b[i], 0.0) << i;
    kbench::pinned_array<double> empty;
    EXPECT_EQ(empty.data(), nullptr);
    EXPECT_EQ(empty.size(), 0u);
}

// One cuBLAS handle per thread and device, kept, bound to the stream of the latest call with
// host pointer mode; another thread gets its own.
TEST(ThreadCublas, OneHandlePerThreadBoundToTheLatestStream)
{
    KBENCH_REQUIRE_GPU();
    kbench::cuda_stream s1, s2;
    const cublasHandle_t h1 = kbench::thread_cublas(s1.get());
    const cublasHandle_t h2 = kbench::thread_cublas(s2.get());
    EXPECT_EQ(h1, h2);
    cudaStream_t bound{};
    ASSERT_EQ(cublasGetStream(h2, &bound), CUBLAS_STATUS_SUCCESS);
    EXPECT_EQ(bound, s2.get());
    cublasPointerMode_t mode{};
    ASSERT_EQ(cublasGetPointerMode(h2, &mode), CUBLAS_STATUS_SUCCESS);
    EXPECT_EQ(mode, CUBLAS_POINTER_MODE_HOST);
    cublasHandle_t other{};
    std::thread([&] { other = kbench::thread_cublas(s1.get()); }).join();
    EXPECT_NE(other, h1);
}
