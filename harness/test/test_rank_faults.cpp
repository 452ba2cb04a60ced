// Multi-rank faults on purpose: `kbench dist ca-gmres` on 2 ranks under mpiexec, launched by
// run_mpi_worker (harness/mpi/mpi_launch.hpp), with rank 1 made to die or to hang by the
// test-only KBENCH_FAULT_INJECT (harness/mpi/dist_worker.hpp). The caller must come back
// promptly naming rank 1 (a death: an error entry; a hang: std::runtime_error at
// KBENCH_RANK_TIMEOUT_S), with every rank ended and no worker file left to be reused. The ranks
// run on CPU cores; with KBENCH_TEST_RANK_DEVICE=gpu on the GPU, both sharing it (skipped
// without one). KBENCH_EXE is the kbench executable.
#include "harness/mpi/mpi_launch.hpp"
#include "kernels/base/device.hpp"

#include "harness/test/test_util.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

namespace kbench::harness {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

using test::ScopedEnv;

double seconds_since(Clock::time_point t0)
{
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

/// Whether a live process's command line mentions `text` (the ranks name their --json file).
bool any_process_mentions(const std::string& text)
{
    for (const auto& e : fs::directory_iterator("/proc")) {
        std::ifstream in(e.path() / "cmdline");
        std::string cmdline{std::istreambuf_iterator<char>(in), {}};
        std::ifstream stat(e.path() / "stat");
        std::string pid, comm, state;
        stat >> pid >> comm >> state;
        if (state != "Z" && cmdline.find(text) != std::string::npos) return true;
    }
    return false;
}

class RankFaults : public ::testing::Test {
protected:
    void SetUp() override
    {
        const char* d = std::getenv("KBENCH_TEST_RANK_DEVICE");
        device_ = d != nullptr && *d != '\0' ? d : "cpu";
        if (device_ == "gpu") {
            if (const std::string why = gpu_unavailable_reason(); !why.empty())
                GTEST_SKIP() << "the GPU variant needs a GPU: " << why;
            setenv("KBENCH_SHARE_GPUS", "2", 1);  // both ranks on one GPU
        }
        if (mpi_launcher().empty()) GTEST_SKIP() << "kbench was built without an MPI launcher";
    }

    /// The launch of the worker on 2 ranks writing `file`.
    std::vector<std::string> launch(const std::string& file) const
    {
        return {mpi_launcher(), "-n", "2", KBENCH_EXE, "dist", "ca-gmres", "--device", device_,
                "--set", "smoke", "--matrix", "lap2d_5pt_50", "--restart", "30", "--steps", "5",
                "--repetitions", "1", "--json", file};
    }

    /// Seconds a launch without a fault takes (it must succeed).
    double baseline(const ScratchDir& dir) const
    {
        const std::string file = dir.file_for("baseline");
        const auto t0 = Clock::now();
        const nlohmann::json e = run_mpi_worker(launch(file), file);
        EXPECT_FALSE(e.contains("error")) << e.dump();
        return seconds_since(t0);
    }

    std::string device_;
    ScratchDir dir_;
};

TEST_F(RankFaults, ADyingRankIsNamedPromptlyAndLeavesNoResults)
{
    const double normal = baseline(dir_);
    const std::string file = dir_.file_for("dies");
    ScopedEnv fault("KBENCH_FAULT_INJECT", "rank=1:exit");
    const auto t0 = Clock::now();
    const nlohmann::json e = run_mpi_worker(launch(file), file);
    const double took = seconds_since(t0);
    ASSERT_TRUE(e.contains("error")) << e.dump();
    const std::string what = e.at("error");
    EXPECT_NE(what.find("rank 1 of 2 ended without finishing"), std::string::npos) << what;
    EXPECT_EQ(what.find("rank 0"), std::string::npos) << what;
    EXPECT_NE(e.at("exit_code"), 0);
    EXPECT_LT(took, normal + 30) << "a launch without the fault took " << normal << " s";
    EXPECT_FALSE(fs::exists(file));
    EXPECT_FALSE(fs::exists(rank_file(file, 0)));
    EXPECT_FALSE(any_process_mentions(file)) << "a rank outlived the launch";
}

TEST_F(RankFaults, AHangingRankEndsEveryRankAtTheTimeoutNamingIt)
{
    const double normal = baseline(dir_);
    const std::string file = dir_.file_for("hangs");
    const int timeout = static_cast<int>(5 + 3 * normal);  // well past a normal launch
    ScopedEnv fault("KBENCH_FAULT_INJECT", "rank=1:hang");
    ScopedEnv limit("KBENCH_RANK_TIMEOUT_S", std::to_string(timeout));
    const auto t0 = Clock::now();
    try {
        (void)run_mpi_worker(launch(file), file);
        ADD_FAILURE() << "the hanging launch came back without an exception";
    } catch (const std::runtime_error& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("KBENCH_RANK_TIMEOUT_S=" + std::to_string(timeout) + " s"),
                  std::string::npos) << what;
        EXPECT_NE(what.find("rank 1 of 2 did not finish (no " + rank_file(file, 1) + ")"),
                  std::string::npos) << what;
    }
    EXPECT_LT(seconds_since(t0), timeout + 20) << "the timeout was " << timeout << " s";
    EXPECT_FALSE(fs::exists(file));
    EXPECT_FALSE(any_process_mentions(file)) << "a rank outlived the timeout";
}

}  // namespace
}  // namespace kbench::harness
