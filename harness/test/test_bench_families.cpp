// `kbench bench <family>` without a GPU: the size and precision options, the validation of a
// family's options (std::invalid_argument naming the option), the benchmark names and the
// entries (harness/bench/kernel_bench.hpp, bench_dot.hpp, bench_tall_skinny.hpp,
// bench_stream.hpp, bench_tsqr.hpp).
#include "harness/bench/bench_dot.hpp"
#include "harness/bench/bench_stream.hpp"
#include "harness/bench/bench_tall_skinny.hpp"
#include "harness/bench/bench_tsqr.hpp"
#include "harness/bench/kernel_bench.hpp"

#include "harness/test/test_util.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace kh = kbench::harness;

namespace {

using kbench::harness::test::invalid_argument_message;

bool contains(const std::string& text, const std::string& part)
{
    return text.find(part) != std::string::npos;
}

kh::KernelBenchOptions small_dot_options()
{
    kh::KernelBenchOptions o;
    o.ns = {1000};
    o.ks = {1, 8};
    o.precisions = {"double"};
    return o;
}

}  // namespace

TEST(ParseSizes, AcceptsIntegersAndExponentForms)
{
    EXPECT_EQ(kh::parse_sizes({"1000", "1e6", "2.5e5"}, "--n", 1, 1'000'000'000),
              (std::vector<std::int64_t>{1000, 1'000'000, 250'000}));
}

TEST(ParseSizes, RejectsValuesOutOfRangeNamingTheOption)
{
    const std::string zero =
        invalid_argument_message([] { kh::parse_sizes({"0"}, "--n", 1, 100); });
    EXPECT_TRUE(contains(zero, "--n: expected an integer in [1, 100], got 0")) << zero;
    const std::string big = invalid_argument_message([] { kh::parse_sizes({"65"}, "--k", 1, 64); });
    EXPECT_TRUE(contains(big, "--k: expected an integer in [1, 64], got 65")) << big;
    const std::string neg = invalid_argument_message([] { kh::parse_sizes({"-3"}, "--n", 1, 100); });
    EXPECT_TRUE(contains(neg, "got -3")) << neg;
}

TEST(ParseSizes, RejectsTextThatIsNoInteger)
{
    for (const std::string bad : {"abc", "1.5", "", "10x", "1e"}) {
        const std::string msg =
            invalid_argument_message([&] { kh::parse_sizes({bad}, "--n", 1, 100); });
        EXPECT_TRUE(contains(msg, "--n: expected an integer")) << bad << ": " << msg;
    }
    EXPECT_TRUE(contains(invalid_argument_message([] { kh::parse_sizes({}, "--k", 1, 64); }),
                         "--k: expected at least one"));
}

TEST(ParseBenchPrecision, NamesTheOption)
{
    EXPECT_EQ(kh::parse_bench_precision("both"), (std::vector<std::string>{"double", "float"}));
    EXPECT_EQ(kh::parse_bench_precision("float"), (std::vector<std::string>{"float"}));
    const std::string msg = invalid_argument_message([] { kh::parse_bench_precision("half"); });
    EXPECT_EQ(msg, "--precision: expected double, float or both, got 'half'");
}

TEST(ValidateKernelBench, RejectsEachBadOption)
{
    const auto message = [](auto edit) {
        kh::KernelBenchOptions o = small_dot_options();
        edit(o);
        return invalid_argument_message([&] { kh::validate(o, 1000000, 64); });
    };
    EXPECT_EQ(message([](kh::KernelBenchOptions&) {}), "no exception");
    EXPECT_TRUE(contains(message([](kh::KernelBenchOptions& o) { o.ns = {0}; }), "--n:"));
    EXPECT_TRUE(contains(message([](kh::KernelBenchOptions& o) { o.ns = {2000000}; }),
                         "--n: expected an integer in [1, 1000000], got 2000000"));
    EXPECT_TRUE(contains(message([](kh::KernelBenchOptions& o) { o.ns.clear(); }), "--n:"));
    EXPECT_TRUE(contains(message([](kh::KernelBenchOptions& o) { o.ks = {0}; }),
                         "--k: expected an integer in [1, 64], got 0"));
    EXPECT_TRUE(contains(message([](kh::KernelBenchOptions& o) { o.ks = {65}; }), "--k:"));
    EXPECT_TRUE(contains(message([](kh::KernelBenchOptions& o) { o.precisions = {"half"}; }),
                         "--precision: expected double, float or both, got 'half'"));
    EXPECT_TRUE(contains(message([](kh::KernelBenchOptions& o) { o.run.repetitions = 0; }),
                         "--repetitions"));
    EXPECT_TRUE(contains(message([](kh::KernelBenchOptions& o) { o.run.min_time = -1.0; }),
                         "--min-time"));
    EXPECT_TRUE(contains(message([](kh::KernelBenchOptions& o) { o.filter = "("; }), "("));
}

TEST(DotBenchmarkNames, EveryVariantAtEveryPointInRunOrder)
{
    kh::KernelBenchOptions o = small_dot_options();
    o.precisions = {"double", "float"};
    const std::vector<std::string> names = kh::dot_benchmark_names(o);
    ASSERT_EQ(names.size(), 2u * 2u * kh::dot_variants().size());
    EXPECT_EQ(names.front(), "dot/dot/double/n=1000/k=1");
    EXPECT_EQ(names[1], "dot/mdot/double/n=1000/k=1");
    EXPECT_EQ(names.back(), "dot/cublas_gemv/float/n=1000/k=8");
    EXPECT_EQ(kh::kernel_benchmark_name("dot", "mdot", "double", 1000000, 8),
              "dot/mdot/double/n=1000000/k=8");
}

TEST(DotBenchmarkNames, FilterSelectsByRegex)
{
    kh::KernelBenchOptions o = small_dot_options();
    o.filter = "^dot/mdot/.*/k=8$";
    EXPECT_EQ(kh::dot_benchmark_names(o), (std::vector<std::string>{"dot/mdot/double/n=1000/k=8"}));
}

TEST(DotBenchmarkNames, BadOptionsThrowBeforeAnyGpuWork)
{
    kh::KernelBenchOptions o = small_dot_options();
    o.ks = {kh::dot_bench_max_k() + 1};
    EXPECT_TRUE(contains(invalid_argument_message([&] { kh::dot_benchmark_names(o); }), "--k:"));
    EXPECT_TRUE(contains(invalid_argument_message([&] { kh::run_dot_bench(o, nullptr); }), "--k:"));
}

TEST(DotVariants, NamesAreDistinct)
{
    std::vector<std::string> names;
    for (const kh::DotVariant v : kh::dot_variants()) names.push_back(kh::to_string(v));
    EXPECT_EQ(names, (std::vector<std::string>{"dot", "mdot", "mdgm", "cublas_dot", "cublas_gemv"}));
}

TEST(KernelBenchEntry, CarriesTimeTrafficRatesAndError)
{
    kh::KernelPoint p{"dot", "mdot", "double", 1000, 2, {}, {{"note", "x"}}, ""};
    p.traffic.bytes_read = 3000.0 * 8;
    p.traffic.bytes_written = 16.0;
    p.traffic.flops = 4000.0;
    kh::PointTiming t;
    t.seconds = 2e-6;
    t.loops = 64;
    kbench::harness::MachineProfile m;
    m.read_gbps = 100.0;
    m.triad_gbps = 50.0;
    const nlohmann::json e = kh::kernel_bench_entry(p, t, 10, 1e-16, &m);
    EXPECT_EQ(e["name"], "dot/mdot/double/n=1000/k=2_median");
    EXPECT_EQ(e["run_name"], "dot/mdot/double/n=1000/k=2");
    EXPECT_EQ(e["aggregate_name"], "median");
    EXPECT_EQ(e["time_unit"], "us");
    EXPECT_DOUBLE_EQ(e["real_time"].get<double>(), 2.0);
    EXPECT_EQ(e["iterations"], 64);
    const double gbps = (24000.0 + 16.0) / 2e-6 * 1e-9;
    EXPECT_DOUBLE_EQ(e["GBps"].get<double>(), gbps);
    EXPECT_DOUBLE_EQ(e["GFlops"].get<double>(), 2.0);
    EXPECT_DOUBLE_EQ(e["bw_frac_read"].get<double>(), gbps / 100.0);
    EXPECT_DOUBLE_EQ(e["bw_frac_triad"].get<double>(), gbps / 50.0);
    EXPECT_DOUBLE_EQ(e["max_rel_error"].get<double>(), 1e-16);
    EXPECT_EQ(e["kbench"]["study"], "dot");
    EXPECT_EQ(e["kbench"]["kernel"], "mdot");
    EXPECT_EQ(e["kbench"]["params"]["k"], 2);
    EXPECT_EQ(e["kbench"]["params"]["note"], "x");

    const nlohmann::json no_machine = kh::kernel_bench_entry(p, t, 10, 0.0, nullptr);
    EXPECT_FALSE(no_machine.contains("bw_frac_read"));
    EXPECT_FALSE(no_machine.contains("bw_frac_triad"));

    const nlohmann::json err = kh::kernel_bench_error_entry(p, "too wrong", INFINITY);
    EXPECT_EQ(err["error_occurred"], true);
    EXPECT_EQ(err["error_message"], "too wrong");
    EXPECT_TRUE(err["kbench"]["max_rel_error"].is_null());
}

TEST(TallSkinnyBenchmarkNames, EveryVariantAtEveryPoint)
{
    kh::KernelBenchOptions o;
    o.ns = {100000};
    o.ks = {30};
    o.precisions = {"double"};
    const std::vector<std::string> names = kh::tall_skinny_benchmark_names(o);
    ASSERT_EQ(names.size(), kh::tall_skinny_variants().size());
    EXPECT_EQ(names.front(), "tall-skinny/mdgm/double/n=100000/k=30");
    EXPECT_EQ(names.back(), "tall-skinny/cublas_trsm/double/n=100000/k=30");
    o.filter = "/gram";
    EXPECT_EQ(kh::tall_skinny_benchmark_names(o),
              (std::vector<std::string>{"tall-skinny/gram/double/n=100000/k=30",
                                        "tall-skinny/gram_batched/double/n=100000/k=30"}));
}

TEST(TallSkinnyBenchmarkNames, BadOptionsNameTheOption)
{
    kh::KernelBenchOptions o;
    o.ns = {1000};
    o.ks = {kh::tall_skinny_bench_max_k() + 1};
    o.precisions = {"double"};
    EXPECT_TRUE(contains(invalid_argument_message([&] { kh::tall_skinny_benchmark_names(o); }),
                         "--k: expected an integer in [1, 64], got 65"));
    o.ks = {4};
    o.ns = {0};
    EXPECT_TRUE(contains(invalid_argument_message([&] { kh::run_tall_skinny_bench(o, nullptr); }),
                         "--n:"));
}

TEST(TallSkinnyVariants, KernelsStudyNamesAndModels)
{
    using V = kh::TallSkinnyVariant;
    EXPECT_STREQ(kh::tall_skinny_kernel(V::per_column), "gemv_t");
    EXPECT_STREQ(kh::tall_skinny_kernel(V::cublas_gemv_n), "gemv_n");
    EXPECT_STREQ(kh::tall_skinny_kernel(V::cublas_syrk), "gram");
    EXPECT_STREQ(kh::tall_skinny_kernel(V::cublas_trsm), "trsm");
    EXPECT_STREQ(kh::tall_skinny_study_name(V::cublas_gemm), "cublas_dgemm");
    EXPECT_STREQ(kh::tall_skinny_study_name(V::cublas_syrk), "cublas_dsyrk");
    EXPECT_STREQ(kh::tall_skinny_study_name(V::cublas_trsm), "cublas_dtrsm");
    EXPECT_STREQ(kh::tall_skinny_study_name(V::gram_batched), "gram_batched");
    // Every variant of a kernel moves the same bytes (mdgm: its own model, the same count).
    const kbench::models::Traffic a = kh::tall_skinny_traffic(V::gram, 1000, 8, 8);
    const kbench::models::Traffic b = kh::tall_skinny_traffic(V::cublas_syrk, 1000, 8, 8);
    EXPECT_DOUBLE_EQ(a.bytes_read, 8.0 * 1000 * 8);
    EXPECT_DOUBLE_EQ(a.bytes_read, b.bytes_read);
    EXPECT_DOUBLE_EQ(a.flops, 1000.0 * 8 * 9);
    const kbench::models::Traffic t = kh::tall_skinny_traffic(V::cublas_trsm, 1000, 8, 4);
    EXPECT_DOUBLE_EQ(t.bytes_written, 8.0 * 1000 * 4);
}

TEST(StreamBenchmarkNames, NoKInTheNames)
{
    kh::KernelBenchOptions o;
    o.ns = {1000, 1000000};
    o.precisions = {"float"};
    EXPECT_EQ(kh::stream_benchmark_names(o),
              (std::vector<std::string>{"stream/copy/float/n=1000", "stream/triad/float/n=1000",
                                        "stream/read/float/n=1000", "stream/copy/float/n=1000000",
                                        "stream/triad/float/n=1000000",
                                        "stream/read/float/n=1000000"}));
    o.ks = {4};
    EXPECT_TRUE(contains(invalid_argument_message([&] { kh::stream_benchmark_names(o); }),
                         "--k: this family has no k"));
    o.ks.clear();
    o.ns = {0};
    EXPECT_TRUE(contains(invalid_argument_message([&] { kh::run_stream_bench(o, nullptr); }),
                         "--n: expected an integer in [1, 1099511627776], got 0"));
}

TEST(StreamTraffic, CopyTriadRead)
{
    using V = kh::StreamVariant;
    const kbench::models::Traffic copy = kh::stream_traffic(V::copy, 1000, 8);
    EXPECT_DOUBLE_EQ(copy.bytes_read, 8000.0);
    EXPECT_DOUBLE_EQ(copy.bytes_written, 8000.0);
    EXPECT_DOUBLE_EQ(copy.flops, 0.0);
    const kbench::models::Traffic triad = kh::stream_traffic(V::triad, 1000, 4);
    EXPECT_DOUBLE_EQ(triad.bytes_read, 8000.0);
    EXPECT_DOUBLE_EQ(triad.bytes_written, 4000.0);
    EXPECT_DOUBLE_EQ(triad.flops, 2000.0);
    const kbench::models::Traffic read = kh::stream_traffic(V::read, 1000, 8);
    EXPECT_DOUBLE_EQ(read.bytes_read, 8000.0);
    EXPECT_DOUBLE_EQ(read.bytes_written, 8.0);
}

TEST(KernelBenchEntry, FamilyWithoutKHasNoK)
{
    const kh::KernelPoint p{"stream", "copy", "double", 1000, 0, {}, nlohmann::json::object(),
                            ""};
    kh::PointTiming t;
    t.seconds = 1e-6;
    const nlohmann::json e = kh::kernel_bench_entry(p, t, 3, 0.0, nullptr);
    EXPECT_EQ(e["run_name"], "stream/copy/double/n=1000");
    EXPECT_FALSE(e.contains("k"));
    EXPECT_FALSE(e["kbench"]["params"].contains("k"));
}

TEST(TsqrBenchmarkNames, EveryMethodThenCusolver)
{
    kh::KernelBenchOptions o;
    o.ns = {100000};
    o.ks = {30};
    o.precisions = {"double"};
    const std::vector<std::string> names = kh::tsqr_benchmark_names(o);
    ASSERT_EQ(names.size(), kbench::ortho::tsqr_methods().size() + 1);
    EXPECT_EQ(names.front(), "tsqr/mgs/double/n=100000/k=30");
    EXPECT_EQ(names.back(), "tsqr/cusolver_qr/double/n=100000/k=30");
    o.ks = {65};
    EXPECT_TRUE(contains(invalid_argument_message([&] { kh::run_tsqr_bench(o, nullptr); }),
                         "--k: expected an integer in [1, 64], got 65"));
}

TEST(TsqrTraffic, EffectiveFlopsAndPassColumns)
{
    const kh::TsqrVariant cholqr{"cholqr", kbench::ortho::TsqrMethod::cholqr, false};
    const kbench::models::Traffic t = kh::tsqr_traffic(cholqr, 1000, 10, 8);
    // Gram pass reads V, V := V U^-1 reads and writes it.
    EXPECT_DOUBLE_EQ(t.bytes_read, 2.0 * 10 * 1000 * 8);
    EXPECT_DOUBLE_EQ(t.bytes_written, 1.0 * 10 * 1000 * 8);
    EXPECT_DOUBLE_EQ(t.flops, 2.0 * (2.0 * 1000 * 100 - 2.0 * 1000 / 3.0));
    EXPECT_DOUBLE_EQ(kh::tsqr_pass_columns(kbench::ortho::TsqrMethod::caqr, 10).read, 30.0);
    EXPECT_DOUBLE_EQ(kh::tsqr_pass_columns(kbench::ortho::TsqrMethod::caqr, 10).written, 30.0);
    // MGS, k = 4: normalizing reads 8 and writes 4 columns, the projections read 12 + 6, write 6.
    EXPECT_DOUBLE_EQ(kh::tsqr_pass_columns(kbench::ortho::TsqrMethod::mgs, 4).read, 26.0);
    EXPECT_DOUBLE_EQ(kh::tsqr_pass_columns(kbench::ortho::TsqrMethod::mgs, 4).written, 10.0);
    // CGS2, k = 3: normalize 6 + 3, two passes of 6 + 4 reads and 2 writes.
    EXPECT_DOUBLE_EQ(kh::tsqr_pass_columns(kbench::ortho::TsqrMethod::cgs2, 3).total(), 33.0);
}
