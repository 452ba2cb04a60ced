// Dot-product kernels and the fused p update against cuBLAS (anzt2015 Figs. 7-10); see
// harness/studies/anzt2015/bench_vector_kernels.hpp.
#include "harness/studies/anzt2015/bench_vector_kernels.hpp"

#include "harness/core/timing.hpp"

#include "harness/core/progress.hpp"
#include "harness/core/results_json.hpp"
#include "harness/core/study_context.hpp"
#include "kernels/base/cuda_check.hpp"
#include "kernels/base/cuda_handles.hpp"
#include "kernels/base/device_buffer.hpp"
#include "kernels/bicgstab_kernels.hpp"
#include "kernels/dot.hpp"
#include "matrices/matrix_set.hpp"
#include "models/bicgstab_model.hpp"

#include <cublas_v2.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace kbench::harness {
namespace {

constexpr int value_bytes = static_cast<int>(sizeof(double));
constexpr long long max_loops = 1LL << 24;  // calibration cap: a repetition of tiny calls

// ---- Deterministic vector values ----------------------------------------------------------

// Pattern j, element i: 1 / (1 + (i + 131 j) mod 1009), in (0, 1]. Positive values keep every
// dot product well conditioned (the check measures the kernels' rounding, not cancellation);
// the period keeps the elements of long vectors of one magnitude (1/(i+1) would let the first
// thousand elements decide every sum), and different j give different vectors.
constexpr std::int64_t pattern_period = 1009;
constexpr std::int64_t pattern_shift = 131;

const std::vector<double>& pattern_table()
{
    static const std::vector<double> table = [] {
        std::vector<double> t(pattern_period);
        for (std::int64_t i = 0; i < pattern_period; ++i) t[i] = 1.0 / static_cast<double>(1 + i);
        return t;
    }();
    return table;
}

std::int64_t pattern_start(int pattern) { return (pattern_shift * pattern) % pattern_period; }

/// Copies pattern `pattern` of n elements to the device array `dst` through `staging` (host).
/// The copy is not ordered against non-blocking streams: call cudaDeviceSynchronize() after
/// the last fill.
void fill_pattern(double* dst, std::int64_t n, int pattern, std::vector<double>& staging)
{
    const std::vector<double>& table = pattern_table();
    staging.resize(static_cast<std::size_t>(n));
    std::int64_t m = pattern_start(pattern);
    for (std::int64_t i = 0; i < n; ++i) {
        staging[static_cast<std::size_t>(i)] = table[static_cast<std::size_t>(m)];
        if (++m == pattern_period) m = 0;
    }
    KBENCH_CUDA_CHECK(cudaMemcpy(dst, staging.data(), static_cast<std::size_t>(n) * sizeof(double),
                                 cudaMemcpyHostToDevice));
}

/// sum_i pattern_a[i] * pattern_b[i] over n elements, in long double (the reference of the checks).
long double pattern_dot(int a, int b, std::int64_t n)
{
    const std::vector<double>& table = pattern_table();
    std::int64_t ia = pattern_start(a), ib = pattern_start(b);
    long double sum = 0.0L;
    for (std::int64_t i = 0; i < n; ++i) {
        sum += static_cast<long double>(table[static_cast<std::size_t>(ia)]) *
               table[static_cast<std::size_t>(ib)];
        if (++ia == pattern_period) ia = 0;
        if (++ib == pattern_period) ib = 0;
    }
    return sum;
}

/// Element i of pattern j (for the p-update reference).
double pattern_value(int pattern, std::int64_t i)
{
    const std::int64_t m = (i + pattern_shift * pattern) % pattern_period;
    return pattern_table()[static_cast<std::size_t>(m)];
}

double relative_error(double got, long double expected)
{
    const long double diff = std::fabs(static_cast<long double>(got) - expected);
    return static_cast<double>(expected != 0.0L ? diff / std::fabs(expected) : diff);
}

/// max_j |got[j] - expected[j]| / |expected[j]| over the first k results.
double max_relative_error(const std::vector<double>& got, const std::vector<long double>& expected,
                          int k)
{
    double worst = 0.0;
    for (int j = 0; j < k; ++j) worst = std::max(worst, relative_error(got[j], expected[j]));
    return worst;
}

// ---- Sizes ----------------------------------------------------------------------------------

/// `count` lengths from 10^lo to 10^hi, equally spaced in log10, each rounded to 3 significant
/// digits (so every n >= 1000 is a multiple of 10: even, and vectors at V + j n stay 16-byte
/// aligned, which lets the kernels use their vectorized loads).
std::vector<std::int64_t> log_spaced(double lo, double hi, int count)
{
    std::vector<std::int64_t> ns;
    for (int i = 0; i < count; ++i) {
        const double e = count == 1 ? lo : lo + (hi - lo) * i / (count - 1);
        const double x = std::pow(10.0, e);
        const double unit = std::pow(10.0, std::floor(std::log10(x)) - 2.0);
        ns.push_back(static_cast<std::int64_t>(std::llround(std::round(x / unit) * unit)));
    }
    return ns;
}

/// n as cuBLAS's int length. Throws std::invalid_argument naming `who` for n above INT_MAX.
int cublas_int(std::int64_t n, const char* who)
{
    if (n > std::numeric_limits<int>::max())
        throw std::invalid_argument(fmt::format(
            "{}: n = {} exceeds the int range of the cuBLAS legacy API (<= {})", who, n,
            std::numeric_limits<int>::max()));
    return static_cast<int>(n);
}

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

nlohmann::json make_entry(const Point& p, const PointTiming& t, int repetitions,
                          double max_rel_error)
{
    const double bytes = p.bytes_read + p.bytes_written;
    return {{"name", fmt::format("{}/{}/double/n={}/k={}", p.figure, p.variant, p.n, p.k)},
            {"figure", p.figure},
            {"panel", p.panel},
            {"variant", p.variant},
            {"precision", "double"},
            {"n", p.n},
            {"k", p.k},
            {"seconds", t.seconds},
            {"flops", p.flops},
            {"bytes", bytes},
            {"bytes_read", p.bytes_read},
            {"bytes_written", p.bytes_written},
            {"GFlops", p.flops / t.seconds * 1e-9},
            {"GBps", bytes / t.seconds * 1e-9},
            {"repetitions", repetitions},
            {"loops", t.loops},
            {"max_rel_error", max_rel_error}};
}

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
std::vector<double> results_to_host(const device_buffer<double>& result, int k)
{
    std::vector<double> host(static_cast<std::size_t>(k));
    KBENCH_CUDA_CHECK(cudaMemcpy(host.data(), result.data(), host.size() * sizeof(double),
                                 cudaMemcpyDeviceToHost));
    return host;
}

/// Device workspace of the dot kernels for k products of length n (at least one double).
device_buffer<double> dot_workspace(std::int64_t n, int k)
{
    return device_buffer<double>(blas::dot_workspace_bytes(n, k) / sizeof(double) + 1);
}

// ---- The results document -------------------------------------------------------------------

nlohmann::json new_document(const StudyRun& run, nlohmann::json method)
{
    validate(run.options);
    MatrixSet none;
    none.name = "none";
    none.description = "vector kernels only: no matrix is used";
    nlohmann::json doc =
        make_results_document(kbench_context(run.id, run.source, none, run.machine, false));
    method["precision"] = "double";
    method["read_gbps"] = run.machine != nullptr ? run.machine->read_gbps : 0.0;
    method["repetitions"] = run.options.repetitions;
    method["min_time"] = run.options.min_time;
    method["values"] = "vector j, element i: 1 / (1 + (i + 131 j) mod 1009)";
    method["max_rel_error"] =
        "dot products: max over the results of |result - ref| / |ref|, ref summed in long double "
        "on the host; vector updates: max_i |p_i - ref_i| / max_i |ref_i|";
    method["cache"] = "hot: no L2 flush (vectors that fit the L2 cache are read from it)";
    method["seconds"] = "median over the repetitions of (elapsed time of `loops` back-to-back "
                        "calls) / loops";
    doc["context"]["kbench"]["vector_kernels"] = std::move(method);
    return doc;
}

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

// ---- Fig. 7 and Fig. 8 right: k dot products sharing y --------------------------------------

enum SharedYVariant : unsigned {
    cublas_dots = 1u,  // k cublasDdot calls
    mdot_call = 2u,    // one mdot call with k pairs
    mdgm_call = 4u,    // mdgm on V
    gemv_call = 8u,    // cublasDgemv CUBLAS_OP_T on V
};

/// Times V^T y for an n x k_max column-major V (lda = n; column j is pattern j + 1, y is
/// pattern 0) for each k of `ks` and each variant of `variants`, appending entries to `doc`.
/// `b` is in device pointer mode; `one_zero` holds the device scalars 1 and 0 (gemv's alpha, beta).
void time_shared_y(nlohmann::json& doc, const char* figure, const char* panel, std::int64_t n,
                   const std::vector<int>& ks, unsigned variants, const BlasOnStream& b,
                   const device_buffer<double>& one_zero, const RunOptions& o,
                   const Progress& progress, std::size_t& index, std::size_t total)
{
    const int k_max = *std::max_element(ks.begin(), ks.end());
    const int n_int = cublas_int(n, figure);
    device_buffer<double> V(static_cast<std::size_t>(n) * k_max), y(static_cast<std::size_t>(n));
    device_buffer<double> result(static_cast<std::size_t>(k_max));
    device_buffer<double> ws = dot_workspace(n, k_max);
    {
        std::vector<double> staging;
        for (int j = 0; j < k_max; ++j) fill_pattern(V.data() + j * n, n, j + 1, staging);
        fill_pattern(y.data(), n, 0, staging);
        KBENCH_CUDA_CHECK(cudaDeviceSynchronize());
    }
    std::vector<long double> ref(static_cast<std::size_t>(k_max));
    for (int j = 0; j < k_max; ++j) ref[j] = pattern_dot(j + 1, 0, n);
    std::vector<const double*> xs(static_cast<std::size_t>(k_max)), ys(xs.size(), y.data());
    for (int j = 0; j < k_max; ++j) xs[j] = V.data() + j * n;

    for (const int k : ks) {
        const auto check = [&] { return max_relative_error(results_to_host(result, k), ref, k); };
        const double flops = 2.0 * static_cast<double>(n) * k;
        if (variants & cublas_dots) {
            const models::Traffic t = blas::dot_traffic(n, value_bytes);  // per call
            const Point p{figure, panel, "cublas_dot", n, k, flops, k * t.bytes_read,
                          k * t.bytes_written};
            doc["benchmarks"].push_back(measure_point(p, [&] {
                for (int j = 0; j < k; ++j)
                    KBENCH_CUBLAS_CHECK(cublasDdot(b.blas, n_int, xs[j], 1, y.data(), 1,
                                                   result.data() + j));
            }, check, b.stream, Clock::events, o, progress, ++index, total));
        }
        if (variants & mdot_call) {
            const int read = blas::mdot_vectors_read(k, xs.data(), ys.data());
            const models::Traffic t = blas::mdot_traffic(n, k, read, value_bytes);
            const Point p{figure, panel, "mdot", n, k, flops, t.bytes_read, t.bytes_written};
            doc["benchmarks"].push_back(measure_point(p, [&] {
                blas::mdot(n, k, xs.data(), ys.data(), result.data(), ws.data(), ws.bytes(),
                           b.stream);
            }, check, b.stream, Clock::events, o, progress, ++index, total));
        }
        if (variants & mdgm_call) {
            const models::Traffic t = blas::mdgm_traffic(n, k, value_bytes);
            const Point p{figure, panel, "mdgm", n, k, flops, t.bytes_read, t.bytes_written};
            doc["benchmarks"].push_back(measure_point(p, [&] {
                blas::mdgm(n, k, V.data(), n, y.data(), result.data(), ws.data(), ws.bytes(),
                           b.stream);
            }, check, b.stream, Clock::events, o, progress, ++index, total));
        }
        if (variants & gemv_call) {
            // Model bytes: the least V^T y must move, as for mdgm (V and y once, k results).
            const models::Traffic t = blas::mdgm_traffic(n, k, value_bytes);
            const Point p{figure, panel, "cublas_gemv", n, k, flops, t.bytes_read,
                          t.bytes_written};
            doc["benchmarks"].push_back(measure_point(p, [&] {
                KBENCH_CUBLAS_CHECK(cublasDgemv(b.blas, CUBLAS_OP_T, n_int, k, one_zero.data(),
                                                V.data(), n_int, y.data(), 1,
                                                one_zero.data() + 1, result.data(), 1));
            }, check, b.stream, Clock::events, o, progress, ++index, total));
        }
    }
}

// ---- Fig. 10: the dot sequence of one BiCGSTAB iteration ------------------------------------

/// One Fig. 10 point with its bookkeeping (measure_dot_sequence keeps the first four fields).
struct SequencePoint {
    DotSequenceTiming timing;
    PointTiming cublas, merged;
    double cublas_error = 0.0, merged_error = 0.0;
};

/// The checks of measure_dot_sequence's arguments (before any CUDA call).
void check_sequence_args(const std::vector<std::int64_t>& ns, int repetitions, double min_time)
{
    constexpr const char* who = "kbench::harness::measure_dot_sequence";
    for (const std::int64_t n : ns) {
        if (n < 1)
            throw std::invalid_argument(fmt::format("{}: n = {} in ns, expected n >= 1", who, n));
        cublas_int(n, who);
    }
    if (repetitions < 1)
        throw std::invalid_argument(
            fmt::format("{}: repetitions = {}, expected >= 1", who, repetitions));
    if (!(min_time >= 0.0))
        throw std::invalid_argument(
            fmt::format("{}: min_time = {} seconds, expected >= 0", who, min_time));
}

// The five vectors of the sequence and their patterns.
enum SequenceVector : int { r_hat = 0, vv = 1, tt = 2, ss = 3, rr = 4 };
// The five dot products in the order of the reference solver (Fig. 1 right: lines 8, 12, 13,
// then 2 of the next iteration and the residual norm): r_hat.v, t.s, t.t, r_hat.r, r.r.
constexpr std::array<std::pair<int, int>, 5> sequence_dots{
    {{r_hat, vv}, {tt, ss}, {tt, tt}, {r_hat, rr}, {rr, rr}}};

/// Byte and flop models of the two sequences for vectors of n doubles.
models::Traffic cublas_sequence_traffic(std::int64_t n)
{
    const models::Traffic one = blas::dot_traffic(n, value_bytes);
    return {5 * one.bytes_read, 5 * one.bytes_written, 5 * one.flops};
}

std::vector<SequencePoint> run_sequences(const std::vector<std::int64_t>& ns, int repetitions,
                                         double min_time, const Progress* progress)
{
    check_sequence_args(ns, repetitions, min_time);
    std::vector<SequencePoint> out;
    if (ns.empty()) return out;
    BlasOnStream b(CUBLAS_POINTER_MODE_HOST);
    pinned_value<std::array<double, 5>> host_results;
    std::size_t index = 0;
    for (const std::int64_t n : ns) {
        const int n_int = static_cast<int>(n);
        std::array<device_buffer<double>, 5> vec;
        {
            std::vector<double> staging;
            for (int j = 0; j < 5; ++j) {
                vec[j] = device_buffer<double>(static_cast<std::size_t>(n));
                fill_pattern(vec[j].data(), n, j, staging);
            }
            KBENCH_CUDA_CHECK(cudaDeviceSynchronize());
        }
        std::array<long double, 5> ref{};
        for (std::size_t d = 0; d < sequence_dots.size(); ++d)
            ref[d] = pattern_dot(sequence_dots[d].first, sequence_dots[d].second, n);
        const auto error_of = [&](const std::array<double, 5>& got) {
            double worst = 0.0;
            for (std::size_t d = 0; d < 5; ++d)
                worst = std::max(worst, relative_error(got[d], ref[d]));
            return worst;
        };
        const double* p[5] = {vec[0].data(), vec[1].data(), vec[2].data(), vec[3].data(),
                              vec[4].data()};
        SequencePoint point;
        point.timing.n = n;

        // cuBLAS: 5 dots, each result returned to the host (host pointer mode synchronizes).
        std::array<double, 5> cublas_results{};
        const auto cublas_sequence = [&] {
            for (std::size_t d = 0; d < 5; ++d)
                KBENCH_CUBLAS_CHECK(cublasDdot(b.blas, n_int, p[sequence_dots[d].first], 1,
                                               p[sequence_dots[d].second], 1, &cublas_results[d]));
        };
        const auto report = [&](const char* variant) {
            if (progress != nullptr)
                progress->report(++index, 2 * ns.size(),
                                 fmt::format("fig10/{}/double/n={}/k=5", variant, n));
        };
        report("cublas_sequence");
        cublas_sequence();
        point.cublas_error = error_of(cublas_results);
        point.cublas = time_point(cublas_sequence, b.stream, Clock::host, repetitions, min_time);

        // Merged: r_hat.v; t.s, t.t (sharing t); r_hat.r, r.r (sharing r); one copy to the host.
        device_buffer<double> result(5);
        device_buffer<double> ws = dot_workspace(n, 2);
        const double* x1[1] = {p[r_hat]};
        const double* y1[1] = {p[vv]};
        const double* x2[2] = {p[tt], p[tt]};
        const double* y2[2] = {p[ss], p[tt]};
        const double* x3[2] = {p[r_hat], p[rr]};
        const double* y3[2] = {p[rr], p[rr]};
        const auto merged_sequence = [&] {
            blas::mdot(n, 1, x1, y1, result.data(), ws.data(), ws.bytes(), b.stream);
            blas::mdot(n, 2, x2, y2, result.data() + 1, ws.data(), ws.bytes(), b.stream);
            blas::mdot(n, 2, x3, y3, result.data() + 3, ws.data(), ws.bytes(), b.stream);
            KBENCH_CUDA_CHECK(cudaMemcpyAsync(host_results.get(), result.data(),
                                              5 * sizeof(double), cudaMemcpyDeviceToHost,
                                              b.stream));
            KBENCH_CUDA_CHECK(cudaStreamSynchronize(b.stream));
        };
        report("merged_sequence");
        merged_sequence();
        point.merged_error = error_of(*host_results);
        point.merged = time_point(merged_sequence, b.stream, Clock::host, repetitions, min_time);

        point.timing.cublas_seconds = point.cublas.seconds;
        point.timing.merged_seconds = point.merged.seconds;
        point.timing.savings = 1.0 - point.merged.seconds / point.cublas.seconds;
        out.push_back(point);
    }
    return out;
}

}  // namespace

