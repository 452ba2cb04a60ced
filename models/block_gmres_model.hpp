// The latency-bandwidth runtime model of boman2022 (slides "Theoretical Runtime Model", after
// Hoemmen): block GMRES (BGMRES) with s right-hand sides against s x GMRES (s solves one after
// the other), and kbench's extension to pseudo-block GMRES (s Krylov spaces advanced together,
// as Trilinos Belos' PseudoBlockGmres does). A message of w words costs alpha + beta w, f flops
// cost gamma f. Iteration counts are inputs: boman2022 feeds measured counts m(s) into the model.
//
// Where each term comes from (the paper is a slide deck: slide titles, not section numbers):
//  - the two formulas: slide "Theoretical Runtime Model" (second one),
//      Time_BGMRES ~ alpha m + beta nz m + gamma (2 nz m s + 2 n m^2 s^2 + 2 n m s^2)
//      Time_GMRES  ~ alpha m s + beta nz m s + gamma (2 nz m s + 2 n m^2 s + 3 n m s);
//  - which line of which algorithm each term counts: slide "Comparison of Block vs Non-Blocked
//    GMRES" (Algorithm BGMRES, Algorithm s x GMRES), its "Key differences" (s-fold reads of A,
//    s-fold orthogonalization flops) and Observations 1-3.
// Mapping of the paper's parameters (kept as the paper has them):
//  - alpha is paid once per Arnoldi step (block step for BGMRES), although a step has several
//    reductions: alpha is the latency of one whole step (on a GPU: its kernel launches plus its
//    reductions' round trips), not of one launch.
//  - beta multiplies nz words per SpMV / SpMM: only A's values are counted (no column indices, no
//    row pointers, no basis vectors). Calibrated from a streaming bandwidth BW (bytes/s) and a
//    CSR matrix with 8-byte values and 4-byte indices, beta = 12 / BW per non-zero reproduces the
//    bytes actually read.
//  - the orthogonalization term counts one Gram-Schmidt pass (the paper's algorithms: one loop of
//    W^T V_i and W - V_i H_ij per step); a CGS2 solver does two, which a gamma calibrated on the
//    solver's own orthogonalization kernels absorbs only for that term.
//  - restarts are kbench's extension: the paper's formula is for m steps without restart (its
//    m^2); with restart length r, the basis sum runs over complete cycles (see basis_sum).
//  - the host least squares is kbench's extension (issue 9): the paper's model leaves out the
//    Givens QR of the (band) Hessenberg matrix, which kbench's solvers run on the host; at
//    s >= 32 it is the largest phase of a GPU block step. lsq_flops counts it, gamma_host
//    prices it; gamma_host = 0 (the default) is the paper's model.
//
// Units: seconds, words (one value of the solver's precision), flops. n: rows of A, nz: its
// non-zeros; iterations: Arnoldi steps (block steps for BGMRES, steps per solve for GMRES,
// steps of the slowest system for pseudo-block GMRES); restart: the restart length in (block)
// steps, not_restarted for none (the paper's formula).
// Bad input throws std::invalid_argument naming the function, the parameter, its value and what
// was expected.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace kbench::models {

/// Machine costs of the model (boman2022): alpha seconds per message (one per Arnoldi step; on a
/// GPU a step's kernel launches plus its reductions' round trips), beta seconds per word moved
/// (one non-zero of A), gamma seconds per flop. kbench's extension: gamma_host, seconds per
/// flop of the host least squares (KrylovCounts::lsq_flops); 0 leaves it out (the paper).
struct LatencyBandwidthCosts {
    double alpha = 0.0;
    double beta = 0.0;
    double gamma = 0.0;
    double gamma_host = 0.0;
};

/// A linear system's size for the model: n rows, nz non-zeros; and the Gram-Schmidt passes per
/// (block) step the orthogonalization term counts: boman2022's algorithms make one (the
/// default); kbench's solvers run CGS2, two.
struct KrylovProblem {
    double n = 0.0;
    double nz = 0.0;
    double orth_passes = 1.0;
};

