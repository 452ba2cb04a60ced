// Timing helpers shared by the harness's measurements: the median of samples and the median
// time of repeated work on a stream (CUDA events) or on the host (steady clock).
#pragma once

#include "kernels/base/cuda_check.hpp"
#include "kernels/base/cuda_handles.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <vector>

namespace kbench::harness {

/// Median of `v` (the mean of the two middle values for an even count). Precondition: v is
/// not empty.
inline double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    const std::size_t m = v.size() / 2;
    return v.size() % 2 == 1 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

/// Median seconds of `reps` timed calls of `fn(stream)` after `warmup` untimed ones, each timed
/// with CUDA events recorded on `stream` around it. Throws kbench::cuda_error on CUDA failures.
template <typename F>
double time_events(F&& fn, cudaStream_t stream, int warmup = 3, int reps = 20)
{
    for (int i = 0; i < warmup; ++i) fn(stream);
    KBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
    cuda_event start, stop;
    std::vector<double> samples;
    for (int i = 0; i < reps; ++i) {
        start.record(stream);
        fn(stream);
        stop.record(stream);
        stop.synchronize();
        samples.push_back(stop.seconds_since(start));
    }
    return median(samples);
}

/// Median host wall-clock seconds (steady clock) of `reps` calls of fn() after `warmup` ones.
template <typename F>
double time_wall(F&& fn, int warmup, int reps)
{
    using clock = std::chrono::steady_clock;
    for (int i = 0; i < warmup; ++i) fn();
    std::vector<double> samples;
    for (int i = 0; i < reps; ++i) {
        const auto t0 = clock::now();
        fn();
        samples.push_back(std::chrono::duration<double>(clock::now() - t0).count());
    }
    return median(samples);
}

}  // namespace kbench::harness
