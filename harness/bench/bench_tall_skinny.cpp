// The tall-skinny family's points and `kbench bench tall-skinny`; see
// harness/bench/bench_tall_skinny.hpp.
#include "harness/bench/bench_tall_skinny.hpp"

#include "harness/core/progress.hpp"
#include "kernels/base/cuda_check.hpp"
#include "kernels/dot.hpp"
#include "kernels/tall_skinny.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <random>
#include <regex>
#include <stdexcept>
#include <utility>

namespace kbench::harness {

namespace {

constexpr std::int64_t tile_rows = 65536;
constexpr std::uint64_t fill_seed = tall_skinny_fill_seed;
constexpr double gemv_n_coefficient = 1e-6;  // c_j of y -= V c

// cuBLAS by precision (host pointer mode).
void gemv(cublasHandle_t h, cublasOperation_t op, int m, int n, const double* alpha,
          const double* A, int lda, const double* x, const double* beta, double* y)
{
    KBENCH_CUBLAS_CHECK(cublasDgemv(h, op, m, n, alpha, A, lda, x, 1, beta, y, 1));
}
void gemv(cublasHandle_t h, cublasOperation_t op, int m, int n, const float* alpha,
          const float* A, int lda, const float* x, const float* beta, float* y)
{
    KBENCH_CUBLAS_CHECK(cublasSgemv(h, op, m, n, alpha, A, lda, x, 1, beta, y, 1));
}
void gemm_tn(cublasHandle_t h, int k, int n, const double* one, const double* V,
             const double* zero, double* B)
{
    KBENCH_CUBLAS_CHECK(
        cublasDgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, k, k, n, one, V, n, V, n, zero, B, k));
}
void gemm_tn(cublasHandle_t h, int k, int n, const float* one, const float* V,
             const float* zero, float* B)
{
    KBENCH_CUBLAS_CHECK(
        cublasSgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, k, k, n, one, V, n, V, n, zero, B, k));
}
void syrk_t(cublasHandle_t h, int k, int n, const double* one, const double* V,
            const double* zero, double* B)
{
    KBENCH_CUBLAS_CHECK(
        cublasDsyrk(h, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_T, k, n, one, V, n, zero, B, k));
}
void syrk_t(cublasHandle_t h, int k, int n, const float* one, const float* V, const float* zero,
            float* B)
{
    KBENCH_CUBLAS_CHECK(
        cublasSsyrk(h, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_T, k, n, one, V, n, zero, B, k));
}
void trsm_ru(cublasHandle_t h, int n, int k, const double* one, const double* R, int ldr,
             double* V)
{
    KBENCH_CUBLAS_CHECK(cublasDtrsm(h, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N,
                                    CUBLAS_DIAG_NON_UNIT, n, k, one, R, ldr, V, n));
}
void trsm_ru(cublasHandle_t h, int n, int k, const float* one, const float* R, int ldr, float* V)
{
    KBENCH_CUBLAS_CHECK(cublasStrsm(h, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N,
                                    CUBLAS_DIAG_NON_UNIT, n, k, one, R, ldr, V, n));
}

template <typename T>
std::vector<T> to_host(const T* device, std::size_t count)
{
    std::vector<T> host(count);
    KBENCH_CUDA_CHECK(cudaMemcpy(host.data(), device, count * sizeof(T), cudaMemcpyDeviceToHost));
    return host;
}

}  // namespace

// ---- The block ------------------------------------------------------------------------------

template <typename T>
void fill_random_block(T* V, std::int64_t n, int k, std::uint64_t seed, cudaStream_t stream)
{
    const std::int64_t rows = std::min(n, tile_rows);
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> uniform(-1.0, 1.0);
    std::vector<T> tile(static_cast<std::size_t>(rows) * k);
    for (T& x : tile) x = static_cast<T>(uniform(rng));
    const std::size_t pitch = static_cast<std::size_t>(n) * sizeof(T);
    KBENCH_CUDA_CHECK(cudaMemcpy2D(V, pitch, tile.data(), rows * sizeof(T), rows * sizeof(T), k,
                                   cudaMemcpyHostToDevice));
    KBENCH_CUDA_CHECK(cudaDeviceSynchronize());  // order the pageable copy before `stream`
    for (std::int64_t done = rows; done < n; done *= 2) {  // rows [0, done) -> [done, 2 done)
        const std::int64_t count = std::min(done, n - done);
        KBENCH_CUDA_CHECK(cudaMemcpy2DAsync(V + done, pitch, V, pitch, count * sizeof(T), k,
                                            cudaMemcpyDeviceToDevice, stream));
    }
    KBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
}

