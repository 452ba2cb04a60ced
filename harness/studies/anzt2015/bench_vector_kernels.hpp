// Timing of the dot-product kernels and the fused p update of anzt2015 (Sec. 3.2, 4.3, 4.4,
// 4.5; Figs. 7-10) against their cuBLAS counterparts, double precision, and the runners that
// turn the timings into the results documents of anzt2015/fig7 .. fig10.
//
// Timing method of every point (one variant at one n and k): the vectors are allocated once
// per n and filled with deterministic values, one untimed warm-up call (whose result is checked
// against a long-double sum on the host, stored as max_rel_error; for Figs. 7 and 8 the CPU
// reference twin blas::reference::dot, that sum rounded to double), a calibration that doubles
// the loop count L until L back-to-back calls last >= min_time seconds (L >= 1), then
// `repetitions` repetitions of L calls; seconds per call = elapsed / L, median over the
// repetitions. Elapsed time is taken with CUDA events around the L calls, except for the dot
// sequences of Fig. 10, which end on the host (cuBLAS in host pointer mode synchronizes inside
// every call; the merged sequence copies its 5 results to the host and synchronizes) and are
// timed with the host's steady clock.
// The points of Figs. 7 and 8 are measured by harness/bench/bench_dot.hpp's measure_dot_point,
// the measurement of `kbench bench dot`: fig7/<variant>/double/n=<n>/k=<k> and
// dot/<variant>/double/n=<n>/k=<k> are the same point (fig8's cublas_dot_pair and mdot_pair are
// dot/cublas_dot/.../k=2 and dot/mdot/.../k=2).
// The points of Fig. 9 are measured by harness/bench/bench_bicgstab_kernels.hpp's
// measure_bicgstab_kernel_point, the measurement of `kbench bench bicgstab-kernels`:
// fig9/<variant>/double/n=<n>/k=1 and bicgstab-kernels/<variant>/double/n=<n> are the same point
// (its max_rel_error against the CPU twin bicgstab::reference::p_update).
//
// Entries of the documents' "benchmarks" array (not Google Benchmark aggregates):
//   {"name": "<fig>/<variant>/double/n=<n>/k=<k>", "figure": "fig7".."fig10",
//    "panel": "left"|"right"|"", "variant", "precision": "double", "n", "k",
//    "seconds" (median per call), "flops", "bytes" (model bytes read + written),
//    "GFlops" = flops / seconds * 1e-9, "GBps" = bytes / seconds * 1e-9, "repetitions",
//    "loops" (L), "max_rel_error"}; fig10's merged_sequence entries add "savings".
#pragma once

#include "harness/core/study.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <vector>

namespace kbench::harness {

/// One dot-sequence measurement of anzt2015 Fig. 10 (double precision), for vectors of n
/// elements. Times in seconds per sequence (median); savings = 1 - merged / cublas, a fraction
/// (negative when the merged sequence is slower).
struct DotSequenceTiming {
    std::int64_t n;
    double cublas_seconds;
    double merged_seconds;
    double savings;
};

/// Times the dot products of one BiCGSTAB iteration (anzt2015 Sec. 4.5, Fig. 10 left) for each
/// vector length in `ns`, in order, on five distinct device vectors r_hat, v, t, s, r of n
/// doubles:
///  * cuBLAS: 5 cublasDdot calls in host pointer mode, each returning its value to the host as
///    the reference solver does: r_hat.v, t.s, t.t, r_hat.r, r.r;
///  * merged: 3 kbench::blas::mdot calls with results in device memory (r_hat.v; t.s and t.t
///    sharing t; r_hat.r and r.r sharing r), then one cudaMemcpyAsync of the 5 results to pinned
///    host memory and a stream synchronization.
/// Each: one warm-up sequence, then `repetitions` timed repetitions (host steady clock) of L
/// back-to-back sequences, L >= 1 chosen so that one repetition lasts >= min_time seconds;
/// the median seconds per sequence is reported. Vectors are freed before the next n.
/// Throws std::invalid_argument naming the parameter for an n < 1 or above INT_MAX (cuBLAS's
/// int lengths), repetitions < 1, or min_time < 0 or NaN, before any CUDA call;
/// kbench::cuda_error on CUDA or cuBLAS failures (no device, out of memory).
std::vector<DotSequenceTiming> measure_dot_sequence(const std::vector<std::int64_t>& ns,
                                                    int repetitions, double min_time);

// The runners of the four reproductions. Each returns a full results document
// (make_results_document) with the entries described in the file comment, times every point
// with run.options.repetitions and run.options.min_time, and puts the timing method and the
// measured read bandwidth (run.machine->read_gbps, 0 without a machine profile) into
// context.kbench.vector_kernels. The matrix set of `run` is not used. Progress goes to stderr.
// Each throws std::invalid_argument for invalid run.options (validate), kbench::cuda_error on
// CUDA or cuBLAS failures.

/// anzt2015 Fig. 7: k = 1..16, 20, 24, 28, 32 dot products x_j . y sharing y, for n = 1e5
/// (panel "left") and 1e6 ("right"): k cublasDdot calls (device pointer mode, variant
/// cublas_dot), one mdot call with k pairs (mdot), mdgm on the n x k column-major V (mdgm) and
/// cublasDgemv CUBLAS_OP_T on the same V with lda = n (cublas_gemv). Flops 2nk for each.
nlohmann::json run_dot_vectors_study(const StudyRun& run);

/// anzt2015 Fig. 8. Left: one dot product (cublas_dot: cublasDdot, device pointer mode; mdot:
/// one mdot call, k = 1) and two sharing y (cublas_dot_pair: two cublasDdot calls; mdot_pair:
/// one mdot call with the pairs x1.y, x2.y), n = 1e3 .. 1e8 at half decades (11 points).
/// Right: mdgm vs cublas_gemv (as in Fig. 7) for n = 1e3 .. 1e7 at half decades and
/// k in {1, 2, 4, 8, 16, 32}.
nlohmann::json run_dot_length_study(const StudyRun& run);

/// anzt2015 Fig. 9: the BiCGSTAB p update p = r + beta (p - omega v) as three cuBLAS calls
/// (cublas_p_update: scal p = beta p; axpy p += -beta omega v; axpy p += r, host scalars) and as
/// the fused kbench::bicgstab::p_update (p_update), n = 1e3 .. 1e8 at half decades. Flops 4n for
/// both (the algorithm's: 2 multiplies and 2 adds per element); bytes from anzt2015 Table 1 via
/// models::kernel_bytes: cuBLAS (5n + 3) reads + 3n writes, fused (3n + 4) reads + n writes.
nlohmann::json run_p_update_study(const StudyRun& run);

/// anzt2015 Fig. 10: measure_dot_sequence at 16 log-spaced n in 1e3 .. 1e8 (entries
/// cublas_sequence and merged_sequence, the latter with "savings"; flops 10n for both, bytes
/// 10n (cuBLAS) and 6n (merged) doubles read + 5 written), and the fit of
/// F(n) = (1 / (a n + b) + c) / 100 to the measured savings (models::fit_dot_savings) next to the
/// paper's in context.kbench.dot_savings_fit = {"paper": {a, b, c}, "refit": {a, b, c} or
/// {"error": message}}.
nlohmann::json run_dot_savings_study(const StudyRun& run);

}  // namespace kbench::harness
