// Band storage (matrices/banded.hpp): the layout by hand, round trips through CSR on li2012's
// banded matrices, bandwidth detection, the out-of-band error and the ?gbsv layout.
#include "matrices/banded.hpp"
#include "matrices/generators.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace kbench {
namespace {

Csr<double> tridiagonal_4x4()
{
    // [ 1  2  0  0 ]
    // [ 3  4  5  0 ]
    // [ 0  6  7  8 ]
    // [ 0  0  9 10 ]
    Csr<double> a;
    a.num_rows = a.num_cols = 4;
    a.row_ptr = {0, 2, 5, 8, 10};
    a.col_idx = {0, 1, 0, 1, 2, 1, 2, 3, 2, 3};
    a.values = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    return a;
}

TEST(Banded, LayoutIsLapackBandStorageColumnMajor)
{
    const BandMatrix<double> b = band_from_csr(tridiagonal_4x4(), 1);
    ASSERT_EQ(b.ldab(), 3);
    // Column j holds A(j-1,j), A(j,j), A(j+1,j); the corners outside the matrix are zero.
    const std::vector<double> expected = {0, 1, 3, 2, 4, 6, 5, 7, 9, 8, 10, 0};
    EXPECT_EQ(b.ab, expected);
    EXPECT_EQ(b(2, 3), 8.0);
    EXPECT_EQ(b(0, 3), 0.0);  // outside the band
}

TEST(Banded, RoundTripThroughCsrIsExact)
{
    for (const index_type K : {1, 3, 16}) {
        const Csr<double> a = banded(200, K, 2.0, 7);
        ASSERT_EQ(bandwidth(a), K);
        const BandMatrix<double> b = band_from_csr(a, K);
        const Csr<double> back = band_to_csr(b);
        EXPECT_EQ(back.row_ptr, a.row_ptr) << "K = " << K;
        EXPECT_EQ(back.col_idx, a.col_idx) << "K = " << K;
        EXPECT_EQ(back.values, a.values) << "K = " << K;
    }
}

TEST(Banded, WiderStorageThanTheBandwidthKeepsTheMatrix)
{
    const Csr<double> a = banded(50, 2, 1.0, 3);
    const BandMatrix<double> b = band_from_csr(a, 5);
    const Csr<double> back = band_to_csr(b, /*drop_zeros=*/true);
    EXPECT_EQ(back.col_idx, a.col_idx);
    EXPECT_EQ(back.values, a.values);
    EXPECT_EQ(band_to_csr(b).nnz(), 50 * 11 - 5 * 6);  // every band position
}

TEST(Banded, BandwidthOfDiagonalAndTridiagonal)
{
    Csr<double> d;
    d.num_rows = d.num_cols = 3;
    d.row_ptr = {0, 1, 2, 3};
    d.col_idx = {0, 1, 2};
    d.values = {1, 1, 1};
    EXPECT_EQ(bandwidth(d), 0);
    EXPECT_EQ(bandwidth(tridiagonal_4x4()), 1);
}

TEST(Banded, EntryOutsideTheBandIsNamed)
{
    const Csr<double> a = banded(40, 6, 1.0, 1);
    try {
        band_from_csr(a, 4);
        FAIL() << "no exception";
    } catch (const std::invalid_argument& e) {
        const std::string what = e.what();
        // Row 0 holds columns 0..6: (0, 5) is the first entry with |i - j| > 4.
        EXPECT_NE(what.find("(0, 5)"), std::string::npos) << what;
        EXPECT_NE(what.find("K = 4"), std::string::npos) << what;
        EXPECT_NE(what.find("bandwidth is 6"), std::string::npos) << what;
    }
    EXPECT_THROW(band_from_csr(a, 40), std::invalid_argument);  // K >= n
    Csr<double> rect = tridiagonal_4x4();
    rect.num_cols = 5;
    EXPECT_THROW(bandwidth(rect), std::invalid_argument);
}

TEST(Banded, CastAndMultiply)
{
    const BandMatrix<double> b = band_from_csr(tridiagonal_4x4(), 1);
    const BandMatrix<float> f = band_cast<float>(b);
    EXPECT_EQ(f.n, 4);
    EXPECT_EQ(f.K, 1);
    EXPECT_EQ(f(3, 2), 9.0f);
    const std::vector<double> x = {1, 1, 1, 1};
    std::vector<double> y(4);
    band_multiply(b, x.data(), y.data());
    EXPECT_EQ(y, (std::vector<double>{3, 12, 21, 19}));
}

TEST(Banded, GbsvLayoutHasKRowsOfFillInOnTop)
{
    const BandMatrix<double> b = band_from_csr(tridiagonal_4x4(), 1);
    ASSERT_EQ(gbsv_ldab(1), 4);
    const std::vector<double> g = to_gbsv_layout(b);
    ASSERT_EQ(g.size(), 16u);
    for (index_type j = 0; j < 4; ++j) {
        EXPECT_EQ(g[j * 4], 0.0);  // fill-in row
        for (index_type i = std::max(0, j - 1); i <= std::min(3, j + 1); ++i)
            EXPECT_EQ(g[(2 + i - j) + j * 4], b(i, j)) << i << ", " << j;
    }
}

}  // namespace
}  // namespace kbench
