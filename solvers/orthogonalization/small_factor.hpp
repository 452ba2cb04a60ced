// The small k x k factorizations of the TSQR family, on the host (Eigen), shared by the CPU
// reference (tsqr_reference.cpp) and the GPU TSQR (tsqr_gpu.cu): the Cholesky factor of a
// (shifted) Gram matrix, the SVQR factor of a Gram matrix, the QR of CAQR's stacked R factors
// and the shift of shifted CholQR3. Small matrices are column-major host arrays with a leading
// dimension >= their row count. Failures are a TsqrOutcome, never an exception.
#pragma once

#include "solvers/orthogonalization/tsqr.hpp"

#include <cstdint>
#include <vector>

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

/// True for the methods whose only product over the rows is the Gram matrix V^T V (cholqr,
/// cholqr2, svqr, shifted_cholqr3): on several ranks each needs one all-reduce of k x k values
/// per pass and nothing else (yamazaki2014 Sec. V-B: CholQR and SVQR on several GPUs).
inline bool is_gram_tsqr(TsqrMethod method)
{
    return method == TsqrMethod::cholqr || method == TsqrMethod::cholqr2 ||
           method == TsqrMethod::svqr || method == TsqrMethod::shifted_cholqr3;
}

/// The Gram-based TSQR methods (is_gram_tsqr) over a block V of n rows and k columns whose
/// tall-skinny work the caller does, wherever V lives (one device, the rows of several ranks):
///   gram(T* G)               G := V^T V (k x k, ld k, host; on several ranks the sum over them,
///                            identical on every rank)
///   upper_solve(const T* U)  V := V U^-1 (U k x k upper triangular, ld k, host)
///   multiply(const T* M)     V := V M (M k x k, ld k, host; svqr only)
/// Per pass: one gram, the k x k factorization on the host (cholesky_factor, svqr_factor), one
/// update. R (k x k, ldr, host) is written in full (upper triangle, zeros below). n: the rows of
/// the whole block (the shift of shifted CholQR3, from ||V||_F^2 = trace(G)). Failures are the
/// outcome (V then holds partial results); a method that is not Gram-based is rank_deficient
/// with detail "not a Gram-based TSQR" (callers reject it first). Source: yamazaki2014 Sec.
/// V-B (CholQR, SVQR); Fukaya et al. 2020 (shifted CholQR3).
template <typename T, typename Gram, typename UpperSolve, typename Multiply>
TsqrOutcome gram_tsqr(TsqrMethod method, std::int64_t n, int k, T* R, int ldr, Gram&& gram,
                      UpperSolve&& upper_solve, Multiply&& multiply)
{
    const auto kk = static_cast<std::size_t>(k) * static_cast<std::size_t>(k);
    std::vector<T> g(kk), f(kk), r(kk, T(0));
    auto write_r = [&] {
        for (int j = 0; j < k; ++j)
            for (int i = 0; i < k; ++i)
                R[i + static_cast<std::size_t>(j) * ldr] =
                    i > j ? T(0) : r[i + static_cast<std::size_t>(j) * k];
    };
    if (method == TsqrMethod::svqr) {
        gram(g.data());
        const TsqrOutcome o = svqr_factor(k, g.data(), k, f.data(), k, r.data(), k);
        write_r();
        if (o.status == TsqrStatus::ok) multiply(static_cast<const T*>(f.data()));
        return o;
    }
    if (!is_gram_tsqr(method)) {
        write_r();
        return {TsqrStatus::rank_deficient, -1, "not a Gram-based TSQR"};
    }
    for (int j = 0; j < k; ++j) r[j + static_cast<std::size_t>(j) * k] = T(1);
    // One (shifted) CholQR pass: V := V U^-1, R := U R.
    auto pass = [&](bool shifted, const char* name) {
        gram(g.data());
        T shift = T(0);
        if (shifted) {
            double frob2 = 0.0;
            for (int j = 0; j < k; ++j)
                frob2 += static_cast<double>(g[j + static_cast<std::size_t>(j) * k]);
            shift = cholqr3_shift<T>(n, k, frob2);
        }
        const TsqrOutcome o = cholesky_factor(k, g.data(), k, shift, f.data(), k, name);
        if (o.status != TsqrStatus::ok) return o;
        upper_solve(static_cast<const T*>(f.data()));
        std::vector<T> ur(kk, T(0));  // U R, both upper triangular
        for (int j = 0; j < k; ++j)
            for (int i = 0; i <= j; ++i) {
                T s = T(0);
                for (int p = i; p <= j; ++p)
                    s += f[i + static_cast<std::size_t>(p) * k] *
                         r[p + static_cast<std::size_t>(j) * k];
                ur[i + static_cast<std::size_t>(j) * k] = s;
            }
        r = std::move(ur);
        return TsqrOutcome{};
    };
    TsqrOutcome out;
    if (method == TsqrMethod::shifted_cholqr3) out = pass(true, "shifted pass");
    if (out.status == TsqrStatus::ok) {
        out = pass(false, "pass 1");
        if (out.status == TsqrStatus::ok && method != TsqrMethod::cholqr)
            out = pass(false, "pass 2");
    }
    write_r();
    return out;
}

}  // namespace kbench::ortho::detail
