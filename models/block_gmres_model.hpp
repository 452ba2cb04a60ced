// The latency-bandwidth runtime model of boman2022 ("Theoretical Runtime Model", after
// Hoemmen): block GMRES (BGMRES) with s right-hand sides against s x GMRES (s solves one after
// the other), and kbench's extension to pseudo-block GMRES (s Krylov spaces advanced together,
// Trilinos Belos' PseudoBlockGmres). A message of w words costs alpha + beta w, f flops cost
// gamma f. Iteration counts are inputs: boman2022 feeds measured counts m(s) into the model.
//
// Units: seconds, words (one value of the solver's precision), flops. n: rows of A, nz: its
// non-zeros; iterations: Arnoldi steps (block steps for BGMRES, steps per solve for GMRES);
// restart: the restart length (>= iterations: not restarted, the paper's formula).
// Bad input throws std::invalid_argument naming the parameter, its value and what was expected.
#pragma once

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace kbench::models {

/// Machine costs of the model (boman2022): alpha seconds per message (on a GPU: a kernel
/// launch plus a reduction's round trip), beta seconds per word moved, gamma seconds per flop.
struct LatencyBandwidthCosts {
    double alpha = 0.0;
    double beta = 0.0;
    double gamma = 0.0;
};

/// A linear system's size for the model: n rows, nz non-zeros.
struct KrylovProblem {
    double n = 0.0;
    double nz = 0.0;
};

namespace detail {
inline void check_model_input(const KrylovProblem& p, double iterations, double restart, int s,
                              const LatencyBandwidthCosts& c)
{
    auto fail = [](const std::string& what) {
        throw std::invalid_argument("block GMRES model: " + what);
    };
    if (!(p.n > 0.0) || !(p.nz > 0.0) || !std::isfinite(p.n) || !std::isfinite(p.nz))
        fail("n = " + std::to_string(p.n) + ", nz = " + std::to_string(p.nz) +
             ", expected finite and > 0");
    if (!(iterations >= 0.0) || !std::isfinite(iterations))
        fail("iterations = " + std::to_string(iterations) + ", expected finite and >= 0");
    if (!(restart >= 1.0))
        fail("restart = " + std::to_string(restart) + ", expected >= 1");
    if (s < 1) fail("s = " + std::to_string(s) + ", expected >= 1 right-hand sides");
    if (!(c.alpha >= 0.0) || !(c.beta >= 0.0) || !(c.gamma >= 0.0) || !std::isfinite(c.alpha) ||
        !std::isfinite(c.beta) || !std::isfinite(c.gamma))
        fail("alpha, beta, gamma = " + std::to_string(c.alpha) + ", " + std::to_string(c.beta) +
             ", " + std::to_string(c.gamma) + ", expected finite and >= 0");
}

/// sum over the steps of the basis size before each step, in units of steps: with restart r
/// and m steps, m * min(m, r) / 2 to leading order (the paper's m^2 / 2 when m <= r).
inline double basis_sum(double iterations, double restart)
{
    return iterations * std::min(iterations, restart) / 2.0;
}
}  // namespace detail

/// Time of BGMRES with block size s over `iterations` block steps (boman2022):
///   alpha m               one message (reduction round trip) per block step
/// + beta nz m             A read once per block step (SpMM)
/// + gamma 2 nz m s        the SpMM's flops
/// + gamma 4 n s^2 sum_j j block CGS2 against j previous blocks of s columns: 2 n m^2 s^2
///                         when not restarted (sum_j j = m^2 / 2), 2 n m r s^2 with restart r
/// + gamma 2 n m s^2       the TSQR of each new block (CholQR: Gram matrix and update)
inline double time_bgmres(const KrylovProblem& p, int s, double iterations, double restart,
                          const LatencyBandwidthCosts& c)
{
    detail::check_model_input(p, iterations, restart, s, c);
    const double m = iterations, ss = s;
    return c.alpha * m                                                // messages
           + c.beta * p.nz * m                                        // reads of A
           + c.gamma * (2.0 * p.nz * m * ss                           // SpMM
                        + 4.0 * p.n * ss * ss * detail::basis_sum(m, restart)  // BOrth
                        + 2.0 * p.n * m * ss * ss);                   // TSQR
}

/// Time of s x GMRES, each solve taking `iterations` steps (boman2022):
///   alpha m s             one message per step of each solve
/// + beta nz m s           A read once per step of each solve
/// + gamma 2 nz m s        the SpMVs' flops
/// + gamma 4 n s sum_j j   CGS2 against the basis: 2 n m^2 s when not restarted
/// + gamma 3 n m s         the norm and scaling of each new basis vector
inline double time_s_gmres(const KrylovProblem& p, int s, double iterations, double restart,
                           const LatencyBandwidthCosts& c)
{
    detail::check_model_input(p, iterations, restart, s, c);
    const double m = iterations, ss = s;
    return c.alpha * m * ss                                          // messages
           + c.beta * p.nz * m * ss                                  // reads of A
           + c.gamma * (2.0 * p.nz * m * ss                          // SpMVs
                        + 4.0 * p.n * ss * detail::basis_sum(m, restart)  // orthogonalization
                        + 3.0 * p.n * m * ss);                       // norms and scaling
}

/// kbench's extension: pseudo-block GMRES advancing s Krylov spaces together for `iterations`
/// steps (the slowest system's count): the messages and reads of A of BGMRES (one SpMM and one
/// batched reduction per step) with the flops of s x GMRES (no block orthogonalization).
inline double time_pseudo_block_gmres(const KrylovProblem& p, int s, double iterations,
                                      double restart, const LatencyBandwidthCosts& c)
{
    detail::check_model_input(p, iterations, restart, s, c);
    const double m = iterations, ss = s;
    return c.alpha * m + c.beta * p.nz * m +
           c.gamma * (2.0 * p.nz * m * ss + 4.0 * p.n * ss * detail::basis_sum(m, restart) +
                      3.0 * p.n * m * ss);
}

/// Block speedup T(s x GMRES) / T(BGMRES) (boman2022), from each method's iteration count.
inline double block_speedup(const KrylovProblem& p, int s, double gmres_iterations,
                            double bgmres_iterations, double restart,
                            const LatencyBandwidthCosts& c)
{
    const double t_block = time_bgmres(p, s, bgmres_iterations, restart, c);
    const double t_single = time_s_gmres(p, s, gmres_iterations, restart, c);
    return t_block > 0.0 ? t_single / t_block : 1.0;
}

/// One point of a block-size sweep: s and the iteration counts measured at it.
struct BlockSizePoint {
    int s = 1;
    double gmres_iterations = 0.0;   // per single-vector solve
    double bgmres_iterations = 0.0;  // block steps
    double restart = 1e300;          // restart length at this s (boman2022 varies it with s)
};

/// The s of `points` with the largest modeled block speedup (the first one on ties). Throws
/// std::invalid_argument for an empty sweep.
inline int optimal_block_size(const KrylovProblem& p, const std::vector<BlockSizePoint>& points,
                              const LatencyBandwidthCosts& c)
{
    if (points.empty())
        throw std::invalid_argument("block GMRES model: optimal_block_size of an empty sweep");
    int best = points.front().s;
    double best_speedup = -1.0;
    for (const BlockSizePoint& q : points) {
        const double sp =
            block_speedup(p, q.s, q.gmres_iterations, q.bgmres_iterations, q.restart, c);
        if (sp > best_speedup) {
            best_speedup = sp;
            best = q.s;
        }
    }
    return best;
}

}  // namespace kbench::models