template void fill_random_block<float>(float*, std::int64_t, int, std::uint64_t, cudaStream_t);
template void fill_random_block<double>(double*, std::int64_t, int, std::uint64_t,
                                        cudaStream_t);

// ---- Variants ---------------------------------------------------------------------------------

const std::vector<TallSkinnyVariant>& tall_skinny_variants()
{
    using V = TallSkinnyVariant;
    static const std::vector<V> v{V::mdgm,         V::per_column,       V::cublas_gemv_t,
                                  V::gemm_rowwise, V::cublas_gemv_n,    V::gram,
                                  V::gram_batched, V::cublas_gemm,      V::cublas_syrk,
                                  V::trsm_right_upper, V::cublas_trsm};
    return v;
}

const char* to_string(TallSkinnyVariant v)
{
    switch (v) {
    case TallSkinnyVariant::mdgm: return "mdgm";
    case TallSkinnyVariant::per_column: return "per_column";
    case TallSkinnyVariant::cublas_gemv_t: return "cublas_gemv_t";
    case TallSkinnyVariant::gemm_rowwise: return "gemm_rowwise";
    case TallSkinnyVariant::cublas_gemv_n: return "cublas_gemv_n";
    case TallSkinnyVariant::gram: return "gram";
    case TallSkinnyVariant::gram_batched: return "gram_batched";
    case TallSkinnyVariant::cublas_gemm: return "cublas_gemm";
    case TallSkinnyVariant::cublas_syrk: return "cublas_syrk";
    case TallSkinnyVariant::trsm_right_upper: return "trsm_right_upper";
    case TallSkinnyVariant::cublas_trsm: return "cublas_trsm";
    }
    return "?";
}

const char* tall_skinny_kernel(TallSkinnyVariant v)
{
    switch (v) {
    case TallSkinnyVariant::mdgm:
    case TallSkinnyVariant::per_column:
    case TallSkinnyVariant::cublas_gemv_t: return "gemv_t";
    case TallSkinnyVariant::gemm_rowwise:
    case TallSkinnyVariant::cublas_gemv_n: return "gemv_n";
    case TallSkinnyVariant::gram:
    case TallSkinnyVariant::gram_batched:
    case TallSkinnyVariant::cublas_gemm:
    case TallSkinnyVariant::cublas_syrk: return "gram";
    case TallSkinnyVariant::trsm_right_upper:
    case TallSkinnyVariant::cublas_trsm: return "trsm";
    }
    return "?";
}

const char* tall_skinny_study_name(TallSkinnyVariant v)
{
    switch (v) {
    case TallSkinnyVariant::cublas_gemm: return "cublas_dgemm";
    case TallSkinnyVariant::cublas_syrk: return "cublas_dsyrk";
    case TallSkinnyVariant::cublas_trsm: return "cublas_dtrsm";
    default: return to_string(v);
    }
}

models::Traffic tall_skinny_traffic(TallSkinnyVariant v, std::int64_t n, int k, int value_bytes)
{
    const std::string kernel = tall_skinny_kernel(v);
    if (v == TallSkinnyVariant::mdgm) return blas::mdgm_traffic(n, k, value_bytes);
    if (kernel == "gemv_t") return blas::gemv_t_traffic(n, k, value_bytes);
    if (kernel == "gemv_n") return blas::gemm_rowwise_traffic(n, k, 1, true, value_bytes);
    if (kernel == "gram") return blas::gram_traffic(n, k, k, true, value_bytes);
    return blas::trsm_traffic(n, k, value_bytes);
}

// ---- Data -------------------------------------------------------------------------------------

namespace {

/// Bytes of gram_batched's workspace for these ks: the largest over the ks.
template <typename T>
std::size_t gram_batched_bytes(std::int64_t n, const std::vector<int>& ks)
{
    constexpr int value_bytes = static_cast<int>(sizeof(T));
    std::size_t bytes = 0;
    for (const int k : ks)
        bytes = std::max(bytes, blas::gram_batched_workspace_bytes(
                                    n, k, k, tall_skinny_gram_batched_h, value_bytes));
    return bytes;
}

}  // namespace

