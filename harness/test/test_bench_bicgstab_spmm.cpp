// `kbench bench bicgstab-kernels` without a GPU: names, options refused with the option named,
// traffic models (harness/bench/bench_bicgstab_kernels.hpp). Its `kbench profile` names are
// tested in test_profile.cpp.
#include "harness/bench/bench_bicgstab_kernels.hpp"
#include "harness/bench/kernel_bench.hpp"

#include "harness/test/test_util.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kh = kbench::harness;

namespace {

using kbench::harness::test::invalid_argument_message;

bool contains(const std::string& text, const std::string& part)
{
    return text.find(part) != std::string::npos;
}

}  // namespace

TEST(BicgstabKernelNames, PairsOfFusedAndCublasWithoutK)
{
    kh::KernelBenchOptions o;
    o.ns = {1000};
    o.precisions = {"double", "float"};
    const std::vector<std::string> names = kh::bicgstab_kernel_benchmark_names(o);
    ASSERT_EQ(names.size(), 2 * kh::bicgstab_kernel_variants().size());
    EXPECT_EQ(names[0], "bicgstab-kernels/p_update/double/n=1000");
    EXPECT_EQ(names[1], "bicgstab-kernels/cublas_p_update/double/n=1000");
    EXPECT_EQ(names.back(), "bicgstab-kernels/cublas_xr_update/float/n=1000");
    o.filter = "xr_update/double";
    EXPECT_EQ(kh::bicgstab_kernel_benchmark_names(o),
              (std::vector<std::string>{"bicgstab-kernels/xr_update/double/n=1000",
                                        "bicgstab-kernels/cublas_xr_update/double/n=1000"}));
}

TEST(BicgstabKernelNames, BadOptionsNameTheOption)
{
    kh::KernelBenchOptions o;
    o.ns = {1000};
    o.precisions = {"double"};
    o.ks = {2};
    EXPECT_TRUE(contains(invalid_argument_message([&] { kh::bicgstab_kernel_benchmark_names(o); }),
                         "--k: this family has no k"));
    o.ks.clear();
    o.ns = {0};
    EXPECT_TRUE(contains(invalid_argument_message([&] { kh::run_bicgstab_kernel_bench(o, nullptr); }),
                         "--n: expected an integer in [1, 2147483647], got 0"));
    o.ns = {10};
    o.precisions = {"half"};
    EXPECT_TRUE(contains(invalid_argument_message([&] { kh::run_bicgstab_kernel_bench(o, nullptr); }),
                         "--precision: expected double, float or both, got 'half'"));
}

TEST(BicgstabKernelTraffic, Table1RowsOfEachKernel)
{
    using V = kh::BicgstabKernelVariant;
    const double n = 1000.0;
    // anzt2015/fig9's bytes: fused (3n + 4) reads + n writes, cuBLAS (5n + 3) + 3n.
    const kbench::models::Traffic fused = kh::bicgstab_kernel_traffic(V::p_update, 1000, 8);
    EXPECT_DOUBLE_EQ(fused.bytes_read, (3 * n + 4) * 8);
    EXPECT_DOUBLE_EQ(fused.bytes_written, n * 8);
    EXPECT_DOUBLE_EQ(fused.flops, 4 * n);
    const kbench::models::Traffic cublas = kh::bicgstab_kernel_traffic(V::cublas_p_update, 1000, 8);
    EXPECT_DOUBLE_EQ(cublas.bytes_read, (5 * n + 3) * 8);
    EXPECT_DOUBLE_EQ(cublas.bytes_written, 3 * n * 8);
    EXPECT_DOUBLE_EQ(cublas.flops, fused.flops);
    // omega: t . s and t . t, t . t reading t once: 3n + 2 reads as cuBLAS moves them.
    const kbench::models::Traffic omega = kh::bicgstab_kernel_traffic(V::cublas_omega_dot, 1000, 4);
    EXPECT_DOUBLE_EQ(omega.bytes_read, (3 * n + 2) * 4);
    EXPECT_DOUBLE_EQ(omega.bytes_written, 2 * 4);
    // Fused xr_update + reduce3: x, p, s, t, r_hat read; x, r written.
    const kbench::models::Traffic xr = kh::bicgstab_kernel_traffic(V::xr_update, 1000, 8);
    EXPECT_DOUBLE_EQ(xr.bytes_read, 5 * n * 8);
    EXPECT_DOUBLE_EQ(xr.bytes_written, 2 * n * 8);
    EXPECT_DOUBLE_EQ(xr.flops, 10 * n);
    EXPECT_STREQ(kh::bicgstab_model_kernel(V::cublas_alpha_dot), "reduce1");
    EXPECT_STREQ(kh::bicgstab_model_kernel(V::xr_update), "xr_update+reduce3");
    EXPECT_THROW(kh::bicgstab_kernel_traffic(V::s_update, -1, 8), std::invalid_argument);
}
