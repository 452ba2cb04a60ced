#include "kernels/base/device_buffer.hpp"
#include "kernels/test/gpu_test.hpp"

#include <gtest/gtest.h>

TEST(DeviceBuffer, RoundTripAndMove)
{
    KBENCH_REQUIRE_GPU();
    const std::vector<double> host{1.0, -2.5, 3.25};
    kbench::device_buffer<double> a(host);
    kbench::device_buffer<double> b(std::move(a));
    EXPECT_TRUE(a.empty());
    EXPECT_EQ(b.to_host(), host);
}
