// Distributed SpMV on the CPU and on the GPU, distributed dot and gather; see
// distributed_spmv.hpp.
#include "solvers/distributed/distributed_spmv.hpp"

#include "kernels/spmv.hpp"

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

template <typename T>
struct DistributedSpmv<T>::Impl {
    Impl(DeviceHaloExchange<T> ex, index_type owned, index_type size)
        : exchange{std::move(ex)}, num_owned{owned}, local_size{size}
    {}
    DeviceHaloExchange<T> exchange;
    std::optional<spmv::SpmvOperator<T>> op;  // none for a part without rows
    index_type num_owned;
    index_type local_size;
};

template <typename T>
DistributedSpmv<T>::DistributedSpmv(const Communicator& comm, const LocalMatrix<T>& local,
                                    Transport transport, const spmv::Policy& policy,
                                    const models::SpmvMachine& machine, NcclCommunicator* nccl)
{
    check_local(local);
    impl_ = std::make_unique<Impl>(DeviceHaloExchange<T>(comm, local.halo, transport, nccl),
                                   local.halo.num_owned, local.halo.local_size());
    if (local.a.num_rows > 0) impl_->op.emplace(local.a, policy, machine);
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
    impl_->exchange.exchange(d_x, stream);
    if (impl_->op) impl_->op->apply(alpha, d_x, beta, d_y, stream);
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
const spmv::Choice* DistributedSpmv<T>::choice() const noexcept
{
    return impl_->op ? &impl_->op->choice() : nullptr;
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
