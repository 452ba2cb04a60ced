// Index sets of the matrix powers kernel (MPK) on a row partition of A (yamazaki2014 Sec. IV-A,
// Figs. 4 and 5), the halo (ghost-entry) plan they imply, and the per-part counts that the model
// of models/mpk_model.hpp prices (Figs. 6 and 7).
//
// Conventions (the paper's notation, Sec. IV-A and the notation box of Fig. 4):
//  * A is square, n x n; only its pattern is read. A partition gives each row r a part id
//    part[r] in [0, num_parts); part d "owns" rows {r : part[r] == d} and the same entries of
//    every vector (A^(d) = A(i^(d,s+1), :), v^(d) = v(i^(d,s+1))).
//  * MPK with s steps computes v_{k+1} = A v_k for k = 1..s. To produce v_{s+1} on its own rows
//    without communicating after the setup, part d needs v_k on the rows i^(d,k):
//        i^(d,s+1) = own rows of d,
//        delta^(d,k) = ( union over r in i^(d,k+1) of str(a_{r,:}) ) \ i^(d,k+1),  k = s..1,
//        i^(d,k)   = i^(d,k+1) union delta^(d,k)   (disjoint).
//    str(a_{r,:}) is the set of column indices of row r, so edges run row -> column (y_r needs
//    x_c when a_rc != 0); for a nonsymmetric pattern the direction matters. In the adjacency
//    graph, i^(d,k) holds the vertices within s-k+1 edges of an own row, delta^(d,k) those at
//    distance exactly s-k+1: delta^(d,s) is the usual SpMV halo, delta^(d,1) the outermost ring.
//  * delta^(d,k:s) = union_{l=k..s} delta^(d,l) = i^(d,k) \ i^(d,s+1), the k-th boundary set;
//    delta^(d,1:s) = all ghost rows of d, whose v_1 entries the setup of Fig. 4 communicates.
//  * Every set is a sorted std::vector<index_type> of global row indices, no duplicates.
// The halo volume of one SpMV under the two schemes of zianekhodja2014 (the bandwidth window of
// Sec. 5.1 and the compressed halo of Sec. 6.1) on contiguous row blocks is at the end.
// Bad input throws std::invalid_argument naming the parameter, its value and what was expected.
#pragma once

#include "matrices/csr.hpp"

#include <cstdint>
#include <vector>

namespace kbench {

/// The MPK index sets of one part d for s steps (yamazaki2014 Sec. IV-A, Fig. 4), k is 1-based
/// as in the paper.
struct MpkIndexSets {
    int part = 0;  // d
    int s = 1;     // number of MPK steps
    /// levels[k - 1] = i^(d,k) for k = 1..s+1 (levels[s] = own rows i^(d,s+1)).
    std::vector<std::vector<index_type>> levels;
    /// deltas[k - 1] = delta^(d,k) for k = 1..s (distance s-k+1 from the own rows).
    std::vector<std::vector<index_type>> deltas;

    /// i^(d,k), k in [1, s+1].
    const std::vector<index_type>& i(int k) const;
    /// delta^(d,k), k in [1, s].
    const std::vector<index_type>& delta(int k) const;
    /// delta^(d,k:s) = i^(d,k) \ i^(d,s+1), k in [1, s+1] (empty for k = s+1).
    std::vector<index_type> boundary(int k) const;
    /// Own rows i^(d,s+1).
    const std::vector<index_type>& own() const { return levels.back(); }
};

/// Checks a partition: part.size() == n and every id in [0, num_parts), num_parts >= 1.
/// Throws std::invalid_argument naming "part" or "num_parts".
void validate_partition(index_type n, const std::vector<int>& part, int num_parts);

/// The MPK index sets of every part d = 0..num_parts-1 for s steps (result[d]). One breadth-first
/// search of depth s per part from its own rows: O(num_parts * n + sum_d nnz(A(i^(d,1), :))).
/// Throws std::invalid_argument for a non-square or invalid A ("a"), a bad partition ("part",
/// "num_parts") or s < 1 ("s").
template <typename T>
std::vector<MpkIndexSets> mpk_index_sets(const Csr<T>& a, const std::vector<int>& part,
                                         int num_parts, int s);

/// Which entries of v_1 each part receives from each other part before an MPK of s steps: the
/// ghost rows delta^(d,1:s) grouped by owner. For s = 1 this is the compressed halo of one SpMV:
/// for part d and owner p != d, exactly the columns owned by p that appear in d's rows.
struct HaloPlan {
    int num_parts = 0;
    int s = 1;
    /// recv[d][p] = sorted rows owned by p whose v_1 entries d needs (recv[d][d] is empty).
    std::vector<std::vector<std::vector<index_type>>> recv;

