// The shared-memory fast path of the host_staged transport; see shared_staging.hpp.
#include "solvers/distributed/shared_staging.hpp"

#include "kernels/base/cuda_check.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <string>
#include <utility>

namespace kbench::dist::detail {

namespace {

using event_handle = kbench::detail::unique_handle<cudaEvent_t, kbench::detail::destroy_event>;

/// An event without timing (cheaper to record and to poll).
event_handle make_event()
{
    cudaEvent_t e{};
    KBENCH_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    return event_handle(e);
}

}  // namespace

// ---- SharedWindow ----------------------------------------------------------------------------

SharedWindow::SharedWindow(MPI_Comm comm, std::size_t bytes)
{
    int rank = 0, size = 0, node_rank = 0, node_size = 0;
    KBENCH_MPI_CHECK(MPI_Comm_rank(comm, &rank));
    KBENCH_MPI_CHECK(MPI_Comm_size(comm, &size));
    MPI_Comm node = MPI_COMM_NULL;
    KBENCH_MPI_CHECK(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node));
    KBENCH_MPI_CHECK(MPI_Comm_rank(node, &node_rank));
    KBENCH_MPI_CHECK(MPI_Comm_size(node, &node_size));
    // Every rank sees node_size == size when all are on one node, and < size on every rank
    // otherwise: no agreement needed for this test.
    if (node_size != size) {
        MPI_Comm_free(&node);
        why_not_ = "the ranks span several nodes";
        return;
    }
    std::string failure;
    if (node_rank != rank) failure = "the node communicator orders the ranks differently";
    void* base = nullptr;
    MPI_Win win = MPI_WIN_NULL;
    // Key = rank above: node rank r is communicator rank r.
    const int rc = MPI_Win_allocate_shared(static_cast<MPI_Aint>(bytes), 1, MPI_INFO_NULL, node,
                                           &base, &win);
    MPI_Comm_free(&node);  // the window keeps its own group
    if (rc != MPI_SUCCESS) {
        failure = "MPI_Win_allocate_shared: " + mpi_error_string(rc);
        win = MPI_WIN_NULL;
    }
    win_ = win;
    try {
        std::vector<ByteRange> segments;
        if (win_ != MPI_WIN_NULL) {
            KBENCH_MPI_CHECK(MPI_Win_set_errhandler(win_, MPI_ERRORS_RETURN));
            for (int r = 0; r < size && failure.empty(); ++r) {
                MPI_Aint seg_bytes = 0;
                int disp_unit = 0;
                void* ptr = nullptr;
                const int q = MPI_Win_shared_query(win_, r, &seg_bytes, &disp_unit, &ptr);
                if (q != MPI_SUCCESS) {
                    failure = "MPI_Win_shared_query: " + mpi_error_string(q);
                    break;
                }
                const auto n = static_cast<std::size_t>(seg_bytes);
                bases_.push_back(n > 0 ? static_cast<char*>(ptr) : nullptr);
                sizes_.push_back(n);
                const auto begin = reinterpret_cast<std::uintptr_t>(ptr);
                segments.push_back({begin, begin + n});
            }
            if (failure.empty() && sizes_[static_cast<std::size_t>(rank)] != bytes)
                failure = "MPI_Win_shared_query: this rank's segment has another size";
            // First touch by the segment's writer: its pages land on the NUMA node of this
            // rank (and of its GPU, with rank r on GPU r), not of whoever registers first.
            if (failure.empty() && bytes > 0)
                std::memset(bases_[static_cast<std::size_t>(rank)], 0, bytes);
        }
        KBENCH_MPI_CHECK(MPI_Barrier(comm));  // every segment touched before any registration
        const long page = sysconf(_SC_PAGESIZE);
        if (win_ != MPI_WIN_NULL && failure.empty())
            for (const ByteRange& r : registration_ranges(
                     segments, static_cast<std::size_t>(page > 0 ? page : 4096))) {
                const cudaError_t e = cudaHostRegister(reinterpret_cast<void*>(r.begin),
                                                       r.end - r.begin, cudaHostRegisterPortable);
                if (e != cudaSuccess) {
                    (void)cudaGetLastError();  // not sticky; leave no error behind
                    failure = "cudaHostRegister of " + std::to_string(r.end - r.begin) +
                              " bytes: " + cudaGetErrorString(e);
                    break;
                }
                registered_.push_back(r);
            }
        // Every rank takes the same path.
        const int failed = failure.empty() ? 0 : 1;
        int any = 0;
        KBENCH_MPI_CHECK(MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, comm));
        if (any != 0) {
            why_not_ = failure.empty() ? "the shared window failed on another rank" : failure;
            unregister();
            if (win_ != MPI_WIN_NULL) MPI_Win_free(&win_);  // collective: every rank is here
            win_ = MPI_WIN_NULL;
            bases_.clear();
            sizes_.clear();
        }
    } catch (...) {
        unregister();  // the window itself is left to MPI: the other ranks may not free theirs
        throw;
    }
}

