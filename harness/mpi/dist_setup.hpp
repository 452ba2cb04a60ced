// The distributed problem of one `kbench dist gmres` run: every rank builds its own block of
// rows of a matrix-set entry (replicate entries row range by row range, zianekhodja2014 Sec. 5.2
// formulas 7-8, so the whole matrix never sits on one host; other entries are small and built
// whole on every rank, then cut), optionally moves the rows by a hypergraph partition computed
// by the ranks together (Sec. 6.2), and builds its local matrix with one of the two halo schemes
// (Secs. 5.1 and 6.1). Needs MPI (built only with it).
#pragma once

#include "matrices/matrix_set.hpp"
#include "solvers/distributed/row_block.hpp"

#include <string>

namespace kbench::harness {

/// How the rows are distributed.
struct DistSetupOptions {
    std::string partition = "natural";  // "natural" (contiguous blocks) or "hypergraph" (Zoltan)
    dist::HaloScheme scheme = dist::HaloScheme::compressed;
    /// Replicate entries only: the target row count instead of the set's; 0 keeps the set's.
    /// With rows_per_rank > 0 the target is rows_per_rank x ranks (weak scaling).
    index_type target_rows = 0;
    index_type rows_per_rank = 0;
    /// Hypergraph only: where to keep the partition between runs (the paper partitions once and
    /// reuses the result, zianekhodja2014 Sec. 6.2). Rank r of P reads <prefix>.<r>of<P> when
    /// every rank has its file, and otherwise partitions and writes it. Empty: no cache;
    /// "auto": the file the zianekhodja2014 runners use, in kbench's cache directory
    /// (harness/core/partition_file.hpp partition_cache_name).
    std::string partition_cache;
};

/// One rank's share of the problem and what setting it up took.
struct DistProblem {
    dist::RowBlock<double> block;     // this rank's rows (after the partition, if any)
    dist::LocalMatrix<double> local;  // its local matrix under the halo scheme
    double build_seconds = 0.0;       // building the blocks (max over ranks)
    double partition_seconds = 0.0;   // the hypergraph partition (Zoltan's time, max over ranks;
                                      // from the cache: the time of the run that made it)
    bool partition_cached = false;    // read from DistSetupOptions::partition_cache
    std::string partition_made_on;    // where the partition ran (PartitionRecord::made_on)
    std::int64_t nnz = 0;             // of the whole matrix
};

/// Builds this rank's DistProblem. Collective. Throws std::invalid_argument for a partition name
/// other than natural/hypergraph ("partition"), target_rows or rows_per_rank on an entry that
/// is not a replicate entry, or both given; std::runtime_error for "hypergraph" without Zoltan
/// and for a cache file that does not hold this rank's row count; "auto" with target_rows
/// (std::invalid_argument) or without a cache directory (std::runtime_error);
/// and as the generators, readers and the distributed layer throw.
DistProblem build_dist_problem(const dist::Communicator& comm, const MatrixEntry& entry,
                               const DistSetupOptions& options);

}  // namespace kbench::harness
