// Band storage (matrices/banded.hpp): the layout by hand, round trips through CSR on li2012's
// banded matrices, bandwidth detection, the out-of-band error, the ?gbsv layout and the decay
// statistics (band_decay_stats).
#include "matrices/banded.hpp"
#include "matrices/generators.hpp"

#include <gtest/gtest.h>

#include <cmath>
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
    // Row ranges: only rows 1 and 2 written, the same values.
    std::vector<double> part(4, -1.0);
    band_multiply_rows(b, x.data(), part.data(), 1, 3);
    EXPECT_EQ(part, (std::vector<double>{-1, 12, 21, -1}));
    band_multiply_rows(b, x.data(), part.data(), 0, 1);
    band_multiply_rows(b, x.data(), part.data(), 3, 4);
    band_multiply_rows(b, x.data(), part.data(), 2, 2);  // empty range
    EXPECT_EQ(part, y);
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

// ---- band_decay_stats -------------------------------------------------------------------------

/// tridiag(off, diag, off) of n rows in band storage.
BandMatrix<double> tridiagonal(index_type n, double diag, double off)
{
    BandMatrix<double> b = band_zeros<double>(n, 1);
    for (index_type i = 0; i < n; ++i) {
        b.ab[b.index(i, i)] = diag;
        if (i > 0) b.ab[b.index(i, i - 1)] = off;
        if (i + 1 < n) b.ab[b.index(i, i + 1)] = off;
    }
    return b;
}

TEST(BandDecayStats, DominanceByHand)
{
    // Rows of tridiagonal_4x4: 1/2, 4/8, 7/14, 10/9: d_min = 1/2; n <= 256: every row is in
    // the window.
    const BandDecayStats st = band_decay_stats(band_from_csr(tridiagonal_4x4(), 1));
    EXPECT_DOUBLE_EQ(st.d_min, 0.5);
    EXPECT_EQ(st.rows_sampled, 4);
    EXPECT_EQ(st.window_rows, 4);
    // E = I - D^-1 A: |E| has row sums 2, 2, 2, 0.9; its growth factor lies below its
    // largest row sum.
    EXPECT_GT(st.rho, 0.5);
    EXPECT_LE(st.rho, 2.0);
}

TEST(BandDecayStats, TridiagonalSpectralRadius)
{
    // E of tridiag(-1, 4, -1) is tridiag(1/4, 0, 1/4): spectral radius cos(pi / (W + 1)) / 2 on
    // the window of W = 256 rows; d_min = 2 (4 / 2 inside, 4 / 1 in the first and last rows).
    const BandDecayStats st = band_decay_stats(tridiagonal(1000, 4.0, -1.0));
    EXPECT_EQ(st.window_rows, 256);
    EXPECT_DOUBLE_EQ(st.d_min, 2.0);
    EXPECT_GT(st.rho, 0.47);
    EXPECT_LE(st.rho, 0.5 + 1e-12);
    // Alternating signs, tridiag(+1, 4, +1), are similar to it by diag(+-1): the same rho.
    EXPECT_NEAR(band_decay_stats(tridiagonal(1000, 4.0, 1.0)).rho, st.rho, 1e-12);
    // tridiag(-1, 2, -1): weakly dominant, E's spectral radius near 1.
    const BandDecayStats weak = band_decay_stats(tridiagonal(1000, 2.0, -1.0));
    EXPECT_DOUBLE_EQ(weak.d_min, 1.0);
    EXPECT_GT(weak.rho, 0.95);
    EXPECT_LE(weak.rho, 1.0 + 1e-12);
}

// li2012's matrices: with random signs E's spectral radius is far below the bound 1 / d (the
// circular law gives sqrt(2K E[a^2]) / (2K E|a|) / d ~ 0.14 / d at K = 32), with negative signs
// it is ~1 / d.
TEST(BandDecayStats, RandomSignsDecayFasterThanMMatrices)
{
    const index_type n = 20000, K = 32;
    for (double d : {1.0, 4.0}) {
        SCOPED_TRACE(testing::Message() << "d = " << d);
        const BandDecayStats r = band_decay_stats(band_from_csr(banded(n, K, d, 1), K));
        const BandDecayStats m =
            band_decay_stats(band_from_csr(banded(n, K, d, 1, BandedSigns::negative), K));
        EXPECT_NEAR(r.d_min, d, 1e-12 * d);
        EXPECT_NEAR(m.d_min, d, 1e-12 * d);
        // every 5th row (4000) but the 51 inside the window [9872, 10128), and the window
        EXPECT_EQ(r.rows_sampled, 4000 - 51 + 256);
        EXPECT_GT(r.rho, 0.05 / d);
        EXPECT_LT(r.rho, 0.3 / d);
        EXPECT_GT(m.rho, 0.9 / d);
        EXPECT_LT(m.rho, 1.0 / d + 1e-2);
    }
}

TEST(BandDecayStats, EdgeCasesAndErrors)
{
    BandMatrix<double> diag = band_zeros<double>(5, 0);
    for (double& v : diag.ab) v = 2.0;
    const BandDecayStats st = band_decay_stats(diag);
    EXPECT_EQ(st.d_min, INFINITY);  // no off-diagonal entry
    EXPECT_EQ(st.rho, 0.0);
    BandMatrix<double> zero_pivot = tridiagonal(10, 4.0, -1.0);
    zero_pivot.ab[zero_pivot.index(3, 3)] = 0.0;
    EXPECT_EQ(band_decay_stats(zero_pivot).d_min, 0.0);
    EXPECT_EQ(band_decay_stats(zero_pivot).rho, INFINITY);
    EXPECT_THROW(band_decay_stats(tridiagonal(10, 4.0, -1.0), 0), std::invalid_argument);
    BandMatrix<double> short_ab = tridiagonal(10, 4.0, -1.0);
    short_ab.ab.pop_back();
    EXPECT_THROW(band_decay_stats(short_ab), std::invalid_argument);
}

}  // namespace
}  // namespace kbench