    /// Entries d receives from p (words of one vector).
    index_type count(int d, int p) const;
    /// Entries d receives from all parts, |delta^(d,1:s)|.
    index_type received(int d) const;
    /// Entries p sends to all others (as owner; a row needed by two parts counts twice).
    index_type sent(int p) const;
    /// Number of parts d receives from (one message each with point-to-point exchange).
    int neighbours(int d) const;
};

/// The halo plan from index sets computed by mpk_index_sets (all parts, the same s).
/// Throws std::invalid_argument for a bad partition or sets of another size or s ("sets").
HaloPlan halo_plan(const std::vector<MpkIndexSets>& sets, const std::vector<int>& part,
                   int num_parts);

/// The halo plan of one SpMV (s = 1) or of an MPK of s steps, computed from A directly.
template <typename T>
HaloPlan halo_plan(const Csr<T>& a, const std::vector<int>& part, int num_parts, int s = 1);

/// The numbers models/mpk_model.hpp prices for one part d (all counts, k is 1-based):
struct MpkPartCounts {
    double own_rows = 0;                  // |i^(d,s+1)|
    double own_nnz = 0;                   // nnz(A^(d)) = nnz(A(i^(d,s+1), :))
    std::vector<double> boundary_rows;    // [k-1] = |delta^(d,k:s)|, k = 1..s
    std::vector<double> boundary_nnz;     // [k-1] = nnz(A(delta^(d,k:s), :)), k = 1..s
    double halo_words_s1 = 0;             // |delta^(d,1)| for s = 1: words one SpMV receives
    double halo_messages_s1 = 0;          // parts d receives from in one SpMV
    double mpk_messages = 0;              // parts d receives from in the MPK setup
};

/// Counts of every part from A, the MPK sets for s steps and the s = 1 halo plan (same
/// partition). Throws std::invalid_argument when the sizes disagree ("sets", "halo_s1").
template <typename T>
std::vector<MpkPartCounts> mpk_part_counts(const Csr<T>& a, const std::vector<MpkIndexSets>& sets,
                                           const HaloPlan& halo_s1);

/// |union over d of delta^(d,1:s)|: distinct rows some part needs as ghosts (the gather term of
/// yamazaki2014 Fig. 7).
index_type ghost_union_size(const std::vector<MpkIndexSets>& sets, index_type n);

// ---- Halo volume of one SpMV on contiguous row blocks (zianekhodja2014 Secs. 5.1, 6.1, 6.2) ----
// Rank d owns rows [offsets[d], offsets[d+1]) and the same entries of every vector; offsets has
// P + 1 entries, offsets[0] = 0, non-decreasing (empty blocks allowed), offsets[P] = n. The
// counts are words (vector entries) per SpMV; models/gmres_comm_model.hpp prices them.

/// Words and messages of one SpMV's halo exchange under one scheme, per rank d = 0..P-1.
struct SpmvCommVolume {
    std::vector<std::int64_t> words_received;  // [d]: entries of x rank d receives
    std::vector<std::int64_t> words_sent;      // [d]: entries d sends (one sent to 2 ranks: 2)
    std::vector<int> messages_received;        // [d]: ranks d receives from (one message each)
    std::vector<int> messages_sent;            // [d]: ranks d sends to
    /// sum_d words_received[d] = sum_d words_sent[d]: the "total communication volume" of
    /// zianekhodja2014 Table 9 (entries exchanged between all ranks, per SpMV).
    std::int64_t total_words = 0;
    std::int64_t total_messages = 0;  // sum_d messages_received[d]
    int num_ranks() const { return static_cast<int>(words_received.size()); }
};

/// Checks block offsets for n rows (see above). Throws std::invalid_argument naming "offsets".
void validate_offsets(index_type n, const std::vector<index_type>& offsets);

/// The part id of every row of contiguous blocks: part[r] = d for r in [offsets[d],
/// offsets[d+1]); n = offsets.back() entries. Throws as validate_offsets.
std::vector<int> parts_from_offsets(const std::vector<index_type>& offsets);

/// The offsets of a partition after renumbering the rows part by part
/// (permutation_from_parts, matrices/reorder.hpp): offsets[d+1] - offsets[d] = rows of part d.
/// Throws std::invalid_argument as validate_partition ("part", "num_parts").
std::vector<index_type> part_offsets(const std::vector<int>& part, int num_parts);

/// The volume of a halo plan: words_received[d] = plan.received(d), words_sent[p] =
/// plan.sent(p), messages = plan.neighbours(d) and the ranks each p sends to. For the s = 1
/// plan of any partition (contiguous or not) this is the compressed scheme's volume; for s > 1,
/// that of the MPK setup. O(P^2).
SpmvCommVolume comm_volume(const HaloPlan& plan);

/// The bandwidth ("row-by-row") scheme of zianekhodja2014 Sec. 5.1, formula 4: rank d receives
/// every index of the window [lo_d, hi_d] (smallest and largest column of its rows) that it does
/// not own, from the ranks owning them, whether its rows use it or not. When the own rows lie
/// inside the window, words_received[d] = S_d = bw_d - n_d with bw_d = hi_d - lo_d + 1 and
/// n_d = offsets[d+1] - offsets[d]; a block with no rows or no nonzeros receives nothing.
/// A: square n x n CSR (only the pattern is read). O(n + nnz + sum of the windows' owners).
/// Throws std::invalid_argument for a non-square or invalid A ("a") or bad offsets ("offsets").
template <typename T>
SpmvCommVolume bandwidth_comm_volume(const Csr<T>& a, const std::vector<index_type>& offsets);

/// The compressed scheme of zianekhodja2014 Sec. 6.1: rank d receives only the columns its
/// rows use that it does not own: comm_volume(halo_plan(a, parts_from_offsets(offsets), P, 1)).
/// A hypergraph (or any) partition `part` of Sec. 6.2 is counted on the matrix renumbered part
/// by part: compressed_comm_volume(permute_symmetric(a, permutation_from_parts(part)),
/// part_offsets(part, P)), equal to comm_volume(halo_plan(a, part, P)).
/// O(P n + nnz) (halo_plan). Throws as bandwidth_comm_volume.
template <typename T>
SpmvCommVolume compressed_comm_volume(const Csr<T>& a, const std::vector<index_type>& offsets);

}  // namespace kbench
