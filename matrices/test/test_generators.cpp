// Tests of the stencil, Trefethen and replication generators (exact, hand-checked values).
#include "matrices/generators.hpp"
#include "matrices/mm_io.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <utility>

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

}  // namespace
}  // namespace kbench
