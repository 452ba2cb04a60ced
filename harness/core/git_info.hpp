// Which source revision produced a results file.
#pragma once

#include <string>

namespace kbench::harness {

struct GitInfo {
    std::string sha = "unknown";  // 40 hex digits, or "unknown" outside a git checkout
    bool dirty = false;           // uncommitted changes (git status --porcelain non-empty)
};

/// The commit of the source tree: $KBENCH_GIT_SHA when set (dirty unless $KBENCH_GIT_DIRTY is
/// 0; for a tree copied to a GPU host without its .git, or with a stale one), else `git -C
/// <source_dir> rev-parse HEAD` and `git status --porcelain`, else {"unknown", false}. Never
/// throws.
GitInfo git_info(const std::string& source_dir);

}  // namespace kbench::harness
