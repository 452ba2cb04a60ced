// The counts behind yamazaki2014 Figs. 6 and 7 for every step count s = 1..s_max of the matrix
// powers kernel (MPK) on one row partition, from a single set of index sets of s_max steps
// (matrices/row_partition.hpp) instead of one per s: the ghost rows of s steps are those within
// s edges of a part, a prefix of those of s_max steps (models::mpk_boundary_for_steps).
// Notation and conventions: matrices/row_partition.hpp; the model that prices the counts:
// models/mpk_model.hpp.
#pragma once

#include "matrices/csr.hpp"

#include <vector>

namespace kbench::harness {

/// Counts of one partition into num_parts parts for s = 1..s_max. Lists over s are indexed
/// [s - 1]; lists over parts [d].
struct MpkSweep {
    int num_parts = 0;
    int s_max = 0;
    std::vector<double> own_rows;                    // [d] |i^(d,s+1)|
    std::vector<double> own_nnz;                     // [d] nnz(A^(d))
    /// [d][k-1] = nnz(A(delta^(d,k:s_max), :)), k = 1..s_max (MpkPartCounts::boundary_nnz of
    /// s_max steps); models::mpk_boundary_for_steps gives the list of any s <= s_max.
    std::vector<std::vector<double>> boundary_nnz;
    std::vector<std::vector<double>> boundary_rows;  // [d][k-1] = |delta^(d,k:s_max)|
    std::vector<double> ghost_union;                 // [s-1] |union_d delta^(d,1:s)|
    std::vector<std::vector<double>> mpk_messages;   // [d][s-1] parts owning a row of delta^(d,1:s)
    std::vector<double> halo_words_s1;               // [d] |delta^(d,1)| of one SpMV (s = 1)
    std::vector<double> halo_messages_s1;            // [d] parts d receives from in one SpMV
};

/// The counts of the partition `part` (num_parts parts, part[r] the part of row r) of the square
/// matrix a for s = 1..s_max: one mpk_index_sets of s_max steps, one s = 1 halo plan, and the
/// distance of every ghost row to the nearest part that needs it. Equal, for each s, to what
/// mpk_index_sets(a, part, num_parts, s), mpk_part_counts and ghost_union_size give (tested).
/// Time O(num_parts n + sum_d nnz(A(i^(d,1), :)) + s_max sum_d |i^(d,1)|); memory the index
/// sets (s_max + 1 nested levels per part). Throws std::invalid_argument as mpk_index_sets for a
/// non-square or invalid a ("a"), a bad partition ("part", "num_parts") or s_max < 1 ("s").
MpkSweep mpk_sweep(const Csr<double>& a, const std::vector<int>& part, int num_parts, int s_max);

}  // namespace kbench::harness
