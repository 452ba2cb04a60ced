#include "harness/core/process.hpp"

#include <cerrno>
#include <fcntl.h>
#include <stdexcept>
#include <sys/wait.h>
#include <system_error>
#include <unistd.h>

namespace kbench::harness {

ProcessResult run_process(const std::vector<std::string>& argv, bool capture_stdout,
                          bool quiet_stderr)
{
    if (argv.empty()) throw std::invalid_argument("run_process: empty argv");
    int fds[2] = {-1, -1};
    if (capture_stdout && pipe(fds) != 0) {
        throw std::system_error(errno, std::generic_category(), "pipe");
    }
    const pid_t pid = fork();
    if (pid < 0) throw std::system_error(errno, std::generic_category(), "fork");
    if (pid == 0) {
        if (capture_stdout) {
            dup2(fds[1], STDOUT_FILENO);
            close(fds[0]);
            close(fds[1]);
        }
        if (quiet_stderr) {
            const int null = open("/dev/null", O_WRONLY);
            if (null >= 0) dup2(null, STDERR_FILENO);
        }
        std::vector<char*> args;
        for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
        args.push_back(nullptr);
        execvp(args[0], args.data());
        _exit(127);
    }
    ProcessResult result;
    if (capture_stdout) {
        close(fds[1]);
        char buf[4096];
        ssize_t got = 0;
        while ((got = read(fds[0], buf, sizeof buf)) > 0 || (got < 0 && errno == EINTR)) {
            if (got > 0) result.out.append(buf, static_cast<std::size_t>(got));
        }
        close(fds[0]);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) throw std::system_error(errno, std::generic_category(), "waitpid");
    }
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return result;
}

}  // namespace kbench::harness
