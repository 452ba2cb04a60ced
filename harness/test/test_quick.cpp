// What a quick run (`kbench reproduce --quick`) reduces: harness/core/quick.hpp (sweeps, options,
// ranks, the default results root) and the quick matrix source of study_context.hpp.
#include "harness/core/quick.hpp"
#include "harness/core/resources.hpp"
#include "harness/core/study_context.hpp"
#include "harness/mpi/mpi_launch.hpp"

#include "harness/test/test_util.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace kbench::harness {
namespace {

namespace fs = std::filesystem;

using test::ScopedEnv;

TEST(QuickCap, KeepsTheValuesUpToTheCap)
{
    const std::vector<long> ns{10'000, 20'000, 50'000, 100'000, 200'000, 1'000'000};
    EXPECT_EQ(quick_cap(ns, 100'000L), (std::vector<long>{10'000, 20'000, 50'000, 100'000}));
    EXPECT_EQ(quick_cap(ns, 10'000'000L), ns);
    EXPECT_EQ(quick_cap(ns, 100'000L, 10), quick_cap(ns, 100'000L));  // fewer than max_points
}

TEST(QuickCap, ThinsEvenlyKeepingTheFirstAndTheLast)
{
    const std::vector<int> steps{1, 2, 3, 5, 8, 10, 15, 20};
    EXPECT_EQ(quick_cap(steps, 20, 4), (std::vector<int>{1, 3, 10, 20}));
    const std::vector<std::int64_t> lengths{1000,   3160,    10000,   31600,    100000,
                                            316000, 1000000, 3160000, 10000000, 100000000};
    EXPECT_EQ(quick_cap(lengths, std::int64_t{1'000'000}, 4),
              (std::vector<std::int64_t>{1000, 10000, 100000, 1000000}));
    EXPECT_EQ(quick_cap(steps, 20, 2), (std::vector<int>{1, 20}));
    EXPECT_EQ(quick_cap(steps, 20, 1), (std::vector<int>{1}));
}

TEST(QuickCap, NeverEmptiesASweep)
{
    EXPECT_EQ(quick_cap(std::vector<int>{400000}, 100000), (std::vector<int>{400000}));
    EXPECT_THROW(quick_cap(std::vector<int>{}, 1), std::invalid_argument);
}

TEST(ApplyQuick, LowersRepetitionsAndMinTimeUnlessGiven)
{
    RunOptions o;
    apply_quick(o, false, false);  // not quick: unchanged
    EXPECT_EQ(o.repetitions, 10);
    EXPECT_EQ(o.min_time, 0.05);
    o.quick = true;
    apply_quick(o, false, false);
    EXPECT_EQ(o.repetitions, quick_repetitions);
    EXPECT_EQ(o.min_time, quick_min_time);

    RunOptions given;
    given.quick = true;
    given.repetitions = 7;
    given.min_time = 0.5;
    apply_quick(given, true, true);  // the user's values stand
    EXPECT_EQ(given.repetitions, 7);
    EXPECT_EQ(given.min_time, 0.5);

    RunOptions lower;  // never raised
    lower.quick = true;
    lower.repetitions = 1;
    lower.min_time = 0.0;
    apply_quick(lower, false, false);
    EXPECT_EQ(lower.repetitions, 1);
    EXPECT_EQ(lower.min_time, 0.0);
}

TEST(QuickRanks, AtMostTwoGpusAndFourCpuRanks)
{
    RunOptions full, quick;
    quick.quick = true;
    EXPECT_EQ(run_gpu_rank_counts(full), gpu_rank_counts());
    EXPECT_EQ(run_cpu_ranks(full), cpu_ranks());
    for (const int p : run_gpu_rank_counts(quick)) EXPECT_LE(p, quick_gpu_ranks);
    EXPECT_FALSE(run_gpu_rank_counts(quick).empty());
    EXPECT_EQ(run_cpu_ranks(quick), std::min(cpu_ranks(), quick_cpu_ranks));
}

TEST(QuickResultsRoot, UnderTheCacheDirectory)
{
    ScratchDir scratch;
    ScopedEnv k("KBENCH_CACHE_DIR", (scratch.path / "cache").c_str());
    const std::string root = quick_results_root();
    EXPECT_EQ(root, (scratch.path / "cache" / "quick-results").string());
    EXPECT_TRUE(fs::is_directory(root));
}

TEST(QuickResultsRoot, AFreshTemporaryDirectoryWithoutACacheDirectory)
{
    ScopedEnv k("KBENCH_CACHE_DIR", nullptr);
    ScopedEnv x("XDG_CACHE_HOME", nullptr);
    ScopedEnv h("HOME", nullptr);
    ASSERT_TRUE(cache_dir().empty());
    const std::string a = quick_results_root(), b = quick_results_root();
    EXPECT_NE(a, b);
    for (const std::string& root : {a, b}) {
        EXPECT_TRUE(fs::is_directory(root)) << root;
        EXPECT_EQ(fs::path(root).filename().string().rfind("kbench-quick-results-", 0), 0u)
            << root;
        fs::remove_all(root);
    }
}

TEST(QuickSource, LoadsTheSetsQuickEntriesAndMarksTheContext)
{
    MatrixSource source;
    source.set = "smoke";
    const MatrixSet full = load_source_set(source);
    EXPECT_GT(full.matrices.size(), 1u);
    EXPECT_FALSE(kbench_context("x/y", source, full, nullptr, false).contains("quick"));
    source.quick = true;
    const MatrixSet quick = load_source_set(source);
    ASSERT_EQ(quick.matrices.size(), 1u);
    EXPECT_EQ(quick.matrices[0].name, full.matrices[0].name);
    EXPECT_EQ(kbench_context("x/y", source, quick, nullptr, false).at("quick"), true);
}

TEST(QuickSource, TheResumeKeyOfAQuickRunDiffers)
{
    ScopedEnv sha("KBENCH_GIT_SHA", "0123456789abcdef0123456789abcdef01234567");
    ScopedEnv dirty("KBENCH_GIT_DIRTY", "0");  // a key even in a tree with changes
    StudyRun run;
    run.id = "zianekhodja2014/table5";
    run.source.set = "zianekhodja2014-band";
    const std::string full = resume_key(run);
    ASSERT_FALSE(full.empty());
    run.options.quick = true;
    EXPECT_NE(resume_key(run), full);
}

}  // namespace
}  // namespace kbench::harness
