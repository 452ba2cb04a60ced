// Matrix generators: PDE stencils, Trefethen matrices, the zianekhodja2014 replication, random
// matrices with prescribed row-length distributions and li2012's random banded matrices.
#pragma once

#include "matrices/csr.hpp"

#include <cstdint>
#include <string>

namespace kbench {

/// 2D 5-point Laplacian on an nx x ny grid, Dirichlet boundary: 4 on the diagonal, -1 for each
/// grid neighbour. n = nx*ny, rows in lexicographic order (x fastest). Symmetric positive definite.
/// Throws std::invalid_argument for nx, ny < 1 or n overflowing index_type.
Csr<double> laplacian_2d_5pt(index_type nx, index_type ny);

/// 3D 7-point Laplacian on nx x ny x nz: 6 on the diagonal, -1 per neighbour. n = nx*ny*nz.
Csr<double> laplacian_3d_7pt(index_type nx, index_type ny, index_type nz);

/// 3D 27-point Laplacian on nx x ny x nz: 26 on the diagonal, -1 for each of the (up to) 26
/// neighbours in the surrounding 3x3x3 cube (as in HPCG). n = nx*ny*nz.
Csr<double> laplacian_3d_27pt(index_type nx, index_type ny, index_type nz);

/// Nonsymmetric convection-diffusion operator -Laplace(u) + w . grad(u), Dirichlet boundary, on
/// an nx x ny (nz == 1: 5 points per row) or nx x ny x nz (7 points) grid with uniform spacing
/// h = 1/(nx+1) in every direction (the unit interval in x). Rows in lexicographic order (x
/// fastest), as the Laplacians. Discretization: central second differences for diffusion,
/// first-order upwind differences for convection with constant velocity w = (wx, wy, wz) (wz is
/// ignored when nz == 1); the matrix is the operator times h^2. Row entries, per direction d:
///   diagonal        2*dims + h * sum_d |w_d|          (dims = 2 or 3)
///   minus neighbour -1 - h * max(w_d, 0)
///   plus neighbour  -1 + h * min(w_d, 0)
/// so w = 0 gives exactly laplacian_2d_5pt / laplacian_3d_7pt, interior row sums are 0 and the
/// matrix is an M-matrix (nonsingular) for every w. Cell Peclet number |w| h / 2.
/// Throws std::invalid_argument for sizes < 1, non-finite w or n / nnz overflowing index_type.
Csr<double> convection_diffusion(index_type nx, index_type ny, index_type nz, double wx,
                                 double wy, double wz);

/// SuiteSparse's JGD_Trefethen/Trefethen_N: n x n, diagonal entries the first n primes, and 1 at
/// (i, j) whenever |i - j| is a power of two (1, 2, 4, ...). Symmetric, integer valued.
Csr<double> trefethen(index_type n);

/// Layout of the zianekhodja2014 replication generator.
enum class ReplicationLayout {
    diagonal,   // Sec. 5.2, Fig. 4: copies of A on the diagonal, smaller copies in the off-diagonal gaps
    five_band,  // Sec. 6.2, Fig. 7: the five-band variant
};

/// Builds a large matrix with real structure from a small square seed matrix A (n x n) by the
/// band-matrix generator of zianekhodja2014 Sec. 5.2, Fig. 4 (diagonal) and Sec. 6.2, Fig. 7
/// (five_band). The result has K = ceil(target_rows / n) block rows of n rows each, so
/// N = K*n rows (the smallest multiple of n that is >= target_rows), and is square.
///
/// Reading of the paper (it gives the idea and Table 3/6 counts, not the code):
/// - diagonal: block (b, b) = A for b = 0..K-1. The "smaller copies" lower_copy / upper_copy
///   fill the empty corners of the band between two successive diagonal copies. With
///   w = max |i - j| over A's entries (half-bandwidth) and S = A[0:w, 0:w] (leading principal
///   w x w block), the lower copy is the strict upper triangle of S placed so that S(i, j),
///   j > i, lands at global (row (b+1)n + i, column (b+1)n - w + j), for b = 0..K-2; the upper
///   copy is the strict lower triangle of S with S(i, j), i > j, at (row (b+1)n - w + i,
///   column (b+1)n + j). Every gap entry has 1 <= |row - col| <= w - 1, so the half-bandwidth
///   stays w (as in Table 3, where ecology2's bandwidth goes from 2001 to 2002), a symmetric A
///   gives a symmetric result (the two gap copies are transposes of each other), and each gap adds
///   nnz(S) - nnz(diag(S)) entries. nnz = K*nnz(A) + (K-1)*(nnz(S) - nnz(diag S)).
/// - five_band: the diagonal layout plus copies of A on two far block off-diagonals, at block
///   offset +d and -d with d = max(2, floor(K/2)): block (b, b+d) and (b+d, b) for
///   b = 0..K-d-1 (none when K <= d). With d = K/2 the far bands hold about K copies, doubling
///   nnz as Table 6 vs Table 3 shows, max |i - j| is about N/2, and for odd K the rows of the
///   middle block row span all N columns (Table 6 lists bandwidths of about N). The far copies
///   are scaled by 1/2 (a deviation: the paper states no values): unscaled, [[A, A], [A, A]]
///   pairs of blocks would be singular, while with 1/2 the block coupling (the pairs and
///   3-chains that d >= K/2 makes) has eigenvalues in [1 - sqrt(2)/2, 1 + sqrt(2)/2] times A's.
///   nnz = diagonal nnz + 2*max(K - d, 0)*nnz(A).
/// Columns are sorted within each row with no duplicates. Diagonal blocks are copies of A and
/// the gap copies couple them weakly (e.g. the 2D 5-point Laplacian stays weakly diagonally
/// dominant); nonsingularity is not guaranteed for every seed.
/// replicate(a, t, layout) is replicate_rows(a, t, layout, 0, replicated_rows(a, t)).
/// Throws std::invalid_argument when A is not square, empty or invalid (see validate()),
/// target_rows < 1, or N or nnz overflows index_type.
Csr<double> replicate(const Csr<double>& a, index_type target_rows, ReplicationLayout layout);

/// N, the number of rows (= columns) of replicate(a, target_rows, ...): ceil(target_rows / n) * n
/// for the n x n seed a (the same for both layouts). O(nnz(a)) (the seed is validated).
/// Throws std::invalid_argument as replicate: a not square, empty or invalid ("seed matrix"),
/// target_rows < 1 ("target_rows"), or N overflowing index_type.
index_type replicated_rows(const Csr<double>& a, index_type target_rows);

/// Rows [row_begin, row_end) of replicate(a, target_rows, layout), as a
/// (row_end - row_begin) x N CSR matrix with global column indices (N = replicated_rows(a,
/// target_rows)): row i of the result is row row_begin + i of the whole matrix, identical
/// entries in the same order. This is how every rank of zianekhodja2014 Sec. 5.2 (formulas 7-8,
/// Fig. 4) builds its own block of a 25M-row matrix: the whole matrix is never formed.
/// Cost: O(nnz(a)) for the seed's checks and half-bandwidth, then O(rows of the range + their
/// nnz) time and memory (a counting pass, O(log) per row, then one filling pass).
/// An empty range (row_begin == row_end) gives a 0 x N matrix.
/// Only the block's nnz must fit index_type (not the whole matrix's): a block with more than
/// 2^31 - 1 nonzeros throws, before anything is allocated, naming its row range.
/// Throws std::invalid_argument as replicated_rows, for an unknown layout, for row_begin outside
/// [0, N] ("row_begin"), row_end outside [row_begin, N] ("row_end"), or the block's nnz
/// overflowing index_type.
Csr<double> replicate_rows(const Csr<double>& a, index_type target_rows, ReplicationLayout layout,
                           index_type row_begin, index_type row_end);

// ---- Random matrices (matrices/random_matrices.cpp) ------------------------------------------
// Deterministic for a seed: every row draws from its own splitmix64 stream (seeded from the seed
// and the row index) and all sampling is done here (no std:: distributions, whose output differs
// between standard libraries), so a seed gives the same matrix on every platform, with one
// caveat: the power-law table is built with std::pow, whose last bit may differ between math
// libraries (a row length changes only if a draw falls within one ulp of a table boundary).

/// Distribution of the row lengths of random_rows.
enum class RowLengthDistribution {
    uniform,    // every length in [row_min, row_max] equally likely
    geometric,  // row_min + G, G geometric on {0, 1, ...} with mean (mean - row_min), clamped
    power_law,  // P(L) proportional to L^-exponent for L in [row_min, row_max]
};

/// Parameters of random_rows; the names are those of the manifest (matrices/matrix_set.hpp).
struct RandomRowsParams {
    index_type n = 0;            // rows = columns
    RowLengthDistribution distribution = RowLengthDistribution::uniform;
    index_type row_min = 1;      // shortest row (nonzeros, diagonal included), >= 1
    index_type row_max = 1;      // longest row, row_min <= row_max <= n
    double mean = 0.0;           // geometric only: mean before the clamp, in [row_min, row_max]
    double exponent = 0.0;       // power_law only: > 0
    index_type bandwidth = 0;    // off-diagonal columns within [i - bandwidth, i + bandwidth], >= 0
    std::uint64_t seed = 1;
};

/// Checks `p` as random_rows does, without generating anything. Throws std::invalid_argument
/// naming the parameter (as in the manifest) for n < 1, row_min < 1, row_min > row_max,
/// row_max > n, bandwidth < 0, for geometric a mean outside [row_min, row_max] or not finite,
/// for power_law an exponent <= 0 or not finite.
void check_random_rows(const RandomRowsParams& p);

/// Mean of the row-length distribution of `p` before the clamp to the columns a row has
/// (see random_rows), i.e. the analytic expected row length when 2*bandwidth + 1 >= row_max:
///   uniform    (row_min + row_max) / 2
///   geometric  row_min + (mean - row_min) * (1 - q^(row_max - row_min)),
///              q = (mean - row_min) / (mean - row_min + 1)  (the clamp at row_max lowers it)
///   power_law  sum L^(1 - exponent) / sum L^-exponent over L in [row_min, row_max]
/// Throws as check_random_rows.
double expected_row_length(const RandomRowsParams& p);

/// An n x n sparse matrix whose row lengths follow a given distribution, for SpMV format
/// studies on irregular rows (kbench; no paper).
/// Row i: its length L_i (nonzeros, diagonal included) is drawn from p.distribution (see
/// RowLengthDistribution and expected_row_length), then clamped to the columns the row can
/// have: min(L_i, c_i) with c_i = min(n - 1, i + bandwidth) - max(0, i - bandwidth) + 1 (at most
/// 2*bandwidth + 1, fewer within bandwidth of the first and last rows). The L_i - 1 off-diagonal
/// columns are distinct and uniformly drawn from [i - bandwidth, i + bandwidth] clipped to
/// [0, n), i excluded. Values: off-diagonal uniform in [-1, -0.1] U [0.1, 1] (uniform magnitude
/// in [0.1, 1), random sign), diagonal 1 + sum of the row's |off-diagonal|, so the matrix is
/// strictly diagonally dominant by rows (nonsingular); it is neither symmetric nor pattern
/// symmetric in general. Columns sorted, no duplicates, the diagonal always present.
/// Same parameters and seed give an identical matrix; another seed gives another one.
/// Cost: O(nnz) time (columns are drawn by rejection into a sorted buffer, or by selection
/// sampling when a row takes more than half of its band), under 2 s per 5e7 nonzeros on one
/// core (AMD EPYC). Memory: the matrix plus a table of up to row_max - row_min + 1 doubles.
/// Throws std::invalid_argument as check_random_rows, or when nnz overflows index_type (checked
/// before allocating anything when n * min(row_min, bandwidth + 1) overflows, else after drawing
/// the lengths and before allocating the columns).
Csr<double> random_rows(const RandomRowsParams& p);

/// Signs of the off-diagonal values of banded().
enum class BandedSigns {
    random,    // each off-diagonal value's sign drawn with probability 1/2 (the default)
    negative,  // every off-diagonal value negative, the diagonal positive: a_ij = -|a_ij|, so
               // A is a Z-matrix; with d > 1 (strictly dominant) a nonsingular M-matrix, like a
               // discretized diffusion operator (d = 1 with K = 1 is tridiag(-1, 2, -1) up to the
               // random magnitudes and the first and last rows)
};

/// "random" or "negative"; parse_banded_signs throws std::invalid_argument naming both.
const char* to_string(BandedSigns signs);
BandedSigns parse_banded_signs(const std::string& name);

/// The random banded matrix of li2012 (SPIKE::GPU): N x N with half-bandwidth K, every entry with
/// |i - j| <= K stored (2K + 1 per row, fewer in the first and last K rows;
/// nnz = N(2K + 1) - K(K + 1)), and degree of diagonal dominance d in the sense of li2012
/// footnote 1, |a_ii| >= d * sum_{j != i} |a_ij|, held with equality in every row:
/// a_ii = d * sum_{j != i} |a_ij| (one rounding), so min_i |a_ii| / sum_{j != i} |a_ij| is d
/// up to rounding (about 1e-15 relative, whatever the order of the sum).
/// li2012 states only "randomly generated matrices" with a degree of diagonal dominance d
/// (Sec. 1.4, Table 1: d = 1..1e4; Sec. 2.5: d = 1.0; Sec. 3.2: K = 32 with N varied, and
/// N = 400,000 with K varied up to 256), not the value distribution. Here: off-diagonal
/// magnitudes uniform in [0.1, 1) (as random_rows), positive diagonal, and the off-diagonal
/// signs by `signs` (kbench's choice, not li2012's): random (values uniform in
/// [-1, -0.1] U [0.1, 1], the default) or all negative (an M-matrix for d > 1). The two share
/// their magnitudes for a seed: banded(..., negative) is -|off-diagonal| of banded(..., random),
/// with the same diagonal. Why both: with random signs the SPIKE spikes decay very fast even at
/// d = 1 (the sign cancellations), with negative signs at d = 1 they decay slowly (as for
/// tridiag(-1, 2, -1)). d < 1 is allowed (the matrix is not diagonally dominant then, and
/// nonsingularity is not guaranteed; d > 1 gives a strictly dominant, nonsingular matrix; d = 1
/// with negative signs is weakly dominant with zero interior row sums, strictly dominant in the
/// first and last K rows: an irreducible, nonsingular M-matrix whose condition grows about as
/// (N/K)^2).
/// Deterministic for a seed (per-row splitmix64 streams, as random_rows).
/// Throws std::invalid_argument for n < 2, K < 1, K >= n, d <= 0 or not finite, or nnz
/// overflowing index_type.
Csr<double> banded(index_type n, index_type K, double d, std::uint64_t seed,
                   BandedSigns signs = BandedSigns::random);

/// Checks the parameters of banded without generating (same errors).
void check_banded(index_type n, index_type K, double d);

}  // namespace kbench
