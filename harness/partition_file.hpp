// The file a hypergraph partition is kept in between runs (the partition cache of the
// zianekhodja2014 runs, harness/dist_setup.hpp): one rank's part of every row it owned before
// the partition, and the seconds Zoltan took to make it (zianekhodja2014 Sec. 6.2 partitions
// once and reuses the result). Part numbers below 256 are stored as one byte each, and the
// array is zlib-compressed: a 20M-row partition into 4 parts takes a few MB instead of 80, so
// the cache can travel from one machine to another.
#pragma once

#include <string>
#include <vector>

namespace kbench::harness {

/// Writes `file` whole or not at all (through <file>.partial and a rename, so a run killed
/// while writing leaves no partial cache). parts[i] >= 0 is the part of the i-th row.
/// Throws std::invalid_argument for a negative part, std::runtime_error when the file cannot
/// be written or compression fails.
void write_partition_file(const std::string& file, double seconds, const std::vector<int>& parts);

/// Reads a file of write_partition_file into `seconds` and `parts`. Returns false, leaving both
/// unchanged, when the file is missing, is not such a file (another format or version) or is
/// truncated or corrupt.
bool read_partition_file(const std::string& file, double& seconds, std::vector<int>& parts);

}  // namespace kbench::harness
