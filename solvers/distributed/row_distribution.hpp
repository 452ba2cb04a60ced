// 1-D row-block distribution of A and of the vectors over the ranks, and the local matrix of each
// rank with a compressed halo (yamazaki2014 Sec. IV: A and the vectors distributed by block rows
// over the GPUs after a reordering; zianekhodja2014 Sec. 4: each GPU keeps, besides its own
// entries of x, a compressed vector of only the ghost entries its rows need, not a global x).
//
// Conventions:
//  * A is square, n x n, and every rank holds the same A and the same partition `part` (n ids in
//    [0, num_parts), one part per rank, the matrices/row_partition.hpp convention). Reorder
//    first if wanted (matrices/reorder.hpp: B = permute_symmetric(A, rcm_permutation(A)) with
//    block_partition(n, P), or kway_partition(A, P) on A itself).
//  * "Global" indices are A's row (= column) indices. The distribution numbers the rows part by
//    part, perm = permutation_from_parts(part) (new-to-old, stable), so part d owns the
//    contiguous block perm[offsets[d] .. offsets[d+1]) of that numbering: its own rows in
//    increasing global order.
//  * The local vector of part d has num_owned + num_ghosts entries: x_local[i] = x[own[i]] for
//    the owned rows (i < num_owned), then the ghost entries x_local[num_owned + j] =
//    x[ghost_global[j]], grouped by owner in increasing rank and sorted within an owner (the
//    order of HaloPlan::recv[d][p]). The ghosts of one neighbour are thus contiguous and a
//    message lands in place, with no unpacking.
//  * The halo is the s = 1 plan of matrices/row_partition.hpp (halo_plan(a, part, P, 1)); it is
//    reused, not re-derived. halo_layout also accepts a plan of s > 1 (the ghost rows
//    delta^(d,1:s) of an MPK setup, yamazaki2014 Fig. 4); local_matrix needs s = 1.
// Bad input throws std::invalid_argument naming the parameter, its value and what was expected.
#pragma once

#include "matrices/csr.hpp"
#include "matrices/row_partition.hpp"

#include <cstdint>
#include <functional>
#include <vector>

namespace kbench::dist {

class Communicator;

/// Which rows every part owns: the row blocks of the grouped numbering.
struct RowDistribution {
    index_type n = 0;
    int num_parts = 0;
    std::vector<int> part;            // n: owner of each global row
    std::vector<index_type> perm;     // n: new-to-old, rows grouped by part (stable)
    std::vector<index_type> inverse;  // n: old-to-new, inverse[perm[i]] = i
    std::vector<index_type> offsets;  // num_parts + 1: part d owns perm[offsets[d]..offsets[d+1])

    /// Rows part d owns (0 for an empty part). Throws std::invalid_argument for d outside
    /// [0, num_parts) ("part").
    index_type rows(int d) const;
    /// Index of global row g in its owner's local vector (inverse[g] - offsets[part[g]]).
    index_type local_index(index_type g) const;
};

/// The distribution of n rows by `part` over num_parts parts. O(n).
/// Throws std::invalid_argument for a bad partition (validate_partition: "part", "num_parts").
RowDistribution row_distribution(index_type n, const std::vector<int>& part, int num_parts);

/// The halo of one part in local indices: what it receives (ghosts) and what it sends.
struct HaloLayout {
    int rank = 0;       // the part d this layout belongs to
    int num_parts = 0;
    int s = 1;          // steps of the plan it came from (1: one SpMV)
    index_type num_owned = 0;
    index_type num_ghosts = 0;
    std::vector<index_type> owned_global;  // num_owned: global row of local entry i, increasing
    std::vector<index_type> ghost_global;  // num_ghosts: global row of x_local[num_owned + j]
    /// Parts d receives from (increasing); the ghosts from recv_ranks[k] are ghost entries
    /// [recv_offsets[k], recv_offsets[k+1]) (recv_offsets has recv_ranks.size() + 1 entries).
    std::vector<int> recv_ranks;
    std::vector<index_type> recv_offsets;
    /// Parts d sends to (increasing); the message for send_ranks[k] is x_local[send_local[e]]
    /// for e in [send_offsets[k], send_offsets[k+1]), in the order the receiver stores them.
    std::vector<int> send_ranks;
    std::vector<index_type> send_offsets;
    std::vector<index_type> send_local;  // local (owned) indices, < num_owned

