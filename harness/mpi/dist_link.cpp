// Link figures between ranks; see dist_link.hpp.
#include "harness/mpi/dist_link.hpp"

#include "harness/core/timing.hpp"
#include "kernels/base/cuda_check.hpp"
#include "kernels/base/cuda_handles.hpp"
#include "kernels/base/device_buffer.hpp"
#include "solvers/distributed/halo_exchange.hpp"

#include <algorithm>
#include <chrono>
#include <functional>
#include <vector>

namespace kbench::harness {
namespace {

constexpr int warmup = 5;
constexpr int reps = 30;

/// Rank 0 and rank 1 swap `words` entries: each owns `words` entries and receives as many
/// ghosts from the other; every other rank takes no part. words = 0: no neighbours at all (a
/// layout for the all-reduce alone).
dist::HaloLayout pair_layout(const dist::Communicator& comm, index_type words)
{
    dist::HaloLayout h;
    h.rank = comm.rank();
    h.num_parts = comm.size();
    h.recv_offsets = {0};
    h.send_offsets = {0};
    if (comm.size() < 2 || comm.rank() > 1 || words == 0) return h;  // no (empty) messages
    const int other = 1 - comm.rank();
    h.num_owned = h.num_ghosts = words;
    for (index_type i = 0; i < words; ++i) {
        h.owned_global.push_back(comm.rank() * words + i);
        h.ghost_global.push_back(other * words + i);
        h.send_local.push_back(i);
    }
    h.recv_ranks = {other};
    h.send_ranks = {other};
    h.recv_offsets.push_back(words);
    h.send_offsets.push_back(words);
    return h;
}

/// Median wall time of fn() over `reps` calls, each between barriers, the slowest rank's.
double timed(const dist::Communicator& comm, const std::function<void()>& fn)
{
    for (int i = 0; i < warmup; ++i) fn();
    std::vector<double> samples;
    for (int i = 0; i < reps; ++i) {
        comm.barrier();
        const auto t0 = std::chrono::steady_clock::now();
        fn();
        const double t =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        samples.push_back(comm.allreduce_max(t));
    }
    return median(samples);
}

}  // namespace

LinkFigures measure_link(const dist::Communicator& comm, bool gpu, dist::Transport transport,
                         dist::NcclCommunicator* nccl)
{
    LinkFigures f;
    f.large_words = index_type{1} << 21;  // 16 MiB of doubles
    const std::vector<index_type> sizes = {1, static_cast<index_type>(f.large_words)};
    std::vector<double> seconds;
    if (gpu) {
        cuda_stream stream;
        for (const index_type words : sizes) {
            dist::DeviceHaloExchange<double> ex(comm, pair_layout(comm, words), transport, nccl);
            f.host_staged_path = ex.host_staged_path();
            f.host_staged_note = ex.shared_staging_note();
            device_buffer<double> x(static_cast<std::size_t>(2 * words));
            seconds.push_back(timed(comm, [&] {
                ex.exchange(x.data(), stream.get());
                KBENCH_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
            }));
        }
        dist::DeviceHaloExchange<double> ex(comm, pair_layout(comm, 0), transport, nccl);
        device_buffer<double> v(1);
        f.allreduce_seconds = timed(comm, [&] {
            ex.allreduce_sum(v.data(), 1, stream.get());
            KBENCH_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
        });
    } else {
        for (const index_type words : sizes) {
            dist::HaloExchange ex(comm, pair_layout(comm, words));
            std::vector<double> x(static_cast<std::size_t>(2 * words), 1.0);
            seconds.push_back(timed(comm, [&] { ex.exchange(x.data()); }));
        }
        double v = 1.0;
        f.allreduce_seconds = timed(comm, [&] { v = comm.allreduce_sum(v); });
    }
    if (comm.size() >= 2) {
        f.latency_seconds = seconds[0];
        const double t = std::max(seconds[1] - seconds[0], 1e-12);
        f.bandwidth_bytes_per_second = static_cast<double>(f.large_words) * sizeof(double) / t;
    }
    return f;
}

nlohmann::json link_json(const LinkFigures& f)
{
    nlohmann::json j = {{"latency_seconds", f.latency_seconds},
                        {"bandwidth_bytes_per_second", f.bandwidth_bytes_per_second},
                        {"allreduce_seconds", f.allreduce_seconds}};
    if (!f.host_staged_path.empty()) j["host_staged_path"] = f.host_staged_path;
    if (!f.host_staged_note.empty()) j["host_staged_note"] = f.host_staged_note;
    return j;
}

}  // namespace kbench::harness
