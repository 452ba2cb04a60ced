// The latency-bandwidth model of boman2022 (models/block_gmres_model.hpp): the paper's two
// formulas term by term, its observations as limits, and the optimal block size.
#include "models/block_gmres_model.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

namespace kbench::models {
namespace {

constexpr double not_restarted = 1e300;
// vanbody (boman2022's restarted example): n = 47,072, nz = 2,329,056 (SuiteSparse index).
const KrylovProblem vanbody{47072.0, 2329056.0};

TEST(BlockGmresModel, ThePapersFormulasTermByTerm)
{
    const LatencyBandwidthCosts c{1e-5, 1e-11, 1e-13};
    const double n = vanbody.n, nz = vanbody.nz, m = 120.0;
    for (const int s : {1, 4, 16}) {
        const double S = s;
        const double bgmres = c.alpha * m + c.beta * nz * m +
                              c.gamma * (2 * nz * m * S + 2 * n * m * m * S * S + 2 * n * m * S * S);
        const double gmres = c.alpha * m * S + c.beta * nz * m * S +
                             c.gamma * (2 * nz * m * S + 2 * n * m * m * S + 3 * n * m * S);
        EXPECT_NEAR(time_bgmres(vanbody, s, m, not_restarted, c), bgmres, 1e-12 * bgmres);
        EXPECT_NEAR(time_s_gmres(vanbody, s, m, not_restarted, c), gmres, 1e-12 * gmres);
    }
}

TEST(BlockGmresModel, RestartsBoundTheBasisInTheOrthogonalizationTerm)
{
    const LatencyBandwidthCosts flops_only{0.0, 0.0, 1.0};
    const double n = vanbody.n, nz = vanbody.nz, m = 400.0, r = 50.0;
    const int s = 8;
    EXPECT_DOUBLE_EQ(time_s_gmres(vanbody, s, m, r, flops_only),
                     2 * nz * m * s + 2 * n * m * r * s + 3 * n * m * s);
    EXPECT_DOUBLE_EQ(time_bgmres(vanbody, s, m, r, flops_only),
                     2 * nz * m * s + 2 * n * m * r * s * s + 2 * n * m * s * s);
    // A restart length above the step count changes nothing.
    EXPECT_DOUBLE_EQ(time_bgmres(vanbody, s, m, m, flops_only),
                     time_bgmres(vanbody, s, m, not_restarted, flops_only));
}

TEST(BlockGmresModel, OneRightHandSideDiffersOnlyInTheNormalizationFlops)
{
    const LatencyBandwidthCosts c{1e-5, 1e-11, 1e-13};
    const double m = 80.0;
    EXPECT_NEAR(time_s_gmres(vanbody, 1, m, not_restarted, c) -
                    time_bgmres(vanbody, 1, m, not_restarted, c),
                c.gamma * vanbody.n * m, 1e-12);
    EXPECT_GT(block_speedup(vanbody, 1, m, m, not_restarted, c), 1.0);
    EXPECT_LT(block_speedup(vanbody, 1, m, m, not_restarted, c), 1.01);
}

TEST(BlockGmresModel, FreeFlopsGiveSFoldFewerReadsOfA)
{
    // boman2022 Observation 2: with the same iteration counts, BGMRES wins when flops are
    // cheap and reading A is expensive; with free flops the speedup is exactly s.
    const LatencyBandwidthCosts no_flops{2e-6, 1e-11, 0.0};
    for (const int s : {2, 8, 32})
        EXPECT_NEAR(block_speedup(vanbody, s, 100.0, 100.0, not_restarted, no_flops), s, 1e-9);
    // Latency only: the message counts, s m_GMRES / m_BGMRES.
    const LatencyBandwidthCosts latency{1e-5, 0.0, 0.0};
    EXPECT_NEAR(block_speedup(vanbody, 10, 300.0, 60.0, not_restarted, latency), 50.0, 1e-9);
}

TEST(BlockGmresModel, TheOptimalBlockSizeBalancesReadsOfAAgainstOrthogonalizationFlops)
{
    // boman2022 Message 2. With equal counts m, speedup(s) = s K / (A + B s + C s^2) with
    // A = (alpha + beta nz) m, B = 2 gamma nz m, C = gamma (2 n m^2 + 2 n m): largest at
    // s* = sqrt(A / C). Costs of a V100-like GPU: 10 us per message, 8 bytes at 900 GB/s,
    // 7 TFLOP/s.
    const LatencyBandwidthCosts gpu{1e-5, 8.0 / 900e9, 1.0 / 7e12};
    const double m = 100.0;
    std::vector<BlockSizePoint> sweep;
    for (int s = 1; s <= 64; ++s) sweep.push_back({s, m, m, not_restarted});
    const double a = (gpu.alpha + gpu.beta * vanbody.nz) * m;
    const double c = gpu.gamma * (2 * vanbody.n * m * m + 2 * vanbody.n * m);
    const double s_star = std::sqrt(a / c);
    const int best = optimal_block_size(vanbody, sweep, gpu);
    EXPECT_GT(s_star, 1.0);
    EXPECT_TRUE(best == static_cast<int>(std::floor(s_star)) ||
                best == static_cast<int>(std::ceil(s_star)))
        << "best " << best << ", s* " << s_star;
    // Speedup rises to the optimum and falls after it.
    EXPECT_GT(block_speedup(vanbody, best, m, m, not_restarted, gpu),
              block_speedup(vanbody, 1, m, m, not_restarted, gpu));
    EXPECT_GT(block_speedup(vanbody, best, m, m, not_restarted, gpu),
              block_speedup(vanbody, 64, m, m, not_restarted, gpu));
    EXPECT_THROW(optimal_block_size(vanbody, {}, gpu), std::invalid_argument);
}

TEST(BlockGmresModel, VanbodysRestartedCountsGiveAnInteriorOptimum)
{
    // boman2022's vanbody table: s, restart length (about 4270 / s) and BGMRES's total block
    // steps. The table has no s x GMRES count; 493 per solve stands in for it at every s (a
    // single-vector solve does not depend on s). Only the shape is checked: the peaks and dips
    // of the restarted counts leave the best s strictly inside the sweep.
    const LatencyBandwidthCosts gpu{1e-5, 8.0 / 900e9, 1.0 / 7e12};
    const std::vector<BlockSizePoint> rows = {
        {5, 493, 493, 854}, {10, 493, 324, 427}, {20, 493, 198, 214}, {30, 493, 239, 142},
        {40, 493, 291, 107},      {50, 493, 413, 85},  {60, 493, 215, 70},  {70, 493, 243, 61}};
    const int best = optimal_block_size(vanbody, rows, gpu);
    EXPECT_GT(best, 5);
    EXPECT_LT(best, 70);
}

TEST(BlockGmresModel, PseudoBlockHasBgmresMessagesAndReadsAndSxGmresFlops)
{
    const double m = 150.0;
    const int s = 12;
    const LatencyBandwidthCosts moves{1e-5, 1e-11, 0.0}, flops{0.0, 0.0, 1e-13};
    EXPECT_DOUBLE_EQ(time_pseudo_block_gmres(vanbody, s, m, not_restarted, moves),
                     time_bgmres(vanbody, s, m, not_restarted, moves));
    EXPECT_DOUBLE_EQ(time_pseudo_block_gmres(vanbody, s, m, not_restarted, flops),
                     time_s_gmres(vanbody, s, m, not_restarted, flops));
}

TEST(BlockGmresModel, BadInputThrows)
{
    const LatencyBandwidthCosts c{1e-5, 1e-11, 1e-13};
    EXPECT_THROW(time_bgmres({0.0, 10.0}, 2, 10.0, 10.0, c), std::invalid_argument);
    EXPECT_THROW(time_bgmres(vanbody, 0, 10.0, 10.0, c), std::invalid_argument);
    EXPECT_THROW(time_s_gmres(vanbody, 2, -1.0, 10.0, c), std::invalid_argument);
    EXPECT_THROW(time_s_gmres(vanbody, 2, 10.0, 0.5, c), std::invalid_argument);
    EXPECT_THROW(time_pseudo_block_gmres(vanbody, 2, 10.0, 10.0, {-1.0, 0.0, 0.0}),
                 std::invalid_argument);
}

}  // namespace
}  // namespace kbench::models
