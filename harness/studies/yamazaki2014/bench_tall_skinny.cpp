// yamazaki2014 Sec. V, Fig. 11: tall-skinny kernel / TSQR throughput against cuBLAS and
// cuSOLVER, and the public models of the figures; see
// harness/studies/yamazaki2014/bench_tall_skinny.hpp (Fig. 10: bench_tsqr_quality.cpp).
#include "harness/studies/yamazaki2014/bench_tall_skinny.hpp"
#include "harness/studies/yamazaki2014/bench_tall_skinny_common.hpp"

#include "harness/bench/bench_tall_skinny.hpp"
#include "harness/bench/bench_tsqr.hpp"
#include "harness/bench/kernel_bench.hpp"
#include "harness/core/progress.hpp"
#include "harness/core/quick.hpp"
#include "harness/core/timing.hpp"
#include "kernels/base/cuda_check.hpp"
#include "kernels/base/cuda_handles.hpp"
#include "kernels/base/device_buffer.hpp"
#include "kernels/base/memory_pool.hpp"
#include "kernels/dot.hpp"
#include "kernels/tall_skinny.hpp"
#include "solvers/orthogonalization/gpu_context.hpp"
#include "solvers/orthogonalization/tsqr_gpu.hpp"

#include <cublas_v2.h>
#include <cusolverDn.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <limits>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace kbench::harness {

// ---- Public models: tsqr_effective_flops, tsqr_pass_columns in harness/bench/bench_tsqr.cpp ----

using namespace tall_skinny_bench;

// ---- Fig. 11 ----------------------------------------------------------------------------------
//
// Timing method. Every buffer is allocated once per size (sweep "rows": per n; sweep
// "columns": once at k = 64, smaller k using the leading columns) and freed before the next.
// V (n x k, ld = n) holds uniform random values in [-1, 1): a host tile of tile_rows rows
// (std::mt19937_64, seed fill_seed) replicated down the rows on the device, so V is well
// conditioned (kappa close to 1) at every n.
// * Kernels without a host synchronization (gemv_t, gemv_n, gram, trsm): one warm-up call, then
//   the loop count L is calibrated so that L back-to-back calls last >= sample_time, then
//   `repetitions` samples of L calls timed with CUDA events; seconds = median sample / L.
//   The kernels update in place without a restore between calls: y -= V r with r_j = 1e-6
//   (y drifts by a small multiple of V over all calls), V := V R^-1 with R = I (V unchanged;
//   the kernels' work does not depend on the values).
// * TSQR (the Gram-based methods synchronize with the host once per pass): each call
//   individually on a fresh copy of the block: V is restored from its saved copy with
//   cudaMemcpyAsync and the stream synchronized OUTSIDE the timed region, then the call is timed
//   by the host steady clock (seconds) and by CUDA events on the stream (event_seconds);
//   one untimed warm-up call, then `repetitions` timed calls, medians; a TSQR point takes
//   min(repetitions, tsqr_point_seconds / warm-up time) repetitions, at least 3.
// * repetitions = max(3, --repetitions), and 3 for n >= large_rows; sample_time =
//   min(--min-time, max_sample_seconds). No L2 flush: at k = 30 even n = 1e4 is 2.4 MB of V,
//   and from n = 3e5 (72 MB) on V exceeds the L2 cache of current GPUs (50-60 MB), so only the
//   smallest sizes are served from L2 (as they are inside a solver).

