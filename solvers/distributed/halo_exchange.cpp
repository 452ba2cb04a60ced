// Host-path halo exchange over MPI and its counters; see halo_exchange.hpp.
#include "solvers/distributed/halo_exchange.hpp"

#include <stdexcept>
#include <string>
#include <utility>

namespace kbench::dist {

namespace {

[[noreturn]] void fail(const std::string& what) { throw std::invalid_argument(what); }

std::string str(long long v) { return std::to_string(v); }

// offsets: lists.size() + 1 entries, from 0, non-decreasing, ending at `total`.
void check_offsets(const std::vector<int>& ranks, const std::vector<index_type>& offsets,
                   std::size_t total, const HaloLayout& h, const char* name)
{
    const std::string what = std::string("layout: ") + name;
    if (offsets.size() != ranks.size() + 1)
        fail(what + "_offsets has " + str(static_cast<long long>(offsets.size())) +
             " entries, expected " + name + "_ranks.size() + 1 = " +
             str(static_cast<long long>(ranks.size() + 1)));
    if (offsets.front() != 0 || static_cast<std::size_t>(offsets.back()) != total)
        fail(what + "_offsets must run from 0 to " + str(static_cast<long long>(total)));
    for (std::size_t k = 0; k < ranks.size(); ++k) {
        if (offsets[k + 1] <= offsets[k])
            fail(what + "_offsets not increasing at " + str(static_cast<long long>(k)) +
                 " (an empty message)");
        if (ranks[k] < 0 || ranks[k] >= h.num_parts || ranks[k] == h.rank ||
            (k > 0 && ranks[k] <= ranks[k - 1]))
            fail(what + "_ranks[" + str(static_cast<long long>(k)) + "] = " + str(ranks[k]) +
                 ", expected increasing ranks in [0, " + str(h.num_parts) + ") other than " +
                 str(h.rank));
    }
}

}  // namespace

ExchangeCounters& ExchangeCounters::operator+=(const ExchangeCounters& o)
{
    exchanges += o.exchanges;
    messages_sent += o.messages_sent;
    messages_received += o.messages_received;
    bytes_sent += o.bytes_sent;
    bytes_received += o.bytes_received;
    bytes_device_to_host += o.bytes_device_to_host;
    bytes_host_to_device += o.bytes_host_to_device;
    reductions += o.reductions;
    reduction_bytes += o.reduction_bytes;
    return *this;
}

bool ExchangeCounters::operator==(const ExchangeCounters& o) const
{
    return exchanges == o.exchanges && messages_sent == o.messages_sent &&
           messages_received == o.messages_received && bytes_sent == o.bytes_sent &&
           bytes_received == o.bytes_received && bytes_device_to_host == o.bytes_device_to_host &&
           bytes_host_to_device == o.bytes_host_to_device && reductions == o.reductions &&
           reduction_bytes == o.reduction_bytes;
}

ExchangeCounters exchange_counts(const HaloLayout& layout, std::size_t word_bytes,
                                 bool host_staged)
{
    const auto w = static_cast<std::int64_t>(word_bytes);
    ExchangeCounters c;
    c.exchanges = 1;
    c.messages_sent = layout.messages_sent();
    c.messages_received = layout.messages_received();
    c.bytes_sent = static_cast<std::int64_t>(layout.words_sent()) * w;
    c.bytes_received = static_cast<std::int64_t>(layout.words_received()) * w;
    if (host_staged) {
        c.bytes_device_to_host = c.bytes_sent;
        c.bytes_host_to_device = c.bytes_received;
    }
    return c;
}

void check_layout(const Communicator& comm, const HaloLayout& h)
{
    if (h.rank != comm.rank() || h.num_parts != comm.size())
        fail("layout: part " + str(h.rank) + " of " + str(h.num_parts) + " parts, expected part " +
             str(comm.rank()) + " of " + str(comm.size()) + " (one part per rank, part = rank)");
    if (h.num_owned < 0 || h.owned_global.size() != static_cast<std::size_t>(h.num_owned) ||
        h.num_ghosts < 0 || h.ghost_global.size() != static_cast<std::size_t>(h.num_ghosts))
        fail("layout: num_owned = " + str(h.num_owned) + ", num_ghosts = " + str(h.num_ghosts) +
             " disagree with owned_global (" + str(static_cast<long long>(h.owned_global.size())) +
             ") and ghost_global (" + str(static_cast<long long>(h.ghost_global.size())) + ")");
    check_offsets(h.recv_ranks, h.recv_offsets, h.ghost_global.size(), h, "recv");
    check_offsets(h.send_ranks, h.send_offsets, h.send_local.size(), h, "send");
    for (std::size_t e = 0; e < h.send_local.size(); ++e)
        if (h.send_local[e] < 0 || h.send_local[e] >= h.num_owned)
            fail("layout: send_local[" + str(static_cast<long long>(e)) + "] = " +
                 str(h.send_local[e]) + ", expected in [0, num_owned = " + str(h.num_owned) + ")");
}

namespace detail {

template <typename T>
void HaloMessages::post_receives(const HaloLayout& h, T* ghosts)
{
    for (std::size_t k = 0; k < h.recv_ranks.size(); ++k) {
        requests_.emplace_back();
        KBENCH_MPI_CHECK(MPI_Irecv(ghosts + h.recv_offsets[k],
                                   static_cast<int>(h.recv_offsets[k + 1] - h.recv_offsets[k]),
                                   mpi_type<T>(), h.recv_ranks[k], tag, comm_, &requests_.back()));
    }
}

template <typename T>
void HaloMessages::post_sends(const HaloLayout& h, const T* packed)
{
    for (std::size_t k = 0; k < h.send_ranks.size(); ++k) {
        requests_.emplace_back();
        KBENCH_MPI_CHECK(MPI_Isend(packed + h.send_offsets[k],
                                   static_cast<int>(h.send_offsets[k + 1] - h.send_offsets[k]),
                                   mpi_type<T>(), h.send_ranks[k], tag, comm_, &requests_.back()));
    }
}

void HaloMessages::wait_all()
{
    std::vector<MPI_Request> pending;
    pending.swap(requests_);
    if (pending.empty()) return;
    KBENCH_MPI_CHECK(
        MPI_Waitall(static_cast<int>(pending.size()), pending.data(), MPI_STATUSES_IGNORE));
}

template void HaloMessages::post_receives<float>(const HaloLayout&, float*);
template void HaloMessages::post_receives<double>(const HaloLayout&, double*);
template void HaloMessages::post_sends<float>(const HaloLayout&, const float*);
template void HaloMessages::post_sends<double>(const HaloLayout&, const double*);

}  // namespace detail

HaloExchange::HaloExchange(const Communicator& comm, HaloLayout layout)
    : comm_{comm.get()}, layout_{std::move(layout)}, messages_{comm.get()}
{
    check_layout(comm, layout_);
    send_.resize(layout_.send_local.size() * sizeof(double));
}

template <typename T>
void HaloExchange::exchange(T* x_local)
{
    const HaloLayout& h = layout_;
    if (x_local == nullptr && h.local_size() > 0)
        fail("x_local: null, expected " + str(h.local_size()) + " entries");
    messages_.post_receives(h, x_local + h.num_owned);
    T* packed = reinterpret_cast<T*>(send_.data());
    for (std::size_t e = 0; e < h.send_local.size(); ++e)
        packed[e] = x_local[static_cast<std::size_t>(h.send_local[e])];
    messages_.post_sends(h, static_cast<const T*>(packed));
    messages_.wait_all();
    counters_ += exchange_counts(h, sizeof(T));
}

template <typename T>
void HaloExchange::exchange(std::vector<T>& x_local)
{
    if (x_local.size() != static_cast<std::size_t>(layout_.local_size()))
        fail("x_local: " + str(static_cast<long long>(x_local.size())) +
             " entries, expected local_size() = num_owned + num_ghosts = " +
             str(layout_.local_size()));
    exchange(x_local.data());
}

template void HaloExchange::exchange<float>(float*);
template void HaloExchange::exchange<double>(double*);
template void HaloExchange::exchange<float>(std::vector<float>&);
template void HaloExchange::exchange<double>(std::vector<double>&);

}  // namespace kbench::dist
