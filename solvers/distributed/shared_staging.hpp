// The intra-node fast path of DeviceHaloExchange's host_staged transport (halo_exchange_gpu.hpp;
// zianekhodja2014 Sec. 4, multi-GPU GMRES with one MPI rank per GPU): when every rank of the
// communicator is on one node, the packed send words go device -> one MPI shared-memory window
// (each rank's segment mapped and page-locked in every process) -> the receiver's device, in
// pieces, so that the sender's device -> host copy of one piece overlaps the receiver's host ->
// device copy of the previous one, and MPI carries only zero-byte or one-int signals. This
// replaces OpenMPI's two shared-memory copies of every large message (vader without a
// single-copy mechanism) and the whole-message serialization of the MPI path. Internal header.
#pragma once

#include "kernels/base/cuda_handles.hpp"
#include "solvers/distributed/communicator.hpp"
#include "solvers/distributed/row_distribution.hpp"
#include "solvers/distributed/shared_staging_plan.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace kbench::dist::detail {

/// One MPI shared-memory window (MPI_Win_allocate_shared) over the ranks of a communicator that
/// are all on one node, rank r's segment `bytes` bytes as that rank asked (0 allowed), every
/// segment's address in this process known (MPI_Win_shared_query) and the whole mapped range
/// page-locked for the CUDA copy engines (cudaHostRegister of registration_ranges: once when the
/// segments are contiguous, MPI's default). Neither copyable nor movable.
class SharedWindow {
public:
    /// Collective over `comm` (MPI_Comm_split_type MPI_COMM_TYPE_SHARED, then the window on the
    /// node communicator, then one MPI_Allreduce so that every rank agrees). When the ranks span
    /// several nodes, or the window, a query or a registration fails on any rank, ok() is false on
    /// every rank, nothing is held (the CUDA error is cleared) and why_not() says why. Throws
    /// mpi_error only when the split or the agreement itself fails.
    SharedWindow(MPI_Comm comm, std::size_t bytes);
    /// Unregisters and frees the window (MPI_Win_free: collective over the node). During stack
    /// unwinding (an exception on this rank) the window is left to MPI_Finalize / MPI_Abort
    /// rather than waiting in a collective that the other ranks may never join.
    ~SharedWindow();
    SharedWindow(const SharedWindow&) = delete;
    SharedWindow& operator=(const SharedWindow&) = delete;

    bool ok() const noexcept { return win_ != MPI_WIN_NULL; }
    const std::string& why_not() const noexcept { return why_not_; }
    /// Rank r's segment in this process's address space (null when empty) and its bytes.
    char* segment(int r) const { return bases_.at(static_cast<std::size_t>(r)); }
    std::size_t segment_bytes(int r) const { return sizes_.at(static_cast<std::size_t>(r)); }

private:
    void unregister() noexcept;

    MPI_Win win_ = MPI_WIN_NULL;
    std::vector<char*> bases_;
    std::vector<std::size_t> sizes_;
    std::vector<ByteRange> registered_;
    std::string why_not_;
};

/// The exchange() of the shared-memory path for one halo layout (T = float or double). The
/// protocol of one call, every rank calling it for the same vector:
///  1. post one MPI_Irecv of a "ready" signal (tag ready_tag, one int: the piece index) per
///     neighbour it receives from;
///  2. from the second call on: wait for its host -> device copies of the previous call, MPI_Isend
///     a zero-byte "consumed" (consumed_tag) to every rank it receives from (they may overwrite
///     their segment), MPI_Irecv "consumed" from every rank it sends to, MPI_Waitall;
///  3. enqueue on its own copy stream, after the gather on `stream`, the device -> host copy of
///     each piece (staging_pieces, staging_chunk_bytes) of the packed words into its own segment,
///     an event after each;
///  4. poll until its pieces are all signalled and all its ghosts' pieces arrived: for each own
///     piece whose event completed (in order), MPI_Isend "ready i" to the neighbour it belongs
///     to; for each "ready" arrived (MPI_Testsome), enqueue on `stream` the host -> device copy
///     of that piece from the sender's segment (where the words for this rank start there was
///     exchanged at construction, MPI_Alltoall) into the ghost block, and repost the receive
///     while more pieces are due; then MPI_Waitall on its "ready" sends.
/// Deadlock freedom: a rank blocks only (a) on its own GPU (events of copies that wait on
/// nothing but its own stream), (b) in the consumed MPI_Waitall, after posting its own consumed
/// sends, waiting for receivers that need only finish the previous call, whose ready signals
/// every sender sent before leaving it, and (c) in the final MPI_Waitall on ready sends, whose
/// receivers keep their receives posted (and MPI progressing) until they got every piece. Every
/// request is completed within the call, so consecutive calls, or other exchanges on the same
/// communicator, never match each other's messages (MPI keeps per-sender order per tag).
template <typename T>
class SharedStagingExchange {
public:
    static constexpr int ready_tag = 7302;
    static constexpr int consumed_tag = 7303;

    /// Collective over `comm`. Null, with the reason in why_not, when the path cannot be used
    /// (SharedWindow not ok); every rank gets the same answer. Throws std::invalid_argument
    /// naming "layout" (on every rank) when the ranks' send and receive lists disagree, mpi_error
    /// and kbench::cuda_error.
    static std::unique_ptr<SharedStagingExchange> try_create(MPI_Comm comm,
                                                             const HaloLayout& layout,
                                                             std::string& why_not);
    /// Waits for its pending host -> device copies, then frees the window (collective).
    ~SharedStagingExchange();
    SharedStagingExchange(const SharedStagingExchange&) = delete;
    SharedStagingExchange& operator=(const SharedStagingExchange&) = delete;

    /// Steps 1-4 above: d_send holds the packed words (words_sent()), or will once the work
    /// already on `stream` is done; the ghosts of d_x (entries num_owned..) are written by copies
    /// enqueued on `stream`. Returns when every piece is signalled and every ghost copy enqueued.
    /// Throws mpi_error, kbench::cuda_error, std::logic_error on a signal out of order.
    void exchange(const T* d_send, T* d_x, cudaStream_t stream);

private:
    SharedStagingExchange() = default;
    void post_ready_receive(std::size_t j);

    MPI_Comm comm_ = MPI_COMM_NULL;
    std::unique_ptr<SharedWindow> window_;
    index_type num_owned_ = 0;
    char* own_ = nullptr;                    // this rank's segment (null when it sends nothing)
    std::vector<int> send_ranks_, recv_ranks_;
    std::vector<index_type> recv_offsets_;
    std::vector<StagingPiece> pieces_;       // own pieces, in copy (and signal) order
    std::vector<const char*> recv_source_;   // per recv neighbour: its words for this rank
    std::vector<int> recv_pieces_;           // per recv neighbour: pieces due per call
    cuda_stream copy_stream_;                // the device -> host copies
    kbench::detail::unique_handle<cudaEvent_t, kbench::detail::destroy_event> packed_, h2d_done_;
    std::vector<kbench::detail::unique_handle<cudaEvent_t, kbench::detail::destroy_event>>
        piece_done_;
    bool h2d_pending_ = false;
    std::int64_t calls_ = 0;
    // Per-call scratch, kept to avoid allocations.
    std::vector<MPI_Request> ready_recv_, requests_;
    std::vector<int> ready_buf_, received_, completed_;
};

}  // namespace kbench::dist::detail
