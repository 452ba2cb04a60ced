// Which source revision produced a results file.
#pragma once

#include <string>

namespace kbench::harness {

struct GitInfo {
    std::string sha = "unknown";  // 40 hex digits, or "unknown" outside a git checkout
    bool dirty = false;           // uncommitted changes (git status --porcelain non-empty)
};

/// Runs `git -C <source_dir> rev-parse HEAD` and `git status --porcelain`. Never throws: a
/// missing git or a directory that is not a checkout gives {"unknown", false}.
GitInfo git_info(const std::string& source_dir);

}  // namespace kbench::harness
