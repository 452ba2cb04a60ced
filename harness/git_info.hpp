// Which source revision produced a results file.
#pragma once

#include <string>

namespace kbench::harness {

struct GitInfo {
    std::string sha = "unknown";  // 40 hex digits, or "unknown" outside a git checkout
    bool dirty = false;           // uncommitted changes (git status --porcelain non-empty)
};

/// Runs `git -C <source_dir> rev-parse HEAD` and `git status --porcelain`. Outside a checkout
/// (a tree copied to an offline GPU host) it uses $KBENCH_GIT_SHA, dirty unless
/// $KBENCH_GIT_DIRTY is 0, and otherwise {"unknown", false}. Never throws.
GitInfo git_info(const std::string& source_dir);

}  // namespace kbench::harness
