// The distributed layer on the GPU (solvers/distributed/halo_exchange_gpu.hpp,
// distributed_spmv.hpp), run by ctest under mpiexec with 1 and 2 ranks (label gpu; skipped
// without a GPU). Rank r uses device (node-local rank r) % (device count), so with 2 ranks on a
// 2-GPU machine rank r uses device r. The host-staged and NCCL halo exchanges deliver exactly
// the ghost entries (bit for bit, as the CPU exchange), the device all-reduce sums, and the GPU
// distributed SpMV equals the CPU one, with the exchange overlapped with the interior rows'
// product (apply) or not (apply_serial, or built without overlap), for y = A x and
// y = 2 A x - y / 2, also on a matrix where rank 0's rows are all interior and every other
// rank's all boundary. NCCL needs one GPU per rank: with fewer GPUs than ranks on a node its
// cases are skipped. Under ctest every rank is on one node, so host_staged runs its
// shared-memory path (solvers/distributed/shared_staging.hpp), checked to be the one taken.
#include "solvers/distributed/communicator.hpp"
#include "solvers/distributed/distributed_spmv.hpp"
#include "solvers/distributed/halo_exchange.hpp"
#include "solvers/distributed/halo_exchange_gpu.hpp"
#include "solvers/distributed/interior_boundary.hpp"
#include "solvers/distributed/row_distribution.hpp"
#include "solvers/distributed/shared_staging_plan.hpp"

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
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace kbench::dist {
namespace {

using kbench::test::distributed_cases;
using kbench::test::tagged_vector;
using kbench::test::transports_to_test;
using kbench::test::world;

const double nan = std::numeric_limits<double>::quiet_NaN();

class DistributedGpu : public kbench::test::MpiTest {};

/// host_staged takes the shared-memory path exactly when every rank is on one node (as under
/// ctest's mpiexec); nccl never does.
void expect_path(const DeviceHaloExchange<double>& ex)
{
    const bool one_node = world().local_size() == world().size();
    if (ex.transport() == Transport::host_staged) {
        EXPECT_EQ(ex.shared_staging(), one_node) << ex.shared_staging_note();
        EXPECT_EQ(std::string(ex.host_staged_path()),
                  one_node ? "shared_memory" : "mpi_messages");
        EXPECT_EQ(ex.shared_staging_note().empty(), one_node);
    } else {
        EXPECT_FALSE(ex.shared_staging());
        EXPECT_EQ(std::string(ex.host_staged_path()), "");
    }
}

/// A layout in which rank s sends words(s, d) entries to rank d != s (0: no message). Rank r owns
/// n_r = 3 + max_d words(r, d) entries, global rows first_r + i (parts in rank order); its
/// message to d is its owned entries (e + 3 d) mod n_r, e < words(r, d) (a rotation, so that the
/// gather kernel reorders); the ghosts from s come in the order s sends them.
HaloLayout staged_layout(int rank, int np, const std::function<index_type(int, int)>& words)
{
    std::vector<index_type> owned(static_cast<std::size_t>(np), 3), first(np + 1, 0);
    for (int q = 0; q < np; ++q) {
        for (int d = 0; d < np; ++d)
            if (d != q) owned[q] = std::max(owned[q], 3 + words(q, d));
        first[q + 1] = first[q] + owned[q];
    }
    const auto sent = [&](int s, int d, index_type e) { return (e + 3 * d) % owned[s]; };
    HaloLayout h;
    h.rank = rank;
    h.num_parts = np;
    h.num_owned = owned[rank];
    for (index_type i = 0; i < h.num_owned; ++i) h.owned_global.push_back(first[rank] + i);
    h.recv_offsets = {0};
    h.send_offsets = {0};
    for (int s = 0; s < np; ++s) {
        const index_type w = s == rank ? 0 : words(s, rank);
        if (w == 0) continue;
        h.recv_ranks.push_back(s);
        for (index_type e = 0; e < w; ++e) h.ghost_global.push_back(first[s] + sent(s, rank, e));
        h.recv_offsets.push_back(static_cast<index_type>(h.ghost_global.size()));
    }
    h.num_ghosts = static_cast<index_type>(h.ghost_global.size());
    for (int d = 0; d < np; ++d) {
        const index_type w = d == rank ? 0 : words(rank, d);
        if (w == 0) continue;
        h.send_ranks.push_back(d);
        for (index_type e = 0; e < w; ++e) h.send_local.push_back(sent(rank, d, e));
        h.send_offsets.push_back(static_cast<index_type>(h.send_local.size()));
    }
    return h;
}

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
            expect_path(ex);
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

// The shared-memory path (and the others) on halos of several 2 MiB pieces per neighbour, one
// exact multiple of a piece, with a rank that sends nothing, and on small ones: four exchanges
// of different vectors back to back on one stream, with no host synchronization between them
// (so a sender's segment is rewritten while the previous call's copies out of it may still be
// queued), every ghost of every round equal to the CPU exchange's.
TEST_F(DistributedGpu, HaloExchangesOfSeveralPiecesAndAnEmptySender)
{
    KBENCH_REQUIRE_GPU_ON_EVERY_RANK();
    const int np = world().size();
    const int r = world().rank();
    const auto transports = transports_to_test();
    const auto nccl = kbench::test::nccl_for(transports);
    const index_type c = detail::staging_chunk_words<double>();
    const std::vector<std::pair<std::string, std::function<index_type(int, int)>>> cases = {
        {"several_pieces",  // rank 0: 3 whole pieces to every rank; others 2 pieces + 1 word
         [c](int s, int d) { return s == 0 ? 3 * c : 2 * c + 1 + 1000 * d; }},
        {"empty_sender",  // rank 0 sends nothing and receives a piece + a bit from every rank
         [c](int s, int d) { return s == 0 ? index_type{0} : c + 7 * s + d + 1; }},
        {"small", [](int s, int d) { return index_type{(s + d) % 3 + 1}; }},
    };
    cuda_stream stream;
    constexpr int rounds = 4;
    for (const auto& [name, words] : cases) {
        const HaloLayout h = staged_layout(r, np, words);
        index_type n = 0;
        for (int q = 0; q < np; ++q) n += staged_layout(q, np, words).num_owned;
        // Round k's global vector: tagged + 1000 k; the CPU exchange is the reference.
        std::vector<std::vector<double>> owned(rounds), expected(rounds);
        for (int k = 0; k < rounds; ++k) {
            auto x = tagged_vector(n);
            for (double& v : x) v += 1000.0 * k;
            auto local = local_vector(h, x, nan);
            HaloExchange host(world(), h);
            host.exchange(local);
            owned[k].assign(local.begin(), local.begin() + h.num_owned);
            expected[k].assign(local.begin() + h.num_owned, local.end());
        }
        for (const Transport t : transports) {
            SCOPED_TRACE(name + ", " + to_string(t) + ", rank " + std::to_string(r));
            DeviceHaloExchange<double> ex(world(), h, t, nccl.get());
            expect_path(ex);
            device_buffer<double> dx(
                std::vector<double>(static_cast<std::size_t>(h.local_size()), nan));
            std::vector<device_buffer<double>> ghosts;
            for (int k = 0; k < rounds; ++k)
                ghosts.emplace_back(static_cast<std::size_t>(h.num_ghosts));
            for (int k = 0; k < rounds; ++k) {
                const std::size_t owned_bytes = owned[k].size() * sizeof(double);
                if (owned_bytes > 0) {
                    ASSERT_EQ(cudaMemcpyAsync(dx.data(), owned[k].data(), owned_bytes,
                                              cudaMemcpyHostToDevice, stream.get()),
                              cudaSuccess);
                }
                ex.exchange(dx.data(), stream);
                if (h.num_ghosts > 0) {
                    ASSERT_EQ(cudaMemcpyAsync(ghosts[k].data(), dx.data() + h.num_owned,
                                              ghosts[k].size() * sizeof(double),
                                              cudaMemcpyDeviceToDevice, stream.get()),
                              cudaSuccess);
                }
            }
            stream.synchronize();
            for (int k = 0; k < rounds; ++k) {
                const auto got = ghosts[k].to_host();
                ASSERT_EQ(got.size(), expected[k].size());
                std::size_t wrong = 0, first_wrong = got.size();
                for (std::size_t i = 0; i < got.size(); ++i)
                    if (!(got[i] == expected[k][i]) && wrong++ == 0) first_wrong = i;
                EXPECT_EQ(wrong, 0u) << "round " << k << ": first wrong ghost " << first_wrong
                                     << " of " << got.size();
            }
            ExchangeCounters all;
            for (int k = 0; k < rounds; ++k)
                all += exchange_counts(h, sizeof(double), t == Transport::host_staged);
            EXPECT_EQ(ex.counters(), all);
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

/// A matrix of `parts` blocks of 40 rows (part[i] = i / 40): each row has 4 on the diagonal and
/// -1 at its neighbours in its own block, and a row of block p > 0 also -1 at the same position
/// of block p - 1 and 0.5 at the next one (cyclically). So part 0's rows are all interior (no
/// ghost) and every other part's all boundary.
kbench::test::DistributedCase interior_then_boundary_case(int parts)
{
    constexpr index_type b = 40;
    kbench::test::DistributedCase c;
    c.name = "interior_then_boundary";
    const index_type n = b * parts;
    Csr<double>& a = c.a;
    a.num_rows = a.num_cols = n;
    for (index_type i = 0; i < n; ++i) {
        const index_type p = i / b, k = i % b;
        std::vector<std::pair<index_type, double>> row;
        if (p > 0) {
            row.emplace_back(i - b, -1.0);
            row.emplace_back((p - 1) * b + (k + 1) % b, 0.5);
        }
        if (k > 0) row.emplace_back(i - 1, -1.0);
        row.emplace_back(i, 4.0);
        if (k + 1 < b) row.emplace_back(i + 1, -1.0);
        std::sort(row.begin(), row.end());
        for (const auto& [col, v] : row) {
            a.col_idx.push_back(col);
            a.values.push_back(v);
        }
        a.row_ptr.push_back(a.nnz());
        c.part.push_back(static_cast<int>(p));
    }
    return c;
}

/// The GPU distributed SpMV of every construction and call the tests cover against the CPU one
/// on `c`: `kernels` with overlap, and "auto" without it; apply and apply_serial; y = A x (y
/// poisoned with NaN: not read) and y = 2 A x - y / 2.
void expect_gpu_spmv_equals_cpu(const kbench::test::DistributedCase& c,
                                const std::vector<Transport>& transports, NcclCommunicator* nccl,
                                const std::vector<std::string>& kernels, cudaStream_t stream)
{
    const int np = world().size();
    const LocalMatrix<double> lm = distribute(world(), c.a, c.part, np);
    const index_type owned = lm.halo.num_owned;
    const auto x = tagged_vector(c.a.num_rows);
    const InteriorBoundaryCounts split = interior_boundary_counts(lm.a, owned);
    struct Product {
        double alpha, beta;
        std::vector<double> y0, y_cpu;
        double scale = 0.0;  // max over rows and ranks of |alpha| |A| |x| + |beta| |y0|
    };
    std::vector<Product> products{{1.0, 0.0, {}, {}}, {2.0, -0.5, {}, {}}};
    for (Product& p : products) {
        p.y0.assign(static_cast<std::size_t>(owned), p.beta == 0.0 ? nan : 0.0);
        for (index_type i = 0; i < owned && p.beta != 0.0; ++i)
            p.y0[static_cast<std::size_t>(i)] = std::cos(static_cast<double>(i));
        DistributedSpmvCpu<double> cpu(world(), lm);
        auto xl = local_vector(lm.halo, x, nan);
        p.y_cpu = p.y0;
        cpu.apply(p.alpha, xl, p.beta, p.y_cpu);  // xl's ghosts are filled from here on
        for (index_type i = 0; i < owned; ++i) {
            double bound =
                p.beta == 0.0 ? 0.0 : std::abs(p.beta * p.y0[static_cast<std::size_t>(i)]);
            for (index_type k = lm.a.row_ptr[i]; k < lm.a.row_ptr[i + 1]; ++k)
                bound += std::abs(p.alpha * lm.a.values[k] * xl[lm.a.col_idx[k]]);
            p.scale = std::max(p.scale, bound);
        }
        p.scale = world().allreduce_max(p.scale);
    }
    for (const Transport t : transports) {
        std::vector<std::pair<std::string, bool>> builds;
        for (const std::string& k : kernels) builds.emplace_back(k, true);
        builds.emplace_back("auto", false);
        for (const auto& [kernel, overlap] : builds) {
            DistributedSpmv<double> gpu(world(), lm, t, spmv::Policy{kernel},
                                        spmv::machine_figures(), nccl, overlap);
            const bool overlapped = overlap && world().size() > 1;  // one rank: serial
            EXPECT_EQ(gpu.overlap(), overlapped);
            EXPECT_EQ(gpu.num_boundary(), overlapped ? split.boundary_rows : 0);
            EXPECT_EQ(gpu.choice() != nullptr, owned > 0);
            EXPECT_EQ(gpu.boundary_choice() != nullptr,
                      overlapped && split.interior_rows > 0 && split.boundary_rows > 0);
            int calls = 0;
            for (const bool serial : {false, true}) {
                for (const Product& p : products) {
                    SCOPED_TRACE(c.name + ", " + to_string(t) + ", " + kernel +
                                 (overlap ? ", overlap" : ", no overlap") +
                                 (serial ? ", apply_serial" : ", apply") + ", alpha " +
                                 std::to_string(p.alpha) + ", rank " +
                                 std::to_string(world().rank()) + " (" +
                                 std::to_string(split.interior_rows) + " interior, " +
                                 std::to_string(split.boundary_rows) + " boundary rows)");
                    device_buffer<double> dx(local_vector(lm.halo, x, nan));
                    device_buffer<double> dy(p.y0);
                    if (serial) gpu.apply_serial(p.alpha, dx.data(), p.beta, dy.data(), stream);
                    else gpu.apply(p.alpha, dx.data(), p.beta, dy.data(), stream);
                    ++calls;
                    KBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
                    const auto y = dy.to_host();
                    ASSERT_EQ(y.size(), p.y_cpu.size());
                    double err = 0.0;
                    for (std::size_t i = 0; i < y.size(); ++i)
                        err = std::max(err, std::isnan(y[i])
                                                ? std::numeric_limits<double>::infinity()
                                                : std::abs(y[i] - p.y_cpu[i]));
                    // Rows of <= 13 entries summed in another order than the CPU's, and the
                    // boundary rows' products added to beta y in one more rounding: a few
                    // roundings of the bound, well inside 1e-13 of it.
                    EXPECT_LE(err, 1e-13 * p.scale);
                    // The ghost entries of x are the owners' after either call.
                    const auto xg = dx.to_host();
                    const auto want = [&] {
                        auto xl = local_vector(lm.halo, x, nan);
                        for (std::size_t j = 0; j < lm.halo.ghost_global.size(); ++j)
                            xl[static_cast<std::size_t>(owned) + j] =
                                x[static_cast<std::size_t>(lm.halo.ghost_global[j])];
                        return xl;
                    }();
                    EXPECT_EQ(xg, want);
                }
            }
            EXPECT_EQ(gpu.counters().exchanges, calls);
        }
    }
}

TEST_F(DistributedGpu, SpmvEqualsTheCpuDistributedSpmv)
{
    KBENCH_REQUIRE_GPU_ON_EVERY_RANK();
    const int np = world().size();
    const auto transports = transports_to_test();
    const auto nccl = kbench::test::nccl_for(transports);
    cuda_stream stream;
    for (const auto& c : distributed_cases(np))
        expect_gpu_spmv_equals_cpu(c, transports, nccl.get(), {"auto", "csr_vector", "sellp"},
                                   stream);
}

TEST_F(DistributedGpu, SpmvWithAllInteriorAndAllBoundaryRanks)
{
    KBENCH_REQUIRE_GPU_ON_EVERY_RANK();
    const int np = world().size();
    const auto transports = transports_to_test();
    const auto nccl = kbench::test::nccl_for(transports);
    cuda_stream stream;
    const auto c = interior_then_boundary_case(np);
    // The split this case is made for: rank 0 all interior, the others all boundary.
    const LocalMatrix<double> lm = distribute(world(), c.a, c.part, np);
    const auto counts = interior_boundary_counts(lm.a, lm.halo.num_owned);
    EXPECT_EQ(counts.interior_rows, world().rank() == 0 ? 40 : 0);
    EXPECT_EQ(counts.boundary_rows, world().rank() == 0 ? 0 : 40);
    expect_gpu_spmv_equals_cpu(c, transports, nccl.get(), {"auto", "csr_vector"}, stream);
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
