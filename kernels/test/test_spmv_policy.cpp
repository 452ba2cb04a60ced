// CPU tests of the SpMV time model (models/spmv_time.hpp), the CSR-Adaptive plan and reference
// (kernels/spmv_plan.hpp, kernels/spmv.hpp) and the auto policy's decisions (kernels/
// spmv_policy.hpp) on generated matrices of different shapes. The decisions are checked as
// properties (e.g. "no padded layout on irregular rows", "the long row goes to the long-row
// kernel"), under two machines of different size, not as a fixed kernel per matrix.
#include "kernels/spmv.hpp"
#include "kernels/spmv_plan.hpp"
#include "kernels/spmv_policy.hpp"
#include "matrices/generators.hpp"
#include "matrices/test/random_data.hpp"
#include "models/spmv_time.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

namespace kbench::spmv {
namespace {

/// Figures of the size of a current data-center GPU (no particular model).
models::SpmvMachine big_gpu()
{
    models::SpmvMachine m;
    m.dram_gbps = 3000;
    m.l2_gbps = 8000;
    m.dram_latency_us = 0.6;
    m.l2_latency_us = 0.25;
    m.launch_us = 2.5;
    m.l2_bytes = 50e6;
    m.sm_count = 132;
    m.max_threads_per_sm = 2048;
    m.max_blocks_per_sm = 32;
    m.load_factor = 1.8;
    m.sellp_efficiency = 1.0;
    m.csr_efficiency = 0.87;
    m.gather_gbps = 5000;
    m.gather_far_gbps = 4400;
    return m;
}

/// A quarter of it: fewer SMs, less L2, slower memory.
models::SpmvMachine small_gpu()
{
    models::SpmvMachine m = big_gpu();
    m.dram_gbps = 900;
    m.l2_gbps = 2500;
    m.l2_bytes = 6e6;
    m.sm_count = 40;
    m.max_threads_per_sm = 1536;
    m.max_blocks_per_sm = 16;
    m.load_factor = 1.5;
    m.csr_efficiency = 0.95;
    m.gather_gbps = 1600;
    m.gather_far_gbps = 1400;
    return m;
}

/// n x n matrix, row lengths uniform in [lo, hi] in random order, columns distinct within
/// +-bw of the diagonal (a band with irregular rows).
Csr<double> irregular(index_type n, int lo, int hi, int bw, unsigned seed)
{
    std::mt19937 gen(seed);
    std::uniform_int_distribution<int> len(lo, hi), off(-bw, bw);
    Csr<double> a;
    a.num_rows = a.num_cols = n;
    std::vector<index_type> cols;
    for (index_type i = 0; i < n; ++i) {
        const int want = len(gen);
        cols.assign(1, i);
        while (static_cast<int>(cols.size()) < want) {
            const index_type c = i + off(gen);
            if (c >= 0 && c < n && std::find(cols.begin(), cols.end(), c) == cols.end())
                cols.push_back(c);
        }
        std::sort(cols.begin(), cols.end());
        for (index_type c : cols) {
            a.col_idx.push_back(c);
            a.values.push_back(1.0);
        }
        a.row_ptr.push_back(a.nnz());
    }
    return a;
}

/// Diagonal plus a dense first row and column (an arrow, as bloweybq).
Csr<double> arrow(index_type n)
{
    Csr<double> a;
    a.num_rows = a.num_cols = n;
    for (index_type j = 0; j < n; ++j) {
        a.col_idx.push_back(j);
        a.values.push_back(1.0);
    }
    a.row_ptr.push_back(n);
    for (index_type i = 1; i < n; ++i) {
        a.col_idx.insert(a.col_idx.end(), {0, i});
        a.values.insert(a.values.end(), {1.0, 2.0});
        a.row_ptr.push_back(a.nnz());
    }
    return a;
}

// ------------------------------------------------------------------ time model
TEST(SpmvTimeModel, TotalIsLaunchesPlusTheLargestBound)
{
    models::SpmvMachine m = big_gpu();
    m.load_factor = 1.0;
    // 300 MB at 3000 GB/s = 100 us DRAM; 300 MB at 8000 GB/s = 37.5 us L2; 132*2048 threads
    // (one wave) with chains of 10 latencies of 0.6 us = 6 us; one launch of 2.5 us.
    const models::LaunchShape shape{132.0 * 2048, 10, 10};
    const auto t = models::predict_spmv_time(300e6, 300e6, 0, 8e6, &shape, 1, m);
    EXPECT_FALSE(t.l2_resident);
    EXPECT_NEAR(t.dram * 1e6, 100.0, 1e-9);
    EXPECT_NEAR(t.l2 * 1e6, 37.5, 1e-9);
    EXPECT_NEAR(t.latency * 1e6, 6.0, 1e-9);
    // Bounds overlap near the knee: launch + (dram^3 + l2^3 + latency^3)^(1/3).
    EXPECT_NEAR(t.total() * 1e6, 2.5 + std::cbrt(100.0 * 100 * 100 + 37.5 * 37.5 * 37.5 + 6 * 6 * 6),
                1e-9);
    EXPECT_STREQ(t.bound(), "dram");
    // 1 MB fits in half of L2: no DRAM term, L2 latency, L2 bandwidth.
    const models::LaunchShape tiny{1000, 8, 20};
    const auto u = models::predict_spmv_time(1e6, 1e6, 0, 8e4, &tiny, 1, m);
    EXPECT_TRUE(u.l2_resident);
    EXPECT_EQ(u.dram, 0.0);
    EXPECT_NEAR(u.latency * 1e6, 0.25 * 20, 1e-9);  // fewer threads than one wave: the longest chain
    EXPECT_STREQ(u.bound(), "latency");
}

// Scattered gathers: 400 MB of sectors at 5000 GB/s = 80 us beside 100 us of DRAM, combined in
// the 3-norm; the rate falls from gather_gbps (x up to L2/4) to gather_far_gbps (x from L2/2),
// linearly between.
TEST(SpmvTimeModel, GathersAreChargedAtTheRateOfXsSize)
{
    models::SpmvMachine m = big_gpu();  // L2 50 MB
    const models::LaunchShape shape{132.0 * 2048, 1, 1};
    const auto t = models::predict_spmv_time(300e6, 300e6, 400e6, 8e6, &shape, 1, m);
    EXPECT_NEAR(t.gather * 1e6, 80.0, 1e-9);
    EXPECT_NEAR(t.total() * 1e6,
                2.5 + std::cbrt(100.0 * 100 * 100 + 37.5 * 37.5 * 37.5 + 80.0 * 80 * 80 +
                                t.latency * 1e6 * t.latency * 1e6 * t.latency * 1e6),
                1e-9);
    EXPECT_STREQ(t.bound(), "dram");
    const auto g = models::predict_spmv_time(300e6, 300e6, 800e6, 8e6, &shape, 1, m);
    EXPECT_STREQ(g.bound(), "gather");
    EXPECT_DOUBLE_EQ(models::gather_rate_gbps(m, 1e6), 5000.0);
    EXPECT_DOUBLE_EQ(models::gather_rate_gbps(m, 12.5e6), 5000.0);
    EXPECT_DOUBLE_EQ(models::gather_rate_gbps(m, 18.75e6), 4700.0);  // halfway
    EXPECT_DOUBLE_EQ(models::gather_rate_gbps(m, 25e6), 4400.0);
    EXPECT_DOUBLE_EQ(models::gather_rate_gbps(m, 1e9), 4400.0);
    m.gather_gbps = m.gather_far_gbps = 0.0;  // no figures: no term
    EXPECT_EQ(models::predict_spmv_time(300e6, 300e6, 400e6, 8e6, &shape, 1, m).gather, 0.0);
}

TEST(SpmvTimeModel, LatencyBoundCountsWavesAndTheLongestChainOnce)
{
    const models::SpmvMachine m = big_gpu();
    // 4 waves of mean chain 3, longest 11: 0.6 us * (4*3 + 8).
    const models::LaunchShape s{4.0 * 132 * 2048, 3, 11};
    EXPECT_NEAR(models::latency_bound_seconds(s, m, 0.6) * 1e6, 0.6 * 20, 1e-9);
    EXPECT_EQ(models::latency_bound_seconds({0, 5, 5}, m, 0.6), 0.0);
    // Blocks of 32 threads: at most 32 of them per SM, 1024 threads, so twice the waves.
    const models::LaunchShape small_blocks{4.0 * 132 * 2048, 3, 11, 32};
    EXPECT_NEAR(models::latency_bound_seconds(small_blocks, m, 0.6) * 1e6, 0.6 * (8 * 3 + 8), 1e-9);
    // The DRAM term divides by the kernel's streaming efficiency; the step time is the latency
    // times the load factor.
    const auto t = models::predict_spmv_time(300e6, 300e6, 0, 8e6, &s, 1, m, 0.8);
    EXPECT_NEAR(t.dram * 1e6, 125.0, 1e-9);
    EXPECT_NEAR(t.latency * 1e6, 1.8 * 20 * 0.6, 1e-9);
}

// ------------------------------------------------------------------ CSR-Adaptive plan
void expect_plan_covers(const Csr<double>& a)
{
    const CsrAdaptivePlan plan = make_csr_adaptive_plan(a.view());
    std::vector<int> seen(static_cast<std::size_t>(a.num_rows), 0);
    for (const CsrRowBlock& b : plan.blocks) {
        ASSERT_LT(b.row_begin, b.row_end);
        EXPECT_LE(b.row_end - b.row_begin, csr_adaptive_block_nnz);
        EXPECT_EQ(b.nnz_begin, a.row_ptr[b.row_begin]);
        EXPECT_EQ(b.nnz_end, a.row_ptr[b.row_end]);
        EXPECT_LE(b.nnz_end - b.nnz_begin, csr_adaptive_block_nnz);
        for (index_type r = b.row_begin; r < b.row_end; ++r) ++seen[r];
    }
    for (index_type r : plan.long_rows) {
        EXPECT_GT(a.row_ptr[r + 1] - a.row_ptr[r], csr_adaptive_block_nnz);
        ++seen[r];
    }
    EXPECT_TRUE(std::is_sorted(plan.long_rows.begin(), plan.long_rows.end()));
    EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int c) { return c == 1; }));
}

