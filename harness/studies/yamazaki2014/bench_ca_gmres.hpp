// The CA-GMRES study of yamazaki2014 on one GPU and, over MPI, on several: GMRES(m) against
// CA-GMRES(s, m) with each TSQR, per restart cycle (Fig. 14, 15), the test matrices with the
// first communication-avoiding cycle's last Gram matrix (Fig. 12), and the TSQR errors inside
// CA-GMRES(20, 30) and (30, 30) (Fig. 13). Double precision; A balanced as yamazaki2014 Sec. VI
// does (rows, then columns, to unit 2-norm); b uniform in [-1, 1) (fixed seed), x0 = 0; converged
// when the relative residual is 1e-4 (the paper's "initial residual reduced by 1e4").
//
// yamazaki2014/fig14 entries ("benchmarks"; one per matrix and method): {"name":
//   "fig14/<matrix>/<method>", "figure": "fig14", "matrix", "paper_matrix", "n", "nnz",
//   "method" ("gmres" | "ca_gmres"), "label" (e.g. "GMRES(30) CGS2", "CA-GMRES(15, 30) CholQR",
//   "GMRES(30) CGS2 low-sync", "CA-GMRES(15, 30) cholqr2 Newton two-stage"), "s", "restart"
//   (m), "orth" (GMRES: "mgs" | "cgs2" | "lowsync"; CA-GMRES: the TSQR, of stage 2 for
//   two-stage rows), "borth" (CA-GMRES: "block" | "two_stage"; GMRES: null), "basis"
//   ("monomial" | "newton" | null), "normalized" (MPK vectors scaled to unit norm), "status",
//   "iterations", "restarts" (cycles run), "seconds" (the whole solve, median of the timed
//   solves), "per_restart_seconds" (seconds x m / iterations: a cycle of m steps), "orth_seconds",
//   "tsqr_seconds", "spmv_seconds" (per restart cycle; CA-GMRES from a detailed solve: Orth =
//   BOrth + TSQR, SpMV = MPK; GMRES: SpMV = m x the measured SpMV time, Orth = the rest),
//   "tsqr_fallbacks", "first_gram_condition", "ritz_top" ([|theta_1|, |theta_2|], the two
//   largest Ritz values in modulus of the first cycle, Newton runs), "speedup" (per restart over
//   GMRES(m) CGS2 of the same GPUs and transport), "gpus" (1; P on several GPUs), and on
//   several GPUs "transport" ("host_staged" | "nccl") and "partition"; names
//   "fig14/<matrix>/P=<P>/<transport>/<method>/..." there. A failed multi-GPU worker leaves
//   one entry {"name": "fig14/<matrix>/P=<P>/<transport>", "figure", "matrix", "gpus",
//   "transport", "error"}.
// yamazaki2014/fig13 entries: {"name": "fig13/<matrix>/s=<s>/<tsqr>", "figure": "fig13",
//   "matrix", "s", "restart", "tsqr", "status", "restarts", "blocks", "fallbacks",
//   "orthogonality" {"mean", "min", "max"} (||I - Q^T Q||_2 of each block's new vectors),
//   "residual" {"mean", "min", "max"} (||V - Q R||_F / ||V||_F), "gram_condition" {...}}.
#pragma once

#include "harness/core/study.hpp"

#include <nlohmann/json.hpp>

namespace kbench::harness {

/// yamazaki2014/fig14 (and fig12, fig15, derived from the same runs): for every matrix of the
/// set, with the restart length and step size yamazaki2014 Fig. 14 used for the paper matrix it
/// stands for, GMRES(m) with MGS and CGS2 and CA-GMRES(1, m) and (s, m) with each TSQR, the
/// monomial basis on the balanced matrix as the paper, and the Newton basis (kbench); then the
/// two methods that superseded the paper's: GMRES(m) with the one-reduce CGS2
/// (solvers::ArnoldiOrth::cgs2_lowsync) and CA-GMRES(s, m) with the two-stage block
/// orthogonalization (solvers::CaBorth::two_stage) on the basis and TSQR of the fastest converged
/// per-block CA-GMRES row of s > 1. A quick run (run.options.quick) runs its MPI workers on at
/// most quick_gpu_ranks GPUs. Schema in the file comment. Throws std::invalid_argument
/// for invalid run.options or matrix set, kbench::cuda_error on CUDA, cuBLAS or cuSOLVER
/// failures.
nlohmann::json run_ca_gmres_study(const StudyRun& run);

/// yamazaki2014/fig13: the TSQR errors of every block inside CA-GMRES(20, 30) and (30, 30) for
/// each TSQR (at most a few restart cycles: the errors are computed on the host), on the first
/// matrix of the set (the stand-in for G3_circuit). Throws as run_ca_gmres_study.
nlohmann::json run_ca_tsqr_error_study(const StudyRun& run);

}  // namespace kbench::harness
