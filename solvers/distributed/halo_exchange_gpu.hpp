// Halo exchange and all-reduce of distributed vectors in GPU memory, over one of two transports,
// selectable so that both can be measured:
//  * host_staged, the papers' path (zianekhodja2014 Sec. 4, yamazaki2014 Sec. IV with MPI
//    between GPUs): a gather kernel packs the send entries on the device, then by one of two
//    mechanisms, chosen once at construction and the same on every rank (host_staged_path()):
//    - "shared_memory", when every rank is on one node (shared_staging.hpp): the packed words go
//      in pieces of 2 MiB by cudaMemcpyAsync into this rank's segment of one MPI shared-memory
//      window (MPI_Win_allocate_shared, mapped and cudaHostRegister-ed in every process); a
//      one-int MPI "ready" signal per piece tells the receiver, which copies the piece
//      straight from the sender's segment into its ghost block, so one GPU's device -> host
//      copy overlaps another's host -> device copy and MPI moves no payload; a zero-byte
//      "consumed" signal per neighbour and call keeps a sender from overwriting its segment
//      before its receivers copied the previous call's words;
//    - "mpi_messages" otherwise (several nodes, or the window or its registration failed): one
//      cudaMemcpyAsync to pinned host memory, MPI_Isend/Irecv per neighbour (receives posted
//      first), one cudaMemcpyAsync of all ghosts, contiguous in the local vector, back on the
//      device.
//    All-reduce: device -> pinned host, MPI_Allreduce, host -> device.
//  * nccl, device-direct: the same gather kernel, then ncclSend/ncclRecv per neighbour inside
//    one ncclGroupStart/End, straight from and into device memory, and ncclAllReduce in place;
//    everything enqueued on the caller's stream. Needs NCCL at build time (nccl_available()) and
//    one GPU per rank. NVLink SHARP / multicast is never used: NCCL_NVLS_ENABLE=0 is put into
//    the environment before the NCCL communicator is created (unless already set).
// Layouts are those of row_distribution.hpp; ghosts of one neighbour are contiguous, so the
// receiving side needs no scatter kernel.
#pragma once

#include "solvers/distributed/communicator.hpp"
#include "solvers/distributed/halo_exchange.hpp"
#include "solvers/distributed/row_distribution.hpp"

#include <cuda_runtime_api.h>

#include <memory>
#include <stdexcept>
#include <string>

namespace kbench::dist {

/// How device vectors travel between ranks.
enum class Transport {
    host_staged,  // device -> pinned host -> MPI -> pinned host -> device
    nccl,         // NCCL point-to-point and all-reduce on device buffers
};

/// "host_staged" or "nccl".
const char* to_string(Transport t);
/// Parses "host_staged" (also "host", "mpi") or "nccl"; throws std::invalid_argument naming
/// "transport" for anything else.
Transport parse_transport(const std::string& name);

/// Whether the NCCL transport was built (NCCL found at configuration; cmake/FindNCCL.cmake).
bool nccl_available();

/// Makes device `local_rank % device count` current (rank r of a node uses GPU r when there are
/// as many GPUs as ranks) and returns it. Throws kbench::cuda_error without a usable device.
int select_device(const Communicator& comm);

/// Thrown when an NCCL call fails: "file:line: call failed: <ncclGetErrorString> (<last error>)".
class nccl_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// An NCCL communicator over the ranks of `comm`, one per rank, on the device current at
/// construction (select_device first). Move-only; ncclCommDestroy on destruction. The unique id
/// is made by rank 0 and broadcast over MPI.
class NcclCommunicator {
public:
    /// Collective over comm. Sets NCCL_NVLS_ENABLE=0 unless the environment sets it. Throws
    /// std::runtime_error when NCCL was not built, nccl_error when NCCL fails (e.g. two ranks on
    /// one GPU), mpi_error when the broadcast fails.
    explicit NcclCommunicator(const Communicator& comm);
    ~NcclCommunicator();
    NcclCommunicator(NcclCommunicator&&) noexcept;
    NcclCommunicator& operator=(NcclCommunicator&&) noexcept;

    int rank() const noexcept;
    int size() const noexcept;
    /// The device the communicator was created on.
    int device() const noexcept;
    /// The ncclComm_t, as an opaque pointer (the header does not include nccl.h).
    void* handle() const noexcept;

    struct Impl;

private:
    std::unique_ptr<Impl> impl_;
};

/// Halo exchange and all-reduce of one part's local vectors in device memory (T = float or
/// double). Holds the communicator's MPI handle and a pointer to the NCCL communicator, which
/// must both outlive it. Not thread-safe; use one stream (its buffers are reused by the next
/// call once the previous one's copies are done, which it waits for). On the host_staged
/// shared-memory path, construction and destruction are collective over the communicator
/// (the window is allocated and freed by all ranks together).
template <typename T>
class DeviceHaloExchange {
public:
    /// Uploads the send list. `nccl` is required for Transport::nccl (same size as comm) and
    /// ignored otherwise. host_staged: collective over comm (node split, shared window, one
    /// MPI_Alltoall of where each rank's words for each other rank start, agreement); falls back
    /// to the MPI-message path when the shared one cannot be set up. Throws
    /// std::invalid_argument as check_layout, or naming "nccl" when it is missing or of another
    /// size, or "layout" (host_staged on one node) when the ranks' send and receive lists
    /// disagree; std::runtime_error for nccl when NCCL was not built; kbench::cuda_error on CUDA
    /// failures, mpi_error on MPI failures.
    DeviceHaloExchange(const Communicator& comm, HaloLayout layout, Transport transport,
                       NcclCommunicator* nccl = nullptr);
    ~DeviceHaloExchange();
    DeviceHaloExchange(DeviceHaloExchange&&) noexcept;
    DeviceHaloExchange& operator=(DeviceHaloExchange&&) noexcept;

    /// Fills the ghost part of the device vector d_x (layout().local_size() entries) with the
    /// owners' entries, ordered on `stream` after the work already enqueued there and before the
    /// work enqueued after. host_staged returns once MPI is done (the host -> device copies are
    /// enqueued); nccl returns at once (all enqueued). Every rank calls it for the same vector.
    /// Throws kbench::cuda_error, mpi_error or nccl_error.
    void exchange(T* d_x, cudaStream_t stream);

    /// d_values[i] := sum over ranks of d_values[i], i < count, in place in device memory,
    /// ordered on `stream` (e.g. the local dot products of a Gram-Schmidt step). On one rank it
    /// moves nothing (counted all the same). Throws std::invalid_argument for count < 0.
    void allreduce_sum(T* d_values, int count, cudaStream_t stream);

    Transport transport() const noexcept;
    /// host_staged: whether exchange() takes the shared-memory path (the same on every rank);
    /// false for nccl.
    bool shared_staging() const noexcept;
    /// "shared_memory" or "mpi_messages" for host_staged (the benchmark JSON's
    /// "host_staged_path"), "" for nccl.
    const char* host_staged_path() const noexcept;
    /// Why host_staged uses MPI messages (e.g. "the ranks span several nodes", a failed
    /// cudaHostRegister); "" on the shared-memory path and for nccl.
    const std::string& shared_staging_note() const noexcept;
    const HaloLayout& layout() const noexcept;
    const ExchangeCounters& counters() const noexcept;
    void reset_counters() noexcept;

    struct Impl;

private:
    std::unique_ptr<Impl> impl_;
};

}  // namespace kbench::dist
