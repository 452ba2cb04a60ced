// `kbench bench stream`; see harness/bench/bench_stream.hpp.
#include "harness/bench/bench_stream.hpp"

#include "harness/bench/bench_dot.hpp"  // dot_bench::fill_pattern
#include "harness/core/progress.hpp"
#include "kernels/base/cuda_check.hpp"
#include "kernels/base/cuda_handles.hpp"
#include "kernels/base/device_buffer.hpp"
#include "kernels/stream.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <regex>
#include <utility>

namespace kbench::harness {

namespace {

const char* const family = "stream";
constexpr double triad_scalar = 3.0;

template <typename T>
void run_precision(const FamilyRun& run, const std::string& precision)
{
    const auto& [o, machine, filter, flush, doc, progress, index, total] = run;
    constexpr int value_bytes = static_cast<int>(sizeof(T));
    cuda_stream stream;
    const double tolerance = bench_tolerance(precision);
    for (const std::int64_t n : o.ns) {
        bool any = false;
        for (const StreamVariant v : stream_variants())
            any = any || selected(filter, kernel_benchmark_name(family, to_string(v), precision, n, 0));
        if (!any) continue;
        const auto un = static_cast<std::size_t>(n);
        device_buffer<T> a(un), b(un), c(un), sum(1), work(stream::read_workspace_size(un));
        std::vector<T> ha, hb;
        dot_bench::fill_pattern(a.data(), n, 1, ha);
        dot_bench::fill_pattern(b.data(), n, 2, hb);
        KBENCH_CUDA_CHECK(cudaDeviceSynchronize());
        for (const StreamVariant v : stream_variants()) {
            KernelPoint p{family, to_string(v), precision, n, 0, stream_traffic(v, n, value_bytes),
                          nlohmann::json::object(), ""};
            const std::string name = kernel_benchmark_name(family, p.variant, precision, n, 0);
            if (!selected(filter, name)) continue;
            progress.report(++index, total, name);
            std::function<void()> call;
            std::vector<T> ref;
            T* out = nullptr;
            switch (v) {
            case StreamVariant::copy:
                call = [&] { stream::copy(a.data(), c.data(), un, stream); };
                ref.resize(un);
                stream::reference::copy(ha.data(), ref.data(), un);
                out = c.data();
                break;
            case StreamVariant::triad:
                call = [&] {
                    stream::triad(a.data(), b.data(), c.data(), static_cast<T>(triad_scalar), un,
                                  stream);
                };
                ref.resize(un);
                stream::reference::triad(ha.data(), hb.data(), ref.data(),
                                         static_cast<T>(triad_scalar), un);
                out = c.data();
                break;
            case StreamVariant::read:
                call = [&] { stream::read_sum(a.data(), un, sum.data(), work.data(), stream); };
                ref.resize(1);
                stream::reference::read_sum(ha.data(), un, ref.data());
                out = sum.data();
                break;
            }
            // Warm-up and check; the output starts as NaN so elements the kernel skips count.
            KBENCH_CUDA_CHECK(cudaMemsetAsync(out, 0xff, ref.size() * sizeof(T), stream));
            profiled_warm_up(name, call);
            KBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
            std::vector<T> got(ref.size());
            KBENCH_CUDA_CHECK(
                cudaMemcpy(got.data(), out, got.size() * sizeof(T), cudaMemcpyDeviceToHost));
            const double err = relative_max_error(got, ref);
            if (!(err <= tolerance)) {
                doc["benchmarks"].push_back(tolerance_error_entry(p, err, tolerance));
                continue;
            }
            const PointTiming t =
                time_point(call, stream, Clock::events, o.run.repetitions, o.run.min_time, flush);
            doc["benchmarks"].push_back(
                kernel_bench_entry(p, t, o.run.repetitions, err, machine));
        }
    }
}

}  // namespace

const std::vector<StreamVariant>& stream_variants()
{
    static const std::vector<StreamVariant> v{StreamVariant::copy, StreamVariant::triad,
                                              StreamVariant::read};
    return v;
}

const char* to_string(StreamVariant v)
{
    switch (v) {
    case StreamVariant::copy: return "copy";
    case StreamVariant::triad: return "triad";
    case StreamVariant::read: return "read";
    }
    return "?";
}

models::Traffic stream_traffic(StreamVariant v, std::int64_t n, int value_bytes)
{
    const double bytes = static_cast<double>(n) * value_bytes;
    models::Traffic t;
    switch (v) {
    case StreamVariant::copy:
        t.bytes_read = bytes;
        t.bytes_written = bytes;
        break;
    case StreamVariant::triad:
        t.bytes_read = 2.0 * bytes;
        t.bytes_written = bytes;
        t.flops = 2.0 * static_cast<double>(n);
        break;
    case StreamVariant::read:
        t.bytes_read = bytes;
        t.bytes_written = value_bytes;
        t.flops = static_cast<double>(n);
        break;
    }
    return t;
}

std::int64_t stream_bench_max_n() { return std::int64_t{1} << 40; }

std::vector<std::string> stream_benchmark_names(const KernelBenchOptions& o)
{
    validate(o, stream_bench_max_n(), 0);
    return selected_benchmark_names(
        o, family, stream_variants(), [](StreamVariant v) { return to_string(v); }, false);
}

nlohmann::json run_stream_bench(const KernelBenchOptions& o, const MachineProfile* machine)
{
    const std::size_t total = stream_benchmark_names(o).size();  // validates
    const std::optional<std::regex> filter = compile_filter(o.filter);
    nlohmann::json doc = kernel_bench_document(
        "bench/stream", family, o, machine,
        {{"family", "STREAM-style bandwidth kernels: copy, triad (c = a + 3 b), read (the "
                    "read-only reduction of the machine profile's read_gbps)"},
         {"bytes", "copy n reads + n writes; triad 2n reads + n writes; read n reads + 1 write"},
         {"flops", "copy 0; triad 2n; read n"},
         {"values", "a = pattern 1, b = pattern 2 (1 / (1 + (i + 131 j) mod 1009))"},
         {"max_rel_error", "max_i |out_i - ref_i| / max_i |ref_i|, ref by stream::reference"},
         {"timing", "CUDA events"},
         {"cache", o.run.cold ? "cold: L2 flushed before every timed call" : "hot"}});
    run_precisions(o, machine, filter, doc, total,
                   [](auto zero, const std::string& precision, const FamilyRun& run) {
                       run_precision<decltype(zero)>(run, precision);
                   });
    return doc;
}

}  // namespace kbench::harness
