// The dot-product family of anzt2015 (kernels/dot.hpp: DDOT, MDOT, MDGM) against cuBLAS dot and
// gemv: ONE measurement of each point, used by `kbench bench dot` and by the anzt2015 runners
// of Figs. 7 and 8 (harness/studies/anzt2015/bench_vector_kernels_dots.cpp), so that a study id
// and a hand-run benchmark of the same point measure the same thing the same way.
//
// A point is one variant at a length n and a count k, on the data of SharedYData: an n x k_max
// column-major V (ld = n), column j holding vector pattern j + 1, and y holding pattern 0
// (pattern j, element i: 1 / (1 + (i + 131 j) mod 1009), rounded to T). Variants, each computing
// the k products V(:, j) . y, j < k (flops 2 n k for every variant):
//   dot          k kbench::blas::dot calls            bytes: k x blas::dot_traffic
//   mdot         one kbench::blas::mdot call, k pairs  bytes: blas::mdot_traffic (y shared)
//   mdgm         one kbench::blas::mdgm call on V      bytes: blas::mdgm_traffic
//   cublas_dot   k cublas{D,S}dot calls                bytes: k x blas::dot_traffic
//   cublas_gemv  one cublas{D,S}gemv CUBLAS_OP_T on V  bytes: blas::mdgm_traffic (the least
//                                                       V^T y moves)
// cuBLAS runs in device pointer mode (results in device memory, as the kernels'). One warm-up
// call, whose k results are compared with the CPU reference twin (blas::reference::dot on the
// host copies: a long-double sum rounded to T): max_rel_error = max_j |got_j - ref_j| / |ref_j|;
// then time_point (harness/bench/kernel_bench.hpp), CUDA events.
#pragma once

#include "harness/bench/kernel_bench.hpp"
#include "harness/core/machine.hpp"
#include "kernels/base/device_buffer.hpp"
#include "kernels/dot.hpp"

#include <cublas_v2.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace kbench::harness {

// ---- Deterministic vector values (also the anzt2015 runners') --------------------------------

namespace dot_bench {

/// Element i of pattern j: 1 / (1 + (i + 131 j) mod 1009), in (0, 1]. Positive values keep
/// every dot product well conditioned (the check measures the kernels' rounding, not
/// cancellation); the period keeps the elements of long vectors of one magnitude.
double pattern_value(int pattern, std::int64_t i);

/// Copies pattern `pattern` of n elements (rounded to T) to the device array `dst` through
/// `staging` (host; left holding the values). The copy is not ordered against non-blocking
/// streams: call cudaDeviceSynchronize() after the last fill.
template <typename T>
void fill_pattern(T* dst, std::int64_t n, int pattern, std::vector<T>& staging);

/// sum_i pattern_a[i] * pattern_b[i] over n elements, in long double.
long double pattern_dot(int a, int b, std::int64_t n);

}  // namespace dot_bench

// ---- One point ------------------------------------------------------------------------------

enum class DotVariant { dot, mdot, mdgm, cublas_dot, cublas_gemv };

/// Every variant, in the order `kbench bench dot` runs them.
const std::vector<DotVariant>& dot_variants();

/// "dot", "mdot", "mdgm", "cublas_dot", "cublas_gemv".
const char* to_string(DotVariant v);

/// The device data of the points at one length n for k <= k_max (see the file comment), and
/// the reference results. Throws std::invalid_argument naming `who` for n < 1, n above INT_MAX
/// (cuBLAS's int lengths) or k_max outside [1, blas::max_dot_vectors]; kbench::cuda_error when
/// the buffers do not fit.
template <typename T>
struct SharedYData {
    SharedYData(std::int64_t n, int k_max, const char* who);

    std::int64_t n;
    int k_max;
    device_buffer<T> V, y, result, one_zero;  // one_zero: gemv's alpha, beta (device)
    blas::DotWorkspace workspace;             // (n, k_max): the dot variants' own, zeroed
    std::vector<T> reference;                 // V(:, j) . y by blas::reference::dot
    std::vector<const T*> xs, ys;             // the columns of V; y k_max times
};

/// What one point measured (traffic: of one call of the variant, k products).
using DotMeasurement = PointMeasurement;

/// Measures `variant` at k (1 <= k <= data.k_max): warm-up, check, and unless max_rel_error
/// exceeds `tolerance`, time_point with Clock::events (cold with `flush`). `blas` is bound to
/// `stream` and in CUBLAS_POINTER_MODE_DEVICE. Throws std::invalid_argument for k out of range,
/// kbench::cuda_error on CUDA or cuBLAS failures.
template <typename T>
DotMeasurement measure_dot_point(DotVariant variant, int k, SharedYData<T>& data,
                                 cublasHandle_t blas, cudaStream_t stream, const RunOptions& o,
                                 L2Flush* flush = nullptr,
                                 double tolerance = std::numeric_limits<double>::infinity());

// ---- `kbench bench dot` -----------------------------------------------------------------------

/// Most k of the dot family: blas::max_dot_vectors.
int dot_bench_max_k();

/// The names "dot/<variant>/<precision>/n=<n>/k=<k>" that a run of `o` measures, in run order
/// (per precision, n and k, every variant), the filter applied. Throws as validate does.
std::vector<std::string> dot_benchmark_names(const KernelBenchOptions& o);

/// Runs every selected point of `o` (validated first: std::invalid_argument naming the option)
/// and returns the results document with id "bench/dot": one entry per point
/// (kernel_bench_entry; kernel_bench_error_entry when max_rel_error exceeds bench_tolerance).
/// `machine` (may be null) gives bw_frac_read / bw_frac_triad. Progress on stderr.
nlohmann::json run_dot_bench(const KernelBenchOptions& o, const MachineProfile* machine);

}  // namespace kbench::harness
