// Trilinos Belos as a peer of kbench's CPU block and pseudo-block GMRES (issue 28, boman2022):
// the same matrix, right-hand sides, initial guess, restart length and tolerance through Belos'
// BlockGmresSolMgr and PseudoBlockGmresSolMgr on Epetra (one MPI-less process, one core).
// boman2022 measured Belos itself, so its block-step counts are the direct check of kbench's
// block GMRES. Built only where Trilinos' Belos, Epetra and Teuchos headers and libraries are
// found (Debian: libtrilinos-belos-dev, libtrilinos-epetra-dev); belos_available() says so.
#pragma once

#include "matrices/csr.hpp"
#include "solvers/block_gmres.hpp"

#include <string>
#include <vector>

namespace kbench::harness::peers {

/// Whether this kbench was built with Trilinos Belos (and Epetra).
bool belos_available();

/// The Belos solver managers compared.
enum class BelosSolver {
    block_gmres,         // Belos::BlockGmresSolMgr: one block Krylov space of s columns
    pseudo_block_gmres,  // Belos::PseudoBlockGmresSolMgr: s single-vector GMRES in lockstep
};

/// "BlockGmres" or "PseudoBlockGmres".
const char* to_string(BelosSolver solver);

/// Belos' Gram-Schmidt for the comparison: "ICGS" (iterated classical Gram-Schmidt, two passes),
/// the closest to kbench's block CGS2.
inline constexpr const char* belos_orthogonalization = "ICGS";

/// The true residual of a solve of A X = B, on the host: max_k ||b_k - A x_k|| / ||b_k|| over
/// the s columns (||b_k - A x_k|| for b_k = 0). a: n x n host CSR; B, X: n x s, column-major,
/// ld n. Every peer's solution is judged by it, whatever its library reports.
double largest_relative_residual(const Csr<double>& a, int s, const std::vector<double>& B,
                                 const std::vector<double>& X);

/// Solves A X = B for s right-hand sides with Belos on the CPU (one core, Epetra).
/// a: n x n host CSR (double); B and X: n x s, column-major, leading dimension n (X: the initial
/// guess on entry, the solutions on return). Belos parameters from `options`: "Block Size" = s
/// (for both: PseudoBlockGmres solves its columns in groups of "Block Size", so s puts all s
/// systems in lockstep, as kbench's pseudo-block GMRES), "Num Blocks" = options.restart (block steps
/// per cycle, as kbench counts them), "Maximum Iterations" = options.max_iterations (block
/// steps), "Maximum Restarts" large enough never to stop a solve first, "Convergence Tolerance"
/// = options.tolerance on ||b_k - A x_k|| / ||r0_k|| per column (= ||b_k|| for X0 = 0),
/// "Orthogonalization" = belos_orthogonalization. options.tsqr, stagnation_cycles and detailed
/// have no Belos counterpart and are ignored.
/// Returns: iterations = Belos' getNumIters() (block steps; pseudo-block: steps of the slowest
/// system; Belos deflates a system once it converged, "Deflation Quorum" 1), status
/// converged when Belos reports Converged, else max_iterations; true_residual = the largest
/// ||b_k - A x_k|| / ||b_k|| recomputed by kbench; seconds = wall time of solve() (setup of the
/// Epetra objects excluded). residual_history is left empty.
/// Throws std::invalid_argument as solvers::block_gmres_cpu does for bad shapes and options,
/// std::runtime_error naming the missing packages when kbench was built without Belos.
/// Source: boman2022 Sec. 4 (Belos BlockGmres on the CPU), Trilinos Belos documentation.
solvers::SolveResult belos_gmres(const Csr<double>& a, int s, const std::vector<double>& B,
                                 std::vector<double>& X, const solvers::BlockGmresOptions& options,
                                 BelosSolver solver);

}  // namespace kbench::harness::peers
