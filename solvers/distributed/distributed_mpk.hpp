// The matrix powers kernel (MPK) on several ranks (yamazaki2014 Sec. IV-A, Fig. 4): given the
// owned entries of v_1, every rank produces the owned entries of
//     v_{k+1} = (A - alpha_k I) v_k + b2_k v_{k-1},   k = 1..s
// (MpkStep of solvers/ca_gmres.hpp: monomial alpha = b2 = 0, a real Newton shift theta gives
// alpha = theta, a complex-conjugate pair a +- b i the two steps {a, 0}, {a, b^2} in real
// arithmetic) with ONE halo exchange per call: all the ghost entries of v_1 that s steps need,
// the rows delta^(d,1:s) (matrices/row_partition.hpp: mpk_index_sets, halo_plan(a, part, P, s)),
// then s local products on shrinking row sets i^(d,k+1) with no further communication. The
// price is the redundant flops on the boundary rows (models/mpk_model.hpp: W^(d,s), here the
// smaller mpk_extra_flops_needed: the ghost rows of delta^(d,1) are never multiplied). The
// baseline is s distributed SpMVs, each with its s = 1 exchange (distributed_spmv.hpp).
//
// Local numbering of part d (rank d) for s steps, as in Fig. 4's z^(d,k):
//   z = [ own rows i^(d,s+1)        (num_owned, the order of RowDistribution / HaloLayout)
//       | ghosts at distance 1     (delta^(d,s): the usual SpMV halo)
//       | ghosts at distance 2     (delta^(d,s-1))
//       | ...
//       | ghosts at distance s     (delta^(d,1): inputs only) ]
// sorted by global row within a distance. Step k of a call of k_max <= s steps computes the
// rows of distance <= k_max - k, a PREFIX of this numbering, so every local product is an
// ordinary CSR product on a row range: the own rows (A_own, num_owned x local_size) and the
// first boundary_offsets[k_max - k] rows of A_boundary (the ghost rows of distance 1..s-1 in
// that order, columns in the same numbering). The exchange itself uses the HaloLayout of the
// s-step plan (ghosts grouped by owner, so each message lands contiguously); one gather
// (`expand`) then puts the received ghosts into distance order.
//
// Implementation choices:
//  * CPU: spmv::reference::csr on the two row ranges (A_own, the boundary prefix).
//  * GPU: the project's SpmvOperator (its `auto` policy or a named kernel, as DistributedSpmv
//    uses for the s = 1 baseline) on A_own, so that MPK and baseline run the same own-row
//    kernel; the boundary prefix through spmv::csr_vector on a CsrView of its first rows (no
//    operator per prefix); one fused kernel per step for the Newton combination and the copy
//    of the owned entries into V (a plain device copy for monomial steps); the last step has
//    no boundary row left and writes its owned entries straight into V (no copy).
//  * No normalization: it needs a global norm (an all-reduce) per step, which is what MPK
//    avoids; scale v_1 instead, or orthogonalize the block afterwards (CA-GMRES's TSQR).
//  * A call of k < s steps exchanges the s-step halo (the layout is fixed at setup) but
//    multiplies only the rows k steps need (the last k levels: delta^(d,j:s) depends on s - j
//    only).
//
// Shapes: V is column-major, num_owned x (k + 1), leading dimension ld >= max(1, num_owned);
// column 0 holds v_1's owned entries (read), columns 1..k are written. T = float or double.
// Units: entries (words) of T; counters in ExchangeCounters (halo_exchange.hpp).
// Errors: std::invalid_argument naming the parameter, its value and what was expected. Every
// check on arguments that all ranks pass alike (s, steps, ld, the partition and A of the
// setup) happens before any communication, so such bad input throws on every rank; a null V
// on one rank throws on that rank only (the others then wait in the exchange).
// Source: yamazaki2014 Sec. IV-A and Fig. 4 (the MPK and its index sets), Sec. IV-B (the cost:
// Figs. 6-8); Hoemmen 2010, Ch. 7 (the Newton basis in real arithmetic).
#pragma once

#include "kernels/spmv_operator.hpp"
#include "matrices/csr.hpp"
#include "matrices/row_partition.hpp"
#include "solvers/ca_gmres.hpp"
#include "solvers/distributed/communicator.hpp"
#include "solvers/distributed/halo_exchange.hpp"
#include "solvers/distributed/halo_exchange_gpu.hpp"
#include "solvers/distributed/row_distribution.hpp"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <vector>

