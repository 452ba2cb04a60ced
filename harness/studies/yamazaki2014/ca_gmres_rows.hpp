// What the yamazaki2014 Fig. 14 runs share between one GPU
// (harness/studies/yamazaki2014/bench_ca_gmres.cpp, in process) and several (the `kbench dist
// ca-gmres` MPI worker, harness/studies/yamazaki2014/dist_ca_gmres_worker.cpp): the paper's
// restart length and step size per matrix, the balanced system's right-hand side, the solver
// options of each row, and the row (one fig14 entry, schema in
// harness/studies/yamazaki2014/bench_ca_gmres.hpp) made from a solve's result and times.
#pragma once

#include "matrices/matrix_set.hpp"
#include "solvers/orthogonalization/tsqr.hpp"
#include "solvers/ca_gmres.hpp"
#include "solvers/gmres.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace kbench::harness::fig14 {

/// yamazaki2014 Sec. VI: converged when the initial residual is reduced by 1e4.
constexpr double tolerance = 1e-4;
/// Seed of b's uniform values (every run and rank draws the same b).
constexpr std::uint64_t rhs_seed = 2014;
/// Restart cycles per solve at most (the figure reports times per cycle).
constexpr int restart_cap = 10;
/// Full restart cycles the timed solves of a row run at least: the figure reports a time per
/// restart, and a solve that converges within its first cycle would time one partial cycle.
constexpr int min_timed_cycles = 3;

/// How a row's timed solves run, from the iterations of its untimed solve to the tolerance:
/// 0 (to the tolerance, like that solve) when it ran at least min_timed_cycles cycles of m
/// steps, else min_timed_cycles * m iterations in timing mode (the convergence test off;
/// breakdowns still stop a solve). Throws std::invalid_argument for m < 1.
int timed_iterations(int converged_iterations, int m);

/// The restart length m and step size s yamazaki2014 Fig. 14 used for a paper matrix (the best
/// m of 30..180 on one GPU; s = 15, nlpkkt120 s = 10), as the matrix set's entry gives them.
struct PaperSetup {
    std::string matrix;  // paper matrix name; empty when the entry names none
    int m = 0;
    int s = 0;
};

/// The setup of a matrix-set entry: its "study" object's "restart" (m) and "steps" (s),
/// integers with 1 <= s <= m, and optional "paper_matrix" (a string), e.g.
/// "study": {"paper_matrix": "G3_circuit", "restart": 30, "steps": 15}. Throws
/// std::invalid_argument naming `manifest` (the set's file) and the entry when the entry has no
/// "study", or its "restart" or "steps" is missing or out of range.
PaperSetup paper_setup(const MatrixEntry& entry, const std::string& manifest);

/// b of the balanced system D_r A D_c y = D_r b: uniform [-1, 1) values (rhs_seed) times the
/// row scales D_r of solvers::balance (global numbering, one entry per row).
std::vector<double> balanced_rhs(const std::vector<double>& row_scale);

/// One per-block CA-GMRES configuration of the figure.
struct CaConfig {
    int s = 1;
    ortho::TsqrMethod tsqr = ortho::TsqrMethod::cholqr2;
    solvers::CaBasis basis = solvers::CaBasis::monomial;
    bool normalized = false;  // MPK vectors scaled to unit norm (kbench's Newton rows)
};

/// The per-block rows of a matrix whose paper step size is s: CA-GMRES(1, m) CholQR2, then
/// (s, m) with the monomial basis and each TSQR (gram_only: the Gram-based ones that run on
/// several ranks, CholQR, CholQR2, SVQR and shifted CholQR3; otherwise the one-GPU set CGS2,
/// CholQR, CholQR2, SVQR, CAQR), then the normalized Newton basis with CholQR2 (kbench).
std::vector<CaConfig> ca_configs(int s, bool gram_only);

/// The GMRES(m) options of a row: tolerance, m x restart_cap iterations, `orth`; with
/// fixed_iterations > 0 (timed_iterations) timing mode for exactly that many iterations.
solvers::GmresOptions gmres_options(int m, solvers::ArnoldiOrth orth, int fixed_iterations = 0);

/// The CA-GMRES(s, m) options of a row: tolerance, m x restart_cap iterations, the
/// configuration's basis and TSQR, block CGS with two passes, `borth`; a block whose TSQR fails
/// is redone by shifted CholQR3 (stable to kappa ~ 1/eps with three Gram passes, and it runs on
/// several ranks; with CAQR as the fallback, the monomial CholQR2 row of the G3_circuit stand-in
/// took 8x as long on one H100, d5a59de). fixed_iterations as for gmres_options.
solvers::CaGmresOptions ca_options(const CaConfig& c, int m, solvers::CaBorth borth,
                                   int fixed_iterations = 0);

/// Timed solves of a row after an untimed one of warmup_seconds: enough for about 0.5 s of
/// solves (short solves are noisy), at least 2 and at most max_repetitions (1 when that is 1).
int timed_repetitions(double warmup_seconds, int max_repetitions);

/// A cycle of m steps from a solve's seconds: seconds x m / iterations (NaN for 0 iterations).
double per_cycle(double seconds, int iterations, int m);

/// The fig14 fields of a GMRES(m) row (name suffix "gmres/<orth>", method, label, s = 1,
/// restart, orth, status, iterations, restarts, seconds, timed_iterations, timing_mode,
/// per_restart_seconds, spmv_seconds and orth_seconds = per restart minus SpMV; the
/// CA-GMRES-only fields null). r: the untimed solve to the tolerance (status, iterations,
/// restarts); seconds: the timed solves' median, over timed_iterations iterations each (in
/// timing mode when they differ from r's, see fig14::timed_iterations); spmv_cycle_seconds: the
/// SpMV time of one cycle (m SpMVs, with their halo exchanges on several ranks). No "speedup":
/// the caller sets it against its GMRES CGS2 row.
nlohmann::json gmres_row(int m, solvers::ArnoldiOrth orth, const solvers::SolveResult& r,
                         double seconds, int timed_iterations, double spmv_cycle_seconds);

/// The fig14 fields of a CA-GMRES(c.s, m) row (name suffix "ca_gmres/s=<s>/<basis>/<tsqr>[/
/// two_stage]", label, the configuration, status, iterations, restarts, seconds,
/// per_restart_seconds, orth_seconds = BOrth + TSQR, tsqr_seconds, spmv_seconds = MPK, each per
/// cycle from the phases of the detailed solve `d`, tsqr_fallbacks, first_gram_condition,
/// ritz_top, timed_iterations, timing_mode). r: the untimed solve to the tolerance; seconds:
/// the median of the timed solves of timed_iterations iterations each; d: a detailed solve run
/// like the timed ones. No "speedup".
nlohmann::json ca_row(int m, const CaConfig& c, solvers::CaBorth borth,
                      const solvers::CaGmresResult& r, double seconds, int timed_iterations,
                      const solvers::CaGmresResult& d);

/// Seconds of a solve's phases named `name` (solvers::SolveResult::phases), summed.
double phase_seconds(const std::vector<solvers::PhaseTime>& phases, const char* name);

/// A value for JSON: v, or null when it is not finite.
nlohmann::json finite_or_null(double v);

}  // namespace kbench::harness::fig14
