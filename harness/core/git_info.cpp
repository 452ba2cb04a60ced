#include "harness/core/git_info.hpp"

#include "harness/core/process.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <optional>
#include <string_view>

namespace kbench::harness {

namespace {
/// A tree copied without its .git, or with a stale one (e.g. onto an offline GPU host), names
/// its commit through KBENCH_GIT_SHA and KBENCH_GIT_DIRTY (0 or 1); when set, they win.
std::optional<GitInfo> git_info_from_environment()
{
    const char* sha = std::getenv("KBENCH_GIT_SHA");
    if (sha == nullptr || *sha == '\0') return std::nullopt;
    GitInfo info;
    info.sha = sha;
    const char* dirty = std::getenv("KBENCH_GIT_DIRTY");
    info.dirty = dirty == nullptr || std::string_view{dirty} != "0";
    return info;
}
}  // namespace

GitInfo git_info(const std::string& source_dir)
{
    if (const std::optional<GitInfo> env = git_info_from_environment()) return *env;
    GitInfo info;  // sha "unknown" unless the checkout names one
    try {
        auto head = run_process({"git", "-C", source_dir, "rev-parse", "HEAD"}, true, true);
        std::string sha = head.out;
        sha.erase(std::remove_if(sha.begin(), sha.end(),
                                 [](unsigned char c) { return std::isspace(c); }),
                  sha.end());
        const bool hex = std::all_of(sha.begin(), sha.end(),
                                     [](unsigned char c) { return std::isxdigit(c); });
        if (head.exit_code != 0 || sha.size() != 40 || !hex) return info;  // not a checkout
        info.sha = sha;
        auto status = run_process({"git", "-C", source_dir, "status", "--porcelain"}, true, true);
        info.dirty = status.exit_code != 0 || !status.out.empty();
    } catch (...) {
        return GitInfo{};
    }
    return info;
}

}  // namespace kbench::harness
