// Distributed SpMV on the CPU and on the GPU, distributed dot and gather; see
// distributed_spmv.hpp.
#include "solvers/distributed/distributed_spmv.hpp"

#include "kernels/base/cuda_check.hpp"
#include "kernels/base/cuda_handles.hpp"
#include "kernels/base/device_buffer.hpp"
#include "kernels/spmv.hpp"
#include "solvers/distributed/interior_boundary.hpp"
#include "solvers/distributed/pack.hpp"

#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

namespace kbench::dist {

namespace {

[[noreturn]] void fail(const std::string& what) { throw std::invalid_argument(what); }

std::string str(long long v) { return std::to_string(v); }

template <typename T>
void check_local(const LocalMatrix<T>& local)
{
    const HaloLayout& h = local.halo;
    if (local.a.num_rows != h.num_owned || local.a.num_cols != h.local_size())
        fail("local: A_local is " + str(local.a.num_rows) + " x " + str(local.a.num_cols) +
             ", expected num_owned x (num_owned + num_ghosts) = " + str(h.num_owned) + " x " +
             str(h.local_size()));
    validate(local.a, "local: A_local");
}

}  // namespace

// ---- CPU -----------------------------------------------------------------------------------

template <typename T>
DistributedSpmvCpu<T>::DistributedSpmvCpu(const Communicator& comm, const LocalMatrix<T>& local)
    : a_{(check_local(local), local.a)}, exchange_{comm, local.halo}
{}

template <typename T>
void DistributedSpmvCpu<T>::apply(T alpha, T* x_local, T beta, T* y_local)
{
    if (y_local == nullptr && a_.num_rows > 0)
        fail("y_local: null, expected " + str(a_.num_rows) + " entries");
    exchange_.exchange(x_local);
    spmv::reference::csr(a_.view(), alpha, static_cast<const T*>(x_local), beta, y_local);
}

template <typename T>
void DistributedSpmvCpu<T>::apply(T alpha, std::vector<T>& x_local, T beta,
                                  std::vector<T>& y_local)
{
    if (x_local.size() != static_cast<std::size_t>(a_.num_cols))
        fail("x_local: " + str(static_cast<long long>(x_local.size())) +
             " entries, expected local_size() = " + str(a_.num_cols));
    if (y_local.size() != static_cast<std::size_t>(a_.num_rows))
        fail("y_local: " + str(static_cast<long long>(y_local.size())) +
             " entries, expected num_owned = " + str(a_.num_rows));
    apply(alpha, x_local.data(), beta, y_local.data());
}

// ---- GPU -----------------------------------------------------------------------------------

namespace {

using stream_owner = kbench::detail::unique_handle<cudaStream_t, kbench::detail::destroy_stream>;
using event_owner = kbench::detail::unique_handle<cudaEvent_t, kbench::detail::destroy_event>;

/// A non-blocking stream of the device's greatest priority: its kernels (the exchange's gather)
/// are scheduled before the waiting blocks of the caller's stream (the interior product).
stream_owner make_comm_stream()
{
    int least = 0, greatest = 0;
    KBENCH_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    cudaStream_t s{};
    KBENCH_CUDA_CHECK(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, greatest));
    return stream_owner(s);
}

/// An event for ordering streams only (no timing).
event_owner make_sync_event()
{
    cudaEvent_t e{};
    KBENCH_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    return event_owner(e);
}

}  // namespace

template <typename T>
struct DistributedSpmv<T>::Impl {
    Impl(DeviceHaloExchange<T> ex, index_type owned, index_type size, bool ov)
        : exchange{std::move(ex)}, num_owned{owned}, local_size{size}, overlap{ov}
    {}
    DeviceHaloExchange<T> exchange;
    index_type num_owned;
    index_type local_size;
    bool overlap;
    // The rows multiplied without the halo (interior: no ghost column) and with it (boundary).
    // Without overlap every row counts as boundary: `boundary` is A_local's operator.
    std::optional<spmv::SpmvOperator<T>> interior;  // none without interior rows or overlap
    std::optional<spmv::SpmvOperator<T>> boundary;  // none without boundary rows
    index_type num_boundary = 0;  // rows of `boundary` (0 without overlap)
    // Whether `boundary` covers every row in order (no interior row, or no overlap): applied
    // with alpha and beta straight into y. Otherwise it writes t, which scatter_add adds.
    bool in_place = true;
    device_buffer<index_type> d_boundary_rows;  // num_boundary local rows (not in place)
    device_buffer<T> d_t;                       // num_boundary products (not in place)
    // The overlapped path (interior rows with overlap only): the exchange's stream, the event
    // it waits for on the caller's stream, and the one the caller's stream waits for.
    stream_owner comm;
    event_owner ready;
    event_owner exchanged;

