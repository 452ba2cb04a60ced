// A matrix that no single rank holds: every rank keeps one contiguous block of rows (global
// column indices), as the replication generator of zianekhodja2014 Sec. 5.2 (formulas 7-8) builds
// it, rank by rank, so that a 25M-row system never passes through one host. From such blocks:
//  * redistribute moves rows to the parts of a partition computed in parallel (the hypergraph
//    partition of zianekhodja2014 Sec. 6.2) and renumbers the matrix part by part, so the blocks
//    are contiguous again in the new numbering;
//  * block_local_matrix builds each rank's LocalMatrix (row_distribution.hpp) with one of the
//    paper's two halo schemes: the "global vector" of the local bandwidth (Sec. 5.1, formula 4:
//    every entry between the smallest and the largest column of the rank's rows) or the
//    compressed halo (Sec. 6.1: only the columns its rows use).
// In both cases the local columns are renumbered (owned first, then the ghosts grouped by owner
// and sorted), so a received message is used in place (Sec. 6.1, Fig. 6); the two schemes differ
// in what travels, which is what Table 9 counts.
//
// Global numbering: rank r owns rows [offsets[r], offsets[r+1]) of the numbering the blocks are
// in; `original` keeps, per local row, its index in the matrix before any redistribution, so a
// solution can be compared across partitions.
#pragma once

#include "matrices/csr.hpp"
#include "solvers/distributed/row_distribution.hpp"

#include <string>
#include <vector>

namespace kbench::dist {

class Communicator;

/// One rank's block of rows of an n x n matrix.
template <typename T>
struct RowBlock {
    /// The block's rows: rows.num_rows = rows of this rank, rows.num_cols = global_rows; column
    /// indices are global (in the block numbering) and sorted within each row.
    Csr<T> rows;
    index_type row_begin = 0;    // global index of the first row
    index_type global_rows = 0;  // n
    /// rows.num_rows entries: the index of each row before redistribution (row_begin + i when
    /// the block was never redistributed).
    std::vector<index_type> original;
};

/// The natural block of rank `rank` of `size` for n rows, zianekhodja2014 formulas 7-8 with the
/// remainder spread as block_partition (matrices/reorder.hpp) does: the first n % size ranks get
/// n / size + 1 rows. Returns {begin, end}. Throws std::invalid_argument for size < 1, rank
/// outside [0, size) or n < 0.
struct RowRange {
    index_type begin = 0;
    index_type end = 0;
};
RowRange natural_block(index_type n, int size, int rank);

/// Rows r in [row_begin, row_end) of a matrix held whole, as a block (with original[i] =
/// row_begin + i). For tests and for matrices small enough to read on every rank. Throws
/// std::invalid_argument for a range outside [0, a.num_rows] or a non-square a ("a").
template <typename T>
RowBlock<T> block_of(const Csr<T>& a, RowRange range);

/// Checks that the blocks of all ranks tile [0, n) in rank order (rank r's block starts where
/// r - 1's ends, the last ends at n), that every rank has the same n and that the columns are
/// in [0, n). Collective. Throws std::invalid_argument naming "block" on every rank when one
/// rank's block is wrong.
template <typename T>
void check_blocks(const Communicator& comm, const RowBlock<T>& block);

/// The halo scheme of a distributed SpMV (zianekhodja2014 Secs. 5.1 and 6.1).
enum class HaloScheme {
    /// Every entry of x between the smallest and largest column index of the rank's rows that
    /// another rank owns (the "global vector" of the local bandwidth bw, S = bw - n/p words,
    /// formula 4); the paper's row-by-row scheme.
    bandwidth,
    /// Only the entries of x whose columns appear in the rank's rows.
    compressed,
};
/// "bandwidth" or "compressed".
const char* to_string(HaloScheme scheme);
/// Parses "bandwidth" (also "row_by_row") or "compressed"; throws std::invalid_argument naming
/// "halo scheme" otherwise.
HaloScheme parse_halo_scheme(const std::string& name);

/// Every rank's local matrix from its block (blocks contiguous in rank order, check_blocks):
/// owned columns [row_begin, row_begin + rows) become 0..num_owned-1, the ghosts of `scheme`
/// follow, grouped by owner rank and sorted; send lists come from one MPI_Alltoall of counts
/// and one MPI_Alltoallv of indices. HaloLayout's owned_global and ghost_global are in the block
/// numbering. Collective. Throws as check_blocks, and mpi_error when MPI fails.
template <typename T>
LocalMatrix<T> block_local_matrix(const Communicator& comm, const RowBlock<T>& block,
                                  HaloScheme scheme);

/// Moves every row to the rank of its part (local_part: rows.num_rows part ids in [0,
/// comm.size()); part d goes to rank d) and renumbers rows and columns part by part: rank d's
/// new block is its rows in increasing old index, after the rows of parts 0..d-1
/// (permutation_from_parts of the whole partition, without ever forming it). `original` travels
/// with the rows. Collective: one MPI_Alltoallv for the rows and one exchange of the new index
/// of every column a rank uses. Throws std::invalid_argument ("local_part") for a wrong size or
/// a part id out of range, as check_blocks, and mpi_error.
template <typename T>
RowBlock<T> redistribute(const Communicator& comm, const RowBlock<T>& block,
                         const std::vector<int>& local_part);

/// Entries of a global vector (global_rows long, the ORIGINAL numbering) at the rows of this
/// block: out[i] = x[original[i]]. Throws std::invalid_argument ("x") when x is too short.
template <typename T>
std::vector<T> block_entries(const RowBlock<T>& block, const std::vector<T>& x);

/// The global vector in the ORIGINAL numbering from every rank's owned entries (num_owned =
/// block.rows.num_rows values per rank): MPI_Allgatherv, then scattered by `original`. On
/// every rank. Collective. Throws std::invalid_argument ("x_local") when it is too short.
template <typename T>
std::vector<T> gather_original(const Communicator& comm, const RowBlock<T>& block,
                               const std::vector<T>& x_local);

}  // namespace kbench::dist
