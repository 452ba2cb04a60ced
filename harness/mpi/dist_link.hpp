// Measured figures of the link between ranks, for the per-iteration time model of the
// zianekhodja2014 study (models/gmres_comm_model.hpp): the time of one halo exchange between
// ranks 0 and 1 (each sends the other `words` doubles at once, as in a halo exchange) through
// the very code the solver uses (HaloExchange on the host, DeviceHaloExchange over host_staged
// or NCCL on the GPU), for a one-word and a large exchange, and the time of a one-value
// all-reduce over all ranks. Needs MPI (built only with it).
#pragma once

#include "solvers/distributed/halo_exchange_gpu.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace kbench::harness {

struct LinkFigures {
    double latency_seconds = 0.0;     // one exchange of 1 word each way (median)
    double bandwidth_bytes_per_second = 0.0;  // large words x 8 bytes / (its time - latency)
    double allreduce_seconds = 0.0;   // one all-reduce of one double over all ranks (median)
    std::int64_t large_words = 0;     // the words of the large exchange
    // GPU ranks over host_staged: the exchange's mechanism, "shared_memory" or "mpi_messages"
    // (DeviceHaloExchange::host_staged_path); "" otherwise.
    std::string host_staged_path;
    // With "mpi_messages": why not shared memory (DeviceHaloExchange::shared_staging_note).
    std::string host_staged_note;
};

/// The workers' "link" object: {"latency_seconds", "bandwidth_bytes_per_second",
/// "allreduce_seconds"}, plus "host_staged_path" and "host_staged_note" when not empty.
nlohmann::json link_json(const LinkFigures& f);

/// Measures LinkFigures. `gpu`: device vectors over `transport` (nccl needs `nccl`); otherwise
/// host vectors over MPI. With one rank the exchange figures are 0 (no link) and the all-reduce
/// is timed all the same. Collective. Median of 30 timed repetitions after 5 untimed ones,
/// every repetition between barriers. Throws mpi_error, nccl_error or kbench::cuda_error.
LinkFigures measure_link(const dist::Communicator& comm, bool gpu, dist::Transport transport,
                         dist::NcclCommunicator* nccl);

}  // namespace kbench::harness
