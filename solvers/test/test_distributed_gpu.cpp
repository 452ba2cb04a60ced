// The distributed layer on the GPU (solvers/distributed/halo_exchange_gpu.hpp,
// distributed_spmv.hpp), run by ctest under mpiexec with 1 and 2 ranks (label gpu; skipped
// without a GPU). Rank r uses device (node-local rank r) % (device count), so with 2 ranks on a
// 2-GPU machine rank r uses device r. The host-staged and NCCL halo exchanges deliver exactly
// the ghost entries (bit for bit, as the CPU exchange), the device all-reduce sums, and the GPU
// distributed SpMV equals the CPU one. NCCL needs one GPU per rank: with fewer GPUs than ranks
// on a node its cases are skipped.
#include "solvers/distributed/communicator.hpp"
#include "solvers/distributed/distributed_spmv.hpp"
#include "solvers/distributed/halo_exchange.hpp"
#include "solvers/distributed/halo_exchange_gpu.hpp"
#include "solvers/distributed/row_distribution.hpp"

#include "kernels/base/cuda_handles.hpp"
#include "kernels/base/device_buffer.hpp"
#include "kernels/machine_probe.hpp"
#include "kernels/test/expect_invalid.hpp"
#include "matrices/row_partition.hpp"
#include "solvers/test/distributed_gpu_test.hpp"
#include "solvers/test/distributed_test_cases.hpp"
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

using kbench::test::distributed_cases;
using kbench::test::tagged_vector;
using kbench::test::transports_to_test;
using kbench::test::world;

const double nan = std::numeric_limits<double>::quiet_NaN();

class DistributedGpu : public kbench::test::MpiTest {};

TEST_F(DistributedGpu, RankRUsesDeviceR)
{
    KBENCH_REQUIRE_GPU_ON_EVERY_RANK();
    int count = 0;
    ASSERT_EQ(cudaGetDeviceCount(&count), cudaSuccess);
    int device = -1;
    ASSERT_EQ(cudaGetDevice(&device), cudaSuccess);
    EXPECT_EQ(device, world().local_rank() % count);
    if (count >= world().local_size()) {
        EXPECT_EQ(device, world().local_rank());
    }
}

TEST_F(DistributedGpu, HaloExchangesDeliverExactlyTheGhostEntries)
{
    KBENCH_REQUIRE_GPU_ON_EVERY_RANK();
    const int np = world().size();
    const auto transports = transports_to_test();
    const auto nccl = kbench::test::nccl_for(transports);
    cuda_stream stream;
    for (const auto& c : distributed_cases(np)) {
        const LocalMatrix<double> lm = distribute(world(), c.a, c.part, np);
        const HaloLayout& h = lm.halo;
        const auto x = tagged_vector(c.a.num_rows);
        // The CPU exchange is the reference.
        auto expected = local_vector(h, x, nan);
        HaloExchange host(world(), h);
        host.exchange(expected);
        for (const Transport t : transports) {
            SCOPED_TRACE(c.name + ", " + to_string(t) + ", rank " + std::to_string(world().rank()));
            DeviceHaloExchange<double> ex(world(), h, t, nccl.get());
            device_buffer<double> dx(local_vector(h, x, nan));
            for (int round = 0; round < 3; ++round) ex.exchange(dx.data(), stream);
            stream.synchronize();
            const auto got = dx.to_host();
            ASSERT_EQ(got.size(), expected.size());
            for (std::size_t i = 0; i < got.size(); ++i)
                EXPECT_EQ(got[i], expected[i]) << "local entry " << i;
            ExchangeCounters three;
            for (int round = 0; round < 3; ++round)
                three += exchange_counts(h, sizeof(double), t == Transport::host_staged);
            EXPECT_EQ(ex.counters(), three);
        }
    }
}

