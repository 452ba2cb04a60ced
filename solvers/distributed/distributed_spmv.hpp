// Distributed SpMV: y_local = alpha * A_local * x_local + beta * y_local on every rank, with the
// halo of x_local exchanged (zianekhodja2014 Sec. 4: each GPU multiplies its block of rows by its
// own entries of x and the compressed vector of received ghost entries; yamazaki2014 Sec. IV
// with s = 1). A_local is the local matrix of row_distribution.hpp (owned columns first, then
// the ghosts).
//  * DistributedSpmvCpu: host memory, HaloExchange, then one CPU CSR product of A_local (the
//    reference of kernels/spmv.hpp; the tests compare it with the serial SpMV). Not overlapped.
//  * DistributedSpmv: device memory, DeviceHaloExchange (host_staged or nccl), the project's
//    SpmvOperator (kernels/spmv_operator.hpp, its `auto` policy or a named kernel). With overlap
//    (the default), A_local's rows are split once (interior_boundary.hpp) into interior rows (no
//    ghost column) and boundary rows (at least one), and apply() overlaps the exchange with the
//    interior product (zianekhodja2014 Sec. 4, yamazaki2014 Sec. IV):
//      caller's stream:  [event] -> interior product (all rows; boundary rows only scaled by
//                        beta) ...................... wait(exchanged) -> boundary product into
//                        a scratch vector t -> y[boundary row i] += alpha t[i] (scatter_add)
//      comm stream:      wait(event) -> exchange (gather, transfer, ghost fill) -> [exchanged]
//    The comm stream is the DistributedSpmv's own (highest priority, so that the small gather
//    kernel is not queued behind the interior product's blocks). The interior product is
//    enqueued before exchange() is called, so with host_staged the GPU computes while the host
//    waits on MPI. Each row is summed by one CSR product with all its entries, as without the
//    split. Without overlap (or when a rank has no interior row) apply() is the exchange, then
//    the products, on the caller's stream.
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

/// The distributed SpMV on the GPU (T = float or double). Builds its operators on the current
/// device: with overlap, an SpmvOperator of the interior rows (num_owned x num_owned, boundary
/// rows empty; none without interior rows) and one of the boundary rows (a compact CSR of them,
/// all columns; applied in place on y when every row is boundary, else into a scratch vector of
/// one entry per boundary row, with the device list of their rows); without overlap, one
/// SpmvOperator of A_local (none for a part without rows). Device memory: about that of A_local
/// either way. Holds the communicator's handle and the NCCL communicator's pointer, which must
/// outlive it. Not thread-safe.
template <typename T>
class DistributedSpmv {
public:
    /// `policy` and `machine` as for SpmvOperator (spmv::machine_figures()); `overlap` picks the
    /// overlapped apply (see the file comment) or the exchange followed by one product of
    /// A_local, as before the split (kept to measure one against the other); on one rank
    /// (nothing to exchange) it is always the latter. Throws as
    /// DeviceHaloExchange and SpmvOperator, std::invalid_argument naming "local" when A_local is
    /// not num_owned x local_size(), kbench::cuda_error when the comm stream or its events
    /// cannot be made.
    DistributedSpmv(const Communicator& comm, const LocalMatrix<T>& local, Transport transport,
                    const spmv::Policy& policy, const models::SpmvMachine& machine,
                    NcclCommunicator* nccl = nullptr, bool overlap = true);
    ~DistributedSpmv();
    DistributedSpmv(DistributedSpmv&&) noexcept;
    DistributedSpmv& operator=(DistributedSpmv&&) noexcept;

    /// Exchanges the halo of d_x (device, local_size() entries: owned entries read, ghost entries
    /// overwritten) and enqueues d_y = alpha * A_local * d_x + beta * d_y (num_owned device
    /// entries; not read when beta == 0) on `stream`: ordered after the work already enqueued on
    /// `stream` and before the work enqueued after, as one kernel on it would be. With overlap
    /// the exchange runs on the object's comm stream during the interior product (file
    /// comment). Returns, as DeviceHaloExchange::exchange, once the host's part of the exchange
    /// is done (host_staged: MPI) or enqueued (nccl). Collective: every rank calls it. Throws
    /// kbench::cuda_error, mpi_error or nccl_error.
    void apply(T alpha, T* d_x, T beta, T* d_y, cudaStream_t stream);

    /// The same without overlap whatever the construction: the exchange on `stream`, then the
    /// products on it (the interior and boundary operators one after the other, or A_local's).
    /// For timing the exchange and the product apart (the detailed runs of
    /// distributed_gmres.hpp). Collective. Throws as apply.
    void apply_serial(T alpha, T* d_x, T beta, T* d_y, cudaStream_t stream);

    index_type num_owned() const noexcept;
    index_type local_size() const noexcept;
    /// Whether apply() overlaps (the constructor's `overlap`, false on one rank).
    bool overlap() const noexcept;
    /// Rows with a ghost column (0 without overlap: the split is not made then).
    index_type num_boundary() const noexcept;
    /// The kernel choice of the operator of the most rows: the interior operator's with
    /// overlap (the boundary one's when every row is boundary), A_local's without; nullptr for
    /// a part without rows.
    const spmv::Choice* choice() const noexcept;
    /// The boundary operator's choice with overlap; nullptr without overlap or boundary rows,
    /// and when every row is boundary (choice() is that operator's then).
    const spmv::Choice* boundary_choice() const noexcept;
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
