// mpk_sweep (harness/studies/yamazaki2014/mpk_sweep.hpp): the counts of every s = 1..s_max from
// one set of index sets of s_max steps equal those computed for each s on its own
// (matrices/row_partition.hpp), on a hand-checked tridiagonal matrix, 2D and 3D stencils and a
// nonsymmetric random pattern, with block, irregular and uneven partitions.
#include "harness/studies/yamazaki2014/mpk_sweep.hpp"

#include "matrices/generators.hpp"
#include "matrices/reorder.hpp"
#include "matrices/row_partition.hpp"
#include "models/mpk_model.hpp"

#include "kernels/test/expect_invalid.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace kbench::harness {
namespace {

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

/// Every count of the sweep against mpk_index_sets / mpk_part_counts / ghost_union_size of each s.
void expect_same_as_each_s(const Csr<double>& a, const std::vector<int>& part, int parts,
                           int s_max, const std::string& what)
{
    const MpkSweep w = mpk_sweep(a, part, parts, s_max);
    ASSERT_EQ(w.num_parts, parts);
    ASSERT_EQ(w.s_max, s_max);
    ASSERT_EQ(w.ghost_union.size(), static_cast<std::size_t>(s_max));
    const HaloPlan halo1 = halo_plan(a, part, parts, 1);
    for (int s = 1; s <= s_max; ++s) {
        SCOPED_TRACE(what + ", s = " + std::to_string(s));
        const auto sets = mpk_index_sets(a, part, parts, s);
        const auto counts = mpk_part_counts(a, sets, halo1);
        const auto si = static_cast<std::size_t>(s - 1);
        EXPECT_EQ(w.ghost_union[si], static_cast<double>(ghost_union_size(sets, a.num_rows)));
        for (std::size_t d = 0; d < counts.size(); ++d) {
            EXPECT_EQ(w.own_rows[d], counts[d].own_rows);
            EXPECT_EQ(w.own_nnz[d], counts[d].own_nnz);
            EXPECT_EQ(models::mpk_boundary_for_steps(w.boundary_nnz[d], s), counts[d].boundary_nnz);
            EXPECT_EQ(models::mpk_boundary_for_steps(w.boundary_rows[d], s),
                      counts[d].boundary_rows);
            EXPECT_EQ(w.mpk_messages[d][si], counts[d].mpk_messages) << "part " << d;
            EXPECT_EQ(w.halo_words_s1[d], counts[d].halo_words_s1);
            EXPECT_EQ(w.halo_messages_s1[d], counts[d].halo_messages_s1);
        }
    }
}

TEST(MpkSweep, TridiagonalByHand)
{
    // Parts {0..5}, {6..11}, s_max = 3: the ghost rows of s steps are 6-s..5+s less the own
    // ones; union: {5,6}, {4..7}, {3..8}; each part hears from the other only.
    const MpkSweep w = mpk_sweep(tridiagonal(12), block_partition(12, 2), 2, 3);
    EXPECT_EQ(w.ghost_union, (std::vector<double>{2, 4, 6}));
    EXPECT_EQ(w.boundary_nnz[0], (std::vector<double>{9, 6, 3}));  // rows 6..8, 6..7, 6
    EXPECT_EQ(w.boundary_rows[1], (std::vector<double>{3, 2, 1}));
    EXPECT_EQ(w.mpk_messages[0], (std::vector<double>{1, 1, 1}));
    EXPECT_EQ(w.halo_words_s1, (std::vector<double>{1, 1}));
    EXPECT_EQ(w.own_nnz, (std::vector<double>{17, 17}));
}

TEST(MpkSweep, TridiagonalFourPartsMessagesGrowWithS)
{
    // Parts of 3 rows: part 1 (rows 3..5) reaches part 0 and 2 at s = 1 and part 3 at s = 4.
    const MpkSweep w = mpk_sweep(tridiagonal(12), block_partition(12, 4), 4, 5);
    EXPECT_EQ(w.mpk_messages[1], (std::vector<double>{2, 2, 2, 3, 3}));
    EXPECT_EQ(w.mpk_messages[0], (std::vector<double>{1, 1, 1, 2, 2}));
    expect_same_as_each_s(tridiagonal(12), block_partition(12, 4), 4, 5, "tridiagonal, 4 parts");
}

TEST(MpkSweep, StencilsWithBlockAndIrregularPartitions)
{
    const Csr<double> lap3 = laplacian_3d_27pt(4, 5, 9);
    expect_same_as_each_s(lap3, block_partition(lap3.num_rows, 3), 3, 6, "27-point, blocks");
    const Csr<double> lap2 = laplacian_2d_5pt(12, 9);
    std::vector<int> scattered(static_cast<std::size_t>(lap2.num_rows));
    for (std::size_t r = 0; r < scattered.size(); ++r)
        scattered[r] = static_cast<int>((r * 7 + r / 5) % 4);  // parts interleaved everywhere
    expect_same_as_each_s(lap2, scattered, 4, 5, "5-point, interleaved");
    std::vector<int> uneven(static_cast<std::size_t>(lap2.num_rows), 0);
    for (std::size_t r = 90; r < uneven.size(); ++r) uneven[r] = 1;  // a thin strip
    expect_same_as_each_s(lap2, uneven, 2, 8, "5-point, uneven");
}

TEST(MpkSweep, NonsymmetricPattern)
{
    RandomRowsParams p;
    p.n = 80;
    p.row_min = 2;
    p.row_max = 5;
    p.bandwidth = 7;
    p.seed = 3;
    const Csr<double> a = random_rows(p);
    expect_same_as_each_s(a, block_partition(a.num_rows, 3), 3, 6, "random rows");
}

TEST(MpkSweep, BadInputNamesTheParameter)
{
    const Csr<double> a = tridiagonal(6);
    test::expect_invalid([&] { mpk_sweep(a, block_partition(6, 2), 2, 0); }, {"s = 0"});
    test::expect_invalid([&] { mpk_sweep(a, {0, 0, 1}, 2, 2); }, {"part"});
    test::expect_invalid([&] { mpk_sweep(a, block_partition(6, 3), 2, 2); }, {"part["});
}

}  // namespace
}  // namespace kbench::harness
