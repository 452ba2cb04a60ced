// `kbench solve gmres` on the GPU (harness/bench/bench_gmres.hpp): every orthogonalization of one
// small nonsymmetric system converges and its entry carries the schema's fields, with the true
// residual recomputed on the host (skipped, never passed, without a GPU).
#include "harness/bench/bench_gmres.hpp"
#include "kernels/test/gpu_test.hpp"

#include <gtest/gtest.h>

#include <string>

namespace kh = kbench::harness;
namespace ks = kbench::solvers;

TEST(SolveGmresGpu, EveryOrthogonalizationConvergesOnASmallConvectionDiffusionSystem)
{
    KBENCH_REQUIRE_GPU();
    kh::GmresRunOptions o;
    o.source.set = "smoke";
    o.filter = "/convdiff2d_60_pe05$";
    o.orths = {ks::ArnoldiOrth::cgs2, ks::ArnoldiOrth::mgs, ks::ArnoldiOrth::cgs2_lowsync};
    o.solve.restart = 30;
    o.solve.tolerance = 1e-8;
    o.solve.max_iterations = 3000;
    o.repetitions = 2;
    const nlohmann::json doc = kh::run_gmres_solves(o, "solve/gmres", nullptr);
    ASSERT_EQ(doc["benchmarks"].size(), 3u);
    int steps_cgs2 = 0;
    for (const nlohmann::json& e : doc["benchmarks"]) {
        SCOPED_TRACE(e.dump());
        EXPECT_EQ(e["matrix"], "convdiff2d_60_pe05");
        EXPECT_EQ(e["n"], 3600);
        EXPECT_EQ(e["status"], "converged");
        EXPECT_EQ(e["restart"], 30);
        EXPECT_EQ(e["repetitions"], 2);
        EXPECT_GT(e["steps"].get<int>(), 0);
        EXPECT_GT(e["seconds"].get<double>(), 0.0);
        EXPECT_DOUBLE_EQ(e["seconds_per_step"].get<double>(),
                         e["seconds"].get<double>() / e["steps"].get<int>());
        // The Givens estimate stops at 1e-8; the recomputed residual may differ by rounding.
        EXPECT_LE(e["true_residual"].get<double>(), 1e-7);
        EXPECT_EQ(e["spmv"]["policy"], "auto");
        EXPECT_FALSE(e["spmv"]["kernel"].get<std::string>().empty());
        if (e["orth"] == "cgs2") steps_cgs2 = e["steps"].get<int>();
    }
    // CGS2 and its one-reduce form agree in exact arithmetic: their step counts are close.
    const int steps_lowsync = doc["benchmarks"][2]["steps"].get<int>();
    EXPECT_NEAR(steps_lowsync, steps_cgs2, 0.1 * steps_cgs2 + 2);
    EXPECT_EQ(doc["context"]["kbench"]["id"], "solve/gmres");
    EXPECT_EQ(doc["context"]["kbench"]["gmres"]["orths"].size(), 3u);
}

TEST(SolveGmresGpu, FilterAndRepetitionsAreChecked)
{
    KBENCH_REQUIRE_GPU();
    kh::GmresRunOptions o;
    o.source.set = "smoke";
    o.repetitions = 0;
    EXPECT_THROW(kh::run_gmres_solves(o, "solve/gmres", nullptr), std::invalid_argument);
    o.repetitions = 1;
    o.filter = "nothing matches this";
    EXPECT_TRUE(kh::run_gmres_solves(o, "solve/gmres", nullptr)["benchmarks"].empty());
}
