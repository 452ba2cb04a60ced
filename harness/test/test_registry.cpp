#include "harness/core/registry.hpp"
#include "harness/core/progress.hpp"

#include <gtest/gtest.h>

#include <cmath>
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

namespace kbench::harness {
namespace {

TEST(Progress, DurationsAndTheIdLineWithItsEstimate)
{
    EXPECT_EQ(format_duration(0.4), "0 s");
    EXPECT_EQ(format_duration(42.4), "42 s");
    EXPECT_EQ(format_duration(185.0), "3 min 05 s");
    EXPECT_EQ(format_duration(3725.0), "1 h 02 min");
    EXPECT_EQ(format_duration(-1.0), "?");
    EXPECT_EQ(format_duration(std::nan("")), "?");
    EXPECT_EQ(id_progress_line(2, 5, "anzt2015/table3", 65.0, {100.0, 20.0, 5.0, 0.5}),
              "[id 2/5] anzt2015/table3 (elapsed 1 min 05 s, about 2 min 06 s left)");
    EXPECT_EQ(id_progress_line(1, 3, "li2012/fig5", 0.0, {100.0, std::nan(""), std::nan("")}),
              "[id 1/3] li2012/fig5 (elapsed 0 s, no estimate: 2 of the 3 ids left have no "
              "stored duration)");
}

TEST(Progress, BudgetVerdicts)
{
    using V = BudgetVerdict;
    const double unknown = std::nan("");
    EXPECT_EQ(budget_verdict(0.0, 1e6, 1e6, true), V::run);  // no budget
    EXPECT_EQ(budget_verdict(540.0, 100.0, 400.0, true), V::run);  // ends at 500
    EXPECT_EQ(budget_verdict(540.0, 100.0, 441.0, true), V::defer);  // would end at 541
    EXPECT_EQ(budget_verdict(540.0, 0.0, 541.0, false), V::too_long);
    EXPECT_EQ(budget_verdict(540.0, 0.0, unknown, false), V::run);  // first: runs
    EXPECT_EQ(budget_verdict(540.0, 5.0, unknown, true), V::defer);
}

}  // namespace
}  // namespace kbench::harness
