// Dot-product kernels (kernels/dot.hpp), CPU only: hand-checked cases of the reference twins
// (DDOT, MDOT, the tall-skinny MDGM V^T y) and their argument checks, label cpu.
#include "kernels/dot.hpp"
#include "kernels/test/expect_invalid.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

namespace kbench::blas {
namespace {

using test::expect_invalid;

TEST(DotReference, DotOfSmallVectors)
{
    const std::vector<double> x = {1, 2, 3}, y = {4, -5, 6};
    double r = -99;
    reference::dot<double>(3, x.data(), y.data(), &r);
    EXPECT_EQ(r, 12.0);  // 4 - 10 + 18

    reference::dot<double>(0, nullptr, nullptr, &r);  // n = 0: 0
    EXPECT_EQ(r, 0.0);
}

TEST(DotReference, DotFloatRoundsOnceFromExtendedPrecision)
{
    // In float, 2^24 + 1 rounds back to 2^24; the long double sum keeps 2^24 + 2 exactly.
    const std::vector<float> x = {16777216.0f, 1.0f, 1.0f}, y = {1.0f, 1.0f, 1.0f};
    float r = 0;
    reference::dot<float>(3, x.data(), y.data(), &r);
    EXPECT_EQ(r, 16777218.0f);
}

TEST(DotReference, MdotPairsEachXWithItsY)
{
    const std::vector<double> x0 = {1, 1}, y0 = {2, 3}, x1 = {1, -1}, y1 = {5, 7};
    const double* x[] = {x0.data(), x1.data()};
    const double* y[] = {y0.data(), y1.data()};
    std::vector<double> r(2, -99);
    reference::mdot<double>(2, 2, x, y, r.data());
    EXPECT_EQ(r, (std::vector<double>{5, -2}));
}

TEST(DotReference, MdgmSkipsPaddingRows)
{
    // V: 2 x 3 column-major with ld = 3, columns (1, 2), (3, 4), (5, 7); row 2 is padding.
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const std::vector<double> V = {1, 2, nan, 3, 4, nan, 5, 7, nan};
    const std::vector<double> y = {1, -1};
    std::vector<double> r(3, -99);
    reference::mdgm<double>(2, 3, V.data(), 3, y.data(), r.data());
    EXPECT_EQ(r, (std::vector<double>{-1, -1, -2}));
}

TEST(DotReference, ArgumentChecksNameTheReference)
{
    const std::vector<double> v = {1, 2};
    double r = 0;
    expect_invalid([&] { reference::dot<double>(-1, v.data(), v.data(), &r); },
                   {"kbench::blas::reference::dot"});
    expect_invalid([&] { reference::dot<double>(2, nullptr, v.data(), &r); },
                   {"kbench::blas::reference::dot"});
    expect_invalid([&] { reference::mdgm<double>(2, 1, v.data(), 1, v.data(), &r); },
                   {"kbench::blas::reference::mdgm"});  // ld < n
}

}  // namespace
}  // namespace kbench::blas
