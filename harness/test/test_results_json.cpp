#include "harness/core/results_json.hpp"

#include <gtest/gtest.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace kh = kbench::harness;
using nlohmann::json;

TEST(ResultsJson, DocumentHasBenchmarkContextAndKbenchSchema)
{
    const json doc = kh::make_results_document({{"id", "anzt2015/table3"}});
    const auto& ctx = doc.at("context");
    // Google Benchmark's own keys, so that its tools/compare.py reads the file.
    for (const char* key : {"date", "host_name", "executable", "num_cpus", "mhz_per_cpu",
                            "caches", "library_build_type"}) {
        EXPECT_TRUE(ctx.contains(key)) << key;
    }
    EXPECT_EQ(ctx.at("kbench_schema_version"), 1);
    EXPECT_EQ(ctx.at("kbench").at("schema_version"), 1);
    EXPECT_EQ(ctx.at("kbench").at("id"), "anzt2015/table3");
    EXPECT_TRUE(doc.at("benchmarks").is_array());
    EXPECT_TRUE(doc.at("benchmarks").empty());
}

TEST(ResultsJson, DeviceAndMachineSerializeTheSchemaKeys)
{
    kbench::device_info d;
    d.name = "NVIDIA H200";
    d.sm_count = 132;
    d.l2_cache_bytes = 50u << 20;
    const json g = d;
    EXPECT_EQ(g.at("name"), "NVIDIA H200");
    EXPECT_EQ(g.at("sm_count"), 132);
    EXPECT_EQ(g.at("l2_cache_bytes"), 50u << 20);
    for (const char* key : {"compute_capability", "sm_clock_mhz", "memory_clock_mhz",
                            "memory_bus_width_bits", "global_memory_bytes", "ecc_enabled",
                            "driver_version", "runtime_version"}) {
        EXPECT_TRUE(g.contains(key)) << key;
    }
    kh::MachineProfile m;
    m.read_gbps = 4000.0;
    const json mj = m;
    EXPECT_EQ(mj.at("read_gbps"), 4000.0);
    for (const char* key : {"copy_gbps", "triad_gbps", "launch_latency_us",
                            "reduction_roundtrip_latency_us", "dgemm_gflops", "sgemm_gflops",
                            "block_step_us", "graph_while_iteration_us", "bandwidth_bytes"}) {
        EXPECT_TRUE(mj.contains(key)) << key;
    }
    const json gi = kh::GitInfo{"unknown", true};
    EXPECT_EQ(gi, (json{{"sha", "unknown"}, {"dirty", true}}));
}

TEST(ResultsJson, AppendsBenchmarksOfEachRun)
{
    json doc = kh::make_results_document(json::object());
    kh::append_benchmarks(doc, {{"benchmarks", {{{"name", "a"}}, {{"name", "b"}}}}});
    kh::append_benchmarks(doc, {{"benchmarks", {{{"name", "c"}}}}});
    ASSERT_EQ(doc["benchmarks"].size(), 3u);
    EXPECT_EQ(doc["benchmarks"][2]["name"], "c");
    EXPECT_THROW(kh::append_benchmarks(doc, {{"context", {}}}), std::invalid_argument);
}

TEST(ResultsJson, RealTimeUnits)
{
    EXPECT_DOUBLE_EQ(kh::real_time_seconds({{"real_time", 250.0}, {"time_unit", "us"}}), 250e-6);
    EXPECT_DOUBLE_EQ(kh::real_time_seconds({{"real_time", 2.0}, {"time_unit", "ms"}}), 2e-3);
    EXPECT_THROW(kh::real_time_seconds({{"real_time", 2.0}, {"time_unit", "h"}}),
                 std::invalid_argument);
    EXPECT_THROW(kh::real_time_seconds({{"time_unit", "us"}}), std::invalid_argument);
}

TEST(ResultsJson, MedianRatesAreBytesOverMedianTime)
{
    // 1e6 bytes in 100 us = 10 GB/s; 2e5 flops in 100 us = 2 GFlop/s (tolerance 1e-12 relative).
    json doc = kh::make_results_document(json::object());
    json median = {{"name", "spmv/sellp/double/m_median"}, {"run_type", "aggregate"},
                   {"aggregate_name", "median"}, {"real_time", 100.0}, {"time_unit", "us"},
                   {"bytes_read", 8e5}, {"bytes_written", 2e5}, {"flops", 2e5},
                   {"GBps", 9.5}, {"GFlops", 1.9}};
    json stddev = median;
    stddev["aggregate_name"] = "stddev";
    stddev["GBps"] = 0.25;
    doc["benchmarks"] = {median, stddev};
    kh::MachineProfile m;
    m.read_gbps = 20.0;
    m.triad_gbps = 40.0;
    kh::fix_aggregate_rates(doc, m);
    const auto& b = doc["benchmarks"][0];
    EXPECT_NEAR(b["GBps"].get<double>(), 10.0, 1e-11);
    EXPECT_NEAR(b["GFlops"].get<double>(), 2.0, 1e-12);
    EXPECT_NEAR(b["bw_frac_read"].get<double>(), 0.5, 1e-12);
    EXPECT_NEAR(b["bw_frac_triad"].get<double>(), 0.25, 1e-12);
    EXPECT_EQ(doc["benchmarks"][1]["GBps"], 0.25);  // stddev untouched
}

