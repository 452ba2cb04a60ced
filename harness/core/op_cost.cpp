// Host and device cost of an enqueued operation: see op_cost.hpp.
#include "harness/core/op_cost.hpp"

#include "harness/core/timing.hpp"
#include "kernels/base/cublas_level1.hpp"
#include "kernels/base/cuda_check.hpp"
#include "kernels/base/cuda_handles.hpp"
#include "kernels/base/device.hpp"
#include "kernels/base/device_buffer.hpp"
#include "kernels/dot.hpp"
#include "kernels/idle_kernels.hpp"
#include "kernels/tall_skinny.hpp"

#include <cublas_v2.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace kbench::harness {

OpCost measure_op_cost(const std::function<void(cudaStream_t)>& op, cudaStream_t stream,
                       int calls, int samples)
{
    if (calls < 1 || samples < 1)
        throw std::invalid_argument("measure_op_cost: calls = " + std::to_string(calls) +
                                    ", samples = " + std::to_string(samples) +
                                    ", expected both >= 1");
    using clock = std::chrono::steady_clock;
    cuda_event after_spin, after_calls;
    std::vector<double> host, device;
    double spin_s = 200e-6;
    for (int s = -1; s < samples;) {
        launch_spin_kernel(static_cast<std::uint64_t>(spin_s * 1e9), stream);
        after_spin.record(stream);
        const auto t0 = clock::now();
        for (int c = 0; c < calls; ++c) op(stream);
        const double issue_s = std::chrono::duration<double>(clock::now() - t0).count();
        after_calls.record(stream);
        after_calls.synchronize();
        if (2 * issue_s > spin_s) {  // the device may have caught up: a longer spin, again
            spin_s *= 2;
            if (spin_s > 1.0)
                throw std::invalid_argument(
                    "measure_op_cost: enqueueing " + std::to_string(calls) + " calls took " +
                    std::to_string(issue_s) + " s, expected an op that only enqueues work");
            continue;
        }
        if (s++ < 0) continue;  // the warm-up sample
        host.push_back(1e6 * issue_s / calls);
        device.push_back(1e6 * after_calls.seconds_since(after_spin) / calls);
    }
    return {median(host), median(device)};
}

models::LaunchCosts with_launch_figures(models::LaunchCosts costs, const LaunchFigures& f)
{
    costs.launch_s = f.kernel_us * 1e-6;
    costs.reduction_launch_s = f.reduction_us * 1e-6;
    costs.copy_launch_s = f.copy_us * 1e-6;
    costs.sync_tail_s = f.sync_tail_us * 1e-6;
    costs.stream_node_s = f.stream_node_us * 1e-6;
    return costs;
}

void to_json(nlohmann::json& j, const LaunchFigures& f)
{
    j = {{"kernel_us", f.kernel_us},       {"reduction_us", f.reduction_us},
         {"copy_us", f.copy_us},           {"sync_tail_us", f.sync_tail_us},
         {"stream_node_us", f.stream_node_us}};
}

void from_json(const nlohmann::json& j, LaunchFigures& f)
{
    f.kernel_us = j.at("kernel_us").get<double>();
    f.reduction_us = j.at("reduction_us").get<double>();
    f.copy_us = j.at("copy_us").get<double>();
    f.sync_tail_us = j.at("sync_tail_us").get<double>();
    f.stream_node_us = j.value("stream_node_us", 0.0);
}

