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
#include "harness/core/ncu_profile.hpp"
#include "harness/core/progress.hpp"
#include "harness/core/study_context.hpp"
#include "harness/core/timing.hpp"
#include "kernels/base/cuda_check.hpp"
#include "kernels/base/cuda_handles.hpp"
#include "kernels/base/nvtx.hpp"
#include "kernels/l2_flush.hpp"
#include "models/spmv_traffic.hpp"  // models::Traffic

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <type_traits>
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

/// The name of precision T in benchmark names: "double" or "float".
template <typename T>
constexpr const char* precision_name()
{
    static_assert(std::is_same_v<T, double> || std::is_same_v<T, float>, "double or float");
    return std::is_same_v<T, double> ? "double" : "float";
}

/// The warm-up call of the benchmark `name`: call() once inside the push/pop range
/// profile_range_name(name) of kbench's NVTX domain (harness/core/ncu_profile.hpp), the one call
/// of a point that `kbench profile <name>` has Nsight Compute measure (every kernel it launches;
/// the timed calls stay outside). The caller synchronizes and checks the result as before.
/// Without a tool attached the range costs two no-op calls.
template <typename Call>
void profiled_warm_up(const std::string& name, Call&& call)
{
    const std::string range = profile_range_name(name);
    const nvtx_range scope{range.c_str()};
    call();
}

/// max_i |got_i - ref_i| / max_i |ref_i| over the indices i < ref.size() that use(i) selects
/// (the absolute error when those ref are all zero; inf when a difference is Inf or NaN): the
/// error of a result against its CPU reference. `got` has at least ref.size() elements.
template <typename T, typename Use>
double relative_max_error(const std::vector<T>& got, const std::vector<T>& ref, Use&& use)
{
    double err = 0.0, scale = 0.0;
    for (std::size_t i = 0; i < ref.size(); ++i) {
        if (!use(i)) continue;
        const double d = std::fabs(static_cast<double>(got[i]) - static_cast<double>(ref[i]));
        if (!std::isfinite(d)) return INFINITY;
        err = std::max(err, d);
        scale = std::max(scale, std::fabs(static_cast<double>(ref[i])));
    }
    return scale > 0.0 ? err / scale : err;
}

/// relative_max_error over every index.
template <typename T>
double relative_max_error(const std::vector<T>& got, const std::vector<T>& ref)
{
    return relative_max_error(got, ref, [](std::size_t) { return true; });
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
/// range: no --n or an n outside [1, n_max] (n_max == 0: a family without n, e.g. spmm over a
/// matrix set, whose ns must be empty); no --k or a k outside [1, k_max] (k_max == 0: a family
/// without k, whose ks must be empty); no precision or one other than double/float; run options
/// (validate); a filter that is not a regex.
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

/// The same for a family over the matrices of `set` (loaded from `source`): the context names
/// the set as bench spmv's does; the caller adds each matrix to context.kbench.matrices.
nlohmann::json kernel_bench_document(const std::string& id, const std::string& family,
                                     const KernelBenchOptions& o, const MachineProfile* machine,
                                     nlohmann::json method, const MatrixSource& source,
                                     const MatrixSet& set);

/// What one measured point of a family is.
struct KernelPoint {
    std::string family, variant, precision;
    std::int64_t n = 0;
    int k = 0;
    models::Traffic traffic;  // model bytes and flops of one call
    nlohmann::json params = nlohmann::json::object();  // family-specific parameters
    std::string matrix;  // a family over a matrix set (spmm): the matrix; n is then its rows
};

/// The benchmark name of p: kernel_benchmark_name, or with a matrix
/// "<family>/<variant>/<precision>/<matrix>/k=<k>" (without "/k=<k>" for k <= 0).
std::string point_name(const KernelPoint& p);

/// The Google Benchmark "median" aggregate entry of a timed point (run_name point_name(p)): name
/// "<run_name>_median",
/// run_name, run_type "aggregate", aggregate_name "median", repetitions, iterations (the loop
/// count L), real_time = cpu_time (median seconds per call, in us), time_unit "us"; counters
/// bytes_read, bytes_written, flops, GBps, GFlops, bw_frac_read and bw_frac_triad (left out
/// without a machine profile or its rate), max_rel_error, n, k (left out for k <= 0); and
/// "kbench": {study (the family), kernel (the variant), precision, [matrix,] params (n, k, loops
/// and p.params), max_rel_error}.
nlohmann::json kernel_bench_entry(const KernelPoint& p, const PointTiming& t, int repetitions,
                                  double max_rel_error, const MachineProfile* machine);

/// What the measurement of one point of a family gives (measure_dot_point,
/// measure_tall_skinny_point, measure_bicgstab_kernel_point).
struct PointMeasurement {
    PointTiming timing;         // seconds NaN when not timed
    models::Traffic traffic;    // model bytes and flops of one call
    double max_rel_error = 0.0; // of the warm-up call against the CPU reference (NaN: unchecked)
    bool timed = false;         // false: max_rel_error exceeded the tolerance, not timed
};

/// The entry of measured point p (p.traffic as given): kernel_bench_entry when m.timed, else
/// tolerance_error_entry with `tolerance`.
nlohmann::json measurement_entry(const KernelPoint& p, const PointMeasurement& m,
                                 int repetitions, double tolerance,
                                 const MachineProfile* machine);

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

/// What the per-precision part of a family's run works with (run_precisions).
struct FamilyRun {
    const KernelBenchOptions& o;
    const MachineProfile* machine;            // may be null: no bw_frac_* counters
    const std::optional<std::regex>& filter;  // compile_filter(o.filter)
    L2Flush* flush;                           // a cold run's (o.run.cold); null otherwise
    nlohmann::json& doc;                      // the results document the entries go to
    const Progress& progress;
    std::size_t& index;  // points run so far
    std::size_t total;   // points to run
};

/// The per-precision loop of a family's run: one FamilyRun for the whole run (an L2Flush when
/// o.run.cold, one Progress, one count of points), then f(T{}, precision, run) for each of
/// o.precisions (for_each_precision).
template <typename F>
void run_precisions(const KernelBenchOptions& o, const MachineProfile* machine,
                    const std::optional<std::regex>& filter, nlohmann::json& doc,
                    std::size_t total, F&& f)
{
    std::unique_ptr<L2Flush> flush;
    if (o.run.cold) flush = std::make_unique<L2Flush>();
    const Progress progress;
    std::size_t index = 0;
    const FamilyRun run{o, machine, filter, flush.get(), doc, progress, index, total};
    for_each_precision(o,
                       [&](auto zero, const std::string& precision) { f(zero, precision, run); });
}

/// A cuBLAS handle on a new non-blocking stream, in pointer mode `mode`.
struct BlasOnStream {
    cuda_stream stream;
    cublas_handle blas;
    explicit BlasOnStream(cublasPointerMode_t mode)
    {
        KBENCH_CUBLAS_CHECK(cublasSetStream(blas, stream));
        KBENCH_CUBLAS_CHECK(cublasSetPointerMode(blas, mode));
    }
};

}  // namespace kbench::harness