TEST(CsrAdaptivePlan, CoversEveryRowExactlyOnce)
{
    expect_plan_covers(test::random_csr(3000, 3000, 11, {40, 8, 1500, 700}));
    expect_plan_covers(laplacian_2d_5pt(40, 40));  // 5 per row: blocks of > 32 rows
    expect_plan_covers(arrow(2000));
    Csr<double> empty;  // rows without entries only
    empty.num_rows = empty.num_cols = 1000;
    empty.row_ptr.assign(1001, 0);
    expect_plan_covers(empty);
    EXPECT_EQ(make_csr_adaptive_plan(empty.view()).blocks.size(), 4u);  // 256 rows per block
}

TEST(CsrAdaptivePlan, ReferenceProductMatchesCsr)
{
    const Csr<double> a = test::random_csr(2000, 2100, 5, {60, 6, 77, 900});
    const CsrAdaptivePlan plan = make_csr_adaptive_plan(a.view());
    ASSERT_EQ(plan.long_rows.size(), 1u);
    const CsrAdaptiveView<double> v{a.view(), index_type(plan.blocks.size()), plan.blocks.data(),
                                    index_type(plan.long_rows.size()), plan.long_rows.data()};
    const auto x = test::random_vector<double>(2100, 3);
    auto y = test::random_vector<double>(2000, 4), y_ref = y;
    reference::csr_adaptive(v, 0.5, x.data(), -2.0, y.data());
    reference::csr(a.view(), 0.5, x.data(), -2.0, y_ref.data());
    EXPECT_EQ(y, y_ref);
    CsrRowBlock bad = plan.blocks[1];
    bad.nnz_begin += 1;
    const CsrAdaptiveView<double> broken{a.view(), 1, &bad, 0, nullptr};
    EXPECT_THROW(reference::csr_adaptive(broken, 1.0, x.data(), 0.0, y.data()),
                 std::invalid_argument);
}

