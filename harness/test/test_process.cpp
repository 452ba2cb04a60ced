#include "harness/core/git_info.hpp"
#include "harness/core/process.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>

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
