// The tall-skinny kernel family of yamazaki2014 (kernels/tall_skinny.hpp, kernels/dot.hpp's
// mdgm) against cuBLAS: ONE measurement of each point, used by `kbench bench tall-skinny` and by
// the yamazaki2014/fig11 runner (harness/studies/yamazaki2014/bench_tall_skinny.cpp), so that the
// study id and a hand-run benchmark of the same point measure the same thing the same way.
//
// A point is one variant at n rows and k columns (k <= k_max), on the data of TallSkinnyData: an
// n x k_max column-major V (ld = n) of uniform random values in [-1, 1) (a host tile of 65536
// rows, std::mt19937_64 seed 11, replicated down the rows on the device: well conditioned at
// every n), y (n rows, seed 12), r (k), B (k x k, ldb = k), R = I (k_max x k_max), c_j = 1e-6.
// Variants (kernel: variant, what runs; bytes and flops the same for every variant of a kernel,
// from the models next to the kernels):
//   gemv_t  r = V^T y:       mdgm (blas::mdgm), per_column (blas::gemv_t_per_column),
//                            cublas_gemv_t (cublas{D,S}gemv CUBLAS_OP_T); bytes mdgm_traffic
//                            for mdgm, gemv_t_traffic for the others
//   gemv_n  y -= V c:        gemm_rowwise (blas::gemm_rowwise, kw = 1), cublas_gemv_n
//                            (cublas{D,S}gemv CUBLAS_OP_N); gemm_rowwise_traffic
//   gram    B = V^T V:       gram (blas::gram), gram_batched (blas::gram_batched, h = 1024),
//                            cublas_gemm (cublas{D,S}gemm T, N), cublas_syrk (cublas{D,S}syrk,
//                            upper); gram_traffic (symmetric)
//   trsm    V := V R^-1:     trsm_right_upper (blas::trsm_right_upper), cublas_trsm
//                            (cublas{D,S}trsm right, upper, non-unit); trsm_traffic
// The kernels update in place without a restore between calls: y drifts by a small multiple of
// V (c_j = 1e-6), V is unchanged by R = I. Timing: one warm-up call, then time_point
// (harness/bench/kernel_bench.hpp) with CUDA events. The study names three variants for double
// as cuBLAS does (cublas_dgemm, cublas_dsyrk, cublas_dtrsm: tall_skinny_study_name).
#pragma once

#include "harness/bench/kernel_bench.hpp"
#include "harness/core/machine.hpp"
#include "kernels/base/device_buffer.hpp"
#include "kernels/dot.hpp"
#include "kernels/tall_skinny.hpp"

#include <cublas_v2.h>
#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace kbench::harness {

enum class TallSkinnyVariant {
    mdgm, per_column, cublas_gemv_t,                      // gemv_t
    gemm_rowwise, cublas_gemv_n,                          // gemv_n
    gram, gram_batched, cublas_gemm, cublas_syrk,         // gram
    trsm_right_upper, cublas_trsm,                        // trsm
};

/// Every variant, in the order the study and `kbench bench tall-skinny` run them.
const std::vector<TallSkinnyVariant>& tall_skinny_variants();

/// The variant's name in `kbench bench tall-skinny` (the enumerator's).
const char* to_string(TallSkinnyVariant v);

/// Its kernel: "gemv_t", "gemv_n", "gram" or "trsm".
const char* tall_skinny_kernel(TallSkinnyVariant v);

/// Its name in yamazaki2014/fig11 (double): to_string but cublas_dgemm, cublas_dsyrk,
/// cublas_dtrsm.
const char* tall_skinny_study_name(TallSkinnyVariant v);

/// Model bytes and flops of one call at n x k (see the file comment).
models::Traffic tall_skinny_traffic(TallSkinnyVariant v, std::int64_t n, int k, int value_bytes);

