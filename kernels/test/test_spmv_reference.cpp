// Hand-checked CPU reference SpMV products (CSR and SELL-P, with and without the long-row part),
// label cpu.
#include "kernels/spmv.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace kbench::spmv {
namespace {

// 6 x 6 with an empty row 3:
//   [1 . 2 . . .]        x = (1, 2, 3, 4, 5, 6)
//   [. 3 . . . .]        A x = (7, 6, 60, 0, 35, 70)
//   [4 . . 5 . 6]
//   [. . . . . .]
//   [. . . . 7 .]
//   [. 8 . . . 9]
struct Fixture {
    std::vector<index_type> row_ptr{0, 2, 3, 6, 6, 7, 9};
    std::vector<index_type> col_idx{0, 2, 1, 0, 3, 5, 4, 1, 5};
    std::vector<double> values{1, 2, 3, 4, 5, 6, 7, 8, 9};
    CsrView<double> csr() const
    {
        return {6, 6, 9, row_ptr.data(), col_idx.data(), values.data()};
    }
    // The same matrix in SELL-P with b = 2, t = 1 and rows sorted by decreasing length
    // (row_perm = 2, 0, 5, 1, 4, 3), written out by hand.
    std::vector<index_type> slice_ptr{0, 6, 10, 12};
    std::vector<index_type> s_col{0, 0, 3, 2, 5, 0, 1, 1, 5, 0, 4, 0};
    std::vector<double> s_val{4, 1, 5, 2, 6, 0, 8, 3, 9, 0, 7, 0};
    std::vector<index_type> perm{2, 0, 5, 1, 4, 3};
    SellpView<double> sellp() const
    {
        return {6, 6, 9, 2, 1, 3, slice_ptr.data(), s_col.data(), s_val.data(), perm.data()};
    }
    std::vector<double> x{1, 2, 3, 4, 5, 6};
};

// The same matrix in SELL-P with b = 2, t = 1, sigma = 6 and long_row_threshold = 2: row 2
// (3 entries) is in the long part and empty in the slices, so the sorting sees lengths
// 2, 1, 0, 0, 1, 2 (row_perm = 0, 5, 1, 4, 2, 3; slice widths 2, 1, 0), written out by hand.
struct LongRowFixture {
    std::vector<index_type> slice_ptr{0, 4, 6, 6};
    std::vector<index_type> s_col{0, 1, 2, 5, 1, 4};
    std::vector<double> s_val{1, 8, 2, 9, 3, 7};
    std::vector<index_type> perm{0, 5, 1, 4, 2, 3};
    std::vector<index_type> long_rows{2};
    std::vector<index_type> long_row_ptr{0, 3};
    std::vector<index_type> long_col{0, 3, 5};
    std::vector<double> long_val{4, 5, 6};
    SellpView<double> sellp(bool permuted = true) const
    {
        return {6,
                6,
                9,
                2,
                1,
                3,
                slice_ptr.data(),
                s_col.data(),
                s_val.data(),
                permuted ? perm.data() : nullptr,
                1,
                long_rows.data(),
                long_row_ptr.data(),
                long_col.data(),
                long_val.data()};
    }
    std::vector<double> x{1, 2, 3, 4, 5, 6};
};

const double nan = std::numeric_limits<double>::quiet_NaN();

TEST(SpmvReference, CsrAlphaTwoBetaZeroIgnoresNanInY)
{
    const Fixture f;
    std::vector<double> y(6, nan);
    reference::csr(f.csr(), 2.0, f.x.data(), 0.0, y.data());
    EXPECT_EQ(y, (std::vector<double>{14, 12, 120, 0, 70, 140}));
}

TEST(SpmvReference, CsrBetaMinusOne)
{
    const Fixture f;
    std::vector<double> y(6, 1.0);
    reference::csr(f.csr(), 1.0, f.x.data(), -1.0, y.data());
    EXPECT_EQ(y, (std::vector<double>{6, 5, 59, -1, 34, 69}));
}

TEST(SpmvReference, CsrGeneralAlphaBeta)
{
    const Fixture f;
    std::vector<double> y{1, 2, 3, 4, 5, 6};
    reference::csr(f.csr(), 0.5, f.x.data(), 2.0, y.data());
    EXPECT_EQ(y, (std::vector<double>{5.5, 7, 36, 8, 27.5, 47}));
}

TEST(SpmvReference, SellpWithPermutationWritesOriginalRowOrder)
{
    const Fixture f;
    std::vector<double> y(6, nan);
    reference::sellp(f.sellp(), 1.0, f.x.data(), 0.0, y.data());
    EXPECT_EQ(y, (std::vector<double>{7, 6, 60, 0, 35, 70}));
    std::vector<double> z{1, 2, 3, 4, 5, 6};
    reference::sellp(f.sellp(), 0.5, f.x.data(), 2.0, z.data());
    EXPECT_EQ(z, (std::vector<double>{5.5, 7, 36, 8, 27.5, 47}));
}

TEST(SpmvReference, SellpWithoutPermutationAndPaddingRow)
{
    // 3 x 3: [2 . 1; . . .; . 3 .], b = 2, t = 2: slices of length 2; row 3 is padding.
    const std::vector<index_type> slice_ptr{0, 4, 8};
    const std::vector<index_type> col{0, 0, 2, 0, 1, 0, 0, 0};
    const std::vector<double> val{2, 0, 1, 0, 3, 0, 0, 0};
    const SellpView<double> a{3, 3, 3, 2, 2, 2, slice_ptr.data(), col.data(), val.data(),
                              nullptr};
    const std::vector<double> x{1, -1, 4};
    std::vector<double> y(3, nan);
    reference::sellp(a, 1.0, x.data(), 0.0, y.data());
    EXPECT_EQ(y, (std::vector<double>{6, 0, -3}));
}

TEST(SpmvReference, SellpLongRowPartWithSigmaSorting)
{
    const LongRowFixture f;
    std::vector<double> y(6, nan);  // beta = 0: NaN in y must not propagate
    reference::sellp(f.sellp(), 1.0, f.x.data(), 0.0, y.data());
    EXPECT_EQ(y, (std::vector<double>{7, 6, 60, 0, 35, 70}));  // row 2 = 4*1 + 5*4 + 6*6
    std::vector<double> z{1, 2, 3, 4, 5, 6};
    reference::sellp(f.sellp(), 0.5, f.x.data(), 2.0, z.data());
    EXPECT_EQ(z, (std::vector<double>{5.5, 7, 36, 8, 27.5, 47}));  // row 2: 30 + 6
    std::vector<double> w(6, 1.0);
    reference::sellp(f.sellp(), 1.0, f.x.data(), -1.0, w.data());
    EXPECT_EQ(w, (std::vector<double>{6, 5, 59, -1, 34, 69}));
}

TEST(SpmvReference, SellpLongRowPartWithoutPermutation)
{
    // Rows in order, b = 2, t = 1, threshold 2: slice widths 2, 0 (rows 2 and 3), 2.
    LongRowFixture f;
    f.slice_ptr = {0, 4, 4, 8};
    f.s_col = {0, 1, 2, 0, 4, 1, 0, 5};
    f.s_val = {1, 3, 2, 0, 7, 8, 0, 9};
    std::vector<double> y(6, nan);
    reference::sellp(f.sellp(false), 2.0, f.x.data(), 0.0, y.data());
    EXPECT_EQ(y, (std::vector<double>{14, 12, 120, 0, 70, 140}));
}

TEST(SpmvReference, SellpOfToSellpMatchesCsrForAnyThreshold)
{
    // Rows of 0..30 entries; thresholds from "all non-empty rows long" to "none long".
    std::mt19937 gen(3);
    Csr<double> a;
    a.num_rows = 200;
    a.num_cols = 150;
    for (index_type i = 0; i < a.num_rows; ++i) {
        const index_type len = static_cast<index_type>(gen() % 31);
        for (index_type k = 0; k < len; ++k) {
            a.col_idx.push_back(static_cast<index_type>(k * 5 + gen() % 5));
            a.values.push_back(static_cast<double>(gen() % 17) - 8.0);
        }
        a.row_ptr.push_back(a.nnz());
    }
    std::vector<double> x(150);
    for (std::size_t j = 0; j < x.size(); ++j) x[j] = 0.25 * static_cast<double>(j % 7) - 0.5;
    std::vector<double> expected(200, 1.5);
    reference::csr(a.view(), -0.75, x.data(), 0.5, expected.data());
    for (const SellpParams p : {SellpParams{8, 2, 1, 1}, SellpParams{32, 1, 64, 10},
                                SellpParams{16, 4, 1, 25}, SellpParams{4, 1, 8, 30}}) {
        const Sellp<double> s = to_sellp(a, p);
        std::vector<double> y(200, 1.5);
        reference::sellp(s.view(), -0.75, x.data(), 0.5, y.data());
        // Small-integer data: every partial sum is exact in double, so equality holds.
        EXPECT_EQ(y, expected) << "threshold " << p.long_row_threshold << ", "
                               << s.num_long_rows() << " long rows";
    }
}

TEST(SpmvReference, FloatAccumulatesInDouble)
{
    // One row 1e8 + 1 - 1e8: float accumulation would give 0, double gives exactly 1.
    const std::vector<index_type> row_ptr{0, 3};
    const std::vector<index_type> col{0, 1, 2};
    const std::vector<float> val{1e8f, 1.0f, -1e8f};
    const std::vector<float> x{1, 1, 1};
    float y = std::numeric_limits<float>::quiet_NaN();
    reference::csr(CsrView<float>{1, 3, 3, row_ptr.data(), col.data(), val.data()}, 1.0f,
                   x.data(), 0.0f, &y);
    EXPECT_EQ(y, 1.0f);
}

TEST(SpmvReference, SellpRejectsInconsistentSliceCount)
{
    const Fixture f;
    SellpView<double> a = f.sellp();
    a.num_slices = 2;  // 6 rows with b = 2 need 3 slices
    std::vector<double> y(6);
    EXPECT_THROW(reference::sellp(a, 1.0, f.x.data(), 0.0, y.data()), std::invalid_argument);
}

TEST(SpmvReference, SellpRejectsInconsistentLongPart)
{
    const LongRowFixture f;
    std::vector<double> y(6);
    SellpView<double> negative = f.sellp();
    negative.num_long_rows = -1;
    EXPECT_THROW(reference::sellp(negative, 1.0, f.x.data(), 0.0, y.data()),
                 std::invalid_argument);
    SellpView<double> missing = f.sellp();
    missing.long_row_ptr = nullptr;
    EXPECT_THROW(reference::sellp(missing, 1.0, f.x.data(), 0.0, y.data()),
                 std::invalid_argument);
}

TEST(SpmvDefaults, SubwarpAndSellpParametersFollowMeanRowLength)
{
    // Only the sizes are read, so views without arrays suffice.
    const auto view = [](index_type rows, index_type nnz) {
        return CsrView<double>{rows, rows, nnz, nullptr, nullptr, nullptr};
    };
    EXPECT_EQ(choose_csr_subwarp(view(100, 460)), 8);     // mean 4.6
    EXPECT_EQ(choose_csr_subwarp(view(100, 100)), 2);     // mean 1, lower clamp
    EXPECT_EQ(choose_csr_subwarp(view(10, 1000)), 32);    // mean 100, upper clamp
    EXPECT_EQ(choose_csr_subwarp(view(0, 0)), 2);         // empty
    const SellpParams p5 = choose_sellp_params(view(100, 500));  // mean 5: t = 1, b = 64
    EXPECT_EQ(p5.threads_per_row, 1);
    EXPECT_EQ(p5.slice_height, 64);
    EXPECT_EQ(p5.sigma, 1);
    EXPECT_EQ(p5.long_row_threshold, 256);  // max(256, 16 * 5)
    const SellpParams p27 = choose_sellp_params(view(100, 2700));  // mean/16 = 1.7: t = 1
    EXPECT_EQ(p27.threads_per_row, 1);
    EXPECT_EQ(p27.slice_height, 64);
    EXPECT_EQ(p27.long_row_threshold, 432);  // 16 * 27
    const SellpParams p76 = choose_sellp_params(view(100, 7600));  // mean/16 = 4.75: t = 4
    EXPECT_EQ(p76.threads_per_row, 4);
    EXPECT_EQ(p76.slice_height, 32);
    EXPECT_EQ(p76.long_row_threshold, 1216);  // 16 * 76
    EXPECT_EQ(choose_sellp_params(view(1, 100000)).threads_per_row, 32);  // upper clamp
    const CsrView<float> f{100, 100, 7600, nullptr, nullptr, nullptr};
    EXPECT_EQ(choose_sellp_params(f).threads_per_row, 4);
    EXPECT_EQ(choose_sellp_params(f).long_row_threshold, 1216);
    EXPECT_EQ(choose_csr_subwarp(f), 32);  // mean 76
}

TEST(SpmvDefaults, LongRowThresholdIsSixteenTimesCeilMeanAtLeast256)
{
    EXPECT_EQ(default_long_row_threshold(10001, 70007), 256);  // bloweybq-like: mean 7
    EXPECT_EQ(default_long_row_threshold(3, 100), 544);        // ceil(33.3) = 34
    EXPECT_EQ(default_long_row_threshold(100, 1600), 256);     // 16 * 16 = 256 exactly
    EXPECT_EQ(default_long_row_threshold(100, 1601), 272);     // ceil(16.01) = 17
    EXPECT_EQ(default_long_row_threshold(0, 0), 256);          // empty
    EXPECT_EQ(default_long_row_threshold(1, std::int64_t{1} << 31),
              std::numeric_limits<index_type>::max());         // clamped
    const CsrView<double> empty{0, 0, 0, nullptr, nullptr, nullptr};
    EXPECT_EQ(choose_sellp_params(empty).long_row_threshold, 256);
}

}  // namespace
}  // namespace kbench::spmv
