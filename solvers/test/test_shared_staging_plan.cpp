// The host-only planning of the host_staged transport's shared-memory path
// (solvers/distributed/shared_staging_plan.hpp): pieces of the neighbours' ranges (every word
// in exactly one piece, pieces of one neighbour in order, round-robin over the neighbours, the
// receiver's piece count) and the page ranges to register (rounded out, merged, never two
// sharing a page).
#include "solvers/distributed/shared_staging_plan.hpp"

#include "kernels/test/expect_invalid.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace kbench::dist::detail {
namespace {

using kbench::test::expect_invalid;

TEST(SharedStagingPlan, ChunkIsTwoMebibytes)
{
    EXPECT_EQ(staging_chunk_bytes, std::size_t{2} << 20);
    EXPECT_EQ(staging_chunk_words<double>(), 262144);
    EXPECT_EQ(staging_chunk_words<float>(), 524288);
}

TEST(SharedStagingPlan, PieceCount)
{
    EXPECT_EQ(piece_count(0, 4), 0);
    EXPECT_EQ(piece_count(1, 4), 1);
    EXPECT_EQ(piece_count(4, 4), 1);
    EXPECT_EQ(piece_count(5, 4), 2);
    EXPECT_EQ(piece_count(12, 4), 3);
    EXPECT_EQ(piece_count(13, 1), 13);
    expect_invalid([] { piece_count(-1, 4); }, {"piece_count", "words = -1"});
    expect_invalid([] { piece_count(3, 0); }, {"piece_count", "max_words = 0"});
}

TEST(SharedStagingPlan, PiecesRoundRobinOverNeighbours)
{
    // Neighbour 0: 10 words (4 + 4 + 2), neighbour 1: 3 (one piece), neighbour 2: 8 (4 + 4).
    const std::vector<StagingPiece> p = staging_pieces({0, 10, 13, 21}, 4);
    const std::vector<std::vector<index_type>> expected = {
        // neighbour, index, offset, count
        {0, 0, 0, 4}, {1, 0, 10, 3}, {2, 0, 13, 4}, {0, 1, 4, 4}, {2, 1, 17, 4}, {0, 2, 8, 2}};
    ASSERT_EQ(p.size(), expected.size());
    for (std::size_t i = 0; i < p.size(); ++i) {
        SCOPED_TRACE(i);
        EXPECT_EQ(p[i].neighbour, expected[i][0]);
        EXPECT_EQ(p[i].index, expected[i][1]);
        EXPECT_EQ(p[i].offset, expected[i][2]);
        EXPECT_EQ(p[i].count, expected[i][3]);
    }
}

TEST(SharedStagingPlan, PiecesCoverEveryWordOnceAndMatchTheReceiversCount)
{
    for (const index_type chunk : {1, 3, 7, 64, 1000}) {
        const std::vector<index_type> offsets = {5, 5 + 1, 5 + 1 + 64, 5 + 1 + 64 + 129, 300};
        const auto p = staging_pieces(offsets, chunk);
        std::vector<int> hits(300, 0);
        std::vector<int> last_index(offsets.size() - 1, -1);
        std::vector<index_type> pieces(offsets.size() - 1, 0);
        for (const StagingPiece& s : p) {
            ASSERT_GE(s.count, 1);
            ASSERT_LE(s.count, chunk);
            const auto k = static_cast<std::size_t>(s.neighbour);
            // The receiver's view: piece i starts i chunk words into the range.
            EXPECT_EQ(s.offset, offsets[k] + s.index * chunk);
            EXPECT_EQ(s.index, last_index[k] + 1) << "pieces of a neighbour in order";
            last_index[k] = s.index;
            ++pieces[k];
            for (index_type w = s.offset; w < s.offset + s.count; ++w) {
                ASSERT_LT(w, offsets[k + 1]);
                ++hits[static_cast<std::size_t>(w)];
            }
        }
        for (index_type w = 0; w < 300; ++w)
            EXPECT_EQ(hits[static_cast<std::size_t>(w)], w >= 5 ? 1 : 0) << "word " << w;
        for (std::size_t k = 0; k + 1 < offsets.size(); ++k)
            EXPECT_EQ(pieces[k], piece_count(offsets[k + 1] - offsets[k], chunk));
    }
}

TEST(SharedStagingPlan, NoRangesNoPieces)
{
    EXPECT_TRUE(staging_pieces({0}, 4).empty());  // a rank that sends nothing
    EXPECT_TRUE(staging_pieces({}, 4).empty());
    EXPECT_TRUE(staging_pieces({3, 3}, 4).empty());
    expect_invalid([] { staging_pieces({0, 4}, 0); }, {"staging_pieces", "max_words = 0"});
    expect_invalid([] { staging_pieces({0, 4, 2}, 2); }, {"staging_pieces", "decrease"});
}

TEST(SharedStagingPlan, ContiguousSegmentsAreRegisteredOnce)
{
    // MPI's default shared window: segments back to back from a page-aligned base; rank 1 sends
    // nothing (an empty segment), rank 2 ends mid-page.
    const std::uintptr_t base = 0x7f0000000000;
    const std::vector<ByteRange> seg = {
        {base + 64, base + 64 + 10000}, {base + 10064, base + 10064}, {base + 10064, base + 20000}};
    const auto r = registration_ranges(seg, 4096);
    ASSERT_EQ(r.size(), 1u);
    EXPECT_EQ(r[0], (ByteRange{base, base + 20480}));
}

TEST(SharedStagingPlan, SeparateSegmentsAreRoundedOutAndMergedWhenTheyShareAPage)
{
    const std::uintptr_t a = 0x10000, b = 0x40000;
    // Unsorted; the first two share page 0x11000; the third is alone; one empty.
    const std::vector<ByteRange> seg = {
        {b + 8, b + 4096}, {a + 100, a + 4200}, {a + 4300, a + 9000}, {a + 50, a + 50}};
    const auto r = registration_ranges(seg, 4096);
    ASSERT_EQ(r.size(), 2u);
    EXPECT_EQ(r[0], (ByteRange{a, a + 12288}));
    EXPECT_EQ(r[1], (ByteRange{b, b + 4096}));
    // Pages that only touch are merged too (one registration, as one mapping would need).
    const auto t = registration_ranges({{a, a + 4096}, {a + 4096, a + 5000}}, 4096);
    ASSERT_EQ(t.size(), 1u);
    EXPECT_EQ(t[0], (ByteRange{a, a + 8192}));
    EXPECT_TRUE(registration_ranges({{a, a}}, 4096).empty());
    expect_invalid([&] { registration_ranges({{a, a + 1}}, 3000); }, {"page_size = 3000"});
    expect_invalid([&] { registration_ranges({{a + 1, a}}, 4096); }, {"ends before"});
}

}  // namespace
}  // namespace kbench::dist::detail
