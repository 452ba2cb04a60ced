#include "harness/core/registry.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace kh = kbench::harness;

TEST(Registry, IdsSplitIntoStudyAndItem)
{
    const auto [study, item] = kh::split_id("yamazaki2014/fig6");
    EXPECT_EQ(study, "yamazaki2014");
    EXPECT_EQ(item, "fig6");
    EXPECT_THROW(kh::split_id("table3"), std::invalid_argument);
    EXPECT_THROW(kh::split_id("/table3"), std::invalid_argument);
    EXPECT_THROW(kh::split_id("a/b/c"), std::invalid_argument);
}

TEST(Registry, SlugReplacesNonAlphanumerics)
{
    EXPECT_EQ(kh::gpu_slug("NVIDIA H200"), "NVIDIA_H200");
    EXPECT_EQ(kh::gpu_slug("NVIDIA H100 80GB HBM3"), "NVIDIA_H100_80GB_HBM3");
    EXPECT_EQ(kh::gpu_slug("A-1.b"), "A_1_b");
    EXPECT_THROW(kh::gpu_slug(""), std::invalid_argument);
}

TEST(Registry, ResultsDirMapsIdToStudyAndItem)
{
    EXPECT_EQ(kh::results_dir("results", "NVIDIA H200", "anzt2015/table3"),
              "results/NVIDIA_H200/anzt2015/table3");
}

TEST(Registry, KernelListParsesValidatesAndDeduplicates)
{
    EXPECT_EQ(kh::parse_kernel_list(""), kh::spmv_kernels());
    const auto k = kh::parse_kernel_list("sellp,csr_scalar,sellp");
    ASSERT_EQ(k.size(), 2u);
    EXPECT_EQ(k[0], "sellp");
    EXPECT_EQ(k[1], "csr_scalar");
    try {
        kh::parse_kernel_list("csr_scalar,ell");
        FAIL() << "no exception";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("'ell'"), std::string::npos);
        EXPECT_NE(std::string(e.what()).find("cusparse_sell"), std::string::npos);
    }
    EXPECT_THROW(kh::parse_kernel_list(","), std::invalid_argument);
}

TEST(Registry, PrecisionParsing)
{
    EXPECT_EQ(kh::parse_precision("both").size(), 2u);
    EXPECT_EQ(kh::parse_precision("float").at(0), "float");
    EXPECT_THROW(kh::parse_precision("half"), std::invalid_argument);
}

TEST(Registry, BenchmarkNamesRoundTrip)
{
    const std::string name = kh::spmv_benchmark_name("sellp", "double", "fv1");
    EXPECT_EQ(name, "spmv/sellp/double/fv1");
    const auto parts = kh::parse_spmv_benchmark_name(name);
    EXPECT_EQ(parts.kernel, "sellp");
    EXPECT_EQ(parts.precision, "double");
    EXPECT_EQ(parts.matrix, "fv1");
    EXPECT_THROW(kh::parse_spmv_benchmark_name("spmv/sellp/double"), std::invalid_argument);
    EXPECT_THROW(kh::parse_spmv_benchmark_name("spmv/ell/double/fv1"), std::invalid_argument);
    EXPECT_THROW(kh::parse_spmv_benchmark_name("spmv/sellp/half/fv1"), std::invalid_argument);
    EXPECT_THROW(kh::parse_spmv_benchmark_name("gmres/sellp/double/fv1"), std::invalid_argument);
}