/// Restart length meaning "never restarted" (boman2022's formula).
inline constexpr double not_restarted = std::numeric_limits<double>::infinity();

/// What the model's alpha, beta and gamma multiply for one solve, term by term.
struct KrylovCounts {
    double messages = 0.0;       // alpha: one per (block) Arnoldi step
    double words = 0.0;          // beta: A's non-zeros, once per SpMV or SpMM
    double spmv_flops = 0.0;     // gamma: SpMV / SpMM, 2 flops per non-zero and column
    double orth_flops = 0.0;     // gamma: Gram-Schmidt against the basis (one pass)
    double qr_flops = 0.0;       // gamma: QR of the new block (BGMRES) / norm and scaling (GMRES)
    double lsq_flops = 0.0;      // gamma_host: Givens QR of the Hessenberg matrix (kbench)
    /// The flops gamma prices (lsq_flops, priced by gamma_host, are not among them).
    double flops() const { return spmv_flops + orth_flops + qr_flops; }
};

namespace detail {
[[noreturn]] inline void block_gmres_fail(const char* function, const std::string& what)
{
    throw std::invalid_argument(std::string(function) + ": " + what);
}

inline void check_counts_input(const char* function, const KrylovProblem& p, int s,
                               double iterations, double restart)
{
    if (!(p.n > 0.0) || !(p.nz > 0.0) || !std::isfinite(p.n) || !std::isfinite(p.nz))
        block_gmres_fail(function, "n = " + std::to_string(p.n) + ", nz = " +
                                       std::to_string(p.nz) + ", expected finite and > 0");
    if (!(p.orth_passes >= 1.0) || !std::isfinite(p.orth_passes))
        block_gmres_fail(function, "orth_passes = " + std::to_string(p.orth_passes) +
                                       ", expected finite and >= 1");
    if (s < 1)
        block_gmres_fail(function, "s = " + std::to_string(s) + ", expected >= 1 right-hand sides");
    if (!(iterations >= 0.0) || !std::isfinite(iterations))
        block_gmres_fail(function, "iterations = " + std::to_string(iterations) +
                                       ", expected finite and >= 0");
    if (!(restart >= 1.0))  // also rejects NaN; +infinity is not_restarted
        block_gmres_fail(function, "restart = " + std::to_string(restart) +
                                       ", expected >= 1 or not_restarted");
}

inline void check_costs(const char* function, const LatencyBandwidthCosts& c)
{
    if (!(c.alpha >= 0.0) || !(c.beta >= 0.0) || !(c.gamma >= 0.0) ||
        !(c.gamma_host >= 0.0) || !std::isfinite(c.alpha) || !std::isfinite(c.beta) ||
        !std::isfinite(c.gamma) || !std::isfinite(c.gamma_host))
        block_gmres_fail(function, "alpha, beta, gamma, gamma_host = " + std::to_string(c.alpha) +
                                       ", " + std::to_string(c.beta) + ", " +
                                       std::to_string(c.gamma) + ", " +
                                       std::to_string(c.gamma_host) +
                                       ", expected finite and >= 0");
}
}  // namespace detail

/// Sum over `iterations` steps of the basis size (in blocks) each step orthogonalizes against,
/// to the paper's leading order (sum_{j=1..k} j ~ k^2 / 2 per cycle of k steps): m^2 / 2 when
/// not restarted (the paper's m^2 terms); with restart length r, floor(m / r) full cycles of
/// r^2 / 2 plus (m mod r)^2 / 2 for the last, partial one.
inline double basis_sum(double iterations, double restart)
{
    const double m = iterations;
    if (m <= restart) return m * m / 2.0;
    const double cycles = std::floor(m / restart);
    const double rest = m - cycles * restart;
    return cycles * restart * restart / 2.0 + rest * rest / 2.0;
}