namespace kbench::dist {

using solvers::MpkStep;

/// The s-step local matrices of one part d and the numbering above.
template <typename T>
struct MpkLocalMatrix {
    int s = 1;
    /// Layout of the one exchange: the HaloLayout of halo_plan(a, part, P, s) (ghosts
    /// delta^(d,1:s) grouped by owner); halo.num_ghosts == plan.received(d).
    HaloLayout halo;
    /// Ghost rows in distance order (num_ghosts global rows): ghost_global[p] is local entry
    /// num_owned + p of the MPK vectors.
    std::vector<index_type> ghost_global;
    /// s + 1 entries: ghosts at distance <= t from the own rows are the first
    /// ghost_offsets[t] of ghost_global (ghost_offsets[0] = 0, ghost_offsets[s] = num_ghosts);
    /// |delta^(d,k:s)| = ghost_offsets[s - k + 1].
    std::vector<index_type> ghost_offsets;
    /// local_size entries: MPK vector entry i = exchange vector entry expand[i] (identity on
    /// the own rows, the halo position of each ghost after them).
    std::vector<index_type> expand;
    /// A(i^(d,s+1), :) in local columns: num_owned x local_size, columns sorted within a row.
    Csr<T> a_own;
    /// The ghost rows of distance 1..s-1 (ghost_global[0 .. ghost_offsets[s-1])), same columns:
    /// ghost_offsets[s-1] x local_size. Its first ghost_offsets[t] rows are those step k of a
    /// k_max-step call computes for t = k_max - k.
    Csr<T> a_boundary;
    index_type global_rows = 0;
    std::int64_t global_nnz = 0;

    index_type num_owned() const noexcept { return halo.num_owned; }
    index_type num_ghosts() const noexcept { return halo.num_ghosts; }
    /// num_owned + num_ghosts: entries of an MPK (or exchange) vector.
    index_type local_size() const noexcept { return halo.local_size(); }
    /// Rows step k (1-based) of a call of k_max steps multiplies: num_owned +
    /// ghost_offsets[k_max - k] (|i^(d,k+1)| of a k_max-step MPK). Throws std::invalid_argument
    /// unless 1 <= k <= k_max <= s.
    index_type step_rows(int k, int k_max) const;
    /// Nonzeros multiplied by a call of k_max steps: sum over k of nnz of those rows, i.e.
    /// k_max nnz(A^(d)) + sum_{k=2..k_max} nnz(A(delta^(d,k:k_max), :)) (half of
    /// models::mpk_flops without the rows of delta^(d,1)). Throws as step_rows.
    std::int64_t call_nnz(int k_max) const;
};

/// The s-step local matrices of part `rank` from the index sets of that part and the halo plan
/// made from the sets of every part (halo_plan(sets, part, P) or halo_plan(a, part, P, s)), the
/// same partition as `dist`. O(n + nnz of the rows of i^(d,2)).
/// Throws std::invalid_argument for a non-square or invalid A or one of another size than the
/// distribution ("a"), a bad rank ("rank"), sets of another part, s or shape ("sets"), a plan
/// of another s or whose ghosts are not delta^(d,1:s) ("plan"), and as halo_layout.
template <typename T>
MpkLocalMatrix<T> mpk_local_matrix(const Csr<T>& a, const RowDistribution& dist,
                                   const MpkIndexSets& sets, const HaloPlan& plan, int rank);

/// Every rank's s-step local matrices: checks as `distribute` does (it calls it: one part per
/// rank, the same A and partition on every rank, compared by digest), then
/// mpk_index_sets(a, part, P, s), halo_plan of those sets and mpk_local_matrix for comm.rank().
/// Collective; every rank throws the same std::invalid_argument on bad input, also for s < 1
/// ("s").
template <typename T>
MpkLocalMatrix<T> distribute_mpk(const Communicator& comm, const Csr<T>& a,
                                 const std::vector<int>& part, int num_parts, int s);

/// Checks the steps of one call against s: 1 <= steps.size() <= s, steps[0].b2 == 0, every
/// alpha and b2 finite. `who` prefixes the message. Throws std::invalid_argument ("steps").
void check_mpk_steps(const char* who, const std::vector<MpkStep>& steps, int s);

/// The MPK on the CPU (host memory; T = float or double). Holds a copy of the local matrices
/// and the communicator's handle (the Communicator must outlive it). Not thread-safe.
template <typename T>
class DistributedMpkCpu {
public:
    /// Throws std::invalid_argument as check_layout ("layout") or naming "local" for matrices
    /// of the wrong shape.
    DistributedMpkCpu(const Communicator& comm, const MpkLocalMatrix<T>& local);

