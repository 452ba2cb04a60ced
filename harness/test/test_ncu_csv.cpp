#include "harness/core/ncu_csv.hpp"

#include <gtest/gtest.h>

namespace kh = kbench::harness;

TEST(NcuCsv, SplitsQuotedFields)
{
    const auto f = kh::split_csv_line(R"("a","b,c","d ""e""",7)");
    ASSERT_EQ(f.size(), 4u);
    EXPECT_EQ(f[1], "b,c");
    EXPECT_EQ(f[2], R"(d "e")");
    EXPECT_EQ(f[3], "7");
}

TEST(NcuCsv, ParsesMetricsSkippingProgramOutputAndConvertsUnits)
{
    const std::string text =
        "==PROF== Connected to process 123\n"
        "[1/1] fv1 (n=9604, nnz=85264): sellp double (0.1 s)\n"
        R"x("ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value")x"
        "\n"
        R"x("0","123","kbench","h","void sellp_kernel<double>(...)","1","7","(32, 4, 1)","(301, 1, 1)","0","9.0","Command line profiler metrics","dram__bytes_read.sum","Mbyte","1,234.5")x"
        "\n"
        R"x("0","123","kbench","h","void sellp_kernel<double>(...)","1","7","(32, 4, 1)","(301, 1, 1)","0","9.0","Command line profiler metrics","dram__bytes_write.sum","byte","76832")x"
        "\n"
        R"x("0","123","kbench","h","void sellp_kernel<double>(...)","1","7","(32, 4, 1)","(301, 1, 1)","0","9.0","Command line profiler metrics","gpu__time_duration.sum","usecond","5.5")x"
        "\n"
        "benchmark  time\n";
    const auto kernels = kh::parse_ncu_csv(text);
    ASSERT_EQ(kernels.size(), 1u);
    EXPECT_EQ(kernels[0].name, "void sellp_kernel<double>(...)");
    EXPECT_DOUBLE_EQ(kernels[0].metrics.at("dram__bytes_read.sum"), 1234.5e6);
    EXPECT_DOUBLE_EQ(kernels[0].metrics.at("dram__bytes_write.sum"), 76832.0);
    EXPECT_NEAR(kernels[0].metrics.at("gpu__time_duration.sum"), 5.5e-6, 1e-18);
}

TEST(NcuCsv, RejectsOutputWithoutHeaderOrWithNonNumericValue)
{
    EXPECT_THROW(kh::parse_ncu_csv("==PROF== no kernels were profiled\n"), std::invalid_argument);
    const std::string bad =
        R"x("ID","Kernel Name","Metric Name","Metric Unit","Metric Value")x"
        "\n"
        R"x("0","k","dram__bytes_read.sum","byte","n/a")x"
        "\n";
    EXPECT_THROW(kh::parse_ncu_csv(bad), std::invalid_argument);
}