// ------------------------------------------------------------------ candidates
TEST(SpmvPolicy, SellpCandidateCountsTheExactLayout)
{
    const Csr<double> a = test::random_csr(5000, 5000, 9, {50, 10, 4000, 3000});
    for (const SellpParams& p : std::vector<SellpParams>{
             {64, 1, 1, 0}, {32, 4, 1, 0}, {64, 2, 1024, 0}, {32, 1, 256, 300}, {64, 8, 64, 100}}) {
        SCOPED_TRACE(p.slice_height * 1000000 + p.threads_per_row * 10000 + p.sigma);
        const Sellp<double> s = to_sellp(a, p);
        const Candidate c = model_candidate(a.view(), Kernel::sellp, p, 0, big_gpu());
        EXPECT_EQ(c.stored_entries, static_cast<std::int64_t>(s.stored_entries()));
        EXPECT_EQ(c.long_rows, s.num_long_rows());
        const auto t = models::sellp_spmv(a.num_rows, a.num_cols, a.nnz(),
                                          std::int64_t(s.stored_entries()), s.num_slices(), 8, 4,
                                          false, p.sigma > 1, s.num_long_rows());
        EXPECT_DOUBLE_EQ(c.traffic.bytes(), t.bytes());
        EXPECT_EQ(c.launches, s.num_long_rows() > 0 ? 2 : 1);
    }
}

