// What the MPI runners take from harness/mpi/mpi_launch.hpp besides the launch itself: the
// persistent cache directory (hypergraph partitions), KBENCH_SHARE_GPUS and the scratch files.
#include "harness/mpi/mpi_launch.hpp"

#include "harness/test/test_util.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace kbench::harness {
namespace {

namespace fs = std::filesystem;

using test::ScopedEnv;

TEST(CacheDir, KbenchCacheDirIsCreatedAndTakesPrecedence)
{
    ScratchDir scratch;
    const fs::path want = scratch.path / "a" / "b";
    ScopedEnv k("KBENCH_CACHE_DIR", want.c_str());
    ScopedEnv x("XDG_CACHE_HOME", (scratch.path / "xdg").c_str());
    EXPECT_EQ(cache_dir(), want);
    EXPECT_TRUE(fs::is_directory(want));
}

TEST(CacheDir, FallsBackToXdgThenHome)
{
    ScratchDir scratch;
    ScopedEnv k("KBENCH_CACHE_DIR", nullptr);
    {
        ScopedEnv x("XDG_CACHE_HOME", (scratch.path / "xdg").c_str());
        EXPECT_EQ(cache_dir(), scratch.path / "xdg" / "kbench");
    }
    ScopedEnv x("XDG_CACHE_HOME", nullptr);
    ScopedEnv h("HOME", (scratch.path / "home").c_str());
    EXPECT_EQ(cache_dir(), scratch.path / "home" / ".cache" / "kbench");
}

TEST(CacheDir, EmptyWhenNothingIsSetOrItCannotBeCreated)
{
    ScopedEnv x("XDG_CACHE_HOME", nullptr);
    {
        ScopedEnv k("KBENCH_CACHE_DIR", nullptr);
        ScopedEnv h("HOME", nullptr);
        EXPECT_TRUE(cache_dir().empty());
    }
    ScratchDir scratch;
    const fs::path file = scratch.path / "plain-file";
    std::FILE* f = std::fopen(file.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fclose(f);
    ScopedEnv k("KBENCH_CACHE_DIR", (file / "sub").c_str());  // below a file: not creatable
    EXPECT_TRUE(cache_dir().empty());
}

TEST(SharedGpus, UnsetIsZeroAndBadValuesAreNamed)
{
    {
        ScopedEnv s("KBENCH_SHARE_GPUS", nullptr);
        EXPECT_EQ(shared_gpus(), 0);
    }
    {
        ScopedEnv s("KBENCH_SHARE_GPUS", "4");
        EXPECT_EQ(shared_gpus(), 4);
    }
    for (const char* bad : {"0", "x", "2x", "65", "-1"}) {
        ScopedEnv s("KBENCH_SHARE_GPUS", bad);
        try {
            (void)shared_gpus();
            ADD_FAILURE() << "accepted " << bad;
        } catch (const std::invalid_argument& e) {
            EXPECT_NE(std::string(e.what()).find("KBENCH_SHARE_GPUS"), std::string::npos);
        }
    }
}

TEST(ScratchDir, DistinctRunsGetDistinctFilesAndTheDirectoryGoes)
{
    fs::path where;
    {
        ScratchDir d;
        where = d.path;
        EXPECT_TRUE(fs::is_directory(where));
        EXPECT_NE(d.file_for("fig14/a/P=2/nccl"), d.file_for("fig14/a/P=2/host_staged"));
        EXPECT_EQ(d.file_for("x"), d.file_for("x"));
    }
    EXPECT_FALSE(fs::exists(where));
}

TEST(ScratchDir, AResumeKeyGivesTheSameDirectoryUnderTheCacheAndNoKeyAFreshOne)
{
    ScratchDir scratch;
    ScopedEnv k("KBENCH_CACHE_DIR", (scratch.path / "cache").c_str());
    fs::path first;
    {
        ScratchDir a{"sha|zianekhodja2014/fig9|set"};
        ScratchDir b{"sha|zianekhodja2014/fig9|set"};
        ScratchDir other{"sha|zianekhodja2014/fig9|other set"};
        EXPECT_TRUE(a.resumable);
        EXPECT_EQ(a.path, b.path);
        EXPECT_NE(a.path, other.path);
        EXPECT_EQ(a.path.parent_path(), scratch.path / "cache" / "runs");
        first = a.path;
    }
    EXPECT_FALSE(fs::exists(first));  // a run that ended leaves nothing
    ScratchDir none{""};
    EXPECT_FALSE(none.resumable);
    EXPECT_NE(none.path.parent_path(), scratch.path / "cache" / "runs");
}

TEST(RunMpiWorker, AFinishedWorkersObjectIsReusedAndAFailedOneIsRunAgain)
{
    ScratchDir d;
    const std::string file = d.file_for("fig9/a/P=2");
    const std::vector<std::string> writes = {"sh", "-c", "echo '{\"seconds\": 2}' > " + file};
    nlohmann::json e = run_mpi_worker(writes, file);
    EXPECT_EQ(e.at("seconds"), 2);
    EXPECT_FALSE(e.contains("reused"));
    // The file of a finished worker is there: nothing runs (`false` would fail).
    e = run_mpi_worker({"false"}, file);
    EXPECT_EQ(e.at("seconds"), 2);
    EXPECT_EQ(e.at("reused"), true);
    // A failed worker's object is not reused: the command runs again.
    const std::vector<std::string> fails = {
        "sh", "-c", "echo '{\"error\": \"boom\"}' > " + file + "; exit 3"};
    fs::remove(file);
    e = run_mpi_worker(fails, file);
    EXPECT_EQ(e.at("exit_code"), 3);
    e = run_mpi_worker(writes, file);
    EXPECT_EQ(e.at("seconds"), 2);
    EXPECT_FALSE(e.contains("reused"));
}

// A stand-in for mpiexec: `sh -c SCRIPT -n P` (sh's $0 is "-n", so run_mpi_worker reads P from
// the command line as from `mpiexec -n P ...`); SCRIPT plays the ranks' rank files.
std::vector<std::string> fake_launch(const std::string& script, int ranks)
{
    return {"sh", "-c", script, "-n", std::to_string(ranks)};
}

bool leaves_nothing(const std::string& file, int ranks)
{
    bool nothing = !fs::exists(file);
    for (int r = 0; r < ranks; ++r) nothing = nothing && !fs::exists(rank_file(file, r));
    return nothing;
}

TEST(RunMpiWorker, AFailedLaunchNamesTheRanksThatWroteNothingAndThoseThatFailed)
{
    ScratchDir d;
    const std::string file = d.file_for("fig14/a/P=3");
    const std::string script = "echo '{\"rank\": 0, \"finished\": true}' > " +
                               rank_file(file, 0) + "; echo '{\"rank\": 2, \"error\": \"boom\"}' > " +
                               rank_file(file, 2) + "; echo '{\"partial\": 1}' > " + file + "; exit 3";
    const nlohmann::json e = run_mpi_worker(fake_launch(script, 3), file);
    ASSERT_TRUE(e.contains("error"));
    const std::string what = e.at("error");
    EXPECT_NE(what.find("rank 1 of 3 ended without finishing (no " + rank_file(file, 1)),
              std::string::npos) << what;
    EXPECT_NE(what.find("rank 2 failed: boom"), std::string::npos) << what;
    EXPECT_EQ(what.find("rank 0"), std::string::npos) << what;
    EXPECT_EQ(e.at("exit_code"), 3);
    EXPECT_TRUE(leaves_nothing(file, 3));  // no partial object to be reused
}

TEST(RunMpiWorker, ALaunchPastTheTimeoutIsKilledAndItsUnfinishedRanksNamed)
{
    ScratchDir d;
    const std::string file = d.file_for("fig14/a/P=2");
    ScopedEnv t("KBENCH_RANK_TIMEOUT_S", "1");
    const std::string script = "echo '{\"rank\": 0, \"finished\": true}' > " +
                               rank_file(file, 0) + "; echo '{}' > " + file + "; sleep 33.5";
    const auto t0 = std::chrono::steady_clock::now();
    try {
        (void)run_mpi_worker(fake_launch(script, 2), file);
        ADD_FAILURE() << "no timeout";
    } catch (const std::runtime_error& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("KBENCH_RANK_TIMEOUT_S=1 s"), std::string::npos) << what;
        EXPECT_NE(what.find("rank 1 of 2 did not finish (no " + rank_file(file, 1)),
                  std::string::npos) << what;
    }
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 10);
    EXPECT_TRUE(leaves_nothing(file, 2));
}

