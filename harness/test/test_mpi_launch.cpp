// What the MPI runners take from harness/mpi/mpi_launch.hpp besides the launch itself: the
// persistent cache directory (hypergraph partitions), KBENCH_SHARE_GPUS and the scratch files.
#include "harness/mpi/mpi_launch.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace kbench::harness {
namespace {

namespace fs = std::filesystem;

/// Sets an environment variable for one scope, restoring it after.
class ScopedEnv {
public:
    ScopedEnv(const char* name, const char* value) : name_(name)
    {
        if (const char* old = std::getenv(name)) old_ = old, had_ = true;
        if (value != nullptr) setenv(name, value, 1);
        else unsetenv(name);
    }
    ~ScopedEnv()
    {
        if (had_) setenv(name_, old_.c_str(), 1);
        else unsetenv(name_);
    }
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;

private:
    const char* name_;
    std::string old_;
    bool had_ = false;
};

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

}  // namespace
}  // namespace kbench::harness
