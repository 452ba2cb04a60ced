// `kbench profile` without a GPU: the benchmark names of every family it accepts, the NVTX range
// of a benchmark, the ncu command line (harness/core/ncu_profile.hpp,
// harness/bench/bench_profile.hpp), and the sums and report made of ncu's CSV.
#include "harness/bench/bench_profile.hpp"
#include "harness/core/ncu_profile.hpp"

#include "harness/test/test_util.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace kh = kbench::harness;

namespace {

using kbench::harness::test::invalid_argument_message;

bool contains(const std::string& text, const std::string& part)
{
    return text.find(part) != std::string::npos;
}

/// The value after `option` in `cmd` ("" when absent).
std::string after(const std::vector<std::string>& cmd, const std::string& option)
{
    const auto it = std::find(cmd.begin(), cmd.end(), option);
    return it == cmd.end() || it + 1 == cmd.end() ? "" : *(it + 1);
}

bool has(const std::vector<std::string>& cmd, const std::string& arg)
{
    return std::find(cmd.begin(), cmd.end(), arg) != cmd.end();
}

/// One CSV row of ncu's details page.
std::string row(const std::string& id, const std::string& kernel, const std::string& section,
                const std::string& metric, const std::string& unit, const std::string& value)
{
    return "\"" + id + "\",\"1\",\"kbench\",\"h\",\"" + kernel + "\",\"1\",\"7\",\"(256, 1, 1)\","
           "\"(80, 1, 1)\",\"0\",\"9.0\",\"" + section + "\",\"" + metric + "\",\"" + unit +
           "\",\"" + value + "\"\n";
}

const std::string header =
    R"("ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value")"
    "\n";

/// Two kernels of one warm-up call, as ncu --csv --print-units base prints them.
std::string two_kernels()
{
    const std::string m = "Command line profiler metrics";
    return "==PROF== Connected to process 1\n" + header +
           row("0", "mdot_kernel", m, "dram__bytes_read.sum", "byte", "8,000,000") +
           row("0", "mdot_kernel", m, "dram__bytes_write.sum", "byte", "20480") +
           row("0", "mdot_kernel", m, "gpu__time_duration.sum", "nsecond", "4000") +
           row("1", "reduce_kernel", m, "dram__bytes_read.sum", "byte", "20480") +
           row("1", "reduce_kernel", m, "dram__bytes_write.sum", "byte", "64") +
           row("1", "reduce_kernel", m, "gpu__time_duration.sum", "nsecond", "2000") +
           "==PROF== Disconnected from process 1\n";
}

}  // namespace

TEST(ProfileRange, SlashesBecomeColonsAndFilterCharactersUnderscores)
{
    EXPECT_EQ(kh::profile_range_name("dot/mdot/double/n=1000000/k=8"),
              "dot:mdot:double:n=1000000:k=8");
    EXPECT_EQ(kh::profile_range_name("spmv/sellp/double/a@b[1]*,c d"),
              "spmv:sellp:double:a_b_1___c_d");
    EXPECT_EQ(kh::profile_nvtx_include("stream/copy/float/n=10"), "kbench@stream:copy:float:n=10/");
    EXPECT_THROW(kh::profile_range_name(""), std::invalid_argument);
}

TEST(BenchmarkNames, ParsesEveryFamily)
{
    const std::vector<kh::BenchmarkName> cases{
        {"spmv", "sellp", "double", 0, 0, "lap3d_7pt_200"},
        {"spmm", "sellp", "float", 0, 4, "lap2d_5pt_50"},
        {"dot", "mdot", "double", 1000000, 8, ""},
        {"tall-skinny", "gram", "double", 1000000, 30, ""},
        {"stream", "triad", "float", 100000000, 0, ""},
        {"tsqr", "cholqr2", "double", 1000000, 30, ""},
        {"bicgstab-kernels", "xr_update", "float", 1000, 0, ""}};
    const std::vector<std::string> names{"spmv/sellp/double/lap3d_7pt_200",
                                         "spmm/sellp/float/lap2d_5pt_50/k=4",
                                         "dot/mdot/double/n=1000000/k=8",
                                         "tall-skinny/gram/double/n=1000000/k=30",
                                         "stream/triad/float/n=100000000",
                                         "tsqr/cholqr2/double/n=1000000/k=30",
                                         "bicgstab-kernels/xr_update/float/n=1000"};
    EXPECT_EQ(kh::profile_families().size(), cases.size());
    for (std::size_t i = 0; i < cases.size(); ++i) {
        SCOPED_TRACE(names[i]);
        const kh::BenchmarkName b = kh::parse_benchmark_name(names[i]);
        const kh::BenchmarkName& e = cases[i];
        EXPECT_EQ(b.family, e.family);
        EXPECT_EQ(b.variant, e.variant);
        EXPECT_EQ(b.precision, e.precision);
        EXPECT_EQ(b.n, e.n);
        EXPECT_EQ(b.k, e.k);
        EXPECT_EQ(b.matrix, e.matrix);
    }
}

