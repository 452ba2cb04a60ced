#include "harness/cli/profile.hpp"

#include "harness/core/ncu_csv.hpp"
#include "harness/core/process.hpp"
#include "harness/core/registry.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <unistd.h>

namespace kbench::harness {

namespace fs = std::filesystem;

std::string regex_escape(const std::string& text)
{
    static const std::string special = R"(\^$.|?*+()[]{}/)";
    std::string out;
    for (const char c : text) {
        if (special.find(c) != std::string::npos) out += '\\';
        out += c;
    }
    return out;
}

std::vector<std::string> ncu_command(const ProfileOptions& options, const std::string& self,
                                     const std::string& json_out)
{
    const SpmvBenchmarkName b = parse_spmv_benchmark_name(options.name);
    std::vector<std::string> cmd{
        options.ncu, "--nvtx", "--nvtx-include", "spmv_" + b.kernel + "/", "--launch-count", "1",
        "--metrics", "dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum",
        "--clock-control", "none", "--print-units", "base", "--csv", self, "bench", "spmv",
        "--filter", "^" + regex_escape(options.name) + "$", "--repetitions", "1", "--min-time", "0",
        "--kernels", b.kernel, "--precision", b.precision, "--no-machine", "--json", json_out};
    if (!options.source.set.empty()) {
        cmd.insert(cmd.end(), {"--set", options.source.set});
    }
    if (!options.source.matrix_dir.empty()) {
        cmd.insert(cmd.end(), {"--matrix-dir", options.source.matrix_dir});
    }
    if (options.source.real) cmd.push_back("--real");
    return cmd;
}

int run_profile(const ProfileOptions& options)
{
    const SpmvBenchmarkName b = parse_spmv_benchmark_name(options.name);
    const std::string self = fs::read_symlink("/proc/self/exe").string();
    const std::string json_out =
        (fs::temp_directory_path() / fmt::format("kbench-profile-{}.json", getpid())).string();
    const auto cmd = ncu_command(options, self, json_out);
    fmt::print(stderr, "kbench: {}\n", join(cmd, " "));
    const ProcessResult ncu = run_process(cmd, true);
    if (ncu.exit_code != 0) {
        throw std::runtime_error(fmt::format("ncu exited with {} (is '{}' Nsight Compute, and "
                                             "may this user read GPU counters?); output:\n{}",
                                             ncu.exit_code, options.ncu, ncu.out));
    }
    const auto kernels = parse_ncu_csv(ncu.out);
    if (kernels.empty()) {
        throw std::runtime_error("ncu profiled no kernel inside the NVTX range spmv_" + b.kernel +
                                 "/ (does the benchmark name exist in the set?)");
    }
    std::ifstream in(json_out);
    if (!in) throw std::runtime_error("the profiled run wrote no results file " + json_out);
    const nlohmann::json doc = nlohmann::json::parse(in);
    fs::remove(json_out);
    const nlohmann::json* bench = nullptr;
    for (const auto& e : doc.at("benchmarks")) {
        if (e.value("run_name", e.value("name", "")) == options.name) bench = &e;
    }
    if (bench == nullptr || !bench->contains("bytes_read")) {
        throw std::runtime_error("the profiled run has no (error-free) result for " + options.name);
    }
    const auto& k = kernels.front();
    auto metric = [&](const char* name) {
        const auto it = k.metrics.find(name);
        return it == k.metrics.end() ? 0.0 : it->second;
    };
    const double read = metric("dram__bytes_read.sum"), write = metric("dram__bytes_write.sum");
    const double model_read = (*bench)["bytes_read"].get<double>();
    const double model_write = (*bench)["bytes_written"].get<double>();
    fmt::print("benchmark         {}\n", options.name);
    fmt::print("kernel            {}\n", k.name);
    fmt::print("{:<18}{:>16} {:>16} {:>9}\n", "", "measured (B)", "model (B)", "ratio");
    fmt::print("{:<18}{:>16.0f} {:>16.0f} {:>9.3f}\n", "DRAM bytes read", read, model_read,
               model_read > 0 ? read / model_read : 0.0);
    fmt::print("{:<18}{:>16.0f} {:>16.0f} {:>9.3f}\n", "DRAM bytes written", write, model_write,
               model_write > 0 ? write / model_write : 0.0);
    fmt::print("duration          {:.3f} us\n", metric("gpu__time_duration.sum") * 1e6);
    return 0;
}

}  // namespace kbench::harness