/// Fills the n x k (ld = n) device block V with uniform random values in [-1, 1): a host tile of
/// min(n, 65536) rows drawn by std::mt19937_64(seed) in double, rounded to T, replicated down
/// the rows on `stream` (synchronized).
template <typename T>
void fill_random_block(T* V, std::int64_t n, int k, std::uint64_t seed, cudaStream_t stream);

/// Seed of V in TallSkinnyData (y: seed + 1) and in `kbench bench tsqr`.
inline constexpr std::uint64_t tall_skinny_fill_seed = 11;

/// Rows of the gram_batched blocks.
inline constexpr std::int64_t tall_skinny_gram_batched_h = 1024;

/// The device data of the points at n rows for the columns `ks` (see the file comment), filled
/// on `stream` (synchronized). Throws std::invalid_argument naming `who` for n outside
/// [1, INT_MAX] or a k outside [1, blas::max_block_columns]; kbench::cuda_error when the
/// buffers do not fit.
template <typename T>
struct TallSkinnyData {
    TallSkinnyData(std::int64_t n, const std::vector<int>& ks, cudaStream_t stream,
                   const char* who);

    /// Bytes of the kernels' three workspaces for these ks together: mdgm's (dot_workspace),
    /// gram's (gram_workspace) and the largest of gram_batched's (workspace); no device access.
    static std::size_t workspace_bytes(std::int64_t n, const std::vector<int>& ks);

    std::int64_t n;
    int k_max;
    device_buffer<T> V, y, r, B, identity, coefficients;
    device_buffer<double> workspace;  // gram_batched's (it writes all of it from offset 0)
    blas::GramWorkspace gram_workspace;  // gram's own: its ticket counters, zeroed once, are
                                         // out of reach of gram_batched (kernels/tall_skinny.hpp)
    blas::DotWorkspace dot_workspace;  // mdgm's own: its ticket counters, zeroed once, are out
                                       // of reach of the gram kernels (kernels/dot.hpp)
};

/// What one point measured (max_rel_error NaN when not checked).
using TallSkinnyMeasurement = PointMeasurement;

/// Measures `variant` at k (1 <= k <= data.k_max): one warm-up call, then time_point (CUDA
/// events, `repetitions` repetitions of >= min_time seconds; cold with `flush`). With `check`,
/// the warm-up call's output is compared with the CPU reference twin (blas::reference::gemv_t,
/// gemm_rowwise, gram, trsm_right_upper) on its inputs copied back from the device:
/// max_rel_error = max_i |out_i - ref_i| / max_i |ref_i| (gram: the upper triangle, which
/// cuBLAS syrk alone writes), and the point is not timed when it exceeds `tolerance`. `blas` is
/// bound to `stream`, in CUBLAS_POINTER_MODE_HOST. Throws std::invalid_argument for k out of
/// range, kbench::cuda_error on CUDA or cuBLAS failures.
template <typename T>
TallSkinnyMeasurement measure_tall_skinny_point(TallSkinnyVariant variant, int k,
                                                TallSkinnyData<T>& data, cublasHandle_t blas,
                                                cudaStream_t stream, int repetitions,
                                                double min_time, L2Flush* flush, bool check,
                                                double tolerance);

// ---- `kbench bench tall-skinny` ---------------------------------------------------------------

/// Most k of the family: blas::max_block_columns.
int tall_skinny_bench_max_k();

/// The names "tall-skinny/<variant>/<precision>/n=<n>/k=<k>" that a run of `o` measures, in run
/// order (per precision, n and k, every variant), the filter applied. Throws as validate does.
std::vector<std::string> tall_skinny_benchmark_names(const KernelBenchOptions& o);

/// Runs every selected point of `o` (validated first: std::invalid_argument naming the option),
/// each checked against the CPU reference, and returns the results document with id
/// "bench/tall-skinny" (kernel_bench_entry; kernel_bench_error_entry when max_rel_error exceeds
/// bench_tolerance). `machine` (may be null) gives bw_frac_*. Progress on stderr.
nlohmann::json run_tall_skinny_bench(const KernelBenchOptions& o, const MachineProfile* machine);

}  // namespace kbench::harness
