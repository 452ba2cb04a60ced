// The MPK model (models/mpk_model.hpp, yamazaki2014 Sec. IV-B, Figs. 6 and 7) on small matrices
// whose index sets are read off by hand (matrices/test/test_row_partition.cpp checks the sets).
// Notation: part d owns i^(d,s+1); delta^(d,k:s) = i^(d,k) \ i^(d,s+1); boundary_nnz[k-1] =
// nnz(A(delta^(d,k:s), :)).
#include "models/mpk_model.hpp"

#include "matrices/generators.hpp"
#include "matrices/row_partition.hpp"

#include "kernels/test/expect_invalid.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

namespace kbench::models {
namespace {

using kbench::Csr;
using kbench::index_type;

Csr<double> tridiagonal(index_type n)
{
    Csr<double> a;
    a.num_rows = a.num_cols = n;
    for (index_type i = 0; i < n; ++i) {
        for (index_type j = std::max(0, i - 1); j <= std::min(n - 1, i + 1); ++j)
            a.col_idx.push_back(j);
        a.row_ptr.push_back(static_cast<index_type>(a.col_idx.size()));
    }
    a.values.assign(a.col_idx.size(), 1.0);
    return a;
}

std::vector<int> blocks(index_type n, index_type block)
{
    std::vector<int> p(static_cast<std::size_t>(n));
    for (index_type r = 0; r < n; ++r) p[static_cast<std::size_t>(r)] = r / block;
    return p;
}

// Everything the model needs for one partition and s, computed from A.
struct Case {
    std::vector<kbench::MpkPartCounts> counts;
    double ghost_union = 0, halo_union = 0;
    std::vector<double> ghost_per_part, halo_per_part;
};

Case make_case(const Csr<double>& a, const std::vector<int>& part, int parts, int s)
{
    Case c;
    const auto sets = kbench::mpk_index_sets(a, part, parts, s);
    const auto sets1 = kbench::mpk_index_sets(a, part, parts, 1);
    c.counts = kbench::mpk_part_counts(a, sets, kbench::halo_plan(sets1, part, parts));
    c.ghost_union = kbench::ghost_union_size(sets, a.num_rows);
    c.halo_union = kbench::ghost_union_size(sets1, a.num_rows);
    for (const auto& pc : c.counts) {
        c.ghost_per_part.push_back(pc.boundary_rows[0]);  // |delta^(d,1:s)|
        c.halo_per_part.push_back(pc.halo_words_s1);      // |delta^(d,1)|, s = 1
    }
    return c;
}


// ---- the formulas on plain numbers -------------------------------------------------------------

TEST(MpkModel, FormulasTermByTerm)
{
    const std::vector<double> b{10, 6, 2};  // s = 3
    EXPECT_DOUBLE_EQ(mpk_surface_to_volume(10, 40), 0.25);
    EXPECT_DOUBLE_EQ(mpk_extra_flops(b), 2.0 * (10 + 6 + 2));         // k = 1..3
    EXPECT_DOUBLE_EQ(mpk_extra_flops_needed(b), 2.0 * (6 + 2));       // k = 2..3
    EXPECT_DOUBLE_EQ(mpk_flops(40, b), 2.0 * 3 * 40 + 36);
    EXPECT_DOUBLE_EQ(spmvs_flops(40, 3), 240);
    EXPECT_DOUBLE_EQ(mpk_comm_volume(5, {2, 3, 4}), 5 + 9);
    EXPECT_DOUBLE_EQ(spmvs_comm_volume(3, 2, {1, 1}), 3 * (2 + 2));
    EXPECT_DOUBLE_EQ(per_restart(30, 3, 14), 140);
    const MpkRates r{1e9, 1e8, 1e-5};
    // 2 messages in 1 exchange: one latency (the messages of an exchange are in flight together).
    EXPECT_DOUBLE_EQ(part_time({100, 10, 2, 1}, r), 100 / 1e9 + 10 / 1e8 + 1e-5);
    EXPECT_DOUBLE_EQ(part_time({100, 10, 2, 3}, r), 100 / 1e9 + 10 / 1e8 + 3e-5);
    EXPECT_DOUBLE_EQ(predicted_time({{100, 10, 2, 1}, {1e6, 0, 0, 0}}, r), 1e-3);
}

// ---- 1D tridiagonal, n = 12 --------------------------------------------------------------------

TEST(MpkModel, TridiagonalTwoPartsOfSix)
{
    // s = 3, part 0 owns rows 0..5: nnz(A^(0)) = 2 + 5 * 3 = 17; ghosts delta^(0,1:3) = {6,7,8},
    // delta^(0,2:3) = {6,7}, delta^(0,3:3) = {6}, 3 non-zeros each: boundary_nnz = {9, 6, 3}.
    const auto c = make_case(tridiagonal(12), blocks(12, 6), 2, 3);
    const auto& p0 = c.counts[0];
    EXPECT_DOUBLE_EQ(mpk_surface_to_volume(p0.boundary_nnz[0], p0.own_nnz), 9.0 / 17.0);
    EXPECT_DOUBLE_EQ(mpk_extra_flops(p0.boundary_nnz), 36.0);         // 2 (9 + 6 + 3)
    EXPECT_DOUBLE_EQ(mpk_extra_flops_needed(p0.boundary_nnz), 18.0);  // 2 (6 + 3)
    // Fig. 7: union {3..8} = 6 gathered + 3 + 3 scattered = 12 words per call; 3 SpMVs move
    // 3 (|{5, 6}| + 1 + 1) = 12: the ghosts grow linearly, so the volume is the same ...
    EXPECT_DOUBLE_EQ(mpk_comm_volume(c.ghost_union, c.ghost_per_part), 12.0);
    EXPECT_DOUBLE_EQ(spmvs_comm_volume(3, c.halo_union, c.halo_per_part), 12.0);
    // ... and so are the words per part (3), in 1 message instead of 3.
    const auto mpk = mpk_part_cost(p0.own_nnz, p0.boundary_nnz, p0.boundary_rows[0], p0.mpk_messages);
    const auto spmv = spmvs_part_cost(p0.own_nnz, 3, p0.halo_words_s1, p0.halo_messages_s1);
    EXPECT_DOUBLE_EQ(mpk.flops, 2 * 3 * 17 + 36);  // 138
    EXPECT_DOUBLE_EQ(spmv.flops, 102);
    EXPECT_DOUBLE_EQ(mpk.words, 3);
    EXPECT_DOUBLE_EQ(spmv.words, 3);
    EXPECT_DOUBLE_EQ(mpk.messages, 1);
    EXPECT_DOUBLE_EQ(spmv.messages, 3);
    EXPECT_DOUBLE_EQ(mpk.exchanges, 1);
    EXPECT_DOUBLE_EQ(spmv.exchanges, 3);
    const MpkRates r{1e9, 1e8, 1e-5};
    EXPECT_DOUBLE_EQ(predicted_time({mpk, mpk}, r), 138e-9 + 3e-8 + 1e-5);
    EXPECT_DOUBLE_EQ(predicted_time({spmv, spmv}, r), 102e-9 + 3e-8 + 3e-5);
}

TEST(MpkModel, TridiagonalThreePartsOfFourSlowestPartIsTheMiddle)
{
    // s = 2. Middle part: own rows 4..7, nnz 12; ghosts {2,3,8,9} (12 nnz), delta^(1,2:2) = {3,8}
    // (6 nnz): ratio 12/12 = 1, W = 2 (12 + 6) = 36. Part 0: own nnz 2 + 3 * 3 = 11, ghosts
    // {4,5} (6 nnz), {4} (3 nnz): ratio 6/11, W = 18.
    const auto c = make_case(tridiagonal(12), blocks(12, 4), 3, 2);
    EXPECT_DOUBLE_EQ(mpk_surface_to_volume(c.counts[1].boundary_nnz[0], c.counts[1].own_nnz), 1.0);
    EXPECT_DOUBLE_EQ(mpk_extra_flops(c.counts[1].boundary_nnz), 36.0);
    EXPECT_DOUBLE_EQ(mpk_surface_to_volume(c.counts[0].boundary_nnz[0], c.counts[0].own_nnz),
                     6.0 / 11.0);
    EXPECT_DOUBLE_EQ(mpk_extra_flops(c.counts[0].boundary_nnz), 18.0);
    // Fig. 7: union {2..9} = 8, + 2 + 4 + 2 = 16; 2 SpMVs: 2 (|{3,4,7,8}| + 1 + 2 + 1) = 16.
    EXPECT_DOUBLE_EQ(mpk_comm_volume(c.ghost_union, c.ghost_per_part), 16.0);
    EXPECT_DOUBLE_EQ(spmvs_comm_volume(2, c.halo_union, c.halo_per_part), 16.0);
    // Time: middle 2*2*12 + 36 = 84 flops, 4 words, 2 messages; outer 62 flops, 2 words, 1;
    // one exchange each (the middle part's 2 messages overlap).
    std::vector<MpkPartCost> parts;
    for (const auto& pc : c.counts)
        parts.push_back(mpk_part_cost(pc.own_nnz, pc.boundary_nnz, pc.boundary_rows[0], pc.mpk_messages));
    const MpkRates r{1e9, 1e8, 1e-5};
    EXPECT_DOUBLE_EQ(part_time(parts[0], r), 62e-9 + 2e-8 + 1e-5);
    EXPECT_DOUBLE_EQ(parts[1].exchanges, 1);
    EXPECT_DOUBLE_EQ(predicted_time(parts, r), 84e-9 + 4e-8 + 1e-5);
}

// ---- 2D 5-point Laplacian, 4 x 4 grid (row = x + 4 y; corner rows 3 nnz, edge 4, interior 5) -----

TEST(MpkModel, Laplacian2dHalves)
{
    // s = 2, part 0 = y < 2: nnz 14 + 18 = 32; ghosts y = 2 (18 nnz) and y = 3 (14 nnz):
    // boundary_nnz = {32, 18}, ratio 32/32 = 1, W = 2 (32 + 18) = 100.
    const auto c = make_case(laplacian_2d_5pt(4, 4), blocks(16, 8), 2, 2);
    const auto& p0 = c.counts[0];
    EXPECT_EQ(p0.boundary_nnz, (std::vector<double>{32, 18}));
    EXPECT_DOUBLE_EQ(mpk_surface_to_volume(p0.boundary_nnz[0], p0.own_nnz), 1.0);
    EXPECT_DOUBLE_EQ(mpk_extra_flops(p0.boundary_nnz), 100.0);
    // Fig. 7: every row is someone's ghost: 16 + 8 + 8 = 32; 2 SpMVs: 2 (8 + 4 + 4) = 32.
    EXPECT_DOUBLE_EQ(mpk_comm_volume(c.ghost_union, c.ghost_per_part), 32.0);
    EXPECT_DOUBLE_EQ(spmvs_comm_volume(2, c.halo_union, c.halo_per_part), 32.0);
}

TEST(MpkModel, Laplacian2dQuadrantsMpkReceivesMoreInFewerMessages)
{
    std::vector<int> part(16);
    for (int y = 0; y < 4; ++y)
        for (int x = 0; x < 4; ++x) part[static_cast<std::size_t>(x + 4 * y)] = x / 2 + 2 * (y / 2);
    const auto c = make_case(laplacian_2d_5pt(4, 4), part, 4, 2);
    // Part 0 = rows {0,1,4,5}: nnz 3 + 4 + 4 + 5 = 16. Ghosts: distance 1 rows {2,6,8,9}
    // (4 + 5 + 4 + 5 = 18 nnz), distance 2 rows {3,7,10,12,13} (3 + 4 + 5 + 3 + 4 = 19 nnz):
    // boundary_nnz = {37, 18}, ratio 37/16, W = 2 (37 + 18) = 110.
    const auto& p0 = c.counts[0];
    EXPECT_EQ(p0.boundary_nnz, (std::vector<double>{37, 18}));
    EXPECT_DOUBLE_EQ(mpk_surface_to_volume(p0.boundary_nnz[0], p0.own_nnz), 37.0 / 16.0);
    EXPECT_DOUBLE_EQ(mpk_extra_flops(p0.boundary_nnz), 110.0);
    // The ghosts grow as a diamond (4, then 5 more): one MPK receives 9 distinct entries where
    // 2 SpMVs receive 2 x 4 = 8, but from 3 neighbours at once instead of 2 x 2 messages.
    const auto mpk = mpk_part_cost(p0.own_nnz, p0.boundary_nnz, p0.boundary_rows[0], p0.mpk_messages);
    const auto spmv = spmvs_part_cost(p0.own_nnz, 2, p0.halo_words_s1, p0.halo_messages_s1);
    EXPECT_DOUBLE_EQ(mpk.words, 9);
    EXPECT_DOUBLE_EQ(spmv.words, 8);
    EXPECT_DOUBLE_EQ(mpk.messages, 3);
    EXPECT_DOUBLE_EQ(spmv.messages, 4);
    EXPECT_DOUBLE_EQ(mpk.exchanges, 1);
    EXPECT_DOUBLE_EQ(spmv.exchanges, 2);
    // Fig. 7 totals: union = all 16 rows, + 4 x 9 = 52; 2 SpMVs: 2 (12 + 4 x 4) = 56 (the 12 are
    // all rows but the 4 grid corners). The gather term counts a shared ghost once.
    EXPECT_DOUBLE_EQ(mpk_comm_volume(c.ghost_union, c.ghost_per_part), 52.0);
    EXPECT_DOUBLE_EQ(spmvs_comm_volume(2, c.halo_union, c.halo_per_part), 56.0);
    // Latency-bound: MPK wins; bandwidth-bound (no latency, slow words): 2 SpMVs win.
    EXPECT_LT(part_time(mpk, {1e12, 1e12, 1e-5}), part_time(spmv, {1e12, 1e12, 1e-5}));
    EXPECT_GT(part_time(mpk, {1e12, 1e3, 0.0}), part_time(spmv, {1e12, 1e3, 0.0}));
}

// ---- fewer steps from the index sets of more -------------------------------------------------

TEST(MpkModel, BoundaryForFewerStepsIsTheTail)
{
    // Tridiagonal n = 12, part 0 = rows 0..5 (see TridiagonalTwoPartsOfSix): for s = 3 the ghost
    // rows at distance 1, 2, 3 are 6, 7, 8 (3 nnz each): boundary_nnz = {9, 6, 3}. For s = 2 by
    // hand: delta^(0,1:2) = {6,7}, delta^(0,2:2) = {6}: {6, 3}; for s = 1: {6}: {3}.
    const std::vector<double> b3{9, 6, 3};
    EXPECT_EQ(mpk_boundary_for_steps(b3, 3), b3);
    EXPECT_EQ(mpk_boundary_for_steps(b3, 2), (std::vector<double>{6, 3}));
    EXPECT_EQ(mpk_boundary_for_steps(b3, 1), (std::vector<double>{3}));
    // ... which is what the index sets of s = 2 and s = 1 give directly.
    for (const int s : {1, 2}) {
        const auto direct = make_case(tridiagonal(12), blocks(12, 6), 2, s);
        EXPECT_EQ(mpk_boundary_for_steps(b3, s), direct.counts[0].boundary_nnz) << "s = " << s;
    }
    // W^(0,2) = 2 (6 + 3) = 18 from the tail.
    EXPECT_DOUBLE_EQ(mpk_extra_flops(mpk_boundary_for_steps(b3, 2)), 18.0);
    test::expect_invalid([&] { mpk_boundary_for_steps(b3, 0); }, {"s = 0"});
    test::expect_invalid([&] { mpk_boundary_for_steps(b3, 4); }, {"s = 4", "s_max = 3"});
    test::expect_invalid([] { mpk_boundary_for_steps({}, 1); }, {"boundary_smax"});
    test::expect_invalid([] { mpk_boundary_for_steps({1, -2}, 1); }, {"boundary_smax"});
}

// ---- a dense row -------------------------------------------------------------------------------

TEST(MpkModel, DenseRowSurfaceIsConstantInS)
{
    // Row 0 has all 6 columns, rows 1..5 only their diagonal; parts {0,1,2} and {3,4,5}. Part 0:
    // nnz 6 + 1 + 1 = 8; its ghosts {3,4,5} (1 nnz each) are at distance 1 and reach nothing
    // else, so delta^(0,k:s) = {3,4,5} for every k: boundary_nnz = {3, ..., 3}, ratio 3/8,
    // W^(0,s) = 2 * 3 s = 6 s. Part 1 reads no row of part 0: no surface.
    Csr<double> a;
    a.num_rows = a.num_cols = 6;
    a.col_idx = {0, 1, 2, 3, 4, 5, 1, 2, 3, 4, 5};
    a.row_ptr = {0, 6, 7, 8, 9, 10, 11};
    a.values.assign(11, 1.0);
    for (const int s : {1, 2, 4}) {
        const auto c = make_case(a, blocks(6, 3), 2, s);
        EXPECT_EQ(c.counts[0].boundary_nnz, std::vector<double>(static_cast<std::size_t>(s), 3.0));
        EXPECT_DOUBLE_EQ(mpk_surface_to_volume(c.counts[0].boundary_nnz[0], c.counts[0].own_nnz),
                         3.0 / 8.0);
        EXPECT_DOUBLE_EQ(mpk_extra_flops(c.counts[0].boundary_nnz), 6.0 * s);
        EXPECT_DOUBLE_EQ(c.counts[1].boundary_nnz[0], 0.0);
        // Fig. 7: 3 + 3 = 6 per call against 6 s for s SpMVs.
        EXPECT_DOUBLE_EQ(mpk_comm_volume(c.ghost_union, c.ghost_per_part), 6.0);
        EXPECT_DOUBLE_EQ(spmvs_comm_volume(s, c.halo_union, c.halo_per_part), 6.0 * s);
    }
}

TEST(MpkModel, PerPartRatesPriceEachPartAtItsOwnRate)
{
    // Part 0: 1e6 flops at 1e9/s + 100 words at 1e8/s + 2 exchanges of 1e-5 s = 1e-3 + 1e-6 +
    // 2e-5; part 1: 4e6 flops at 2e9/s, nothing else = 2e-3: the slowest is part 1.
    const std::vector<MpkPartCost> parts = {{1e6, 100, 2, 2}, {4e6, 0, 0, 0}};
    const std::vector<MpkRates> rates = {{1e9, 1e8, 1e-5}, {2e9, 1e8, 1e-5}};
    EXPECT_DOUBLE_EQ(part_time(parts[0], rates[0]), 1e-3 + 1e-6 + 2e-5);
    EXPECT_DOUBLE_EQ(predicted_time_per_part(parts, rates), 2e-3);
    // The same rates everywhere: predicted_time.
    const std::vector<MpkRates> same(2, rates[0]);
    EXPECT_DOUBLE_EQ(predicted_time_per_part(parts, same), predicted_time(parts, rates[0]));
}

// ---- errors ------------------------------------------------------------------------------------

TEST(MpkModel, BadInputNamesTheParameter)
{
    test::expect_invalid([] { mpk_surface_to_volume(1, 0); }, {"own_nnz"});
    test::expect_invalid([] { mpk_extra_flops({}); }, {"boundary_nnz"});
    test::expect_invalid([] { mpk_extra_flops({1, -1}); }, {"boundary_nnz"});
    test::expect_invalid([] { spmvs_flops(1, 0); }, {"s = 0"});
    test::expect_invalid([] { part_time({1, 1, 1}, {0, 1, 0}); }, {"flops_per_s"});
    test::expect_invalid([] { part_time({1, 1, 1}, {1, 0, 0}); }, {"words_per_s"});
    test::expect_invalid([] { predicted_time({}, {1, 1, 0}); }, {"parts"});
    test::expect_invalid([] { predicted_time_per_part({}, {}); }, {"parts"});
    test::expect_invalid([] { predicted_time_per_part({{1, 1, 1}}, {}); },
                         {"predicted_time_per_part", "rates has 0 entries", "(1)"});
}

}  // namespace
}  // namespace kbench::models
