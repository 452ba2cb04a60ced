// Move-only RAII owner of a typed device allocation (kbench::memory's stream-ordered pool).
#pragma once

#include "kernels/base/cuda_check.hpp"
#include "kernels/base/memory_pool.hpp"

#include <cstddef>
#include <utility>
#include <vector>

namespace kbench {

/// A device array of `size()` elements of T, from the device's memory pool
/// (memory::device_allocate: usable on any stream on return; freed once the device is idle).
/// Contents are uninitialized unless constructed from host data. Host<->device copies are
/// device-synchronous: they wait for all work on the device (every stream, including
/// non-blocking ones) before and after the transfer, so a kernel enqueued afterwards on any
/// stream sees the data. (A pageable cudaMemcpy alone may return
/// before its DMA lands, and non-blocking streams do not order against it.) Copies are never on
/// a timed path. Throws kbench::cuda_error when allocation or copying fails.
template <typename T>
class device_buffer {
public:
    device_buffer() = default;
    explicit device_buffer(std::size_t size) : size_{size}
    {
        if (size_ > 0) data_ = static_cast<T*>(memory::device_allocate(bytes()));
    }
    explicit device_buffer(const std::vector<T>& host) : device_buffer(host.size())
    {
        copy_from_host(host.data(), host.size());
    }
    ~device_buffer() { release(); }

    device_buffer(const device_buffer&) = delete;
    device_buffer& operator=(const device_buffer&) = delete;
    device_buffer(device_buffer&& other) noexcept
        : data_{std::exchange(other.data_, nullptr)}, size_{std::exchange(other.size_, 0)}
    {}
    device_buffer& operator=(device_buffer&& other) noexcept
    {
        if (this != &other) {
            release();
            data_ = std::exchange(other.data_, nullptr);
            size_ = std::exchange(other.size_, 0);
        }
        return *this;
    }

    T* data() noexcept { return data_; }
    const T* data() const noexcept { return data_; }
    std::size_t size() const noexcept { return size_; }
    std::size_t bytes() const noexcept { return size_ * sizeof(T); }
    bool empty() const noexcept { return size_ == 0; }

    /// Copies `count` elements from host memory to the start of this buffer.
    void copy_from_host(const T* host, std::size_t count)
    {
        if (count > size_) {
            throw std::invalid_argument("device_buffer::copy_from_host: count exceeds size");
        }
        if (count > 0) {
            KBENCH_CUDA_CHECK(cudaDeviceSynchronize());
            KBENCH_CUDA_CHECK(cudaMemcpy(data_, host, count * sizeof(T), cudaMemcpyHostToDevice));
            KBENCH_CUDA_CHECK(cudaDeviceSynchronize());
        }
    }
    /// Copies the whole buffer back to a host vector (synchronous).
    std::vector<T> to_host() const
    {
        std::vector<T> host(size_);
        if (size_ > 0) {
            KBENCH_CUDA_CHECK(cudaDeviceSynchronize());
            KBENCH_CUDA_CHECK(cudaMemcpy(host.data(), data_, bytes(), cudaMemcpyDeviceToHost));
        }
        return host;
    }

private:
    void release() noexcept
    {
        memory::device_free(data_);
        data_ = nullptr;
    }

    T* data_ = nullptr;
    std::size_t size_ = 0;
};

}  // namespace kbench
