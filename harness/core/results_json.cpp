#include "harness/core/results_json.hpp"

#include <benchmark/benchmark.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace kbench {

void to_json(nlohmann::json& j, const device_info& d)
{
    j = {{"name", d.name},
         {"sm_count", d.sm_count},
         {"compute_capability", d.compute_capability},
         {"sm_clock_mhz", d.sm_clock_mhz},
         {"memory_clock_mhz", d.memory_clock_mhz},
         {"memory_bus_width_bits", d.memory_bus_width_bits},
         {"global_memory_bytes", d.global_memory_bytes},
         {"l2_cache_bytes", d.l2_cache_bytes},
         {"ecc_enabled", d.ecc_enabled},
         {"driver_version", d.driver_version},
         {"runtime_version", d.runtime_version}};
}

}  // namespace kbench

namespace kbench::harness {

void to_json(nlohmann::json& j, const MachineProfile& m)
{
    j = {{"read_gbps", m.read_gbps},
         {"copy_gbps", m.copy_gbps},
         {"triad_gbps", m.triad_gbps},
         {"launch_latency_us", m.launch_latency_us},
         {"launch_sync_roundtrip_us", m.launch_sync_roundtrip_us},
         {"reduction_roundtrip_latency_us", m.reduction_roundtrip_latency_us},
         {"graph_node_us", m.graph_node_us},
         {"graph_while_iteration_us", m.graph_while_iteration_us},
         {"kernel_fixed_us", m.kernel_fixed_us},
         {"reduction_fixed_us", m.reduction_fixed_us},
         {"block_step_us", m.block_step_us},
         {"dgemm_gflops", m.dgemm_gflops},
         {"sgemm_gflops", m.sgemm_gflops},
         {"bandwidth_bytes", m.bandwidth_bytes},
         {"spmv_model",
          {{"dram_gbps", m.spmv.dram_gbps},
           {"l2_gbps", m.spmv.l2_gbps},
           {"l2_rmw_gbps", m.spmv.l2_rmw_gbps},
           {"dram_latency_us", m.spmv.dram_latency_us},
           {"l2_latency_us", m.spmv.l2_latency_us},
           {"launch_us", m.spmv.launch_us},
           {"l2_bytes", m.spmv.l2_bytes},
           {"sm_count", m.spmv.sm_count},
           {"max_threads_per_sm", m.spmv.max_threads_per_sm},
           {"max_blocks_per_sm", m.spmv.max_blocks_per_sm},
           {"load_factor", m.spmv.load_factor},
           {"sellp_efficiency", m.spmv.sellp_efficiency},
           {"csr_efficiency", m.spmv.csr_efficiency},
           {"gather_gbps", m.spmv.gather_gbps},
           {"gather_far_gbps", m.spmv.gather_far_gbps}}}};
}

void to_json(nlohmann::json& j, const GitInfo& g) { j = {{"sha", g.sha}, {"dirty", g.dirty}}; }

nlohmann::json benchmark_context()
{
    using Context = benchmark::BenchmarkReporter::Context;
    if (Context::executable_name == nullptr) Context::executable_name = "kbench";
    std::stringstream out, err;
    benchmark::JSONReporter reporter;
    reporter.SetOutputStream(&out);
    reporter.SetErrorStream(&err);
    reporter.ReportContext(Context{});
    reporter.Finalize();
    return nlohmann::json::parse(out.str()).at("context");
}

nlohmann::json make_results_document(nlohmann::json kbench_context)
{
    nlohmann::json context = benchmark_context();
    context["kbench_schema_version"] = results_schema_version;
    kbench_context["schema_version"] = results_schema_version;
    context["kbench"] = std::move(kbench_context);
    return {{"context", std::move(context)}, {"benchmarks", nlohmann::json::array()}};
}

nlohmann::json parse_benchmark_json(const std::string& text)
{
    static const std::regex non_finite(R"((":\s*)-?(NaN|Infinity)(\s*[,\n}]))");
    return nlohmann::json::parse(std::regex_replace(text, non_finite, "$1null$3"));
}

void append_benchmarks(nlohmann::json& doc, const nlohmann::json& run_output)
{
    if (!run_output.contains("benchmarks") || !run_output["benchmarks"].is_array()) {
        throw std::invalid_argument("append_benchmarks: the benchmark output has no "
                                    "\"benchmarks\" array");
    }
    auto& list = doc["benchmarks"];
    if (!list.is_array()) list = nlohmann::json::array();
    for (const auto& b : run_output["benchmarks"]) list.push_back(b);
}

double real_time_seconds(const nlohmann::json& benchmark)
{
    if (!benchmark.contains("real_time") || !benchmark["real_time"].is_number()) {
        throw std::invalid_argument("benchmark entry has no numeric real_time");
    }
    const std::string unit = benchmark.value("time_unit", "ns");
    double scale = 0.0;
    if (unit == "ns") scale = 1e-9;
    else if (unit == "us") scale = 1e-6;
    else if (unit == "ms") scale = 1e-3;
    else if (unit == "s") scale = 1.0;
    else throw std::invalid_argument("unknown time_unit '" + unit + "' (expected ns, us, ms, s)");
    return benchmark["real_time"].get<double>() * scale;
}

