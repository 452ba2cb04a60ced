// What the anzt2015 vector-kernel runners share (harness/studies/anzt2015/bench_vector_kernels*
// .cpp; the runners, the timing method and the entries are described in bench_vector_kernels.hpp):
// deterministic vector values and their long-double references, the vector lengths, the timing
// of one point and its entry, the results document and a cuBLAS handle on a stream. Defined in
// bench_vector_kernels.cpp.
#pragma once

#include "harness/core/progress.hpp"
#include "harness/core/quick.hpp"
#include "harness/core/study.hpp"
#include "harness/core/timing.hpp"
#include "kernels/base/cuda_check.hpp"
#include "kernels/base/cuda_handles.hpp"
#include "kernels/base/device_buffer.hpp"

#include <cublas_v2.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace kbench::harness::vector_kernels_bench {

constexpr int value_bytes = static_cast<int>(sizeof(double));
constexpr long long max_loops = 1LL << 24;  // calibration cap: a repetition of tiny calls

// ---- Deterministic vector values ----------------------------------------------------------

// Pattern j, element i: 1 / (1 + (i + 131 j) mod 1009), in (0, 1]. Positive values keep every
// dot product well conditioned (the check measures the kernels' rounding, not cancellation);
// the period keeps the elements of long vectors of one magnitude (1/(i+1) would let the first
// thousand elements decide every sum), and different j give different vectors.

/// Copies pattern `pattern` of n elements to the device array `dst` through `staging` (host).
/// The copy is not ordered against non-blocking streams: call cudaDeviceSynchronize() after
/// the last fill.
void fill_pattern(double* dst, std::int64_t n, int pattern, std::vector<double>& staging);

/// sum_i pattern_a[i] * pattern_b[i] over n elements, in long double (the reference of the checks).
long double pattern_dot(int a, int b, std::int64_t n);

/// Element i of pattern j (for the p-update reference).
double pattern_value(int pattern, std::int64_t i);

/// |got - expected| / |expected| (|got - expected| when expected is 0).
double relative_error(double got, long double expected);

/// max_j |got[j] - expected[j]| / |expected[j]| over the first k results.
double max_relative_error(const std::vector<double>& got, const std::vector<long double>& expected,
                          int k);

// ---- Sizes ----------------------------------------------------------------------------------

/// `count` lengths from 10^lo to 10^hi, equally spaced in log10, each rounded to 3 significant
/// digits (so every n >= 1000 is a multiple of 10: even, and vectors at V + j n stay 16-byte
/// aligned, which lets the kernels use their vectorized loads).
std::vector<std::int64_t> log_spaced(double lo, double hi, int count);

/// Longest vector of a quick run (`kbench reproduce --quick`; the full sweeps go to 1e8).
inline constexpr std::int64_t quick_max_length = 1'000'000;

/// A sweep's values (ascending) as `run` takes them: all of them, or under run.options.quick
/// at most `points` of those <= cap (quick_cap, harness/core/quick.hpp).
template <typename T>
std::vector<T> sweep(const StudyRun& run, std::vector<T> values, T cap, std::size_t points)
{
    return run.options.quick ? quick_cap(values, cap, points) : values;
}

/// n as cuBLAS's int length. Throws std::invalid_argument naming `who` for n above INT_MAX.
int cublas_int(std::int64_t n, const char* who);

// ---- Timing ---------------------------------------------------------------------------------

enum class Clock {
    events,  // CUDA events on the stream around the loop (asynchronous calls)
    host,    // std::chrono::steady_clock, stream synchronized before and after the loop
};

struct PointTiming {
    double seconds = 0.0;  // median seconds per call
    long long loops = 1;   // calls per repetition
};

/// Times `call` (which enqueues one call on `stream`, and may synchronize): calibrates the loop
/// count L so that L back-to-back calls last >= min_time seconds (L >= 1, at most max_loops),
/// then takes `repetitions` repetitions of L calls and returns the median seconds per call.
/// The caller has made the warm-up call.
template <typename Call>
PointTiming time_point(Call&& call, cudaStream_t stream, Clock clock, int repetitions,
                       double min_time)
{
    const cuda_event start, stop;
    const auto run_loops = [&](long long loops) {
        if (clock == Clock::events) {
            start.record(stream);
            for (long long i = 0; i < loops; ++i) call();
            stop.record(stream);
            stop.synchronize();
            return stop.seconds_since(start);
        }
        using steady = std::chrono::steady_clock;
        KBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
        const auto t0 = steady::now();
        for (long long i = 0; i < loops; ++i) call();
        KBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
        return std::chrono::duration<double>(steady::now() - t0).count();
    };
    PointTiming t;
    for (;;) {
        const double elapsed = run_loops(t.loops);
        if (elapsed >= min_time || t.loops >= max_loops) break;
        // Aim 20 % past min_time from the rate seen so far, at least doubling.
        const double loops = static_cast<double>(t.loops);
        const double target = elapsed > 0.0 ? 1.2 * min_time / elapsed * loops : 10.0 * loops;
        const double next = std::min(std::ceil(target), static_cast<double>(max_loops));
        t.loops = std::min(max_loops, std::max(2 * t.loops, static_cast<long long>(next)));
    }
    std::vector<double> per_call;
    for (int r = 0; r < repetitions; ++r)
        per_call.push_back(run_loops(t.loops) / static_cast<double>(t.loops));
    t.seconds = median(per_call);
    return t;
}

/// What one entry of the results document describes besides its timing.
struct Point {
    const char* figure;  // "fig7" .. "fig10"
    const char* panel;   // "left", "right" or ""
    const char* variant;
    std::int64_t n;
    int k;
    double flops;
    double bytes_read;
    double bytes_written;
};

/// The entry of point p (the fields listed in bench_vector_kernels.hpp).
nlohmann::json make_entry(const Point& p, const PointTiming& t, int repetitions,
                          double max_rel_error);

/// One point: warm-up call, check() (the max relative error of the warm-up's result), timing.
/// Reports progress as "[k/total] <name>".
template <typename Call>
nlohmann::json measure_point(const Point& p, Call&& call, const std::function<double()>& check,
                             cudaStream_t stream, Clock clock, const RunOptions& o,
                             const Progress& progress, std::size_t index, std::size_t total)
{
    progress.report(index, total,
                    fmt::format("{}/{}/double/n={}/k={}", p.figure, p.variant, p.n, p.k));
    call();
    KBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
    const double err = check();
    const PointTiming t = time_point(call, stream, clock, o.repetitions, o.min_time);
    return make_entry(p, t, o.repetitions, err);
}

/// Copies the first k device results to the host (after the stream is synchronized).
std::vector<double> results_to_host(const device_buffer<double>& result, int k);

/// Device workspace of the dot kernels for k products of length n (at least one double).
device_buffer<double> dot_workspace(std::int64_t n, int k);

// ---- The results document -------------------------------------------------------------------

/// A results document with no matrix set for run.id; `method` (the figure's timing method and
/// models, completed with the common settings) goes to context.kbench.vector_kernels.
nlohmann::json new_document(const StudyRun& run, nlohmann::json method);

/// A cuBLAS handle on a new non-blocking stream.
struct BlasOnStream {
    cuda_stream stream;
    cublas_handle blas;
    explicit BlasOnStream(cublasPointerMode_t mode)
    {
        KBENCH_CUBLAS_CHECK(cublasSetStream(blas, stream));
        KBENCH_CUBLAS_CHECK(cublasSetPointerMode(blas, mode));
    }
};

}  // namespace kbench::harness::vector_kernels_bench
