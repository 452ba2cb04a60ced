// Sparse times dense blocks (kernels/spmm.hpp), CPU only: hand-checked products of the CSR
// reference twin with alpha, beta and leading dimensions, and its argument check, label cpu.
#include "kernels/spmm.hpp"
#include "kernels/test/expect_invalid.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <vector>

namespace kbench::spmm {
namespace {

// 3 x 3 with an empty row 1:
//   [1 . 2]     X (3 x 2, ldx = 4): columns (1, 2, 3) and (0, 1, -1); row 3 is padding.
//   [. . .]     A X = columns (7, 0, 13) and (-2, 0, 4)
//   [. 5 1]
struct Fixture {
    std::vector<index_type> row_ptr{0, 2, 2, 4};
    std::vector<index_type> col_idx{0, 2, 1, 2};
    std::vector<double> values{1, 2, 5, 1};
    CsrView<double> csr() const { return {3, 3, 4, row_ptr.data(), col_idx.data(), values.data()}; }
    std::vector<double> X{1, 2, 3, std::numeric_limits<double>::quiet_NaN(), 0, 1, -1,
                          std::numeric_limits<double>::quiet_NaN()};
};

TEST(SpmmReference, BetaZeroIgnoresY)
{
    const Fixture f;
    const double nan = std::numeric_limits<double>::quiet_NaN();
    std::vector<double> Y = {nan, nan, nan, -7, nan, nan, nan, -7};  // ldy = 4, row 3 padding
    reference::csr<double>(f.csr(), 1.0, f.X.data(), 4, 0.0, Y.data(), 4, 2);
    EXPECT_EQ(Y, (std::vector<double>{7, 0, 13, -7, -2, 0, 4, -7}));
}

TEST(SpmmReference, AlphaAndBeta)
{
    const Fixture f;
    std::vector<double> Y = {1, 1, 1, 1, 1, 1};  // ldy = 3
    reference::csr<double>(f.csr(), 2.0, f.X.data(), 4, -1.0, Y.data(), 3, 2);
    EXPECT_EQ(Y, (std::vector<double>{13, -1, 25, -5, -1, 7}));  // 2 A X - 1
}

TEST(SpmmReference, NoColumnsLeavesYAlone)
{
    const Fixture f;
    std::vector<double> Y = {4, 5, 6};
    reference::csr<double>(f.csr(), 1.0, f.X.data(), 4, 0.0, Y.data(), 3, 0);
    EXPECT_EQ(Y, (std::vector<double>{4, 5, 6}));
}

TEST(SpmmReference, LeadingDimensionsAreChecked)
{
    const Fixture f;
    std::vector<double> Y(6, 0);
    test::expect_invalid(
        [&] { reference::csr<double>(f.csr(), 1.0, f.X.data(), 2, 0.0, Y.data(), 3, 2); },
        {"spmm::reference::csr", "ldx = 2", "ldx >= 3"});
}

}  // namespace
}  // namespace kbench::spmm
