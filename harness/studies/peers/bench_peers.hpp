// The peers study (issue 28): kbench's GMRES(m) and BiCGSTAB on one GPU against CuPy's (GPU,
// cuSPARSE SpMV) and SciPy's (CPU) same solver on the same systems: b = A * ones, x0 = 0,
// tolerance 1e-8 on ||b - A x|| / ||b||; GMRES: restart m = 30, at most 600 Arnoldi steps;
// BiCGSTAB: at most 500 iterations. The peers run through analysis/peer_solvers.py (which says
// how each library counts its steps); a peer whose library, or the solver in it (a CuPy older
// than bicgstab's), is missing gives an entry with "skipped" and the reason.
//
// Entries ("benchmarks"; one per matrix and implementation):
// {"name": "<solver>/<matrix>/<key>", "figure": "gmres" | "bicgstab", "matrix", "n", "nnz",
//  "key" ("kbench_cgs2", "kbench_lowsync" | "kbench_merged", "kbench_graph"; "cupy", "scipy"),
//  "implementation" (its label), "device" ("gpu" | "cpu"), "restart" (gmres), "tolerance",
//  "steps" (Arnoldi steps, or iterations), "spmvs" (peers: products
//  A v counted), "seconds" (host wall time of the whole solve call, median of the repetitions
//  after an untimed one), "seconds_per_step", "true_residual" (||b - A x|| / ||b|| recomputed),
//  "status", "version" (peers: the library's), "step_counting" (peers), "skipped" (a reason; the
//  other fields absent)}.
// context.kbench.peers: {solver, restart (gmres; else null), tolerance, max_steps, repetitions
// {gpu, cpu}, python, notes}.
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

/// peers/bicgstab: for every matrix of the set, kbench BiCGSTAB in its merged and graph forms (auto
/// SpMV, at most 500 iterations), then CuPy's (skipped where the installed CuPy has none; 14.x has
/// one) and SciPy's bicgstab through analysis/peer_solvers.py. Schema and errors as
/// run_peers_gmres_study.
nlohmann::json run_peers_bicgstab_study(const StudyRun& run);

}  // namespace kbench::harness
