#include "models/spike_model.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace sm = kbench::models::spike;

namespace {
double phase_flops(const std::vector<sm::Phase>& phases, std::string_view name)
{
    for (const auto& ph : phases)
        if (ph.name == name) return ph.count * ph.traffic.flops;
    ADD_FAILURE() << "no phase " << name;
    return 0.0;
}
}  // namespace

// ---- Counts checked by hand -------------------------------------------------------------------

// Tridiagonal 5 x 5: 5 + 4 + 4 entries; pentadiagonal: 5 + 2 (4 + 3); N(2K+1) - K(K+1).
TEST(SpikeCounts, BandEntries)
{
    EXPECT_DOUBLE_EQ(sm::band_entries(5, 1), 13.0);
    EXPECT_DOUBLE_EQ(sm::band_entries(5, 2), 19.0);
    EXPECT_DOUBLE_EQ(sm::band_entries(1000, 32), 1000.0 * 65 - 32 * 33);
    EXPECT_DOUBLE_EQ(sm::band_entries(3, 5), 9.0);  // band wider than the matrix: dense
}

// Step with r rows left below: min(K, r) divisions + 2 min(K, r)^2 update flops.
// n = 3, K = 1: (1 + 2) + (1 + 2) = 6. n = 4, K = 2: r = 3: 2 + 8, r = 2: 2 + 8, r = 1: 1 + 2.
TEST(SpikeCounts, BandedLuFlops)
{
    EXPECT_DOUBLE_EQ(sm::banded_lu(3, 1, 8).flops, 6.0);
    EXPECT_DOUBLE_EQ(sm::banded_lu(4, 2, 8).flops, 23.0);
    EXPECT_DOUBLE_EQ(sm::banded_ul(4, 2, 8).flops, 23.0);
    // Leading term 2 K^2 n: (n - K)(2K^2 + K) + sum_{m<K} (m + 2 m^2).
    const double n = 1e6, k = 32;
    EXPECT_DOUBLE_EQ(sm::banded_lu(1000000, 32, 8).flops,
                     (n - k) * (2 * k * k + k) + k * (k - 1) / 2 + k * (k - 1) * (2 * k - 1) / 3);
    // Band read once and written once.
    EXPECT_DOUBLE_EQ(sm::banded_lu(5, 1, 8).bytes_read, 13.0 * 8);
    EXPECT_DOUBLE_EQ(sm::banded_lu(5, 1, 4).bytes_written, 13.0 * 4);
}

// Dense LU of m x m: m(m-1)/2 + m(m-1)(2m-1)/3, m = 2K: K = 1: 3, K = 2: 6 + 28 = 34.
TEST(SpikeCounts, ReducedSystem)
{
    EXPECT_DOUBLE_EQ(sm::reduced_factor(1, 8).flops, 3.0);
    EXPECT_DOUBLE_EQ(sm::reduced_factor(2, 8).flops, 34.0);
    EXPECT_DOUBLE_EQ(sm::reduced_factor(2, 8).bytes_written, 16.0 * 8);
    // 2 x 2 solve: unit L 2 flops, U 2 divisions + 2 flops.
    EXPECT_DOUBLE_EQ(sm::reduced_solve(1, 8).flops, 6.0);
    EXPECT_DOUBLE_EQ(sm::reduced_solve(1, 8).bytes(), (4.0 + 2.0 + 2.0) * 8);
}

// K = 2: per right-hand side unit-L 2 x 2 (2 flops) + U 2 x 2 (2 divisions + 2 flops); 2 rhs.
TEST(SpikeCounts, SpikeTipAndCoupling)
{
    EXPECT_DOUBLE_EQ(sm::spike_tip(2, 8).flops, 12.0);
    EXPECT_DOUBLE_EQ(sm::spike_tip(2, 8).bytes_written, 4.0 * 8);
    EXPECT_DOUBLE_EQ(sm::coupling_update(2, 8).flops, 12.0);  // 2 triangles of 3 entries
}