std::vector<DotSequenceTiming> measure_dot_sequence(const std::vector<std::int64_t>& ns,
                                                    int repetitions, double min_time)
{
    std::vector<DotSequenceTiming> out;
    for (const SequencePoint& p : run_sequences(ns, repetitions, min_time, nullptr))
        out.push_back(p.timing);
    return out;
}

// ---- Runners ----------------------------------------------------------------------------------

nlohmann::json run_dot_vectors_study(const StudyRun& run)
{
    nlohmann::json doc = new_document(run, {
        {"figure", "anzt2015 Fig. 7: k dot products x_j . y sharing y"},
        {"flops", "2 n k for every variant"},
        {"bytes", "cublas_dot: k x (2n reads + 1 write); mdot: distinct vectors of each chunk "
                  "of 4 pairs read once (n k + n ceil(k/4) reads) + k writes; mdgm and "
                  "cublas_gemv: n k + n reads + k writes (the least V^T y moves); partial sums "
                  "of the two-stage reductions not counted; 8 bytes per double"},
        {"pointer_mode", "device (cublasDdot and cublasDgemv write their results to device "
                         "memory, as mdot and mdgm do)"},
        {"timing", "CUDA events around the loop"}});
    std::vector<int> ks;
    for (int k = 1; k <= 16; ++k) ks.push_back(k);
    for (int k = 20; k <= 32; k += 4) ks.push_back(k);
    const std::vector<std::pair<std::int64_t, const char*>> ns{{100000, "left"},
                                                               {1000000, "right"}};
    const Progress progress;
    const std::size_t total = ns.size() * ks.size() * 4;
    std::size_t index = 0;
    const BlasOnStream b(CUBLAS_POINTER_MODE_DEVICE);
    const device_buffer<double> one_zero(std::vector<double>{1.0, 0.0});
    for (const auto& [n, panel] : ns)
        time_shared_y(doc, "fig7", panel, n, ks, cublas_dots | mdot_call | mdgm_call | gemv_call,
                      b, one_zero, run.options, progress, index, total);
    return doc;
}