template <typename T>
std::size_t TallSkinnyData<T>::workspace_bytes(std::int64_t n, const std::vector<int>& ks)
{
    const int k_max = ks.empty() ? 0 : *std::max_element(ks.begin(), ks.end());
    // gram's size is nondecreasing in k: the largest k serves every k.
    return gram_batched_bytes<T>(n, ks) +
           blas::gram_workspace_bytes(n, k_max, k_max, static_cast<int>(sizeof(T))) +
           blas::dot_workspace_bytes(n, k_max);
}

template <typename T>
TallSkinnyData<T>::TallSkinnyData(std::int64_t n_, const std::vector<int>& ks,
                                  cudaStream_t stream, const char* who)
    : n(n_), k_max(ks.empty() ? 0 : *std::max_element(ks.begin(), ks.end()))
{
    if (n < 1 || n > std::numeric_limits<int>::max())
        throw std::invalid_argument(fmt::format(
            "{}: n = {} is outside [1, {}] (the int range of the cuBLAS legacy API)", who, n,
            std::numeric_limits<int>::max()));
    for (const int k : ks)
        if (k < 1 || k > blas::max_block_columns)
            throw std::invalid_argument(fmt::format("{}: k = {} is outside [1, {}]", who, k,
                                                    blas::max_block_columns));
    if (ks.empty()) throw std::invalid_argument(fmt::format("{}: no k", who));
    const auto un = static_cast<std::size_t>(n);
    const auto uk = static_cast<std::size_t>(k_max);
    V = device_buffer<T>(un * uk);
    y = device_buffer<T>(un);
    workspace = device_buffer<double>(gram_batched_bytes<T>(n, ks) / sizeof(double) + 1);
    gram_workspace = blas::GramWorkspace(n, k_max, k_max, static_cast<int>(sizeof(T)));
    dot_workspace = blas::DotWorkspace(n, k_max);
    r = device_buffer<T>(uk);
    B = device_buffer<T>(uk * uk);
    std::vector<T> host_small(uk * uk, T(0));
    for (std::size_t j = 0; j < uk; ++j) host_small[j * uk + j] = T(1);
    identity = device_buffer<T>(host_small);  // R = I, ldr = k_max
    coefficients = device_buffer<T>(std::vector<T>(uk, static_cast<T>(gemv_n_coefficient)));
    fill_random_block(V.data(), n, k_max, fill_seed, stream);
    fill_random_block(y.data(), n, 1, fill_seed + 1, stream);
}

template struct TallSkinnyData<float>;
template struct TallSkinnyData<double>;

// ---- One point --------------------------------------------------------------------------------

