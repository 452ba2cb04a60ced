// What the kernel-family benchmarks of `kbench bench <family>` (dot, tall-skinny, ...) and the
// studies that sweep the same kernels share: the timing of one point (moved here from anzt2015's
// bench_vector_kernels_common.hpp, which the anzt2015 runners still use), the options of a
// family (sizes n and k, precisions, timing), benchmark names "<family>/<variant>/<precision>/
// n=<n>/k=<k>", and the Google Benchmark style entries and results document.
//
// Timing of one point (time_point): the caller has made one warm-up call; the loop count L is
// calibrated so that L back-to-back calls last >= min_time seconds (L >= 1), then `repetitions`
// repetitions of L calls are timed (CUDA events around the loop, or the host's steady clock for
// calls that end on the host); seconds per call = elapsed / L, median over the repetitions.
// Cold (an L2Flush given): L = 1 and the L2 cache is flushed before every timed call, outside
// the timed region; min_time is then not used.
#pragma once

#include "harness/core/machine.hpp"
#include "harness/core/study_context.hpp"
#include "harness/core/timing.hpp"
#include "kernels/base/cuda_check.hpp"
#include "kernels/base/cuda_handles.hpp"
#include "kernels/l2_flush.hpp"
#include "models/spmv_traffic.hpp"  // models::Traffic

#include <cuda_runtime_api.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace kbench::harness {

// ---- Timing of one point --------------------------------------------------------------------

/// Calibration cap on L: a repetition of tiny calls.
inline constexpr long long point_max_loops = 1LL << 24;

enum class Clock {
    events,  // CUDA events on the stream around the loop (asynchronous calls)
    host,    // std::chrono::steady_clock, stream synchronized before and after the loop
};

struct PointTiming {
    double seconds = 0.0;  // median seconds per call
    long long loops = 1;   // calls per repetition
};