// n = 3, K = 1: forward 2 x 2 flops; backward 2 x 2 flops + 3 divisions.
TEST(SpikeCounts, SolvePair)
{
    const auto t = sm::banded_solve_pair(3, 1, 8);
    EXPECT_DOUBLE_EQ(t.flops, 11.0);
    EXPECT_DOUBLE_EQ(t.bytes_read, (7.0 + 3 + 3) * 8);
    EXPECT_DOUBLE_EQ(t.bytes_written, 6.0 * 8);
}

// n = 3, K = 1, one rhs. With fill (ku = 2): dgbtrf r = 2: 1 + 2*1*2, r = 1: 1 + 2 -> 8;
// L solve 4; U solve 2 * (0 + 1 + 2) + 3 = 9. Without fill: 6 + 4 + 7.
TEST(SpikeCounts, Gbsv)
{
    EXPECT_DOUBLE_EQ(sm::gbsv(3, 1, 1, 8).flops, 21.0);
    EXPECT_DOUBLE_EQ(sm::gbsv(3, 1, 1, 8, false).flops, 17.0);
    // Leading term 4 K^2 N with fill, twice the SPIKE partition LU's.
    const double f = sm::gbsv(4000000, 64, 0, 8).flops;
    EXPECT_NEAR(f / (4.0 * 64 * 64 * 4e6), 1.0, 0.01);
    EXPECT_DOUBLE_EQ(sm::gbsv(10, 2, 0, 8).bytes_read, 7.0 * 10 * 8 * 2 + 40);
}

// ---- Partitioning and phases -------------------------------------------------------------------

TEST(SpikePartition, FloorWithRemainderInLast)
{
    const auto s = sm::partition(8191, 32, 2048);  // li2012 Fig. 3(b)
    EXPECT_EQ(s.partitions, 3);
    EXPECT_EQ(s.last_rows, 8191 - 2 * 2048);
    EXPECT_THROW(sm::partition(8192, 32, 63), std::invalid_argument);    // < 2K
    EXPECT_THROW(sm::partition(8192, 32, 4097), std::invalid_argument);  // > N/2
    EXPECT_THROW(sm::partition(100, 32, 64), std::invalid_argument);     // N < 4K
}

TEST(SpikePhases, SetupAndApplySumTheirBlocks)
{
    const auto s = sm::partition(1000, 2, 300);  // 3 partitions: 300, 300, 400 rows
    const auto setup = sm::setup_phases(s, 8);
    EXPECT_DOUBLE_EQ(phase_flops(setup, "lu"), 2 * sm::banded_lu(300, 2, 8).flops +
                                                    sm::banded_lu(400, 2, 8).flops);
    EXPECT_DOUBLE_EQ(phase_flops(setup, "ul_top"), 2 * sm::banded_ul(4, 2, 8).flops);
    EXPECT_DOUBLE_EQ(phase_flops(setup, "spike_tips"), 4 * 12.0);
    EXPECT_DOUBLE_EQ(phase_flops(setup, "reduced_factor"), 2 * 34.0);
    const auto apply = sm::apply_phases(s, 8);
    const double pair = 2 * sm::banded_solve_pair(300, 2, 8).flops +
                        sm::banded_solve_pair(400, 2, 8).flops;
    EXPECT_DOUBLE_EQ(sm::total(apply).flops, 2 * pair + 2 * (sm::reduced_solve(2, 8).flops +
                                                             sm::coupling_update(2, 8).flops));
}

TEST(SpikeCounts, BlockedLu)
{
    // rows = 10, K = 4: b = 3 block rows (the last padded), K^2 = 16, K^3 = 64.
    const auto t = sm::blocked_lu(10, 4, 8);
    EXPECT_DOUBLE_EQ(t.flops, 2 * (2.0 / 3 + 1 + 1 + 2) * 64 + 2.0 / 3 * 64);  // = 640
    EXPECT_DOUBLE_EQ(t.flops, 640.0);
    // band_entries(10, 4) = 10 + 2 (6 + 6 x 4) = 70; 3b - 2 = 7 dense blocks; cuBLAS 2 x 8 + 1
    // blocks read, 2 x 4 + 1 written.
    EXPECT_DOUBLE_EQ(t.bytes_read, (70 + 7 * 16 + 17 * 16) * 8.0);
    EXPECT_DOUBLE_EQ(t.bytes_written, (7 * 16 + 70 + 9 * 16) * 8.0);
    EXPECT_DOUBLE_EQ(sm::blocked_lu_launches(10, 4), 4 * 2 + 1 + 3);
    EXPECT_DOUBLE_EQ(sm::blocked_lu(0, 4, 8).flops, 0.0);
    EXPECT_THROW(sm::blocked_lu(-1, 4, 8), std::invalid_argument);
    // More flops than the element-wise LU at large K (dense triangular blocks): 14/3 against 2.
    EXPECT_GT(sm::blocked_lu(4096, 128, 8).flops, 2 * sm::banded_lu(4096, 128, 8).flops);
}

