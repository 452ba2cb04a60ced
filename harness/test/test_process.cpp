#include "harness/core/git_info.hpp"
#include "harness/core/process.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

namespace kh = kbench::harness;

TEST(Process, ReportsExitCodesAndCapturesStdout)
{
    EXPECT_EQ(kh::run_process({"true"}).exit_code, 0);
    EXPECT_EQ(kh::run_process({"false"}).exit_code, 1);
    EXPECT_EQ(kh::run_process({"kbench-no-such-program"}, false, true).exit_code, 127);
    const auto echo = kh::run_process({"echo", "a b", "c"}, true);
    EXPECT_EQ(echo.out, "a b c\n");
    EXPECT_THROW(kh::run_process({}), std::invalid_argument);
}

namespace {

/// Whether a process whose command line is exactly `argv` (e.g. {"sleep", "31.5"}) runs.
bool running(const std::vector<std::string>& argv)
{
    std::string want;
    for (const auto& a : argv) want += a + '\0';
    for (const auto& e : std::filesystem::directory_iterator("/proc")) {
        std::ifstream in(e.path() / "cmdline");
        const std::string cmdline{std::istreambuf_iterator<char>(in), {}};
        std::ifstream stat(e.path() / "stat");
        std::string pid, comm, state;
        stat >> pid >> comm >> state;
        if (cmdline == want && state != "Z") return true;
    }
    return false;
}

/// Whether a process whose command line is exactly `argv` still runs after up to 5 s of
/// polling: a SIGKILL is delivered asynchronously, so on a loaded machine the process may
/// outlive the kill() call by a few milliseconds.
bool still_running(const std::vector<std::string>& argv)
{
    const auto t0 = std::chrono::steady_clock::now();
    while (running(argv)) {
        if (std::chrono::steady_clock::now() - t0 > std::chrono::seconds(5)) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
}

double seconds_since(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

TEST(Process, ATimeoutEndsTheWholeProcessGroupPromptly)
{
    // sh starts a sleep of its own (in its process group) and waits: both must end.
    const auto t0 = std::chrono::steady_clock::now();
    const auto r = kh::run_process({"sh", "-c", "sleep 31.5 & wait"}, false, false, 0.5);
    EXPECT_TRUE(r.timed_out);
    EXPECT_EQ(r.exit_code, 128 + SIGTERM);
    EXPECT_LT(seconds_since(t0), 10.0);
    EXPECT_FALSE(still_running({"sleep", "31.5"}))
        << "the timeout left a child of the group running";
}

TEST(Process, AChildThatIgnoresSigtermIsKilled)
{
    const auto t0 = std::chrono::steady_clock::now();
    const auto r = kh::run_process({"sh", "-c", "trap '' TERM; sleep 32.5"}, false, false, 0.2);
    EXPECT_TRUE(r.timed_out);
    EXPECT_LT(seconds_since(t0), 15.0);
    EXPECT_FALSE(still_running({"sleep", "32.5"}));
}

TEST(Process, ADescendantInAGroupOfItsOwnIsKilledToo)
{
    // As mpiexec's ranks: sh (ignoring SIGTERM) starts a sleep in a session of its own.
    const auto r = kh::run_process({"sh", "-c", "trap '' TERM; setsid sleep 34.5 & wait"}, false,
                                   false, 0.2);
    EXPECT_TRUE(r.timed_out);
    EXPECT_FALSE(still_running({"sleep", "34.5"}));
}

TEST(Process, WithinItsTimeoutAChildEndsAsUsualAndItsOutputIsCaptured)
{
    const auto r = kh::run_process({"sh", "-c", "echo out; exit 4"}, true, false, 30);
    EXPECT_FALSE(r.timed_out);
    EXPECT_EQ(r.exit_code, 4);
    EXPECT_EQ(r.out, "out\n");
    const auto big = kh::run_process({"head", "-c", "1000000", "/dev/zero"}, true, false, 30);
    EXPECT_EQ(big.out.size(), 1000000u);
}

TEST(GitInfo, OutsideACheckoutIsUnknown)
{
    ::unsetenv("KBENCH_GIT_SHA");
    const auto dir = std::filesystem::temp_directory_path() / "kbench_test_not_git";
    std::filesystem::create_directories(dir);
    const auto info = kh::git_info(dir.string());
    EXPECT_EQ(info.sha, "unknown");
    EXPECT_FALSE(info.dirty);
    std::filesystem::remove_all(dir);
}

TEST(GitInfo, OutsideACheckoutTheEnvironmentNamesTheCommit)
{
    const auto dir = std::filesystem::temp_directory_path() / "kbench_test_not_git_env";
    std::filesystem::create_directories(dir);
    ::setenv("KBENCH_GIT_SHA", "0123456789abcdef0123456789abcdef01234567", 1);
    ::setenv("KBENCH_GIT_DIRTY", "0", 1);
    auto info = kh::git_info(dir.string());
    EXPECT_EQ(info.sha, "0123456789abcdef0123456789abcdef01234567");
    EXPECT_FALSE(info.dirty);
    ::unsetenv("KBENCH_GIT_DIRTY");  // unset: assume uncommitted changes
    info = kh::git_info(dir.string());
    EXPECT_TRUE(info.dirty);
    ::unsetenv("KBENCH_GIT_SHA");
    std::filesystem::remove_all(dir);
}

TEST(GitInfo, TheEnvironmentWinsOverAStaleCheckout)
{
    ::setenv("KBENCH_GIT_SHA", "89abcdef0123456789abcdef0123456789abcdef", 1);
    ::setenv("KBENCH_GIT_DIRTY", "0", 1);
    const auto info = kh::git_info(KBENCH_SOURCE_DIR);
    EXPECT_EQ(info.sha, "89abcdef0123456789abcdef0123456789abcdef");
    EXPECT_FALSE(info.dirty);
    ::unsetenv("KBENCH_GIT_DIRTY");
    ::unsetenv("KBENCH_GIT_SHA");
}

TEST(GitInfo, SourceTreeShaIsFortyHexDigitsOrUnknown)
{
    const auto info = kh::git_info(KBENCH_SOURCE_DIR);
    if (info.sha != "unknown") {
        EXPECT_EQ(info.sha.size(), 40u);
        EXPECT_TRUE(std::all_of(info.sha.begin(), info.sha.end(),
                                [](unsigned char c) { return std::isxdigit(c); }));
    } else {
        EXPECT_FALSE(info.dirty);
    }
}