// x-gather sectors that L1 does not serve: columns scattered over a 200k-row x (1.6 MB, far
// more sectors than a window of gathers touches) are nearly one new sector per entry; a band of
// +-20 columns re-gathers the sectors its previous rows touched (a few new per 32 entries); a
// sorted SELL-P layout of the band puts rows of unequal length, far apart, side by side.
TEST(SpmvPolicy, ScatteredColumnsGatherNewSectorsAndABandDoesNot)
{
    const index_type n = 200000;
    const Csr<double> scattered = irregular(n, 8, 16, n, 5);
    const Csr<double> band = irregular(n, 8, 16, 20, 5);
    const auto per_entry = [](const Csr<double>& a, const Candidate& c) {
        return c.gather_bytes / 32.0 / static_cast<double>(a.nnz());
    };
    const models::SpmvMachine m = big_gpu();
    const Candidate s = model_candidate(scattered.view(), Kernel::csr_adaptive, {}, 0, m);
    const Candidate b = model_candidate(band.view(), Kernel::csr_adaptive, {}, 0, m);
    EXPECT_GT(per_entry(scattered, s), 0.85);
    EXPECT_LE(per_entry(scattered, s), 1.0);
    EXPECT_LT(per_entry(band, b), 0.1);
    EXPECT_DOUBLE_EQ(s.l2_bytes, s.traffic.bytes() + s.gather_bytes);
    EXPECT_GT(s.time.gather, 0.0);
    const Candidate natural = model_candidate(band.view(), Kernel::sellp, {64, 1, 1, 0}, 0, m);
    const Candidate sorted =
        model_candidate(band.view(), Kernel::sellp, {64, 1, 64 * 1024, 0}, 0, m);
    EXPECT_LT(per_entry(band, natural), 0.2);
    EXPECT_GT(sorted.gather_bytes, 3 * natural.gather_bytes);
}