void SharedWindow::unregister() noexcept
{
    for (const ByteRange& r : registered_)
        KBENCH_CUDA_CHECK_NOTHROW(cudaHostUnregister(reinterpret_cast<void*>(r.begin)));
    registered_.clear();
}

SharedWindow::~SharedWindow()
{
    unregister();
    if (win_ != MPI_WIN_NULL && std::uncaught_exceptions() == 0 && MpiSession::active())
        MPI_Win_free(&win_);
}

// ---- SharedStagingExchange -------------------------------------------------------------------

template <typename T>
std::unique_ptr<SharedStagingExchange<T>> SharedStagingExchange<T>::try_create(
    MPI_Comm comm, const HaloLayout& h, std::string& why_not)
{
    // Where each rank's words for each other rank start in its packed buffer, and how many:
    // entry 2q, 2q + 1 of `mine` for rank q.
    const auto np = static_cast<std::size_t>(h.num_parts);
    std::vector<long long> mine(2 * np, 0), theirs(2 * np, 0);
    for (std::size_t k = 0; k < h.send_ranks.size(); ++k) {
        const auto q = static_cast<std::size_t>(h.send_ranks[k]);
        mine[2 * q] = h.send_offsets[k];
        mine[2 * q + 1] = h.send_offsets[k + 1] - h.send_offsets[k];
    }
    KBENCH_MPI_CHECK(
        MPI_Alltoall(mine.data(), 2, MPI_LONG_LONG, theirs.data(), 2, MPI_LONG_LONG, comm));
    std::vector<long long> expected(np, 0);
    for (std::size_t j = 0; j < h.recv_ranks.size(); ++j)
        expected[static_cast<std::size_t>(h.recv_ranks[j])] = h.recv_offsets[j + 1] -
                                                              h.recv_offsets[j];
    int mismatch = -1;
    for (std::size_t p = 0; p < np && mismatch < 0; ++p)
        if (theirs[2 * p + 1] != expected[p]) mismatch = static_cast<int>(p);

    auto x = std::unique_ptr<SharedStagingExchange>(new SharedStagingExchange());
    x->window_ = std::make_unique<SharedWindow>(comm, h.send_local.size() * sizeof(T));
    int any_mismatch = 0;
    const int local = mismatch >= 0 ? 1 : 0;
    KBENCH_MPI_CHECK(MPI_Allreduce(&local, &any_mismatch, 1, MPI_INT, MPI_MAX, comm));
    if (any_mismatch != 0) {
        x->window_.reset();  // collective, every rank is here
        std::string what = "layout: the ranks' send and receive lists disagree";
        if (mismatch >= 0) {
            const auto p = static_cast<std::size_t>(mismatch);
            what += " (rank " + std::to_string(mismatch) + " sends this rank " +
                    std::to_string(theirs[2 * p + 1]) + " words, its layout expects " +
                    std::to_string(expected[p]) + ")";
        } else {
            what += " on another rank";
        }
        throw std::invalid_argument(what);
    }
    if (!x->window_->ok()) {
        why_not = x->window_->why_not();
        return nullptr;
    }
    x->comm_ = comm;
    x->num_owned_ = h.num_owned;
    x->own_ = x->window_->segment(h.rank);
    x->send_ranks_ = h.send_ranks;
    x->recv_ranks_ = h.recv_ranks;
    x->recv_offsets_ = h.recv_offsets;
    const index_type chunk = staging_chunk_words<T>();
    x->pieces_ = staging_pieces(h.send_offsets, chunk);
    for (std::size_t j = 0; j < h.recv_ranks.size(); ++j) {
        const auto p = static_cast<std::size_t>(h.recv_ranks[j]);
        x->recv_source_.push_back(x->window_->segment(h.recv_ranks[j]) +
                                  static_cast<std::size_t>(theirs[2 * p]) * sizeof(T));
        x->recv_pieces_.push_back(
            static_cast<int>(piece_count(h.recv_offsets[j + 1] - h.recv_offsets[j], chunk)));
    }
    x->packed_ = make_event();
    x->h2d_done_ = make_event();
    for (std::size_t i = 0; i < x->pieces_.size(); ++i) x->piece_done_.push_back(make_event());
    const std::size_t nrecv = h.recv_ranks.size();
    x->ready_recv_.assign(nrecv, MPI_REQUEST_NULL);
    x->ready_buf_.assign(nrecv, 0);
    x->received_.assign(nrecv, 0);
    x->completed_.assign(nrecv, 0);
    x->requests_.reserve(std::max(x->pieces_.size(), nrecv + h.send_ranks.size()));
    return x;
}

