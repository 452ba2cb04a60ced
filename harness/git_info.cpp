#include "harness/git_info.hpp"

#include "harness/process.hpp"

#include <algorithm>
#include <cctype>

namespace kbench::harness {

GitInfo git_info(const std::string& source_dir)
{
    GitInfo info;
    try {
        auto head = run_process({"git", "-C", source_dir, "rev-parse", "HEAD"}, true, true);
        std::string sha = head.out;
        sha.erase(std::remove_if(sha.begin(), sha.end(),
                                 [](unsigned char c) { return std::isspace(c); }),
                  sha.end());
        const bool hex = std::all_of(sha.begin(), sha.end(),
                                     [](unsigned char c) { return std::isxdigit(c); });
        if (head.exit_code != 0 || sha.size() != 40 || !hex) return info;
        info.sha = sha;
        auto status = run_process({"git", "-C", source_dir, "status", "--porcelain"}, true, true);
        info.dirty = status.exit_code != 0 || !status.out.empty();
    } catch (...) {
        return GitInfo{};
    }
    return info;
}

}  // namespace kbench::harness
