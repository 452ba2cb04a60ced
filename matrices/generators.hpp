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

/// Nonsymmetric convection-diffusion operator -Laplace(u) + w . grad(u) on the unit square (nz
/// == 1: 5 points) or cube (7 points), grid spacing h = 1/(n+1), central differences for
/// diffusion, first-order upwind differences for convection with velocity w = (wx, wy, wz)
/// (cell Peclet number |w| h / 2). Matrix scaled by h^2. Throws std::invalid_argument for sizes < 1.
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

/// Builds a large matrix with real structure from a small square matrix A (zianekhodja2014
/// Sec. 5.2, Fig. 4 and Sec. 6.2, Fig. 7). The result has ceil(target_rows / n) * n rows (the
/// smallest multiple of n that is >= target_rows). Throws std::invalid_argument when A is not
/// square, empty, or the result overflows index_type.
Csr<double> replicate(const Csr<double>& a, index_type target_rows, ReplicationLayout layout);

}  // namespace kbench
