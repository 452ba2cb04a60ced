// The dot-product family's points and `kbench bench dot`; see harness/bench/bench_dot.hpp.
#include "harness/bench/bench_dot.hpp"

#include "harness/core/progress.hpp"
#include "kernels/base/cublas_level1.hpp"
#include "kernels/base/cuda_check.hpp"
#include "kernels/dot.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <regex>
#include <stdexcept>
#include <type_traits>
#include <utility>

namespace kbench::harness {

// ---- Deterministic vector values ----------------------------------------------------------

namespace dot_bench {

namespace {

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

}  // namespace

template <typename T>
void fill_pattern(T* dst, std::int64_t n, int pattern, std::vector<T>& staging)
{
    const std::vector<double>& table = pattern_table();
    staging.resize(static_cast<std::size_t>(n));
    std::int64_t m = pattern_start(pattern);
    for (std::int64_t i = 0; i < n; ++i) {
        staging[static_cast<std::size_t>(i)] = static_cast<T>(table[static_cast<std::size_t>(m)]);
        if (++m == pattern_period) m = 0;
    }
    KBENCH_CUDA_CHECK(cudaMemcpy(dst, staging.data(), static_cast<std::size_t>(n) * sizeof(T),
                                 cudaMemcpyHostToDevice));
}

template void fill_pattern<float>(float*, std::int64_t, int, std::vector<float>&);
template void fill_pattern<double>(double*, std::int64_t, int, std::vector<double>&);

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

double pattern_value(int pattern, std::int64_t i)
{
    const std::int64_t m = (i + pattern_shift * pattern) % pattern_period;
    return pattern_table()[static_cast<std::size_t>(m)];
}

}  // namespace dot_bench

// ---- One point ------------------------------------------------------------------------------

const std::vector<DotVariant>& dot_variants()
{
    static const std::vector<DotVariant> v{DotVariant::dot, DotVariant::mdot, DotVariant::mdgm,
                                           DotVariant::cublas_dot, DotVariant::cublas_gemv};
    return v;
}

const char* to_string(DotVariant v)
{
    switch (v) {
    case DotVariant::dot: return "dot";
    case DotVariant::mdot: return "mdot";
    case DotVariant::mdgm: return "mdgm";
    case DotVariant::cublas_dot: return "cublas_dot";
    case DotVariant::cublas_gemv: return "cublas_gemv";
    }
    return "?";
}

namespace {

void cublas_gemv_t(cublasHandle_t h, int n, int k, const double* one, const double* V,
                   const double* y, const double* zero, double* r)
{
    KBENCH_CUBLAS_CHECK(cublasDgemv(h, CUBLAS_OP_T, n, k, one, V, n, y, 1, zero, r, 1));
}
void cublas_gemv_t(cublasHandle_t h, int n, int k, const float* one, const float* V,
                   const float* y, const float* zero, float* r)
{
    KBENCH_CUBLAS_CHECK(cublasSgemv(h, CUBLAS_OP_T, n, k, one, V, n, y, 1, zero, r, 1));
}

}  // namespace

template <typename T>
SharedYData<T>::SharedYData(std::int64_t n_, int k_max_, const char* who) : n(n_), k_max(k_max_)
{
    if (n < 1 || n > std::numeric_limits<int>::max())
        throw std::invalid_argument(fmt::format(
            "{}: n = {} is outside [1, {}] (the int range of the cuBLAS legacy API)", who, n,
            std::numeric_limits<int>::max()));
    if (k_max < 1 || k_max > blas::max_dot_vectors)
        throw std::invalid_argument(fmt::format("{}: k = {} is outside [1, {}]", who, k_max,
                                                blas::max_dot_vectors));
    const auto un = static_cast<std::size_t>(n);
    V = device_buffer<T>(un * static_cast<std::size_t>(k_max));
    y = device_buffer<T>(un);
    result = device_buffer<T>(static_cast<std::size_t>(k_max));
    one_zero = device_buffer<T>(std::vector<T>{T(1), T(0)});
    // Counters zeroed once here; only dot, mdot and mdgm use this workspace (L2Flush and cuBLAS
    // have their own memory), and each call leaves the counters zero for the next.
    workspace = blas::DotWorkspace(n, k_max);
    std::vector<T> host_y, column;
    dot_bench::fill_pattern(y.data(), n, 0, host_y);
    reference.resize(static_cast<std::size_t>(k_max));
    for (int j = 0; j < k_max; ++j) {
        dot_bench::fill_pattern(V.data() + j * n, n, j + 1, column);
        blas::reference::dot<T>(n, column.data(), host_y.data(), &reference[j]);
    }
    KBENCH_CUDA_CHECK(cudaDeviceSynchronize());
    for (int j = 0; j < k_max; ++j) xs.push_back(V.data() + j * n);
    ys.assign(xs.size(), y.data());
}

template struct SharedYData<float>;
template struct SharedYData<double>;

template <typename T>
DotMeasurement measure_dot_point(DotVariant variant, int k, SharedYData<T>& d,
                                 cublasHandle_t blas, cudaStream_t stream, const RunOptions& o,
                                 L2Flush* flush, double tolerance)
{
    if (k < 1 || k > d.k_max)
        throw std::invalid_argument(
            fmt::format("measure_dot_point: k = {} is outside [1, {}]", k, d.k_max));
    constexpr int value_bytes = static_cast<int>(sizeof(T));
    const std::int64_t n = d.n;
    const int n_int = static_cast<int>(n);
    T* result = d.result.data();
    void* ws = d.workspace.data();
    const std::size_t ws_bytes = d.workspace.bytes();
    DotMeasurement m;
    std::function<void()> call;
    switch (variant) {
    case DotVariant::dot: {
        const models::Traffic t = blas::dot_traffic(n, value_bytes);  // per call
        m.traffic.bytes_read = k * t.bytes_read;
        m.traffic.bytes_written = k * t.bytes_written;
        m.traffic.flops = k * t.flops;
        call = [&, k] {
            for (int j = 0; j < k; ++j)
                blas::dot(n, d.xs[j], d.y.data(), result + j, ws, ws_bytes, stream);
        };
        break;
    }
    case DotVariant::cublas_dot: {
        const models::Traffic t = blas::dot_traffic(n, value_bytes);  // per call
        m.traffic.bytes_read = k * t.bytes_read;
        m.traffic.bytes_written = k * t.bytes_written;
        m.traffic.flops = k * t.flops;
        call = [&, k] {
            for (int j = 0; j < k; ++j)
                KBENCH_CUBLAS_CHECK(cublas::dot(blas, n_int, d.xs[j], d.y.data(), result + j));
        };
        break;
    }
    case DotVariant::mdot: {
        const int read = blas::mdot_vectors_read(k, d.xs.data(), d.ys.data());
        m.traffic = blas::mdot_traffic(n, k, read, value_bytes);
        call = [&, k] {
            blas::mdot(n, k, d.xs.data(), d.ys.data(), result, ws, ws_bytes, stream);
        };
        break;
    }
    case DotVariant::mdgm:
        m.traffic = blas::mdgm_traffic(n, k, value_bytes);
        call = [&, k] { blas::mdgm(n, k, d.V.data(), n, d.y.data(), result, ws, ws_bytes, stream); };
        break;
    case DotVariant::cublas_gemv:
        // Model bytes: the least V^T y must move, as for mdgm (V and y once, k results).
        m.traffic = blas::mdgm_traffic(n, k, value_bytes);
        call = [&, k] {
            cublas_gemv_t(blas, n_int, k, d.one_zero.data(), d.V.data(), d.y.data(),
                          d.one_zero.data() + 1, result);
        };
        break;
    }
    // Warm-up (the profiled call) and check against the reference twin.
    profiled_warm_up(kernel_benchmark_name("dot", to_string(variant), precision_name<T>(), n, k),
                     call);
    KBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
    std::vector<T> got(static_cast<std::size_t>(k));
    KBENCH_CUDA_CHECK(
        cudaMemcpy(got.data(), result, got.size() * sizeof(T), cudaMemcpyDeviceToHost));
    double worst = 0.0;
    for (int j = 0; j < k; ++j) {
        const double ref = static_cast<double>(d.reference[j]);
        const double diff = std::fabs(static_cast<double>(got[j]) - ref);
        const double err = ref != 0.0 ? diff / std::fabs(ref) : diff;
        if (!std::isfinite(err)) {
            worst = std::numeric_limits<double>::infinity();
            break;
        }
        worst = std::max(worst, err);
    }
    m.max_rel_error = worst;
    m.timing.seconds = std::numeric_limits<double>::quiet_NaN();
    if (!(worst <= tolerance)) return m;
    m.timing = time_point(call, stream, Clock::events, o.repetitions, o.min_time, flush);
    m.timed = true;
    return m;
}

template DotMeasurement measure_dot_point<float>(DotVariant, int, SharedYData<float>&,
                                                 cublasHandle_t, cudaStream_t,
                                                 const RunOptions&, L2Flush*, double);
template DotMeasurement measure_dot_point<double>(DotVariant, int, SharedYData<double>&,
                                                  cublasHandle_t, cudaStream_t,
                                                  const RunOptions&, L2Flush*, double);

// ---- `kbench bench dot` -----------------------------------------------------------------------

int dot_bench_max_k() { return blas::max_dot_vectors; }

namespace {

constexpr std::int64_t dot_bench_max_n = std::numeric_limits<int>::max();

template <typename T>
void run_precision(const FamilyRun& run, const std::string& precision)
{
    const auto& [o, machine, filter, flush, doc, progress, index, total] = run;
    const BlasOnStream b(CUBLAS_POINTER_MODE_DEVICE);
    cudaStream_t stream = b.stream;
    cublasHandle_t blas = b.blas;
    const double tolerance = bench_tolerance(precision);
    for (const std::int64_t n : o.ns) {
        int k_max = 0;
        for (const int k : o.ks)
            for (const DotVariant v : dot_variants())
                if (selected(filter, kernel_benchmark_name("dot", to_string(v), precision, n, k)))
                    k_max = std::max(k_max, k);
        if (k_max == 0) continue;
        SharedYData<T> data(n, k_max, "--n");
        for (const int k : o.ks) {
            for (const DotVariant v : dot_variants()) {
                KernelPoint p{"dot", to_string(v), precision, n, k, {}, nlohmann::json::object(),
                              ""};
                const std::string name = kernel_benchmark_name("dot", p.variant, precision, n, k);
                if (!selected(filter, name)) continue;
                progress.report(++index, total, name);
                const DotMeasurement m =
                    measure_dot_point(v, k, data, blas, stream, o.run, flush, tolerance);
                p.traffic = m.traffic;
                doc["benchmarks"].push_back(
                    measurement_entry(p, m, o.run.repetitions, tolerance, machine));
            }
        }
    }
}

}  // namespace

std::vector<std::string> dot_benchmark_names(const KernelBenchOptions& o)
{
    validate(o, dot_bench_max_n, dot_bench_max_k());
    return selected_benchmark_names(o, "dot", dot_variants(),
                                    [](DotVariant v) { return to_string(v); });
}

nlohmann::json run_dot_bench(const KernelBenchOptions& o, const MachineProfile* machine)
{
    const std::size_t total = dot_benchmark_names(o).size();  // validates
    const std::optional<std::regex> filter = compile_filter(o.filter);
    nlohmann::json doc = kernel_bench_document(
        "bench/dot", "dot", o, machine,
        {{"family", "anzt2015 Sec. 3.2, 4.3: DDOT (k blas::dot calls), MDOT (one blas::mdot "
                    "call, k pairs sharing y), MDGM (V^T y) vs k cuBLAS dot calls and cuBLAS "
                    "gemv CUBLAS_OP_T"},
         {"flops", "2 n k for every variant"},
         {"bytes", "dot, cublas_dot: k x (2n reads + 1 write); mdot: distinct vectors of each "
                   "chunk of 4 pairs read once (n k + n ceil(k/4) reads) + k writes; mdgm and "
                   "cublas_gemv: n k + n reads + k writes; partial sums not counted"},
         {"values", "V(:, j) = pattern j + 1, y = pattern 0; pattern j, element i: "
                    "1 / (1 + (i + 131 j) mod 1009), rounded to the precision"},
         {"max_rel_error", "max_j |result_j - ref_j| / |ref_j|, ref_j = "
                           "blas::reference::dot (long-double sum rounded to the precision)"},
         {"pointer_mode", "device"},
         {"timing", "CUDA events"},
         {"cache", o.run.cold ? "cold: L2 flushed before every timed call" : "hot"}});
    run_precisions(o, machine, filter, doc, total,
                   [](auto zero, const std::string& precision, const FamilyRun& run) {
                       run_precision<decltype(zero)>(run, precision);
                   });
    return doc;
}

}  // namespace kbench::harness