TEST(SpikePhases, BlockedLuIsOneBatchedPhase)
{
    const auto s = sm::partition(1000, 2, 300);  // 300, 300, 400 rows
    const auto setup = sm::setup_phases(s, 8, 16, true);
    EXPECT_DOUBLE_EQ(phase_flops(setup, "lu"), 2 * sm::blocked_lu(300, 2, 8).flops +
                                                    sm::blocked_lu(400, 2, 8).flops);
    EXPECT_DOUBLE_EQ(phase_flops(setup, "ul_top"), 2 * sm::blocked_lu(4, 2, 8).flops);
    for (const auto& ph : setup) {
        if (ph.name == "lu") {
            EXPECT_DOUBLE_EQ(ph.launches, sm::blocked_lu_launches(400, 2));  // the last's steps
            EXPECT_DOUBLE_EQ(ph.efficiency, 1.0);  // whole-GPU batched calls
            // The chain: 199 full block-row steps of the 400-row partition; the batches hold
            // 149 steps' blocks of each 300-row partition, 199 of the last, 1 of each of the
            // 2 corner-UL blocks.
            EXPECT_EQ(ph.chain, sm::Chain::blocked_step);
            EXPECT_DOUBLE_EQ(ph.chain_steps, 199.0);
            EXPECT_DOUBLE_EQ(ph.batch_blocks, 2 * 149.0 + 199.0 + 2.0);
        }
        if (ph.name == "ul_top") {
            EXPECT_DOUBLE_EQ(ph.launches, 0.0);  // inside the LU's calls
        }
        if (ph.name == "spike_tips") {
            EXPECT_DOUBLE_EQ(ph.launches, 4.0);  // rhs, 2 trsm, reversal
        }
        if (ph.name == "reduced_factor") {
            EXPECT_DOUBLE_EQ(ph.launches, 3.0);  // build, batched getrf, pivot check
            EXPECT_DOUBLE_EQ(ph.efficiency, 1.0);
        }
    }
}

TEST(SpikePhases, BicgstabIteration)
{
    const auto s = sm::partition(1000, 2, 300);
    const double nnz = 1000.0 * 5 - 6;
    const double apply = sm::total(sm::apply_phases(s, 8)).flops;
    EXPECT_DOUBLE_EQ(sm::total(sm::iteration_phases(s, 8)).flops,
                     2 * 2 * nnz + 22.0 * 1000 + 2 * apply);
    EXPECT_DOUBLE_EQ(sm::total(sm::iteration_phases(s, 8, false)).flops,
                     2 * 2 * nnz + 22.0 * 1000);
    // Vector bytes: 19 N reads and 4 N writes.
    const auto plain = sm::total(sm::iteration_phases(s, 8, false));
    EXPECT_DOUBLE_EQ(plain.bytes(), 2 * kbench::models::csr_spmv(1000, 1000, 4994, 8).bytes() +
                                        23.0 * 1000 * 8);
    // A solve of 7 iterations: setup + start + 7 iterations.
    const double solve = sm::total(sm::solve_phases(s, 7, 8)).flops;
    const double start = sm::total(sm::solve_phases(s, 0, 8)).flops;
    EXPECT_DOUBLE_EQ(solve - start, 7 * sm::total(sm::iteration_phases(s, 8)).flops);
    EXPECT_DOUBLE_EQ(start, sm::total(sm::setup_phases(s, 8)).flops + apply + 2 * nnz + 2000);
}

// ---- Time ---------------------------------------------------------------------------------------

