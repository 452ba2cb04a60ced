#include "harness/git_info.hpp"
#include "harness/process.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
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
    const auto dir = std::filesystem::temp_directory_path() / "kbench_test_not_git";
    std::filesystem::create_directories(dir);
    const auto info = kh::git_info(dir.string());
    EXPECT_EQ(info.sha, "unknown");
    EXPECT_FALSE(info.dirty);
    std::filesystem::remove_all(dir);
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
