// Hand-checked CPU reference SpMV products (CSR and SELL-P), label cpu.
#include "kernels/spmv.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
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
    const SellpParams p27 = choose_sellp_params(view(100, 2700));  // mean/16 = 1.7: t = 1
    EXPECT_EQ(p27.threads_per_row, 1);
    EXPECT_EQ(p27.slice_height, 64);
    const SellpParams p76 = choose_sellp_params(view(100, 7600));  // mean/16 = 4.75: t = 4
    EXPECT_EQ(p76.threads_per_row, 4);
    EXPECT_EQ(p76.slice_height, 32);
    EXPECT_EQ(choose_sellp_params(view(1, 100000)).threads_per_row, 32);  // upper clamp
    const CsrView<float> f{100, 100, 7600, nullptr, nullptr, nullptr};
    EXPECT_EQ(choose_sellp_params(f).threads_per_row, 4);
    EXPECT_EQ(choose_csr_subwarp(f), 32);  // mean 76
}

}  // namespace
}  // namespace kbench::spmv