nlohmann::json run_dot_length_study(const StudyRun& run)
{
    nlohmann::json doc = new_document(run, {
        {"figure", "anzt2015 Fig. 8: left, one dot product and two sharing y vs n; right, "
                   "mdgm vs cublasDgemv (CUBLAS_OP_T, lda = n) over (n, k)"},
        {"flops", "2 n k"},
        {"bytes", "cublas_dot: 2n reads + 1 write per call; mdot: distinct vectors read once "
                  "(k = 2 sharing y: 3n) + k writes; mdgm and cublas_gemv: n k + n reads + k "
                  "writes; partial sums not counted; 8 bytes per double"},
        {"pointer_mode", "device"},
        {"timing", "CUDA events around the loop"}});
    const RunOptions& o = run.options;
    const std::vector<std::int64_t> left_ns = log_spaced(3.0, 8.0, 11);
    const std::vector<std::int64_t> right_ns = log_spaced(3.0, 7.0, 9);
    const std::vector<int> right_ks{1, 2, 4, 8, 16, 32};
    const Progress progress;
    const std::size_t total = left_ns.size() * 4 + right_ns.size() * right_ks.size() * 2;
    std::size_t index = 0;

    const BlasOnStream b(CUBLAS_POINTER_MODE_DEVICE);
    const device_buffer<double> one_zero(std::vector<double>{1.0, 0.0});
    for (const std::int64_t n : left_ns) {
        const int n_int = cublas_int(n, "fig8");
        device_buffer<double> x1(static_cast<std::size_t>(n)), x2(x1.size()), y(x1.size());
        device_buffer<double> result(2);
        device_buffer<double> ws = dot_workspace(n, 2);
        {
            std::vector<double> staging;
            fill_pattern(x1.data(), n, 1, staging);
            fill_pattern(x2.data(), n, 2, staging);
            fill_pattern(y.data(), n, 0, staging);
            KBENCH_CUDA_CHECK(cudaDeviceSynchronize());
        }
        const std::vector<long double> ref{pattern_dot(1, 0, n), pattern_dot(2, 0, n)};
        const auto check1 = [&] { return max_relative_error(results_to_host(result, 1), ref, 1); };
        const auto check2 = [&] { return max_relative_error(results_to_host(result, 2), ref, 2); };
        const double* xs[2] = {x1.data(), x2.data()};
        const double* ys[2] = {y.data(), y.data()};
        const models::Traffic dot1 = blas::dot_traffic(n, value_bytes);
        const models::Traffic mdot1 = blas::mdot_traffic(n, 1, 2, value_bytes);
        const models::Traffic mdot2 =
            blas::mdot_traffic(n, 2, blas::mdot_vectors_read(2, xs, ys), value_bytes);
        const double f1 = 2.0 * static_cast<double>(n);

        doc["benchmarks"].push_back(measure_point(
            {"fig8", "left", "cublas_dot", n, 1, f1, dot1.bytes_read, dot1.bytes_written}, [&] {
                KBENCH_CUBLAS_CHECK(cublasDdot(b.blas, n_int, x1.data(), 1, y.data(), 1,
                                               result.data()));
            }, check1, b.stream, Clock::events, o, progress, ++index, total));
        doc["benchmarks"].push_back(measure_point(
            {"fig8", "left", "mdot", n, 1, f1, mdot1.bytes_read, mdot1.bytes_written}, [&] {
                blas::mdot(n, 1, xs, ys, result.data(), ws.data(), ws.bytes(), b.stream);
            }, check1, b.stream, Clock::events, o, progress, ++index, total));
        doc["benchmarks"].push_back(measure_point(
            {"fig8", "left", "cublas_dot_pair", n, 2, 2 * f1, 2 * dot1.bytes_read,
             2 * dot1.bytes_written}, [&] {
                KBENCH_CUBLAS_CHECK(cublasDdot(b.blas, n_int, x1.data(), 1, y.data(), 1,
                                               result.data()));
                KBENCH_CUBLAS_CHECK(cublasDdot(b.blas, n_int, x2.data(), 1, y.data(), 1,
                                               result.data() + 1));
            }, check2, b.stream, Clock::events, o, progress, ++index, total));
        doc["benchmarks"].push_back(measure_point(
            {"fig8", "left", "mdot_pair", n, 2, 2 * f1, mdot2.bytes_read, mdot2.bytes_written},
            [&] { blas::mdot(n, 2, xs, ys, result.data(), ws.data(), ws.bytes(), b.stream); },
            check2, b.stream, Clock::events, o, progress, ++index, total));
    }
    for (const std::int64_t n : right_ns)
        time_shared_y(doc, "fig8", "right", n, right_ks, mdgm_call | gemv_call, b, one_zero, o,
                      progress, index, total);
    return doc;
}

