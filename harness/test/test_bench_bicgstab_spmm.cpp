// `kbench bench bicgstab-kernels` and `kbench bench spmm` without a GPU: names, options refused
// with the option named, traffic models (harness/bench/bench_bicgstab_kernels.hpp,
// bench_spmm.hpp). Their `kbench profile` names are tested in test_profile.cpp.
#include "harness/bench/bench_bicgstab_kernels.hpp"
#include "harness/bench/bench_spmm.hpp"
#include "harness/bench/kernel_bench.hpp"
#include "models/spmv_traffic.hpp"

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
    const auto run = [&] { kh::run_bicgstab_kernel_bench(o, nullptr); };
    EXPECT_TRUE(contains(invalid_argument_message(run),
                         "--n: expected an integer in [1, 2147483647], got 0"));
    o.ns = {10};
    o.precisions = {"half"};
    EXPECT_TRUE(contains(invalid_argument_message(run),
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

TEST(SpmmNames, EveryMatrixPrecisionKernelAndK)
{
    kh::SpmmBenchOptions o;
    o.source.set = "smoke";
    o.kernels = {"csr_vector", "cusparse_csr"};
    o.kernel.ks = {1, 4};
    o.kernel.precisions = {"double"};
    const std::vector<std::string> names = kh::spmm_benchmark_names(o);
    ASSERT_FALSE(names.empty());
    EXPECT_EQ(names[0], "spmm/csr_vector/double/lap2d_5pt_50/k=1");
    EXPECT_EQ(names[1], "spmm/csr_vector/double/lap2d_5pt_50/k=4");
    EXPECT_EQ(names[2], "spmm/cusparse_csr/double/lap2d_5pt_50/k=1");
    EXPECT_EQ(names.size() % 4, 0u);
    o.kernel.filter = "^spmm/cusparse_csr/double/lap2d_5pt_50/k=4$";
    EXPECT_EQ(kh::spmm_benchmark_names(o),
              (std::vector<std::string>{"spmm/cusparse_csr/double/lap2d_5pt_50/k=4"}));
    EXPECT_EQ(kh::spmm_benchmark_name("auto", "float", "fv1", 8), "spmm/auto/float/fv1/k=8");
}

TEST(SpmmNames, BadOptionsNameTheOption)
{
    const auto message = [](auto edit) {
        kh::SpmmBenchOptions o;
        o.source.set = "smoke";
        o.kernel.ks = {4};
        o.kernel.precisions = {"double"};
        edit(o);
        return invalid_argument_message([&] { kh::spmm_benchmark_names(o); });
    };
    EXPECT_EQ(message([](kh::SpmmBenchOptions&) {}), "no exception");
    EXPECT_TRUE(contains(message([](kh::SpmmBenchOptions& o) { o.kernel.ks = {65}; }),
                         "--k: expected an integer in [1, 64], got 65"));
    EXPECT_TRUE(contains(message([](kh::SpmmBenchOptions& o) { o.kernel.ks.clear(); }), "--k:"));
    EXPECT_TRUE(contains(message([](kh::SpmmBenchOptions& o) { o.kernel.ns = {1000}; }),
                         "--n: this family has no n"));
    EXPECT_TRUE(contains(message([](kh::SpmmBenchOptions& o) { o.kernels = {"ell"}; }),
                         "--kernels: unknown SpMM kernel 'ell', expected a comma-separated list "
                         "of csr_vector, sellp, cusparse_csr, cusparse_sell, auto"));
    EXPECT_TRUE(contains(message([](kh::SpmmBenchOptions& o) { o.kernel.run.repetitions = 0; }),
                         "--repetitions"));
    EXPECT_EQ(kh::parse_spmm_kernels("sellp,auto,sellp"),
              (std::vector<std::string>{"sellp", "auto"}));
    EXPECT_EQ(kh::parse_spmm_kernels(""), kh::spmm_kernels());
}

TEST(SpmmTraffic, MatrixOncePerPassBlocksOncePerColumn)
{
    using kbench::models::spmm_passes;
    EXPECT_EQ(spmm_passes(1), 1);
    EXPECT_EQ(spmm_passes(2), 1);
    EXPECT_EQ(spmm_passes(3), 2);
    EXPECT_EQ(spmm_passes(4), 1);
    EXPECT_EQ(spmm_passes(7), 3);
    EXPECT_EQ(spmm_passes(8), 2);
    const auto spmv = kbench::models::csr_spmv(100, 100, 500, 8);  // (500*12 + 101*4 + 800) read
    const auto t = kbench::models::spmm_traffic(spmv, 100, 100, 8, 2, 8);
    const double matrix = 500.0 * 12 + 101.0 * 4;
    EXPECT_DOUBLE_EQ(t.bytes_read, 2 * matrix + 8 * 100.0 * 8);
    EXPECT_DOUBLE_EQ(t.bytes_written, 8 * 100.0 * 8);
    EXPECT_DOUBLE_EQ(t.flops, 8 * 1000.0);
    EXPECT_EQ(kh::spmm_matrix_passes(kbench::spmv::Kernel::sellp, 8), 2);
    EXPECT_EQ(kh::spmm_matrix_passes(kbench::spmv::Kernel::cusparse_csr, 8), 1);
    EXPECT_EQ(kh::spmm_matrix_passes(kbench::spmv::Kernel::cusparse_sell, 8), 8);
}

TEST(SpmmEntry, NameCarriesTheMatrix)
{
    kh::KernelPoint p{"spmm", "sellp", "double", 2500, 4, {}, nlohmann::json::object(),
                      "lap2d_5pt_50"};
    EXPECT_EQ(kh::point_name(p), "spmm/sellp/double/lap2d_5pt_50/k=4");
    kh::PointTiming t;
    t.seconds = 1e-6;
    const nlohmann::json e = kh::kernel_bench_entry(p, t, 3, 0.0, nullptr);
    EXPECT_EQ(e["run_name"], "spmm/sellp/double/lap2d_5pt_50/k=4");
    EXPECT_EQ(e["kbench"]["matrix"], "lap2d_5pt_50");
    EXPECT_EQ(e["n"], 2500);
    EXPECT_EQ(e["k"], 4);
}
