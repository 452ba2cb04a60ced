// Matrix generators: PDE stencils, Trefethen matrices and the zianekhodja2014 replication.
#pragma once

#include "matrices/csr.hpp"

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
/// Throws std::invalid_argument when A is not square, empty or invalid (see validate()),
/// target_rows < 1, or N or nnz overflows index_type.
Csr<double> replicate(const Csr<double>& a, index_type target_rows, ReplicationLayout layout);

}  // namespace kbench