TEST(ResultsJson, WritesPrettyJsonCreatingDirectories)
{
    const auto dir = std::filesystem::temp_directory_path() / "kbench_test_results_json";
    std::filesystem::remove_all(dir);
    const auto file = dir / "NVIDIA_H200" / "anzt2015" / "table3" / "results.json";
    kh::write_json_file({{"a", 1}}, file.string());
    std::ifstream in(file);
    ASSERT_TRUE(in.good());
    EXPECT_EQ(json::parse(in), (json{{"a", 1}}));
    std::filesystem::remove_all(dir);
}

namespace {

/// The names of the files in `dir` that end in ".tmp".
std::vector<std::string> temp_files(const std::filesystem::path& dir)
{
    std::vector<std::string> found;
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
        const std::string name = e.path().filename().string();
        if (name.size() > 4 && name.substr(name.size() - 4) == ".tmp") found.push_back(name);
    }
    return found;
}

std::string read_text(const std::filesystem::path& file)
{
    std::ifstream in(file);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

TEST(ResultsJson, AFailedSerializationLeavesTheOldFileAndNoTemporaryFile)
{
    const auto dir = std::filesystem::temp_directory_path() / "kbench_test_atomic_serialize";
    std::filesystem::remove_all(dir);
    const auto file = dir / "results.json";
    kh::write_json_file({{"a", 1}}, file.string());
    const std::string before = read_text(file);
    try {
        kh::write_json_file({{"a", std::string("\xff not UTF-8")}}, file.string());
        ADD_FAILURE() << "a string that is not UTF-8 was written";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find(file.string()), std::string::npos) << e.what();
    }
    EXPECT_EQ(read_text(file), before);
    EXPECT_TRUE(temp_files(dir).empty());
    std::filesystem::remove_all(dir);
}

// A write cut off mid-way: a child process whose files may not grow past 4 kB writes 200 kB.
TEST(ResultsJson, AWriteCutOffMidWayLeavesTheOldFileAndNoTemporaryFile)
{
    const auto dir = std::filesystem::temp_directory_path() / "kbench_test_atomic_cut_off";
    std::filesystem::remove_all(dir);
    const auto file = dir / "results.json";
    kh::write_json_file({{"a", 1}}, file.string());
    const std::string before = read_text(file);
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        std::signal(SIGXFSZ, SIG_IGN);  // a write past the limit fails (EFBIG) instead
        const rlimit limit{4096, 4096};
        ::setrlimit(RLIMIT_FSIZE, &limit);
        try {
            kh::write_json_file({{"a", std::string(200000, 'x')}}, file.string());
        } catch (const std::runtime_error&) {
            std::_Exit(0);
        }
        std::_Exit(1);  // the write should have failed
    }
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0) << "write_json_file did not throw past the size limit";
    EXPECT_EQ(read_text(file), before);
    EXPECT_TRUE(temp_files(dir).empty());
    std::filesystem::remove_all(dir);
}

TEST(ResultsJson, TemporaryFilesOfKilledWritersAreRemovedAndOthersKept)
{
    const auto dir = std::filesystem::temp_directory_path() / "kbench_test_stale_temp";
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    const pid_t gone = ::fork();  // a process that has ended: its pid names no writer
    ASSERT_GE(gone, 0);
    if (gone == 0) std::_Exit(0);
    ::waitpid(gone, nullptr, 0);
    const std::vector<std::string> names = {
        ".results.json." + std::to_string(gone) + ".tmp",       // killed writer: removed
        ".table.md." + std::to_string(::getpid()) + ".tmp",     // a running writer: kept
        "notes.tmp", "results.json"};                           // not temporary files: kept
    for (const auto& n : names) std::ofstream(dir / n) << "x";
    EXPECT_EQ(kh::remove_stale_temp_files(dir.string()), 1);
    EXPECT_FALSE(std::filesystem::exists(dir / names[0]));
    for (std::size_t i = 1; i < names.size(); ++i)
        EXPECT_TRUE(std::filesystem::exists(dir / names[i])) << names[i];
    EXPECT_EQ(kh::remove_stale_temp_files((dir / "missing").string()), 0);
    std::filesystem::remove_all(dir);
}

TEST(ResultsJson, NonFiniteBenchmarkNumbersBecomeNull)
{
    const std::string text = R"({"benchmarks": [{"name": "a", "cv": NaN, "x": -Infinity,
        "y": Infinity
    , "label": "NaN: 1", "z": 2.5}]})";
    const json j = kh::parse_benchmark_json(text);
    const auto& b = j["benchmarks"][0];
    EXPECT_TRUE(b["cv"].is_null());
    EXPECT_TRUE(b["x"].is_null());
    EXPECT_TRUE(b["y"].is_null());
    EXPECT_EQ(b["label"], "NaN: 1");
    EXPECT_EQ(b["z"], 2.5);
}