template <typename T>
SharedStagingExchange<T>::~SharedStagingExchange()
{
    // Other processes' copies out of this rank's segment are their own to wait for; they do so
    // before they free the window (the same destructor).
    if (h2d_pending_ && h2d_done_.get() != nullptr)
        KBENCH_CUDA_CHECK_NOTHROW(cudaEventSynchronize(h2d_done_.get()));
}

template <typename T>
void SharedStagingExchange<T>::post_ready_receive(std::size_t j)
{
    KBENCH_MPI_CHECK(MPI_Irecv(&ready_buf_[j], 1, MPI_INT, recv_ranks_[j], ready_tag, comm_,
                               &ready_recv_[j]));
}

template <typename T>
void SharedStagingExchange<T>::exchange(const T* d_send, T* d_x, cudaStream_t stream)
{
    // 1. The ready receives, first: one outstanding per neighbour (its pieces arrive in order).
    long long incoming = 0;
    for (std::size_t j = 0; j < recv_ranks_.size(); ++j) {
        received_[j] = 0;
        ready_recv_[j] = MPI_REQUEST_NULL;
        if (recv_pieces_[j] > 0) post_ready_receive(j);
        incoming += recv_pieces_[j];
    }
    // 2. Consumed: this rank's readers are done with its segment (nothing to wait for at first).
    if (calls_ > 0 && (!recv_ranks_.empty() || !send_ranks_.empty())) {
        if (h2d_pending_) KBENCH_CUDA_CHECK(cudaEventSynchronize(h2d_done_.get()));
        h2d_pending_ = false;
        requests_.assign(recv_ranks_.size() + send_ranks_.size(), MPI_REQUEST_NULL);
        std::size_t r = 0;
        for (const int src : recv_ranks_)
            KBENCH_MPI_CHECK(
                MPI_Isend(nullptr, 0, MPI_BYTE, src, consumed_tag, comm_, &requests_[r++]));
        for (const int dst : send_ranks_)
            KBENCH_MPI_CHECK(
                MPI_Irecv(nullptr, 0, MPI_BYTE, dst, consumed_tag, comm_, &requests_[r++]));
        KBENCH_MPI_CHECK(MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(),
                                     MPI_STATUSES_IGNORE));
    }
    ++calls_;
    // 3. Own pieces into own segment, beside `stream`, after the gather.
    if (!pieces_.empty()) {
        KBENCH_CUDA_CHECK(cudaEventRecord(packed_.get(), stream));
        KBENCH_CUDA_CHECK(cudaStreamWaitEvent(copy_stream_.get(), packed_.get(), 0));
        for (std::size_t i = 0; i < pieces_.size(); ++i) {
            const StagingPiece& p = pieces_[i];
            const auto at = static_cast<std::size_t>(p.offset);
            KBENCH_CUDA_CHECK(cudaMemcpyAsync(own_ + at * sizeof(T), d_send + at,
                                              static_cast<std::size_t>(p.count) * sizeof(T),
                                              cudaMemcpyDeviceToHost, copy_stream_.get()));
            KBENCH_CUDA_CHECK(cudaEventRecord(piece_done_[i].get(), copy_stream_.get()));
        }
    }
    // 4. Signal own pieces as they land; copy the neighbours' pieces as they are signalled.
    const index_type chunk = staging_chunk_words<T>();
    requests_.clear();
    std::size_t next = 0;
    bool any_h2d = false;
    while (next < pieces_.size() || incoming > 0) {
        while (next < pieces_.size()) {
            // Nothing to receive: block on the copy instead of spinning.
            const cudaError_t e = incoming > 0 ? cudaEventQuery(piece_done_[next].get())
                                               : cudaEventSynchronize(piece_done_[next].get());
            if (e == cudaErrorNotReady) break;
            KBENCH_CUDA_CHECK(e);
            const StagingPiece& p = pieces_[next++];
            requests_.emplace_back();
            KBENCH_MPI_CHECK(MPI_Isend(&p.index, 1, MPI_INT, send_ranks_[p.neighbour], ready_tag,
                                       comm_, &requests_.back()));
        }
        if (incoming == 0) continue;
        int done = 0;
        KBENCH_MPI_CHECK(MPI_Testsome(static_cast<int>(ready_recv_.size()), ready_recv_.data(),
                                      &done, completed_.data(), MPI_STATUSES_IGNORE));
        if (done == MPI_UNDEFINED) continue;
        for (int d = 0; d < done; ++d) {
            const auto j = static_cast<std::size_t>(completed_[static_cast<std::size_t>(d)]);
            const int i = received_[j]++;
            if (ready_buf_[j] != i)
                throw std::logic_error("shared staging: piece " + std::to_string(ready_buf_[j]) +
                                       " signalled by rank " + std::to_string(recv_ranks_[j]) +
                                       ", expected piece " + std::to_string(i));
            const index_type begin = static_cast<index_type>(i) * chunk;
            const index_type words =
                std::min(chunk, recv_offsets_[j + 1] - recv_offsets_[j] - begin);
            KBENCH_CUDA_CHECK(cudaMemcpyAsync(
                d_x + num_owned_ + recv_offsets_[j] + begin,
                recv_source_[j] + static_cast<std::size_t>(begin) * sizeof(T),
                static_cast<std::size_t>(words) * sizeof(T), cudaMemcpyHostToDevice, stream));
            any_h2d = true;
            --incoming;
            if (received_[j] < recv_pieces_[j]) post_ready_receive(j);
        }
    }
    if (!requests_.empty())
        KBENCH_MPI_CHECK(MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(),
                                     MPI_STATUSES_IGNORE));
    requests_.clear();
    if (any_h2d) {
        KBENCH_CUDA_CHECK(cudaEventRecord(h2d_done_.get(), stream));
        h2d_pending_ = true;
    }
}

template class SharedStagingExchange<float>;
template class SharedStagingExchange<double>;

}  // namespace kbench::dist::detail
