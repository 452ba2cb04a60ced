// Helpers shared by the GPU tests of the distributed layer (test_distributed_*_gpu.cpp), run
// under mpiexec: skip on every rank unless every rank has a GPU, the transports a test can run
// here and the NCCL communicator they need.
#pragma once

#include "kernels/test/gpu_test.hpp"
#include "solvers/distributed/halo_exchange_gpu.hpp"
#include "solvers/test/mpi_gtest.hpp"

#include <cuda_runtime_api.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

// Skips on every rank unless every rank has a GPU (the decision is shared, so that no rank waits
// in a collective that another one skipped); then selects this rank's device.
#define KBENCH_REQUIRE_GPU_ON_EVERY_RANK()                                                    \
    do {                                                                                      \
        const std::string kbench_reason = ::kbench::gpu_unavailable_reason();                 \
        if (::kbench::test::world().allreduce_max(kbench_reason.empty() ? 0 : 1) != 0) {      \
            KBENCH_REQUIRE_GPU();                                                             \
            GTEST_SKIP() << "GPU test skipped: another rank has no usable GPU";               \
        }                                                                                     \
        ::kbench::dist::select_device(::kbench::test::world());                               \
    } while (0)

namespace kbench::test {

/// Why the NCCL transport cannot run here (empty when it can): not built, or fewer GPUs than
/// ranks on a node. Collective.
inline std::string nccl_unavailable_reason()
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) count = 0;
    const int short_of_gpus = world().allreduce_max(world().local_size() > count ? 1 : 0);
    if (!dist::nccl_available())
        return "NCCL transport not built (NCCL not found at configuration)";
    if (short_of_gpus != 0) return "NCCL needs one GPU per rank; a node has fewer GPUs than ranks";
    return {};
}

/// host_staged always, nccl when it can run (rank 0 prints why not otherwise). Collective.
inline std::vector<dist::Transport> transports_to_test()
{
    std::vector<dist::Transport> t{dist::Transport::host_staged};
    const std::string why = nccl_unavailable_reason();
    if (why.empty())
        t.push_back(dist::Transport::nccl);
    else if (world().rank() == 0)
        std::printf("note: NCCL cases left out: %s\n", why.c_str());
    return t;
}

/// The world's NCCL communicator when `transports` holds nccl, else null. Collective.
inline std::unique_ptr<dist::NcclCommunicator> nccl_for(
    const std::vector<dist::Transport>& transports)
{
    for (const dist::Transport t : transports)
        if (t == dist::Transport::nccl) return std::make_unique<dist::NcclCommunicator>(world());
    return nullptr;
}

}  // namespace kbench::test
