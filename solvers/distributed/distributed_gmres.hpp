// Restarted GMRES(m) on the distributed layer, left-preconditioned (zianekhodja2014 Algorithm 1
// and Sec. 5.1; the multi-GPU GMRES baseline of yamazaki2014): every rank runs the same
// iteration (solvers/gmres_cycle.hpp, so statuses, residual history and stagnation are those of
// the serial GMRES of solvers/gmres.hpp) on its block of rows, and
//  * the SpMV is the distributed one (distributed_spmv.hpp): the compressed halo of the vector is
//    exchanged and A_local multiplies the local vector (on GPU ranks the exchange overlapped
//    with the interior rows' product when the DistributedSpmv was built with overlap);
//  * every inner product and norm is this rank's sum over its owned rows plus one all-reduce
//    over the ranks: CGS2 reduces the j + 1 coefficients of a pass in ONE all-reduce, MGS one
//    all-reduce per coefficient as the paper does; the norm of the new vector is one more; the
//    one-reduce CGS2 (ArnoldiOrth::cgs2_lowsync, solvers/gmres.hpp) one all-reduce per step in
//    all, on GPU and CPU ranks;
//  * the small least-squares problem (Givens rotations) is solved redundantly on every rank's
//    host, from the same reduced values, so every rank takes the same decisions.
// Left preconditioning: the system solved is M^-1 A x = M^-1 b, with M = I (none) or M = diag(A)
// (jacobi, the paper's choice), and the stopping test is the paper's:
//   ||M^-1 (b - A x)|| / ||M^-1 b|| <= tolerance.
// So SolveResult's residual_history and true_residual are relative to ||M^-1 b|| and measure
// M^-1 (b - A x), not b - A x. Paper setup (Sec. 5.2): m = 16, tolerance 1e-12, 500 iterations,
// MGS, x0 = 0, b = 1.
//
// Vectors: b_local and x_local hold the rank's owned entries only (num_owned, in the local order
// of row_distribution.hpp: x_local[i] = x[owned_global[i]]); the solver keeps its own local-size
// work vectors for the SpMV's ghost entries. Collective: every rank calls the solver with the
// same options and preconditioner; bad input throws the same exception on every rank.
//
// Detailed runs (`detailed` = true) time, with host timers, what the paper splits into
// computation and communication (zianekhodja2014 Tables 10-12) and put it in SolveResult::phases,
// in this order (group in brackets; only phases that ran are listed):
//   "spmv"       [computation]   the local products A_local x_local
//   "halo"       [communication] the halo exchanges of the SpMV
//   "precond"    [computation]   the Jacobi scaling z := M^-1 z (jacobi only)
//   "orth"       [computation]   local dot products, Gram-Schmidt updates, norms, normalizations
//   "reductions" [communication] the all-reduces of the inner products and norms
//   "update"     [computation]   x += V y, and the copies of b and x that start a residual
// PhaseTime::calls counts the timed calls (e.g. "reductions": one per all-reduce). Their seconds
// add up to SolveResult::seconds up to the host's least squares (Givens rotations) and
// bookkeeping; ||M^-1 b|| before the clock starts and the final true-residual check after it
// stops are not counted. Byte and message counts of the exchanges and all-reduces are in
// a.counters() (ExchangeCounters), summed over the calls.
// On the GPU each timed phase synchronizes the stream before and after it (detailed runs only:
// the extra synchronizations slow the run). Overlap would hide the exchange behind the interior
// product, so detailed runs never overlap: their SpMVs are DistributedSpmv::apply_serial (the
// exchange, then the products, on the one stream), whatever `a` was built with; the other runs
// take DistributedSpmv::apply (overlapped when `a` was built so). apply_serial enqueues the
// exchange and the product in one call, so "halo" is the host time until that call returns and
// "spmv" the time from there until the stream is idle: with host_staged the call returns once
// the MPI messages are done, so "halo" holds the pack kernel, the device -> host copy and MPI,
// and "spmv" the ghost upload and the product (with overlap built: the interior and boundary
// operators and the scatter-add, one after the other); with nccl the exchange is enqueued on the
// stream and "halo" holds only the enqueueing, the transfers falling in "spmv".
#pragma once

#include "solvers/distributed/communicator.hpp"
#include "solvers/distributed/distributed_spmv.hpp"
#include "solvers/distributed/row_distribution.hpp"
#include "solvers/gmres.hpp"
#include "solvers/solve_result.hpp"

