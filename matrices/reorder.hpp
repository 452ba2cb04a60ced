// Reorderings before distribution (yamazaki2014 Sec. IV): reverse Cuthill-McKee to shrink the
// bandwidth, METIS k-way graph partitioning to cut few edges between the parts that the matrix
// powers kernel distributes, the natural block partition they are compared with, and the
// symmetric permutation B = P A P^T that applies either.
//
// Convention for every permutation here: new-to-old, perm[new] = old. Row (and column) i of the
// permuted matrix is row (and column) perm[i] of the original one:
// B(i, j) = A(perm[i], perm[j]).
// The inverse (old-to-new) is inverse_permutation(perm).
//
// Graph of a matrix: the symmetrized pattern A + A^T without self loops (vertex i per row, an
// undirected edge {i, j} whenever A(i, j) or A(j, i) is stored and i != j; explicit zeros count).
//
// Optional libraries: RCM needs Boost.Graph (Debian libboost-graph-dev, header-only), k-way needs
// METIS 5 (Debian libmetis-dev). Built without one, the function checks its arguments as usual and
// then throws std::runtime_error("... not built: install libmetis-dev ..."); reorder_has_rcm() and
// reorder_has_metis() say which are built.
#pragma once

#include "matrices/csr.hpp"

#include <cstdint>
#include <vector>

namespace kbench {

/// Whether rcm_permutation is built (Boost.Graph was found at configuration).
bool reorder_has_rcm();
/// Whether kway_partition is built (METIS was found at configuration).
bool reorder_has_metis();

/// Reverse Cuthill-McKee ordering of the graph of the square matrix a (Boost.Graph's
/// cuthill_mckee_ordering, reversed), new-to-old: perm[new] = old, n entries. Each connected
/// component (isolated rows included) is ordered from a pseudo-peripheral vertex of minimum
/// degree, components one after another, so disconnected graphs are handled.
/// Throws std::invalid_argument when a is not square; std::runtime_error when Boost.Graph was
/// not found at configuration.
template <typename T>
std::vector<index_type> rcm_permutation(const Csr<T>& a);

/// METIS 5 k-way partition (METIS_PartGraphKway, default options: load imbalance tolerance
/// 1.03, minimum edge cut) of the graph of the square matrix a into `parts` parts: the part id,
/// in [0, parts), of every row. `seed` seeds METIS's random number generator (reduced modulo
/// 2^31); the same seed gives the same partition with the same METIS build. parts == 1, and a
/// graph with no edges, give block_partition(n, parts) without calling METIS. METIS may leave a
/// part empty on tiny or very irregular graphs.
/// Throws std::invalid_argument when a is not square or parts is outside [1, n] (message names
/// `parts`); std::runtime_error with METIS's status name (METIS_ERROR_INPUT, METIS_ERROR_MEMORY,
/// METIS_ERROR) when METIS fails, or when METIS was not found at configuration.
template <typename T>
std::vector<int> kway_partition(const Csr<T>& a, int parts, std::uint64_t seed = 1);

/// The natural partition of n rows into `parts` contiguous blocks: the first n % parts blocks
/// have n / parts + 1 rows, the others n / parts (sizes differ by at most 1; part ids increase
/// with the row). Throws std::invalid_argument when parts is outside [1, n] (n >= 1).
std::vector<int> block_partition(index_type n, int parts);

/// The new-to-old permutation that groups the rows by part (part 0 first), keeping the original
/// order within a part (stable). Throws std::invalid_argument for a negative part id.
std::vector<index_type> permutation_from_parts(const std::vector<int>& parts);

/// The inverse of a new-to-old permutation (old-to-new: inv[perm[i]] = i). Throws
/// std::invalid_argument when perm is not a permutation of 0..n-1.
std::vector<index_type> inverse_permutation(const std::vector<index_type>& perm);

/// B = P A P^T for a new-to-old perm (B(i, j) = A(perm[i], perm[j])): same nnz and values, columns
/// sorted within each row. Throws std::invalid_argument when a is not square or perm is not a
/// permutation of 0..n-1 (message names `perm`).
template <typename T>
Csr<T> permute_symmetric(const Csr<T>& a, const std::vector<index_type>& perm);

/// Edge cut of a partition: the number of edges {i, j} of the graph of the square matrix a whose
/// ends lie in different parts (each undirected edge counted once). Throws std::invalid_argument
/// when a is not square or parts does not have n entries.
template <typename T>
std::int64_t edge_cut(const Csr<T>& a, const std::vector<int>& parts);

// The half-bandwidth max |i - j| that RCM reduces is bandwidth() in matrices/banded.hpp.

}  // namespace kbench
