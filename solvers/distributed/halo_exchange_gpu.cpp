// Device halo exchange and all-reduce over the host-staged (MPI) and NCCL transports; see
// halo_exchange_gpu.hpp. Host code only: the pack kernel is in pack.cu.
#include "solvers/distributed/halo_exchange_gpu.hpp"

#include "kernels/base/cuda_check.hpp"
#include "kernels/base/cuda_handles.hpp"
#include "kernels/base/device_buffer.hpp"
#include "solvers/distributed/pack.hpp"
#include "solvers/distributed/shared_staging.hpp"

#if KBENCH_HAVE_NCCL
#include <nccl.h>
#endif

#include <cstdlib>
#include <stdexcept>
#include <string>
#include <utility>

namespace kbench::dist {

namespace {

[[noreturn]] void fail(const std::string& what) { throw std::invalid_argument(what); }

[[noreturn]] void no_nccl()
{
    throw std::runtime_error(
        "the NCCL transport is not built: NCCL was not found at configuration (pip install "
        "nvidia-nccl-cu13, or -DNCCL_ROOT=DIR; cmake/FindNCCL.cmake); use Transport::host_staged");
}

#if KBENCH_HAVE_NCCL
[[noreturn]] void throw_nccl_error(ncclResult_t r, const char* call, const char* file, int line)
{
    std::string msg = std::string(file) + ":" + std::to_string(line) + ": " + call +
                      " failed: " + ncclGetErrorString(r);
    const char* last = ncclGetLastError(nullptr);
    if (last != nullptr && *last != '\0') msg += " (" + std::string(last) + ")";
    throw nccl_error(msg);
}

template <typename T>
ncclDataType_t nccl_type();
template <>
ncclDataType_t nccl_type<float>()
{
    return ncclFloat32;
}
template <>
ncclDataType_t nccl_type<double>()
{
    return ncclFloat64;
}
#endif

}  // namespace

#if KBENCH_HAVE_NCCL
#define KBENCH_NCCL_CHECK(call)                                            \
    do {                                                                   \
        const ncclResult_t kbench_r = (call);                              \
        if (kbench_r != ncclSuccess)                                       \
            throw_nccl_error(kbench_r, #call, __FILE__, __LINE__);         \
    } while (0)
#endif

const char* to_string(Transport t)
{
    switch (t) {
    case Transport::host_staged: return "host_staged";
    case Transport::nccl: return "nccl";
    }
    return "?";
}

Transport parse_transport(const std::string& name)
{
    if (name == "host_staged" || name == "host" || name == "mpi") return Transport::host_staged;
    if (name == "nccl") return Transport::nccl;
    fail("transport = '" + name + "', expected host_staged (host, mpi) or nccl");
}

bool nccl_available()
{
#if KBENCH_HAVE_NCCL
    return true;
#else
    return false;
#endif
}

int select_device(const Communicator& comm)
{
    int count = 0;
    KBENCH_CUDA_CHECK(cudaGetDeviceCount(&count));
    if (count < 1) throw cuda_error("select_device: no CUDA device");
    const int device = comm.local_rank() % count;
    KBENCH_CUDA_CHECK(cudaSetDevice(device));
    return device;
}

// ---- NcclCommunicator ------------------------------------------------------------------------

struct NcclCommunicator::Impl {
#if KBENCH_HAVE_NCCL
    ncclComm_t comm = nullptr;
#endif
    int rank = 0;
    int size = 1;
    int device = 0;
    ~Impl()
    {
#if KBENCH_HAVE_NCCL
        if (comm != nullptr) ncclCommDestroy(comm);
#endif
    }
};

NcclCommunicator::NcclCommunicator(const Communicator& comm)
{
#if KBENCH_HAVE_NCCL
    // No NVLink SHARP / multicast (NVLS): the measurements are of point-to-point and ring/tree
    // all-reduce only. setenv with overwrite = 0 keeps a value the environment already sets.
    setenv("NCCL_NVLS_ENABLE", "0", 0);
    ncclUniqueId id{};
    if (comm.rank() == 0) KBENCH_NCCL_CHECK(ncclGetUniqueId(&id));
    comm.broadcast(&id, sizeof(id), 0);
    auto impl = std::make_unique<Impl>();
    impl->rank = comm.rank();
    impl->size = comm.size();
    KBENCH_CUDA_CHECK(cudaGetDevice(&impl->device));
    KBENCH_NCCL_CHECK(ncclCommInitRank(&impl->comm, comm.size(), id, comm.rank()));
    impl_ = std::move(impl);
#else
    (void)comm;
    no_nccl();
#endif
}

NcclCommunicator::~NcclCommunicator() = default;
NcclCommunicator::NcclCommunicator(NcclCommunicator&&) noexcept = default;
NcclCommunicator& NcclCommunicator::operator=(NcclCommunicator&&) noexcept = default;

int NcclCommunicator::rank() const noexcept { return impl_ ? impl_->rank : 0; }
int NcclCommunicator::size() const noexcept { return impl_ ? impl_->size : 0; }
int NcclCommunicator::device() const noexcept { return impl_ ? impl_->device : -1; }
void* NcclCommunicator::handle() const noexcept
{
#if KBENCH_HAVE_NCCL
    return impl_ ? static_cast<void*>(impl_->comm) : nullptr;
#else
    return nullptr;
#endif
}

// ---- DeviceHaloExchange ----------------------------------------------------------------------

template <typename T>
struct DeviceHaloExchange<T>::Impl {
    Impl(MPI_Comm c, HaloLayout l, Transport t, NcclCommunicator* n)
        : comm{c}, layout{std::move(l)}, transport{t}, nccl{n}, messages{c}
    {}

    MPI_Comm comm;
    HaloLayout layout;
    Transport transport;
    NcclCommunicator* nccl;
    detail::HaloMessages messages;
    device_buffer<index_type> d_send_local;  // the send list, local indices
    device_buffer<T> d_send;                 // packed send words
    pinned_array<T> h_send;                  // host_staged: packed words on the host
    pinned_array<T> h_recv;                  // host_staged: ghost words on the host
    pinned_array<T> h_reduce;                // host_staged: all-reduce operands
    cuda_event copies_done;  // after the last host -> device copy out of h_recv / h_reduce
    bool copies_pending = false;
    ExchangeCounters counters;
    // host_staged on one node: the shared-memory path (h_send, h_recv unused), else null and why.
    std::unique_ptr<detail::SharedStagingExchange<T>> shared;
    std::string shared_note;

    // The pinned buffers are rewritten only after the previous host -> device copies are done.
    void wait_copies()
    {
        if (copies_pending) copies_done.synchronize();
        copies_pending = false;
    }
};

template <typename T>
DeviceHaloExchange<T>::DeviceHaloExchange(const Communicator& comm, HaloLayout layout,
                                          Transport transport, NcclCommunicator* nccl)
{
    check_layout(comm, layout);
    if (transport == Transport::nccl) {
        if (!nccl_available()) no_nccl();
        if (nccl == nullptr || nccl->size() != comm.size() || nccl->rank() != comm.rank())
            fail("nccl: " +
                 (nccl == nullptr ? std::string("null")
                                  : "rank " + std::to_string(nccl->rank()) + " of " +
                                        std::to_string(nccl->size())) +
                 ", expected an NcclCommunicator of this communicator (rank " +
                 std::to_string(comm.rank()) + " of " + std::to_string(comm.size()) + ")");
    }
    impl_ = std::make_unique<Impl>(comm.get(), std::move(layout), transport, nccl);
    Impl& m = *impl_;
    m.d_send_local = device_buffer<index_type>(m.layout.send_local);
    m.d_send = device_buffer<T>(m.layout.send_local.size());
    if (transport == Transport::host_staged) {
        m.shared = detail::SharedStagingExchange<T>::try_create(m.comm, m.layout, m.shared_note);
        if (!m.shared) {
            m.h_send = pinned_array<T>(m.layout.send_local.size());
            m.h_recv = pinned_array<T>(static_cast<std::size_t>(m.layout.num_ghosts));
        }
    }
}

template <typename T>
DeviceHaloExchange<T>::~DeviceHaloExchange() = default;
template <typename T>
DeviceHaloExchange<T>::DeviceHaloExchange(DeviceHaloExchange&&) noexcept = default;
template <typename T>
DeviceHaloExchange<T>& DeviceHaloExchange<T>::operator=(DeviceHaloExchange&&) noexcept = default;

template <typename T>
void DeviceHaloExchange<T>::exchange(T* d_x, cudaStream_t stream)
{
    Impl& m = *impl_;
    const HaloLayout& h = m.layout;
    if (d_x == nullptr && h.local_size() > 0)
        fail("d_x: null, expected " + std::to_string(h.local_size()) + " device entries");
    const index_type words_sent = h.words_sent();
    detail::gather(static_cast<const T*>(d_x), m.d_send_local.data(), words_sent, m.d_send.data(),
                   stream);
    if (m.transport == Transport::host_staged && m.shared) {
        m.shared->exchange(m.d_send.data(), d_x, stream);
        m.counters += exchange_counts(h, sizeof(T), true);
        return;
    }
    if (m.transport == Transport::host_staged) {
        m.wait_copies();
        // Receives posted while the pack kernel and its copy to the host run.
        m.messages.post_receives(h, m.h_recv.data());
        if (words_sent > 0) {
            KBENCH_CUDA_CHECK(cudaMemcpyAsync(m.h_send.data(), m.d_send.data(),
                                              static_cast<std::size_t>(words_sent) * sizeof(T),
                                              cudaMemcpyDeviceToHost, stream));
            KBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
        }
        m.messages.post_sends(h, static_cast<const T*>(m.h_send.data()));
        m.messages.wait_all();
        if (h.num_ghosts > 0) {
            KBENCH_CUDA_CHECK(cudaMemcpyAsync(d_x + h.num_owned, m.h_recv.data(),
                                              static_cast<std::size_t>(h.num_ghosts) * sizeof(T),
                                              cudaMemcpyHostToDevice, stream));
            m.copies_done.record(stream);
            m.copies_pending = true;
        }
        m.counters += exchange_counts(h, sizeof(T), true);
        return;
    }
#if KBENCH_HAVE_NCCL
    auto* comm = static_cast<ncclComm_t>(m.nccl->handle());
    KBENCH_NCCL_CHECK(ncclGroupStart());
    auto count = [](const std::vector<index_type>& offsets, std::size_t k) {
        return static_cast<std::size_t>(offsets[k + 1] - offsets[k]);
    };
    for (std::size_t k = 0; k < h.recv_ranks.size(); ++k)
        KBENCH_NCCL_CHECK(ncclRecv(d_x + h.num_owned + h.recv_offsets[k], count(h.recv_offsets, k),
                                   nccl_type<T>(), h.recv_ranks[k], comm, stream));
    for (std::size_t k = 0; k < h.send_ranks.size(); ++k)
        KBENCH_NCCL_CHECK(ncclSend(m.d_send.data() + h.send_offsets[k], count(h.send_offsets, k),
                                   nccl_type<T>(), h.send_ranks[k], comm, stream));
    KBENCH_NCCL_CHECK(ncclGroupEnd());
    m.counters += exchange_counts(h, sizeof(T), false);
#else
    no_nccl();
#endif
}

template <typename T>
void DeviceHaloExchange<T>::allreduce_sum(T* d_values, int count, cudaStream_t stream)
{
    if (count < 0)
        fail("DeviceHaloExchange::allreduce_sum: count = " + std::to_string(count) +
             ", expected >= 0");
    if (count == 0) return;
    if (d_values == nullptr)
        fail("DeviceHaloExchange::allreduce_sum: d_values is null with count = " +
             std::to_string(count));
    Impl& m = *impl_;
    const std::size_t bytes = static_cast<std::size_t>(count) * sizeof(T);
    if (m.layout.num_parts == 1) {
        // The sum over one rank is the values themselves: no copy, no MPI, no NCCL launch.
    } else if (m.transport == Transport::host_staged) {
        m.wait_copies();
        if (m.h_reduce.size() < static_cast<std::size_t>(count))
            m.h_reduce = pinned_array<T>(static_cast<std::size_t>(count));
        KBENCH_CUDA_CHECK(cudaMemcpyAsync(m.h_reduce.data(), d_values, bytes,
                                          cudaMemcpyDeviceToHost, stream));
        KBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
        KBENCH_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, m.h_reduce.data(), count,
                                       detail::mpi_type<T>(), MPI_SUM, m.comm));
        KBENCH_CUDA_CHECK(cudaMemcpyAsync(d_values, m.h_reduce.data(), bytes,
                                          cudaMemcpyHostToDevice, stream));
        m.copies_done.record(stream);
        m.copies_pending = true;
        m.counters.bytes_device_to_host += static_cast<std::int64_t>(bytes);
        m.counters.bytes_host_to_device += static_cast<std::int64_t>(bytes);
    } else {
#if KBENCH_HAVE_NCCL
        KBENCH_NCCL_CHECK(ncclAllReduce(d_values, d_values, static_cast<std::size_t>(count),
                                        nccl_type<T>(), ncclSum,
                                        static_cast<ncclComm_t>(m.nccl->handle()), stream));
#else
        no_nccl();
#endif
    }
    m.counters.reductions += 1;
    m.counters.reduction_bytes += static_cast<std::int64_t>(bytes);
}

template <typename T>
Transport DeviceHaloExchange<T>::transport() const noexcept
{
    return impl_->transport;
}
template <typename T>
bool DeviceHaloExchange<T>::shared_staging() const noexcept
{
    return impl_->shared != nullptr;
}
template <typename T>
const char* DeviceHaloExchange<T>::host_staged_path() const noexcept
{
    if (impl_->transport != Transport::host_staged) return "";
    return impl_->shared ? "shared_memory" : "mpi_messages";
}
template <typename T>
const std::string& DeviceHaloExchange<T>::shared_staging_note() const noexcept
{
    return impl_->shared_note;
}
template <typename T>
const HaloLayout& DeviceHaloExchange<T>::layout() const noexcept
{
    return impl_->layout;
}
template <typename T>
const ExchangeCounters& DeviceHaloExchange<T>::counters() const noexcept
{
    return impl_->counters;
}
template <typename T>
void DeviceHaloExchange<T>::reset_counters() noexcept
{
    impl_->counters = {};
}

template class DeviceHaloExchange<float>;
template class DeviceHaloExchange<double>;

}  // namespace kbench::dist
