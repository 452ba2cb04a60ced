// Distributed GMRES on the GPU (solvers/distributed/distributed_gmres.hpp), run by ctest under
// mpiexec with 1 and 2 ranks (label gpu; skipped without a GPU on every rank): the gathered
// solution equals distributed_gmres_cpu's on the same partition, over the host-staged transport
// always and NCCL when it was built and every rank has its own GPU, with the SpMV's exchange
// overlapped with the interior rows' product (the default) or not; non-finite input stops every
// rank; detailed runs name their phases.
#include "solvers/distributed/distributed_gmres.hpp"

#include "kernels/base/cuda_handles.hpp"
#include "kernels/base/device_buffer.hpp"
#include "kernels/machine_probe.hpp"
#include "solvers/distributed/communicator.hpp"
#include "solvers/distributed/distributed_spmv.hpp"
#include "solvers/distributed/halo_exchange_gpu.hpp"
#include "solvers/distributed/row_distribution.hpp"
#include "solvers/gmres.hpp"
#include "solvers/test/distributed_gmres_test_cases.hpp"
#include "solvers/test/distributed_gpu_test.hpp"
#include "solvers/test/mpi_gtest.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace kbench::dist {
namespace {

using kbench::test::expect_same_solve;
using kbench::test::gmres_cases;
using kbench::test::owned_entries;
using kbench::test::paper_options;
using kbench::test::Solve;
using kbench::test::solve_distributed_cpu;
using kbench::test::tagged_vector;
using kbench::test::transports_to_test;
using kbench::test::max_abs;
using kbench::test::max_abs_diff;
using kbench::test::world;
using solvers::ArnoldiOrth;
using solvers::GmresOptions;
using solvers::SolveResult;
using solvers::SolveStatus;

Solve solve_gpu(const LocalMatrix<double>& lm, const std::vector<double>& b,
                const GmresOptions& o, Preconditioner p, Transport t, NcclCommunicator* nccl,
                bool detailed = false, bool overlap = true)
{
    DistributedSpmv<double> spmv(world(), lm, t, spmv::Policy{"auto"}, spmv::machine_figures(),
                                 nccl, overlap);
    const auto b_local = owned_entries(lm.halo, b);
    device_buffer<double> db(b_local);
    device_buffer<double> dx(std::vector<double>(b_local.size(), 0.0));
    cuda_stream stream;
    Solve s;
    s.result =
        distributed_gmres(world(), spmv, lm, db.data(), dx.data(), o, p, stream, detailed);
    s.x = allgather(world(), lm.halo, dx.to_host(), lm.global_rows);
    return s;
}

class DistributedGmresGpu : public kbench::test::MpiTest {};

// Same iteration, other summation orders (the GPU's blocked dot products and SpMV kernels
// against the CPU's sequential loops): the solves agree as expect_same_solve states
// (same step count, or within one when an estimate lies within rounding of the tolerance).
TEST_F(DistributedGmresGpu, MatchesTheCpuSolveOnTheSamePartition)
{
    KBENCH_REQUIRE_GPU_ON_EVERY_RANK();
    const int np = world().size();
    const auto transports = transports_to_test();
    const auto nccl = kbench::test::nccl_for(transports);
    for (const auto& c : gmres_cases(np)) {
        const LocalMatrix<double> lm = distribute(world(), c.a, c.part, np);
        const auto b = tagged_vector(c.a.num_rows);
        for (const ArnoldiOrth orth : {ArnoldiOrth::mgs, ArnoldiOrth::cgs2}) {
            for (const Preconditioner p : {Preconditioner::jacobi, Preconditioner::none}) {
                const GmresOptions o = paper_options(orth, 1e-10);
                const Solve cpu = solve_distributed_cpu(lm, b, o, p);
                ASSERT_EQ(cpu.result.status, SolveStatus::converged);
                for (const Transport t : transports) {
                    SCOPED_TRACE(c.name + ", " + solvers::to_string(orth) + ", " +
                                 to_string(p) + ", " + to_string(t));
                    const Solve gpu = solve_gpu(lm, b, o, p, t, nccl.get());
                    expect_same_solve(gpu.result, gpu.x, cpu.result, cpu.x, o.tolerance);
                }
            }
        }
    }
}

// The SpMV built without overlap (the exchange, then A_local's product) solves the same way.
TEST_F(DistributedGmresGpu, WithoutOverlapMatchesTheCpuSolve)
{
    KBENCH_REQUIRE_GPU_ON_EVERY_RANK();
    const int np = world().size();
    const auto transports = transports_to_test();
    const auto nccl = kbench::test::nccl_for(transports);
    for (const auto& c : gmres_cases(np)) {
        const LocalMatrix<double> lm = distribute(world(), c.a, c.part, np);
        const auto b = tagged_vector(c.a.num_rows);
        const GmresOptions o = paper_options(ArnoldiOrth::mgs, 1e-10);
        const Solve cpu = solve_distributed_cpu(lm, b, o, Preconditioner::jacobi);
        ASSERT_EQ(cpu.result.status, SolveStatus::converged);
        for (const Transport t : transports) {
            SCOPED_TRACE(c.name + ", " + to_string(t) + ", no overlap");
            const Solve gpu =
                solve_gpu(lm, b, o, Preconditioner::jacobi, t, nccl.get(), false, false);
            expect_same_solve(gpu.result, gpu.x, cpu.result, cpu.x, o.tolerance);
        }
    }
}

// The one-reduce CGS2 (ArnoldiOrth::cgs2_lowsync) on GPU ranks: the Krylov space and the least
// squares are CGS2's, only the reductions are fused, so the residual histories agree to 1e-10
// (the serial tests measure the same) and the step counts within one; the solutions to the
// accuracy both reach (1e-6 of max |x| at tolerance 1e-10). With NCCL (and on one rank) the
// reductions are stream-ordered and the step is enqueued one ahead (pipelined_lowsync); with
// host_staged on several ranks it synchronizes once per step.
TEST_F(DistributedGmresGpu, LowSyncTakesTheStepsOfCgs2)
{
    KBENCH_REQUIRE_GPU_ON_EVERY_RANK();
    const int np = world().size();
    const auto transports = transports_to_test();
    const auto nccl = kbench::test::nccl_for(transports);
    for (const auto& c : gmres_cases(np)) {
        const LocalMatrix<double> lm = distribute(world(), c.a, c.part, np);
        const auto b = tagged_vector(c.a.num_rows);
        const GmresOptions o = paper_options(ArnoldiOrth::cgs2_lowsync, 1e-10);
        const Solve cpu = solve_distributed_cpu(lm, b, paper_options(ArnoldiOrth::cgs2, 1e-10),
                                                Preconditioner::jacobi);
        for (const Transport t : transports) {
            SCOPED_TRACE(c.name + ", " + to_string(t));
            const Solve gpu = solve_gpu(lm, b, o, Preconditioner::jacobi, t, nccl.get());
            EXPECT_EQ(gpu.result.status, SolveStatus::converged) << gpu.result.detail;
            EXPECT_LE(gpu.result.true_residual, 1e-10);
            EXPECT_LE(std::abs(gpu.result.iterations - cpu.result.iterations), 1);
            const std::size_t steps = std::min(gpu.result.residual_history.size(),
                                               cpu.result.residual_history.size());
            for (std::size_t i = 0; i + 1 < steps; ++i)
                EXPECT_NEAR(gpu.result.residual_history[i], cpu.result.residual_history[i],
                            1e-10)
                    << "step " << i;
            EXPECT_LE(max_abs_diff(gpu.x, cpu.x), 1e-6 * max_abs(cpu.x));
        }
    }
}

TEST_F(DistributedGmresGpu, NonFiniteRightHandSideStopsEveryRank)
{
    KBENCH_REQUIRE_GPU_ON_EVERY_RANK();
    const int np = world().size();
    const auto c = gmres_cases(np).front();  // a copy: the vector is a temporary
    const LocalMatrix<double> lm = distribute(world(), c.a, c.part, np);
    auto b = tagged_vector(c.a.num_rows);
    b[123] = std::numeric_limits<double>::quiet_NaN();
    const Solve gpu = solve_gpu(lm, b, paper_options(), Preconditioner::jacobi,
                                Transport::host_staged, nullptr);
    EXPECT_EQ(gpu.result.status, SolveStatus::non_finite) << gpu.result.detail;
    EXPECT_EQ(gpu.result.iterations, 0);
}

// The paper's setup converges on the GPU too, and a detailed run reports the phases of
// distributed_gmres.hpp within the solve's time.
TEST_F(DistributedGmresGpu, PaperSetupConvergesAndDetailedRunNamesItsPhases)
{
    KBENCH_REQUIRE_GPU_ON_EVERY_RANK();
    const int np = world().size();
    const Csr<double> a = replicate(convection_diffusion(16, 19, 1, 30.0, -15.0, 0.0), 3000,
                                    ReplicationLayout::diagonal);
    const LocalMatrix<double> lm = distribute(world(), a, block_partition(a.num_rows, np), np);
    const std::vector<double> ones(static_cast<std::size_t>(a.num_rows), 1.0);
    const Solve gpu = solve_gpu(lm, ones, paper_options(), Preconditioner::jacobi,
                                Transport::host_staged, nullptr, true);
    EXPECT_EQ(gpu.result.status, SolveStatus::converged) << gpu.result.detail;
    EXPECT_LE(gpu.result.true_residual, 1e-12);
    std::vector<std::string> names;
    double total = 0.0;
    for (const auto& p : gpu.result.phases) {
        names.push_back(p.name);
        EXPECT_GE(p.seconds, 0.0) << p.name;
        total += p.seconds;
    }
    EXPECT_EQ(names, (std::vector<std::string>{"spmv", "halo", "precond", "orth", "reductions",
                                               "update"}));
    EXPECT_LE(total, gpu.result.seconds * 1.05 + 1e-4);
}

}  // namespace
}  // namespace kbench::dist

KBENCH_MPI_TEST_MAIN()