    /// y (boundary rows) := alpha * A_b x + beta * y, on `stream`, after the interior product
    /// (which scaled them by beta) unless in place.
    void boundary_product(T alpha, const T* d_x, T beta, T* d_y, cudaStream_t stream)
    {
        if (!boundary) return;
        if (in_place) return boundary->apply(alpha, d_x, beta, d_y, stream);
        boundary->apply(T(1), d_x, T(0), d_t.data(), stream);
        detail::scatter_add(alpha, static_cast<const T*>(d_t.data()), d_boundary_rows.data(),
                            num_boundary, d_y, stream);
    }
};

template <typename T>
DistributedSpmv<T>::DistributedSpmv(const Communicator& comm, const LocalMatrix<T>& local,
                                    Transport transport, const spmv::Policy& policy,
                                    const models::SpmvMachine& machine, NcclCommunicator* nccl,
                                    bool overlap)
{
    check_local(local);
    const index_type owned = local.halo.num_owned;
    // One part exchanges nothing: nothing to hide, so no second stream and no events.
    overlap = overlap && local.halo.num_parts > 1;
    impl_ = std::make_unique<Impl>(DeviceHaloExchange<T>(comm, local.halo, transport, nccl),
                                   owned, local.halo.local_size(), overlap);
    Impl& m = *impl_;
    if (owned == 0) return;
    if (!overlap) {
        m.boundary.emplace(local.a, policy, machine);
        return;
    }
    InteriorBoundarySplit<T> split = split_interior_boundary(local.a, owned);
    m.num_boundary = split.num_boundary();
    if (split.num_interior() == 0) {
        // Every row needs the halo: nothing to overlap, A_local's operator after the exchange.
        m.boundary.emplace(local.a, policy, machine);
        return;
    }
    m.interior.emplace(split.interior, policy, machine);
    split.interior = Csr<T>{};  // its host copy is no longer needed
    if (m.num_boundary > 0) {
        m.in_place = false;
        m.boundary.emplace(split.boundary, policy, machine);
        m.d_boundary_rows = device_buffer<index_type>(split.boundary_rows);
        m.d_t = device_buffer<T>(static_cast<std::size_t>(m.num_boundary));
    }
    m.comm = make_comm_stream();
    m.ready = make_sync_event();
    m.exchanged = make_sync_event();
}

template <typename T>
DistributedSpmv<T>::~DistributedSpmv() = default;
template <typename T>
DistributedSpmv<T>::DistributedSpmv(DistributedSpmv&&) noexcept = default;
template <typename T>
DistributedSpmv<T>& DistributedSpmv<T>::operator=(DistributedSpmv&&) noexcept = default;

template <typename T>
void DistributedSpmv<T>::apply(T alpha, T* d_x, T beta, T* d_y, cudaStream_t stream)
{
    Impl& m = *impl_;
    if (!m.interior) return apply_serial(alpha, d_x, beta, d_y, stream);
    // The comm stream starts after what the caller enqueued before (x is ready).
    KBENCH_CUDA_CHECK(cudaEventRecord(m.ready, stream));
    KBENCH_CUDA_CHECK(cudaStreamWaitEvent(m.comm, m.ready, 0));
    // Interior rows first, so that the GPU computes while a host_staged exchange holds the host
    // in MPI. They read only the owned entries of x, which the exchange only reads too; the
    // exchange writes the ghost entries.
    m.interior->apply(alpha, d_x, beta, d_y, stream);
    m.exchange.exchange(d_x, m.comm);
    KBENCH_CUDA_CHECK(cudaEventRecord(m.exchanged, m.comm));
    KBENCH_CUDA_CHECK(cudaStreamWaitEvent(stream, m.exchanged, 0));
    m.boundary_product(alpha, d_x, beta, d_y, stream);
}

template <typename T>
void DistributedSpmv<T>::apply_serial(T alpha, T* d_x, T beta, T* d_y, cudaStream_t stream)
{
    Impl& m = *impl_;
    m.exchange.exchange(d_x, stream);
    if (m.interior) m.interior->apply(alpha, d_x, beta, d_y, stream);
    m.boundary_product(alpha, d_x, beta, d_y, stream);
}