template <typename T>
TallSkinnyMeasurement measure_tall_skinny_point(TallSkinnyVariant variant, int k,
                                                TallSkinnyData<T>& d, cublasHandle_t handle,
                                                cudaStream_t s, int repetitions, double min_time,
                                                L2Flush* flush, bool check, double tolerance)
{
    if (k < 1 || k > d.k_max)
        throw std::invalid_argument(
            fmt::format("measure_tall_skinny_point: k = {} is outside [1, {}]", k, d.k_max));
    constexpr int value_bytes = static_cast<int>(sizeof(T));
    const std::int64_t n = d.n;
    const int n_int = static_cast<int>(n);
    const T one = 1, zero = 0, minus_one = -1;
    T* V = d.V.data();
    T* y = d.y.data();
    T* r = d.r.data();
    T* B = d.B.data();
    void* ws = d.workspace.data();
    const std::size_t ws_bytes = d.workspace.bytes();
    void* gram_ws = d.gram_workspace.data();
    const std::size_t gram_ws_bytes = d.gram_workspace.bytes();
    void* dot_ws = d.dot_workspace.data();
    const std::size_t dot_ws_bytes = d.dot_workspace.bytes();
    std::function<void()> call;
    using TV = TallSkinnyVariant;
    switch (variant) {
    case TV::mdgm: call = [&] { blas::mdgm(n, k, V, n, y, r, dot_ws, dot_ws_bytes, s); }; break;
    case TV::per_column: call = [&] { blas::gemv_t_per_column(n, k, V, n, y, r, s); }; break;
    case TV::cublas_gemv_t:
        call = [&] { gemv(handle, CUBLAS_OP_T, n_int, k, &one, V, n_int, y, &zero, r); };
        break;
    case TV::gemm_rowwise:
        call = [&] {
            blas::gemm_rowwise(n, k, 1, minus_one, V, n, d.coefficients.data(), k, one, y, n, s);
        };
        break;
    case TV::cublas_gemv_n:
        call = [&] {
            gemv(handle, CUBLAS_OP_N, n_int, k, &minus_one, V, n_int, d.coefficients.data(), &one,
                 y);
        };
        break;
    case TV::gram:
        call = [&] { blas::gram(n, k, V, n, k, V, n, B, k, gram_ws, gram_ws_bytes, s); };
        break;
    case TV::gram_batched:
        call = [&] {
            blas::gram_batched(handle, n, k, V, n, k, V, n, B, k, tall_skinny_gram_batched_h, ws,
                               ws_bytes, s);
        };
        break;
    case TV::cublas_gemm: call = [&] { gemm_tn(handle, k, n_int, &one, V, &zero, B); }; break;
    case TV::cublas_syrk: call = [&] { syrk_t(handle, k, n_int, &one, V, &zero, B); }; break;
    case TV::trsm_right_upper:
        call = [&] { blas::trsm_right_upper(n, k, V, n, d.identity.data(), d.k_max, s); };
        break;
    case TV::cublas_trsm:
        call = [&] { trsm_ru(handle, n_int, k, &one, d.identity.data(), d.k_max, V); };
        break;
    }
    TallSkinnyMeasurement m;
    m.traffic = tall_skinny_traffic(variant, n, k, value_bytes);
    m.max_rel_error = std::numeric_limits<double>::quiet_NaN();
    m.timing.seconds = std::numeric_limits<double>::quiet_NaN();
    const std::string kernel = tall_skinny_kernel(variant);
    const auto un = static_cast<std::size_t>(n);
    const auto uk = static_cast<std::size_t>(k);
    const std::string name = kernel_benchmark_name("tall-skinny", to_string(variant),
                                                   precision_name<T>(), n, k);
    if (check) {
        // The inputs as the warm-up call finds them (y and V are updated in place).
        KBENCH_CUDA_CHECK(cudaStreamSynchronize(s));
        const std::vector<T> Vh = to_host(V, un * uk);
        std::vector<T> ref;
        if (kernel == "gemv_t") {
            const std::vector<T> yh = to_host(y, un);
            ref.resize(uk);
            blas::reference::gemv_t(n, k, Vh.data(), n, yh.data(), ref.data());
        } else if (kernel == "gemv_n") {
            ref = to_host(y, un);
            const std::vector<T> c(uk, static_cast<T>(gemv_n_coefficient));
            blas::reference::gemm_rowwise(n, k, 1, minus_one, Vh.data(), n, c.data(), k, one,
                                          ref.data(), n);
        } else if (kernel == "gram") {
            ref.assign(uk * uk, T(0));
            blas::reference::gram(n, k, Vh.data(), n, k, Vh.data(), n, ref.data(), k);
        } else {
            ref = Vh;
            const std::vector<T> R = to_host(d.identity.data(), d.identity.size());
            blas::reference::trsm_right_upper(n, k, ref.data(), n, R.data(), d.k_max);
        }
        profiled_warm_up(name, call);
        KBENCH_CUDA_CHECK(cudaStreamSynchronize(s));
        std::vector<T> got;
        if (kernel == "gemv_t") got = to_host(r, uk);
        else if (kernel == "gemv_n") got = to_host(y, un);
        else if (kernel == "gram") got = to_host(B, uk * uk);
        else got = to_host(V, un * uk);
        m.max_rel_error =
            kernel == "gram"
                ? relative_max_error(got, ref, [uk](std::size_t i) { return i % uk <= i / uk; })
                : relative_max_error(got, ref);
        if (!(m.max_rel_error <= tolerance)) return m;
    } else {
        profiled_warm_up(name, call);
        KBENCH_CUDA_CHECK(cudaStreamSynchronize(s));
    }
    m.timing = time_point(call, s, Clock::events, repetitions, min_time, flush);
    m.timed = true;
    return m;
}

template TallSkinnyMeasurement measure_tall_skinny_point<float>(TallSkinnyVariant, int,
                                                                TallSkinnyData<float>&,
                                                                cublasHandle_t, cudaStream_t,
                                                                int, double, L2Flush*, bool,
                                                                double);
template TallSkinnyMeasurement measure_tall_skinny_point<double>(TallSkinnyVariant, int,
                                                                 TallSkinnyData<double>&,
                                                                 cublasHandle_t, cudaStream_t,
                                                                 int, double, L2Flush*, bool,
                                                                 double);