TEST(SpikeTime, RooflinePerPhasePlusLaunches)
{
    sm::Phase ph{"x", {1e9, 1e9, 4e9}, 3, 1, 1};
    const sm::MachineRates m{1000.0, 1000.0, 1e-5};
    EXPECT_DOUBLE_EQ(sm::phase_time(ph, m), 4e-3 + 3e-5);  // compute bound: 4 ms
    ph.traffic.flops = 1e9;
    EXPECT_DOUBLE_EQ(sm::phase_time(ph, m), 2e-3 + 3e-5);  // memory bound: 2 GB
    ph.efficiency = 0.5;
    ph.count = 2;
    EXPECT_DOUBLE_EQ(sm::predict_time({ph, ph}, m), 4 * (4e-3 + 3e-5));
    EXPECT_THROW(sm::phase_time(ph, {0.0, 1.0, 0.0}), std::invalid_argument);
}

TEST(SpikeTime, ADependentChainBoundsAPhaseFromBelow)
{
    // Roofline 2 ms (2 GB at 1000 GB/s); chain: 2 waves x 1500 steps x 1 us = 3 ms.
    sm::Phase ph{"x", {1e9, 1e9, 1e9}, 3, 1, 1, 1500, 2};
    const sm::MachineRates m{1000.0, 1000.0, 1e-5, 1e-6};
    EXPECT_DOUBLE_EQ(sm::phase_time(ph, m), 3e-3 + 3e-5);
    ph.chain_steps = 500;  // 1 ms: the roofline bounds
    EXPECT_DOUBLE_EQ(sm::phase_time(ph, m), 2e-3 + 3e-5);
    // No measured step (older machine profiles): the roofline alone.
    ph.chain_steps = 1500;
    EXPECT_DOUBLE_EQ(sm::phase_time(ph, {1000.0, 1000.0, 1e-5, 0.0}), 2e-3 + 3e-5);
    ph.waves = 0.5;
    EXPECT_THROW(sm::phase_time(ph, m), std::invalid_argument);
    ph.waves = 1;
    EXPECT_THROW(sm::phase_time(ph, {1000.0, 1000.0, 1e-5, -1.0}), std::invalid_argument);
}

TEST(SpikeTime, AChainStepIsTheKernelsMeasuredStepElseBlockSteps)
{
    // Roofline 2 us (2 MB at 1000 GB/s); 1000 steps; block step 1 ns.
    sm::Phase ph{"x", {1e6, 1e6, 0.0}, 1, 1, 1, 1000, 1, sm::Chain::lu_pivot};
    sm::MachineRates m{1000.0, 1000.0, 0.0, 1e-9};
    EXPECT_DOUBLE_EQ(sm::phase_time(ph, m), 2e-6);  // 2 block steps per pivot: 2 us, a tie
    m.lu_step_s = 5e-9;                             // measured: 5 ns a pivot
    EXPECT_DOUBLE_EQ(sm::phase_time(ph, m), 5e-6);
    ph.chain = sm::Chain::solve_row;
    EXPECT_DOUBLE_EQ(sm::phase_time(ph, m), 2e-6);  // 1 block step a row: 1 us < roofline
    m.solve_step_s = 3e-9;
    EXPECT_DOUBLE_EQ(sm::phase_time(ph, m), 3e-6);
    ph.chain = sm::Chain::block;  // a barrier step: step_s whatever the kernels measured
    EXPECT_DOUBLE_EQ(sm::phase_time(ph, m), 2e-6);
    m.solve_step_s = -1.0;
    EXPECT_THROW(sm::phase_time(ph, m), std::invalid_argument);
}

TEST(SpikeTime, BlockKernelsTakeWholeWaves)
{
    // 2 MB at 1000 GB/s: 2 us; 5 blocks in waves of 2 blocks of 3 us each: 3 waves, 9 us.
    sm::Phase ph{"t", {1e6, 1e6, 0.0}, 1, 1, 1, 5, 1, sm::Chain::tips_block};
    sm::MachineRates m{1000.0, 1000.0, 0.0, 1e-9};
    EXPECT_DOUBLE_EQ(sm::phase_time(ph, m), 2e-6);  // no wave measured: the roofline
    m.tips_wave = {3e-6, 2};
    EXPECT_DOUBLE_EQ(sm::phase_time(ph, m), 9e-6);
    ph.chain = sm::Chain::reduced_block;  // the reduced blocks' wave is another figure
    EXPECT_DOUBLE_EQ(sm::phase_time(ph, m), 2e-6);
    m.reduced_wave = {1e-6, 8};
    EXPECT_DOUBLE_EQ(sm::phase_time(ph, m), 2e-6);  // one wave of 1 us: the roofline bounds
    m.reduced_wave.slots = -1;
    EXPECT_THROW(sm::phase_time(ph, m), std::invalid_argument);
}

