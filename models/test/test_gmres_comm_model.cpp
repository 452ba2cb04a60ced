// The GMRES(m) iteration model of zianekhodja2014 Algorithm 1 (models/gmres_comm_model.hpp):
// counts and times checked by hand on a small case, monotonicity, one rank, and the halo counts
// of matrices/row_partition.hpp fed in.
#include "models/gmres_comm_model.hpp"

#include "matrices/generators.hpp"
#include "matrices/row_partition.hpp"

#include "kernels/test/expect_invalid.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace kbench::models {
namespace {

// 100 rows, 500 nonzeros, 10 halo words in 2 messages; 1 GB/s device, 100 MB/s link,
// 1 us per message, 10 us per all-reduce, 50 MB/s PCIe.
const GmresRankLoad load{100, 500, 10, 2};
const GmresMachine machine{1e9, 1e8, 1e-6, 1e-5, 5e7, 0, 0, {}};

GmresSetup setup(int m, GmresOrth orth = GmresOrth::mgs, HaloPath path = HaloPath::direct)
{
    GmresSetup s;
    s.m = m;
    s.orth = orth;
    s.halo_path = path;
    return s;
}

TEST(GmresCommModel, CountsByHand)
{
    // MGS, j = 2: Jacobi 3 + 2 x (dot 2 + axpy 3) + norm 1 + scaling 2 = 16 passes; 3 all-reduces.
    const auto s2 = gmres_step_counts(2, GmresOrth::mgs);
    EXPECT_EQ(s2.spmvs, 1);
    EXPECT_EQ(s2.vector_passes, 16);
    EXPECT_EQ(s2.allreduces, 3);
    EXPECT_EQ(s2.allreduce_words, 3);
    // CGS2, j = 2: 3 + 2 x (3 + 4) + 1 + 2 = 20 passes; 2 all-reduces of 2 words + 1 of 1.
    const auto c2 = gmres_step_counts(2, GmresOrth::cgs2);
    EXPECT_EQ(c2.vector_passes, 20);
    EXPECT_EQ(c2.allreduces, 3);
    EXPECT_EQ(c2.allreduce_words, 5);
    // Restart of m = 2: x update 4 + copies of x and b 4 + r read by the SpMV 1 + Jacobi 3 +
    // norm 1 + v_1 2 = 15 passes.
    EXPECT_EQ(gmres_restart_counts(2).vector_passes, 15);
    // Cycle of m = 2 (j = 1: 11 passes, 2 all-reduces; j = 2: 16, 3; restart: 15, 1).
    const auto mgs = gmres_cycle_counts(2, GmresOrth::mgs);
    EXPECT_EQ(mgs.spmvs, 3);
    EXPECT_EQ(mgs.vector_passes, 42);
    EXPECT_EQ(mgs.allreduces, 6);
    EXPECT_EQ(mgs.allreduce_words, 6);
    // The closed forms of the header, m = 30.
    const double m = 30;
    const auto big = gmres_cycle_counts(30, GmresOrth::mgs);
    EXPECT_EQ(big.vector_passes, 6 * m + 5 * m * (m + 1) / 2 + m + 13);
    EXPECT_EQ(big.allreduces, m * (m + 1) / 2 + m + 1);
    const auto cgs2 = gmres_cycle_counts(30, GmresOrth::cgs2);
    EXPECT_EQ(cgs2.spmvs, m + 1);
    EXPECT_EQ(cgs2.vector_passes, 12 * m + 2 * m * (m + 1) + m + 13);
    EXPECT_EQ(cgs2.allreduces, 3 * m + 1);
    EXPECT_EQ(cgs2.allreduce_words, m * (m + 1) + m + 1);
}

TEST(GmresCommModel, TimeByHandOnTwoRanks)
{
    const auto t = gmres_iteration_time(load, 2, setup(2), machine);
    // SpMV: 500 x (8 + 4) + 101 x 4 + (100 + 10) x 8 + 100 x 8 = 8084 bytes; 3 per cycle of 2.
    EXPECT_DOUBLE_EQ(gmres_spmv_bytes(load, 8, 4), 8084);
    EXPECT_DOUBLE_EQ(t.spmv, 3 * 8084 / 1e9 / 2);
    // Vectors: 42 passes x 100 rows x 8 bytes per cycle.
    EXPECT_DOUBLE_EQ(t.vector_ops, 42 * 100 * 8 / 1e9 / 2);
    // Halo: 1 us (one exchange: its 2 messages overlap) + 80 bytes / 1e8 = 1.8 us per exchange,
    // 3 per cycle.
    EXPECT_DOUBLE_EQ(t.halo, 3 * 1.8e-6 / 2);
    // All-reduces: 6 x 10 us + 6 words x 8 bytes / 1e8 per cycle.
    EXPECT_DOUBLE_EQ(t.reductions, (6 * 1e-5 + 48 / 1e8) / 2);
    // No launch costs: the pipeline's time is the sum of the work.
    EXPECT_DOUBLE_EQ(t.total, t.spmv + t.vector_ops + t.halo + t.reductions);
    EXPECT_NEAR(t.total, 6.1866e-5, 1e-15);
    EXPECT_EQ(t.launches, 0.0);
    // Host-staged: + 2 x 80 bytes / 5e7 = 3.2 us per exchange; nothing else changes.
    const auto staged =
        gmres_iteration_time(load, 2, setup(2, GmresOrth::mgs, HaloPath::host_staged), machine);
    EXPECT_DOUBLE_EQ(staged.halo, 3 * 5.0e-6 / 2);
    EXPECT_DOUBLE_EQ(staged.spmv, t.spmv);
    EXPECT_DOUBLE_EQ(staged.total, staged.spmv + staged.vector_ops + staged.halo +
                                       staged.reductions);
    // A link figure measured over the host-staged path holds the copies: no PCIe term.
    GmresMachine measured_path = machine;
    measured_path.pcie_bytes_per_s = 0;
    EXPECT_DOUBLE_EQ(gmres_iteration_time(load, 2, setup(2, GmresOrth::mgs, HaloPath::host_staged),
                                          measured_path).halo,
                     t.halo);
    // CGS2: 51 passes, 7 all-reduces of 9 words per cycle.
    const auto c = gmres_iteration_time(load, 2, setup(2, GmresOrth::cgs2), machine);
    EXPECT_DOUBLE_EQ(c.vector_ops, 51 * 100 * 8 / 1e9 / 2);
    EXPECT_DOUBLE_EQ(c.reductions, (7 * 1e-5 + 9 * 8 / 1e8) / 2);
}

TEST(GmresCommModel, OneRankHasNoCommunication)
{
    GmresMachine local;  // only the device bandwidth: links are never used on one rank
    local.device_bytes_per_s = 1e9;
    const GmresRankLoad alone{100, 500, 0, 0};
    for (auto path : {HaloPath::direct, HaloPath::host_staged}) {
        const auto t = gmres_iteration_time(alone, 1, setup(2, GmresOrth::mgs, path), local);
        EXPECT_EQ(t.halo, 0.0);
        EXPECT_EQ(t.reductions, 0.0);
        EXPECT_DOUBLE_EQ(t.spmv, 3 * (500 * 12 + 101 * 4 + 100 * 8 + 100 * 8) / 1e9 / 2);
        EXPECT_DOUBLE_EQ(t.total, t.spmv + t.vector_ops);
    }
    // On one rank the GPU ranks issue no all-reduce: a latency given for it is not priced.
    GmresMachine timed = local;
    timed.allreduce_latency_s = 1e-5;
    EXPECT_EQ(gmres_iteration_time(alone, 1, setup(2), timed).reductions, 0.0);
    test::expect_invalid([&] { gmres_iteration_time(load, 1, setup(2), machine); },
                         {"gmres_iteration_time", "halo_words = 10", "num_ranks = 1"});
}

TEST(GmresCommModel, LaunchesAndSynchronizationsOfACycle)
{
    // m = 16, MGS: 6 * 16 + 16 * 17 + 9 = 377 launches, 18 syncs; CGS2: 10 * 16 + 9 = 169.
    const GmresCounts mgs = gmres_cycle_counts(16, GmresOrth::mgs);
    EXPECT_DOUBLE_EQ(mgs.launches, 377);
    EXPECT_DOUBLE_EQ(mgs.syncs, 18);
    EXPECT_DOUBLE_EQ(gmres_cycle_counts(16, GmresOrth::cgs2).launches, 169);
    // Past 64 columns CGS2 works in two chunks: step j = 65 has 6 + 4 * 2 launches.
    EXPECT_DOUBLE_EQ(gmres_step_counts(64, GmresOrth::cgs2).launches, 10);
    EXPECT_DOUBLE_EQ(gmres_step_counts(65, GmresOrth::cgs2).launches, 14);
    // The timeline issues exactly the counted launches and syncs on one rank.
    for (auto orth : {GmresOrth::mgs, GmresOrth::cgs2})
        for (int m : {1, 16, 70}) {
            const auto tl = gmres_cycle_timeline(1, setup(m, orth), LaunchCosts{}, GmresOpTimes{});
            const GmresCounts c = gmres_cycle_counts(m, orth);
            EXPECT_EQ(tl.launches(), c.launches) << "m = " << m;
            EXPECT_EQ(tl.syncs(), c.syncs) << "m = " << m;
        }
}

TEST(GmresCommModel, WithoutLaunchCostsTheTimelineIsTheWork)
{
    for (auto orth : {GmresOrth::mgs, GmresOrth::cgs2})
        for (auto path : {HaloPath::direct, HaloPath::host_staged})
            for (int p : {1, 2}) {
                const GmresRankLoad l = p == 1 ? GmresRankLoad{100, 500, 0, 0} : load;
                const auto t = gmres_iteration_time(l, p, setup(16, orth, path), machine);
                EXPECT_NEAR(t.total, t.spmv + t.vector_ops + t.halo + t.reductions,
                            1e-12 * t.total);
            }
}

TEST(GmresCommModel, ShortKernelsAreLaunchBound)
{
    // 100 rows at 1e12 B/s: every kernel ends long before the next launch arrives; the cycle
    // is the host's: 377 launches + 18 wake-ups (sync - launch), plus the few ns of the kernels
    // just before the syncs (under 1e-7 s).
    GmresMachine gpu;
    gpu.device_bytes_per_s = 1e12;
    gpu.launch = {2e-6, 1e-5, 0, 0, 0};
    const auto t = gmres_iteration_time(GmresRankLoad{100, 500, 0, 0}, 1, setup(16), gpu);
    EXPECT_NEAR(t.total * 16, 377 * 2e-6 + 18 * (1e-5 - 2e-6), 1e-7);
    EXPECT_NEAR(t.launches, t.total - t.spmv - t.vector_ops, 1e-18);
    gpu.launch.sync_s = -1;
    test::expect_invalid([&] { gmres_iteration_time(GmresRankLoad{}, 1, setup(16), gpu); },
                         {"sync_s = -1"});
}

TEST(GmresCommModel, MeasuredHostCostsPriceEachLaunchByItsKind)
{
    // m = 1, MGS, 100 rows at 1e12 B/s (kernels of < 1 ns), no wake-up (sync_s 0): the host's
    // costs alone. Kernels 4 us, dots 5 us, copies 2 us, a synchronization's tail 14 us.
    // Step: SpMV 4, Jacobi 4, dot 5, update 4, norm 5, 2 copies 4, sync 14, scaling 4 = 44.
    // Restart: y 2, update 4, sync 14, copies of x and b 8, SpMV 4, Jacobi 4, norm 5, copy 2,
    // sync 14, scaling 4 = 61. A full cycle (iterations 0): 105.
    GmresMachine gpu;
    gpu.device_bytes_per_s = 1e12;
    gpu.launch.launch_s = 4e-6;
    gpu.launch.reduction_launch_s = 5e-6;
    gpu.launch.copy_launch_s = 2e-6;
    gpu.launch.sync_tail_s = 14e-6;
    const auto t = gmres_iteration_time(GmresRankLoad{100, 500, 0, 0}, 1, setup(1), gpu);
    EXPECT_NEAR(t.total, 105e-6, 1e-8);
}

TEST(GmresCommModel, ASolveThatStopsEarlyHasShorterSteps)
{
    GmresMachine gpu;
    gpu.device_bytes_per_s = 1e12;
    gpu.launch = {2e-6, 1e-5, 0, 0, 0};
    const GmresRankLoad alone{100, 500, 0, 0};
    GmresSetup s = setup(16);
    const double cycle16 = gmres_iteration_time(alone, 1, s, gpu).total * 16;
    // A solve opens with a residual: copies of x and b, SpMV, Jacobi, dot, copy of the norm (6
    // launches) and a synchronization, 6 * 2 + 8 = 20 us.
    const double opening = 20e-6;
    s.iterations = 16;  // one full cycle: the cycle and the opening residual
    EXPECT_NEAR(gmres_iteration_time(alone, 1, s, gpu).total * 16, cycle16 + opening, 1e-10);
    // 9 iterations: one cycle of 9 steps, 6 * 9 + 9 * 10 + 9 = 153 launches and 11 syncs, as
    // launch-bound as above.
    s.iterations = 9;
    const double solve9 = gmres_iteration_time(alone, 1, s, gpu).total * 9;
    EXPECT_NEAR(solve9, 153 * 2e-6 + 11 * (1e-5 - 2e-6) + opening, 1e-7);
    // 41 = 2 x 16 + 9, one opening residual.
    s.iterations = 41;
    EXPECT_NEAR(gmres_iteration_time(alone, 1, s, gpu).total * 41, 2 * cycle16 + solve9, 1e-10);
    s.iterations = -1;
    test::expect_invalid([&] { gmres_iteration_time(alone, 1, s, gpu); }, {"iterations = -1"});
}

TEST(GmresCommModel, LongKernelsHideTheLaunches)
{
    // 1e6 rows at 1e12 B/s, launches of 0.1 us, no wake-up cost: the host stays ahead except
    // after each of the 18 syncs, where the next launch (0.1 us) is exposed, and at the start.
    // Each of the 343 streaming kernels and dots (step j: SpMV, Jacobi, j dots and j updates,
    // the norm, the scaling: 4 + 2j; the restart: 7) adds its fixed 1 us.
    GmresMachine gpu;
    gpu.device_bytes_per_s = 1e12;
    gpu.launch = {1e-7, 0, 1e-6, 1e-6, 0};
    const GmresRankLoad big{1e6, 5e6, 0, 0};
    const auto t = gmres_iteration_time(big, 1, setup(16), gpu);
    const double work = (t.spmv + t.vector_ops) * 16;
    EXPECT_NEAR(t.total * 16, work + 343 * 1e-6 + 19 * 1e-7, 1e-12);
    EXPECT_GT(t.launches, 0.0);
}

TEST(GmresCommModel, AWorkingVectorThatFitsInL2IsReadFromIt)
{
    // m = 2, MGS: working passes (3 * 1 + 3) + (3 * 2 + 3) = 15 of the cycle's vector passes.
    EXPECT_DOUBLE_EQ(gmres_cycle_counts(2, GmresOrth::mgs).working_passes, 15);
    EXPECT_DOUBLE_EQ(gmres_cycle_counts(2, GmresOrth::cgs2).working_passes, 18);
    GmresMachine dram;
    dram.device_bytes_per_s = 1e9;
    GmresMachine cached = dram;
    cached.l2_bytes = 1600;  // 100 rows x 8 bytes = 800 <= 1600 / 2: w is cached
    cached.l2_bytes_per_s = 4e9;
    const GmresRankLoad alone{100, 500, 0, 0};
    const GmresCounts c = gmres_cycle_counts(2, GmresOrth::mgs);
    const double a = gmres_iteration_time(alone, 1, setup(2), dram).vector_ops;
    const double b = gmres_iteration_time(alone, 1, setup(2), cached).vector_ops;
    EXPECT_DOUBLE_EQ(a, c.vector_passes * 800 / 1e9 / 2);
    EXPECT_DOUBLE_EQ(b, ((c.vector_passes - 15) * 800 / 1e9 + 15 * 800 / 4e9) / 2);
    cached.l2_bytes = 1599;  // 800 > 1599 / 2: no longer cached
    EXPECT_DOUBLE_EQ(gmres_iteration_time(alone, 1, setup(2), cached).vector_ops, a);
    cached.l2_bytes_per_s = 0;
    test::expect_invalid([&] { gmres_iteration_time(alone, 1, setup(2), cached); },
                         {"l2_bytes_per_s = 0"});
}

TEST(GmresCommModel, MoreWorkOrWordsTakeLonger)
{
    const auto base = gmres_iteration_time(load, 4, setup(30), machine);
    GmresRankLoad more = load;
    more.halo_words *= 2;
    const auto t = gmres_iteration_time(more, 4, setup(30), machine);
    EXPECT_GT(t.halo, base.halo);
    EXPECT_GT(t.spmv, base.spmv);  // more ghost entries of x read
    EXPECT_GT(t.total, base.total);
    // More neighbours in one exchange: their messages overlap, one latency all the same; no
    // neighbour at all: none.
    more = load;
    more.halo_messages += 1;
    EXPECT_DOUBLE_EQ(gmres_iteration_time(more, 4, setup(30), machine).total, base.total);
    more.halo_words = more.halo_messages = 0;
    // (m + 1 exchanges per cycle of m = 30 iterations)
    EXPECT_NEAR(base.halo - gmres_iteration_time(more, 4, setup(30), machine).halo,
                (machine.p2p_latency_s + load.halo_words * 8 / machine.link_bytes_per_s) * 31 / 30,
                1e-18);
    more = load;
    more.rows *= 2;
    EXPECT_GT(gmres_iteration_time(more, 4, setup(30), machine).vector_ops, base.vector_ops);
    EXPECT_GT(gmres_iteration_time(load, 4, setup(30, GmresOrth::mgs, HaloPath::host_staged),
                                   machine).total, base.total);
    EXPECT_GT(gmres_iteration_time(load, 4, setup(40), machine).total, base.total);
    // MGS pays j + 1 latencies per step, CGS2 three.
    EXPECT_LT(gmres_iteration_time(load, 4, setup(30, GmresOrth::cgs2), machine).reductions,
              base.reductions);
}

TEST(GmresCommModel, SlowestRankCounts)
{
    const std::vector<GmresRankLoad> ranks{{100, 500, 10, 2}, {100, 500, 40, 3}, {90, 450, 5, 1}};
    const auto t = gmres_iteration_time(ranks, setup(10), machine);
    const auto slowest = gmres_iteration_time(ranks[1], 3, setup(10), machine);
    EXPECT_DOUBLE_EQ(t.total, slowest.total);
    EXPECT_DOUBLE_EQ(t.halo, slowest.halo);
}

TEST(GmresCommModel, CompressedHaloIsFasterThanTheBandwidthWindow)
{
    // A five-band replicated matrix on 4 row blocks: the per-rank counts of both schemes
    // (matrices/row_partition.hpp) priced on the same machine.
    const auto a = replicate(convection_diffusion(8, 6, 1, 10.0, -5.0, 0.0), 1000,
                             ReplicationLayout::five_band);
    const std::vector<index_type> offsets{0, 250, 500, 750, a.num_rows};
    auto loads = [&](const SpmvCommVolume& v) {
        std::vector<GmresRankLoad> out;
        for (int d = 0; d < v.num_ranks(); ++d)
            out.push_back({static_cast<double>(offsets[d + 1] - offsets[d]),
                           static_cast<double>(a.row_ptr[offsets[d + 1]] - a.row_ptr[offsets[d]]),
                           static_cast<double>(v.words_received[d]),
                           static_cast<double>(v.messages_received[d])});
        return out;
    };
    const auto bw = gmres_iteration_time(loads(bandwidth_comm_volume(a, offsets)), setup(30),
                                         machine);
    const auto cmp = gmres_iteration_time(loads(compressed_comm_volume(a, offsets)), setup(30),
                                          machine);
    EXPECT_LT(cmp.halo, bw.halo);
    EXPECT_LT(cmp.total, bw.total);
}

TEST(GmresCommModel, OverlappedSpmvHidesTheHaloBehindTheInteriorProduct)
{
    // The load of TimeByHandOnTwoRanks with 20 boundary rows of 120 nonzeros. Interior product:
    // 380 x 12 + 101 x 4 + 100 x 8 (x) + 100 x 8 (y) = 6564 bytes; boundary product:
    // 120 x 12 + 21 x 4 + 110 x 8 (x: min(110, 120)) + 20 x 8 = 2564; scatter-add:
    // 20 x (3 x 8 + 4) = 560.
    GmresRankLoad split = load;
    split.boundary_rows = 20;
    split.boundary_nnz = 120;
    const GmresOverlapBytes b = gmres_overlap_bytes(split, 8, 4);
    EXPECT_DOUBLE_EQ(b.interior, 6564);
    EXPECT_DOUBLE_EQ(b.boundary, 2564);
    EXPECT_DOUBLE_EQ(b.scatter, 560);
    GmresSetup over = setup(2);
    over.overlap = true;
    const auto plain = gmres_iteration_time(split, 2, setup(2), machine);
    const auto t = gmres_iteration_time(split, 2, over, machine);
    // The 1.8 us halo hides behind the 6.564 us interior product: max(halo, interior) +
    // boundary + scatter-add per SpMV, 3 SpMVs per cycle of 2.
    EXPECT_DOUBLE_EQ(t.spmv, 3 * (6564 + 2564 + 560) / 1e9 / 2);
    EXPECT_EQ(t.halo, 0.0);
    EXPECT_DOUBLE_EQ(t.vector_ops, plain.vector_ops);
    EXPECT_DOUBLE_EQ(t.reductions, plain.reductions);
    EXPECT_NEAR(t.total, t.spmv + t.vector_ops + t.halo + t.reductions, 1e-18);
    EXPECT_NEAR(t.total, plain.total - plain.halo - plain.spmv + t.spmv, 1e-18);
    // A slow link: the halo (1 us + 80 bytes / 1e6 = 81 us) outlasts the interior product and
    // shows by its excess; host-staged too (+ 2 x 80 bytes / 5e7 = 3.2 us).
    GmresMachine slow = machine;
    slow.link_bytes_per_s = 1e6;
    for (const HaloPath path : {HaloPath::direct, HaloPath::host_staged}) {
        over.halo_path = path;
        const double halo = 81e-6 + (path == HaloPath::host_staged ? 3.2e-6 : 0.0);
        const auto s = gmres_iteration_time(split, 2, over, slow);
        EXPECT_NEAR(s.halo, 3 * (halo - 6.564e-6) / 2, 1e-18);
        EXPECT_DOUBLE_EQ(s.spmv, t.spmv);
        EXPECT_NEAR(s.total, s.spmv + s.vector_ops + s.halo + s.reductions, 1e-15);
        // max(halo, interior) + boundary + scatter-add < halo + whole SpMV.
        GmresSetup no = over;
        no.overlap = false;
        EXPECT_LT(s.total, gmres_iteration_time(split, 2, no, slow).total);
    }
    over.halo_path = HaloPath::direct;
    // Nothing to overlap: every row boundary, or one rank (no exchange).
    GmresRankLoad all = split;
    all.boundary_rows = 100;
    all.boundary_nnz = 500;
    EXPECT_DOUBLE_EQ(gmres_iteration_time(all, 2, over, machine).total,
                     gmres_iteration_time(all, 2, setup(2), machine).total);
    GmresRankLoad alone{100, 500, 0, 0, 0, 0};
    GmresMachine local;
    local.device_bytes_per_s = 1e9;
    EXPECT_DOUBLE_EQ(gmres_iteration_time(alone, 1, over, local).total,
                     gmres_iteration_time(alone, 1, setup(2), local).total);
    // The timeline: with boundary rows, two launches more per SpMV (boundary product and
    // scatter-add); without, as many as the plain SpMV.
    for (const HaloPath path : {HaloPath::direct, HaloPath::host_staged}) {
        GmresSetup s = setup(16, GmresOrth::mgs, path);
        GmresOpTimes op;
        op.spmv = 1e-6;
        const long plain_launches = gmres_cycle_timeline(2, s, LaunchCosts{}, op).launches();
        s.overlap = true;
        op.spmv_interior = 1e-6;
        EXPECT_EQ(gmres_cycle_timeline(2, s, LaunchCosts{}, op).launches(), plain_launches);
        op.spmv_boundary = 1e-7;
        op.scatter = 1e-8;
        EXPECT_EQ(gmres_cycle_timeline(2, s, LaunchCosts{}, op).launches(),
                  plain_launches + 2 * 17);
    }
    test::expect_invalid([&] { gmres_iteration_time({100, 500, 10, 2, 101, 0}, 2, over, machine); },
                         {"boundary_rows = 101", "rows = 100"});
    test::expect_invalid([&] { gmres_iteration_time({100, 500, 10, 2, 1, 501}, 2, over, machine); },
                         {"boundary_nnz = 501"});
}

TEST(GmresCommModel, BadInputNamesTheParameter)
{
    test::expect_invalid([&] { gmres_step_counts(0, GmresOrth::mgs); }, {"j = 0"});
    test::expect_invalid([&] { gmres_cycle_counts(0, GmresOrth::mgs); }, {"m = 0"});
    test::expect_invalid([&] { gmres_iteration_time(load, 0, setup(2), machine); },
                         {"num_ranks = 0"});
    test::expect_invalid([&] { gmres_iteration_time({-1, 5, 0, 0}, 2, setup(2), machine); },
                         {"rows = -1"});
    GmresMachine no_link = machine;
    no_link.link_bytes_per_s = 0;
    test::expect_invalid([&] { gmres_iteration_time(load, 2, setup(2), no_link); },
                         {"link_bytes_per_s"});
    GmresMachine no_pcie = machine;
    no_pcie.pcie_bytes_per_s = -1;
    test::expect_invalid(
        [&] {
            gmres_iteration_time(load, 2, setup(2, GmresOrth::mgs, HaloPath::host_staged),
                                 no_pcie);
        },
        {"pcie_bytes_per_s = -1"});
    test::expect_invalid(
        [&] { gmres_iteration_time(std::vector<GmresRankLoad>{}, setup(2), machine); }, {"ranks"});
}

}  // namespace
}  // namespace kbench::models