    /// One MPK call of k = steps.size() steps: exchanges the ghosts of v_1 (V column 0) once,
    /// then writes v_2..v_{k+1} to columns 1..k of V (host, column-major, ld >= max(1,
    /// num_owned)). Collective: every rank calls it with the same steps. Throws
    /// std::invalid_argument (check_mpk_steps; "ld"; "V" null with owned rows) before any
    /// communication, mpi_error when MPI fails.
    void apply(const std::vector<MpkStep>& steps, T* V, std::int64_t ld);
    /// The local products of apply alone (no copy, exchange or expansion of v_1): the
    /// computation part of a call, for timing it. It starts from the work vectors as the last
    /// call left them, so what it writes to V is for timing only. Not collective.
    void products(const std::vector<MpkStep>& steps, T* V, std::int64_t ld);

    int steps() const noexcept { return local_.s; }
    const MpkLocalMatrix<T>& local() const noexcept { return local_; }
    const ExchangeCounters& counters() const noexcept { return exchange_.counters(); }
    void reset_counters() noexcept { exchange_.reset_counters(); }

private:
    MpkLocalMatrix<T> local_;
    HaloExchange exchange_;
    std::vector<T> received_;  // the exchange vector (halo layout)
    std::vector<T> z_[3];      // v_{k-1}, v_k, v_{k+1} in the MPK numbering, rotating
};

/// The MPK on the GPU (device memory; T = float or double), over DeviceHaloExchange
/// (host_staged or nccl). Builds the SpmvOperator of A_own on the current device (none for a
/// part without rows) and uploads A_boundary. Holds the communicator's handle and the NCCL
/// communicator's pointer, which must outlive it. Use one stream.
template <typename T>
class DistributedMpk {
public:
    /// `policy` and `machine` as for SpmvOperator (spmv::machine_figures()). Throws as
    /// DeviceHaloExchange and SpmvOperator, and std::invalid_argument naming "local".
    DistributedMpk(const Communicator& comm, const MpkLocalMatrix<T>& local, Transport transport,
                   const spmv::Policy& policy, const models::SpmvMachine& machine,
                   NcclCommunicator* nccl = nullptr);
    ~DistributedMpk();
    DistributedMpk(DistributedMpk&&) noexcept;
    DistributedMpk& operator=(DistributedMpk&&) noexcept;

    /// One MPK call as DistributedMpkCpu::apply on the device block d_V (ld >= max(1,
    /// num_owned)), ordered on `stream`: a copy of v_1 into the exchange vector, the exchange
    /// (host_staged returns once MPI is done, nccl enqueues), one gather into the MPK
    /// numbering, then per step the operator on the own rows, csr_vector on the boundary
    /// prefix and the fused combination and copy of the owned entries into V (a device copy for
    /// monomial steps); the last step, own rows only, writes V directly. Collective. Throws
    /// std::invalid_argument before any communication, kbench::cuda_error, mpi_error or
    /// nccl_error.
    void apply(const std::vector<MpkStep>& steps, T* d_V, std::int64_t ld, cudaStream_t stream);
    /// The per-step work of apply alone (no copy, exchange or gather), for timing, as
    /// DistributedMpkCpu::products. Not collective.
    void products(const std::vector<MpkStep>& steps, T* d_V, std::int64_t ld,
                  cudaStream_t stream);

    int steps() const noexcept;
    index_type num_owned() const noexcept;
    index_type local_size() const noexcept;
    /// The operator's choice of kernel for A_own; nullptr for a part without rows.
    const spmv::Choice* choice() const noexcept;
    /// The exchange of the s-step halo; its allreduce_sum serves the solvers built on the MPK
    /// (distributed_ca_gmres.hpp), so that their all-reduces use the same transport.
    DeviceHaloExchange<T>& exchange() noexcept;
    const ExchangeCounters& counters() const noexcept;
    void reset_counters() noexcept;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace kbench::dist