LaunchFigures measure_launch_figures(std::int64_t n, cudaStream_t stream)
{
    if (n < 1)
        throw std::invalid_argument("measure_launch_figures: n = " + std::to_string(n) +
                                    ", expected >= 1");
    const auto len = static_cast<std::size_t>(n);
    device_buffer<double> v(std::vector<double>(len, 1.0)), w(std::vector<double>(len, 0.5));
    device_buffer<double> h(std::vector<double>(1, 0.0));
    blas::DotWorkspace work(n, 1);
    pinned_array<double> host(1);
    const auto dot = [&](cudaStream_t s) {
        blas::dot(n, v.data(), w.data(), h.data(), work.data(), work.bytes(), s);
    };
    const auto copy = [&](cudaStream_t s) {
        KBENCH_CUDA_CHECK(cudaMemcpyAsync(host.data(), h.data(), sizeof(double),
                                          cudaMemcpyDeviceToHost, s));
    };
    LaunchFigures f;
    // w -= v h with h = 0 (before the dots write it): w keeps its values.
    f.kernel_us = measure_op_cost([&](cudaStream_t s) {
        blas::gemm_rowwise<double>(n, 1, 1, -1.0, v.data(), n, h.data(), 1, 1.0, w.data(), n, s);
    }, stream).host_us;
    f.reduction_us = measure_op_cost(dot, stream).host_us;
    f.copy_us = measure_op_cost(copy, stream).host_us;
    const double round_trip = time_wall([&] {
        dot(stream);
        copy(stream);
        KBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
    }, 20, 200);
    f.sync_tail_us = std::max(0.0, 1e6 * round_trip - f.reduction_us - f.copy_us);
    f.stream_node_us = measure_op_cost(launch_empty_kernel, stream).device_us;
    return f;
}

/// What the cuBLAS measurements below call on: `pairs` pairs of vectors of n values of T, x_i = 1
/// and y_i = 0.5 (pair i at offset i n of x and of y), one value d on the device, a handle on
/// `stream` (host pointer mode). Throws std::invalid_argument, naming `fn`, for n < 1 or
/// n > INT_MAX (cuBLAS's int sizes).
namespace {

template <typename T>
struct CublasProbe {
    static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>);
    int len;
    device_buffer<T> x, y, d;
    cublas_handle h;
    CublasProbe(const char* fn, std::int64_t n, cudaStream_t stream, int pairs = 1)
        : len{checked_length(fn, n)},
          x(std::vector<T>(static_cast<std::size_t>(n) * pairs, T{1})),
          y(std::vector<T>(static_cast<std::size_t>(n) * pairs, T{0.5})),
          d(1)
    {
        KBENCH_CUBLAS_CHECK(cublasSetStream(h.get(), stream));
    }
    static int checked_length(const char* fn, std::int64_t n)
    {
        if (n < 1 || n > std::numeric_limits<int>::max())
            throw std::invalid_argument(std::string(fn) + ": n = " + std::to_string(n) +
                                        ", expected 1 <= n <= INT_MAX (cuBLAS's int sizes)");
        return static_cast<int>(n);
    }
};

}  // namespace

template <typename T>
LaunchFigures measure_cublas_launch_figures(std::int64_t n, cudaStream_t stream)
{
    CublasProbe<T> p("measure_cublas_launch_figures", n, stream);
    const auto dot = [&](T* result) {
        KBENCH_CUBLAS_CHECK(cublas::dot(p.h.get(), p.len, p.x.data(), p.y.data(), result));
    };
    LaunchFigures f;
    f.kernel_us = measure_op_cost([&](cudaStream_t) {  // y += 0 x: y keeps its values
        KBENCH_CUBLAS_CHECK(cublas::axpy(p.h.get(), p.len, T{0}, p.x.data(), p.y.data()));
    }, stream).host_us;
    KBENCH_CUBLAS_CHECK(cublasSetPointerMode(p.h.get(), CUBLAS_POINTER_MODE_DEVICE));
    f.reduction_us = measure_op_cost([&](cudaStream_t) { dot(p.d.data()); }, stream).host_us;
    KBENCH_CUBLAS_CHECK(cublasSetPointerMode(p.h.get(), CUBLAS_POINTER_MODE_HOST));
    T value{};
    const double blocking = time_wall([&] { dot(&value); }, 20, 200);
    f.sync_tail_us = std::max(0.0, 1e6 * blocking - f.reduction_us);
    f.stream_node_us = measure_op_cost(launch_empty_kernel, stream).device_us;
    return f;
}

