// `kbench bench <family>` on the GPU: one small point of each family runs and its entry has the
// fields of the results schema (skipped without a GPU).
#include "harness/bench/bench_dot.hpp"
#include "harness/bench/bench_stream.hpp"
#include "harness/bench/bench_tall_skinny.hpp"
#include "harness/bench/bench_tsqr.hpp"
#include "harness/bench/kernel_bench.hpp"
#include "harness/test/bench_gpu_checks.hpp"
#include "kernels/test/gpu_test.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace kh = kbench::harness;

using kbench::harness::test::expect_timed_entry;
using kbench::harness::test::fake_machine;
using kbench::harness::test::small_options;

TEST(BenchDotGpu, OneSmallPointOfEveryVariant)
{
    KBENCH_REQUIRE_GPU();
    const kh::KernelBenchOptions o = small_options({5000}, {3}, {"double"}, 2);
    const kh::MachineProfile m = fake_machine();
    const nlohmann::json doc = kh::run_dot_bench(o, &m);
    ASSERT_EQ(doc["benchmarks"].size(), kh::dot_variants().size());
    std::size_t i = 0;
    for (const kh::DotVariant v : kh::dot_variants())
        expect_timed_entry(doc["benchmarks"][i++],
                           kh::kernel_benchmark_name("dot", kh::to_string(v), "double", 5000, 3));
    EXPECT_EQ(doc["context"]["kbench"]["id"], "bench/dot");
}

TEST(BenchDotGpu, FloatWithinItsTolerance)
{
    KBENCH_REQUIRE_GPU();
    kh::KernelBenchOptions o = small_options({3001}, {5}, {"float"}, 1);
    o.filter = "mdgm|cublas_gemv";
    const nlohmann::json doc = kh::run_dot_bench(o, nullptr);
    ASSERT_EQ(doc["benchmarks"].size(), 2u);
    for (const auto& e : doc["benchmarks"]) {
        EXPECT_FALSE(e.value("error_occurred", false)) << e.dump();
        EXPECT_LE(e["max_rel_error"].get<double>(), 1e-3);
        EXPECT_FALSE(e.contains("bw_frac_read"));
    }
}

TEST(BenchTallSkinnyGpu, OneSmallPointOfEveryVariant)
{
    KBENCH_REQUIRE_GPU();
    const kh::KernelBenchOptions o = small_options({5000}, {3}, {"double"}, 2);
    const kh::MachineProfile m = fake_machine();
    const nlohmann::json doc = kh::run_tall_skinny_bench(o, &m);
    ASSERT_EQ(doc["benchmarks"].size(), kh::tall_skinny_variants().size());
    std::size_t i = 0;
    for (const kh::TallSkinnyVariant v : kh::tall_skinny_variants())
        expect_timed_entry(doc["benchmarks"][i++], kh::kernel_benchmark_name(
                                                       "tall-skinny", kh::to_string(v), "double",
                                                       5000, 3));
    EXPECT_EQ(doc["context"]["kbench"]["id"], "bench/tall-skinny");
}

TEST(BenchTallSkinnyGpu, FloatWithinItsTolerance)
{
    KBENCH_REQUIRE_GPU();
    const kh::KernelBenchOptions o = small_options({4097}, {2, 5}, {"float"}, 1);
    const nlohmann::json doc = kh::run_tall_skinny_bench(o, nullptr);
    ASSERT_EQ(doc["benchmarks"].size(), 2 * kh::tall_skinny_variants().size());
    for (const auto& e : doc["benchmarks"]) {
        EXPECT_FALSE(e.value("error_occurred", false)) << e.dump();
        EXPECT_LE(e["max_rel_error"].get<double>(), 1e-3);
    }
}

TEST(BenchStreamGpu, OneSmallPointOfEveryVariantInBothPrecisions)
{
    KBENCH_REQUIRE_GPU();
    const kh::KernelBenchOptions o = small_options({100003}, {}, {"double", "float"}, 2);
    const kh::MachineProfile m = fake_machine();
    const nlohmann::json doc = kh::run_stream_bench(o, &m);
    ASSERT_EQ(doc["benchmarks"].size(), 2 * kh::stream_variants().size());
    std::size_t i = 0;
    for (const char* precision : {"double", "float"})
        for (const kh::StreamVariant v : kh::stream_variants()) {
            const nlohmann::json& e = doc["benchmarks"][i++];
            const std::string name =
                kh::kernel_benchmark_name("stream", kh::to_string(v), precision, 100003, 0);
            if (std::string(precision) == "double") {
                expect_timed_entry(e, name);
            } else {
                EXPECT_EQ(e.value("run_name", ""), name);
                EXPECT_FALSE(e.value("error_occurred", false)) << e.dump();
                EXPECT_LE(e["max_rel_error"].get<double>(), 1e-3);
            }
        }
}

TEST(BenchTsqrGpu, OneSmallPointOfEveryVariant)
{
    KBENCH_REQUIRE_GPU();
    kh::KernelBenchOptions o;
    o.ns = {20000};
    o.ks = {4};
    o.precisions = {"double"};
    o.run.repetitions = 3;
    const kh::MachineProfile m = fake_machine();
    const nlohmann::json doc = kh::run_tsqr_bench(o, &m);
    const std::vector<kh::TsqrVariant> variants = kh::tsqr_variants();
    ASSERT_EQ(doc["benchmarks"].size(), variants.size());
    for (std::size_t i = 0; i < variants.size(); ++i) {
        const nlohmann::json& e = doc["benchmarks"][i];
        expect_timed_entry(e, kh::kernel_benchmark_name("tsqr", variants[i].name, "double",
                                                        20000, 4));
        EXPECT_TRUE(e.contains("event_seconds"));
        EXPECT_LT(e["orthogonality"].get<double>(), 1e-10);
        EXPECT_EQ(e["kbench"]["params"]["status"], "ok");
    }
}
