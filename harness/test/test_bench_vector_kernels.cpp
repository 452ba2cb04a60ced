// measure_dot_sequence (anzt2015 Fig. 10): argument checks (no GPU needed, they come before any
// CUDA call) and a small measurement on the GPU (skipped without one).
#include "harness/studies/anzt2015/bench_vector_kernels.hpp"
#include "kernels/test/gpu_test.hpp"

#include "harness/test/test_util.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace kh = kbench::harness;

namespace {

using kbench::harness::test::invalid_argument_message;

}  // namespace

TEST(MeasureDotSequenceArguments, RejectsNonPositiveLength)
{
    const std::string msg =
        invalid_argument_message([] { kh::measure_dot_sequence({1000, 0}, 1, 0.0); });
    EXPECT_NE(msg.find("n = 0"), std::string::npos) << msg;
    EXPECT_NE(invalid_argument_message([] { kh::measure_dot_sequence({-5}, 1, 0.0); })
                  .find("n = -5"),
              std::string::npos);
}

TEST(MeasureDotSequenceArguments, RejectsLengthBeyondCublasInt)
{
    const std::string msg =
        invalid_argument_message([] { kh::measure_dot_sequence({std::int64_t{1} << 31}, 1, 0.0); });
    EXPECT_NE(msg.find("n = 2147483648"), std::string::npos) << msg;
}

TEST(MeasureDotSequenceArguments, RejectsNoRepetitions)
{
    const std::string msg =
        invalid_argument_message([] { kh::measure_dot_sequence({1000}, 0, 0.0); });
    EXPECT_NE(msg.find("repetitions = 0"), std::string::npos) << msg;
}

TEST(MeasureDotSequenceArguments, RejectsNegativeOrNanMinTime)
{
    EXPECT_NE(invalid_argument_message([] { kh::measure_dot_sequence({1000}, 1, -1.0); })
                  .find("min_time"),
              std::string::npos);
    EXPECT_NE(invalid_argument_message([] { kh::measure_dot_sequence({1000}, 1, std::nan("")); })
                  .find("min_time"),
              std::string::npos);
}

TEST(MeasureDotSequenceArguments, NoLengthsMeansNoMeasurement)
{
    EXPECT_TRUE(kh::measure_dot_sequence({}, 1, 0.0).empty());
}

TEST(MeasureDotSequenceGpu, TimesBothSequencesAtEachLength)
{
    KBENCH_REQUIRE_GPU();
    // Arrange: a length served by one block (n <= 1024) and one that needs two stages.
    const std::vector<std::int64_t> ns{1000, 100000};

    // Act
    const std::vector<kh::DotSequenceTiming> t = kh::measure_dot_sequence(ns, 1, 0.0);

    // Assert
    ASSERT_EQ(t.size(), ns.size());
    for (std::size_t i = 0; i < ns.size(); ++i) {
        EXPECT_EQ(t[i].n, ns[i]);
        EXPECT_GT(t[i].cublas_seconds, 0.0) << "n = " << ns[i];
        EXPECT_GT(t[i].merged_seconds, 0.0) << "n = " << ns[i];
        EXPECT_LT(t[i].savings, 1.0) << "n = " << ns[i];
        EXPECT_DOUBLE_EQ(t[i].savings, 1.0 - t[i].merged_seconds / t[i].cublas_seconds);
    }
}
