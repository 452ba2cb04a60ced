// The orthogonalization study of yamazaki2014 Sec. V: the loss of orthogonality of every TSQR
// method against the condition number of its block (Fig. 10), and the throughput of the
// tall-skinny kernels and TSQR methods against cuBLAS / cuSOLVER over the row and column counts
// (Sec. V-F, Fig. 11). Double precision; no matrix set is used.
//
// yamazaki2014/fig10 entries ("benchmarks" array; one per method, device and kappa):
//   {"name": "fig10/<method>/<gpu|cpu>/kappa=<kappa>", "figure": "fig10", "method",
//    "device": "gpu" | "cpu", "kappa", "n", "k", "status" (ortho::to_string), "failed_column"
//    (-1 when ok), "detail" (empty when ok), "orthogonality" = ||I - Q^T Q||_2, "residual" =
//    ||V - Q R||_F / ||V||_F (both null when Q or R is not finite), "expected_order"
//    ("eps kappa" | "eps kappa^2" | "eps")}.
// yamazaki2014/fig11 entries (one per kernel variant and (n, k)):
//   {"name": "fig11/<kernel>/<variant>/double/n=<n>/k=<k>", "figure": "fig11",
//    "sweep": "rows" | "columns", "kernel": "gemv_t" | "gemv_n" | "gram" | "trsm" | "tsqr",
//    "variant", "precision": "double", "n", "k", "seconds" (median per call), "flops", "bytes",
//    "GFlops", "GBps", "fraction_of_bandwidth" (GBps / measured read GB/s; null without a
//    machine profile), "repetitions", "loops" (calls per timed sample)}; tsqr entries add
//    "event_seconds" (median CUDA-event time), "status" and "detail" of the warm-up call; a
//    variant that could not run has null times and rates and an "error" message.
// The gemv_t, gemv_n, gram and trsm points are measured by harness/bench/bench_tall_skinny.hpp's
// measure_tall_skinny_point, the measurement of `kbench bench tall-skinny`:
// fig11/<kernel>/<variant>/double/n=<n>/k=<k> is tall-skinny/<variant>/double/n=<n>/k=<k>
// (cublas_dgemm, cublas_dsyrk, cublas_dtrsm there are cublas_gemm, cublas_syrk, cublas_trsm);
// the tsqr points by harness/bench/bench_tsqr.hpp's measure_tsqr_point (`kbench bench tsqr`):
// fig11/tsqr/<variant>/double/n=<n>/k=<k> is tsqr/<variant>/double/n=<n>/k=<k>.
#pragma once

#include "harness/bench/bench_tsqr.hpp"
#include "harness/core/study.hpp"
#include "solvers/orthogonalization/tsqr.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>

namespace kbench::harness {

/// Rows of the Fig. 10 test blocks: large enough for tall-skinny behaviour (n >> k), small
/// enough for the CPU references and the host-side quality measures (a few seconds per kappa).
inline constexpr std::int64_t tsqr_quality_rows = 100000;
/// Rows of the Fig. 10 blocks in a quick run (`kbench reproduce --quick`).
inline constexpr std::int64_t tsqr_quality_rows_quick = 10000;

/// Columns of the Fig. 10 blocks and of the Fig. 11 row sweep: the paper's s + 1 = 30.
inline constexpr int tall_skinny_columns = 30;

/// Loss-of-orthogonality order of a method for a block of condition number kappa, as the
/// comments of solvers/orthogonalization/tsqr.hpp state them: "eps kappa" (mgs), "eps kappa^2"
/// (cgs, cholqr, svqr) or "eps" (cgs2 while eps kappa < 1, cholqr2 while eps kappa^2 < 1, caqr,
/// shifted_cholqr3 up to kappa ~ 1 / (n k eps)). yamazaki2014 Fig. 10 lists eps kappa^s for CGS.
const char* tsqr_expected_order(ortho::TsqrMethod method);

// tsqr_effective_flops(n, k) and tsqr_pass_columns(method, k), the models of the tsqr entries,
// are harness/bench/bench_tsqr.hpp's (shared with `kbench bench tsqr`).

/// yamazaki2014 Fig. 10: for kappa in {1e1, 1e3, ..., 1e15}, the block
/// ortho::conditioned_block(tsqr_quality_rows (quick: tsqr_quality_rows_quick),
/// tall_skinny_columns, kappa, seed) factored by
/// every method of ortho::tsqr_methods() on the GPU (ortho::tsqr, CAQR with its default
/// block_rows) and on the CPU (ortho::reference::tsqr), measured with ortho::tsqr_quality.
/// Entries as in the file comment; context.kbench.tsqr_quality holds the setup (n, k, kappas,
/// seed, expected orders). Progress on stderr. Throws std::invalid_argument for invalid
/// run.options, kbench::cuda_error (or std::runtime_error) on CUDA, cuBLAS or cuSOLVER failures.
nlohmann::json run_tsqr_quality_study(const StudyRun& run);

/// yamazaki2014 Fig. 11 (Sec. V-F), on well-conditioned blocks (uniform random values):
/// sweep "rows": n in {1e4, 3e4, ..., 1e8} at k = tall_skinny_columns; sweep "columns":
/// k in {1, 2, 4, 8, 16, 24, 30, 32, 48, 64} at n = 1e7 (the point n = 1e7, k = 30 is measured
/// once, in the row sweep). A quick run (run.options.quick) takes n <= 1e6 in both sweeps and
/// 5 of the k. Per (n, k): gemv_t r = V^T y (mdgm, per_column, cublas_gemv_t),
/// gemv_n y -= V r (gemm_rowwise, cublas_gemv_n), gram V^T V (gram, gram_batched with h = 1024,
/// cublas_dgemm, cublas_dsyrk), trsm V := V R^-1 (trsm_right_upper, cublas_dtrsm) and tsqr
/// (every ortho::tsqr_methods() method, plus cusolver_qr = CAQR with one block of n rows).
/// Timing method in context.kbench.tall_skinny and in the definition's comments. A size whose
/// buffers do not fit in free device memory is skipped with a note on stderr and in
/// context.kbench.tall_skinny.skipped. Throws as run_tsqr_quality_study does.
nlohmann::json run_tall_skinny_study(const StudyRun& run);

}  // namespace kbench::harness