TEST(SpmvPolicy, RankingIsDeterministicAndSorted)
{
    const Csr<double> a = irregular(20000, 1, 30, 50, 3);
    const auto r1 = rank_candidates(a.view(), big_gpu());
    const auto r2 = rank_candidates(a.view(), big_gpu());
    ASSERT_EQ(r1.size(), r2.size());
    // csr_adaptive; csr_vector with >= mean/4 lanes (mean 15.5: subwarps 4..32); sellp b = 32
    // (6 t) and b = 64 (5 t), each unsorted and sorted.
    EXPECT_EQ(r1.size(), 1u + 4u + 2u * (6u + 5u));
    for (const auto& c : r1) {
        if (c.kernel == Kernel::csr_vector) {
            EXPECT_GE(c.subwarp * 4, 15.0) << c.label();
        }
    }
    for (std::size_t i = 0; i < r1.size(); ++i) {
        EXPECT_EQ(r1[i].label(), r2[i].label());
        EXPECT_EQ(r1[i].predicted_us(), r2[i].predicted_us());
        if (i > 0) {
            EXPECT_LE(r1[i - 1].predicted_us(), r1[i].predicted_us() * 1.01);  // ties: 1 %
        }
    }
}

TEST(SpmvPolicy, LargeStencilGetsUnsortedSellpAtTheBandwidthBound)
{
    const Csr<double> a = laplacian_3d_7pt(80, 80, 80);  // 512,000 rows, 27 MB > L2 / 2
    for (const auto& m : {big_gpu(), small_gpu()}) {
        const Candidate best = rank_candidates(a.view(), m).front();
        EXPECT_STREQ(best.time.bound(), "dram") << best.label();
        EXPECT_LT(best.padding_ratio(), 1.1) << best.label();
        if (best.kernel == Kernel::sellp) {
            EXPECT_EQ(best.sellp.sigma, 1) << best.label();  // nothing to gain from sorting
        }
    }
    // Where SELL-P streams faster than the CSR kernels (big_gpu), it is the choice.
    EXPECT_EQ(rank_candidates(a.view(), big_gpu()).front().kernel, Kernel::sellp);
}

TEST(SpmvPolicy, IrregularRowsAreNotPadded)
{
    // Rows of 1..49 entries in random order: unsorted SELL-P pads every slice to ~47.
    const Csr<double> a = irregular(300000, 1, 49, 60, 1);
    for (const auto& m : {big_gpu(), small_gpu()}) {
        const Candidate plain = model_candidate(a.view(), Kernel::sellp, {64, 1, 1, 0}, 0, m);
        EXPECT_GT(plain.padding_ratio(), 1.6);
        const Candidate best = rank_candidates(a.view(), m).front();
        EXPECT_LT(best.padding_ratio(), 1.15) << best.label();
        EXPECT_LT(best.predicted_us(), 0.75 * plain.predicted_us()) << best.label();
    }
}

TEST(SpmvPolicy, SmallMatricesGetShortDependentLoadChains)
{
    // Latency bound: 2000 rows of ~28 entries. One thread per row (SELL-P t = 1) walks 7 unrolled
    // steps; the best configuration splits rows across lanes.
    const Csr<double> a = trefethen(2000);
    for (const auto& m : {big_gpu(), small_gpu()}) {
        const auto ranked = rank_candidates(a.view(), m);
        const Candidate& best = ranked.front();
        EXPECT_STREQ(best.time.bound(), "latency") << best.label();
        EXPECT_TRUE(best.time.l2_resident);
        const Candidate t1 = model_candidate(a.view(), Kernel::sellp, {64, 1, 1, 256}, 0, m);
        EXPECT_LT(best.shapes[0].chain_max, t1.shapes[0].chain_max) << best.label();
        EXPECT_LT(best.predicted_us(), t1.predicted_us());
    }
}