TEST(RankTimeout, AnHourByDefaultZeroForNoneAndBadValuesNamed)
{
    {
        ScopedEnv t("KBENCH_RANK_TIMEOUT_S", nullptr);
        EXPECT_EQ(rank_timeout_seconds(), 3600);
    }
    {
        ScopedEnv t("KBENCH_RANK_TIMEOUT_S", "2.5");
        EXPECT_EQ(rank_timeout_seconds(), 2.5);
    }
    {
        ScopedEnv t("KBENCH_RANK_TIMEOUT_S", "0");
        EXPECT_EQ(rank_timeout_seconds(), 0);
    }
    for (const char* bad : {"x", "-1", "5s", "nan", "inf"}) {
        ScopedEnv t("KBENCH_RANK_TIMEOUT_S", bad);
        try {
            (void)rank_timeout_seconds();
            ADD_FAILURE() << "accepted " << bad;
        } catch (const std::runtime_error& e) {
            EXPECT_NE(std::string(e.what()).find("KBENCH_RANK_TIMEOUT_S"), std::string::npos);
        }
    }
}

TEST(ScratchDir, AResumableOneOutlivesAnExceptionAndAFreshOneDoesNot)
{
    ScratchDir scratch;
    ScopedEnv k("KBENCH_CACHE_DIR", (scratch.path / "cache").c_str());
    fs::path resumable, fresh;
    try {
        ScratchDir a{"sha|yamazaki2014/fig14|set"};
        ScratchDir b;
        resumable = a.path;
        fresh = b.path;
        throw std::runtime_error("a launch timed out");
    } catch (const std::runtime_error&) {
    }
    EXPECT_TRUE(fs::is_directory(resumable));  // a run started again resumes from it
    EXPECT_FALSE(fs::exists(fresh));
    fs::remove_all(resumable);
}

}  // namespace
}  // namespace kbench::harness
