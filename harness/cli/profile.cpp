// `kbench profile`; see harness/cli/profile.hpp.
#include "harness/cli/profile.hpp"

#include "harness/core/ncu_profile.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <unistd.h>

namespace kbench::harness {

namespace fs = std::filesystem;

int run_profile(const ProfileOptions& options)
{
    const NcuRequest request = profile_request(options);
    const std::string self = fs::read_symlink("/proc/self/exe").string();
    const std::string json_out =
        (fs::temp_directory_path() / fmt::format("kbench-profile-{}.json", getpid())).string();
    const std::vector<NcuKernel> kernels =
        run_ncu(request, profile_child(options, self, json_out), "kbench profile");
    nlohmann::json doc;
    {
        std::ifstream in(json_out);
        if (!in)
            throw std::runtime_error("kbench profile: the profiled run wrote no results file " +
                                     json_out);
        doc = nlohmann::json::parse(in);
    }
    fs::remove(json_out);
    if (kernels.empty())
        throw std::runtime_error(fmt::format(
            "kbench profile: ncu profiled no kernel inside the NVTX range {} (does the "
            "benchmark exist, e.g. its matrix in the set?)",
            profile_nvtx_include(options.name)));
    const models::Traffic model = model_traffic(doc, options.name);
    fmt::print("{}", format_profile_report(options.name, kernels, model, request));
    return 0;
}

}  // namespace kbench::harness
