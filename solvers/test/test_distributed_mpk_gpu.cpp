// The matrix powers kernel on several ranks, on the GPU (solvers/distributed/distributed_mpk.hpp),
// run by ctest under mpiexec with 1 and 2 ranks (label gpu; skipped without a GPU): for every
// transport (host_staged; nccl with one GPU per rank) and own-row kernel, the owned entries of
// v_2..v_{s+1} equal those of DistributedMpkCpu (monomial and Newton with a complex pair, s up
// to beyond the graph's diameter, calls of fewer steps than the setup's s), with one exchange
// per call moving the same bytes as the CPU exchange.
#include "solvers/distributed/distributed_mpk.hpp"

#include "kernels/base/cuda_handles.hpp"
#include "kernels/base/device_buffer.hpp"
#include "kernels/machine_probe.hpp"
#include "solvers/ca_gmres.hpp"
#include "solvers/test/distributed_gpu_test.hpp"
#include "solvers/test/distributed_test_cases.hpp"
#include "solvers/test/mpi_gtest.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <memory>
#include <string>
#include <vector>

namespace kbench::dist {
namespace {

using kbench::test::distributed_cases;
using kbench::test::tagged_vector;
using kbench::test::transports_to_test;
using kbench::test::world;

class DistributedMpkGpu : public kbench::test::MpiTest {};

std::vector<MpkStep> newton(int k)
{
    using c = std::complex<double>;
    return solvers::newton_steps(solvers::leja_order({c(3.0, 2.5), c(3.0, -2.5), c(1.0, 0.0)}),
                                 k);
}

/// One call of `steps` on the GPU, for every transport and own-row kernel, against the CPU MPK
/// from the same v_1 (the tagged vector / 64 on the own rows).
void expect_equals_cpu(const MpkLocalMatrix<double>& local, const std::vector<MpkStep>& steps,
                       const std::vector<double>& x, const std::vector<Transport>& transports,
                       NcclCommunicator* nccl, cuda_stream& stream)
{
    const index_type owned = local.num_owned();
    const std::int64_t ld = std::max<index_type>(owned, 1);
    const int k = static_cast<int>(steps.size());
    std::vector<double> V(static_cast<std::size_t>(ld) * (k + 1), 0.0);
    for (index_type i = 0; i < owned; ++i)
        V[static_cast<std::size_t>(i)] =
            x[static_cast<std::size_t>(local.halo.owned_global[i])] / 64.0;
    std::vector<double> V_cpu = V;
    DistributedMpkCpu<double> cpu(world(), local);
    cpu.apply(steps, V_cpu.data(), ld);
    for (const Transport t : transports)
        for (const char* kernel : {"auto", "csr_vector"}) {
            SCOPED_TRACE(std::string(to_string(t)) + ", " + kernel);
            DistributedMpk<double> gpu(world(), local, t, spmv::Policy{kernel},
                                       spmv::machine_figures(), nccl);
            device_buffer<double> dV(V);
            gpu.apply(steps, dV.data(), ld, stream);
            stream.synchronize();
            const auto got = dV.to_host();
            for (int j = 1; j <= k; ++j) {
                double scale = 0.0, err = 0.0;
                for (index_type i = 0; i < owned; ++i) {
                    const auto e = static_cast<std::size_t>(j * ld + i);
                    scale = std::max(scale, std::abs(V_cpu[e]));
                    err = std::max(err, std::abs(got[e] - V_cpu[e]));
                }
                scale = world().allreduce_max(scale);
                // Sums in another order than the CPU's, over up to 45 steps.
                EXPECT_LE(err, 1e-11 * scale) << "column " << j;
            }
            EXPECT_EQ(gpu.counters().exchanges, 1);
            EXPECT_EQ(gpu.counters().bytes_received, cpu.counters().bytes_received);
            EXPECT_EQ(gpu.counters().messages_sent, cpu.counters().messages_sent);
            EXPECT_EQ(gpu.choice() != nullptr, owned > 0);
            // products() alone does not communicate.
            gpu.reset_counters();
            gpu.products(steps, dV.data(), ld, stream);
            stream.synchronize();
            EXPECT_EQ(gpu.counters().exchanges, 0);
        }
}

TEST_F(DistributedMpkGpu, EqualsTheCpuMpk)
{
    KBENCH_REQUIRE_GPU_ON_EVERY_RANK();
    const int np = world().size();
    const auto transports = transports_to_test();
    const auto nccl = kbench::test::nccl_for(transports);
    cuda_stream stream;
    for (const auto& c : distributed_cases(np)) {
        const auto x = tagged_vector(c.a.num_rows);
        for (const int s : {1, 3, 45}) {  // 45: beyond the graphs' diameters
            const MpkLocalMatrix<double> local = distribute_mpk(world(), c.a, c.part, np, s);
            for (const int k : {s, std::max(1, s - 2)}) {  // also calls of fewer steps
                SCOPED_TRACE(c.name + ", s = " + std::to_string(s) + ", k = " + std::to_string(k));
                expect_equals_cpu(local, std::vector<MpkStep>(static_cast<std::size_t>(k)), x,
                                  transports, nccl.get(), stream);
                expect_equals_cpu(local, newton(k), x, transports, nccl.get(), stream);
            }
        }
    }
}

TEST_F(DistributedMpkGpu, BadStepsThrowBeforeCommunicating)
{
    KBENCH_REQUIRE_GPU_ON_EVERY_RANK();
    const int np = world().size();
    const MpkLocalMatrix<double> local =
        distribute_mpk(world(), laplacian_2d_5pt(8, 8), block_partition(64, np), np, 2);
    DistributedMpk<double> gpu(world(), local, Transport::host_staged, spmv::Policy{"auto"},
                               spmv::machine_figures());
    cuda_stream stream;
    const std::int64_t ld = std::max<index_type>(local.num_owned(), 1);
    device_buffer<double> dV(static_cast<std::size_t>(ld) * 4);
    EXPECT_THROW(gpu.apply(std::vector<MpkStep>(3), dV.data(), ld, stream), std::invalid_argument);
    EXPECT_THROW(gpu.apply({{1.0, 1.0}}, dV.data(), ld, stream), std::invalid_argument);
    gpu.apply(std::vector<MpkStep>(2), dV.data(), ld, stream);  // still in step on every rank
    stream.synchronize();
    EXPECT_EQ(gpu.counters().exchanges, 1);
}

}  // namespace
}  // namespace kbench::dist

KBENCH_MPI_TEST_MAIN()
