// Tests of the stencil, Trefethen and replication generators (exact, hand-checked values).
#include "matrices/generators.hpp"
#include "matrices/mm_io.hpp"

#include "kernels/test/expect_invalid.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace kbench {
namespace {

using Dense = std::map<std::pair<index_type, index_type>, double>;

Dense to_map(const Csr<double>& a)
{
    Dense m;
    for (index_type i = 0; i < a.num_rows; ++i)
        for (index_type k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) m[{i, a.col_idx[k]}] = a.values[k];
    return m;
}

double row_sum(const Csr<double>& a, index_type i)
{
    double s = 0.0;
    for (index_type k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) s += a.values[k];
    return s;
}

bool is_symmetric(const Csr<double>& a)
{
    const Dense m = to_map(a);
    for (const auto& [ij, v] : m) {
        auto t = m.find({ij.second, ij.first});
        if (t == m.end() || t->second != v) return false;
    }
    return true;
}

TEST(Laplacian2d, ThreeByTwoGridHasExactStencil)
{
    const Csr<double> a = laplacian_2d_5pt(3, 2);
    validate(a);
    ASSERT_EQ(a.num_rows, 6);
    // nnz = n + 2 * (horizontal + vertical edges) = 6 + 2 * (4 + 3)
    EXPECT_EQ(a.nnz(), 20);
    const Dense m = to_map(a);
    EXPECT_EQ(m.at({0, 0}), 4.0);
    EXPECT_EQ(m.at({0, 1}), -1.0);
    EXPECT_EQ(m.at({0, 3}), -1.0);
    EXPECT_EQ(m.count({0, 2}), 0u);
    EXPECT_EQ(m.count({2, 3}), 0u);  // row end: x = 2 has no x+1 neighbour
    EXPECT_EQ(m.at({4, 1}), -1.0);
    EXPECT_TRUE(is_symmetric(a));
}

TEST(Laplacian3d, SevenPointCountsAndInteriorRow)
{
    const Csr<double> a = laplacian_3d_7pt(4, 3, 5);
    validate(a);
    EXPECT_EQ(a.num_rows, 60);
    EXPECT_EQ(a.nnz(), 60 + 2 * (3 * 3 * 5 + 4 * 2 * 5 + 4 * 3 * 4));
    const index_type interior = 1 + 4 * (1 + 3 * 2);  // (x, y, z) = (1, 1, 2)
    EXPECT_EQ(a.row_ptr[interior + 1] - a.row_ptr[interior], 7);
    EXPECT_EQ(row_sum(a, interior), 0.0);
    EXPECT_TRUE(is_symmetric(a));
}

TEST(Laplacian3d, TwentySevenPointCountsAndInteriorRow)
{
    const Csr<double> a = laplacian_3d_27pt(3, 4, 5);
    validate(a);
    EXPECT_EQ(a.nnz(), (3 * 3 - 2) * (3 * 4 - 2) * (3 * 5 - 2));
    const index_type interior = 1 + 3 * (1 + 4 * 2);
    EXPECT_EQ(a.row_ptr[interior + 1] - a.row_ptr[interior], 27);
    EXPECT_EQ(row_sum(a, interior), 0.0);
    EXPECT_EQ(a.row_ptr[1] - a.row_ptr[0], 8);  // corner: 2x2x2 cube
    EXPECT_EQ(a.values[a.row_ptr[0]], 26.0);
    EXPECT_TRUE(is_symmetric(a));
}

TEST(Generators, RejectBadSizesAndOverflow)
{
    EXPECT_THROW(laplacian_2d_5pt(0, 3), std::invalid_argument);
    EXPECT_THROW(laplacian_3d_7pt(2, -1, 2), std::invalid_argument);
    EXPECT_THROW(trefethen(0), std::invalid_argument);
    EXPECT_THROW(convection_diffusion(3, 3, 0, 1, 1, 1), std::invalid_argument);
    EXPECT_THROW(convection_diffusion(3, 3, 1, NAN, 1, 1), std::invalid_argument);
    // 2000^3 rows overflow int32 (thrown before any allocation).
    EXPECT_THROW(laplacian_3d_7pt(2000, 2000, 2000), std::invalid_argument);
    // 1290^3 = 2.15e9 rows > 2^31 - 1; 700^3 rows fit but 27-pt nnz (9.2e9) does not.
    EXPECT_THROW(laplacian_3d_27pt(1290, 1290, 1290), std::invalid_argument);
    EXPECT_THROW(laplacian_3d_27pt(700, 700, 700), std::invalid_argument);
}

TEST(ConvectionDiffusion, ZeroVelocityIsTheLaplacian)
{
    const Csr<double> c2 = convection_diffusion(5, 4, 1, 0.0, 0.0, 0.0);
    const Csr<double> l2 = laplacian_2d_5pt(5, 4);
    EXPECT_EQ(c2.row_ptr, l2.row_ptr);
    EXPECT_EQ(c2.col_idx, l2.col_idx);
    EXPECT_EQ(c2.values, l2.values);
    const Csr<double> c3 = convection_diffusion(3, 4, 2, 0.0, 0.0, 0.0);
    const Csr<double> l3 = laplacian_3d_7pt(3, 4, 2);
    EXPECT_EQ(c3.col_idx, l3.col_idx);
    EXPECT_EQ(c3.values, l3.values);
}

TEST(ConvectionDiffusion, UpwindEntriesRowSumsAndNonsymmetry)
{
    const index_type nx = 4;
    const double h = 1.0 / (nx + 1), wx = 10.0, wy = -5.0;
    const Csr<double> a = convection_diffusion(nx, 4, 1, wx, wy, 0.0);
    validate(a);
    EXPECT_FALSE(is_symmetric(a));
    const Dense m = to_map(a);
    const index_type r = 1 + nx * 1;  // interior (1, 1)
    const double tol = 1e-14;
    EXPECT_NEAR(m.at({r, r}), 4.0 + h * (10.0 + 5.0), tol);
    EXPECT_NEAR(m.at({r, r - 1}), -1.0 - h * wx, tol);  // upwind side for wx > 0
    EXPECT_NEAR(m.at({r, r + 1}), -1.0, tol);
    EXPECT_NEAR(m.at({r, r - nx}), -1.0, tol);
    EXPECT_NEAR(m.at({r, r + nx}), -1.0 - h * 5.0, tol);  // upwind side for wy < 0
    EXPECT_NEAR(row_sum(a, r), 0.0, tol);
    for (index_type i = 0; i < a.num_rows; ++i) EXPECT_GE(row_sum(a, i), -tol) << "row " << i;
}

TEST(Trefethen, SmallCaseByHand)
{
    const Csr<double> a = trefethen(6);
    validate(a);
    const Dense m = to_map(a);
    const double primes[] = {2, 3, 5, 7, 11, 13};
    for (index_type i = 0; i < 6; ++i) EXPECT_EQ(m.at({i, i}), primes[i]);
    EXPECT_EQ(m.at({0, 4}), 1.0);  // |i - j| = 4
    EXPECT_EQ(m.count({0, 3}), 0u);  // 3 is not a power of two
    EXPECT_EQ(m.count({0, 5}), 0u);
    EXPECT_EQ(a.nnz(), 6 + 2 * (5 + 4 + 2));
    EXPECT_TRUE(is_symmetric(a));
}

TEST(Trefethen, MatchesSuiteSparseTrefethen2000)
{
    const char* dir = std::getenv("KBENCH_MATRIX_DIR");
    if (dir == nullptr) GTEST_SKIP() << "KBENCH_MATRIX_DIR is not set";
    const std::string path = std::string(dir) + "/Trefethen_2000.mtx";
    if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " is missing";
    const Csr<double> ref = read_matrix_market<double>(path);
    const Csr<double> a = trefethen(2000);
    EXPECT_EQ(a.nnz(), 41906);
    EXPECT_EQ(a.row_ptr, ref.row_ptr);
    EXPECT_EQ(a.col_idx, ref.col_idx);
    EXPECT_EQ(a.values, ref.values);  // integers: exact
}

// Seed A = [[4 1 0] [2 5 3] [8 6 7]]: half-bandwidth w = 2, S = A[0:2, 0:2] = [[4 1] [2 5]].
Csr<double> seed3()
{
    Csr<double> a;
    a.num_rows = a.num_cols = 3;
    a.row_ptr = {0, 2, 5, 8};
    a.col_idx = {0, 1, 0, 1, 2, 0, 1, 2};
    a.values = {4, 1, 2, 5, 3, 8, 6, 7};
    return a;
}

TEST(Replicate, DiagonalLayoutByHand)
{
    const Csr<double> r = replicate(seed3(), 7, ReplicationLayout::diagonal);
    validate(r);
    ASSERT_EQ(r.num_rows, 9);  // smallest multiple of 3 >= 7
    ASSERT_EQ(r.num_cols, 9);
    // K = 3 copies of A (8 each) + 2 gaps * (1 + 1) entries of S's off-diagonal.
    EXPECT_EQ(r.nnz(), 3 * 8 + 2 * 2);
    const Dense m = to_map(r);
    for (index_type b = 0; b < 3; ++b) {
        EXPECT_EQ(m.at({3 * b + 1, 3 * b + 2}), 3.0);
        EXPECT_EQ(m.at({3 * b + 2, 3 * b + 1}), 6.0);
    }
    // Lower copy: S(0, 1) = 1 at (3 + 0, 3 - 2 + 1) = (3, 2); upper copy: S(1, 0) = 2 at
    // (3 - 2 + 1, 3 + 0) = (2, 3). Same for the second gap at offset 6.
    EXPECT_EQ(m.at({3, 2}), 1.0);
    EXPECT_EQ(m.at({2, 3}), 2.0);
    EXPECT_EQ(m.at({6, 5}), 1.0);
    EXPECT_EQ(m.at({5, 6}), 2.0);
    for (const auto& [ij, v] : m) EXPECT_LE(std::abs(ij.first - ij.second), 2);
}

TEST(Replicate, FiveBandLayoutByHand)
{
    // K = 4 blocks, d = max(2, 4 / 2) = 2: far copies (scaled 1/2) at blocks (0,2), (1,3),
    // (2,0), (3,1).
    const Csr<double> r = replicate(seed3(), 12, ReplicationLayout::five_band);
    validate(r);
    ASSERT_EQ(r.num_rows, 12);
    EXPECT_EQ(r.nnz(), 4 * 8 + 3 * 2 + 2 * 2 * 8);
    const Dense m = to_map(r);
    EXPECT_EQ(m.at({0, 6}), 2.0);   // A(0,0) / 2 in block (0, 2)
    EXPECT_EQ(m.at({10, 4}), 2.5);  // A(1,1) / 2 in block (3, 1)
    EXPECT_EQ(m.at({8, 2}), 3.5);   // A(2,2) / 2 in block (2, 0)
    EXPECT_EQ(m.count({0, 9}), 0u);  // no block (0, 3)
    EXPECT_EQ(m.at({3, 2}), 1.0);    // gap copies as in the diagonal layout
}

TEST(Replicate, SymmetricSeedGivesSymmetricResultAndExactCopies)
{
    const Csr<double> lap = laplacian_2d_5pt(4, 3);  // w = 4, 12 rows, 46 nnz
    for (auto layout : {ReplicationLayout::diagonal, ReplicationLayout::five_band}) {
        const Csr<double> r = replicate(lap, 100, layout);
        validate(r);
        EXPECT_EQ(r.num_rows, 108);  // 9 blocks
        EXPECT_TRUE(is_symmetric(r));
        // Diagonal block 5 equals A.
        const Dense m = to_map(r);
        for (const auto& [ij, v] : to_map(lap)) EXPECT_EQ(m.at({60 + ij.first, 60 + ij.second}), v);
    }
    // S = leading 4x4 block = first grid row: 3 off-diagonal pairs -> 6 entries per gap.
    EXPECT_EQ(replicate(lap, 100, ReplicationLayout::diagonal).nnz(), 9 * 46 + 8 * 6);
    // five_band: d = 4, far copies in 2 * (9 - 4) blocks.
    EXPECT_EQ(replicate(lap, 100, ReplicationLayout::five_band).nnz(),
              9 * 46 + 8 * 6 + 10 * 46);
}

TEST(Replicate, EdgeCasesAndErrors)
{
    const Csr<double> a = seed3();
    EXPECT_EQ(replicate(a, 1, ReplicationLayout::diagonal).nnz(), 8);  // one copy, no gaps
    EXPECT_EQ(replicate(a, 6, ReplicationLayout::five_band).nnz(), 2 * 8 + 2);  // K = 2 <= d
    EXPECT_THROW(replicate(a, 0, ReplicationLayout::diagonal), std::invalid_argument);
    Csr<double> rect = a;
    rect.num_cols = 4;
    EXPECT_THROW(replicate(rect, 10, ReplicationLayout::diagonal), std::invalid_argument);
    EXPECT_THROW(replicate(Csr<double>{}, 10, ReplicationLayout::diagonal), std::invalid_argument);
    // 3 * ceil(2147483647 / 3) = 2147483649 rows overflow int32.
    EXPECT_THROW(replicate(a, 2147483647, ReplicationLayout::diagonal), std::invalid_argument);
}

// ---- replicate_rows: each rank builds its own block (zianekhodja2014 Sec. 5.2, formulas 7-8) ---

// The blocks [offsets[r], offsets[r+1]) of replicate_rows, stacked back into one matrix.
Csr<double> stacked_blocks(const Csr<double>& seed, index_type target, ReplicationLayout layout,
                           const std::vector<index_type>& offsets)
{
    Csr<double> out;
    out.num_cols = replicated_rows(seed, target);
    for (std::size_t r = 0; r + 1 < offsets.size(); ++r) {
        const Csr<double> block = replicate_rows(seed, target, layout, offsets[r], offsets[r + 1]);
        validate(block);
        EXPECT_EQ(block.num_rows, offsets[r + 1] - offsets[r]);
        EXPECT_EQ(block.num_cols, out.num_cols);
        for (index_type i = 0; i < block.num_rows; ++i)
            out.row_ptr.push_back(out.nnz() + block.row_ptr[i + 1]);
        out.col_idx.insert(out.col_idx.end(), block.col_idx.begin(), block.col_idx.end());
        out.values.insert(out.values.end(), block.values.begin(), block.values.end());
        out.num_rows += block.num_rows;
    }
    return out;
}

TEST(ReplicateRows, BlocksOfAnyRangesConcatenateToReplicate)
{
    // (seed, target): seed3 is nonsymmetric (K = 7 odd, K = 4 even), the Laplacian symmetric
    // (K = 9).
    const std::vector<std::pair<Csr<double>, index_type>> cases{
        {seed3(), 20}, {seed3(), 12}, {laplacian_2d_5pt(4, 3), 100}};
    for (const auto& [seed, target] : cases)
        for (auto layout : {ReplicationLayout::diagonal, ReplicationLayout::five_band}) {
            const Csr<double> whole = replicate(seed, target, layout);
            const index_type n = replicated_rows(seed, target);
            ASSERT_EQ(whole.num_rows, n);
            // 1, 2, 3 and 7 ranges: uneven, with empty ranges first, in the middle and single rows.
            const std::vector<std::vector<index_type>> splits{
                {0, n},
                {0, n / 3, n},
                {0, 0, n - 5, n},
                {0, 1, 1, n / 4, n / 2 + 3, n / 2 + 3, n - 1, n}};
            for (const auto& offsets : splits) {
                SCOPED_TRACE("N = " + std::to_string(n) + ", " +
                             std::to_string(offsets.size() - 1) + " ranges, layout " +
                             std::to_string(static_cast<int>(layout)));
                const Csr<double> stacked = stacked_blocks(seed, target, layout, offsets);
                EXPECT_EQ(stacked.num_rows, whole.num_rows);
                EXPECT_EQ(stacked.num_cols, whole.num_cols);
                EXPECT_EQ(stacked.row_ptr, whole.row_ptr);
                EXPECT_EQ(stacked.col_idx, whole.col_idx);
                EXPECT_EQ(stacked.values, whole.values);  // same products: exact
            }
        }
}

TEST(ReplicateRows, MiddleBlockOf25MillionRowsWithoutTheWholeMatrix)
{
    // 2500 copies of a 10^4-row seed: N = 2.5e7, five_band with d = 1250. Rows around the
    // middle: block 1249 has a far-right copy (1249 + 1250 < 2500), block 1250 a far-left one.
    const Csr<double> seed = laplacian_2d_5pt(100, 100);
    const index_type n = seed.num_rows, begin = 12'500'000 - 500, end = 12'500'000 + 500;
    ASSERT_EQ(replicated_rows(seed, 25'000'000), 25'000'000);
    const Csr<double> block =
        replicate_rows(seed, 25'000'000, ReplicationLayout::five_band, begin, end);
    validate(block);
    ASSERT_EQ(block.num_rows, 1000);
    EXPECT_EQ(block.num_cols, 25'000'000);
    for (index_type r = 0; r < block.num_rows; ++r) {
        const index_type g = begin + r, off = g - g % n, i = g % n;
        const index_type seed_len = seed.row_ptr[i + 1] - seed.row_ptr[i];
        index_type diag = 0, far = 0;
        for (index_type k = block.row_ptr[r]; k < block.row_ptr[r + 1]; ++k) {
            const index_type c = block.col_idx[k];
            if (c >= off && c < off + n) {  // diagonal block: the seed's row, shifted
                EXPECT_EQ(c - off, seed.col_idx[seed.row_ptr[i] + diag]);
                EXPECT_EQ(block.values[k], seed.values[seed.row_ptr[i] + diag]);
                ++diag;
            } else if (std::abs(c - g) > n) {
                ++far;
            }
        }
        EXPECT_EQ(diag, seed_len) << "row " << g;
        EXPECT_EQ(far, seed_len) << "row " << g;  // exactly one far copy in blocks 1249 and 1250
    }
}

TEST(ReplicateRows, OnlyTheBlockNnzMustFitTheIndexType)
{
    // Dense 1000 x 1000 seed, N = 3e6: the whole matrix has about 5.0e9 nonzeros, a block of
    // 10 rows 2e4; rows [0, 1.5e6) hold about 3e9 and throw before anything is allocated.
    Csr<double> dense;
    dense.num_rows = dense.num_cols = 1000;
    for (index_type i = 0; i < 1000; ++i) {
        for (index_type j = 0; j < 1000; ++j) dense.col_idx.push_back(j);
        dense.row_ptr.push_back(static_cast<index_type>(dense.col_idx.size()));
    }
    dense.values.assign(dense.col_idx.size(), 1.0);
    EXPECT_THROW(replicate(dense, 3'000'000, ReplicationLayout::diagonal), std::invalid_argument);
    const Csr<double> block =
        replicate_rows(dense, 3'000'000, ReplicationLayout::diagonal, 1'000'000, 1'000'010);
    EXPECT_EQ(block.num_rows, 10);
    EXPECT_EQ(block.num_cols, 3'000'000);
    test::expect_invalid(
        [&] { replicate_rows(dense, 3'000'000, ReplicationLayout::diagonal, 0, 1'500'000); },
        {"replicate_rows", "rows [0, 1500000)", "nonzeros"});
}

TEST(ReplicateRows, BadRangesNameTheParameter)
{
    const Csr<double> a = seed3();  // target 7: N = 9
    const auto layout = ReplicationLayout::diagonal;
    EXPECT_EQ(replicated_rows(a, 7), 9);
    EXPECT_EQ(replicate_rows(a, 7, layout, 9, 9).num_rows, 0);  // empty range at the end
    EXPECT_EQ(replicate_rows(a, 7, layout, 9, 9).row_ptr, std::vector<index_type>{0});
    test::expect_invalid([&] { replicate_rows(a, 7, layout, -1, 3); },
                         {"replicate_rows", "row_begin = -1", "[0, N = 9]"});
    test::expect_invalid([&] { replicate_rows(a, 7, layout, 10, 10); }, {"row_begin = 10"});
    test::expect_invalid([&] { replicate_rows(a, 7, layout, 4, 3); },
                         {"row_end = 3", "[row_begin = 4, N = 9]"});
    test::expect_invalid([&] { replicate_rows(a, 7, layout, 0, 10); }, {"row_end = 10"});
    test::expect_invalid([&] { replicate_rows(a, 0, layout, 0, 0); }, {"target_rows = 0"});
    test::expect_invalid([&] { replicated_rows(a, 0); }, {"replicated_rows", "target_rows = 0"});
    test::expect_invalid([&] { replicated_rows(Csr<double>{}, 5); }, {"seed matrix"});
    test::expect_invalid([&] { replicated_rows(a, 2147483647); }, {"overflow"});
    test::expect_invalid(
        [&] { replicate_rows(a, 7, static_cast<ReplicationLayout>(9), 0, 1); },
        {"ReplicationLayout"});
}

}  // namespace
}  // namespace kbench
