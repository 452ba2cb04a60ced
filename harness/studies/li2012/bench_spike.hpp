// The SPIKE::GPU study of li2012: truncated SPIKE as the preconditioner of BiCGStab for banded,
// diagonally dominant systems (solvers/spike/spike_bicgstab.hpp), against LAPACK dgbsv on the
// CPU (1 thread and all cores, when built: KBENCH_HAVE_LAPACKE; OpenBLAS's banded LU is serial,
// so its all-cores run is no faster), the same SPIKE+BiCGStab on the CPU with OpenMP over every
// core (spike_bicgstab_omp: the multi-core CPU baseline) and cuDSS on the GPU (when built:
// KBENCH_HAVE_CUDSS). Every matrix is li2012's random banded matrix, generated
// (matrices/generators.hpp: banded(N, K, d, seed)), so no matrix set is used (--set, --cold and
// --min-time are ignored; --repetitions caps the timed repetitions). Double precision values,
// right-hand side uniform in [-1, 1) (seed 2012), BiCGStab tolerance 1e-8 on the inf-norm
// relative residual (li2012 Sec. 1.4), d = 1 unless stated (li2012 Sec. 2.5: "degree of
// diagonal dominance 1.0"), matrix seed 1 unless stated. Timings: one warm-up solve, then up
// to --repetitions timed solves within a per-point budget, median.
//
// Every entry has "name", "figure" (the id's item: "table1", "table3", "fig4", "fig5", "fig6",
// "mixed"), "n", "K", "d", "seed", "signs" (banded()'s off-diagonal signs, "random" |
// "negative"; absent in results written before it: "random"); times are seconds; "model_seconds"
// is the prediction of models/spike_model.hpp (phase roofline with the measured machine figures,
// the measured iteration count; context.kbench.li2012.model says which figures). A point left out
// has "skipped" (the reason) and null times; a run that failed has "error" (the message).
//
// SPIKE+BiCGStab fields ("spike" below): "psize" (the one used; automatic when asked 0),
// "psize_requested" (0: automatic), "partitions", "iterations", "status" (SolveStatus, or
// "zero_pivot" with "detail" the factorization message), "true_residual", "precision"
// ("double" | "mixed"), "seconds" (median of the solver's total_seconds: copy of the band to
// the device, factorization, BiCGStab), "factor_seconds", "wall_seconds" (median host wall
// time around the call, with the solver's host-side setup: the CSR copy of the band for its
// SpMV operator), "repetitions", "warm_up" (false: the first solve took the point budget and is
// the one timed), "model_seconds", "model_bytes", "model_flops".
//
// li2012/table1 entries: {"name": "table1/d=<d>/seed=<s>" (random signs) |
//   "table1/negative/d=<d>/seed=<s>" (an M-matrix), "figure": "table1", n, K, d, seed, signs,
//   "psize", "partitions" (the automatic choice of the BiCGStab solve, used for every residual),
//   "decay_d_min", "decay_rho" (what the chooser saw, as the solve reports it in
//   SpikeBicgstabResult::psize_decay: d_min and effective rho; 1: no decay), "truncation_estimate"
//   (models::spike::truncation_error at psize),
//   "residual_inf" (||b - A z||_inf / ||b||_inf, z = M^-1 b, one apply of truncated SPIKE in
//   double on the GPU, li2012 footnote 2), "residual_2" (the same in 2-norms),
//   "residual_inf_mixed" (the preconditioner in float, li2012 Sec. 2.4), "residual_inf_cpu"
//   (SpikeReference<double>), "residual_inf_corner_ul" (li2012 Sec. 2.2's tips: the UL of the
//   top 2K x 2K corner, SpikeTips::corner_ul), "iterations_corner_ul", "status_corner_ul" (the
//   solve with those tips), and the spike fields of the (exact-tips) solve}.
// li2012/table3 entries: {"name": "table3/<kind>/N=<n>/psize=<p>", "figure": "table3", "kind":
//   "sweep" (a psize of the hand-tuning grid) | "auto" (psize 0) | "ill_tuned" (min(2048, N/2):
//   li2012's min(2048, N) within psize <= N/2) | "remainder" (li2012 Fig. 3: N = 8192 and 8191
//   at psize 2048), n, K = 32, d, seed, spike fields}.
// li2012/fig4 and li2012/fig5 entries: {"name": "<fig>/<method>/N=<n>/K=<K>", "figure",
//   "method": "spike_double" | "spike_mixed" (spike fields) | "dgbsv_1thread" | "dgbsv_all_cores"
//   ("threads", "seconds" (median dgbsv call), "repetitions", "status" ("ok" | "singular"),
//   "residual" (||b - A x||_inf / ||b||_inf), "model_flops", "model_bytes" (models::spike::gbsv,
//   worst-case fill), "gflops" (model_flops / seconds), "model_seconds" (model_flops at
//   "model_gflops", the rate of the series' previous measured point; null for its first: no
//   CPU flop rate is measured otherwise)) | "spike_cpu_all_cores" (SPIKE+BiCGStab in double on
//   the CPU, OpenMP over the partitions on every core: "threads" (those the partitions ran on),
//   "threads_requested" (the cores), "openmp" (false: built without OpenMP, one thread),
//   "precision": "double", "psize", "partitions" (one per thread:
//   solvers::spike::cpu_partition_count), "iterations", "status" (as the spike fields), "detail",
//   "true_residual", "residual" (||b - A x||_inf / ||b||_inf recomputed), "seconds" (median of
//   the solver's total_seconds: factorization and iterations), "factor_seconds", "repetitions",
//   "predicted_seconds" (the budget's extrapolation), "model_seconds": null; absent in results
//   written before it) | "cudss_full" (analysis + factorization + solve) |
//   "cudss_solve" (solve alone) ("seconds", "analysis_seconds", "factorization_seconds",
//   "solve_seconds", "lu_nnz", "info", "status" ("ok" | "failed"), "residual", "repetitions",
//   "predicted_seconds" (the budget's extrapolation), "model_seconds": null: kbench has no cuDSS
//   model), n, K, d, seed}. A baseline point whose predicted time (the previous point's
//   seconds scaled by the gbsv flops) exceeds the point budget or what is left of the series
//   budget is "skipped".
// li2012/fig6 entries: {"name": "fig6/psize=<requested|auto>", "figure": "fig6", n = 8e5,
//   K = 32, spike fields of a detailed solve ("seconds" its total), "undetailed_seconds" (median
//   of plain solves), "phases": [{"name" (the solver's: "LU/UL", "spikes", "reduced system",
//   "BiCGStab SpMV", "preconditioner", "other"), "group" ("setup" | "iteration"), "seconds",
//   "calls", "model_seconds" (the model phases of that name, see context notes)}]}; one
//   entry at li2012's psize = 2048 (Fig. 6), one at the automatic psize.
// li2012/mixed entries: {"name": "mixed/N=<n>/K=<K>/d=<d>" (random signs; negative ones end in
//   "/signs=negative"), "figure": "mixed", n, K, d, seed, signs,
//   "psize_double", "psize_mixed", "partitions_double", "partitions_mixed", "seconds_double",
//   "seconds_mixed", "factor_seconds_double", "factor_seconds_mixed", "iterations_double",
//   "iterations_mixed", "status_double", "status_mixed", "true_residual_double",
//   "true_residual_mixed", "transfer_seconds_double", "transfer_seconds_mixed" (the copy of the
//   band to the GPU, inside seconds_*), "speedup" (seconds_double / seconds_mixed, null unless
//   both converged), "device_speedup" (the same without the copies: what the model counts; absent
//   in results written before it), "model_seconds_double", "model_seconds_mixed",
//   "model_speedup", "repetitions"}.
// context.kbench.li2012: {"tolerance", "norm": "inf", "rhs_seed", "matrix_seed", "d",
//   "max_iterations", "repetitions_cap", "point_budget_seconds", "cpu_point_budget_seconds",
//   "cpu_series_budget_seconds", "baselines": {"dgbsv", "spike_cpu", "cudss"} (built or why
//   not; "spike_cpu": with or without OpenMP, absent in results written before it),
//   "cpu_threads", "model": {"bandwidth_gbs", "fp64_gflops", "fp32_gflops", "launch_seconds",
//   "sm_count", "how"}, "paper": {"table1": {d: percent}, "table3": {N: [hand ms, ill ms]},
//   "fig3_degradation": 0.645, "fig4_speedup_over_mkl": [2.1, 3.1], "mixed_speedup": [1.15,
//   1.25], "gpu"}, the id's grid ("n", "K", "d_values", "seeds", "signs_values", "n_values",
//   "k_values", "psize_grids", "remainder", "psizes", "points" (with "signs")), "notes"}.
#pragma once

