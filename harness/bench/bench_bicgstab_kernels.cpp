// The BiCGSTAB vector-kernel family's points and `kbench bench bicgstab-kernels`; see
// harness/bench/bench_bicgstab_kernels.hpp.
#include "harness/bench/bench_bicgstab_kernels.hpp"

#include "harness/bench/bench_dot.hpp"  // dot_bench::fill_pattern
#include "harness/core/progress.hpp"
#include "kernels/base/cublas_level1.hpp"
#include "kernels/base/cuda_check.hpp"
#include "models/bicgstab_model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <stdexcept>
#include <type_traits>

namespace kbench::harness {

namespace {

const char* const family = "bicgstab-kernels";
constexpr std::int64_t max_n = std::numeric_limits<int>::max();

// The cuBLAS calls of the reference form (solvers/bicgstab.cu), host pointer mode.
template <typename T>
void scal(cublasHandle_t h, int n, T a, T* x)
{
    KBENCH_CUBLAS_CHECK(cublas::scal(h, n, a, x));
}
template <typename T>
void axpy(cublasHandle_t h, int n, T a, const T* x, T* y)
{
    KBENCH_CUBLAS_CHECK(cublas::axpy(h, n, a, x, y));
}
template <typename T>
void copy(cublasHandle_t h, int n, const T* x, T* y)
{
    KBENCH_CUBLAS_CHECK(cublas::copy(h, n, x, y));
}
template <typename T>
T dot(cublasHandle_t h, int n, const T* x, const T* y)
{
    T r{};
    KBENCH_CUBLAS_CHECK(cublas::dot(h, n, x, y, &r));
    return r;
}
template <typename T>
T nrm2(cublasHandle_t h, int n, const T* x)
{
    T r{};
    KBENCH_CUBLAS_CHECK(cublas::nrm2(h, n, x, &r));
    return r;
}

/// |got - ref| / |ref| (|got - ref| for ref == 0; inf when not finite).
double scalar_error(double got, double ref)
{
    const double d = std::fabs(got - ref);
    if (!std::isfinite(d)) return std::numeric_limits<double>::infinity();
    return ref != 0.0 ? d / std::fabs(ref) : d;
}

bool is_cublas(BicgstabKernelVariant v)
{
    return std::string(to_string(v)).rfind("cublas_", 0) == 0;
}

}  // namespace

const std::vector<BicgstabKernelVariant>& bicgstab_kernel_variants()
{
    using V = BicgstabKernelVariant;
    static const std::vector<V> v{V::p_update,  V::cublas_p_update,  V::alpha_dot,
                                  V::cublas_alpha_dot, V::s_update, V::cublas_s_update,
                                  V::omega_dot, V::cublas_omega_dot, V::xr_update,
                                  V::cublas_xr_update};
    return v;
}

const char* to_string(BicgstabKernelVariant v)
{
    using V = BicgstabKernelVariant;
    switch (v) {
    case V::p_update: return "p_update";
    case V::cublas_p_update: return "cublas_p_update";
    case V::alpha_dot: return "alpha_dot";
    case V::cublas_alpha_dot: return "cublas_alpha_dot";
    case V::s_update: return "s_update";
    case V::cublas_s_update: return "cublas_s_update";
    case V::omega_dot: return "omega_dot";
    case V::cublas_omega_dot: return "cublas_omega_dot";
    case V::xr_update: return "xr_update";
    case V::cublas_xr_update: return "cublas_xr_update";
    }
    return "?";
}

const char* bicgstab_model_kernel(BicgstabKernelVariant v)
{
    using V = BicgstabKernelVariant;
    switch (v) {
    case V::p_update:
    case V::cublas_p_update: return "p_update";
    case V::alpha_dot:
    case V::cublas_alpha_dot: return "reduce1";
    case V::s_update:
    case V::cublas_s_update: return "s_update";
    case V::omega_dot:
    case V::cublas_omega_dot: return "reduce2";
    case V::xr_update:
    case V::cublas_xr_update: return "xr_update+reduce3";
    }
    return "?";
}

models::Traffic bicgstab_kernel_traffic(BicgstabKernelVariant v, std::int64_t n, int value_bytes)
{
    if (n < 0 || value_bytes < 1)
        throw std::invalid_argument(fmt::format(
            "bicgstab_kernel_traffic: n = {}, value_bytes = {}, expected n >= 0, value_bytes >= 1",
            n, value_bytes));
    const auto variant =
        is_cublas(v) ? models::BicgstabVariant::reference : models::BicgstabVariant::merged;
    const std::string kernel = bicgstab_model_kernel(v);
    const double nn = static_cast<double>(n);
    models::Traffic t;
    for (const models::KernelTraffic& k : models::kernels(variant)) {
        if (k.merged_into != kernel) continue;
        t.bytes_read += (k.reads_n * nn + k.scalar_reads) * value_bytes;
        t.bytes_written += (k.writes_n * nn + k.scalar_writes) * value_bytes;
    }
    static const std::map<std::string, double> flops_per_n{
        {"p_update", 4.0}, {"reduce1", 2.0}, {"s_update", 2.0}, {"reduce2", 4.0},
        {"xr_update+reduce3", 10.0}};
    t.flops = flops_per_n.at(kernel) * nn;
    return t;
}

// ---- The data ---------------------------------------------------------------------------------

template <typename T>
BicgstabKernelData<T>::BicgstabKernelData(std::int64_t n_, const char* who) : n(n_)
{
    if (n < 1 || n > max_n)
        throw std::invalid_argument(fmt::format(
            "{}: n = {} is outside [1, {}] (the int range of the cuBLAS legacy API)", who, n,
            max_n));
    for (int j = 0; j < count; ++j) {
        vec[j] = device_buffer<T>(static_cast<std::size_t>(n));
        dot_bench::fill_pattern(vec[j].data(), n, j, initial[j]);
    }
    sc0.rho = T(1);
    sc0.rho_old = T(2);
    sc0.alpha = T(1);
    sc0.omega = T(1);
    sc = device_buffer<bicgstab::DeviceScalars<T>>(1);
    workspace = device_buffer<double>(bicgstab::workspace_bytes(n) / sizeof(double) + 1);
    KBENCH_CUDA_CHECK(cudaMemset(workspace.data(), 0, workspace.bytes()));
    restore();
}

template <typename T>
void BicgstabKernelData<T>::restore()
{
    for (int j = 0; j < count; ++j) vec[j].copy_from_host(initial[j].data(), initial[j].size());
    sc.copy_from_host(&sc0, 1);
    KBENCH_CUDA_CHECK(cudaDeviceSynchronize());
}

template struct BicgstabKernelData<float>;
template struct BicgstabKernelData<double>;

// ---- One point --------------------------------------------------------------------------------

template <typename T>
PointMeasurement measure_bicgstab_kernel_point(BicgstabKernelVariant variant,
                                               BicgstabKernelData<T>& d, cublasHandle_t blas,
                                               cudaStream_t stream, const RunOptions& o,
                                               L2Flush* flush, double tolerance)
{
    using V = BicgstabKernelVariant;
    using D = BicgstabKernelData<T>;
    const std::int64_t n = d.n;
    const int ni = static_cast<int>(n);
    T* vec[D::count];
    for (int j = 0; j < D::count; ++j) vec[j] = d.vec[j].data();
    T *r = vec[D::r], *v = vec[D::v], *p = vec[D::p], *r_hat = vec[D::r_hat], *s = vec[D::s],
      *t = vec[D::t], *x = vec[D::x];
    bicgstab::DeviceScalars<T>* sc = d.sc.data();
    void* ws = d.workspace.data();
    const std::size_t wb = d.workspace.bytes();
    const bicgstab::DeviceScalars<T> s0 = d.sc0;
    const T beta = (s0.rho / s0.rho_old) * (s0.alpha / s0.omega);
    // The cuBLAS sequences' host scalars (results of the last call).
    T rhat_v{}, ts{}, tt{}, res{}, rho{};
    std::function<void()> call;
    switch (variant) {
    case V::p_update: call = [&] { bicgstab::p_update(n, r, v, p, sc, stream); }; break;
    case V::cublas_p_update:
        call = [&] {
            scal(blas, ni, beta, p);
            axpy(blas, ni, -beta * s0.omega, v, p);
            axpy(blas, ni, T(1), r, p);
        };
        break;
    case V::alpha_dot: call = [&] { bicgstab::alpha_dot(n, r_hat, v, sc, ws, wb, stream); }; break;
    case V::cublas_alpha_dot: call = [&] { rhat_v = dot(blas, ni, r_hat, v); }; break;
    case V::s_update: call = [&] { bicgstab::s_update(n, r, v, s, sc, stream); }; break;
    case V::cublas_s_update:
        call = [&] {
            copy(blas, ni, r, s);
            axpy(blas, ni, -s0.alpha, v, s);
        };
        break;
    case V::omega_dot: call = [&] { bicgstab::omega_dot(n, t, s, sc, ws, wb, stream); }; break;
    case V::cublas_omega_dot:
        call = [&] {
            ts = dot(blas, ni, t, s);
            tt = dot(blas, ni, t, t);
        };
        break;
    case V::xr_update:
        call = [&] { bicgstab::xr_update(n, r_hat, p, s, t, x, r, sc, ws, wb, stream); };
        break;
    case V::cublas_xr_update:
        call = [&] {
            axpy(blas, ni, s0.alpha, p, x);
            axpy(blas, ni, s0.omega, s, x);
            copy(blas, ni, s, r);
            axpy(blas, ni, -s0.omega, t, r);
            res = nrm2(blas, ni, r);
            rho = dot(blas, ni, r_hat, r);
        };
        break;
    }
    // The CPU reference twin of the fused kernel on the initial values; only the vectors the
    // variant writes are copied (`out`).
    const std::array<std::vector<T>, D::count>& in = d.initial;
    std::array<std::vector<T>, D::count> out;
    bicgstab::DeviceScalars<T> ref = s0;
    const std::string model = bicgstab_model_kernel(variant);
    std::vector<int> outputs;  // the vectors the variant writes
    if (model == "p_update") {
        outputs = {D::p};
    } else if (model == "s_update") {
        outputs = {D::s};
    } else if (model == "xr_update+reduce3") {
        outputs = {D::x, D::r};
    }
    for (const int j : outputs) out[j] = in[j];
    if (model == "p_update") {
        bicgstab::reference::p_update(n, in[D::r].data(), in[D::v].data(), out[D::p].data(), &ref);
    } else if (model == "reduce1") {
        bicgstab::reference::alpha_dot(n, in[D::r_hat].data(), in[D::v].data(), &ref);
    } else if (model == "s_update") {
        bicgstab::reference::s_update(n, in[D::r].data(), in[D::v].data(), out[D::s].data(), &ref);
    } else if (model == "reduce2") {
        bicgstab::reference::omega_dot(n, in[D::t].data(), in[D::s].data(), &ref);
    } else {
        bicgstab::reference::xr_update(n, in[D::r_hat].data(), in[D::p].data(), in[D::s].data(),
                                       in[D::t].data(), out[D::x].data(), out[D::r].data(), &ref);
    }
    // Warm-up (the profiled call) on the initial values, and the check.
    d.restore();
    profiled_warm_up(kernel_benchmark_name(family, to_string(variant), precision_name<T>(), n, 0),
                     call);
    KBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
    PointMeasurement m;
    m.traffic = bicgstab_kernel_traffic(variant, n, static_cast<int>(sizeof(T)));
    for (const int j : outputs)
        m.max_rel_error = std::max(m.max_rel_error, relative_max_error(d.vec[j].to_host(), out[j]));
    bicgstab::DeviceScalars<T> got = d.sc.to_host().front();
    if (variant == V::cublas_alpha_dot) {
        got.rhat_v = rhat_v;
        got.alpha = s0.rho / rhat_v;
    } else if (variant == V::cublas_omega_dot) {
        got.ts = ts;
        got.tt = tt;
        got.omega = ts / tt;
    } else if (variant == V::cublas_xr_update) {
        got.rho = rho;
        got.rr = res * res;
    }
    const auto scalars = [&](std::initializer_list<T bicgstab::DeviceScalars<T>::*> fields) {
        for (const auto f : fields)
            m.max_rel_error = std::max(m.max_rel_error, scalar_error(got.*f, ref.*f));
    };
    using S = bicgstab::DeviceScalars<T>;
    if (model == "reduce1") scalars({&S::rhat_v, &S::alpha});
    else if (model == "reduce2") scalars({&S::ts, &S::tt, &S::omega});
    else if (model == "xr_update+reduce3") scalars({&S::rho, &S::rr});
    if (!std::isfinite(m.max_rel_error)) m.max_rel_error = std::numeric_limits<double>::infinity();
    m.timing.seconds = std::numeric_limits<double>::quiet_NaN();
    if (!(m.max_rel_error <= tolerance)) return m;
    const bool host_clock = variant == V::cublas_alpha_dot || variant == V::cublas_omega_dot ||
                            variant == V::cublas_xr_update;
    m.timing = time_point(call, stream, host_clock ? Clock::host : Clock::events, o.repetitions,
                          o.min_time, flush);
    m.timed = true;
    return m;
}

template PointMeasurement measure_bicgstab_kernel_point<float>(
    BicgstabKernelVariant, BicgstabKernelData<float>&, cublasHandle_t, cudaStream_t,
    const RunOptions&, L2Flush*, double);
template PointMeasurement measure_bicgstab_kernel_point<double>(
    BicgstabKernelVariant, BicgstabKernelData<double>&, cublasHandle_t, cudaStream_t,
    const RunOptions&, L2Flush*, double);

// ---- `kbench bench bicgstab-kernels` ----------------------------------------------------------

std::int64_t bicgstab_kernel_bench_max_n() { return max_n; }

std::vector<std::string> bicgstab_kernel_benchmark_names(const KernelBenchOptions& o)
{
    validate(o, max_n, 0);
    return selected_benchmark_names(
        o, family, bicgstab_kernel_variants(),
        [](BicgstabKernelVariant v) { return to_string(v); }, false);
}

namespace {

template <typename T>
void run_precision(const FamilyRun& run, const std::string& precision)
{
    const auto& [o, machine, filter, flush, doc, progress, index, total] = run;
    const BlasOnStream b(CUBLAS_POINTER_MODE_HOST);
    cudaStream_t stream = b.stream;
    cublasHandle_t blas = b.blas;
    const double tolerance = bench_tolerance(precision);
    for (const std::int64_t n : o.ns) {
        std::unique_ptr<BicgstabKernelData<T>> data;  // allocated when a variant is selected
        for (const BicgstabKernelVariant v : bicgstab_kernel_variants()) {
            KernelPoint p{family, to_string(v), precision, n, 0, {}, nlohmann::json::object(), ""};
            const std::string name = kernel_benchmark_name(family, p.variant, precision, n, 0);
            if (!selected(filter, name)) continue;
            progress.report(++index, total, name);
            if (!data) data = std::make_unique<BicgstabKernelData<T>>(n, "--n");
            const PointMeasurement m =
                measure_bicgstab_kernel_point(v, *data, blas, stream, o.run, flush, tolerance);
            p.traffic = m.traffic;
            p.params["model_kernel"] = bicgstab_model_kernel(v);
            doc["benchmarks"].push_back(
                measurement_entry(p, m, o.run.repetitions, tolerance, machine));
        }
    }
}

}  // namespace

nlohmann::json run_bicgstab_kernel_bench(const KernelBenchOptions& o,
                                         const MachineProfile* machine)
{
    const std::size_t total = bicgstab_kernel_benchmark_names(o).size();  // validates
    const std::optional<std::regex> filter = compile_filter(o.filter);
    nlohmann::json doc = kernel_bench_document(
        "bench/bicgstab-kernels", family, o, machine,
        {{"family", "anzt2015 Sec. 3.3, 4.4, Table 1: the fused BiCGSTAB kernels (p_update, "
                    "alpha_dot, s_update, omega_dot, xr_update) vs the cuBLAS calls of the "
                    "reference form that make the same update (host pointer mode)"},
         {"bytes", "models/bicgstab_model.hpp: fused, its row of merged_kernels(); cuBLAS, the "
                   "rows of reference_kernels() merged into it; (reads_n n + scalar reads) and "
                   "(writes_n n + scalar writes) values"},
         {"flops", "p_update 4n, alpha_dot 2n, s_update 2n, omega_dot 4n, xr_update 10n, alike "
                   "for the fused and the cuBLAS variant"},
         {"values", "r, v, p, r_hat, s, t, x = patterns 0 .. 6 (1 / (1 + (i + 131 j) mod "
                    "1009)); rho = 1, rho_old = 2, alpha = omega = 1; restored before each "
                    "point's warm-up call"},
         {"max_rel_error", "largest of max_i |out_i - ref_i| / max_i |ref_i| over the output "
                           "vectors and |got - ref| / |ref| over the output scalars, ref by "
                           "bicgstab::reference"},
         {"timing", "CUDA events; host clock for cublas_alpha_dot, cublas_omega_dot and "
                    "cublas_xr_update (their dots return to the host)"},
         {"cache", o.run.cold ? "cold: L2 flushed before every timed call" : "hot"}});
    run_precisions(o, machine, filter, doc, total,
                   [](auto zero, const std::string& precision, const FamilyRun& run) {
                       run_precision<decltype(zero)>(run, precision);
                   });
    return doc;
}

}  // namespace kbench::harness
