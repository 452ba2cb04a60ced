// The latency-bandwidth model of boman2022 (models/block_gmres_model.hpp): the paper's two
// formulas term by term, its "Key differences" as exact ratios, its Observations and Messages as
// limits of the model, the restarted vanbody table's peaks, kbench's pseudo-block extension and
// its host least-squares term.
// The slides state no modeled numbers (the model appears only in plots), so what is reproduced
// is the formulas, the ratios and the qualitative statements.
#include "models/block_gmres_model.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace kbench::models {
namespace {

// boman2022's two matrices, sized from the SuiteSparse index (../shared/matrices/ss_index.csv):
// vanbody (named in the paper, n = 47,072) and Baumann, the only collection matrix with the
// paper's n = 112,211 (the slides give n only). nz: non-zeros without explicit zeros.
const KrylovProblem vanbody{47072.0, 2329056.0};
const KrylovProblem baumann{112211.0, 748331.0};

// Machine costs used where a realistic mix of the three terms is needed. Not from the paper
// (it gives no alpha, beta, gamma): nominal peak figures of the paper's two machines, 8-byte
// words, and an assumed latency per Arnoldi step.
//   V100 SXM2: 900 GB/s, 7.8 TFLOP/s FP64, 10 us per step (launches plus reductions);
//   Xeon E5-2698 v4: 4 x DDR4-2400 = 76.8 GB/s, 20 cores x 2.2 GHz x 16 = 704 GFLOP/s, 1 us.
const LatencyBandwidthCosts v100{1e-5, 8.0 / 900e9, 1.0 / 7.8e12};
const LatencyBandwidthCosts xeon{1e-6, 8.0 / 76.8e9, 1.0 / 704e9};

// Runs `f`, expects std::invalid_argument, and returns its message (empty when none was thrown).
template <class F>
std::string invalid_argument_message(F&& f)
{
    try {
        f();
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    ADD_FAILURE() << "no std::invalid_argument thrown";
    return {};
}

// ---- the formulas (slide "Theoretical Runtime Model") -------------------------------------------

TEST(BlockGmresModel, ThePapersFormulasTermByTerm)
{
    const LatencyBandwidthCosts c{1e-5, 1e-11, 1e-13};
    const double n = vanbody.n, nz = vanbody.nz, m = 120.0;
    for (const int s : {1, 4, 16}) {
        const double S = s;
        const double bgmres =
            c.alpha * m + c.beta * nz * m +
            c.gamma * (2 * nz * m * S + 2 * n * m * m * S * S + 2 * n * m * S * S);
        const double gmres = c.alpha * m * S + c.beta * nz * m * S +
                             c.gamma * (2 * nz * m * S + 2 * n * m * m * S + 3 * n * m * S);
        EXPECT_NEAR(time_bgmres(vanbody, s, m, not_restarted, c), bgmres, 1e-12 * bgmres);
        EXPECT_NEAR(time_s_gmres(vanbody, s, m, not_restarted, c), gmres, 1e-12 * gmres);
    }
}

TEST(BlockGmresModel, CountsMatchThePapersBracedTerms)
{
    // The formulas' braces: "Data Movement", "spmv", "(Block) Orthogonalization".
    const double n = baumann.n, nz = baumann.nz, m = 75.0, s = 6.0;
    const KrylovCounts b = counts_bgmres(baumann, 6, m);
    EXPECT_DOUBLE_EQ(b.messages, m);
    EXPECT_DOUBLE_EQ(b.words, nz * m);
    EXPECT_DOUBLE_EQ(b.spmv_flops, 2 * nz * m * s);
    EXPECT_DOUBLE_EQ(b.orth_flops + b.qr_flops, 2 * n * m * m * s * s + 2 * n * m * s * s);
    const KrylovCounts g = counts_s_gmres(baumann, 6, m);
    EXPECT_DOUBLE_EQ(g.messages, m * s);
    EXPECT_DOUBLE_EQ(g.words, nz * m * s);
    EXPECT_DOUBLE_EQ(g.spmv_flops, 2 * nz * m * s);
    EXPECT_DOUBLE_EQ(g.orth_flops + g.qr_flops, 2 * n * m * m * s + 3 * n * m * s);
    // model_time is alpha messages + beta words + gamma flops, nothing else.
    const LatencyBandwidthCosts c{3.0, 5.0, 7.0};
    EXPECT_DOUBLE_EQ(model_time(b, c), 3.0 * b.messages + 5.0 * b.words + 7.0 * b.flops());
}

TEST(BlockGmresModel, KeyDifferencesAreExactlySFold)
{
    // Slide "Comparison of Block vs Non-Blocked GMRES", Key differences, at equal counts m:
    // s x GMRES reads A s times as often; BGMRES spends s times the orthogonalization flops.
    const double m = 90.0;
    for (const int s : {2, 5, 32}) {
        const KrylovCounts b = counts_bgmres(vanbody, s, m);
        const KrylovCounts g = counts_s_gmres(vanbody, s, m);
        EXPECT_DOUBLE_EQ(g.words / b.words, s);
        EXPECT_DOUBLE_EQ(g.messages / b.messages, s);
        EXPECT_DOUBLE_EQ(b.orth_flops / g.orth_flops, s);
        EXPECT_DOUBLE_EQ(b.spmv_flops, g.spmv_flops);  // same columns multiplied by A
    }
}

// ---- restarts (kbench's extension) --------------------------------------------------------------

TEST(BlockGmresModel, RestartsBoundTheBasisInTheOrthogonalizationTerm)
{
    const LatencyBandwidthCosts flops_only{0.0, 0.0, 1.0};
    const double n = vanbody.n, nz = vanbody.nz, m = 400.0, r = 50.0;
    const int s = 8;
    EXPECT_DOUBLE_EQ(time_s_gmres(vanbody, s, m, r, flops_only),
                     2 * nz * m * s + 2 * n * m * r * s + 3 * n * m * s);
    EXPECT_DOUBLE_EQ(time_bgmres(vanbody, s, m, r, flops_only),
                     2 * nz * m * s + 2 * n * m * r * s * s + 2 * n * m * s * s);
    // A restart length at or above the step count changes nothing.
    EXPECT_DOUBLE_EQ(time_bgmres(vanbody, s, m, m, flops_only),
                     time_bgmres(vanbody, s, m, not_restarted, flops_only));
    // A partial last cycle counts its own basis: vanbody at s = 30 (239 steps, restart 142).
    EXPECT_DOUBLE_EQ(basis_sum(239.0, 142.0), 142.0 * 142.0 / 2 + 97.0 * 97.0 / 2);
    EXPECT_DOUBLE_EQ(basis_sum(239.0, not_restarted), 239.0 * 239.0 / 2);
}

// ---- limits -------------------------------------------------------------------------------------

TEST(BlockGmresModel, OneRightHandSideDiffersOnlyInTheNormalizationFlops)
{
    // At s = 1 the paper's formulas differ only in qr(W) (2 n m) against norm plus scaling
    // (3 n m): speedup 1 exactly without flops, barely above 1 with them.
    const LatencyBandwidthCosts c{1e-5, 1e-11, 1e-13};
    const double m = 80.0;
    EXPECT_NEAR(time_s_gmres(vanbody, 1, m, not_restarted, c) -
                    time_bgmres(vanbody, 1, m, not_restarted, c),
                c.gamma * vanbody.n * m, 1e-12);
    EXPECT_GT(block_speedup(vanbody, 1, m, m, not_restarted, c), 1.0);
    EXPECT_LT(block_speedup(vanbody, 1, m, m, not_restarted, c), 1.01);
    EXPECT_DOUBLE_EQ(block_speedup(vanbody, 1, m, m, not_restarted, {c.alpha, c.beta, 0.0}), 1.0);
}

TEST(BlockGmresModel, PureBandwidthGivesTheReadsOfARatio)
{
    // alpha = gamma = 0: only reads of A count, speedup = s m_GMRES / m_BGMRES exactly.
    const LatencyBandwidthCosts bandwidth{0.0, 1e-11, 0.0};
    EXPECT_DOUBLE_EQ(block_speedup(baumann, 8, 100.0, 100.0, not_restarted, bandwidth), 8.0);
    EXPECT_DOUBLE_EQ(block_speedup(baumann, 8, 100.0, 40.0, not_restarted, bandwidth), 20.0);
    EXPECT_DOUBLE_EQ(block_speedup(vanbody, 30, 493.0, 239.0, 142.0, bandwidth),
                     30.0 * 493.0 / 239.0);
}

TEST(BlockGmresModel, LatencyOnlyGivesSFoldFewerMessages)
{
    const LatencyBandwidthCosts latency{1e-5, 0.0, 0.0};
    for (const int s : {2, 8, 64})
        EXPECT_DOUBLE_EQ(block_speedup(vanbody, s, 100.0, 100.0, not_restarted, latency), s);
    EXPECT_NEAR(block_speedup(vanbody, 10, 300.0, 60.0, not_restarted, latency), 50.0, 1e-9);
}

TEST(BlockGmresModel, FreeFlopsGiveSFoldSavings)
{
    // Observation 2: even at m_BGMRES = m_GMRES, BGMRES wins when flops are cheap and reading A
    // is expensive; with free flops the speedup is exactly s.
    const LatencyBandwidthCosts no_flops{2e-6, 1e-11, 0.0};
    for (const int s : {2, 8, 32})
        EXPECT_NEAR(block_speedup(vanbody, s, 100.0, 100.0, not_restarted, no_flops), s, 1e-9);
}

TEST(BlockGmresModel, TimesGrowWithNzAndTheSpeedupApproachesItsNzLimit)
{
    const double m = 100.0;
    const int s = 8;
    double previous_block = 0.0, previous_single = 0.0, previous_pseudo = 0.0,
           previous_speedup = 0.0;
    // Without latency the speedup rises with nz for s >= 2 (the s-fold saved reads of A grow
    // against the fixed orthogonalization flops) towards s (beta + 2 gamma) / (beta + 2 gamma s).
    const LatencyBandwidthCosts no_latency{0.0, v100.beta, v100.gamma};
    for (const double nz : {1e5, 1e6, 1e7, 1e8, 1e9}) {
        const KrylovProblem p{baumann.n, nz};
        const double tb = time_bgmres(p, s, m, not_restarted, v100);
        const double tg = time_s_gmres(p, s, m, not_restarted, v100);
        const double tp = time_pseudo_block_gmres(p, s, m, not_restarted, v100);
        const double sp = block_speedup(p, s, m, m, not_restarted, no_latency);
        EXPECT_GT(tb, previous_block);
        EXPECT_GT(tg, previous_single);
        EXPECT_GT(tp, previous_pseudo);
        EXPECT_GT(sp, previous_speedup) << "nz " << nz;
        previous_block = tb, previous_single = tg, previous_pseudo = tp, previous_speedup = sp;
    }
    const double b = no_latency.beta, g = no_latency.gamma;
    const double limit = s * (b + 2 * g) / (b + 2 * g * s);
    EXPECT_LT(previous_speedup, limit);
    EXPECT_NEAR(block_speedup({baumann.n, 1e14}, s, m, m, not_restarted, no_latency), limit,
                1e-3 * limit);
    // With a latency worth more than the reads of A the speedup starts near s (the message
    // ratio) and falls towards the same limit: the sign of d speedup / d nz is that of
    // n (...) - 2 alpha (s - 1) / gamma, so monotonicity in nz holds only for small alpha.
    const LatencyBandwidthCosts latency_bound{1.0, v100.beta, v100.gamma};
    EXPECT_GT(block_speedup({baumann.n, 1e5}, s, m, m, not_restarted, latency_bound),
              block_speedup({baumann.n, 1e9}, s, m, m, not_restarted, latency_bound));
}

// ---- the paper's observations and messages ------------------------------------------------------

TEST(BlockGmresModel, Observation1FewerStepsByOneOverSCostAboutOneGmresSolve)
{
    // Observation 1, read under the model: with m_BGMRES = m_GMRES / s, BGMRES builds a basis as
    // large as one GMRES solve's, and costs about as much as that one solve (flops equal to the
    // leading order, 1 + O(s / m)), with s-fold fewer messages and reads of A. So its block
    // speedup over s x GMRES is about s.
    const double m = 500.0;
    const int s = 10;
    const LatencyBandwidthCosts flops_only{0.0, 0.0, 1.0};
    const double ratio = time_bgmres(vanbody, s, m / s, not_restarted, flops_only) /
                         time_s_gmres(vanbody, 1, m, not_restarted, flops_only);
    EXPECT_GT(ratio, 1.0);
    EXPECT_LT(ratio, 1.02);  // 1.0154 for vanbody
    EXPECT_LT(time_bgmres(vanbody, s, m / s, not_restarted, v100),
              1.02 * time_s_gmres(vanbody, 1, m, not_restarted, v100));
    EXPECT_GT(block_speedup(vanbody, s, m, m / s, not_restarted, v100), 0.98 * s);
}

TEST(BlockGmresModel, Message2AndObservation3TheOptimalBlockSizeBalancesReadsAndFlops)
{
    // Message 2 / Observation 3. With equal counts m, speedup(s) = s K / (A + B s + C s^2) with
    // A = (alpha + beta nz) m, B = 2 gamma nz m, C = gamma (2 n m^2 + 2 n m): largest at
    // s* = sqrt(A / C), which the sweep must find to the nearest grid point.
    const double m = 100.0;
    std::vector<BlockSizePoint> sweep;
    for (int s = 1; s <= 64; ++s) sweep.push_back({s, m, m, not_restarted});
    for (const KrylovProblem& p : {vanbody, baumann}) {
        const double a = (v100.alpha + v100.beta * p.nz) * m;
        const double c = v100.gamma * (2 * p.n * m * m + 2 * p.n * m);
        const double s_star = std::sqrt(a / c);
        const int best = optimal_block_size(p, sweep, v100);
        EXPECT_GT(s_star, 1.0);
        EXPECT_TRUE(best == static_cast<int>(std::floor(s_star)) ||
                    best == static_cast<int>(std::ceil(s_star)))
            << "best " << best << ", s* " << s_star;
        // The speedup rises to the optimum and falls after it.
        const std::vector<double> sp = block_speedups(p, sweep, v100);
        for (int s = 2; s <= 64; ++s) {
            if (s <= best) EXPECT_GT(sp[s - 1], sp[s - 2]) << "s " << s;
            else EXPECT_LT(sp[s - 1], sp[s - 2]) << "s " << s;
        }
    }
}

TEST(BlockGmresModel, Message1TheSameCountsCanLoseOnTheCpuAndWinOnTheGpu)
{
    // Message 1 under the model, with the nominal machine figures above (not the paper's) and
    // Observation 2's equal counts: on Baumann's size, s = 4, 100 steps, BGMRES is slower than
    // 4 x GMRES on the Xeon (0.75) and faster on the V100 (1.24). The GPU's latency is worth
    // about 100 times as many flops as the CPU's, which is what tips the balance.
    const double cpu = block_speedup(baumann, 4, 100.0, 100.0, not_restarted, xeon);
    const double gpu = block_speedup(baumann, 4, 100.0, 100.0, not_restarted, v100);
    EXPECT_LT(cpu, 1.0);
    EXPECT_GT(gpu, 1.0);
    EXPECT_NEAR(cpu, 0.753, 0.005);
    EXPECT_NEAR(gpu, 1.237, 0.005);
}

// The vanbody table (slide "Experimental Results: n = 47,072 (with Restarts)"): s, restart
// length (about 4270 / s: the basis is kept at ~4270 vectors) and BGMRES's total block steps.
// The table has no s x GMRES count: 493 steps per solve, never restarted, stands in for it at
// every s (a single-vector solve does not depend on s), so T(s x GMRES) is s times a constant.
std::vector<BlockSizePoint> vanbody_table()
{
    std::vector<BlockSizePoint> rows = {{5, 493, 493, 854},  {10, 493, 324, 427},
                                        {20, 493, 198, 214}, {30, 493, 239, 142},
                                        {40, 493, 291, 107}, {50, 493, 413, 85},
                                        {60, 493, 215, 70},  {70, 493, 243, 61}};
    return rows;
}

TEST(BlockGmresModel, VanbodysRestartedCountsGiveSeveralPeaks)
{
    // Slide "Modeled vs Observed Speedups: restarted case": the restarted block speedup has
    // several peaks. Fed the table's counts, the model peaks at s = 20 and s = 60 with the dip
    // of s = 50 (413 steps) between them, on a flop-heavy and on a flops-only machine.
    for (const LatencyBandwidthCosts& c : {v100, LatencyBandwidthCosts{0.0, 0.0, 1.0}}) {
        const std::vector<BlockSizePoint> rows = vanbody_table();
        // s x GMRES is never restarted here; BGMRES uses the table's restart length.
        std::vector<double> sp;
        for (const BlockSizePoint& q : rows)
            sp.push_back(time_s_gmres(vanbody, q.s, q.gmres_iterations, not_restarted, c) /
                         time_bgmres(vanbody, q.s, q.bgmres_iterations, q.restart, c));
        std::vector<int> peaks;
        for (std::size_t i = 1; i + 1 < sp.size(); ++i)
            if (sp[i] > sp[i - 1] && sp[i] > sp[i + 1]) peaks.push_back(rows[i].s);
        EXPECT_EQ(peaks, (std::vector<int>{20, 60}));
    }
    // optimal_block_size on the table (one restart length for both methods): strictly inside.
    const int best = optimal_block_size(vanbody, vanbody_table(), v100);
    EXPECT_GT(best, 5);
    EXPECT_LT(best, 70);
}

// ---- pseudo-block GMRES (kbench's extension) ----------------------------------------------------

TEST(BlockGmresModel, PseudoBlockHasBgmresMessagesAndReadsAndSxGmresFlops)
{
    const double m = 150.0;
    const int s = 12;
    const LatencyBandwidthCosts moves{1e-5, 1e-11, 0.0}, flops{0.0, 0.0, 1e-13};
    EXPECT_DOUBLE_EQ(time_pseudo_block_gmres(vanbody, s, m, not_restarted, moves),
                     time_bgmres(vanbody, s, m, not_restarted, moves));
    EXPECT_DOUBLE_EQ(time_pseudo_block_gmres(vanbody, s, m, not_restarted, flops),
                     time_s_gmres(vanbody, s, m, not_restarted, flops));
    // At equal counts it is never slower than either (s >= 2).
    for (const int k : {2, 8, 64}) {
        const double tp = time_pseudo_block_gmres(baumann, k, m, 50.0, v100);
        EXPECT_LT(tp, time_s_gmres(baumann, k, m, 50.0, v100));
        EXPECT_LT(tp, time_bgmres(baumann, k, m, 50.0, v100));
    }
}

// ---- sweeps and input checks --------------------------------------------------------------------

TEST(BlockGmresModel, SweepHelpers)
{
    const std::vector<BlockSizePoint> sweep = {{1, 100, 100}, {2, 100, 60}, {4, 100, 60}};
    const std::vector<double> sp = block_speedups(baumann, sweep, v100);
    ASSERT_EQ(sp.size(), 3u);
    for (std::size_t i = 0; i < sweep.size(); ++i)
        EXPECT_DOUBLE_EQ(sp[i], block_speedup(baumann, sweep[i].s, 100, sweep[i].bgmres_iterations,
                                              not_restarted, v100));
    // Latency only: speedups 1, 10/3, 20/3; the first of equal maxima wins.
    const LatencyBandwidthCosts latency{1.0, 0.0, 0.0};
    EXPECT_EQ(optimal_block_size(baumann, sweep, latency), 4);
    EXPECT_EQ(optimal_block_size(baumann, {{3, 10, 10}, {6, 20, 40}}, latency), 3);
    EXPECT_NE(invalid_argument_message([&] { optimal_block_size(baumann, {}, v100); })
                  .find("empty sweep"),
              std::string::npos);
    // No cost at all: speedup 1.
    EXPECT_DOUBLE_EQ(block_speedup(baumann, 4, 10, 10, not_restarted, {}), 1.0);
}

TEST(BlockGmresModel, CgsTwiceDoublesOnlyTheOrthogonalizationTerm)
{
    const KrylovProblem two{vanbody.n, vanbody.nz, 2.0};
    for (double restart : {not_restarted, 30.0}) {
        const KrylovCounts b1 = counts_bgmres(vanbody, 8, 40, restart);
        const KrylovCounts b2 = counts_bgmres(two, 8, 40, restart);
        EXPECT_DOUBLE_EQ(b2.orth_flops, 2.0 * b1.orth_flops);
        EXPECT_DOUBLE_EQ(b2.messages, b1.messages);
        EXPECT_DOUBLE_EQ(b2.words, b1.words);
        EXPECT_DOUBLE_EQ(b2.spmv_flops, b1.spmv_flops);
        EXPECT_DOUBLE_EQ(b2.qr_flops, b1.qr_flops);
        EXPECT_DOUBLE_EQ(counts_s_gmres(two, 8, 40, restart).orth_flops,
                         2.0 * counts_s_gmres(vanbody, 8, 40, restart).orth_flops);
        EXPECT_DOUBLE_EQ(counts_pseudo_block_gmres(two, 8, 40, restart).orth_flops,
                         2.0 * counts_pseudo_block_gmres(vanbody, 8, 40, restart).orth_flops);
    }
    EXPECT_NE(invalid_argument_message([&] {
                  counts_bgmres({vanbody.n, vanbody.nz, 0.5}, 2, 10);
              }).find("orth_passes"),
              std::string::npos);
}

// ---- kbench's extension: the host least squares (issue 9) -----------------------------------

TEST(BlockGmresModel, LeastSquaresFlopsClosedForms)
{
    // BGMRES, s = 2, 4 block steps: 6 s^3 m^2 / 2 = 6 * 8 * 8.
    EXPECT_DOUBLE_EQ(counts_bgmres(baumann, 2, 4.0).lsq_flops, 384.0);
    EXPECT_DOUBLE_EQ(lsq_flops(2, 4.0), 384.0);
    // GMRES (s = 1): 6 m^2 / 2 per solve; s x GMRES and pseudo-block: s of them.
    EXPECT_DOUBLE_EQ(lsq_flops(1, 4.0), 48.0);
    EXPECT_DOUBLE_EQ(counts_s_gmres(baumann, 3, 4.0).lsq_flops, 144.0);
    EXPECT_DOUBLE_EQ(counts_pseudo_block_gmres(baumann, 3, 4.0).lsq_flops, 144.0);
    // Restart 4, 10 block steps: two cycles of 4^2 / 2 and one of 2^2 / 2, basis_sum = 18.
    EXPECT_DOUBLE_EQ(counts_bgmres(baumann, 2, 10.0, 4.0).lsq_flops, 6.0 * 8.0 * 18.0);
    // The paper's flops (gamma) do not include it.
    const KrylovCounts b = counts_bgmres(baumann, 2, 4.0);
    EXPECT_DOUBLE_EQ(b.flops(), b.spmv_flops + b.orth_flops + b.qr_flops);
}

TEST(BlockGmresModel, ZeroGammaHostIsThePapersModel)
{
    for (const LatencyBandwidthCosts& c : {v100, xeon}) {
        EXPECT_DOUBLE_EQ(c.gamma_host, 0.0);
        for (const int s : {1, 8, 64}) {
            const KrylovCounts k = counts_bgmres(vanbody, s, 100.0, 30.0);
            EXPECT_EQ(model_time(k, c),
                      c.alpha * k.messages + c.beta * k.words + c.gamma * k.flops());
        }
    }
    // A positive gamma_host adds exactly gamma_host lsq_flops.
    LatencyBandwidthCosts host = v100;
    host.gamma_host = 2e-10;
    const KrylovCounts k = counts_bgmres(vanbody, 32, 64.0);
    EXPECT_DOUBLE_EQ(model_time(k, host) - model_time(k, v100), 2e-10 * k.lsq_flops);
    // It weighs on BGMRES, s^2-fold per step more than on s x GMRES: the block speedup drops.
    EXPECT_LT(block_speedup(vanbody, 32, 64.0, 64.0, not_restarted, host),
              block_speedup(vanbody, 32, 64.0, 64.0, not_restarted, v100));
}

TEST(BlockGmresModel, RestartsBoundTheLeastSquaresTerm)
{
    const double r = 30.0;
    for (const int s : {1, 16, 64}) {
        const double S = s;
        // Whole cycles: linear in the steps, 6 s^3 r^2 / 2 per cycle.
        EXPECT_DOUBLE_EQ(lsq_flops(s, 10 * r, r), 10.0 * 6.0 * S * S * S * r * r / 2.0);
        EXPECT_DOUBLE_EQ(lsq_flops(s, 20 * r, r), 2.0 * lsq_flops(s, 10 * r, r));
        // Never above the unrestarted count, and at most 6 s^3 r / 2 per step.
        for (const double m : {1.0, 29.0, 31.0, 95.0, 600.0}) {
            EXPECT_LE(lsq_flops(s, m, r), lsq_flops(s, m));
            EXPECT_LE(lsq_flops(s, m, r), 6.0 * S * S * S * r / 2.0 * m);
        }
    }
}

TEST(BlockGmresModel, BadInputThrowsNamingTheParameter)
{
    const LatencyBandwidthCosts c{1e-5, 1e-11, 1e-13};
    auto names = [](const std::string& message, const std::string& what) {
        return message.find(what) != std::string::npos;
    };
    EXPECT_TRUE(names(invalid_argument_message([&] { time_bgmres({0.0, 10.0}, 2, 10, 10, c); }),
                      "n = "));
    EXPECT_TRUE(names(invalid_argument_message([&] { time_bgmres(vanbody, 0, 10, 10, c); }),
                      "s = 0"));
    EXPECT_TRUE(names(invalid_argument_message([&] { time_s_gmres(vanbody, 2, -1, 10, c); }),
                      "iterations"));
    EXPECT_TRUE(names(invalid_argument_message([&] { time_s_gmres(vanbody, 2, 10, 0.5, c); }),
                      "restart"));
    EXPECT_TRUE(names(invalid_argument_message([&] { time_s_gmres(vanbody, 2, 10, NAN, c); }),
                      "restart"));
    EXPECT_TRUE(names(invalid_argument_message(
                          [&] { time_pseudo_block_gmres(vanbody, 2, 10, 10, {-1.0, 0.0, 0.0}); }),
                      "alpha"));
    EXPECT_TRUE(names(invalid_argument_message([&] {
                          time_bgmres(vanbody, 2, 10, 10, {0.0, 0.0, 0.0, -1e-9});
                      }),
                      "gamma_host"));
    EXPECT_TRUE(names(invalid_argument_message([&] { lsq_flops(0, 10.0); }), "s = 0"));
    EXPECT_TRUE(names(invalid_argument_message([&] { counts_pseudo_block_gmres(vanbody, 2, NAN); }),
                      "counts_pseudo_block_gmres"));
}

}  // namespace
}  // namespace kbench::models
