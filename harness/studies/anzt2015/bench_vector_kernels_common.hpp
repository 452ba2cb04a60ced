// What the anzt2015 vector-kernel runners share (harness/studies/anzt2015/bench_vector_kernels*
// .cpp; the runners, the timing method and the entries are described in bench_vector_kernels.hpp):
// deterministic vector values and their long-double references, the vector lengths, the timing
// of one point and its entry, the results document and a cuBLAS handle on a stream. Defined in
// bench_vector_kernels.cpp.
#pragma once

#include "harness/bench/bench_dot.hpp"
#include "harness/bench/kernel_bench.hpp"
#include "harness/core/progress.hpp"
#include "harness/core/quick.hpp"
#include "harness/core/study.hpp"
#include "harness/core/timing.hpp"
#include "kernels/base/cuda_check.hpp"
#include "kernels/base/cuda_handles.hpp"
#include "kernels/base/device_buffer.hpp"
#include "kernels/dot.hpp"

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

// ---- Deterministic vector values ----------------------------------------------------------

// Pattern j, element i: 1 / (1 + (i + 131 j) mod 1009), in (0, 1] (harness/bench/bench_dot.hpp,
// shared with `kbench bench dot`): fill_pattern copies a pattern to the device, pattern_dot is
// the long-double reference of two patterns' product.
using dot_bench::fill_pattern;
using dot_bench::pattern_dot;

/// |got - expected| / |expected| (|got - expected| when expected is 0).
double relative_error(double got, long double expected);

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

// Clock, PointTiming and time_point (the timing of one point) are harness/bench/kernel_bench.hpp's,
// shared with `kbench bench <family>`.

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

/// A ready workspace of the dot kernels for k products of length n (kernels/dot.hpp: counter
/// region zeroed; used by the dot kernels only, so nothing else writes the counters).
blas::DotWorkspace dot_workspace(std::int64_t n, int k);

// ---- The results document -------------------------------------------------------------------

/// A results document with no matrix set for run.id; `method` (the figure's timing method and
/// models, completed with the common settings) goes to context.kbench.vector_kernels.
nlohmann::json new_document(const StudyRun& run, nlohmann::json method);

// BlasOnStream (a cuBLAS handle on a new non-blocking stream) is harness/bench/kernel_bench.hpp's.

}  // namespace kbench::harness::vector_kernels_bench