template <typename T>
index_type DistributedSpmv<T>::num_owned() const noexcept
{
    return impl_->num_owned;
}
template <typename T>
index_type DistributedSpmv<T>::local_size() const noexcept
{
    return impl_->local_size;
}
template <typename T>
bool DistributedSpmv<T>::overlap() const noexcept
{
    return impl_->overlap;
}
template <typename T>
index_type DistributedSpmv<T>::num_boundary() const noexcept
{
    return impl_->num_boundary;
}
template <typename T>
const spmv::Choice* DistributedSpmv<T>::choice() const noexcept
{
    const Impl& m = *impl_;
    if (m.interior) return &m.interior->choice();
    return m.boundary ? &m.boundary->choice() : nullptr;
}
template <typename T>
const spmv::Choice* DistributedSpmv<T>::boundary_choice() const noexcept
{
    const Impl& m = *impl_;
    return m.interior && m.boundary ? &m.boundary->choice() : nullptr;
}
template <typename T>
DeviceHaloExchange<T>& DistributedSpmv<T>::exchange() noexcept
{
    return impl_->exchange;
}
template <typename T>
const ExchangeCounters& DistributedSpmv<T>::counters() const noexcept
{
    return impl_->exchange.counters();
}

// ---- Reductions and gathers ----------------------------------------------------------------

template <typename T>
T dot(const Communicator& comm, const T* x, const T* y, index_type num_owned)
{
    if (num_owned < 0) fail("num_owned = " + str(num_owned) + ", expected >= 0");
    if (num_owned > 0 && (x == nullptr || y == nullptr))
        fail(std::string(x == nullptr ? "x" : "y") + ": null with num_owned = " + str(num_owned));
    T local = T(0);
    for (index_type i = 0; i < num_owned; ++i) local += x[i] * y[i];
    return comm.allreduce_sum(local);
}

template <typename T>
std::vector<T> allgather(const Communicator& comm, const HaloLayout& layout,
                         const std::vector<T>& x_local, index_type n)
{
    const int owned = layout.num_owned;
    if (x_local.size() < static_cast<std::size_t>(owned))
        fail("x_local: " + str(static_cast<long long>(x_local.size())) +
             " entries, expected at least num_owned = " + str(owned));
    const auto np = static_cast<std::size_t>(comm.size());
    std::vector<int> counts(np, 0);
    KBENCH_MPI_CHECK(
        MPI_Allgather(&owned, 1, MPI_INT, counts.data(), 1, MPI_INT, comm.get()));
    std::vector<int> displs(np, 0);
    long long total = 0;
    for (std::size_t p = 0; p < np; ++p) {
        displs[p] = static_cast<int>(total);
        total += counts[p];
    }
    if (total != n)
        fail("n = " + str(n) + ", expected the total of the owned rows " + str(total));
    std::vector<index_type> rows(static_cast<std::size_t>(total));
    std::vector<T> values(static_cast<std::size_t>(total));
    KBENCH_MPI_CHECK(MPI_Allgatherv(layout.owned_global.data(), owned, MPI_INT32_T, rows.data(),
                                    counts.data(), displs.data(), MPI_INT32_T, comm.get()));
    KBENCH_MPI_CHECK(MPI_Allgatherv(x_local.data(), owned, detail::mpi_type<T>(), values.data(),
                                    counts.data(), displs.data(), detail::mpi_type<T>(),
                                    comm.get()));
    std::vector<T> out(static_cast<std::size_t>(n), T(0));
    for (std::size_t k = 0; k < rows.size(); ++k) {
        if (rows[k] < 0 || rows[k] >= n)
            fail("layout: global row " + str(rows[k]) + " outside [0, n = " + str(n) + ")");
        out[static_cast<std::size_t>(rows[k])] = values[k];
    }
    return out;
}

template class DistributedSpmvCpu<float>;
template class DistributedSpmvCpu<double>;
template class DistributedSpmv<float>;
template class DistributedSpmv<double>;
template float dot<float>(const Communicator&, const float*, const float*, index_type);
template double dot<double>(const Communicator&, const double*, const double*, index_type);
template std::vector<float> allgather<float>(const Communicator&, const HaloLayout&,
                                             const std::vector<float>&, index_type);
template std::vector<double> allgather<double>(const Communicator&, const HaloLayout&,
                                               const std::vector<double>&, index_type);

}  // namespace kbench::dist