TEST_F(DistributedGpu, AllreduceSumsDeviceValues)
{
    KBENCH_REQUIRE_GPU_ON_EVERY_RANK();
    const int np = world().size();
    const int r = world().rank();
    const auto transports = transports_to_test();
    const auto nccl = kbench::test::nccl_for(transports);
    const LocalMatrix<double> lm =
        distribute(world(), laplacian_2d_5pt(8, 8), block_partition(64, np), np);
    cuda_stream stream;
    for (const Transport t : transports) {
        SCOPED_TRACE(to_string(t));
        DeviceHaloExchange<double> ex(world(), lm.halo, t, nccl.get());
        device_buffer<double> dv(std::vector<double>{double(r + 1), std::ldexp(1.0, -r), -2.0 * r});
        ex.allreduce_sum(dv.data(), 3, stream);
        ex.allreduce_sum(dv.data(), 0, stream);  // nothing
        stream.synchronize();
        const auto v = dv.to_host();
        EXPECT_EQ(v[0], np * (np + 1) / 2.0);
        EXPECT_EQ(v[1], 2.0 - std::ldexp(1.0, 1 - np));
        EXPECT_EQ(v[2], -1.0 * np * (np - 1));
        EXPECT_EQ(ex.counters().reductions, 1);
        EXPECT_EQ(ex.counters().reduction_bytes, 24);
    }
}

TEST_F(DistributedGpu, SpmvEqualsTheCpuDistributedSpmv)
{
    KBENCH_REQUIRE_GPU_ON_EVERY_RANK();
    const int np = world().size();
    const auto transports = transports_to_test();
    const auto nccl = kbench::test::nccl_for(transports);
    cuda_stream stream;
    for (const auto& c : distributed_cases(np)) {
        const LocalMatrix<double> lm = distribute(world(), c.a, c.part, np);
        const auto x = tagged_vector(c.a.num_rows);
        DistributedSpmvCpu<double> cpu(world(), lm);
        auto xl = local_vector(lm.halo, x, nan);
        std::vector<double> y_cpu(static_cast<std::size_t>(lm.halo.num_owned));
        cpu.apply(1.0, xl, 0.0, y_cpu);
        double scale = 0.0;
        for (const double e : y_cpu) scale = std::max(scale, std::abs(e));
        scale = world().allreduce_max(scale);
        for (const Transport t : transports) {
            for (const char* kernel : {"auto", "csr_vector", "sellp"}) {
                SCOPED_TRACE(c.name + ", " + to_string(t) + ", " + kernel + ", rank " +
                             std::to_string(world().rank()));
                DistributedSpmv<double> gpu(world(), lm, t, spmv::Policy{kernel},
                                            spmv::machine_figures(), nccl.get());
                device_buffer<double> dx(local_vector(lm.halo, x, nan));
                device_buffer<double> dy(std::vector<double>(y_cpu.size(), 0.0));
                gpu.apply(1.0, dx.data(), 0.0, dy.data(), stream);
                stream.synchronize();
                const auto y = dy.to_host();
                double err = 0.0;
                for (std::size_t i = 0; i < y.size(); ++i)
                    err = std::max(err, std::abs(y[i] - y_cpu[i]));
                // Rows of <= 13 entries summed in another order than the CPU's: a few
                // roundings of sum |a_ij x_j| <= 8 max |x|, well inside 1e-13 max |y|.
                EXPECT_LE(err, 1e-13 * scale);
                EXPECT_EQ(gpu.counters().exchanges, 1);
                EXPECT_EQ(gpu.choice() != nullptr, lm.halo.num_owned > 0);
            }
        }
    }
}

TEST_F(DistributedGpu, NcclWithoutCommunicatorIsRejected)
{
    KBENCH_REQUIRE_GPU_ON_EVERY_RANK();
    const int np = world().size();
    const LocalMatrix<double> lm =
        distribute(world(), laplacian_2d_5pt(8, 8), block_partition(64, np), np);
    if (nccl_available())
        kbench::test::expect_invalid(
            [&] { DeviceHaloExchange<double>(world(), lm.halo, Transport::nccl, nullptr); },
            {"nccl", "null"});
    else
        EXPECT_THROW(DeviceHaloExchange<double>(world(), lm.halo, Transport::nccl, nullptr),
                     std::runtime_error);
}

}  // namespace
}  // namespace kbench::dist

KBENCH_MPI_TEST_MAIN()
