// Tall-skinny QR (TSQR) of an n x k block V = Q R, the orthogonalization family of CA-GMRES and
// block GMRES (yamazaki2014 Sec. V; Fukaya et al. 2020 for shifted CholQR3). This header declares
// the methods, their failure status and the CPU reference implementations (Eigen), plus the
// measures and test blocks of yamazaki2014 Fig. 10. GPU versions will share these signatures
// with device pointers, a stream and a caller's workspace.
//
// Layout everywhere: V is n x k column-major with leading dimension ld >= n (rows n..ld-1 of each
// column are never touched); R is k x k column-major with leading dimension ldr >= k, written in
// full (upper triangle, zeros below). On success V holds Q (orthonormal columns) and V_in = Q R
// with R's diagonal positive. T is float or double; every method works in T.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kbench::ortho {

/// The TSQR methods (yamazaki2014 Sec. V-B; Fukaya et al. 2020).
enum class TsqrMethod {
    mgs,              // modified Gram-Schmidt: loss of orthogonality ~ eps kappa
    cgs,              // classical Gram-Schmidt: ~ eps kappa^2 (one pass)
    cgs2,             // CGS with one full reorthogonalization: ~ eps while eps kappa < 1
    cholqr,           // Cholesky of the Gram matrix V^T V: ~ eps kappa^2, fails for kappa > eps^-1/2
    cholqr2,          // CholQR twice: ~ eps while eps kappa^2 < 1
    svqr,             // eigen/SVD of the unit-diagonal-scaled Gram matrix (yamazaki2014): ~ eps kappa^2
    caqr,             // Householder QR of row blocks, then of the stacked R factors: ~ eps
    shifted_cholqr3,  // shifted CholQR, then CholQR2 (Fukaya et al. 2020): ~ eps for kappa up
                      // to about 1 / (n k eps) (fails beyond it, as a status)
};

/// Every method, in the order above.
const std::vector<TsqrMethod>& tsqr_methods();

/// "mgs", "cgs", "cgs2", "cholqr", "cholqr2", "svqr", "caqr", "shifted_cholqr3";
/// parse_tsqr_method throws std::invalid_argument listing these for anything else.
const char* to_string(TsqrMethod method);
TsqrMethod parse_tsqr_method(const std::string& name);

/// How a TSQR ended. Failure is an outcome, not an exception: the caller can fall back (e.g.
/// from CholQR to shifted CholQR3 or CAQR).
enum class TsqrStatus {
    ok,
    not_positive_definite,  // a Cholesky pivot of the (shifted) Gram matrix was <= 0 or not finite
    rank_deficient,         // a column left with <= k eps of its norm after the projections
                            // (Gram-Schmidt), an eigenvalue of the scaled Gram matrix <= k eps
                            // times the largest (SVQR), an R diagonal entry that is zero
                            // (CAQR, SVQR), or a value that is not finite
};

const char* to_string(TsqrStatus status);

struct TsqrOutcome {
    TsqrStatus status = TsqrStatus::ok;
    int column = -1;     // the column (pivot, eigenvalue index) that failed; -1 when ok
    std::string detail;  // e.g. "Gram matrix pivot 7 is -3.1e-12 (pass 1)"; empty when ok
};

namespace reference {

/// TSQR of V in place by `method` on the CPU (Eigen; the reference for the GPU versions).
/// Shapes and layouts: see the file comment; 1 <= k <= n. `block_rows` is CAQR's row-block size
/// h (0: max(k, 2048); each block has >= k rows, the last one takes the remainder) and is
/// ignored by the other methods. On failure V and R hold partial results. Throws
/// std::invalid_argument naming the parameter for k < 1, n < k, ld < n, ldr < k, block_rows
/// < 0 or 0 < block_rows < k, or a null pointer. Source: yamazaki2014 Sec. V-B (MGS, CGS,
/// CholQR, SVQR, CAQR); Fukaya, Kannan, Nakatsukasa, Yamamoto, Yanagisawa 2020, "Shifted
/// Cholesky QR for computing the QR factorization of ill-conditioned matrices", SIAM J. Sci.
/// Comput. 42(1) (shifted CholQR3, shift 11 (n k + k (k + 1)) u ||V||^2).
template <typename T>
TsqrOutcome tsqr(TsqrMethod method, std::int64_t n, int k, T* V, std::int64_t ld, T* R, int ldr,
                 std::int64_t block_rows = 0);

}  // namespace reference

/// The measures of yamazaki2014 Fig. 10: orthogonality = ||I - Q^T Q||_2 and residual =
/// ||V - Q R||_F / ||V||_F, computed in double on the host.
struct TsqrQuality {
    double orthogonality = 0.0;
    double residual = 0.0;
};

/// Quality of a factorization: V (the input block), Q and R with the layouts of the file comment
/// (host arrays). Throws std::invalid_argument as reference::tsqr does for the shapes.
template <typename T>
TsqrQuality tsqr_quality(std::int64_t n, int k, const T* V, std::int64_t ldv, const T* Q,
                         std::int64_t ldq, const T* R, int ldr);

/// A test block of condition number kappa: V = U diag(s) W^T with U (n x k, orthonormal columns)
/// and W (k x k, orthogonal) from Householder QR of Gaussian matrices (std::mt19937_64 seeded by
/// `seed`) and singular values s_j = kappa^(-j/(k-1)), j = 0..k-1 (s = 1 for k = 1). Returns the
/// n x k column-major block, ld = n, in double. Throws std::invalid_argument for k < 1, n < k or
/// kappa < 1 or not finite. Source: yamazaki2014 Sec. V-C (blocks of controlled condition number).
std::vector<double> conditioned_block(std::int64_t n, int k, double kappa, std::uint64_t seed);

}  // namespace kbench::ortho