    /// num_owned + num_ghosts: entries of a local vector.
    index_type local_size() const { return num_owned + num_ghosts; }
    /// Words (vector entries) received and sent per exchange; messages per exchange (one per
    /// neighbour each way).
    index_type words_received() const { return num_ghosts; }
    index_type words_sent() const { return static_cast<index_type>(send_local.size()); }
    int messages_received() const { return static_cast<int>(recv_ranks.size()); }
    int messages_sent() const { return static_cast<int>(send_ranks.size()); }
};

/// The halo layout of part `rank` from a plan made with the same partition (halo_plan of
/// matrices/row_partition.hpp, any s): ghosts d receives = plan.recv[d][p] for p != d, entries it
/// sends to q = plan.recv[q][d] in d's local indices. So words_received() == plan.received(d),
/// words_sent() == plan.sent(d), messages_received() == plan.neighbours(d). O(n + halo).
/// Throws std::invalid_argument when rank is outside [0, num_parts) ("rank"), or the plan has
/// another number of parts or a row owned by another part than the one it is listed under
/// ("plan").
HaloLayout halo_layout(const RowDistribution& dist, const HaloPlan& plan, int rank);

/// The rows of one part with local column indices: a num_owned x (num_owned + num_ghosts) CSR
/// (owned columns first, then the ghost columns in halo order; sorted within each row), applied
/// to a local vector as y_local = A_local x_local, y_local[i] = (A x)[owned_global[i]].
template <typename T>
struct LocalMatrix {
    Csr<T> a;
    HaloLayout halo;
    index_type global_rows = 0;  // n of the global matrix
    std::int64_t global_nnz = 0;
};

/// The local matrix of part `rank` of square A for the s = 1 plan of the same partition
/// (halo_plan(a, dist.part, dist.num_parts, 1)). O(n + nnz of the part's rows).
/// Throws std::invalid_argument for a non-square or invalid A ("a"), A of another size than the
/// distribution ("a"), a bad rank ("rank"), a plan of s != 1 or one that misses a column of the
/// part's rows ("plan"), and as halo_layout.
template <typename T>
LocalMatrix<T> local_matrix(const Csr<T>& a, const RowDistribution& dist, const HaloPlan& plan,
                            int rank);

/// Every rank's own local matrix: checks that num_parts == comm.size() (one part per rank,
/// "num_parts") and that every rank passed the same partition and the same A (compared by a
/// digest; "part", "a"), then computes row_distribution, halo_plan(a, part, num_parts, 1) and
/// local_matrix for comm.rank(). Collective; every rank throws the same std::invalid_argument
/// on bad input (the checks that communicate agree on all ranks).
template <typename T>
LocalMatrix<T> distribute(const Communicator& comm, const Csr<T>& a, const std::vector<int>& part,
                          int num_parts);

namespace detail {

/// Global row -> local index of a part's vectors: owned[i] -> i, ghosts[j] -> owned.size() + j,
/// -1 for the rows the part does not hold (n entries). Used by local_matrix and by the MPK's
/// s-step local matrices (distributed_mpk.hpp).
std::vector<index_type> local_numbering(index_type n, const std::vector<index_type>& owned,
                                        const std::vector<index_type>& ghosts);

/// Rows rows[0..count) of A with every column c renumbered to local[c], sorted within each row:
/// a count x num_cols CSR. A column with local[c] < 0 is passed to unmapped(row, c), which must
/// throw (it names what was expected).
template <typename T>
Csr<T> renumbered_rows(const Csr<T>& a, const index_type* rows, index_type count,
                       const std::vector<index_type>& local, index_type num_cols,
                       const std::function<void(index_type, index_type)>& unmapped);

}  // namespace detail

/// The local vector of a part from a global one: owned entries x[owned_global[i]], ghost entries
/// `ghost_fill` (an exchange overwrites them). Throws std::invalid_argument when x is shorter than
/// the largest global index of the layout ("x").
template <typename T>
std::vector<T> local_vector(const HaloLayout& layout, const std::vector<T>& x, T ghost_fill = T(0));

}  // namespace kbench::dist