#include "harness/core/study.hpp"
#include "matrices/csr.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <vector>

namespace kbench::harness {

namespace li2012 {

/// li2012 Table 3's ill-tuned partition size min(2048, N), brought within psize <= N/2 (li2012
/// Sec. 1.2: larger leaves one partition) and psize >= 2K. Throws std::invalid_argument when
/// N < 4K (no valid psize).
index_type ill_tuned_psize(index_type n, index_type K);

/// The hand-tuning grid of li2012/table3: 2K, then 64 x 1.5^k rounded to multiples of 32 (64,
/// 96, 128, 192, 288, ...) and N/2, every value within [2K, N/2], sorted, no duplicates.
/// Throws std::invalid_argument when N < 4K.
std::vector<index_type> psize_grid(index_type n, index_type K);

/// Whether a CPU baseline point is run under the time budget: `predicted_s` its predicted
/// seconds (<= 0: unknown, run it), `used_s` the seconds the series has spent. Returns the
/// reason to skip it, empty to run it.
std::string budget_skip_reason(double predicted_s, double used_s, double point_budget_s,
                               double series_budget_s);

}  // namespace li2012

/// li2012/table1: truncated SPIKE's relative residual after one apply vs d = 1..1e4 (3 seeds,
/// N = 1e5, K = 32, random signs and an M-matrix) and the SPIKE+BiCGStab iterations. Schema in the
/// file comment. Progress on stderr. Throws std::invalid_argument for invalid run.options,
/// kbench::cuda_error on CUDA failures.
nlohmann::json run_spike_residual_study(const StudyRun& run);

/// li2012/table3: hand-tuned (best of psize_grid), automatic and ill-tuned psize, N = 2e3..1e5,
/// K = 32; plus li2012 Fig. 3's N = 8192 / 8191 pair at psize 2048. Throws as above.
nlohmann::json run_spike_psize_study(const StudyRun& run);

/// li2012/fig4 (time vs N = 1e4..1e7 at K = 32) and li2012/fig5 (time vs K = 1..256 at N = 4e5),
/// chosen by run.id: SPIKE+BiCGStab double and mixed, dgbsv 1 thread and all cores,
/// SPIKE+BiCGStab on the CPU's cores (OpenMP), cuDSS, under time budgets. Throws as above.
nlohmann::json run_spike_scaling_study(const StudyRun& run);

/// li2012/fig6: the phases of a detailed SPIKE+BiCGStab solve, N = 8e5, K = 32, at psize 2048
/// and at the automatic psize, with the model's time per phase. Throws as above.
nlohmann::json run_spike_phases_study(const StudyRun& run);

/// li2012/mixed: SPIKE+BiCGStab with the preconditioner in double vs in float (li2012 Sec.
/// 2.4), over a few (N, K, d). Throws as above.
nlohmann::json run_spike_mixed_study(const StudyRun& run);

}  // namespace kbench::harness