/// Flops of the Givens least squares of one GMRES (s = 1) or block GMRES (block size s) solve
/// over `iterations` (block) steps (kbench's extension; solvers/hessenberg.hpp): in block step
/// j = 1 .. k of a cycle, the s new columns of the band Hessenberg matrix take the s rotations
/// of each of the (j - 1) s earlier columns, 6 (j - 1) s^3 flops (6 per rotated pair: 4
/// multiplications, 2 additions), and the s^2 new rotations act on G's s columns, 6 s^3: 6 j
/// s^3 per step; summed over the steps to the paper's leading order, as the orthogonalization
/// term (basis_sum), 6 s^3 basis_sum per solve. Left out, as lower order: the new rotations
/// on the block's own later columns (3 s^2 (s - 1) per step), making the rotations (s^2 per
/// step), the triangular solve at the end of a cycle. s = 1: 6 j per GMRES step. Throws
/// std::invalid_argument for s < 1.
inline double lsq_flops(int s, double iterations, double restart = not_restarted)
{
    if (s < 1)
        detail::block_gmres_fail("lsq_flops", "s = " + std::to_string(s) + ", expected >= 1");
    const double ss = s;
    return 6.0 * ss * ss * ss * basis_sum(iterations, restart);
}

/// Counts of BGMRES with block size s over `iterations` block steps (Algorithm BGMRES):
inline KrylovCounts counts_bgmres(const KrylovProblem& p, int s, double iterations,
                                  double restart = not_restarted)
{
    detail::check_counts_input("counts_bgmres", p, s, iterations, restart);
    const double m = iterations, ss = s;
    KrylovCounts k;
    k.messages = m;                                                // one message per block step
    k.words = p.nz * m;                                            // line 4: A read once per SpMM
    k.spmv_flops = 2.0 * p.nz * m * ss;                            // line 4: W = A V_j, s columns
    k.orth_flops = 4.0 * p.n * ss * ss * basis_sum(m, restart)     // lines 5-8: W^T V_i and
                   * p.orth_passes;                                // W - V_i H, 2 n s^2 each per
                                                                   // block: 2 n m^2 s^2
    k.qr_flops = 2.0 * p.n * m * ss * ss;                          // line 9: qr(W), n x s
    k.lsq_flops = lsq_flops(s, m, restart);                        // kbench: band Hessenberg,
                                                                   // 6 s^3 m^2 / 2
    return k;
}

/// Counts of s x GMRES, each of the s solves taking `iterations` steps (Algorithm s x GMRES):
inline KrylovCounts counts_s_gmres(const KrylovProblem& p, int s, double iterations,
                                   double restart = not_restarted)
{
    detail::check_counts_input("counts_s_gmres", p, s, iterations, restart);
    const double m = iterations, ss = s;
    KrylovCounts k;
    k.messages = m * ss;                                           // one message per step, s solves
    k.words = p.nz * m * ss;                                       // line 5: A read once per SpMV
    k.spmv_flops = 2.0 * p.nz * m * ss;                            // line 5: w = A v_j
    k.orth_flops = 4.0 * p.n * ss * basis_sum(m, restart)          // lines 6-9: w^T v_i and
                   * p.orth_passes;                                // w - h v_i: 2 n m^2 s
    k.qr_flops = 3.0 * p.n * m * ss;                               // line 10: norm 2n, scaling n
    k.lsq_flops = ss * lsq_flops(1, m, restart);                   // kbench: s Hessenberg QRs,
                                                                   // 6 m^2 / 2 each
    return k;
}

/// kbench's extension: pseudo-block GMRES advancing s Krylov spaces together for `iterations`
/// steps (the slowest system's count): BGMRES's messages and reads of A (one SpMM and one
/// batched reduction per step) with the flops of s x GMRES (s batched dots and axpys, no block
/// orthogonalization).
inline KrylovCounts counts_pseudo_block_gmres(const KrylovProblem& p, int s, double iterations,
                                              double restart = not_restarted)
{
    detail::check_counts_input("counts_pseudo_block_gmres", p, s, iterations, restart);
    const double m = iterations, ss = s;
    KrylovCounts k;
    k.messages = m;                                                // one batched reduction per step
    k.words = p.nz * m;                                            // A read once per SpMM
    k.spmv_flops = 2.0 * p.nz * m * ss;                            // SpMM, s columns
    k.orth_flops = 4.0 * p.n * ss * basis_sum(m, restart)          // s batched dots and axpys
                   * p.orth_passes;
    k.qr_flops = 3.0 * p.n * m * ss;                               // s norms and scalings
    k.lsq_flops = ss * lsq_flops(1, m, restart);                   // s GMRES least squares
    return k;
}