TEST(SpmvPolicy, ALongRowIsSplitOffOrMerged)
{
    const Csr<double> a = arrow(200000);  // row 0 has 200,000 entries
    for (const auto& m : {big_gpu(), small_gpu()}) {
        const Candidate best = rank_candidates(a.view(), m).front();
        // The long row is not left to one thread: it goes to the long-row kernel, or every warp
        // gets an equal share of the merge path (csr_merge, whose split rows are its long_rows).
        if (best.kernel != Kernel::csr_merge) {
            EXPECT_EQ(best.long_rows, 1) << best.label();
        }
        EXPECT_EQ(best.launches, 2) << best.label();
        EXPECT_LT(best.padding_ratio(), 1.05) << best.label();
    }
}

// ------------------------------------------------------------------ skewed rows: csr_merge
TEST(SpmvPolicy, RowLengthStatsByHand)
{
    // Row lengths 1, 1000, 0, 2: mean 250.75, population standard deviation 432.58.
    Csr<double> a;
    a.num_rows = 4;
    a.num_cols = 1000;
    for (index_type len : {1, 1000, 0, 2}) {
        for (index_type c = 0; c < len; ++c) {
            a.col_idx.push_back(c);
            a.values.push_back(1.0);
        }
        a.row_ptr.push_back(a.nnz());
    }
    const RowLengthStats s = row_length_stats(a.view());
    EXPECT_EQ(s.num_rows, 4);
    EXPECT_EQ(s.nnz, 1003);
    EXPECT_EQ(s.max_len, 1000);
    EXPECT_DOUBLE_EQ(s.mean(), 250.75);
    EXPECT_NEAR(s.cv, 1.725146, 1e-6);
    EXPECT_NEAR(s.max_over_mean(), 3.98804, 1e-5);
    const RowLengthStats stencil = row_length_stats(laplacian_2d_5pt(50, 50).view());
    EXPECT_EQ(stencil.max_len, 5);
    EXPECT_LT(stencil.cv, 0.1);
    Csr<double> empty;
    EXPECT_EQ(row_length_stats(empty.view()).cv, 0.0);
}

TEST(SpmvPolicy, MergeAndCusparseAlg2AreCandidatesOnlyForSkewedRows)
{
    const auto stats = [](std::int64_t n, std::int64_t nnz, std::int64_t max_len, double cv) {
        RowLengthStats s;
        s.num_rows = n;
        s.nnz = nnz;
        s.max_len = max_len;
        s.cv = cv;
        return s;
    };
    EXPECT_FALSE(merge_is_candidate(stats(1000000, 7000000, 9, 0.13)));      // a 2D mesh
    EXPECT_FALSE(merge_is_candidate(stats(1000000, 27000000, 27, 0.05)));    // 27-point stencil
    EXPECT_TRUE(merge_is_candidate(stats(1000000, 15000000, 20000, 11.7)));  // Zipf rows
    EXPECT_TRUE(merge_is_candidate(stats(1048576, 32000000, 65000, 8.3)));   // R-MAT graph
    EXPECT_TRUE(merge_is_candidate(stats(1000000, 10000000, 160, 0.5)));     // max = 16 x mean
    EXPECT_FALSE(merge_is_candidate(stats(1000000, 10000000, 159, 0.99)));   // just below both
    EXPECT_TRUE(merge_is_candidate(stats(1000000, 10000000, 20, 1.0)));      // cv at the limit
    EXPECT_FALSE(merge_is_candidate(stats(1000, 0, 0, 0.0)));                // no nonzeros
    EXPECT_FALSE(merge_is_candidate(stats(0, 0, 0, 0.0)));
    // cuSPARSE's CSR kernels timed against auto's pick: ALG1 always, its merge-based ALG2 on
    // the same skewed rows, nothing without nonzeros.
    using V = std::vector<Kernel>;
    EXPECT_EQ(vendor_candidates(stats(1000000, 7000000, 9, 0.13)), V{Kernel::cusparse_csr});
    EXPECT_EQ(vendor_candidates(stats(1000000, 15000000, 20000, 11.7)),
              (V{Kernel::cusparse_csr, Kernel::cusparse_csr_alg2}));
    EXPECT_EQ(vendor_candidates(stats(1000, 0, 0, 0.0)), V{});
}

