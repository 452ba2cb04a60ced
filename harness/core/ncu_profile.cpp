// Running kbench under Nsight Compute; see harness/core/ncu_profile.hpp.
#include "harness/core/ncu_profile.hpp"

#include "harness/core/process.hpp"
#include "harness/core/registry.hpp"

#include <fmt/format.h>

#include <cctype>
#include <stdexcept>

namespace kbench::harness {

std::string profile_range_name(const std::string& benchmark_name)
{
    if (benchmark_name.empty())
        throw std::invalid_argument("profile_range_name: benchmark name is empty, expected "
                                    "<family>/<variant>/...");
    std::string range = benchmark_name;
    for (char& c : range) {
        if (c == '/') c = ':';
        else if (c == '@' || c == '[' || c == ']' || c == '*' || c == ',' || c == '\\' ||
                 c == '"' || std::isspace(static_cast<unsigned char>(c)))
            c = '_';
    }
    return range;
}

std::string profile_nvtx_include(const std::string& benchmark_name)
{
    return "kbench@" + profile_range_name(benchmark_name) + "/";
}

std::vector<std::string> ncu_argv(const NcuRequest& request,
                                  const std::vector<std::string>& child)
{
    if (child.empty())
        throw std::invalid_argument("ncu_argv: child is empty, expected the program to profile");
    if (request.metrics.empty() && request.sections.empty())
        throw std::invalid_argument("ncu_argv: no metric and no section, expected at least one");
    std::vector<std::string> cmd{request.ncu, "--nvtx"};
    for (const std::string& e : request.nvtx_include) cmd.insert(cmd.end(), {"--nvtx-include", e});
    for (const std::string& e : request.nvtx_exclude) cmd.insert(cmd.end(), {"--nvtx-exclude", e});
    if (request.rename_by_range) cmd.insert(cmd.end(), {"--print-nvtx-rename", "kernel"});
    if (!request.metrics.empty()) cmd.insert(cmd.end(), {"--metrics", join(request.metrics, ",")});
    for (const std::string& s : request.sections) cmd.insert(cmd.end(), {"--section", s});
    cmd.insert(cmd.end(), {"--clock-control", "none", "--print-units", "base", "--csv"});
    cmd.insert(cmd.end(), child.begin(), child.end());
    return cmd;
}

std::vector<NcuKernel> run_ncu(const NcuRequest& request, const std::vector<std::string>& child,
                               const std::string& who)
{
    const std::vector<std::string> cmd = ncu_argv(request, child);
    fmt::print(stderr, "kbench: {}\n", join(cmd, " "));
    const ProcessResult ncu = run_process(cmd, true);
    if (ncu.exit_code != 0)
        throw std::runtime_error(fmt::format(
            "{}: ncu exited with {} (is '{}' Nsight Compute on PATH, may this user read GPU "
            "counters, does this ncu know every option?); output:\n{}",
            who, ncu.exit_code, request.ncu, ncu.out));
    // No header row: ncu profiled no kernel (e.g. "==PROF== No kernels were profiled."); the
    // caller says which filter matched nothing.
    if (ncu.out.find("\"ID\",") == std::string::npos) return {};
    try {
        return parse_ncu_csv(ncu.out, request.sections.empty() ? NcuText::reject : NcuText::keep);
    } catch (const std::invalid_argument& e) {
        throw std::runtime_error(fmt::format("{}: {}; ncu printed:\n{}", who, e.what(), ncu.out));
    }
}

void NcuTotals::add(const NcuKernel& k)
{
    const auto value = [&](const char* metric) {
        const auto it = k.metrics.find(metric);
        return it == k.metrics.end() ? 0.0 : it->second;
    };
    bytes_read += value(ncu_dram_read);
    bytes_written += value(ncu_dram_write);
    seconds += value(ncu_duration);
    ++kernels;
}

NcuTotals sum_kernels(const std::vector<NcuKernel>& kernels)
{
    NcuTotals t;
    for (const NcuKernel& k : kernels) t.add(k);
    return t;
}

}  // namespace kbench::harness
