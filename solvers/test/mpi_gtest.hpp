// GoogleTest under MPI, for the tests of the distributed layer (run as `mpiexec -n N test`,
// registered by kbench_add_mpi_test in solvers/distributed/distributed.cmake).
//  * KBENCH_MPI_TEST_MAIN() defines main(): an MpiSession, the world Communicator (world()),
//    gtest; the exit code is the worst over the ranks.
//  * Rank 0 prints gtest's usual output (ctest reads "[  SKIPPED ]" from it); the other ranks
//    print only their failed assertions, prefixed with "[rank r]".
//  * Tests derive from MpiTest: its TearDown shares the verdict, so a test that failed on one
//    rank fails on all of them (and shows in rank 0's output). It is a collective: every rank
//    must run the same tests (same filter), and a test must reach its own collectives on every
//    rank (prefer EXPECT_* to ASSERT_* before one).
#pragma once

#include "solvers/distributed/communicator.hpp"

#include <gtest/gtest.h>

#include <cstdio>

namespace kbench::test {

inline dist::Communicator*& world_pointer()
{
    static dist::Communicator* world = nullptr;
    return world;
}

/// The world communicator of the test binary (a duplicate of MPI_COMM_WORLD).
inline const dist::Communicator& world() { return *world_pointer(); }

class MpiTest : public ::testing::Test {
protected:
    void TearDown() override
    {
        const int failed_somewhere = world().allreduce_max(HasFailure() ? 1 : 0);
        if (failed_somewhere != 0 && !HasFailure())
            ADD_FAILURE() << "failed on another rank (see its [rank r] lines)";
    }
};

/// Prints a non-zero rank's failed assertions only.
class RankFailurePrinter : public ::testing::EmptyTestEventListener {
public:
    explicit RankFailurePrinter(int rank) : rank_{rank} {}
    void OnTestPartResult(const ::testing::TestPartResult& r) override
    {
        if (!r.failed()) return;
        std::printf("[rank %d] %s:%d: Failure\n%s\n", rank_,
                    r.file_name() != nullptr ? r.file_name() : "?", r.line_number(),
                    r.message());
        std::fflush(stdout);
    }

private:
    int rank_;
};

inline int mpi_test_main(int argc, char** argv)
{
    dist::MpiSession session(&argc, &argv);
    int rc = 0;
    {
        dist::Communicator comm;
        world_pointer() = &comm;
        ::testing::InitGoogleTest(&argc, argv);
        if (comm.rank() != 0) {
            auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
            delete listeners.Release(listeners.default_result_printer());
            listeners.Append(new RankFailurePrinter(comm.rank()));
        } else {
            std::printf("MPI test on %d rank(s)\n", comm.size());
        }
        rc = RUN_ALL_TESTS();
        rc = comm.allreduce_max(rc);
        world_pointer() = nullptr;
    }
    return rc;
}

}  // namespace kbench::test

#define KBENCH_MPI_TEST_MAIN() \
    int main(int argc, char** argv) { return ::kbench::test::mpi_test_main(argc, argv); }
