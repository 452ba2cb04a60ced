// The TSQR points and `kbench bench tsqr`; see harness/bench/bench_tsqr.hpp.
#include "harness/bench/bench_tsqr.hpp"

#include "harness/bench/bench_tall_skinny.hpp"  // fill_random_block
#include "harness/core/progress.hpp"
#include "harness/core/timing.hpp"
#include "kernels/base/cuda_check.hpp"
#include "kernels/base/cuda_handles.hpp"
#include "kernels/base/device_buffer.hpp"
#include "kernels/tall_skinny.hpp"
#include "solvers/orthogonalization/gpu_context.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <regex>
#include <stdexcept>
#include <utility>

namespace kbench::harness {

// ---- Models -----------------------------------------------------------------------------------

double tsqr_effective_flops(std::int64_t n, int k)
{
    const double nn = static_cast<double>(n), kk = k;
    return 2.0 * (2.0 * nn * kk * kk - 2.0 * kk * kk * kk / 3.0);  // DGEQRF + DORGQR
}

TsqrColumns tsqr_pass_columns(ortho::TsqrMethod method, int k)
{
    const double kk = k;
    // Normalizing one column: its norm reads it, the scaling reads and writes it.
    const TsqrColumns normalize{2.0 * kk, kk};  // over the k columns
    // CGS projection of column j against its j predecessors: mdgm reads them and v (j + 1),
    // v -= V h reads them and v (j + 1) and writes v (1); summed over j = 1..k-1.
    const TsqrColumns cgs_projections{kk * (kk - 1.0) + 2.0 * (kk - 1.0), kk - 1.0};
    switch (method) {
    case ortho::TsqrMethod::mgs:
        // Right-looking: step j normalizes column j, then for the m = k-1-j trailing columns
        // mdgm reads them and q_j (m + 1) and the rank-1 update reads them and q_j (m + 1) and
        // writes them (m); summed over m = 1..k-1.
        return {normalize.read + kk * (kk - 1.0) + 2.0 * (kk - 1.0),
                normalize.written + 0.5 * kk * (kk - 1.0)};
    case ortho::TsqrMethod::cgs:
        return {normalize.read + cgs_projections.read, normalize.written + cgs_projections.written};
    case ortho::TsqrMethod::cgs2:
        return {normalize.read + 2.0 * cgs_projections.read,
                normalize.written + 2.0 * cgs_projections.written};
    // One pass: the Gram matrix reads V (k), then V := V U^-1 (trsm) or V := V M (svqr) reads
    // and writes V (k + k).
    case ortho::TsqrMethod::cholqr:
    case ortho::TsqrMethod::svqr: return {2.0 * kk, kk};
    case ortho::TsqrMethod::cholqr2: return {4.0 * kk, 2.0 * kk};
    case ortho::TsqrMethod::shifted_cholqr3: return {6.0 * kk, 3.0 * kk};
    // geqrf reads and writes V (k + k), orgqr reads the reflectors and writes Q (k + k), and
    // the final V := V Q_i of each block reads and writes V (k + k).
    case ortho::TsqrMethod::caqr: return {3.0 * kk, 3.0 * kk};
    }
    const double nan = std::numeric_limits<double>::quiet_NaN();
    return {nan, nan};
}

std::vector<TsqrVariant> tsqr_variants()
{
    std::vector<TsqrVariant> v;
    for (const ortho::TsqrMethod m : ortho::tsqr_methods())
        v.push_back({ortho::to_string(m), m, false});
    v.push_back({"cusolver_qr", ortho::TsqrMethod::caqr, true});
    return v;
}

models::Traffic tsqr_traffic(const TsqrVariant& v, std::int64_t n, int k, int value_bytes)
{
    models::Traffic t;
    t.flops = tsqr_effective_flops(n, k);
    const TsqrColumns c = tsqr_pass_columns(v.method, k);
    t.bytes_read = c.read * static_cast<double>(n) * value_bytes;
    t.bytes_written = c.written * static_cast<double>(n) * value_bytes;
    return t;
}

// ---- One point --------------------------------------------------------------------------------

template <typename T>
TsqrTiming measure_tsqr_point(const TsqrVariant& v, const ortho::GpuHandles& h, std::int64_t n,
                              int k, T* V, const T* V0, T* R, void* workspace,
                              std::size_t workspace_bytes, int repetitions, double point_seconds,
                              int min_repetitions)
{
    using clock = std::chrono::steady_clock;
    const cudaStream_t s = h.stream;
    const std::size_t block_bytes = static_cast<std::size_t>(n) * k * sizeof(T);
    const std::int64_t block_rows = v.one_block ? n : 0;
    const auto restore = [&] {
        KBENCH_CUDA_CHECK(
            cudaMemcpyAsync(V, V0, block_bytes, cudaMemcpyDeviceToDevice, s));
    };
    ortho::TsqrOutcome outcome;
    const auto call = [&] {
        outcome = ortho::tsqr<T>(v.method, h, n, k, V, n, R, k, workspace, workspace_bytes,
                                 block_rows);
    };
    // Warm-up, whose status is reported and whose time sets the repetitions.
    restore();
    KBENCH_CUDA_CHECK(cudaStreamSynchronize(s));
    const auto t0 = clock::now();
    profiled_warm_up(kernel_benchmark_name("tsqr", v.name, precision_name<T>(), n, k), call);
    KBENCH_CUDA_CHECK(cudaStreamSynchronize(s));
    const double warmup = std::chrono::duration<double>(clock::now() - t0).count();
    TsqrTiming t;
    t.first = outcome;
    t.repetitions = std::max(
        min_repetitions,
        std::min(repetitions, static_cast<int>(point_seconds / std::max(warmup, 1e-6))));
    // Each call on restored input, timed by the host clock and by CUDA events.
    const cuda_event start, stop;
    std::vector<double> wall, events;
    for (int r = 0; r < t.repetitions; ++r) {
        restore();
        KBENCH_CUDA_CHECK(cudaStreamSynchronize(s));
        start.record(s);
        const auto c0 = clock::now();
        call();
        stop.record(s);
        stop.synchronize();
        wall.push_back(std::chrono::duration<double>(clock::now() - c0).count());
        events.push_back(stop.seconds_since(start));
    }
    t.seconds = median(wall);
    t.event_seconds = median(events);
    return t;
}

template TsqrTiming measure_tsqr_point<float>(const TsqrVariant&, const ortho::GpuHandles&,
                                              std::int64_t, int, float*, const float*, float*,
                                              void*, std::size_t, int, double, int);
template TsqrTiming measure_tsqr_point<double>(const TsqrVariant&, const ortho::GpuHandles&,
                                               std::int64_t, int, double*, const double*,
                                               double*, void*, std::size_t, int, double, int);

// ---- `kbench bench tsqr` ----------------------------------------------------------------------

int tsqr_bench_max_k() { return blas::max_block_columns; }

namespace {

const char* const family = "tsqr";
constexpr std::int64_t tsqr_bench_max_n = std::numeric_limits<int>::max();
constexpr double bench_point_seconds = 1.0;
constexpr int bench_min_repetitions = 3;

template <typename T>
std::vector<T> to_host(const T* device, std::size_t count)
{
    std::vector<T> host(count);
    KBENCH_CUDA_CHECK(cudaMemcpy(host.data(), device, count * sizeof(T), cudaMemcpyDeviceToHost));
    return host;
}

template <typename T>
void run_precision(const KernelBenchOptions& o, const std::string& precision,
                   const MachineProfile* machine, const std::optional<std::regex>& filter,
                   nlohmann::json& doc, const Progress& progress, std::size_t& index,
                   std::size_t total)
{
    constexpr int value_bytes = static_cast<int>(sizeof(T));
    const ortho::GpuContext gpu;
    const ortho::GpuHandles h = gpu.handles();
    const double tolerance = bench_tolerance(precision);
    const std::vector<TsqrVariant> variants = tsqr_variants();
    for (const std::int64_t n : o.ns) {
        int k_max = 0;
        for (const int k : o.ks)
            for (const TsqrVariant& v : variants)
                if (selected(filter, kernel_benchmark_name(family, v.name, precision, n, k)))
                    k_max = std::max(k_max, k);
        if (k_max == 0) continue;
        const std::size_t elements = static_cast<std::size_t>(n) * k_max;
        device_buffer<T> V(elements), V0(elements);
        fill_random_block(V0.data(), n, k_max, tall_skinny_fill_seed, gpu.stream);
        for (const int k : o.ks) {
            const std::vector<T> Vh = to_host(V0.data(), static_cast<std::size_t>(n) * k);
            for (const TsqrVariant& v : variants) {
                KernelPoint p{family, v.name, precision, n, k, tsqr_traffic(v, n, k, value_bytes),
                              nlohmann::json::object(), ""};
                const std::string name = kernel_benchmark_name(family, v.name, precision, n, k);
                if (!selected(filter, name)) continue;
                progress.report(++index, total, name);
                const std::size_t ws_bytes = ortho::tsqr_workspace_bytes(
                    v.method, h, n, k, value_bytes, v.one_block ? n : 0);
                device_buffer<double> ws(ws_bytes / sizeof(double) + 1);
                std::vector<T> R(static_cast<std::size_t>(k) * k);
                const TsqrTiming t = measure_tsqr_point(v, h, n, k, V.data(), V0.data(), R.data(),
                                                        ws.data(), ws.bytes(), o.run.repetitions,
                                                        bench_point_seconds,
                                                        bench_min_repetitions);
                p.params["status"] = ortho::to_string(t.first.status);
                p.params["detail"] = t.first.detail;
                p.params["timed_calls"] = t.repetitions;
                const std::vector<T> Q = to_host(V.data(), static_cast<std::size_t>(n) * k);
                const ortho::TsqrQuality q =
                    ortho::tsqr_quality(n, k, Vh.data(), n, Q.data(), n, R.data(), k);
                if (t.first.status != ortho::TsqrStatus::ok || !(q.residual <= tolerance)) {
                    doc["benchmarks"].push_back(kernel_bench_error_entry(
                        p,
                        t.first.status != ortho::TsqrStatus::ok
                            ? fmt::format("tsqr ended {}: {}", ortho::to_string(t.first.status),
                                          t.first.detail)
                            : fmt::format("residual {:.3e} exceeds the {} tolerance {:.0e}",
                                          q.residual, precision, tolerance),
                        q.residual));
                    continue;
                }
                PointTiming timing;
                timing.seconds = t.seconds;
                timing.loops = 1;
                nlohmann::json e =
                    kernel_bench_entry(p, timing, t.repetitions, q.residual, machine);
                e["event_seconds"] = t.event_seconds;
                e["orthogonality"] = q.orthogonality;
                doc["benchmarks"].push_back(std::move(e));
            }
        }
    }
}

}  // namespace

std::vector<std::string> tsqr_benchmark_names(const KernelBenchOptions& o)
{
    validate(o, tsqr_bench_max_n, tsqr_bench_max_k());
    return selected_benchmark_names(o, family, tsqr_variants(),
                                    [](const TsqrVariant& v) { return v.name; });
}

nlohmann::json run_tsqr_bench(const KernelBenchOptions& o, const MachineProfile* machine)
{
    const std::size_t total = tsqr_benchmark_names(o).size();  // validates
    const std::optional<std::regex> filter = compile_filter(o.filter);
    nlohmann::json doc = kernel_bench_document(
        "bench/tsqr", family, o, machine,
        {{"family", "yamazaki2014 Sec. V: the TSQR methods of solvers/orthogonalization and "
                    "cusolver_qr (CAQR with one block: cuSOLVER geqrf + orgqr)"},
         {"block", "V n x k column-major, ld = n, uniform random values in [-1, 1) (a 65536-row "
                   "tile replicated down the rows): well conditioned"},
         {"flops", "effective, DGEQRF + DORGQR = 2 (2 n k^2 - 2 k^3 / 3) for every method"},
         {"bytes", "the columns its kernels read and write (tsqr_pass_columns) x n values"},
         {"timing", "one call at a time on V restored from a saved copy outside the timed "
                    "region; real_time: host steady clock, event_seconds: CUDA events; one "
                    "warm-up call; repetitions min(--repetitions, 1 s / warm-up), at least 3"},
         {"max_rel_error", "||V - Q R||_F / ||V||_F of the last call (ortho::tsqr_quality); "
                           "orthogonality ||I - Q^T Q||_2"}});
    const Progress progress;
    std::size_t index = 0;
    for (const std::string& precision : o.precisions) {
        if (precision == "double")
            run_precision<double>(o, precision, machine, filter, doc, progress, index, total);
        else
            run_precision<float>(o, precision, machine, filter, doc, progress, index, total);
    }
    return doc;
}

}  // namespace kbench::harness