TEST(SpikeTime, BlockedLuStepsAreFixedPlusPerBlock)
{
    // 3 steps over 50 blocks in all; a step 10 us fixed (4 launches of 2 us inside it) and
    // 0.1 us per block: 3 x (10 - 8) + 50 x 0.1 = 11 us of chain, against 2 us of roofline,
    // plus the phase's own 5 launches (10 us).
    sm::Phase ph{"lu", {1e6, 1e6, 0.0}, 5, 1, 1, 3, 1, sm::Chain::blocked_step};
    ph.batch_blocks = 50;
    sm::MachineRates m{1000.0, 1000.0, 2e-6, 1e-9};
    EXPECT_DOUBLE_EQ(sm::phase_time(ph, m), 2e-6 + 10e-6);  // not measured: the roofline
    m.blocked_step = {10e-6, 1e-7};
    EXPECT_NEAR(sm::phase_time(ph, m), 11e-6 + 10e-6, 1e-18);
    m.blocked_step = {5e-6, 0.0};  // a fixed part below its launches adds nothing to them
    EXPECT_DOUBLE_EQ(sm::phase_time(ph, m), 2e-6 + 10e-6);
    m.blocked_step.per_block_s = -1e-9;
    EXPECT_THROW(sm::phase_time(ph, m), std::invalid_argument);
}

TEST(SpikePhases, ChainStepsOfTheSequentialKernels)
{
    // 3 partitions (300, 300, 400 rows), K = 2, 2 concurrent blocks.
    const auto s = sm::partition(1000, 2, 300);
    for (const auto& ph : sm::setup_phases(s, 8, 2)) {
        if (ph.name == "lu") {
            EXPECT_DOUBLE_EQ(ph.chain_steps, 400);  // a pivot per row of the longest block
            EXPECT_EQ(ph.chain, sm::Chain::lu_pivot);
            EXPECT_DOUBLE_EQ(ph.waves, 3.0);  // 3 LU + 2 corner-UL blocks on 2 slots
        } else if (ph.name == "spike_tips") {
            EXPECT_DOUBLE_EQ(ph.chain_steps, 4.0);  // 2 (p - 1) blocks
            EXPECT_EQ(ph.chain, sm::Chain::tips_block);
        } else if (ph.name == "reduced_factor") {
            EXPECT_DOUBLE_EQ(ph.chain_steps, 2.0);  // p - 1 blocks
            EXPECT_EQ(ph.chain, sm::Chain::reduced_block);
        } else {
            EXPECT_DOUBLE_EQ(ph.chain_steps, 0.0);
        }
    }
    for (const auto& ph : sm::apply_phases(s, 8, 2)) {
        if (ph.name == "solve_pair_1" || ph.name == "solve_pair_2") {
            EXPECT_DOUBLE_EQ(ph.chain_steps, 2.0 * 400);  // forward and backward sweeps
            EXPECT_EQ(ph.chain, sm::Chain::solve_row);
            EXPECT_DOUBLE_EQ(ph.waves, 2.0);  // 3 partitions on 2 slots
        }
        if (ph.name == "reduced_solve") {
            EXPECT_DOUBLE_EQ(ph.chain_steps, 2.0 * 4);  // 2K rows, both ways
            EXPECT_DOUBLE_EQ(ph.waves, 1.0);            // 2 interfaces
        }
        if (ph.name == "coupling") {
            EXPECT_DOUBLE_EQ(ph.chain_steps, 0.0);
        }
    }
    for (const auto& ph : sm::setup_phases(s, 8, 2, true))  // batched cuBLAS: no chain but the
        EXPECT_DOUBLE_EQ(ph.chain_steps, ph.name == "lu" ? 199.0 : 0.0);  // LU's block rows
    EXPECT_DOUBLE_EQ(sm::block_waves(5, 0), 1.0);  // slots unknown
}