nlohmann::json run_p_update_study(const StudyRun& run)
{
    // Bytes per anzt2015 Table 1 (models/bicgstab_model.hpp): the three reference calls that the
    // merged p_update absorbs (lines 4-6), and the merged kernel itself.
    const auto table_bytes = [](models::BicgstabVariant variant, std::int64_t n) {
        models::Traffic t;
        for (const models::KernelTraffic& k : models::kernels(variant)) {
            if (k.merged_into != "p_update") continue;
            const double nn = static_cast<double>(n);
            t.bytes_read += (k.reads_n * nn + k.scalar_reads) * value_bytes;
            t.bytes_written += (k.writes_n * nn + k.scalar_writes) * value_bytes;
        }
        return t;
    };
    nlohmann::json doc = new_document(run, {
        {"figure", "anzt2015 Fig. 9: p = r + beta (p - omega v), three cuBLAS calls vs the fused "
                   "kbench::bicgstab::p_update"},
        {"flops", "4 n for both variants (the algorithm's: p - omega v, times beta, plus r)"},
        {"bytes", "anzt2015 Table 1 via models::kernels: cublas_p_update (scal p = beta p; axpy "
                  "p += -beta omega v; axpy p += r) (5n + 3) reads + 3n writes, p_update "
                  "(3n + 4) reads + n writes; 8 bytes per double"},
        {"scalars", "beta = 0.5 (rho = 1, rho_old = 2, alpha = omega = 1), omega = 1; cuBLAS "
                    "takes them from the host (host pointer mode), p_update from DeviceScalars "
                    "in device memory"},
        {"timing", "CUDA events around the loop; p keeps being updated across the loop "
                   "(p tends to 2 r - v, bounded)"}});
    const RunOptions& o = run.options;
    const std::vector<std::int64_t> ns = log_spaced(3.0, 8.0, 11);
    const Progress progress;
    const std::size_t total = ns.size() * 2;
    std::size_t index = 0;

    bicgstab::DeviceScalars<double> host_sc;
    host_sc.rho = 1.0;
    host_sc.rho_old = 2.0;
    host_sc.alpha = 1.0;
    host_sc.omega = 1.0;
    const double beta = (host_sc.rho / host_sc.rho_old) * (host_sc.alpha / host_sc.omega);
    const double omega = host_sc.omega;
    const double minus_beta_omega = -beta * omega, one = 1.0;
    device_buffer<bicgstab::DeviceScalars<double>> sc(1);
    sc.copy_from_host(&host_sc, 1);
    BlasOnStream b(CUBLAS_POINTER_MODE_HOST);

    constexpr int r_pattern = 0, v_pattern = 1, p_pattern = 2;
    for (const std::int64_t n : ns) {
        const int n_int = cublas_int(n, "fig9");
        device_buffer<double> r(static_cast<std::size_t>(n)), v(r.size()), p(r.size());
        std::vector<double> p0;
        {
            std::vector<double> staging;
            fill_pattern(r.data(), n, r_pattern, staging);
            fill_pattern(v.data(), n, v_pattern, staging);
            fill_pattern(p.data(), n, p_pattern, p0);
            KBENCH_CUDA_CHECK(cudaDeviceSynchronize());
        }
        // Check of one update from p0: max_i |p_i - ref_i| / max_i |ref_i|, ref in long double.
        // Leaves p = p0 for the next variant's warm-up.
        const auto check = [&] {
            const std::vector<double> got = p.to_host();
            long double worst = 0.0L, scale = 0.0L;
            for (std::int64_t i = 0; i < n; ++i) {
                const long double ref =
                    pattern_value(r_pattern, i) +
                    static_cast<long double>(beta) *
                        (static_cast<long double>(p0[i]) - static_cast<long double>(omega) *
                                                               pattern_value(v_pattern, i));
                worst = std::max(worst, std::fabs(got[i] - ref));
                scale = std::max(scale, std::fabs(ref));
            }
            p.copy_from_host(p0.data(), p0.size());
            return static_cast<double>(scale > 0.0L ? worst / scale : worst);
        };
        const double flops = 4.0 * static_cast<double>(n);
        const models::Traffic t_ref = table_bytes(models::BicgstabVariant::reference, n);
        const models::Traffic t_fused = table_bytes(models::BicgstabVariant::merged, n);
        doc["benchmarks"].push_back(measure_point(
            {"fig9", "", "cublas_p_update", n, 1, flops, t_ref.bytes_read, t_ref.bytes_written},
            [&] {
                KBENCH_CUBLAS_CHECK(cublasDscal(b.blas, n_int, &beta, p.data(), 1));
                KBENCH_CUBLAS_CHECK(
                    cublasDaxpy(b.blas, n_int, &minus_beta_omega, v.data(), 1, p.data(), 1));
                KBENCH_CUBLAS_CHECK(cublasDaxpy(b.blas, n_int, &one, r.data(), 1, p.data(), 1));
            }, check, b.stream, Clock::events, o, progress, ++index, total));
        p.copy_from_host(p0.data(), p0.size());
        doc["benchmarks"].push_back(measure_point(
            {"fig9", "", "p_update", n, 1, flops, t_fused.bytes_read, t_fused.bytes_written},
            [&] { bicgstab::p_update(n, r.data(), v.data(), p.data(), sc.data(), b.stream); },
            check, b.stream, Clock::events, o, progress, ++index, total));
    }
    return doc;
}

