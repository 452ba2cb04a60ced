// measure_link (harness/mpi/dist_link.hpp) under mpiexec: on 1 rank the exchange figures are 0 and
// the all-reduce is timed; on 2 or more the latency and bandwidth are positive and finite. Built
// twice: test_dist_link_cpu (CPU ranks, label cpu) and, with KBENCH_LINK_TEST_GPU,
// test_dist_link_gpu (one GPU per rank over the host-staged transport, label gpu; skips without
// a GPU on every rank).
#include "harness/mpi/dist_link.hpp"

#include "solvers/test/distributed_gpu_test.hpp"
#include "solvers/test/mpi_gtest.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace kbench::harness {
namespace {

using kbench::test::MpiTest;
using kbench::test::world;

void expect_figures(const LinkFigures& f)
{
    EXPECT_GT(f.allreduce_seconds, 0.0);
    EXPECT_TRUE(std::isfinite(f.allreduce_seconds));
    if (world().size() == 1) {
        EXPECT_EQ(f.latency_seconds, 0.0);
        EXPECT_EQ(f.bandwidth_bytes_per_second, 0.0);
    } else {
        EXPECT_GT(f.latency_seconds, 0.0);
        EXPECT_GT(f.bandwidth_bytes_per_second, 0.0);
        EXPECT_TRUE(std::isfinite(f.bandwidth_bytes_per_second));
    }
    EXPECT_EQ(f.large_words, std::int64_t{1} << 21);
}

class DistLink : public MpiTest {};

#ifndef KBENCH_LINK_TEST_GPU
TEST_F(DistLink, CpuRanks)
{
    const LinkFigures f = measure_link(world(), false, dist::Transport::host_staged, nullptr);
    expect_figures(f);
    EXPECT_EQ(f.host_staged_path, "");
    EXPECT_FALSE(link_json(f).contains("host_staged_path"));
    EXPECT_EQ(link_json(f).size(), 3u);
}
#else
TEST_F(DistLink, GpuRanksHostStaged)
{
    KBENCH_REQUIRE_GPU_ON_EVERY_RANK();
    const LinkFigures f = measure_link(world(), true, dist::Transport::host_staged, nullptr);
    expect_figures(f);
    // Under ctest every rank is on one node: the shared-memory path.
    EXPECT_EQ(f.host_staged_path, world().local_size() == world().size() ? "shared_memory"
                                                                         : "mpi_messages");
    EXPECT_EQ(link_json(f).at("host_staged_path"), f.host_staged_path);
}
#endif

}  // namespace
}  // namespace kbench::harness

KBENCH_MPI_TEST_MAIN()