void fix_aggregate_rates(nlohmann::json& doc, const MachineProfile& machine)
{
    if (!doc.contains("benchmarks")) return;
    for (auto& b : doc["benchmarks"]) {
        const std::string agg = b.value("aggregate_name", "");
        if (b.value("run_type", "") != "aggregate" || (agg != "median" && agg != "mean")) continue;
        if (!b.contains("bytes_read") || !b.contains("bytes_written") || !b.contains("flops")) {
            continue;
        }
        const double seconds = real_time_seconds(b);
        if (!(seconds > 0.0)) continue;
        const double bytes = b["bytes_read"].get<double>() + b["bytes_written"].get<double>();
        const double gbps = bytes / seconds * 1e-9;
        b["GBps"] = gbps;
        b["GFlops"] = b["flops"].get<double>() / seconds * 1e-9;
        if (machine.read_gbps > 0.0) b["bw_frac_read"] = gbps / machine.read_gbps;
        if (machine.triad_gbps > 0.0) b["bw_frac_triad"] = gbps / machine.triad_gbps;
    }
}

bool is_run_context(const nlohmann::json::json_pointer& where)
{
    std::vector<std::string> path;  // reference tokens, outermost first
    for (auto p = where; !p.empty(); p = p.parent_pointer()) path.insert(path.begin(), p.back());
    auto is = [&](std::size_t i, std::initializer_list<const char*> keys) {
        return path.size() > i && std::find(keys.begin(), keys.end(), path[i]) != keys.end();
    };
    if (!is(0, {"context"}) || path.size() < 2) return false;
    if (!is(1, {"kbench", "kbench_schema_version"})) return true;  // Google Benchmark's context
    if (!is(1, {"kbench"})) return false;
    if (is(2, {"argv", "git", "gpu", "machine", "run_seconds"})) return true;
    return is(2, {"matrix_set"}) && is(3, {"manifest", "matrix_dir"});
}

namespace {

/// Erases the run-context members of the object `obj` found at `where`, descending into the
/// objects that hold some (/context, /context/kbench, /context/kbench/matrix_set).
void erase_run_context(nlohmann::json& obj, const nlohmann::json::json_pointer& where)
{
    static const std::set<std::string> holders = {"/context", "/context/kbench",
                                                  "/context/kbench/matrix_set"};
    for (auto it = obj.begin(); it != obj.end();) {
        const nlohmann::json::json_pointer member = where / it.key();
        if (is_run_context(member)) {
            it = obj.erase(it);
            continue;
        }
        if (it->is_object() && holders.count(member.to_string()) > 0)
            erase_run_context(*it, member);
        ++it;
    }
}

}  // namespace

nlohmann::json without_run_context(nlohmann::json doc)
{
    if (doc.is_object()) erase_run_context(doc, nlohmann::json::json_pointer());
    return doc;
}

bool same_results_but_for_context(const nlohmann::json& a, const nlohmann::json& b)
{
    return without_run_context(a) == without_run_context(b);
}

namespace {

/// The temporary file beside `p` that an atomic write goes through: .<name>.<pid>.tmp, the name
/// analysis/report.py's writer gives it for table.md and figure.png.
std::filesystem::path temp_path_for(const std::filesystem::path& p)
{
    return p.parent_path() / ("." + p.filename().string() + "." + std::to_string(::getpid()) +
                              ".tmp");
}

}  // namespace

void write_json_file(const nlohmann::json& doc, const std::string& path)
{
    namespace fs = std::filesystem;
    std::string text;
    try {
        text = doc.dump(2) + '\n';
    } catch (const nlohmann::json::exception& e) {  // e.g. a string that is not UTF-8
        throw std::runtime_error("cannot write results file '" + path + "': " + e.what());
    }
    const fs::path p(path);
    std::error_code ec;
    if (p.has_parent_path()) fs::create_directories(p.parent_path(), ec);
    const fs::path tmp = temp_path_for(p);
    std::ofstream out(tmp, std::ios::binary);
    out << text;
    out.close();
    if (out) fs::rename(tmp, p, ec);
    if (!out || ec) {
        std::error_code ignored;
        fs::remove(tmp, ignored);
        throw std::runtime_error("cannot write results file '" + path + "'" +
                                 (ec ? ": " + ec.message() : std::string()));
    }
}

int remove_stale_temp_files(const std::string& dir)
{
    static const std::regex temp_name(R"(\..+\.([0-9]+)\.tmp)");
    int removed = 0;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
        const std::string name = entry.path().filename().string();
        std::smatch m;
        if (!std::regex_match(name, m, temp_name) || !entry.is_regular_file(ec)) continue;
        const auto pid = static_cast<pid_t>(std::stol(m[1].str().substr(0, 9)));
        if (::kill(pid, 0) == 0 || errno != ESRCH) continue;  // its writer is still running
        if (std::filesystem::remove(entry.path(), ec)) ++removed;
    }
    return removed;
}

bool done_at(const nlohmann::json& doc, const GitInfo& head, const std::string& gpu_name,
             int shared)
{
    if (head.dirty || head.sha == "unknown" || !doc.is_object()) return false;
    const auto at = [&](const char* where) {
        const nlohmann::json::json_pointer p(where);
        return doc.contains(p) ? doc.at(p) : nlohmann::json();
    };
    const nlohmann::json shared_then = at("/context/kbench/shared_gpus");
    return at("/context/kbench/git/sha") == head.sha &&
           at("/context/kbench/git/dirty") == false &&
           (gpu_name.empty() || at("/context/kbench/gpu/name") == gpu_name) &&
           (shared_then.is_null() ? nlohmann::json(0) : shared_then) == shared;
}

StoreOutcome keep_or_write_results(const nlohmann::json& doc, const std::string& path)
{
    std::ifstream in(path);
    if (in) {
        const nlohmann::json stored =
            nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
        if (!stored.is_discarded() && same_results_but_for_context(stored, doc))
            return StoreOutcome::kept;
    }
    write_json_file(doc, path);
    return StoreOutcome::written;
}

}  // namespace kbench::harness