TEST(SpikeTime, PartitionEfficiency)
{
    EXPECT_DOUBLE_EQ(sm::partition_efficiency(66, 1, 132), 0.5);
    EXPECT_DOUBLE_EQ(sm::partition_efficiency(132, 1, 132), 1.0);
    EXPECT_DOUBLE_EQ(sm::partition_efficiency(133, 1, 132), 133.0 / 264);
    EXPECT_DOUBLE_EQ(sm::partition_efficiency(132, 2, 132), 133.0 / 264);  // last twice as long
    EXPECT_DOUBLE_EQ(sm::partition_efficiency(10, 1, 0), 1.0);            // slots unknown
}

// ---- Spike decay -------------------------------------------------------------------------------

TEST(SpikeDecay, TruncationErrorClosedForms)
{
    const sm::SpikeDecay geometric{0.5, 0.0};  // no dominance known: no cap
    EXPECT_DOUBLE_EQ(sm::truncation_error(40, 10, geometric), 0.125);  // 0.5^(4 - 1)
    EXPECT_DOUBLE_EQ(sm::truncation_error(20, 10, geometric), 0.5);
    EXPECT_DOUBLE_EQ(sm::truncation_error(5, 10, geometric), 1.0);     // psize < K: capped
    // d_min caps rho at 1 / d_min: rho = 0.9 with d_min = 4 decays as 0.25.
    EXPECT_DOUBLE_EQ(sm::effective_rho({0.9, 4.0}), 0.25);
    EXPECT_DOUBLE_EQ(sm::effective_rho({0.1, 4.0}), 0.1);
    EXPECT_DOUBLE_EQ(sm::truncation_error(40, 10, {0.9, 4.0}), 0.25 * 0.25 * 0.25);
    // No decay (a weakly dominant M-matrix, or not dominant): nothing is truncated away.
    EXPECT_DOUBLE_EQ(sm::truncation_error(4000, 10, {1.0, 1.0}), 1.0);
    EXPECT_DOUBLE_EQ(sm::truncation_error(4000, 10, {1.5, 0.5}), 1.0);
    EXPECT_DOUBLE_EQ(sm::decay_bound_from_dominance(4.0), 0.25);
    EXPECT_EQ(sm::decay_bound_from_dominance(0.0), std::numeric_limits<double>::infinity());
    EXPECT_THROW(sm::truncation_error(40, 0, geometric), std::invalid_argument);
    EXPECT_THROW(sm::truncation_error(0, 10, geometric), std::invalid_argument);
    EXPECT_THROW(sm::truncation_error(40, 10, {-0.1, 0.0}), std::invalid_argument);
}

TEST(SpikeDecay, MinPsizeInvertsTheEstimate)
{
    EXPECT_EQ(sm::min_psize_for_truncation(0.125, 10, {0.5, 0.0}), 40);
    EXPECT_EQ(sm::min_psize_for_truncation(0.01, 32, {0.1, 0.0}), 96);   // K (1 + 2)
    EXPECT_EQ(sm::min_psize_for_truncation(0.01, 32, {0.9, 10.0}), 96);  // capped at 1 / d
    EXPECT_EQ(sm::min_psize_for_truncation(0.01, 32, {0.0, 0.0}), 32);   // no spike: K
    EXPECT_EQ(sm::min_psize_for_truncation(0.01, 32, {1.0, 1.0}), -1);   // no decay
    EXPECT_EQ(sm::min_psize_for_truncation(0.01, 32, {1.2, 0.9}), -1);
    // The default decay gives the former fixed floor psize >= 8K at the default target.
    const sm::PsizeOptions defaults;
    for (std::int64_t k : {1, 8, 32, 256})
        EXPECT_EQ(sm::min_psize_for_truncation(defaults.truncation_target, k, defaults.decay),
                  8 * k);
    // Round trip: the smallest psize meeting the target, over a grid.
    for (double rho : {0.01, 0.14, 0.5, 0.9, 0.99})
        for (double d_min : {0.0, 1.0, 3.0})
            for (double target : {1e-1, 1e-2, 1e-4})
                for (std::int64_t k : {1, 7, 32}) {
                    const sm::SpikeDecay decay{rho, d_min};
                    const std::int64_t p = sm::min_psize_for_truncation(target, k, decay);
                    ASSERT_GT(p, 0);
                    EXPECT_LE(sm::truncation_error(p, k, decay), target * (1 + 1e-9))
                        << rho << " " << d_min << " " << target << " " << k;
                    if (p > 1) {
                        EXPECT_GT(sm::truncation_error(p - 1, k, decay), target * (1 - 1e-9))
                            << rho << " " << d_min << " " << target << " " << k;
                    }
                }
    EXPECT_THROW(sm::min_psize_for_truncation(0.0, 32, {}), std::invalid_argument);
    EXPECT_THROW(sm::min_psize_for_truncation(1.0, 32, {}), std::invalid_argument);
    EXPECT_THROW(sm::min_psize_for_truncation(0.01, 0, {}), std::invalid_argument);
}

