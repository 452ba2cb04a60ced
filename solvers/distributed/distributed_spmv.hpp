// Distributed SpMV: y_local = alpha * A_local * x_local + beta * y_local on every rank, the halo of
// x_local exchanged first (zianekhodja2014 Sec. 4: each GPU multiplies its block of rows by its
// own entries of x and the compressed vector of received ghost entries; yamazaki2014 Sec. IV
// with s = 1). A_local is the local matrix of row_distribution.hpp (owned columns first, then
// the ghosts), so after the exchange the product is one ordinary CSR SpMV of A_local by the
// local vector.
//  * DistributedSpmvCpu: host memory, HaloExchange, the CPU CSR reference of kernels/spmv.hpp
//    (the tests compare it with the serial SpMV).
//  * DistributedSpmv: device memory, DeviceHaloExchange (host_staged or nccl), the project's
//    SpmvOperator (kernels/spmv_operator.hpp, its `auto` policy or a named kernel) built on
//    A_local.
// The exchange and the product are not overlapped (no interior/boundary split yet).
#pragma once

#include "kernels/spmv_operator.hpp"
#include "solvers/distributed/communicator.hpp"
#include "solvers/distributed/halo_exchange.hpp"
#include "solvers/distributed/halo_exchange_gpu.hpp"
#include "solvers/distributed/row_distribution.hpp"

#include <cuda_runtime_api.h>

#include <memory>
#include <vector>

namespace kbench::dist {

/// The distributed SpMV on the CPU (T = float or double). Holds a copy of A_local and the
/// communicator's handle (the Communicator must outlive it).
template <typename T>
class DistributedSpmvCpu {
public:
    /// Throws std::invalid_argument as check_layout ("layout"), or naming "local" when A_local
    /// is not num_owned x local_size().
    DistributedSpmvCpu(const Communicator& comm, const LocalMatrix<T>& local);

    /// Exchanges the halo of x_local (host, local_size() entries: owned entries read, ghost
    /// entries overwritten), then y_local = alpha * A_local * x_local + beta * y_local (num_owned
    /// entries; not read when beta == 0). Collective: every rank calls it. Throws
    /// std::invalid_argument for null pointers with entries to touch.
    void apply(T alpha, T* x_local, T beta, T* y_local);
    /// The same on vectors; throws std::invalid_argument ("x_local", "y_local") for wrong sizes.
    void apply(T alpha, std::vector<T>& x_local, T beta, std::vector<T>& y_local);

    const Csr<T>& matrix() const noexcept { return a_; }
    HaloExchange& exchange() noexcept { return exchange_; }
    const ExchangeCounters& counters() const noexcept { return exchange_.counters(); }

private:
    Csr<T> a_;
    HaloExchange exchange_;
};

/// The distributed SpMV on the GPU (T = float or double). Builds the SpmvOperator of A_local on
/// the current device (none for a part without rows). Holds the communicator's handle and the
/// NCCL communicator's pointer, which must outlive it.
template <typename T>
class DistributedSpmv {
public:
    /// `policy` and `machine` as for SpmvOperator (spmv::machine_figures()). Throws as
    /// DeviceHaloExchange and SpmvOperator, and std::invalid_argument naming "local" when
    /// A_local is not num_owned x local_size().
    DistributedSpmv(const Communicator& comm, const LocalMatrix<T>& local, Transport transport,
                    const spmv::Policy& policy, const models::SpmvMachine& machine,
                    NcclCommunicator* nccl = nullptr);
    ~DistributedSpmv();
    DistributedSpmv(DistributedSpmv&&) noexcept;
    DistributedSpmv& operator=(DistributedSpmv&&) noexcept;

    /// Exchanges the halo of d_x (device, local_size() entries) on `stream`, then enqueues
    /// d_y = alpha * A_local * d_x + beta * d_y (num_owned device entries) on it. Collective:
    /// every rank calls it. Throws kbench::cuda_error, mpi_error or nccl_error.
    void apply(T alpha, T* d_x, T beta, T* d_y, cudaStream_t stream);

    index_type num_owned() const noexcept;
    index_type local_size() const noexcept;
    /// The operator's choice of kernel; nullptr for a part without rows.
    const spmv::Choice* choice() const noexcept;
    DeviceHaloExchange<T>& exchange() noexcept;
    const ExchangeCounters& counters() const noexcept;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

/// Sum over ranks of sum_i x[i] * y[i] for i < num_owned (the owned entries of two local vectors,
/// host memory): the local dot accumulated in order, then Communicator::allreduce_sum.
/// Collective. Throws std::invalid_argument for num_owned < 0 or null pointers.
template <typename T>
T dot(const Communicator& comm, const T* x, const T* y, index_type num_owned);

/// The global vector (n entries, global numbering) from every rank's owned entries
/// (MPI_Allgatherv of the owned blocks, then un-permuted), on every rank. Collective. Throws
/// std::invalid_argument when x_local is shorter than layout.num_owned ("x_local").
template <typename T>
std::vector<T> allgather(const Communicator& comm, const HaloLayout& layout,
                         const std::vector<T>& x_local, index_type n);

}  // namespace kbench::dist