// ---- `kbench bench tall-skinny` ---------------------------------------------------------------

int tall_skinny_bench_max_k() { return blas::max_block_columns; }

namespace {

constexpr std::int64_t tall_skinny_bench_max_n = std::numeric_limits<int>::max();
const char* const family = "tall-skinny";

template <typename T>
void run_precision(const FamilyRun& run, const std::string& precision)
{
    const auto& [o, machine, filter, flush, doc, progress, index, total] = run;
    const BlasOnStream b(CUBLAS_POINTER_MODE_HOST);
    cudaStream_t stream = b.stream;
    cublasHandle_t blas = b.blas;
    const double tolerance = bench_tolerance(precision);
    for (const std::int64_t n : o.ns) {
        std::vector<int> ks;
        for (const int k : o.ks)
            for (const TallSkinnyVariant v : tall_skinny_variants())
                if (selected(filter, kernel_benchmark_name(family, to_string(v), precision, n, k)) &&
                    std::find(ks.begin(), ks.end(), k) == ks.end())
                    ks.push_back(k);
        if (ks.empty()) continue;
        TallSkinnyData<T> data(n, ks, stream, "--n");
        for (const int k : o.ks) {
            for (const TallSkinnyVariant v : tall_skinny_variants()) {
                KernelPoint p{family, to_string(v), precision, n, k, {},
                              {{"kernel", tall_skinny_kernel(v)}}, ""};
                const std::string name = kernel_benchmark_name(family, p.variant, precision, n, k);
                if (!selected(filter, name)) continue;
                progress.report(++index, total, name);
                const TallSkinnyMeasurement m = measure_tall_skinny_point(
                    v, k, data, blas, stream, o.run.repetitions, o.run.min_time, flush, true,
                    tolerance);
                p.traffic = m.traffic;
                doc["benchmarks"].push_back(
                    measurement_entry(p, m, o.run.repetitions, tolerance, machine));
            }
        }
    }
}

}  // namespace

std::vector<std::string> tall_skinny_benchmark_names(const KernelBenchOptions& o)
{
    validate(o, tall_skinny_bench_max_n, tall_skinny_bench_max_k());
    return selected_benchmark_names(o, family, tall_skinny_variants(),
                                    [](TallSkinnyVariant v) { return to_string(v); });
}

nlohmann::json run_tall_skinny_bench(const KernelBenchOptions& o, const MachineProfile* machine)
{
    const std::size_t total = tall_skinny_benchmark_names(o).size();  // validates
    const std::optional<std::regex> filter = compile_filter(o.filter);
    nlohmann::json doc = kernel_bench_document(
        "bench/tall-skinny", family, o, machine,
        {{"family", "yamazaki2014 Sec. V: tall-skinny GEMV (V^T y, y -= V c), Gram V^T V and "
                    "TRSM V R^-1 vs cuBLAS gemv, gemm, syrk and trsm"},
         {"block", "V n x k column-major, ld = n, uniform random values in [-1, 1) (a 65536-row "
                   "tile replicated down the rows): well conditioned"},
         {"flops", "gemv_t, gemv_n: 2 n k; gram: n k (k + 1) (the symmetric product, for every "
                   "variant); trsm: n k^2"},
         {"bytes", "the same for every variant of a kernel: gemv_t (k + 1) n reads + k writes; "
                   "gemv_n (k + 1) n reads + n writes; gram k n reads + k^2 writes; trsm k n "
                   "reads + k n writes"},
         {"gram_batched_h", tall_skinny_gram_batched_h},
         {"gemv_n", "y -= V c, c_j = 1e-6, no restore between calls"},
         {"trsm", "R = I (k x k, non-unit diagonal flag), V unchanged between calls"},
         {"max_rel_error", "max_i |out_i - ref_i| / max_i |ref_i| of the warm-up call, ref by "
                           "blas::reference (gram: the upper triangle)"},
         {"timing", "CUDA events"},
         {"cache", o.run.cold ? "cold: L2 flushed before every timed call" : "hot"}});
    run_precisions(o, machine, filter, doc, total,
                   [](auto zero, const std::string& precision, const FamilyRun& run) {
                       run_precision<decltype(zero)>(run, precision);
                   });
    return doc;
}

}  // namespace kbench::harness
