// STREAM kernels (kernels/stream.hpp), CPU only: hand-checked cases of the reference twins of
// copy, triad and the read-only sum, label cpu.
#include "kernels/stream.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

namespace kbench::stream {
namespace {

TEST(StreamReference, CopyCopiesEveryElement)
{
    const std::vector<double> a = {1.5, -2, 3};
    std::vector<double> b(3, 0);
    reference::copy<double>(a.data(), b.data(), 3);
    EXPECT_EQ(b, a);
}

TEST(StreamReference, TriadIsAPlusScalarTimesB)
{
    const std::vector<double> a = {1, 2, 3}, b = {10, 20, -30};
    std::vector<double> c(3, 0);
    reference::triad<double>(a.data(), b.data(), c.data(), 0.5, 3);
    EXPECT_EQ(c, (std::vector<double>{6, 12, -12}));
}

TEST(StreamReference, ReadSumOfSmallAndLargeArrays)
{
    const std::vector<double> a = {1, 2, 3, 4};
    double s = -1;
    reference::read_sum<double>(a.data(), a.size(), &s);
    EXPECT_EQ(s, 10.0);

    // 1000 ones: past the 64-element leaves of the pairwise sum, still exact.
    const std::vector<float> ones(1000, 1.0f);
    float f = 0;
    reference::read_sum<float>(ones.data(), ones.size(), &f);
    EXPECT_EQ(f, 1000.0f);

    reference::read_sum<double>(nullptr, 0, &s);  // n = 0: 0
    EXPECT_EQ(s, 0.0);
}

TEST(StreamReference, ReadSumOfFloatsAccumulatesInDouble)
{
    // In float, 2^24 + 1 + 1 sums to 2^24 left to right; in double the sum is 2^24 + 2.
    const std::vector<float> a = {16777216.0f, 1.0f, 1.0f};
    float s = 0;
    reference::read_sum<float>(a.data(), a.size(), &s);
    EXPECT_EQ(s, 16777218.0f);
}

}  // namespace
}  // namespace kbench::stream
