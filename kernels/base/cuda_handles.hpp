// Move-only RAII owners for CUDA streams and events, for cuBLAS, cuSPARSE and cuSOLVER handles,
// CUDA graphs and page-locked host memory.
#pragma once

#include "kernels/base/cuda_check.hpp"
#include "kernels/base/memory_pool.hpp"

#include <cusolverDn.h>

#include <algorithm>
#include <cstddef>
#include <utility>

namespace kbench {

namespace detail {
/// Generic move-only owner: `Destroy` is called on a non-null handle; it must not throw.
template <typename Handle, auto Destroy>
class unique_handle {
public:
    unique_handle() = default;
    explicit unique_handle(Handle h) noexcept : h_{h} {}
    ~unique_handle() { reset(); }
    unique_handle(const unique_handle&) = delete;
    unique_handle& operator=(const unique_handle&) = delete;
    unique_handle(unique_handle&& o) noexcept : h_{std::exchange(o.h_, Handle{})} {}
    unique_handle& operator=(unique_handle&& o) noexcept
    {
        if (this != &o) {
            reset();
            h_ = std::exchange(o.h_, Handle{});
        }
        return *this;
    }
    Handle get() const noexcept { return h_; }
    operator Handle() const noexcept { return h_; }
    void reset() noexcept
    {
        if (h_ != Handle{}) {
            Destroy(h_);
            h_ = Handle{};
        }
    }

private:
    Handle h_{};
};

inline void destroy_stream(cudaStream_t s) noexcept { KBENCH_CUDA_CHECK_NOTHROW(cudaStreamDestroy(s)); }
inline void destroy_event(cudaEvent_t e) noexcept { KBENCH_CUDA_CHECK_NOTHROW(cudaEventDestroy(e)); }
inline void destroy_cublas(cublasHandle_t h) noexcept { cublasDestroy(h); }
inline void destroy_cusparse(cusparseHandle_t h) noexcept { cusparseDestroy(h); }
inline void destroy_cusolver(cusolverDnHandle_t h) noexcept { cusolverDnDestroy(h); }
inline void destroy_graph(cudaGraph_t g) noexcept { KBENCH_CUDA_CHECK_NOTHROW(cudaGraphDestroy(g)); }
inline void destroy_graph_exec(cudaGraphExec_t g) noexcept
{
    KBENCH_CUDA_CHECK_NOTHROW(cudaGraphExecDestroy(g));
}
}  // namespace detail

/// A non-blocking CUDA stream.
class cuda_stream : public detail::unique_handle<cudaStream_t, detail::destroy_stream> {
public:
    cuda_stream()
    {
        cudaStream_t s{};
        KBENCH_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
        *this = cuda_stream(s);
    }
    void synchronize() const { KBENCH_CUDA_CHECK(cudaStreamSynchronize(get())); }

private:
    explicit cuda_stream(cudaStream_t s) : unique_handle(s) {}
};

/// A CUDA event with timing enabled.
class cuda_event : public detail::unique_handle<cudaEvent_t, detail::destroy_event> {
public:
    cuda_event()
    {
        cudaEvent_t e{};
        KBENCH_CUDA_CHECK(cudaEventCreate(&e));
        *this = cuda_event(e);
    }
    void record(cudaStream_t stream) const { KBENCH_CUDA_CHECK(cudaEventRecord(get(), stream)); }
    void synchronize() const { KBENCH_CUDA_CHECK(cudaEventSynchronize(get())); }
    /// Seconds elapsed from `start` to this event (both recorded and completed).
    double seconds_since(const cuda_event& start) const
    {
        float ms = 0.0f;
        KBENCH_CUDA_CHECK(cudaEventElapsedTime(&ms, start.get(), get()));
        return static_cast<double>(ms) * 1e-3;
    }

private:
    explicit cuda_event(cudaEvent_t e) : unique_handle(e) {}
};

/// A cuBLAS handle.
class cublas_handle : public detail::unique_handle<cublasHandle_t, detail::destroy_cublas> {
public:
    cublas_handle()
    {
        cublasHandle_t h{};
        KBENCH_CUBLAS_CHECK(cublasCreate(&h));
        *this = cublas_handle(h);
    }

private:
    explicit cublas_handle(cublasHandle_t h) : unique_handle(h) {}
};

/// The calling thread's cuBLAS handle for the current device, created on first use and kept
/// for the thread's life (cublasCreate and cublasDestroy are a setup cost a short solve would
/// otherwise pay on every call), set to `stream` and CUBLAS_POINTER_MODE_HOST on every call.
/// A caller that changes another setting of it sets that back. Throws kbench::cuda_error when
/// cublasCreate or a setting fails.
cublasHandle_t thread_cublas(cudaStream_t stream);

/// A cuSPARSE handle.
class cusparse_handle : public detail::unique_handle<cusparseHandle_t, detail::destroy_cusparse> {
public:
    cusparse_handle()
    {
        cusparseHandle_t h{};
        KBENCH_CUSPARSE_CHECK(cusparseCreate(&h));
        *this = cusparse_handle(h);
    }

private:
    explicit cusparse_handle(cusparseHandle_t h) : unique_handle(h) {}
};

/// A cuSOLVER dense handle.
class cusolver_handle
    : public detail::unique_handle<cusolverDnHandle_t, detail::destroy_cusolver> {
public:
    cusolver_handle()
    {
        cusolverDnHandle_t h{};
        KBENCH_CUSOLVER_CHECK(cusolverDnCreate(&h));
        *this = cusolver_handle(h);
    }

private:
    explicit cusolver_handle(cusolverDnHandle_t h) : unique_handle(h) {}
};

/// An empty CUDA graph, to be filled by node creation or stream capture.
class cuda_graph : public detail::unique_handle<cudaGraph_t, detail::destroy_graph> {
public:
    cuda_graph()
    {
        cudaGraph_t g{};
        KBENCH_CUDA_CHECK(cudaGraphCreate(&g, 0));
        *this = cuda_graph(g);
    }

private:
    explicit cuda_graph(cudaGraph_t g) : unique_handle(g) {}
};

/// An executable instance of a CUDA graph (cudaGraphInstantiate).
class cuda_graph_exec : public detail::unique_handle<cudaGraphExec_t, detail::destroy_graph_exec> {
public:
    explicit cuda_graph_exec(cudaGraph_t graph)
    {
        cudaGraphExec_t e{};
        KBENCH_CUDA_CHECK(cudaGraphInstantiate(&e, graph, 0));
        *this = cuda_graph_exec(e);
    }
    void launch(cudaStream_t stream) const { KBENCH_CUDA_CHECK(cudaGraphLaunch(get(), stream)); }

private:
    explicit cuda_graph_exec(cudaGraphExec_t e) : unique_handle(e) {}
};

/// Adds to `graph` (no dependencies) a conditional WHILE node whose body runs while the
/// condition `handle`, created here with default value 1 (the body runs at least once), is
/// non-zero; a kernel of the body sets it with cudaGraphSetConditional. Returns the body graph,
/// owned by `graph`: capture into it with cudaStreamBeginCaptureToGraph. Throws
/// kbench::cuda_error (e.g. a driver without conditional nodes: CUDA 12.4 or later).
cudaGraph_t add_while_node(cudaGraph_t graph, cudaGraphConditionalHandle& handle);

/// One value of trivially copyable T in page-locked host memory (memory::pinned_allocate:
/// cudaMallocHost, cached for reuse), the target of asynchronous device-to-host copies.
template <typename T>
class pinned_value {
public:
    pinned_value() : mem_(memory::pinned_allocate(sizeof(T))) {}
    T& operator*() noexcept { return *static_cast<T*>(mem_.get()); }
    const T& operator*() const noexcept { return *static_cast<const T*>(mem_.get()); }
    T* get() noexcept { return static_cast<T*>(mem_.get()); }

private:
    detail::unique_handle<void*, memory::pinned_free> mem_;
};

/// `count` values of trivially copyable T in page-locked host memory (memory::pinned_allocate:
/// cudaMallocHost, cached for reuse; mapped, so cudaHostGetDevicePointer gives its device
/// address), the source or target of asynchronous copies. Default-constructed: empty, no
/// memory. Throws kbench::cuda_error when allocating fails.
template <typename T>
class pinned_array {
public:
    pinned_array() = default;
    explicit pinned_array(std::size_t count)
        : count_(count), mem_(memory::pinned_allocate(sizeof(T) * std::max<std::size_t>(1, count)))
    {}
    T* data() noexcept { return static_cast<T*>(mem_.get()); }
    const T* data() const noexcept { return static_cast<const T*>(mem_.get()); }
    T& operator[](std::size_t i) noexcept { return data()[i]; }
    const T& operator[](std::size_t i) const noexcept { return data()[i]; }
    std::size_t size() const noexcept { return count_; }

private:
    std::size_t count_ = 0;
    detail::unique_handle<void*, memory::pinned_free> mem_;
};

}  // namespace kbench