TEST(SpmvPolicy, PowerLawRowsGetTheMergeKernelAndStencilsDoNot)
{
    RandomRowsParams p;
    p.n = 20000;
    p.distribution = RowLengthDistribution::power_law;
    p.row_min = 2;
    p.row_max = 5000;
    p.exponent = 2.0;
    p.bandwidth = p.n;  // columns scattered over the whole matrix
    p.seed = 3;
    const Csr<double> zipf = random_rows(p);
    ASSERT_TRUE(merge_is_candidate(row_length_stats(zipf.view())));
    const Csr<double> stencil = laplacian_3d_7pt(40, 40, 40);
    for (const auto& m : {big_gpu(), small_gpu()}) {
        const std::vector<Candidate> ranked = rank_candidates(zipf.view(), m);
        EXPECT_EQ(ranked.front().kernel, Kernel::csr_merge) << ranked.front().label();
        for (const Candidate& c : rank_candidates(stencil.view(), m))
            EXPECT_NE(c.kernel, Kernel::csr_merge);
    }
    // The named kernel is modeled with its plan's traffic.
    const Candidate c = model_candidate(zipf.view(), Kernel::csr_merge, {}, 0, big_gpu());
    const CsrMergePlan plan = make_csr_merge_plan(zipf.view());
    const models::Traffic t = models::csr_merge_spmv(
        zipf.num_rows, zipf.num_cols, zipf.nnz(), plan.num_tiles(),
        static_cast<std::int64_t>(plan.runs.size()), plan.carry_tiles(), 8);
    EXPECT_DOUBLE_EQ(c.traffic.bytes(), t.bytes());
    EXPECT_EQ(c.long_rows, static_cast<std::int64_t>(plan.runs.size()));
    EXPECT_EQ(c.launches, plan.runs.empty() ? 1 : 2);
    EXPECT_EQ(c.shapes[0].chain_max, c.shapes[0].chain_mean);  // the same work for every warp
}

TEST(SpmvPolicy, NamesAndErrors)
{
    EXPECT_EQ(kernel_names().size(), 8u);
    EXPECT_EQ(kernel_name(Kernel::csr_merge), "csr_merge");
    EXPECT_EQ(kernel_name(Kernel::cusparse_csr_alg2), "cusparse_csr_alg2");
    for (const auto& n : kernel_names()) EXPECT_EQ(kernel_name(parse_kernel(n)), n);
    try {
        parse_kernel("ell");
        FAIL() << "expected std::invalid_argument";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("unknown SpMV kernel 'ell' (valid kernels: csr_scalar"),
                  std::string::npos);
    }
    const Csr<double> a = laplacian_2d_5pt(10, 10);
    models::SpmvMachine broken = big_gpu();
    broken.l2_latency_us = 0;
    EXPECT_THROW(rank_candidates(a.view(), broken), std::invalid_argument);
    EXPECT_THROW(model_candidate(a.view(), Kernel::cusparse_csr, {}, 0, big_gpu()),
                 std::invalid_argument);
    EXPECT_THROW(model_candidate(a.view(), Kernel::csr_vector, {}, 3, big_gpu()),
                 std::invalid_argument);
    EXPECT_THROW(model_candidate(a.view(), Kernel::sellp, {32, 3, 1, 0}, 0, big_gpu()),
                 std::invalid_argument);
    EXPECT_THROW(model_candidate(a.view(), Kernel::sellp, {32, 1, 48, 0}, 0, big_gpu()),
                 std::invalid_argument);
}

}  // namespace
}  // namespace kbench::spmv