// ---- Partition-size chooser ---------------------------------------------------------------------

TEST(SpikeChooser, ConstraintsHoldOnAGrid)
{
    // Decays: the default (floor 8K), random signs at d = 1 (rho ~0.14, measured), a slow one,
    // a fast one, and two that reach no target (the no-decay floor 8K): no decay at d = 1, not
    // dominant.
    const sm::SpikeDecay decays[] = {{},           {0.14, 1.0}, {0.98, 1.02}, {0.01, 100.0},
                                     {1.0, 1.0},   {1.5, 0.5}};
    for (const sm::SpikeDecay& decay : decays)
        for (std::int64_t n : {1000, 3000, 10000, 100000, 1000000, 10000000})
            for (std::int64_t k : {1, 2, 8, 32, 64, 128, 256})
                for (int sms : {1, 16, 66, 132, 264})
                    for (int r : {1, 2, 4}) {
                        sm::PsizeOptions o;
                        o.decay = decay;
                        if (n < 4 * k) {
                            EXPECT_THROW(sm::choose_psize(n, k, sms, r, o), std::invalid_argument);
                            continue;
                        }
                        const auto c = sm::choose_psize(n, k, sms, r, o);
                        const auto& s = c.partitioning;
                        SCOPED_TRACE("rho=" + std::to_string(decay.rho) + " N=" +
                                     std::to_string(n) + " K=" + std::to_string(k) +
                                     " sms=" + std::to_string(sms) + " r=" + std::to_string(r));
                        EXPECT_GE(s.psize, 2 * k);
                        EXPECT_LE(s.psize, n / 2);
                        const std::int64_t need =
                            sm::min_psize_for_truncation(o.truncation_target, k, decay);
                        const bool reachable = need > 0 && need <= n / 2;
                        const std::int64_t floor =
                            std::max(2 * k, std::min(reachable ? need : 8 * k, n / 2));
                        EXPECT_EQ(c.min_psize, floor);
                        EXPECT_GE(s.psize, floor);  // the accuracy floor
                        EXPECT_EQ(c.target_met, reachable);
                        EXPECT_DOUBLE_EQ(c.truncation, sm::truncation_error(s.psize, k, decay));
                        EXPECT_EQ(s.partitions, n / s.psize);
                        EXPECT_GE(s.partitions, 2);
                        EXPECT_GE(s.last_rows, s.psize);
                        EXPECT_LT(s.last_rows, 2 * s.psize);
                        EXPECT_GT(c.predicted_s, 0.0);
                    }
}