template LaunchFigures measure_cublas_launch_figures<float>(std::int64_t, cudaStream_t);
template LaunchFigures measure_cublas_launch_figures<double>(std::int64_t, cudaStream_t);

void to_json(nlohmann::json& j, const CublasCallTimes& t)
{
    j = {{"axpy_us", t.axpy_us}, {"scal_us", t.scal_us},         {"copy_us", t.copy_us},
         {"dot_us", t.dot_us},   {"dot_self_us", t.dot_self_us}, {"nrm2_us", t.nrm2_us},
         {"pairs", t.pairs}};
}

void from_json(const nlohmann::json& j, CublasCallTimes& t)
{
    j.at("axpy_us").get_to(t.axpy_us);
    j.at("scal_us").get_to(t.scal_us);
    j.at("copy_us").get_to(t.copy_us);
    j.at("dot_us").get_to(t.dot_us);
    j.at("dot_self_us").get_to(t.dot_self_us);
    j.at("nrm2_us").get_to(t.nrm2_us);
    t.pairs = j.value("pairs", 1);
}

int cublas_call_pairs(std::int64_t n, std::size_t value_bytes, double reuse_distance_bytes)
{
    const double pair_bytes = 2.0 * static_cast<double>(n) * static_cast<double>(value_bytes);
    // Past twice the L2 cache, a vector's lines are gone by its next use whatever the distance.
    const double span = std::min(reuse_distance_bytes, 2.0 * static_cast<double>(l2_cache_bytes()));
    return static_cast<int>(std::clamp(std::ceil(span / pair_bytes), 1.0, 64.0));
}

template <typename T>
CublasCallTimes measure_cublas_call_times(std::int64_t n, double reuse_distance_bytes,
                                          cudaStream_t stream)
{
    constexpr const char* fn = "measure_cublas_call_times";
    if (!(reuse_distance_bytes >= 0.0))
        throw std::invalid_argument(std::string(fn) + ": reuse_distance_bytes = " +
                                    std::to_string(reuse_distance_bytes) + ", expected >= 0");
    const int pairs = cublas_call_pairs(CublasProbe<T>::checked_length(fn, n), sizeof(T),
                                        reuse_distance_bytes);
    CublasProbe<T> p(fn, n, stream, pairs);
    const int len = p.len;
    const cublasHandle_t h = p.h.get();
    T* const d = p.d.data();
    int next = 0;  // the pair the next call takes: calls go round the pairs
    const auto device_us = [&](auto&& call) {
        return measure_op_cost([&](cudaStream_t) {
            const std::size_t offset = static_cast<std::size_t>(next) * static_cast<std::size_t>(n);
            next = (next + 1) % pairs;
            KBENCH_CUBLAS_CHECK(call(p.x.data() + offset, p.y.data() + offset));
        }, stream).device_us;
    };
    CublasCallTimes t;
    t.pairs = pairs;
    // The updates as the solver makes them, scalars on the host.
    t.axpy_us = device_us([&](T* v, T* w) { return cublas::axpy(h, len, T(1e-30), v, w); });
    t.scal_us = device_us([&](T* v, T*) { return cublas::scal(h, len, T(-1), v); });
    t.copy_us = device_us([&](T* v, T* w) { return cublas::copy(h, len, v, w); });
    // The reductions' results to device memory: a result to the host would synchronize.
    KBENCH_CUBLAS_CHECK(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE));
    t.dot_us = device_us([&](T* v, T* w) { return cublas::dot(h, len, v, w, d); });
    t.dot_self_us = device_us([&](T* v, T*) { return cublas::dot(h, len, v, v, d); });
    t.nrm2_us = device_us([&](T* v, T*) { return cublas::nrm2(h, len, v, d); });
    return t;
}

template CublasCallTimes measure_cublas_call_times<float>(std::int64_t, double, cudaStream_t);
template CublasCallTimes measure_cublas_call_times<double>(std::int64_t, double, cudaStream_t);

}  // namespace kbench::harness
