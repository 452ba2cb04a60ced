// The peers study (issue 28): kbench's GMRES(m) on one GPU against CuPy's gmres (GPU, cuSPARSE
// SpMV) and SciPy's (CPU) on the same systems: b = A * ones, x0 = 0, restart m = 30, tolerance
// 1e-8 on ||b - A x|| / ||b||, at most 600 Arnoldi steps. The peers run through
// analysis/peer_solvers.py (which says how each library counts its steps); a peer that is not
// installed gives an entry with "skipped" and the reason.
//
// peers/gmres entries ("benchmarks"; one per matrix and implementation):
// {"name": "gmres/<matrix>/<key>", "figure": "gmres", "matrix", "n", "nnz", "key"
//  ("kbench_cgs2", "kbench_lowsync", "cupy", "scipy"), "implementation" (its label), "device"
//  ("gpu" | "cpu"), "restart", "tolerance", "steps" (Arnoldi steps), "spmvs" (peers: products
//  A v counted), "seconds" (host wall time of the whole solve call, median of the repetitions
//  after an untimed one), "seconds_per_step", "true_residual" (||b - A x|| / ||b|| recomputed),
//  "status", "version" (peers: the library's), "step_counting" (peers), "skipped" (a reason; the
//  other fields absent)}.
// context.kbench.peers: {restart, tolerance, max_steps, repetitions {gpu, cpu}, python, notes}.
#pragma once

#include "harness/core/study.hpp"

#include <nlohmann/json.hpp>

namespace kbench::harness {

/// peers/gmres: for every matrix of the set, kbench GMRES(30) with CGS2 and with the one-reduce
/// low-synchronization CGS2 (auto SpMV), then CuPy's and SciPy's gmres through analysis/peer_solvers.py
/// on the same Matrix Market file (written to the cache directory). Schema in the file comment.
/// Progress on stderr. Throws std::invalid_argument for invalid run.options or set,
/// kbench::cuda_error on CUDA failures, std::runtime_error when a peer's output is not JSON.
nlohmann::json run_peers_gmres_study(const StudyRun& run);

}  // namespace kbench::harness
