// MPK index sets and halo plans (matrices/row_partition.hpp, yamazaki2014 Sec. IV-A, Fig. 4) on
// small matrices where every set can be read off by hand.
#include "matrices/row_partition.hpp"

#include "matrices/generators.hpp"

#include "kernels/test/expect_invalid.hpp"

#include <gtest/gtest.h>

#include <algorithm>
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