/// Time of counts under costs c: alpha messages + beta words + gamma flops (boman2022), plus
/// gamma_host lsq_flops (kbench's extension; 0 by default).
inline double model_time(const KrylovCounts& k, const LatencyBandwidthCosts& c)
{
    detail::check_costs("model_time", c);
    return c.alpha * k.messages              // latency
           + c.beta * k.words                // reads of A
           + c.gamma * k.flops()             // SpMV / SpMM, orthogonalization, QR / normalization
           + c.gamma_host * k.lsq_flops;     // host least squares
}

/// Time_BGMRES(n, nz, m, s) of boman2022 (restart: kbench's extension).
inline double time_bgmres(const KrylovProblem& p, int s, double iterations, double restart,
                          const LatencyBandwidthCosts& c)
{
    return model_time(counts_bgmres(p, s, iterations, restart), c);
}

/// Time_GMRES(n, nz, m, s) of boman2022: s solves of `iterations` steps each.
inline double time_s_gmres(const KrylovProblem& p, int s, double iterations, double restart,
                           const LatencyBandwidthCosts& c)
{
    return model_time(counts_s_gmres(p, s, iterations, restart), c);
}

/// Time of pseudo-block GMRES (kbench's extension, same machine model).
inline double time_pseudo_block_gmres(const KrylovProblem& p, int s, double iterations,
                                      double restart, const LatencyBandwidthCosts& c)
{
    return model_time(counts_pseudo_block_gmres(p, s, iterations, restart), c);
}

/// Block speedup T(s x GMRES) / T(BGMRES) (boman2022, slide "Experimental Results"), from each
/// method's iteration count; 1 when both times are 0.
inline double block_speedup(const KrylovProblem& p, int s, double gmres_iterations,
                            double bgmres_iterations, double restart,
                            const LatencyBandwidthCosts& c)
{
    const double t_block = time_bgmres(p, s, bgmres_iterations, restart, c);
    const double t_single = time_s_gmres(p, s, gmres_iterations, restart, c);
    if (t_block > 0.0) return t_single / t_block;
    return t_single > 0.0 ? std::numeric_limits<double>::infinity() : 1.0;
}

/// One point of a block-size sweep: s and the iteration counts measured at it.
struct BlockSizePoint {
    int s = 1;
    double gmres_iterations = 0.0;     // per single-vector solve
    double bgmres_iterations = 0.0;    // block steps
    double restart = not_restarted;    // restart length at this s (boman2022 varies it with s)
};

/// The modeled block speedup at every point of a sweep, in its order.
inline std::vector<double> block_speedups(const KrylovProblem& p,
                                          const std::vector<BlockSizePoint>& points,
                                          const LatencyBandwidthCosts& c)
{
    std::vector<double> out;
    out.reserve(points.size());
    for (const BlockSizePoint& q : points)
        out.push_back(
            block_speedup(p, q.s, q.gmres_iterations, q.bgmres_iterations, q.restart, c));
    return out;
}

/// The s of `points` with the largest modeled block speedup (the first one on ties). Throws
/// std::invalid_argument for an empty sweep.
inline int optimal_block_size(const KrylovProblem& p, const std::vector<BlockSizePoint>& points,
                              const LatencyBandwidthCosts& c)
{
    if (points.empty()) detail::block_gmres_fail("optimal_block_size", "empty sweep");
    const std::vector<double> speedups = block_speedups(p, points, c);
    const auto best = std::max_element(speedups.begin(), speedups.end());
    return points[static_cast<std::size_t>(best - speedups.begin())].s;
}

}  // namespace kbench::models