/// Times `call` (which enqueues one call on `stream`, and may synchronize) as the file comment
/// says: calibrated loops of back-to-back calls, or with `flush` one call per repetition after
/// an untimed L2 flush. The caller has made the warm-up call.
template <typename Call>
PointTiming time_point(Call&& call, cudaStream_t stream, Clock clock, int repetitions,
                       double min_time, L2Flush* flush = nullptr)
{
    const cuda_event start, stop;
    const auto run_loops = [&](long long loops) {
        if (flush != nullptr) flush->flush(stream);  // before the start: untimed
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
    while (flush == nullptr) {
        const double elapsed = run_loops(t.loops);
        if (elapsed >= min_time || t.loops >= point_max_loops) break;
        // Aim 20 % past min_time from the rate seen so far, at least doubling.
        const double loops = static_cast<double>(t.loops);
        const double target = elapsed > 0.0 ? 1.2 * min_time / elapsed * loops : 10.0 * loops;
        const double next = std::min(std::ceil(target), static_cast<double>(point_max_loops));
        t.loops =
            std::min(point_max_loops, std::max(2 * t.loops, static_cast<long long>(next)));
    }
    std::vector<double> per_call;
    for (int r = 0; r < repetitions; ++r)
        per_call.push_back(run_loops(t.loops) / static_cast<double>(t.loops));
    t.seconds = median(per_call);
    return t;
}

// ---- Options of a family --------------------------------------------------------------------

/// What `kbench bench <family>` measures: every variant of the family at every (n, k) and
/// precision whose name the filter selects.
struct KernelBenchOptions {
    std::vector<std::int64_t> ns;         // --n: lengths (rows)
    std::vector<int> ks;                  // --k: vectors (columns)
    std::vector<std::string> precisions;  // "double" and/or "float"
    RunOptions run;                       // cold, repetitions, min_time
    std::string filter;                   // ECMAScript regex searched in benchmark names
};

/// Parses the values of a size option: integers ("1000000") or decimal exponent forms ("1e6",
/// "2.5e5") that name an integer, each in [lo, hi]. Throws std::invalid_argument naming
/// `option` and the range expected for an empty list or a bad value.
std::vector<std::int64_t> parse_sizes(const std::vector<std::string>& texts,
                                      const std::string& option, std::int64_t lo,
                                      std::int64_t hi);

/// "double", "float" or "both" as parse_precision, but the message of the
/// std::invalid_argument names --precision.
std::vector<std::string> parse_bench_precision(const std::string& text);

/// Throws std::invalid_argument naming the option and what was expected when `o` is out of
/// range: no --n or an n outside [1, n_max]; no --k or a k outside [1, k_max] (k_max == 0: a
/// family without k, whose ks must be empty); no precision or one other than double/float; run
/// options (validate); a filter that is not a regex.
void validate(const KernelBenchOptions& o, std::int64_t n_max, int k_max);

/// "<family>/<variant>/<precision>/n=<n>/k=<k>"; without "/k=<k>" for k <= 0 (a family without
/// k, e.g. stream).
std::string kernel_benchmark_name(const std::string& family, const std::string& variant,
                                  const std::string& precision, std::int64_t n, int k);

// ---- Entries and the results document ------------------------------------------------------

/// A results document (results_json.hpp schema) with id `id` and no matrix set;
/// context.kbench[family] = `method` plus precision-independent settings (repetitions,
/// min_time, read_gbps).
nlohmann::json kernel_bench_document(const std::string& id, const std::string& family,
                                     const KernelBenchOptions& o, const MachineProfile* machine,
                                     nlohmann::json method);

/// What one measured point of a family is.
struct KernelPoint {
    std::string family, variant, precision;
    std::int64_t n = 0;
    int k = 0;
    models::Traffic traffic;  // model bytes and flops of one call
    nlohmann::json params = nlohmann::json::object();  // family-specific parameters
};

/// The Google Benchmark "median" aggregate entry of a timed point: name "<run_name>_median",
/// run_name, run_type "aggregate", aggregate_name "median", repetitions, iterations (the loop
/// count L), real_time = cpu_time (median seconds per call, in us), time_unit "us"; counters
/// bytes_read, bytes_written, flops, GBps, GFlops, bw_frac_read and bw_frac_triad (left out
/// without a machine profile or its rate), max_rel_error, n, k (left out for k <= 0); and
/// "kbench": {study (the family), kernel (the variant), precision, params (n, k, loops and
/// p.params), max_rel_error}.
nlohmann::json kernel_bench_entry(const KernelPoint& p, const PointTiming& t, int repetitions,
                                  double max_rel_error, const MachineProfile* machine);

/// The entry of a point that was not timed: Google Benchmark's shape of a skipped run
/// (run_type "iteration", error_occurred true, error_message), with the "kbench" object.
nlohmann::json kernel_bench_error_entry(const KernelPoint& p, const std::string& message,
                                        double max_rel_error);

/// The tolerance on max_rel_error of a precision (1e-8 double, 1e-3 float, as bench spmv).
double bench_tolerance(const std::string& precision);

/// Whether `filter` (compile_filter of --filter; none: everything) selects the benchmark `name`.
bool selected(const std::optional<std::regex>& filter, const std::string& name);

/// The names of a family's benchmarks that o.filter selects, in run order: precision, n, k (0
/// and left out of the name when with_k is false), then the variants in their order;
/// name_of(v) is a variant's name.
template <typename V, typename NameOf>
std::vector<std::string> selected_benchmark_names(const KernelBenchOptions& o,
                                                  const std::string& family,
                                                  const std::vector<V>& variants,
                                                  NameOf&& name_of, bool with_k = true)
{
    const std::optional<std::regex> filter = compile_filter(o.filter);
    const std::vector<int> ks = with_k ? o.ks : std::vector<int>{0};
    std::vector<std::string> names;
    for (const std::string& precision : o.precisions)
        for (const std::int64_t n : o.ns)
            for (const int k : ks)
                for (const V& v : variants) {
                    std::string name = kernel_benchmark_name(family, name_of(v), precision, n, k);
                    if (selected(filter, name)) names.push_back(std::move(name));
                }
    return names;
}

/// The entry of a point whose CPU-reference check failed: kernel_bench_error_entry with the
/// message "max_rel_error <max_rel_error> exceeds the <p.precision> tolerance <tolerance>".
nlohmann::json tolerance_error_entry(const KernelPoint& p, double max_rel_error,
                                     double tolerance);

/// Calls f(T{}, precision) for each of o.precisions in order, T = double for "double" and float
/// otherwise (parse_bench_precision admits only those two): the families' precision dispatch.
template <typename F>
void for_each_precision(const KernelBenchOptions& o, F&& f)
{
    for (const std::string& precision : o.precisions) {
        if (precision == "double") f(double{}, precision);
        else f(float{}, precision);
    }
}

}  // namespace kbench::harness