TEST(BenchmarkNames, RefusesWhatNoFamilyNames)
{
    const std::vector<std::pair<std::string, std::string>> cases{
        {"gemm/x/double/n=1",
         "benchmark name 'gemm/x/double/n=1': unknown family 'gemm', expected "
         "<family>/<variant>/... with <family> one of spmv, spmm, dot"},
        {"dot/mdot/double/n=1000", "expected dot/<variant>/<precision>/n=<n>/k=<k>"},
        {"dot/mdot/double/n=1000/k=8/", "expected dot/"},
        {"dot/ddot/double/n=1000/k=8",
         "unknown dot variant 'ddot', expected one of dot, mdot, mdgm"},
        {"stream/copy/half/n=10", "unknown precision 'half', expected double or float"},
        {"stream/copy/double/n=1e6",
         "'n=1e6' is not n=<positive integer> (expected stream/<variant>/<precision>/n=<n>)"},
        {"tsqr/mgs/double/n=100/k=0", "'k=0' is not k=<positive integer>"},
        {"spmv/sellp/half/fv1", "unknown precision 'half'"},
        {"spmm/sellp/double/lap2d_5pt_50", "expected spmm/<variant>/<precision>/<matrix>/k=<k>"},
        {"bicgstab-kernels/x_update/double/n=10",
         "unknown bicgstab-kernels variant 'x_update', expected one of p_update"},
        {"bicgstab-kernels/p_update/double/n=10/k=2",
         "expected bicgstab-kernels/<variant>/<precision>/n=<n>"},
        {"", "unknown family ''"}};
    for (const auto& [name, expected] : cases) {
        const std::string message =
            invalid_argument_message([&] { kh::parse_benchmark_name(name); });
        EXPECT_TRUE(contains(message, expected)) << name << ": " << message;
    }
}

TEST(NcuCommand, ProfilesEveryKernelOfTheBenchmarksRange)
{
    kh::ProfileOptions o;
    o.name = "dot/cublas_dot/double/n=1000000/k=8";
    const std::vector<std::string> cmd = kh::ncu_command(o, "/bin/kbench", "/tmp/out.json");
    ASSERT_GE(cmd.size(), 3u);
    EXPECT_EQ(cmd[0], "ncu");
    EXPECT_EQ(cmd[1], "--nvtx");
    EXPECT_EQ(after(cmd, "--nvtx-include"), "kbench@dot:cublas_dot:double:n=1000000:k=8/");
    EXPECT_FALSE(has(cmd, "--launch-count"));  // every kernel of the warm-up call
    EXPECT_EQ(after(cmd, "--metrics"),
              "dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum");
    EXPECT_EQ(after(cmd, "--clock-control"), "none");
    EXPECT_EQ(after(cmd, "--print-units"), "base");
    EXPECT_TRUE(has(cmd, "--csv"));
    const std::vector<std::string> child = kh::profile_child(o, "/bin/kbench", "/tmp/out.json");
    EXPECT_TRUE(std::equal(child.rbegin(), child.rend(), cmd.rbegin()));  // ncu's last words
}

TEST(NcuCommand, ChildRunsExactlyTheBenchmarkOnce)
{
    const std::vector<std::string> tail{"--repetitions", "1", "--min-time", "0", "--no-machine",
                                        "--json", "/tmp/o.json"};
    const auto child = [&](const std::string& name, const std::string& set,
                           std::vector<std::string> head, std::vector<std::string> after_json) {
        kh::ProfileOptions o;
        o.name = name;
        o.source.set = set;
        head.insert(head.begin(), "/bin/kbench");
        head.insert(head.end(), tail.begin(), tail.end());
        head.insert(head.end(), after_json.begin(), after_json.end());
        EXPECT_EQ(kh::profile_child(o, "/bin/kbench", "/tmp/o.json"), head) << name;
    };
    child("dot/cublas_dot/double/n=1000000/k=8", "default",
          {"bench", "dot", "--n", "1000000", "--k", "8", "--precision", "double", "--filter",
           R"(^dot\/cublas_dot\/double\/n=1000000\/k=8$)"},
          {});
    child("bicgstab-kernels/cublas_p_update/double/n=1000000", "default",
          {"bench", "bicgstab-kernels", "--n", "1000000", "--precision", "double", "--filter",
           R"(^bicgstab-kernels\/cublas_p_update\/double\/n=1000000$)"},
          {});
    child("spmm/cusparse_csr/float/lap2d_5pt_50/k=8", "smoke",
          {"bench", "spmm", "--kernels", "cusparse_csr", "--k", "8", "--precision", "float",
           "--filter", R"(^spmm\/cusparse_csr\/float\/lap2d_5pt_50\/k=8$)"},
          {"--set", "smoke"});
    child("spmv/sellp/float/fv1", "anzt2015",
          {"bench", "spmv", "--kernels", "sellp", "--precision", "float", "--filter",
           R"(^spmv\/sellp\/float\/fv1$)"},
          {"--set", "anzt2015"});
}