namespace {

const std::vector<std::int64_t> row_sweep_ns{10'000,     30'000,     100'000,
                                             300'000,    1'000'000,  3'000'000,
                                             10'000'000, 30'000'000, 100'000'000};
constexpr std::int64_t column_sweep_rows = 10'000'000;
const std::vector<int> column_sweep_ks{1, 2, 4, 8, 16, 24, 30, 32, 48, 64};
constexpr std::int64_t quick_rows = 1'000'000;  // a quick run: n <= 1e6, 5 of the k
constexpr std::int64_t gram_batched_h = tall_skinny_gram_batched_h;  // rows per batched-GEMM block
constexpr double max_sample_seconds = 0.02;    // cap on the time of one timed sample
constexpr double tsqr_point_seconds = 1.0;  // TSQR: fewer repetitions (>= 3) beyond this total
constexpr std::int64_t large_rows = 30'000'000;  // from here on 3 repetitions
constexpr int min_repetitions = 3;
constexpr std::size_t memory_margin = std::size_t{512} << 20;  // left free for cuBLAS/cuSOLVER

/// Variants per (n, k): 3 gemv_t, 2 gemv_n, 4 gram, 2 trsm and the TSQR ones.
std::size_t variants_per_point() { return 11 + ortho::tsqr_methods().size() + 1; }

struct Timing {
    double seconds = std::numeric_limits<double>::quiet_NaN();
    double event_seconds = std::numeric_limits<double>::quiet_NaN();
    long long loops = 1;
};

/// The fixed fields of one Fig. 11 entry.
struct Point {
    const char* sweep;
    const char* kernel;
    std::string variant;
    std::int64_t n;
    int k;
    models::Traffic traffic;

    std::string name() const
    {
        return fmt::format("fig11/{}/{}/double/n={}/k={}", kernel, variant, n, k);
    }
};

nlohmann::json perf_entry(const Point& p, const Timing& t, int reps, double read_gbps)
{
    const double bytes = p.traffic.bytes_read + p.traffic.bytes_written;
    const double gbps = bytes / t.seconds * 1e-9;
    nlohmann::json e = {{"name", p.name()},
                        {"figure", "fig11"},
                        {"sweep", p.sweep},
                        {"kernel", p.kernel},
                        {"variant", p.variant},
                        {"precision", "double"},
                        {"n", p.n},
                        {"k", p.k},
                        {"seconds", finite_or_null(t.seconds)},
                        {"flops", p.traffic.flops},
                        {"bytes", bytes},
                        {"GFlops", finite_or_null(p.traffic.flops / t.seconds * 1e-9)},
                        {"GBps", finite_or_null(gbps)},
                        {"fraction_of_bandwidth",
                         read_gbps > 0.0 ? finite_or_null(gbps / read_gbps)
                                         : nlohmann::json(nullptr)},
                        {"repetitions", reps},
                        {"loops", t.loops}};
    if (std::string(p.kernel) == "tsqr") e["event_seconds"] = finite_or_null(t.event_seconds);
    return e;
}

/// The Fig. 11 measurement state shared by every size.
class TallSkinnyBench {
public:
    TallSkinnyBench(const StudyRun& run, nlohmann::json& doc, std::size_t total)
        : run_(run), doc_(doc), total_(total),
          read_gbps_(run.machine != nullptr ? run.machine->read_gbps : 0.0),
          sample_time_(std::min(run.options.min_time, max_sample_seconds))
    {}

    /// Measures every variant at n rows for each k of `ks` (one allocation, ld = n).
    void measure(const char* sweep, std::int64_t n, const std::vector<int>& ks);

private:
    void note(const std::string& text)
    {
        fmt::print(stderr, "note: {}\n", text);
        doc_["context"]["kbench"]["tall_skinny"]["skipped"].push_back(text);
    }
    void skip_all(const char* sweep, std::int64_t n, const std::vector<int>& ks,
                  const std::string& why);
    void error_entry(const Point& p, int reps, const std::string& message);
    void async_point(const Point& p, int reps, TallSkinnyVariant v, int k,
                     TallSkinnyData<double>& data);

