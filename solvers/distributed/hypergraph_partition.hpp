// Parallel hypergraph partitioning of a distributed matrix's rows with Zoltan PHG, run by the MPI
// ranks themselves on their row blocks (zianekhodja2014 Sec. 6.2): row i is a vertex of weight
// w_i = nnz of row i, column j a hyperedge (net) of cost c_j = 1 whose pins are the rows with a
// nonzero in column j. PHG minimizes the connectivity-1 cut (eq. 9), sum over cut nets of
// c_j (lambda_j - 1), which is the words a compressed-halo SpMV exchanges, under the balance
// constraint W_k <= (1 + eps) W_avg (eq. 10).
//
// Built with Zoltan only (Debian libtrilinos-zoltan-dev; cmake/FindZoltan.cmake), which the
// compile definition KBENCH_HAVE_ZOLTAN=1 of kbench_distributed says; without it the functions
// below are inline stubs: hypergraph_available() is false and hypergraph_partition throws.
#pragma once

#include "solvers/distributed/communicator.hpp"
#include "solvers/distributed/row_block.hpp"

#include <stdexcept>
#include <vector>

namespace kbench::dist {

/// Options of hypergraph_partition. Zoltan PHG has no seed parameter; its random generator is
/// reset to Zoltan's initial seed before every call, so a partition depends only on the input
/// and the number of ranks (a second call gives the same one).
struct HypergraphOptions {
    /// eps of eq. 10, in (0, 1): every part's weight at most (1 + eps) times the average
    /// (Zoltan IMBALANCE_TOL = 1 + eps). The paper's 10 % by default.
    double imbalance = 0.1;
};

/// The part of every row of this rank's block.
struct HypergraphPartition {
    /// block.rows.num_rows entries, each in [0, comm.size()): the part (= future rank) of local
    /// row i.
    std::vector<int> local_part;
    /// Wall time of Zoltan_LB_Partition in seconds, the maximum over ranks (0 when Zoltan is not
    /// called, on one rank).
    double seconds = 0.0;
};

#if defined(KBENCH_HAVE_ZOLTAN) && KBENCH_HAVE_ZOLTAN

/// True: this build has Zoltan.
bool hypergraph_available();

/// Partitions the rows of the matrix whose blocks the ranks hold into comm.size() parts with
/// Zoltan's parallel hypergraph partitioner (LB_METHOD=HYPERGRAPH, HYPERGRAPH_PACKAGE=PHG,
/// PHG_CUT_OBJECTIVE=CONNECTIVITY), the hypergraph of zianekhodja2014 Sec. 6.2 (eqs. 9-10) given
/// in compressed-vertex form: each local row lists its global column indices as net ids, with
/// its nnz as vertex weight; nets cost 1. Only the pattern is read. The blocks need not be the
/// natural ones, only disjoint with global row ids row_begin + i in [0, global_rows). On one
/// rank it returns all zeros without calling Zoltan. Collective over comm.
/// Throws std::invalid_argument on every rank when one rank has an imbalance outside (0, 1)
/// ("imbalance") or a malformed block: row_ptr of the wrong size, rows outside
/// [0, global_rows) or a column index outside [0, global_rows) ("block"); std::runtime_error
/// "file:line: <call> failed: ZOLTAN_FATAL" (or ZOLTAN_MEMERR) when Zoltan fails; mpi_error.
template <typename T>
HypergraphPartition hypergraph_partition(const Communicator& comm, const RowBlock<T>& block,
                                         const HypergraphOptions& options = {});

#else

/// False: this build has no Zoltan.
inline bool hypergraph_available() { return false; }

/// Without Zoltan: throws std::runtime_error naming the package that provides it.
template <typename T>
HypergraphPartition hypergraph_partition(const Communicator&, const RowBlock<T>&,
                                         const HypergraphOptions& = {})
{
    throw std::runtime_error(
        "hypergraph_partition: this build of kbench has no Zoltan; install the Debian package "
        "'libtrilinos-zoltan-dev' (or pass -DZOLTAN_ROOT=DIR) and re-run CMake");
}

#endif

}  // namespace kbench::dist
