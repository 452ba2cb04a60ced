// The fused vector kernels of merged BiCGSTAB (kernels/bicgstab_kernels.hpp; anzt2015 Sec. 3.3,
// 4.4, Table 1 right) against the cuBLAS calls of the reference form (solvers/bicgstab.cu,
// anzt2015 Fig. 1 right) that make the same update: ONE measurement of each point, used by
// `kbench bench bicgstab-kernels` and by anzt2015/fig9 (harness/studies/anzt2015/
// bench_vector_kernels_p_update.cpp: its p_update and cublas_p_update points).
//
// Variants, in pairs (fused kernel, then its cuBLAS sequence; cuBLAS in host pointer mode with
// host scalars, as the reference solver), on vectors of n elements of T:
//   p_update   bicgstab::p_update: p = r + beta (p - omega v), beta from the device scalars
//   cublas_p_update   scal p = beta p; axpy p += -beta omega v; axpy p += r
//   alpha_dot  bicgstab::alpha_dot: rhat_v = r_hat . v, alpha = rho / rhat_v (device scalars)
//   cublas_alpha_dot  dot r_hat . v to the host; alpha = rho / rhat_v on the host
//   s_update   bicgstab::s_update: s = r - alpha v
//   cublas_s_update   copy s = r; axpy s += -alpha v
//   omega_dot  bicgstab::omega_dot: ts = t . s, tt = t . t (and ss), omega = ts / tt
//   cublas_omega_dot  dot t . s and dot t . t to the host; omega on the host
//   xr_update  bicgstab::xr_update: x += alpha p + omega s; r = s - omega t; rho = r_hat . r,
//              rr = r . r
//   cublas_xr_update  axpy x += alpha p; axpy x += omega s; copy r = s; axpy r += -omega t;
//                     nrm2 r (rr = nrm2^2) and dot r_hat . r to the host
// Model bytes (models/bicgstab_model.hpp, anzt2015 Table 1 as the kernels move the data): the
// fused variant, its row of models::merged_kernels() (p_update, reduce1, s_update, reduce2,
// xr_update+reduce3); the cuBLAS variant, the rows of models::reference_kernels() merged into it;
// (reads_n n + scalar_reads) and (writes_n n + scalar_writes) values of T. Flops, the
// algorithm's, alike for both variants: p_update 4n, alpha_dot 2n, s_update 2n, omega_dot 4n,
// xr_update 10n.
//
// Values: r, v, p, r_hat, s, t, x hold patterns 0 .. 6 of harness/bench/bench_dot.hpp
// (1 / (1 + (i + 131 j) mod 1009), rounded to T); the device scalars rho = 1, rho_old = 2,
// alpha = 1, omega = 1 (beta = 0.5), status ok (anzt2015/fig9's values). Every point starts from
// these values (restored before its warm-up call); the timed calls then repeat the update on
// what the previous call left (p tends to 2 r - v, x grows by p + s per call: bounded or linear,
// never overflowing at the loop counts of time_point).
//
// Check: the warm-up call's outputs (the vectors it writes and the scalars it computes) against
// the CPU reference twin of the fused kernel (bicgstab::reference, on the same initial values):
// max_rel_error is the largest of max_i |got_i - ref_i| / max_i |ref_i| over each output vector
// and |got - ref| / |ref| over each scalar. Timing: time_point with CUDA events, except the
// cuBLAS reductions (cublas_alpha_dot, cublas_omega_dot, cublas_xr_update), which end on the
// host (host pointer mode returns each dot to the host) and are timed by the host clock.
#pragma once

#include "harness/bench/kernel_bench.hpp"
#include "harness/core/machine.hpp"
#include "kernels/base/device_buffer.hpp"
#include "kernels/bicgstab_kernels.hpp"

#include <cublas_v2.h>
#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace kbench::harness {

enum class BicgstabKernelVariant {
    p_update,
    cublas_p_update,
    alpha_dot,
    cublas_alpha_dot,
    s_update,
    cublas_s_update,
    omega_dot,
    cublas_omega_dot,
    xr_update,
    cublas_xr_update,
};

/// Every variant, in the order `kbench bench bicgstab-kernels` runs them.
const std::vector<BicgstabKernelVariant>& bicgstab_kernel_variants();

/// "p_update", "cublas_p_update", ..., "cublas_xr_update".
const char* to_string(BicgstabKernelVariant v);

/// The merged kernel of anzt2015 Table 1 a variant is or is replaced by: "p_update", "reduce1",
/// "s_update", "reduce2" or "xr_update+reduce3" (models::KernelTraffic::merged_into).
const char* bicgstab_model_kernel(BicgstabKernelVariant v);

/// Model bytes and flops of one call for vectors of n values of value_bytes bytes (see the file
/// comment). Throws std::invalid_argument for n < 0 or value_bytes < 1.
models::Traffic bicgstab_kernel_traffic(BicgstabKernelVariant v, std::int64_t n,
                                        int value_bytes);

/// The device vectors, scalars and workspace of the points at one length n, with the initial
/// values they are restored to. Throws std::invalid_argument naming `who` for n outside
/// [1, INT_MAX] (cuBLAS's int lengths); kbench::cuda_error when the buffers do not fit.
template <typename T>
struct BicgstabKernelData {
    BicgstabKernelData(std::int64_t n, const char* who);

    /// Copies the initial vectors and scalars back to the device, then synchronizes the device.
    void restore();

    enum Vector { r, v, p, r_hat, s, t, x, count };
    std::int64_t n;
    std::array<device_buffer<T>, count> vec;
    std::array<std::vector<T>, count> initial;     // host copies of the initial values
    device_buffer<bicgstab::DeviceScalars<T>> sc;  // one state
    bicgstab::DeviceScalars<T> sc0;                // its initial value
    device_buffer<double> workspace;               // bicgstab::workspace_bytes(n), zeroed
};

/// Measures `variant` on `data`: restore, warm-up call (the profiled call), check against the
/// CPU reference, and unless max_rel_error exceeds `tolerance`, time_point (cold with `flush`).
/// `blas` is bound to `stream` and in CUBLAS_POINTER_MODE_HOST. Throws kbench::cuda_error on
/// CUDA or cuBLAS failures.
template <typename T>
PointMeasurement measure_bicgstab_kernel_point(
    BicgstabKernelVariant variant, BicgstabKernelData<T>& data, cublasHandle_t blas,
    cudaStream_t stream, const RunOptions& o, L2Flush* flush = nullptr,
    double tolerance = std::numeric_limits<double>::infinity());

// ---- `kbench bench bicgstab-kernels` ----------------------------------------------------------

/// Most n of the family: INT_MAX (cuBLAS's int lengths).
std::int64_t bicgstab_kernel_bench_max_n();

/// The names "bicgstab-kernels/<variant>/<precision>/n=<n>" that a run of `o` measures, in run
/// order (per precision and n, every variant), the filter applied. Throws as validate does (o.ks
/// must be empty: the family has no k).
std::vector<std::string> bicgstab_kernel_benchmark_names(const KernelBenchOptions& o);

/// Runs every selected point of `o` (validated first: std::invalid_argument naming the option)
/// and returns the results document with id "bench/bicgstab-kernels": one entry per point
/// (measurement_entry, bench_tolerance). `machine` (may be null) gives bw_frac_*. Progress on
/// stderr.
nlohmann::json run_bicgstab_kernel_bench(const KernelBenchOptions& o,
                                         const MachineProfile* machine);

}  // namespace kbench::harness
