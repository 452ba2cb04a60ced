// Measured figures of the link between ranks, for the per-iteration time model of the
// zianekhodja2014 study (models/gmres_comm_model.hpp): the time of one halo exchange between
// ranks 0 and 1 (each sends the other `words` doubles at once, as in a halo exchange) through
// the very code the solver uses (HaloExchange on the host, DeviceHaloExchange over host_staged
// or NCCL on the GPU), for a one-word and a large exchange, and the time of a one-value
// all-reduce over all ranks. Needs MPI (built only with it).
#pragma once

#include "solvers/distributed/halo_exchange_gpu.hpp"

namespace kbench::harness {

struct LinkFigures {
    double latency_seconds = 0.0;     // one exchange of 1 word each way (median)
    double bandwidth_bytes_per_second = 0.0;  // large words x 8 bytes / (its time - latency)
    double allreduce_seconds = 0.0;   // one all-reduce of one double over all ranks (median)
    std::int64_t large_words = 0;     // the words of the large exchange
};

/// Measures LinkFigures. `gpu`: device vectors over `transport` (nccl needs `nccl`); otherwise
/// host vectors over MPI. With one rank the exchange figures are 0 (no link) and the all-reduce
/// is timed all the same. Collective. Median of 30 timed repetitions after 5 untimed ones,
/// every repetition between barriers. Throws mpi_error, nccl_error or kbench::cuda_error.
LinkFigures measure_link(const dist::Communicator& comm, bool gpu, dist::Transport transport,
                         dist::NcclCommunicator* nccl);

}  // namespace kbench::harness
