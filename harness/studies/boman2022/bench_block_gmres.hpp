// The block GMRES study of boman2022: s x GMRES (s single-vector solves one after another)
// against block GMRES (BGMRES) and pseudo-block GMRES for s right-hand sides, on the GPU and on
// the CPU, non-restarted and restarted; the latency-bandwidth model of the block speedup with
// alpha, beta, gamma calibrated on the machine; and the vanbody table (iterations vs number of
// right-hand sides and restart length). Double precision, random right-hand sides (fixed seed),
// x0 = 0, tolerance 1e-8 on every column's relative residual.
//
// boman2022/speedup and boman2022/model entries ("benchmarks"; one per device, matrix, restart
// and s): {"name": "speedup/<device>/<matrix>/restart=<r|none>/s=<s>", "figure": "speedup",
//   "device": "gpu" | "cpu", "matrix", "n", "nnz", "restart" (block steps per cycle; null: not
//   restarted), "s", "gmres_seconds" (sum of the first s single solves), "gmres_iterations"
//   (mean steps per solve), "gmres_status" ("converged" when all did, else the first other),
//   "bgmres_seconds", "bgmres_iterations" (block steps), "bgmres_status", "pseudo_seconds",
//   "pseudo_iterations" (steps), "pseudo_status", "speedup_block" (gmres / bgmres seconds, null
//   unless both converged), "speedup_pseudo", "model_speedup_block", "model_speedup_pseudo"
//   (models/block_gmres_model.hpp with the measured iteration counts), "model_speedup_block_s1",
//   "model_speedup_pseudo_s1" (with the s = 1 count for every method and s), and "skipped" (a
//   reason; times null) for points left out by the CPU time budget}.
// context.kbench.boman2022: {tolerance, seed, s_values {gpu, cpu}, restarts {gpu, cpu},
//   iteration_cap, basis_cap, repetitions {gpu, cpu}, cpu_budget_seconds, cpu_threads,
//   costs {gpu|cpu: {matrix: {alpha, alpha_block, alpha_pseudo, beta, gamma {s: value},
//   gamma_lsq {s: value} (host least squares, seconds per flop; absent in older results)}}},
//   spmv {matrix: choice},
//   notes}.
// boman2022/vanbody entries: {"name": "vanbody/<matrix>/s=<s>/restart=<r>", "figure": "vanbody",
//   "device": "gpu", "matrix", "n", "nnz", "s", "restart", "block_steps", "total_iterations"
//   (block steps x s), "status", "seconds", "paper_total_iterations" (boman2022's vanbody value
//   for that s, null for an s it did not run)}.
#pragma once

#include "harness/core/study.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <vector>

namespace kbench::harness {

/// boman2022/speedup (and boman2022/model, the same measurements): for every matrix of the set,
/// the calibration of alpha, beta and gamma on the GPU and the CPU, then per device and restart
/// length the s single GMRES solves, BGMRES and pseudo-block GMRES at each s of the grid, with
/// the model's speedups next to the measured ones. Schema in the file comment. Progress on
/// stderr. Throws std::invalid_argument for invalid run.options or matrix set, kbench::cuda_error
/// on CUDA, cuBLAS, cuSPARSE or cuSOLVER failures.
nlohmann::json run_block_speedup_study(const StudyRun& run);

/// boman2022/vanbody: BGMRES on the GPU for s in {5, 10, 20, ..., 60, 64} right-hand sides with
/// the restart length boman2022 paired with each s (about 4270 / s block steps: a basis of about
/// 4270 vectors), on the one matrix of the set (the stand-in for vanbody, n = 47,072, which is
/// not available here); s = 70 exceeds the GPU kernels' 64 columns and is not run. Schema in the
/// file comment. Throws as run_block_speedup_study, and std::invalid_argument when the set does
/// not hold exactly one matrix.
nlohmann::json run_vanbody_study(const StudyRun& run);

/// The right-hand sides of boman2022/speedup and /vanbody: an n x s block (column-major, ld n)
/// of uniform [-1, 1) values from a fixed seed (2022); column k is the same for every s, so a
/// run with fewer columns solves the first columns of a larger one. `kbench peers belos` solves
/// the same block. Throws std::invalid_argument for n < 0 or s < 1.
std::vector<double> boman2022_right_hand_sides(std::int64_t n, int s);

}  // namespace kbench::harness
