// STREAM kernels (copy, triad, read_sum) against their CPU references, label gpu. Sizes cover
// n = 0, sizes below and not divisible by the 16-byte vector width (tail handling) and large n;
// each also runs on pointers offset by one element (misaligned for 16-byte vectors).
//
// Tolerances: copy is exact; triad |c - c_ref| <= 2 eps(T) (|a| + |s b|) (the device may fuse
// the multiply-add); read_sum |s - s_ref| <= 8 eps(T) sum |a_i| (double accumulation on both
// sides, the device rounds per-block partial sums to T).
#include "kernels/base/cuda_handles.hpp"
#include "kernels/base/device_buffer.hpp"
#include "kernels/stream.hpp"
#include "kernels/test/gpu_test.hpp"
#include "matrices/test/random_data.hpp"

#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace kbench::stream {
namespace {

const std::size_t sizes[] = {0, 1, 3, 5, 7, 255, 1000, 1001, 4099, (1u << 20) + 3};


/// Device copy of `host` starting `offset` elements into the buffer (offset 1: misaligned).
template <typename T>
device_buffer<T> upload(const std::vector<T>& host, std::size_t offset)
{
    std::vector<T> padded(offset, T{0});
    padded.insert(padded.end(), host.begin(), host.end());
    return device_buffer<T>(padded);
}

template <typename T>
std::vector<T> download(const device_buffer<T>& d, std::size_t offset)
{
    const std::vector<T> all = d.to_host();
    return {all.begin() + static_cast<std::ptrdiff_t>(offset), all.end()};
}

template <typename T>
void check_copy_and_triad()
{
    const cuda_stream stream;
    for (std::size_t offset : {0u, 1u}) {
        for (std::size_t n : sizes) {
            SCOPED_TRACE(testing::Message() << "n=" << n << " offset=" << offset);
            const std::vector<T> a = test::random_vector<T>(n, 1), b = test::random_vector<T>(n, 2);
            const std::vector<T> poison(n, std::numeric_limits<T>::quiet_NaN());
            device_buffer<T> da = upload(a, offset), db = upload(b, offset);
            device_buffer<T> dc = upload(poison, offset);

            copy(da.data() + offset, dc.data() + offset, n, stream);
            stream.synchronize();
            std::vector<T> ref(n);
            reference::copy(a.data(), ref.data(), n);
            EXPECT_EQ(download(dc, offset), ref);

            const T s = T(0.375);
            triad(da.data() + offset, db.data() + offset, dc.data() + offset, s, n, stream);
            stream.synchronize();
            reference::triad(a.data(), b.data(), ref.data(), s, n);
            const std::vector<T> got = download(dc, offset);
            std::size_t bad = 0;
            for (std::size_t i = 0; i < n; ++i) {
                const double tol = 2.0 * std::numeric_limits<T>::epsilon() *
                                   (std::abs(double(a[i])) + std::abs(double(s * b[i])));
                if (!(std::abs(double(got[i]) - double(ref[i])) <= tol)) ++bad;
            }
            EXPECT_EQ(bad, 0u);
        }
    }
}

template <typename T>
void check_read_sum()
{
    const cuda_stream stream;
    device_buffer<T> sum(1);
    for (std::size_t offset : {0u, 1u}) {
        for (std::size_t n : sizes) {
            SCOPED_TRACE(testing::Message() << "n=" << n << " offset=" << offset);
            const std::vector<T> a = test::random_vector<T>(n, 3);
            device_buffer<T> da = upload(a, offset);
            device_buffer<T> work(read_workspace_size(n));
            const T poison = std::numeric_limits<T>::quiet_NaN();
            sum.copy_from_host(&poison, 1);
            read_sum(da.data() + offset, n, sum.data(), work.data(), stream);
            stream.synchronize();
            T ref{};
            reference::read_sum(a.data(), n, &ref);
            double abs_sum = 0.0;
            for (T v : a) abs_sum += std::abs(double(v));
            const T got = sum.to_host()[0];
            EXPECT_LE(std::abs(double(got) - double(ref)),
                      8.0 * std::numeric_limits<T>::epsilon() * abs_sum)
                << "got " << got << ", reference " << ref;
        }
    }
}

TEST(StreamGpu, CopyAndTriadDouble)
{
    KBENCH_REQUIRE_GPU();
    check_copy_and_triad<double>();
}

TEST(StreamGpu, CopyAndTriadFloat)
{
    KBENCH_REQUIRE_GPU();
    check_copy_and_triad<float>();
}

TEST(StreamGpu, ReadSumDouble)
{
    KBENCH_REQUIRE_GPU();
    check_read_sum<double>();
}

TEST(StreamGpu, ReadSumFloat)
{
    KBENCH_REQUIRE_GPU();
    check_read_sum<float>();
}

TEST(StreamGpu, ReadSumOfEmptyVectorIsZero)
{
    KBENCH_REQUIRE_GPU();
    const cuda_stream stream;
    EXPECT_EQ(read_workspace_size(0), 0u);
    device_buffer<double> sum(std::vector<double>{42.0});
    read_sum<double>(nullptr, 0, sum.data(), nullptr, stream);
    stream.synchronize();
    EXPECT_EQ(sum.to_host()[0], 0.0);
}

}  // namespace
}  // namespace kbench::stream
