// CA-GMRES(s, m) on the distributed layer (yamazaki2014 Sec. IV-V, Fig. 2: CA-GMRES on several
// GPUs, one MPI rank per GPU): every rank runs the shared host iteration of
// solvers/ca_gmres_cycle.hpp (restart cycles, Hessenberg reconstruction, Givens least squares,
// statuses, history: the code of the serial solvers/ca_gmres.hpp, identical on every rank, fed
// with identical reduced values) over a distributed backend on its block of rows:
//  * MPK: the matrix powers kernel of distributed_mpk.hpp (one exchange of the s-step halo per
//    block, then local products; monomial or Newton steps). It does not normalize; with
//    normalize_basis the k new columns are scaled afterwards by their norms (one all-reduce of
//    k values per block), which in exact arithmetic is the serial step-by-step scaling: the
//    scaled recurrence is the unscaled one divided by each vector's norm (the norms reported to
//    the basis-change matrix are the ratios ||u_{t+1}|| / ||u_t||). The unscaled vectors grow
//    like ||A||^s: balance A (solvers::balance) when that overflows.
//  * BOrth: block CGS (borth_passes passes): per pass the local products C = Q_local^T W_local
//    ((j + 1) x k), ONE all-reduce of them, then W_local -= Q_local C.
//  * TSQR: the Gram-based family only (cholqr, cholqr2, svqr, shifted_cholqr3;
//    ortho::detail::gram_tsqr): per pass the local Gram matrix W_local^T W_local, one all-reduce
//    of k x k values, the small factorization on every rank's host (identical everywhere), the
//    local update. On more than one rank MGS, CGS, CGS2 and CAQR, as `tsqr` or `fallback_tsqr`,
//    are rejected (their column-by-column reductions or local QRs are not this scheme); on one
//    rank they run as in the serial solver (the local block is the whole block).
//  * CaBorth::two_stage: stage 1's fused product [Q_{0:j}, W]^T W is local products and one
//    all-reduce; stage 2 is BOrth + TSQR above.
//  * Norms (||b||, the residual's, a block's finiteness check) are local sums and one all-reduce;
//    the residual b - A x takes one MPK call of one monomial step.
// Reductions: Communicator::allreduce_sum on CPU ranks, DistributedMpk::exchange().allreduce_sum
// on GPU ranks (host_staged: device -> host, MPI, host -> device; nccl: ncclAllReduce).
//
// Vectors: b_local, x_local hold the rank's owned entries (num_owned, the local order of
// row_distribution.hpp: x_local[i] = x[owned_global[i]]). The basis is num_owned x (m + 1) per
// rank (leading dimension max(1, num_owned)), column-major. Collective: every rank calls with the
// same options; bad input throws the same std::invalid_argument on every rank (before any other
// communication than the checks' own).
// Not supported: measure_orthogonality (per-block TSQR errors need the whole block) and cycle
// observers; `detailed` phases are those of the serial solver (each bracketed by stream
// synchronizations on the GPU), with the all-reduces inside the phase that makes them.
// Source: yamazaki2014 Sec. III (Fig. 2), IV (the MPK on several GPUs, Fig. 4), V (BOrth, TSQR:
// CholQR and SVQR need one reduction per pass); Hoemmen 2010 Ch. 3 and 7.
#pragma once

#include "solvers/ca_gmres.hpp"
#include "solvers/distributed/communicator.hpp"
#include "solvers/distributed/distributed_mpk.hpp"

#include <cuda_runtime_api.h>

#include <vector>

namespace kbench::dist {

/// The option checks of the distributed CA-GMRES, the same on every rank: those of the serial
/// solver (check_ca_gmres_options, n the global rows) naming `who`; options.s <= mpk_steps (the
/// MPK's setup s, "mpk"); measure_orthogonality rejected; on `ranks` > 1 a TSQR or fallback TSQR
/// that is not Gram-based rejected ("<who>: tsqr = caqr is not a Gram-based TSQR ..., expected
/// cholqr, cholqr2, svqr or shifted_cholqr3 on 2 ranks"). Throws std::invalid_argument; no
/// communication.
void check_distributed_ca_gmres_options(const char* who, long long n, int ranks, int mpk_steps,
                                        const solvers::CaGmresOptions& options);

/// Solves A x = b with CA-GMRES(s, m) on the CPU ranks of `comm`. mpk: the MPK of this rank's
/// s-step local matrices (distribute_mpk with s >= options.s; A_own's rows are the owned rows);
/// b_local, x_local: host vectors of num_owned entries (x_local: x0 on entry, the solution on
/// return). Per block: one MPK call, borth_passes all-reduces of (j + 1) k values, one (k x k)
/// per TSQR pass, one of k values (normalize_basis); per cycle two of one value (the residual).
/// Result as solvers::ca_gmres_cpu run on the whole A (statuses, history, iterations,
/// true_residual), up to the rounding of the sums over the ranks.
/// Throws std::invalid_argument on every rank as check_distributed_ca_gmres_options (naming
/// "distributed_ca_gmres_cpu") and for b_local or x_local of another size than num_owned on any
/// rank; mpi_error when MPI fails.
template <typename T>
solvers::CaGmresResult distributed_ca_gmres_cpu(const Communicator& comm,
                                                DistributedMpkCpu<T>& mpk,
                                                const std::vector<T>& b_local,
                                                std::vector<T>& x_local,
                                                const solvers::CaGmresOptions& options);

/// The same on the GPU of each rank (select_device first; mpk built on it, host_staged or nccl):
/// d_b, d_x device vectors of num_owned entries (d_x: x0 on entry, the solution on return). All
/// work on `stream` (cuBLAS/cuSOLVER handles of its own, bound to it); returns after it
/// finished. Device memory per rank: the basis max(1, num_owned) (m + 1), a copy of one block or
/// panel for the fallback and two work columns, the coefficients; the kernels of
/// kernels/tall_skinny.hpp (gram, gemm_rowwise, trsm_right_upper) and kernels/dot.hpp (dot,
/// mdot); each all-reduce through mpk.exchange().allreduce_sum, then one copy to the host where
/// the host iteration needs the values. Throws as distributed_ca_gmres_cpu (naming
/// "distributed_ca_gmres"; also for a null d_b or d_x with num_owned > 0), kbench::cuda_error,
/// mpi_error or nccl_error.
template <typename T>
solvers::CaGmresResult distributed_ca_gmres(const Communicator& comm, DistributedMpk<T>& mpk,
                                            const T* d_b, T* d_x,
                                            const solvers::CaGmresOptions& options,
                                            cudaStream_t stream);

}  // namespace kbench::dist
