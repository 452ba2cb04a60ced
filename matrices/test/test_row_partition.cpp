// MPK index sets and halo plans (matrices/row_partition.hpp, yamazaki2014 Sec. IV-A, Fig. 4) on
// small matrices where every set can be read off by hand.
#include "matrices/row_partition.hpp"

#include "matrices/generators.hpp"
#include "matrices/reorder.hpp"

#include "kernels/test/expect_invalid.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace kbench {
namespace {

using Set = std::vector<index_type>;

// A pattern matrix (values 1) from its rows' column lists.
Csr<double> from_rows(const std::vector<Set>& rows)
{
    Csr<double> a;
    a.num_rows = a.num_cols = static_cast<index_type>(rows.size());
    for (const auto& r : rows) {
        for (const index_type c : r) a.col_idx.push_back(c);
        a.row_ptr.push_back(static_cast<index_type>(a.col_idx.size()));
    }
    a.values.assign(a.col_idx.size(), 1.0);
    return a;
}

// 1D tridiagonal pattern of n rows.
Csr<double> tridiagonal(index_type n)
{
    std::vector<Set> rows(static_cast<std::size_t>(n));
    for (index_type i = 0; i < n; ++i)
        for (index_type j = std::max(0, i - 1); j <= std::min(n - 1, i + 1); ++j)
            rows[static_cast<std::size_t>(i)].push_back(j);
    return from_rows(rows);
}

// part[r] = r / block (contiguous blocks).
std::vector<int> blocks(index_type n, index_type block)
{
    std::vector<int> p(static_cast<std::size_t>(n));
    for (index_type r = 0; r < n; ++r) p[static_cast<std::size_t>(r)] = r / block;
    return p;
}

Set range(index_type first, index_type last)  // [first, last]
{
    Set s;
    for (index_type i = first; i <= last; ++i) s.push_back(i);
    return s;
}


// ---- 1D tridiagonal: the ghost rows grow by one per level from each cut ------------------------

TEST(MpkIndexSets, TridiagonalTwoPartsOfSix)
{
    const auto a = tridiagonal(12);
    const auto sets = mpk_index_sets(a, blocks(12, 6), 2, 3);
    ASSERT_EQ(sets.size(), 2u);
    const auto& p0 = sets[0];
    // i^(0,4) = own rows 0..5; delta^(0,3) = {6} (distance 1), delta^(0,2) = {7}, delta^(0,1) = {8}.
    EXPECT_EQ(p0.own(), range(0, 5));
    EXPECT_EQ(p0.i(4), range(0, 5));
    EXPECT_EQ(p0.delta(3), Set{6});
    EXPECT_EQ(p0.delta(2), Set{7});
    EXPECT_EQ(p0.delta(1), Set{8});
    EXPECT_EQ(p0.i(3), range(0, 6));
    EXPECT_EQ(p0.i(2), range(0, 7));
    EXPECT_EQ(p0.i(1), range(0, 8));
    // delta^(0,k:s) = i^(0,k) \ i^(0,4).
    EXPECT_EQ(p0.boundary(1), (Set{6, 7, 8}));
    EXPECT_EQ(p0.boundary(2), (Set{6, 7}));
    EXPECT_EQ(p0.boundary(3), Set{6});
    EXPECT_TRUE(p0.boundary(4).empty());
    const auto& p1 = sets[1];
    EXPECT_EQ(p1.own(), range(6, 11));
    EXPECT_EQ(p1.delta(3), Set{5});
    EXPECT_EQ(p1.delta(2), Set{4});
    EXPECT_EQ(p1.delta(1), Set{3});
    EXPECT_EQ(p1.i(1), range(3, 11));
}

TEST(MpkIndexSets, TridiagonalThreePartsOfFour)
{
    const auto a = tridiagonal(12);
    const auto part = blocks(12, 4);
    const auto sets = mpk_index_sets(a, part, 3, 2);
    // The middle part grows at both cuts: delta^(1,2) = {3, 8}, delta^(1,1) = {2, 9}.
    EXPECT_EQ(sets[1].delta(2), (Set{3, 8}));
    EXPECT_EQ(sets[1].delta(1), (Set{2, 9}));
    EXPECT_EQ(sets[1].i(1), range(2, 9));
    EXPECT_EQ(sets[0].boundary(1), (Set{4, 5}));
    EXPECT_EQ(sets[2].boundary(1), (Set{6, 7}));
    // The MPK plan groups the ghosts by owner.
    const auto plan = halo_plan(sets, part, 3);
    EXPECT_EQ(plan.recv[1][0], (Set{2, 3}));
    EXPECT_EQ(plan.recv[1][2], (Set{8, 9}));
    EXPECT_TRUE(plan.recv[1][1].empty());
    EXPECT_EQ(plan.received(1), 4);
    EXPECT_EQ(plan.neighbours(1), 2);
    EXPECT_EQ(plan.neighbours(0), 1);
    EXPECT_EQ(plan.sent(1), 4);  // {4, 5} to part 0 and {6, 7} to part 2
    EXPECT_EQ(ghost_union_size(sets, 12), 8);  // rows 2..9
    // With s = 4 the middle part needs every other row; the outer parts reach rows 4..7 only.
    const auto s4 = mpk_index_sets(a, part, 3, 4);
    EXPECT_EQ(s4[1].i(1), range(0, 11));
    EXPECT_EQ(s4[0].boundary(1), range(4, 7));
    EXPECT_EQ(s4[1].delta(1), (Set{0, 11}));
}

TEST(MpkIndexSets, OnePartHasNoGhosts)
{
    const auto sets = mpk_index_sets(tridiagonal(5), std::vector<int>(5, 0), 1, 3);
    for (int k = 1; k <= 3; ++k) EXPECT_TRUE(sets[0].delta(k).empty());
    EXPECT_EQ(sets[0].i(1), range(0, 4));
}

// ---- 2D 5-point Laplacian, 4 x 4 grid (row = x + 4 y), split into halves y < 2 and y >= 2 --------

TEST(MpkIndexSets, Laplacian2dHalves)
{
    const auto a = laplacian_2d_5pt(4, 4);
    const auto part = blocks(16, 8);
    const auto sets = mpk_index_sets(a, part, 2, 2);
    // Grid line y = 2 (rows 8..11) is one edge from part 0, line y = 3 (rows 12..15) two.
    EXPECT_EQ(sets[0].delta(2), range(8, 11));
    EXPECT_EQ(sets[0].delta(1), range(12, 15));
    EXPECT_EQ(sets[1].delta(2), range(4, 7));
    EXPECT_EQ(sets[1].delta(1), range(0, 3));
}

TEST(MpkIndexSets, Laplacian2dQuadrantsGrowAsDiamonds)
{
    const auto a = laplacian_2d_5pt(4, 4);
    std::vector<int> part(16);
    for (int y = 0; y < 4; ++y)
        for (int x = 0; x < 4; ++x) part[static_cast<std::size_t>(x + 4 * y)] = (x / 2) + 2 * (y / 2);
    const auto sets = mpk_index_sets(a, part, 4, 2);
    // Part 0 = {(x, y) : x, y < 2} = rows {0, 1, 4, 5}. Distance 1: (2,0) (2,1) (0,2) (1,2) =
    // rows {2, 6, 8, 9}; distance 2: (3,0) (3,1) (2,2) (0,3) (1,3) = rows {3, 7, 10, 12, 13}.
    EXPECT_EQ(sets[0].delta(2), (Set{2, 6, 8, 9}));
    EXPECT_EQ(sets[0].delta(1), (Set{3, 7, 10, 12, 13}));
    const auto plan = halo_plan(sets, part, 4);
    EXPECT_EQ(plan.recv[0][1], (Set{2, 3, 6, 7}));
    EXPECT_EQ(plan.recv[0][2], (Set{8, 9, 12, 13}));
    EXPECT_EQ(plan.recv[0][3], Set{10});  // (2,2), the diagonal neighbour
    EXPECT_EQ(plan.neighbours(0), 3);
    EXPECT_EQ(ghost_union_size(sets, 16), 16);
}

// ---- a dense row: edges run row -> column, so only its owner needs the whole vector -------------

TEST(MpkIndexSets, DenseRowIsNonsymmetric)
{
    // Row 0 has every column, rows 1..5 only their diagonal. Parts {0, 1, 2} and {3, 4, 5}.
    std::vector<Set> rows{range(0, 5), {1}, {2}, {3}, {4}, {5}};
    const auto sets = mpk_index_sets(from_rows(rows), blocks(6, 3), 2, 3);
    EXPECT_EQ(sets[0].delta(3), (Set{3, 4, 5}));  // one edge from row 0
    EXPECT_TRUE(sets[0].delta(2).empty());         // rows 3..5 reach only themselves
    EXPECT_TRUE(sets[0].delta(1).empty());
    EXPECT_EQ(sets[0].boundary(1), (Set{3, 4, 5}));
    for (int k = 1; k <= 3; ++k) EXPECT_TRUE(sets[1].delta(k).empty());  // no row of part 1 reads 0..2
}

// ---- the s = 1 halo plan equals the rows' off-part columns -------------------------------------

TEST(HaloPlan, SpmvHaloIsTheOffPartColumns)
{
    const auto a = laplacian_2d_5pt(5, 4);
    std::vector<int> part(20);
    for (index_type r = 0; r < 20; ++r) part[static_cast<std::size_t>(r)] = (r * 7 % 3);  // scattered
    const auto plan = halo_plan(a, part, 3);
    EXPECT_EQ(plan.s, 1);
    for (int d = 0; d < 3; ++d)
        for (int p = 0; p < 3; ++p) {
            Set expected;
            for (index_type r = 0; r < 20; ++r)
                if (part[static_cast<std::size_t>(r)] == d)
                    for (index_type e = a.row_ptr[r]; e < a.row_ptr[r + 1]; ++e)
                        if (p != d && part[static_cast<std::size_t>(a.col_idx[e])] == p)
                            expected.push_back(a.col_idx[e]);
            std::sort(expected.begin(), expected.end());
            expected.erase(std::unique(expected.begin(), expected.end()), expected.end());
            EXPECT_EQ(plan.recv[d][p], expected) << "d = " << d << ", p = " << p;
            EXPECT_EQ(plan.count(d, p), static_cast<index_type>(expected.size()));
        }
}

// ---- counts for the model ----------------------------------------------------------------------

TEST(MpkPartCounts, TridiagonalTwoParts)
{
    const auto a = tridiagonal(12);  // rows 0 and 11 have 2 non-zeros, the others 3
    const auto part = blocks(12, 6);
    const auto sets = mpk_index_sets(a, part, 2, 3);
    const auto counts = mpk_part_counts(a, sets, halo_plan(a, part, 2));
    ASSERT_EQ(counts.size(), 2u);
    EXPECT_EQ(counts[0].own_rows, 6.0);
    EXPECT_EQ(counts[0].own_nnz, 17.0);                              // 2 + 5 * 3
    EXPECT_EQ(counts[0].boundary_rows, (std::vector<double>{3, 2, 1}));
    EXPECT_EQ(counts[0].boundary_nnz, (std::vector<double>{9, 6, 3}));  // 3 per ghost row
    EXPECT_EQ(counts[0].halo_words_s1, 1.0);
    EXPECT_EQ(counts[0].halo_messages_s1, 1.0);
    EXPECT_EQ(counts[0].mpk_messages, 1.0);
}

// ---- halo volume of one SpMV: bandwidth vs compressed scheme (zianekhodja2014 Secs. 5.1, 6.1) ---

using Counts = std::vector<std::int64_t>;
using Messages = std::vector<int>;

// 8 x 8 pattern on 4 ranks, offsets {0, 3, 3, 6, 8}: rank 0 rows 0-2, rank 1 empty, rank 2
// rows 3-5, rank 3 rows 6-7 (whose rows use only their own columns: no neighbours to receive
// from, but rank 2 reads its column 7).
//          col 0 1 2 | 3 4 5 | 6 7
//   rank 0  0: x x . | . . . | . .
//           1: . x x | . . x | . .
//           2: . . x | . . . | . .
//   rank 2  3: . . x | x . . | . .
//           4: . . . | . x . | . x
//           5: . . . | x . x | . .
//   rank 3  6: . . . | . . . | x x
//           7: . . . | . . . | x x
Csr<double> eight_by_eight()
{
    return from_rows({{0, 1}, {1, 2, 5}, {2}, {2, 3}, {4, 7}, {3, 5}, {6, 7}, {6, 7}});
}
const std::vector<index_type> eight_offsets{0, 3, 3, 6, 8};

TEST(SpmvCommVolume, BandwidthSchemeByHand)
{
    const auto v = bandwidth_comm_volume(eight_by_eight(), eight_offsets);
    // rank 0: window [0, 5] (bw 6, n 3): receives 3, 4, 5 from rank 2, S = 6 - 3 = 3.
    // rank 1: no rows. rank 2: window [2, 7] (bw 6, n 3): 2 from rank 0, 6, 7 from rank 3.
    // rank 3: window [6, 7] = own rows.
    EXPECT_EQ(v.num_ranks(), 4);
    EXPECT_EQ(v.words_received, (Counts{3, 0, 3, 0}));
    EXPECT_EQ(v.words_sent, (Counts{1, 0, 3, 2}));
    EXPECT_EQ(v.messages_received, (Messages{1, 0, 2, 0}));
    EXPECT_EQ(v.messages_sent, (Messages{1, 0, 1, 1}));
    EXPECT_EQ(v.total_words, 6);
    EXPECT_EQ(v.total_messages, 3);
}

TEST(SpmvCommVolume, CompressedSchemeByHand)
{
    const auto v = compressed_comm_volume(eight_by_eight(), eight_offsets);
    // rank 0 uses column 5 of rank 2; rank 2 uses column 2 of rank 0 and 7 of rank 3.
    EXPECT_EQ(v.words_received, (Counts{1, 0, 2, 0}));
    EXPECT_EQ(v.words_sent, (Counts{1, 0, 1, 1}));
    EXPECT_EQ(v.messages_received, (Messages{1, 0, 2, 0}));
    EXPECT_EQ(v.messages_sent, (Messages{1, 0, 1, 1}));
    EXPECT_EQ(v.total_words, 3);
    EXPECT_EQ(v.total_messages, 3);
}

TEST(SpmvCommVolume, WindowNeedNotHoldTheOwnRows)
{
    // Rows 2 and 3 (rank 1) read only column 0: window [0, 0], bw 1, n 2. Formula 4 would give
    // S = 1 - 2 < 0; the rank receives the one entry of its window.
    const auto a = from_rows({{0}, {1}, {0}, {0}});
    const std::vector<index_type> offsets{0, 2, 4};
    const auto bw = bandwidth_comm_volume(a, offsets);
    EXPECT_EQ(bw.words_received, (Counts{0, 1}));
    EXPECT_EQ(compressed_comm_volume(a, offsets).words_received, (Counts{0, 1}));
    // Rows 2 and 3 read columns 0 and 3: the window [0, 3] sends 0 and 1, compressed only 0.
    const auto b = from_rows({{0}, {1}, {0, 2}, {3}});
    EXPECT_EQ(bandwidth_comm_volume(b, offsets).total_words, 2);
    EXPECT_EQ(compressed_comm_volume(b, offsets).total_words, 1);
}

TEST(SpmvCommVolume, OneRankExchangesNothing)
{
    const auto a = eight_by_eight();
    for (const auto& v : {bandwidth_comm_volume(a, {0, 8}), compressed_comm_volume(a, {0, 8})}) {
        EXPECT_EQ(v.words_received, Counts{0});
        EXPECT_EQ(v.total_words, 0);
        EXPECT_EQ(v.total_messages, 0);
    }
}

TEST(SpmvCommVolume, CompressedNeverExceedsBandwidthOnAReplicatedMatrix)
{
    // Five-band replication of a nonsymmetric seed (far bands: wide windows), 5 uneven blocks.
    const auto a = replicate(convection_diffusion(4, 3, 1, 10.0, -5.0, 0.0), 120,
                             ReplicationLayout::five_band);
    const std::vector<index_type> offsets{0, 10, 37, 37, 80, 120};
    const auto bw = bandwidth_comm_volume(a, offsets);
    const auto cmp = compressed_comm_volume(a, offsets);
    for (int d = 0; d < 5; ++d) {
        EXPECT_LE(cmp.words_received[d], bw.words_received[d]) << "rank " << d;
        EXPECT_LE(cmp.messages_received[d], bw.messages_received[d]) << "rank " << d;
    }
    EXPECT_LT(cmp.total_words, bw.total_words);
    std::int64_t sent = 0;
    for (const auto w : bw.words_sent) sent += w;
    EXPECT_EQ(sent, bw.total_words);  // every word received was sent once
}

TEST(SpmvCommVolume, PartitionCountedAfterRenumberingPartByPart)
{
    // Tridiagonal plus a far band at distance 4 (8 x 8): row i uses i-4, i-1, i, i+1, i+4.
    std::vector<Set> rows(8);
    for (index_type i = 0; i < 8; ++i)
        for (const index_type j : {i - 4, i - 1, i, i + 1, i + 4})
            if (j >= 0 && j < 8) rows[static_cast<std::size_t>(i)].push_back(j);
    const auto a = from_rows(rows);
    // Natural blocks {0..3}, {4..7}: each rank needs all 4 entries of the other (both schemes).
    EXPECT_EQ(compressed_comm_volume(a, {0, 4, 8}).words_received, (Counts{4, 4}));
    EXPECT_EQ(bandwidth_comm_volume(a, {0, 4, 8}).words_received, (Counts{4, 4}));
    // Partition {0, 1, 4, 5} | {2, 3, 6, 7} (what a hypergraph partitioner could return): part 0
    // needs 2, 3, 6 (rows 1, 4, 5); part 1 needs 1, 4, 5 (rows 2, 3, 6, 7).
    const std::vector<int> part{0, 0, 1, 1, 0, 0, 1, 1};
    const auto direct = comm_volume(halo_plan(a, part, 2));
    EXPECT_EQ(direct.words_received, (Counts{3, 3}));
    EXPECT_EQ(direct.total_words, 6);
    // Renumbered part by part (new order 0 1 4 5 2 3 6 7), the parts are contiguous blocks.
    const auto offsets = part_offsets(part, 2);
    EXPECT_EQ(offsets, (std::vector<index_type>{0, 4, 8}));
    const auto b = permute_symmetric(a, permutation_from_parts(part));
    const auto renumbered = compressed_comm_volume(b, offsets);
    EXPECT_EQ(renumbered.words_received, direct.words_received);
    EXPECT_EQ(renumbered.words_sent, direct.words_sent);
    EXPECT_EQ(renumbered.messages_received, direct.messages_received);
    EXPECT_EQ(renumbered.total_words, 6);
    // Here the windows shrink as well: part 0's columns become {0..3} + {4, 5, 6}, part 1's
    // {4..7} + {1, 2, 3}.
    EXPECT_EQ(bandwidth_comm_volume(b, offsets).words_received, (Counts{3, 3}));
}

TEST(SpmvCommVolume, OffsetsHelpersAndErrors)
{
    EXPECT_EQ(parts_from_offsets({0, 2, 2, 5}), (std::vector<int>{0, 0, 2, 2, 2}));
    EXPECT_EQ(part_offsets({2, 0, 2, 2}, 4), (std::vector<index_type>{0, 1, 1, 4, 4}));
    const auto a = eight_by_eight();
    test::expect_invalid([&] { bandwidth_comm_volume(a, {0}); }, {"offsets", "P + 1 >= 2"});
    test::expect_invalid([&] { bandwidth_comm_volume(a, {0, 7}); }, {"offsets", "n = 8"});
    test::expect_invalid([&] { compressed_comm_volume(a, {1, 8}); }, {"offsets"});
    test::expect_invalid([&] { compressed_comm_volume(a, {0, 5, 3, 8}); },
                         {"offsets[2] = 3", "non-decreasing"});
    test::expect_invalid([&] { part_offsets({0, 3}, 2); }, {"part[1] = 3"});
    Csr<double> rect = a;
    rect.num_cols = 9;
    test::expect_invalid([&] { bandwidth_comm_volume(rect, {0, 8}); }, {"a:"});
}

// ---- errors ------------------------------------------------------------------------------------

TEST(MpkIndexSets, BadInputNamesTheParameter)
{
    const auto a = tridiagonal(4);
    test::expect_invalid([&] { mpk_index_sets(a, {0, 0, 1}, 2, 1); }, {"part"});
    test::expect_invalid([&] { mpk_index_sets(a, {0, 0, 1, 2}, 2, 1); }, {"part[3] = 2"});
    test::expect_invalid([&] { mpk_index_sets(a, {0, 0, -1, 1}, 2, 1); }, {"part[2]"});
    test::expect_invalid([&] { mpk_index_sets(a, {0, 0, 1, 1}, 2, 0); }, {"s = 0"});
    test::expect_invalid([&] { mpk_index_sets(a, {0, 0, 0, 0}, 0, 1); }, {"num_parts"});
    Csr<double> rect = a;
    rect.num_cols = 5;
    test::expect_invalid([&] { mpk_index_sets(rect, {0, 0, 1, 1}, 2, 1); }, {"a:"});
    const auto sets = mpk_index_sets(a, {0, 0, 1, 1}, 2, 2);
    EXPECT_THROW(sets[0].i(4), std::invalid_argument);
    EXPECT_THROW(sets[0].delta(0), std::invalid_argument);
    test::expect_invalid([&] { halo_plan(sets, {0, 0, 1, 1}, 3); }, {"sets"});
}

}  // namespace
}  // namespace kbench