    const StudyRun& run_;
    nlohmann::json& doc_;
    std::size_t total_;
    std::size_t index_ = 0;
    double read_gbps_;
    double sample_time_;
    Gpu gpu_;
    Progress progress_;
};

void TallSkinnyBench::skip_all(const char* sweep, std::int64_t n, const std::vector<int>& ks,
                               const std::string& why)
{
    note(fmt::format("{} sweep, n = {}: skipped ({})", sweep, n, why));
    index_ += ks.size() * variants_per_point();
}

void TallSkinnyBench::error_entry(const Point& p, int reps, const std::string& message)
{
    fmt::print(stderr, "note: {}: {}\n", p.name(), message);
    nlohmann::json e = perf_entry(p, Timing{}, reps, read_gbps_);
    e["error"] = message;
    doc_["benchmarks"].push_back(std::move(e));
}

/// One point of the kernels without a host synchronization, measured by
/// measure_tall_skinny_point (harness/bench/bench_tall_skinny.hpp, the measurement of `kbench
/// bench tall-skinny`): warm-up, calibration of L, `reps` samples of L calls (CUDA events).
void TallSkinnyBench::async_point(const Point& p, int reps, TallSkinnyVariant v, int k,
                                  TallSkinnyData<double>& data)
{
    progress_.report(++index_, total_, p.name());
    try {
        const TallSkinnyMeasurement m = measure_tall_skinny_point(
            v, k, data, gpu_.blas, gpu_.stream, reps, sample_time_, nullptr, false, 0.0);
        Timing t;
        t.seconds = m.timing.seconds;
        t.event_seconds = m.timing.seconds;
        t.loops = m.timing.loops;
        doc_["benchmarks"].push_back(perf_entry(p, t, reps, read_gbps_));
    } catch (const std::exception& e) {
        // A sticky CUDA error ends the run; an argument or library error only this point.
        if (cudaDeviceSynchronize() != cudaSuccess) throw;
        error_entry(p, reps, e.what());
    }
}

/// Bytes free on the device now (the memory pool's kept blocks given back first).
std::size_t free_device_bytes()
{
    memory::trim_device_pool();
    std::size_t free_bytes = 0, total_bytes = 0;
    KBENCH_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    return free_bytes;
}

void TallSkinnyBench::measure(const char* sweep, std::int64_t n, const std::vector<int>& ks)
{
    const int k_max = *std::max_element(ks.begin(), ks.end());
    const int reps = n >= large_rows ? min_repetitions
                                     : std::max(min_repetitions, run_.options.repetitions);
    const std::size_t elements = static_cast<std::size_t>(n) * k_max;
    const ortho::GpuHandles h = gpu_.handles();

    // Kernel workspaces: mdgm's own and the largest of gram's and gram_batched's over the k.
    const std::size_t kernel_ws = TallSkinnyData<double>::workspace_bytes(n, ks);
    const std::size_t base_bytes = (elements + n) * sizeof(double) + kernel_ws;
    if (base_bytes + memory_margin > free_device_bytes()) {
        skip_all(sweep, n, ks, fmt::format("{:.1f} GB of buffers exceed the free device memory",
                                           base_bytes * 1e-9));
        return;
    }
    // V, y, r, B, R = I, c and the kernel workspaces, filled (bench_tall_skinny.hpp).
    TallSkinnyData<double> data(n, ks, gpu_.stream, "fig11");
    device_buffer<double>& V = data.V;

    // TSQR: the saved copy of V and the largest workspace that fits.
    const std::vector<TsqrVariant> variants = tsqr_variants();
    device_buffer<double> V0;
    std::size_t tsqr_ws = 0;
    std::set<std::pair<std::size_t, int>> tsqr_skipped;  // (variant index, k)
    if (elements * sizeof(double) + memory_margin <= free_device_bytes()) {
        V0 = device_buffer<double>(elements);
        KBENCH_CUDA_CHECK(cudaMemcpyAsync(V0.data(), V.data(), V.bytes(),
                                          cudaMemcpyDeviceToDevice, gpu_.stream));
        gpu_.stream.synchronize();
        const std::size_t free_now = free_device_bytes();
        const std::size_t budget = free_now > memory_margin ? free_now - memory_margin : 0;
        for (std::size_t v = 0; v < variants.size(); ++v) {
            for (const int k : ks) {
                std::size_t need = 0;
                try {
                    need = ortho::tsqr_workspace_bytes(variants[v].method, h, n, k, value_bytes,
                                                       variants[v].one_block ? n : 0);
                } catch (const std::invalid_argument& e) {
                    tsqr_skipped.insert({v, k});
                    note(fmt::format("{} sweep, n = {}, k = {}: tsqr/{} skipped ({})", sweep, n,
                                     k, variants[v].name, e.what()));
                    continue;
                }
                if (need <= budget) {
                    tsqr_ws = std::max(tsqr_ws, need);
                } else {
                    tsqr_skipped.insert({v, k});
                    note(fmt::format("{} sweep, n = {}, k = {}: tsqr/{} skipped (workspace of "
                                     "{:.1f} GB does not fit)", sweep, n, k, variants[v].name,
                                     need * 1e-9));
                }
            }
        }
    } else {
        note(fmt::format("{} sweep, n = {}: tsqr skipped (no room for the saved copy of V, "
                         "{:.1f} GB)", sweep, n, elements * sizeof(double) * 1e-9));
        for (std::size_t v = 0; v < variants.size(); ++v)
            for (const int k : ks) tsqr_skipped.insert({v, k});
    }
    device_buffer<double> tws(tsqr_ws / sizeof(double) + 1);
    std::vector<double> R(static_cast<std::size_t>(k_max) * k_max);

    cudaStream_t s = gpu_.stream;
    for (const int k : ks) {
        const auto point = [&](const char* kernel, const char* variant, models::Traffic t) {
            return Point{sweep, kernel, variant, n, k, t};
        };
        // gemv_t (r = V^T y), gemv_n (y -= V c), gram (B = V^T V), trsm (V := V R^-1, R = I):
        // the points of bench_tall_skinny.hpp, bytes and flops from its models.
        for (const TallSkinnyVariant v : tall_skinny_variants())
            async_point(point(tall_skinny_kernel(v), tall_skinny_study_name(v),
                              tall_skinny_traffic(v, n, k, value_bytes)),
                        reps, v, k, data);

        // tsqr: each call on a fresh copy of the block.
        for (std::size_t v = 0; v < variants.size(); ++v) {
            const TsqrVariant& tv = variants[v];
            const Point p = point("tsqr", tv.name.c_str(), tsqr_traffic(tv, n, k, value_bytes));
            if (tsqr_skipped.count({v, k}) != 0) {
                progress_.report(++index_, total_, p.name() + " (skipped)");
                continue;
            }
            progress_.report(++index_, total_, p.name());
            try {
                // measure_tsqr_point (harness/bench/bench_tsqr.hpp, the measurement of `kbench
                // bench tsqr`): warm-up, then each call on V restored from V0.
                const TsqrTiming tt =
                    measure_tsqr_point(tv, h, n, k, V.data(), V0.data(), R.data(), tws.data(),
                                       tws.bytes(), reps, tsqr_point_seconds, min_repetitions);
                Timing timing;
                timing.seconds = tt.seconds;
                timing.event_seconds = tt.event_seconds;
                nlohmann::json e = perf_entry(p, timing, tt.repetitions, read_gbps_);
                e["status"] = ortho::to_string(tt.first.status);
                e["detail"] = tt.first.detail;
                doc_["benchmarks"].push_back(std::move(e));
            } catch (const std::exception& e) {
                // A sticky CUDA error ends the run; an argument or library error only this point.
                if (cudaDeviceSynchronize() != cudaSuccess) throw;
                error_entry(p, reps, e.what());
            }
        }
        // Leave V as filled for the next k (TSQR overwrote its leading columns).
        if (!V0.empty()) {
            KBENCH_CUDA_CHECK(cudaMemcpyAsync(V.data(), V0.data(), V.bytes(),
                                              cudaMemcpyDeviceToDevice, s));
            gpu_.stream.synchronize();
        }
    }
}

}  // namespace

