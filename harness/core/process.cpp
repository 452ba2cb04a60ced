#include "harness/core/process.hpp"

#include <cctype>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <map>
#include <poll.h>
#include <sstream>
#include <stdexcept>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <system_error>
#include <unistd.h>

namespace kbench::harness {

namespace {

using Clock = std::chrono::steady_clock;

[[noreturn]] void fail(const char* what)
{
    throw std::system_error(errno, std::generic_category(), what);
}

/// In the child, before exec: dies with its parent, and with a timeout leads a process group of
/// its own (so that the timeout reaches every process it starts) and reads no terminal.
void prepare_child(pid_t parent, bool own_group)
{
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != parent) _exit(127);  // the parent died before prctl
    if (!own_group) return;
    ::setpgid(0, 0);
    const int null = open("/dev/null", O_RDONLY);
    if (null >= 0) dup2(null, STDIN_FILENO);
}

/// Whether the child `pid` has ended, without reaping it (its process group stays reserved).
bool has_ended(pid_t pid)
{
    siginfo_t info{};
    info.si_pid = 0;
    while (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0) {
        if (errno != EINTR) fail("waitid");
    }
    return info.si_pid == pid;
}

/// The processes descended from `pid` (by the parent pids of /proc/<p>/stat).
std::vector<pid_t> descendants(pid_t pid)
{
    std::multimap<pid_t, pid_t> children;  // parent -> child
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator("/proc", ec)) {
        const std::string name = e.path().filename().string();
        if (name.empty() || !std::isdigit(static_cast<unsigned char>(name[0]))) continue;
        std::ifstream stat(e.path() / "stat");
        std::string line;
        std::getline(stat, line);  // pid (comm) state ppid ...; comm may hold ") "
        const auto comm_end = line.rfind(") ");
        if (comm_end == std::string::npos) continue;
        std::istringstream rest(line.substr(comm_end + 2));
        char state = 0;
        pid_t parent = 0;
        if (rest >> state >> parent) children.emplace(parent, std::atoi(name.c_str()));
    }
    std::vector<pid_t> found{pid};
    for (std::size_t i = 0; i < found.size(); ++i) {
        const auto [first, last] = children.equal_range(found[i]);
        for (auto c = first; c != last; ++c) found.push_back(c->second);
    }
    found.erase(found.begin());
    return found;
}

/// Ends the process group led by `pid`: SIGTERM (mpiexec then ends its ranks, which run in
/// groups of their own), then, once the leader has ended or after 5 s, SIGKILL to the group and
/// to every process still descended from the leader.
void end_group(pid_t pid)
{
    ::kill(-pid, SIGTERM);
    const auto grace = Clock::now() + std::chrono::seconds(5);
    while (!has_ended(pid) && Clock::now() < grace) ::poll(nullptr, 0, 20);
    for (const pid_t p : descendants(pid)) ::kill(p, SIGKILL);
    ::kill(-pid, SIGKILL);
}

}  // namespace

ProcessResult run_process(const std::vector<std::string>& argv, bool capture_stdout,
                          bool quiet_stderr, double timeout_s)
{
    if (argv.empty()) throw std::invalid_argument("run_process: empty argv");
    const bool timed = timeout_s > 0;
    const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                             std::chrono::duration<double>(timed ? timeout_s : 0));
    int fds[2] = {-1, -1};
    if (capture_stdout && pipe(fds) != 0) fail("pipe");
    const pid_t parent = ::getpid();
    const pid_t pid = fork();
    if (pid < 0) fail("fork");
    if (pid == 0) {
        prepare_child(parent, timed);
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
    if (timed) ::setpgid(pid, pid);  // also here, so that no signal can miss the group
    ProcessResult result;
    int out = capture_stdout ? fds[0] : -1;
    if (capture_stdout) close(fds[1]);
    // Read stdout until it closes, then wait for the child; with a timeout, in steps of 50 ms.
    const auto expired = [&] { return timed && Clock::now() >= deadline; };
    while (out >= 0 && !expired()) {
        pollfd p{out, POLLIN, 0};
        if (::poll(&p, 1, timed ? 50 : -1) <= 0) continue;
        char buf[4096];
        const ssize_t got = read(out, buf, sizeof buf);
        if (got > 0) result.out.append(buf, static_cast<std::size_t>(got));
        else if (got == 0 || errno != EINTR) {
            close(out);
            out = -1;
        }
    }
    while (timed && !has_ended(pid) && !expired()) ::poll(nullptr, 0, 50);
    if (expired() && !has_ended(pid)) {
        end_group(pid);
        result.timed_out = true;
    }
    if (out >= 0) close(out);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) fail("waitpid");
    }
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return result;
}

}  // namespace kbench::harness
