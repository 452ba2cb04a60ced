// The small k x k factorizations of the TSQR family, on the host (Eigen), shared by the CPU
// reference (tsqr_reference.cpp) and the GPU TSQR (tsqr_gpu.cu): the Cholesky factor of a
// (shifted) Gram matrix, the SVQR factor of a Gram matrix, the QR of CAQR's stacked R factors
// and the shift of shifted CholQR3. Small matrices are column-major host arrays with a leading
// dimension >= their row count. Failures are a TsqrOutcome, never an exception.
#pragma once

#include "solvers/orthogonalization/tsqr.hpp"

#include <cstdint>

namespace kbench::ortho::detail {

/// Upper triangular U (k x k, ldu; zeros below the diagonal) with U^T U = G + shift I for a
/// symmetric k x k Gram matrix G (ldg; only its upper triangle is read). A pivot <= 0 or not
/// finite gives status not_positive_definite, its column and a detail naming `pass` (e.g.
/// "pass 1"). Source: yamazaki2014 Sec. V-B (CholQR).
template <typename T>
TsqrOutcome cholesky_factor(int k, const T* G, int ldg, T shift, T* U, int ldu, const char* pass);

/// SVQR's factors from the Gram matrix G = V^T V (k x k, ldg): M (k x k, ldm) such that Q = V M
/// has orthonormal columns, and R (upper triangular with a positive diagonal, ldr) with V = Q R.
/// Scales G to unit diagonal (D G D, D = diag(G)^-1/2), takes its eigendecomposition U S U^T,
/// then the QR Qb Rb of S^1/2 U^T D^-1: M = D U S^-1/2 Qb, R = Rb. A column of zero norm, an
/// eigenvalue <= k eps times the largest or a zero diagonal of Rb is rank_deficient. Source: yamazaki2014 Sec. V-B.
template <typename T>
TsqrOutcome svqr_factor(int k, const T* G, int ldg, T* M, int ldm, T* R, int ldr);

/// CAQR's reduction step: the Householder QR of the stacked R factors S (rows x k, lds >= rows,
/// rows >= k), returning the explicit Qs (rows x k, ldq) and R (k x k, ldr, upper triangular
/// with a positive diagonal; the signs moved into Qs). A zero diagonal entry of R is
/// rank_deficient. Source: yamazaki2014 Sec. V-B (CAQR).
template <typename T>
TsqrOutcome stacked_qr(std::int64_t rows, int k, const T* S, std::int64_t lds, T* Qs,
                       std::int64_t ldq, T* R, int ldr);

/// The shift of shifted CholQR3 for an n x k block of squared Frobenius norm `frob2`:
/// 11 (n k + k (k + 1)) u ||V||_F^2 with u the unit roundoff of T (Fukaya et al. 2020, the
/// Frobenius norm standing in for the 2-norm as an upper bound).
template <typename T>
T cholqr3_shift(std::int64_t n, int k, double frob2);

}  // namespace kbench::ortho::detail
