// Halo exchange of a distributed vector on the host, over MPI (the first half of the papers'
// path: zianekhodja2014 Sec. 4 and yamazaki2014 Sec. IV exchange compressed vectors, only the
// entries a neighbour's rows need, one message per neighbour; the GPU versions are in
// halo_exchange_gpu.hpp), and the counters of bytes and messages that the models of
// yamazaki2014 Figs. 7 and 8 price.
//
// One exchange of a local vector x_local (layout of row_distribution.hpp):
//   post MPI_Irecv from every recv_ranks[k] straight into its ghost block
//       x_local[num_owned + recv_offsets[k] .. num_owned + recv_offsets[k+1]),
//   pack x_local[send_local[e]] into one contiguous send buffer,
//   MPI_Isend each neighbour's slice of it, MPI_Waitall.
// The ghosts of a neighbour are contiguous in x_local, so nothing is unpacked.
#pragma once

#include "solvers/distributed/communicator.hpp"
#include "solvers/distributed/row_distribution.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace kbench::dist {

/// Traffic of halo exchanges and reductions, summed over the calls since the last reset. Bytes
/// are payload bytes (vector entries x sizeof(T)), without MPI's or NCCL's headers.
struct ExchangeCounters {
    std::int64_t exchanges = 0;             // halo exchanges done
    std::int64_t messages_sent = 0;         // point-to-point messages (one per neighbour)
    std::int64_t messages_received = 0;
    std::int64_t bytes_sent = 0;            // through the transport (MPI or NCCL)
    std::int64_t bytes_received = 0;
    std::int64_t bytes_device_to_host = 0;  // host-staged GPU path: the copies over PCIe
    std::int64_t bytes_host_to_device = 0;
    std::int64_t reductions = 0;            // all-reduces done
    std::int64_t reduction_bytes = 0;       // bytes each rank contributes to them

    ExchangeCounters& operator+=(const ExchangeCounters& o);
    bool operator==(const ExchangeCounters& o) const;
    bool operator!=(const ExchangeCounters& o) const { return !(*this == o); }
};

/// The counters of one halo exchange of `layout` with entries of `word_bytes` bytes: 1 exchange,
/// messages_sent/received = layout.messages_sent/received(), bytes = words x word_bytes, and for
/// `host_staged` (the GPU's device -> host -> MPI -> host -> device path) the PCIe copies: the
/// packed send words down, the ghost words up. The model's side of the measured counters.
ExchangeCounters exchange_counts(const HaloLayout& layout, std::size_t word_bytes,
                                 bool host_staged = false);

/// Checks a layout's internal consistency (sizes of the offset arrays, offsets increasing and
/// ending at the list sizes, neighbours distinct and != rank, send_local < num_owned) and that
/// it belongs to this rank of `comm`: layout.rank == comm.rank() and layout.num_parts ==
/// comm.size() (one part per rank). Throws std::invalid_argument naming "layout".
void check_layout(const Communicator& comm, const HaloLayout& layout);

namespace detail {

/// The MPI messages of one exchange: receives into a ghost block, sends from a packed buffer.
/// Used by the host path and by the GPU's host-staged path (pinned buffers).
class HaloMessages {
public:
    explicit HaloMessages(MPI_Comm comm) : comm_{comm} {}
    /// MPI_Irecv of every neighbour's ghosts into ghosts[recv_offsets[k]..] (num_ghosts entries).
    template <typename T>
    void post_receives(const HaloLayout& layout, T* ghosts);
    /// MPI_Isend of packed[send_offsets[k]..] to every send_ranks[k] (words_sent() entries).
    template <typename T>
    void post_sends(const HaloLayout& layout, const T* packed);
    /// MPI_Waitall on everything posted.
    void wait_all();

    static constexpr int tag = 7301;

private:
    MPI_Comm comm_;
    std::vector<MPI_Request> requests_;
};

}  // namespace detail

/// Host-memory halo exchange of one part's local vectors (T = float or double). Holds the
/// communicator's handle, not a copy: the Communicator must outlive it. Not thread-safe.
class HaloExchange {
public:
    /// Throws std::invalid_argument as check_layout.
    HaloExchange(const Communicator& comm, HaloLayout layout);

    /// Fills the ghost part of x_local (layout().local_size() entries, host memory) with the
    /// owners' entries; reads the owned entries listed in send_local. Collective over the
    /// neighbours: every rank of the communicator calls it for the same vector. Throws
    /// mpi_error when MPI fails.
    template <typename T>
    void exchange(T* x_local);
    /// The same on a vector; throws std::invalid_argument ("x_local") for a wrong size.
    template <typename T>
    void exchange(std::vector<T>& x_local);

    const HaloLayout& layout() const noexcept { return layout_; }
    const ExchangeCounters& counters() const noexcept { return counters_; }
    void reset_counters() noexcept { counters_ = {}; }

private:
    MPI_Comm comm_;
    HaloLayout layout_;
    std::vector<unsigned char> send_;  // packed send words (sized for double)
    detail::HaloMessages messages_;
    ExchangeCounters counters_;
};

}  // namespace kbench::dist
