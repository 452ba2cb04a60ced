// Running child processes (git, ncu, python) without a shell, so arguments need no quoting.
#pragma once

#include <string>
#include <vector>

namespace kbench::harness {

/// Result of a finished child process.
struct ProcessResult {
    int exit_code = -1;  // exit status; 128 + signal number when killed by a signal
    std::string out;     // captured stdout (empty unless captured)
};

/// Runs argv[0] (looked up in PATH) with the arguments argv[1..] and waits for it. stdout is
/// captured when `capture_stdout`, else inherited; stderr is inherited unless `quiet_stderr`.
/// Exit code 127 when the program cannot be started. Throws std::invalid_argument for an empty
/// argv and std::system_error when fork/pipe fail.
ProcessResult run_process(const std::vector<std::string>& argv, bool capture_stdout = false,
                          bool quiet_stderr = false);

}  // namespace kbench::harness
