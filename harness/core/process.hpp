// Running child processes (git, ncu, python, mpiexec) without a shell, so arguments need no
// quoting.
#pragma once

#include <string>
#include <vector>

namespace kbench::harness {

/// Result of a finished child process.
struct ProcessResult {
    int exit_code = -1;      // exit status; 128 + signal number when killed by a signal
    std::string out;         // captured stdout (empty unless captured)
    bool timed_out = false;  // ended by run_process at its timeout
};

/// Runs argv[0] (looked up in PATH) with the arguments argv[1..] and waits for it. stdout is
/// captured when `capture_stdout`, else inherited; stderr is inherited unless `quiet_stderr`.
/// The child gets SIGTERM if this process dies first (PR_SET_PDEATHSIG; a mpiexec then ends its
/// ranks), so a kbench killed mid-way leaves no child running. With timeout_s > 0 the child
/// runs in a process group of its own with stdin from /dev/null, and when it has not ended
/// after timeout_s seconds the whole group gets SIGTERM, then SIGKILL 5 s later, and the result
/// says timed_out. Exit code 127 when the program cannot be started. Throws
/// std::invalid_argument for an empty argv and std::system_error when fork/pipe/waitpid fail.
ProcessResult run_process(const std::vector<std::string>& argv, bool capture_stdout = false,
                          bool quiet_stderr = false, double timeout_s = 0);

}  // namespace kbench::harness