TEST(NcuCommand, SpmvKeepsItsKernelAndMatrixSource)
{
    kh::ProfileOptions o;
    o.name = "spmv/sellp/float/fv1";
    o.source.set = "anzt2015";
    o.source.matrix_dir = "/m";
    const std::vector<std::string> cmd = kh::ncu_command(o, "/bin/kbench", "/tmp/o.json");
    EXPECT_EQ(after(cmd, "--nvtx-include"), "kbench@spmv:sellp:float:fv1/");
    EXPECT_EQ(after(cmd, "/bin/kbench"), "bench");
    EXPECT_EQ(after(cmd, "bench"), "spmv");
    EXPECT_EQ(after(cmd, "--kernels"), "sellp");
    EXPECT_EQ(after(cmd, "--precision"), "float");
    EXPECT_EQ(after(cmd, "--set"), "anzt2015");
    EXPECT_EQ(after(cmd, "--matrix-dir"), "/m");
    EXPECT_FALSE(has(cmd, "--n"));
    // Families without a matrix take no matrix options.
    o.name = "stream/copy/double/n=1000";
    EXPECT_FALSE(has(kh::ncu_command(o, "/bin/kbench", "/tmp/o.json"), "--set"));
}

TEST(NcuCommand, MetricsOptionSplitsSectionsFromMetrics)
{
    kh::ProfileOptions o;
    o.name = "stream/read/double/n=1000";
    o.metrics =
        "SpeedOfLight,sm__throughput.avg.pct_of_peak_sustained_elapsed,MemoryWorkloadAnalysis";
    const kh::NcuRequest r = kh::profile_request(o);
    EXPECT_EQ(r.sections, (std::vector<std::string>{"SpeedOfLight", "MemoryWorkloadAnalysis"}));
    EXPECT_EQ(r.metrics.back(), "sm__throughput.avg.pct_of_peak_sustained_elapsed");
    const std::vector<std::string> cmd = kh::ncu_command(o, "/bin/kbench", "/tmp/o.json");
    EXPECT_EQ(after(cmd, "--section"), "SpeedOfLight");
    EXPECT_TRUE(contains(after(cmd, "--metrics"), ",sm__throughput.avg.pct_of_peak_sustained"));
    for (const std::string bad : {"SpeedOfLight,,x", ",x", "x,"}) {
        o.metrics = bad;
        EXPECT_TRUE(contains(invalid_argument_message([&] { kh::profile_request(o); }),
                             "--metrics: empty item"))
            << bad;
    }
}

TEST(NcuCommand, Table1SharesTheCommandLine)
{
    kh::NcuRequest r;
    r.nvtx_exclude = {"kbench_machine_probe/"};
    r.rename_by_range = true;
    r.metrics = {kh::ncu_dram_read, kh::ncu_dram_write};
    const std::vector<std::string> cmd = kh::ncu_argv(r, {"/bin/kbench", "solve"});
    const std::vector<std::string> expected{
        "ncu", "--nvtx", "--nvtx-exclude", "kbench_machine_probe/", "--print-nvtx-rename",
        "kernel", "--metrics", "dram__bytes_read.sum,dram__bytes_write.sum", "--clock-control",
        "none", "--print-units", "base", "--csv", "/bin/kbench", "solve"};
    EXPECT_EQ(cmd, expected);
    EXPECT_THROW(kh::ncu_argv(r, {}), std::invalid_argument);
    EXPECT_THROW(kh::ncu_argv(kh::NcuRequest{}, {"x"}), std::invalid_argument);
}

