// The file a hypergraph partition is kept in between runs (the partition cache of the
// distributed runs, harness/mpi/dist_setup.hpp): one rank's part of every row it owned before
// the partition, the seconds Zoltan took to make it and the machine it ran on (a partition is
// made once and reused; it may be made on a CPU node with `kbench dist gmres --partition-only`
// and used on a GPU node). Part numbers below 256 are stored as one byte each, and the
// array is zlib-compressed: a 20M-row partition into 4 parts takes a few MB instead of 80, so
// the cache can travel from one machine to another.
#pragma once

#include "matrices/matrix_set.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace kbench::harness {

/// One rank's partition as the cache keeps it.
struct PartitionRecord {
    double seconds = 0.0;  // Zoltan's time for the whole partition (max over ranks), seconds
    std::string made_on;   // where: "<host>, <P> ranks on <cores> cores" (partition_made_on())
    std::vector<int> parts;  // parts[i] >= 0: the part of this rank's i-th row before the move
};

/// The description PartitionRecord::made_on gets on this machine for a run of `ranks` ranks.
std::string partition_made_on(int ranks);

/// The cache file prefix (without .<rank>of<P>) of the hypergraph partition of `entry` at
/// `rows_per_rank` rows per rank (0: the set's rows): "<name>-<16 hex digits>", a hash of the
/// manifest entry, the matrix file's name and size (not its directory, so that a cache made on
/// one machine is found on another) and the rows. The same on every machine for the same input.
std::string partition_cache_name(const MatrixEntry& entry, long long rows_per_rank);

/// The prefix (the worker adds .<rank>of<P>) of the hypergraph partition of `entry` at
/// rows_per_rank rows per rank (0: the set's rows): <cache_dir()>/partitions/
/// <partition_cache_name>, so that a later reproduce (after a timeout, say) reuses it, and `kbench
/// dist gmres --partition-cache auto --partition-only` can make it beforehand; <fallback>/<name>
/// when there is no cache directory; empty when there is neither. Creates the folder.
std::string partition_cache_prefix(const MatrixEntry& entry, long long rows_per_rank,
                                   const std::filesystem::path& fallback = {});

/// Writes `file` whole or not at all (through <file>.partial and a rename, so a run killed
/// while writing leaves no partial cache).
/// Throws std::invalid_argument for a negative part, std::runtime_error when the file cannot
/// be written or compression fails.
void write_partition_file(const std::string& file, const PartitionRecord& record);

/// Reads a file of write_partition_file into `record`. Returns false, leaving it unchanged,
/// when the file is missing, is not such a file (another format or version) or is truncated or
/// corrupt.
bool read_partition_file(const std::string& file, PartitionRecord& record);

}  // namespace kbench::harness