nlohmann::json run_dot_savings_study(const StudyRun& run)
{
    nlohmann::json doc = new_document(run, {
        {"figure", "anzt2015 Fig. 10: the dot products of one BiCGSTAB iteration, r_hat.v, t.s, "
                   "t.t, r_hat.r, r.r"},
        {"cublas_sequence", "5 cublasDdot calls in host pointer mode (each returns its value to "
                            "the host)"},
        {"merged_sequence", "3 mdot calls (r_hat.v; t.s, t.t sharing t; r_hat.r, r.r sharing r), "
                            "results in device memory, then one cudaMemcpyAsync of the 5 values "
                            "to pinned host memory and a stream synchronization"},
        {"flops", "10 n for both (5 dot products of 2n)"},
        {"bytes", "cublas_sequence: 10n reads + 5 writes; merged_sequence: 6n reads (each mdot "
                  "call reads its distinct vectors once) + 5 writes; 8 bytes per double"},
        {"savings", "1 - merged_sequence seconds / cublas_sequence seconds (fraction)"},
        {"timing", "host steady clock around the loop (both sequences end on the host)"}});
    const RunOptions& o = run.options;
    const std::vector<std::int64_t> ns = log_spaced(3.0, 8.0, 16);
    const Progress progress;
    const std::vector<SequencePoint> points =
        run_sequences(ns, o.repetitions, o.min_time, &progress);

    std::vector<std::pair<double, double>> n_and_savings;
    for (const SequencePoint& sp : points) {
        const std::int64_t n = sp.timing.n;
        const models::Traffic cub = cublas_sequence_traffic(n);
        // Each mdot call reads its distinct vectors once: 2 + 2 + 2 vectors of n.
        const double merged_read = 6.0 * static_cast<double>(n) * value_bytes;
        const double merged_written = 5.0 * value_bytes;
        doc["benchmarks"].push_back(make_entry(
            {"fig10", "", "cublas_sequence", n, 5, cub.flops, cub.bytes_read, cub.bytes_written},
            sp.cublas, o.repetitions, sp.cublas_error));
        nlohmann::json merged = make_entry(
            {"fig10", "", "merged_sequence", n, 5, cub.flops, merged_read, merged_written},
            sp.merged, o.repetitions, sp.merged_error);
        merged["savings"] = sp.timing.savings;
        doc["benchmarks"].push_back(std::move(merged));
        n_and_savings.emplace_back(static_cast<double>(n), sp.timing.savings);
    }

    const models::DotSavingsFit paper{};
    nlohmann::json fit = {{"paper", {{"a", paper.a}, {"b", paper.b}, {"c", paper.c}}},
                          {"units", "F(n) = (1 / (a n + b) + c) / 100, a fraction; n in "
                                    "elements"}};
    try {
        const models::DotSavingsFit refit = models::fit_dot_savings(n_and_savings);
        fit["refit"] = {{"a", refit.a}, {"b", refit.b}, {"c", refit.c}};
    } catch (const std::invalid_argument& e) {
        fit["refit"] = {{"error", e.what()}};
    }
    doc["context"]["kbench"]["dot_savings_fit"] = std::move(fit);
    return doc;
}

}  // namespace kbench::harness
