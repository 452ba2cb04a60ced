// The distributed layer's scatter-add kernel (solvers/distributed/pack.hpp) against its CPU twin,
// label gpu (skipped without a GPU), no MPI: bit for bit (both fuse the multiply-add), for
// n = 0, short and long row lists in scattered order, float and double, rows not listed left
// untouched.
#include "solvers/distributed/pack.hpp"

#include "kernels/base/cuda_handles.hpp"
#include "kernels/base/device_buffer.hpp"
#include "kernels/test/gpu_test.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

namespace kbench::dist::detail {
namespace {

template <typename T>
void check_scatter_add()
{
    const cuda_stream stream;
    for (const index_type n : {0, 1, 7, 300, 70001}) {
        SCOPED_TRACE(testing::Message() << "n = " << n);
        // Rows: every other row of a vector of 2n + 3 entries, in a scattered order.
        const index_type size = 2 * n + 3;
        std::vector<index_type> rows(static_cast<std::size_t>(n));
        for (index_type i = 0; i < n; ++i) {
            const auto k = static_cast<index_type>((static_cast<std::int64_t>(i) * 7919) % n);
            rows[static_cast<std::size_t>(i)] = 2 * k + 1;
        }
        std::vector<T> t(static_cast<std::size_t>(n)), y(static_cast<std::size_t>(size));
        for (index_type i = 0; i < n; ++i)
            t[static_cast<std::size_t>(i)] = T(1) + T(std::sin(1.0 + i)) / T(3);
        for (index_type i = 0; i < size; ++i)
            y[static_cast<std::size_t>(i)] = T(std::cos(0.5 * i));
        const T alpha = T(-0.7);
        std::vector<T> want = y;
        reference::scatter_add(alpha, t.data(), rows.data(), n, want.data());

        device_buffer<T> dt(t), dy(y);
        device_buffer<index_type> drows(rows);
        scatter_add(alpha, dt.data(), drows.data(), n, dy.data(), stream);
        stream.synchronize();
        EXPECT_EQ(dy.to_host(), want);
    }
}

TEST(DistributedPackGpu, ScatterAddEqualsItsCpuTwinFloat)
{
    KBENCH_REQUIRE_GPU();
    check_scatter_add<float>();
}

TEST(DistributedPackGpu, ScatterAddEqualsItsCpuTwinDouble)
{
    KBENCH_REQUIRE_GPU();
    check_scatter_add<double>();
}

}  // namespace
}  // namespace kbench::dist::detail
