// `kbench bench bicgstab-kernels` and `kbench bench spmm` on the GPU: one small point of every
// variant runs, its entry has the fields of the results schema and its max_rel_error is within
// the precision's tolerance (skipped, never passed, without a GPU).
#include "harness/bench/bench_bicgstab_kernels.hpp"
#include "harness/bench/bench_spmm.hpp"
#include "harness/bench/kernel_bench.hpp"
#include "harness/test/bench_gpu_checks.hpp"
#include "kernels/test/gpu_test.hpp"

#include <gtest/gtest.h>

#include <string>

namespace kh = kbench::harness;

using kbench::harness::test::expect_timed_entry;
using kbench::harness::test::fake_machine;
using kbench::harness::test::small_options;

TEST(BenchBicgstabKernelsGpu, OneSmallPointOfEveryVariantInBothPrecisions)
{
    KBENCH_REQUIRE_GPU();
    const kh::KernelBenchOptions o = small_options({5003}, {}, {"double", "float"}, 2);
    const kh::MachineProfile m = fake_machine();
    const nlohmann::json doc = kh::run_bicgstab_kernel_bench(o, &m);
    ASSERT_EQ(doc["benchmarks"].size(), 2 * kh::bicgstab_kernel_variants().size());
    std::size_t i = 0;
    for (const char* precision : {"double", "float"})
        for (const kh::BicgstabKernelVariant v : kh::bicgstab_kernel_variants()) {
            const nlohmann::json& e = doc["benchmarks"][i++];
            expect_timed_entry(e, kh::kernel_benchmark_name("bicgstab-kernels", kh::to_string(v),
                                                            precision, 5003, 0),
                               kh::bench_tolerance(precision));
            EXPECT_FALSE(e.contains("k"));
            EXPECT_EQ(e["kbench"]["params"]["model_kernel"], kh::bicgstab_model_kernel(v));
        }
    EXPECT_EQ(doc["context"]["kbench"]["id"], "bench/bicgstab-kernels");
}

TEST(BenchSpmmGpu, OneMatrixEveryKernelTwoWidths)
{
    KBENCH_REQUIRE_GPU();
    kh::SpmmBenchOptions o;
    o.source.set = "smoke";
    o.kernel.ks = {3, 4};
    o.kernel.precisions = {"double"};
    o.kernel.run.repetitions = 2;
    o.kernel.run.min_time = 0.0;
    o.kernel.filter = "/lap2d_5pt_50/";
    const kh::MachineProfile m = fake_machine();
    const nlohmann::json doc = kh::run_spmm_bench(o, &m);
    ASSERT_EQ(doc["benchmarks"].size(), 2 * kh::spmm_kernels().size());
    std::size_t i = 0;
    for (const std::string& kernel : kh::spmm_kernels())
        for (const int k : {3, 4}) {
            const nlohmann::json& e = doc["benchmarks"][i++];
            expect_timed_entry(e, kh::spmm_benchmark_name(kernel, "double", "lap2d_5pt_50", k),
                               1e-8);
            EXPECT_EQ(e["k"], k);
            EXPECT_EQ(e["n"], 2500);
            EXPECT_EQ(e["kbench"]["matrix"], "lap2d_5pt_50");
            EXPECT_TRUE(e["kbench"]["params"].contains("passes"));
        }
    EXPECT_EQ(doc["context"]["kbench"]["id"], "bench/spmm");
    EXPECT_TRUE(doc["context"]["kbench"]["matrices"].contains("lap2d_5pt_50"));
}

TEST(BenchSpmmGpu, FloatWithinItsTolerance)
{
    KBENCH_REQUIRE_GPU();
    kh::SpmmBenchOptions o;
    o.source.set = "smoke";
    o.kernels = {"sellp", "cusparse_csr"};
    o.kernel.ks = {5};
    o.kernel.precisions = {"float"};
    o.kernel.run.repetitions = 1;
    o.kernel.run.min_time = 0.0;
    o.kernel.filter = "/lap3d_27pt_16/";
    const nlohmann::json doc = kh::run_spmm_bench(o, nullptr);
    ASSERT_EQ(doc["benchmarks"].size(), 2u);
    for (const auto& e : doc["benchmarks"]) {
        ASSERT_FALSE(e.value("error_occurred", false)) << e.dump();
        EXPECT_LE(e["max_rel_error"].get<double>(), 1e-3);
        EXPECT_FALSE(e.contains("bw_frac_read"));
    }
}