// Weaker dominance, slower decay: the floor and the chosen psize never shrink, and grow between
// d = 100 and d = 1.1 (rho = 1 / d, the dominance bound), as long as some psize <= N/2 reaches
// the target.
TEST(SpikeChooser, WeakerDominanceGivesLargerPsize)
{
    for (std::int64_t n : {20000, 100000, 1000000})
        for (int r : {1, 4}) {
            std::int64_t prev_psize = 0, prev_floor = 0;
            for (double d : {100.0, 10.0, 4.0, 2.0, 1.5, 1.2, 1.1}) {
                sm::PsizeOptions o;
                o.decay = {sm::decay_bound_from_dominance(d), d};
                const auto c = sm::choose_psize(n, 32, 132, r, o);
                SCOPED_TRACE("N=" + std::to_string(n) + " r=" + std::to_string(r) +
                             " d=" + std::to_string(d));
                EXPECT_GE(c.min_psize, prev_floor);
                EXPECT_GE(c.partitioning.psize, prev_psize);
                prev_floor = c.min_psize;
                prev_psize = c.partitioning.psize;
            }
        }
    sm::PsizeOptions strong, weak;
    strong.decay = {0.01, 100.0};
    weak.decay = {1.0 / 1.1, 1.1};
    EXPECT_EQ(sm::choose_psize(100000, 32, 132, 4, strong).min_psize, 64);  // 2K
    // K (1 + ln 100 / ln 1.1) = 1578.2
    EXPECT_EQ(sm::choose_psize(100000, 32, 132, 4, weak).min_psize, 1579);
    EXPECT_GT(sm::choose_psize(100000, 32, 132, 4, weak).partitioning.psize,
              sm::choose_psize(100000, 32, 132, 4, strong).partitioning.psize);
    // Unreachable target (no decay): the no-decay floor 8K, as the former rule, not N/2.
    sm::PsizeOptions none;
    none.decay = {1.0, 0.9};
    const auto c = sm::choose_psize(100000, 32, 132, 4, none);
    EXPECT_EQ(c.min_psize, 256);
    EXPECT_EQ(c.partitioning.psize, sm::choose_psize(100000, 32, 132, 4).partitioning.psize);
    EXPECT_FALSE(c.target_met);
    EXPECT_DOUBLE_EQ(c.truncation, 1.0);
}

TEST(SpikeChooser, BiggerGpuGetsMorePartitions)
{
    for (std::int64_t n : {100000, 1000000, 10000000})
        for (std::int64_t k : {1, 8, 32, 128}) {
            const auto small = sm::choose_psize(n, k, 66, 1);
            const auto big = sm::choose_psize(n, k, 132, 1);
            EXPECT_GE(big.partitioning.partitions, small.partitioning.partitions)
                << "N=" << n << " K=" << k;
        }
    EXPECT_GT(sm::choose_psize(10000000, 32, 132, 1).partitioning.partitions,
              sm::choose_psize(10000000, 32, 66, 1).partitioning.partitions);
    EXPECT_GT(sm::choose_psize(10000000, 32, 132, 2).partitioning.partitions,
              sm::choose_psize(10000000, 32, 132, 1).partitioning.partitions);
}

// Large N: one wave of partitions fills the GPU. Small N: the floor binds; with the default
// decay it is the former fixed floor psize = 8K, so the former choices come back.
TEST(SpikeChooser, OneWaveOrQualityFloor)
{
    const auto big = sm::choose_psize(10000000, 32, 132, 1);
    EXPECT_LE(big.partitioning.partitions, 132);
    EXPECT_GE(big.partitioning.partitions, 120);
    EXPECT_EQ(big.waves, 1.0);
    const auto small = sm::choose_psize(10000, 32, 132, 1);
    EXPECT_EQ(small.partitioning.psize, 256);
    EXPECT_EQ(small.partitioning.partitions, 39);
    EXPECT_EQ(small.min_psize, 256);
    EXPECT_TRUE(small.target_met);
    // The same rule from a decay that asks for 8K at another target: the same choices.
    sm::PsizeOptions o;
    o.truncation_target = 1e-3;
    o.decay.rho = std::pow(1e-3, 1.0 / 7.0);
    EXPECT_EQ(sm::choose_psize(10000, 32, 132, 1, o).partitioning.psize, 256);
    EXPECT_EQ(sm::choose_psize(10000000, 32, 132, 1, o).partitioning.psize,
              big.partitioning.psize);
    EXPECT_THROW(sm::choose_psize(10000, 32, 0, 1), std::invalid_argument);
    o.truncation_target = 1.0;
    EXPECT_THROW(sm::choose_psize(10000, 32, 132, 1, o), std::invalid_argument);
}