#include <cuda_runtime_api.h>

#include <string>
#include <vector>

namespace kbench::dist {

/// The left preconditioner M of distributed GMRES.
enum class Preconditioner {
    none,    // M = I
    jacobi,  // M = diag(A): on each rank the owned diagonal of A_local (entry (i, i))
};

/// "none" or "jacobi"; parse_preconditioner throws std::invalid_argument naming both otherwise.
const char* to_string(Preconditioner p);
Preconditioner parse_preconditioner(const std::string& name);

/// The entries of M^-1 for this rank's owned rows (num_owned values, host): 1 / A_local(i, i)
/// for jacobi, empty for none. a_local: num_owned x local_size() with the owned columns first
/// (LocalMatrix::a), owned_global: the global row of each owned row (HaloLayout::owned_global),
/// for the message. Collective (so that every rank agrees): throws std::invalid_argument
/// "<who>: jacobi: the diagonal entry of global row g is <value>, expected a finite nonzero
/// value" on every rank, g the first such row of the lowest rank that has one (a row without a
/// stored diagonal entry counts as 0); naming "a_local" when its row count is not
/// owned_global.size() on some rank.
template <typename T>
std::vector<T> inverse_diagonal(const Communicator& comm, const Csr<T>& a_local,
                                const std::vector<index_type>& owned_global, Preconditioner p,
                                const char* who);

/// Solves A x = b with left-preconditioned GMRES(m) on the CPU ranks of the communicator (one
/// rank per core: the paper's CPU cluster of Table 2), with plain loops over the owned entries.
/// a: the distributed SpMV of this rank (its matrix is A_local); b_local, x_local: host vectors
/// of num_owned entries (x_local: x0 on entry, the solution on return). The basis takes
/// local_size() (m + 1) values per rank. Statuses and history as solvers::gmres, relative to
/// ||M^-1 b|| (see the file comment); `detailed` fills SolveResult::phases.
/// Throws std::invalid_argument, on every rank, for the option errors of solvers::gmres (naming
/// "distributed_gmres_cpu"), b_local or x_local of another size than num_owned on any rank, and
/// as inverse_diagonal; mpi_error when MPI fails. Source: zianekhodja2014 Algorithm 1, Sec. 5.1.
template <typename T>
solvers::SolveResult distributed_gmres_cpu(const Communicator& comm, DistributedSpmvCpu<T>& a,
                                           const std::vector<T>& b_local,
                                           std::vector<T>& x_local,
                                           const solvers::GmresOptions& options,
                                           Preconditioner preconditioner, bool detailed = false);

/// The same on the GPU of each rank (select_device first): d_b, d_x are device vectors of
/// num_owned entries on the current device (d_x: x0 on entry, the solution on return); all work
/// is on `stream` and the call returns after it completed. `local` is the local matrix `a` was
/// built from: the device operator does not keep A_local's values on the host, and jacobi takes
/// M from its owned diagonal (copied to the device once). Layout: the basis V is one device
/// array of m + 1 columns with leading dimension local_size() (num_owned rows used; the ghost
/// rows below each column are where the SpMV's halo exchange writes, so A v_j reads v_j in
/// place), plus one local-size work vector for x and one num_owned vector for M^-1 (jacobi):
/// local_size() (m + 2) + num_owned device values, and the coefficients. Per Arnoldi step: one
/// distributed SpMV, the Jacobi scaling, the orthogonalization of solvers/gmres_device.hpp with
/// its reductions through a.exchange().allreduce_sum (host_staged: device -> host, MPI,
/// host -> device; nccl: ncclAllReduce on the device), one copy of the Hessenberg column to the
/// host. Throws as distributed_gmres_cpu (naming "distributed_gmres"; also for a null d_b or d_x
/// with num_owned > 0, and a `local` whose num_owned or local_size differs from a's),
/// kbench::cuda_error, mpi_error or nccl_error. Source: zianekhodja2014 Algorithm 1, Sec. 5.1.
template <typename T>
solvers::SolveResult distributed_gmres(const Communicator& comm, DistributedSpmv<T>& a,
                                       const LocalMatrix<T>& local, const T* d_b, T* d_x,
                                       const solvers::GmresOptions& options,
                                       Preconditioner preconditioner, cudaStream_t stream,
                                       bool detailed = false);

}  // namespace kbench::dist