TEST(NcuSums, AddUpEveryKernelOfTheCall)
{
    const std::vector<kh::NcuKernel> kernels = kh::parse_ncu_csv(two_kernels());
    ASSERT_EQ(kernels.size(), 2u);
    const kh::NcuTotals t = kh::sum_kernels(kernels);
    EXPECT_EQ(t.kernels, 2);
    EXPECT_DOUBLE_EQ(t.bytes_read, 8'020'480.0);
    EXPECT_DOUBLE_EQ(t.bytes_written, 20'544.0);
    EXPECT_NEAR(t.seconds, 6e-6, 1e-15);
}

TEST(NcuSums, SectionsKeepTextValuesAsRows)
{
    const std::string text =
        header +
        row("0", "k", "Command line profiler metrics", "dram__bytes_read.sum", "byte", "100") +
        row("0", "k", "Launch Statistics", "Function Cache Configuration", "", "CachePreferNone") +
        row("0", "k", "GPU Speed Of Light Throughput", "Memory Throughput", "%", "87.5");
    EXPECT_THROW(kh::parse_ncu_csv(text), std::invalid_argument);
    const std::vector<kh::NcuKernel> k = kh::parse_ncu_csv(text, kh::NcuText::keep);
    ASSERT_EQ(k.size(), 1u);
    ASSERT_EQ(k[0].rows.size(), 3u);
    EXPECT_EQ(k[0].rows[1].section, "Launch Statistics");
    EXPECT_EQ(k[0].rows[1].value, "CachePreferNone");
    EXPECT_EQ(k[0].metrics.count("Function Cache Configuration"), 0u);
    EXPECT_DOUBLE_EQ(k[0].metrics.at("Memory Throughput"), 87.5);
}

TEST(ProfileReport, TotalsNextToTheModel)
{
    kh::ProfileOptions o;
    o.name = "dot/mdot/double/n=1000000/k=8";
    const kh::NcuRequest r = kh::profile_request(o);
    kbench::models::Traffic model;
    model.bytes_read = 8'000'000.0;
    model.bytes_written = 64.0;
    const std::string report =
        kh::format_profile_report(o.name, kh::parse_ncu_csv(two_kernels()), model, r);
    EXPECT_TRUE(contains(report, "kbench@dot:mdot:double:n=1000000:k=8/")) << report;
    EXPECT_TRUE(contains(report, "mdot_kernel")) << report;
    EXPECT_TRUE(contains(report, "reduce_kernel")) << report;
    EXPECT_TRUE(contains(report, "total (2 kernels)")) << report;
    EXPECT_TRUE(contains(report, "8020480")) << report;
    EXPECT_TRUE(contains(report, "1.003")) << report;    // 8020480 / 8e6
    EXPECT_TRUE(contains(report, "321.000")) << report;  // 20544 / 64
    EXPECT_FALSE(contains(report, "kernel 1:")) << report;  // no extra metrics asked
}

TEST(ProfileReport, ExtraMetricsPerKernel)
{
    kh::ProfileOptions o;
    o.name = "stream/read/double/n=1000";
    o.metrics = "SpeedOfLight";
    const std::string text =
        header +
        row("0", "k", "Command line profiler metrics", "dram__bytes_read.sum", "byte", "100") +
        row("0", "k", "GPU Speed Of Light Throughput", "Memory Throughput", "%", "87.5");
    const std::string report = kh::format_profile_report(
        o.name, kh::parse_ncu_csv(text, kh::NcuText::keep), {}, kh::profile_request(o));
    EXPECT_TRUE(contains(report, "kernel 1: k")) << report;
    EXPECT_TRUE(contains(report, "Memory Throughput")) << report;
    EXPECT_TRUE(contains(report, "87.5 %")) << report;
}

TEST(ProfileModel, ReadsTheEntryOrSaysWhyNot)
{
    nlohmann::json doc;
    doc["benchmarks"] = nlohmann::json::array();
    doc["benchmarks"].push_back({{"name", "dot/mdot/double/n=10/k=2_median"},
                                 {"run_name", "dot/mdot/double/n=10/k=2"},
                                 {"bytes_read", 240.0},
                                 {"bytes_written", 16.0}});
    doc["benchmarks"].push_back(
        {{"name", "dot/mdgm/double/n=10/k=2"},
         {"run_name", "dot/mdgm/double/n=10/k=2"},
         {"error_occurred", true},
         {"error_message", "max_rel_error 1 exceeds the double tolerance 1e-08"}});
    const kbench::models::Traffic t = kh::model_traffic(doc, "dot/mdot/double/n=10/k=2");
    EXPECT_DOUBLE_EQ(t.bytes_read, 240.0);
    EXPECT_DOUBLE_EQ(t.bytes_written, 16.0);
    try {
        kh::model_traffic(doc, "dot/mdgm/double/n=10/k=2");
        ADD_FAILURE() << "no exception";
    } catch (const std::runtime_error& e) {
        EXPECT_TRUE(contains(e.what(), "exceeds the double tolerance")) << e.what();
    }
    EXPECT_THROW(kh::model_traffic(doc, "dot/dot/double/n=10/k=2"), std::runtime_error);
}