nlohmann::json run_tall_skinny_study(const StudyRun& run)
{
    const bool quick = run.options.quick;
    const std::vector<std::int64_t> rows_ns =
        quick ? quick_cap(row_sweep_ns, quick_rows) : row_sweep_ns;
    const std::int64_t columns_n = quick ? quick_rows : column_sweep_rows;
    const std::vector<int> columns_ks = quick ? quick_cap(column_sweep_ks, 64, 5) : column_sweep_ks;
    nlohmann::json doc = new_document(run, "tall_skinny", {
        {"figure", "yamazaki2014 Sec. V-F, Fig. 11: tall-skinny DGEMV, Gram (DGEMM), TRSM and "
                   "TSQR throughput vs rows n (k = 30) and vs columns k (n = 1e7), against "
                   "cuBLAS and cuSOLVER"},
        {"row_sweep", {{"n", rows_ns}, {"k", tall_skinny_columns}}},
        {"column_sweep", {{"n", columns_n}, {"k", columns_ks}}},
        {"block", "V n x k column-major, ld = n, uniform random values in [-1, 1) (a 65536-row "
                  "tile replicated down the rows): well conditioned"},
        {"timing", "asynchronous kernels: CUDA events around L back-to-back calls, L calibrated "
                   "to >= sample_time, median of `repetitions` samples / L; tsqr: one call at a "
                   "time on V restored from a saved copy outside the timed region, host steady "
                   "clock (seconds) and CUDA events (event_seconds), median of `repetitions` "
                   "calls (fewer, >= 3, when they would exceed tsqr_point_seconds); one warm-up "
                   "call each"},
        {"repetitions", std::max(min_repetitions, run.options.repetitions)},
        {"repetitions_large_n", min_repetitions},
        {"tsqr_point_seconds", tsqr_point_seconds},
        {"large_n", large_rows},
        {"sample_time", std::min(run.options.min_time, max_sample_seconds)},
        {"cache", "hot: no L2 flush (V exceeds the L2 cache from n = 3e5 at k = 30)"},
        {"flops", "gemv_t, gemv_n: 2 n k; gram: n k (k + 1) (the symmetric product, for every "
                  "variant); trsm: n k^2; tsqr: effective, DGEQRF + DORGQR = 2 (2 n k^2 - "
                  "2 k^3 / 3) for every method"},
        {"bytes", "the same for every variant of a kernel: gemv_t (k + 1) n reads + k writes; "
                  "gemv_n (k + 1) n reads + n writes; gram k n reads + k^2 writes; trsm k n "
                  "reads + k n writes; tsqr: the columns its kernels read and write (tsqr_pass_columns: "
                  "cholqr/svqr 3k, cholqr2 6k, shifted_cholqr3 9k, caqr/cusolver_qr 6k, cgs "
                  "k^2 + 5k - 3, cgs2 2k^2 + 7k - 6, mgs 1.5k^2 + 3.5k - 2) x n; 8 bytes each"},
        {"fraction_of_bandwidth", "GBps / read_gbps (the measured read-only bandwidth)"},
        {"gram_batched_h", gram_batched_h},
        {"gemv_n", "y -= V c, c_j = 1e-6, no restore between calls"},
        {"trsm", "R = I (k x k, non-unit diagonal flag), V unchanged between calls"},
        {"cusolver_qr", "ortho::tsqr caqr with block_rows = n: one cuSOLVER geqrf + orgqr"},
        {"skipped", nlohmann::json::array()}});
    std::set<std::pair<std::int64_t, int>> rows_points;
    for (const std::int64_t n : rows_ns) rows_points.insert({n, tall_skinny_columns});
    std::vector<int> column_ks;
    for (const int k : columns_ks)
        if (rows_points.count({columns_n, k}) == 0) column_ks.push_back(k);

    TallSkinnyBench bench(run, doc, (rows_ns.size() + column_ks.size()) * variants_per_point());
    for (const std::int64_t n : rows_ns) bench.measure("rows", n, {tall_skinny_columns});
    if (!column_ks.empty()) bench.measure("columns", columns_n, column_ks);
    return doc;
}

}  // namespace kbench::harness
