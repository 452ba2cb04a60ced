// The CA-GMRES(s, m) iteration shared by the GPU and the CPU solvers (solvers/ca_gmres.hpp):
// restart cycles, blocks of MPK + BOrth + TSQR with the TSQR fallback, the Hessenberg
// reconstruction, the Givens least squares, statuses, history and records. All of it is host
// code; a Backend owns the vectors and does the tall-skinny work. Basis Q: n x (m + 1), column j
// the start vector of a block whose k new vectors go to columns j + 1 .. j + k.
//   PhaseLog log; void sync();               phase timing (block_gmres_cycle.hpp), stream sync
//   double norm_b();                         ||b||
//   double residual();                       q_0 := b - A x, returns ||q_0||
//   void scale_first(double inv);           q_0 *= inv
//   void mpk(int j, int k, steps);           columns j+1..j+k from column j (matrix_powers)
//   void borth(int j, int k);                those columns -= Q_{0:j} C over the passes; C kept
//                                            (and, on the GPU, its copy to the host started)
//   void save(int j, int k) / restore(j, k)  copy of the block for a second TSQR
//   TsqrOutcome tsqr(method, j, k, T* R);    TSQR of the block in place, R host k x k (ld k)
//   void fetch(int j, int k, T* C, T* n2);   C ((j+1) x k, ld j+1) and the MPK's squared norms
//                                            n2[1..k] to the host
//   bool block_finite(int j, int k);         every entry of the block finite
//   TsqrQuality quality(j, k, const T* R);   TSQR errors of the block (after save + tsqr)
//   void update(const std::vector<T>& y);    x += Q_{0:c-1} y
//   void basis(int c, std::vector<T>& V);    host copy of Q_{0:c} (n x (c + 1), ld n)
//   std::int64_t rows();                     n
// and for CaBorth::two_stage's stage 1 (blocks of k <= s; stage 2 runs borth, tsqr and fetch
// on panels of up to panel_columns <= 64 columns):
//   void project(int j, int k);              G = [Q_{0:j}, W]^T W, W the block (one fused
//                                            product), and on the GPU its copy to the host
//                                            started (with the MPK's squared norms)
//   void fetch_projection(int j, int k, T* G, T* n2);  G ((j+1+k) x k, ld j+1+k) and n2[1..k]
//   void stage1(int j, int k, const T* R);   W := (W - Q_{0:j} C) R^-1, C = G(0:j, :) (R host
//                                            k x k upper, ld k; null: W := W - Q_{0:j} C)
// Internal header: include only from the solver sources.
#pragma once

#include "kernels/tall_skinny.hpp"        // blas::max_block_columns
#include "solvers/block_gmres_cycle.hpp"  // PhaseLog
#include "solvers/ca_gmres.hpp"
#include "solvers/cycle_end.hpp"
#include "solvers/hessenberg.hpp"
#include "solvers/orthogonalization/small_factor.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace kbench::solvers::detail {

// ---- Device block products shared by the GPU backends (ca_gmres.cu and the distributed
// solver of solvers/distributed/distributed_ca_gmres.cpp): tall blocks of n rows (ld >= n) with
// any number of columns, in chunks of blas::max_block_columns; enqueued on `stream`.

/// C (kv x k, ldc >= kv, device) := V^T W for V n x kv and W n x k (k <= max_block_columns),
/// one blas::gram per chunk; the workspace: at least blas::gram_workspace_bytes(n, min(kv,
/// max_block_columns), k) bytes, a ready gram workspace (its ticket counters zero:
/// blas::GramWorkspace, or blas::gram_workspace_init after other work wrote them); every call
/// leaves them zero.
template <typename T>
void block_products(std::int64_t n, int kv, const T* V, std::int64_t ldv, int k, const T* W,
                    std::int64_t ldw, T* C, int ldc, void* workspace, std::size_t workspace_bytes,
                    cudaStream_t stream)
{
    constexpr int chunk = blas::max_block_columns;
    for (int c0 = 0; c0 < kv; c0 += chunk)
        blas::gram(n, std::min(chunk, kv - c0), V + static_cast<std::int64_t>(c0) * ldv, ldv, k,
                   W, ldw, C + c0, ldc, workspace, workspace_bytes, stream);
}

/// W := W - V C for V n x kv, C kv x k (ldc, device), W n x k (k <= max_block_columns).
template <typename T>
void block_subtract(std::int64_t n, int kv, const T* V, std::int64_t ldv, int k, const T* C,
                    int ldc, T* W, std::int64_t ldw, cudaStream_t stream)
{
    constexpr int chunk = blas::max_block_columns;
    for (int c0 = 0; c0 < kv; c0 += chunk)
        blas::gemm_rowwise<T>(n, std::min(chunk, kv - c0), k, T(-1),
                              V + static_cast<std::int64_t>(c0) * ldv, ldv, C + c0, ldc, T(1), W,
                              ldw, stream);
}

/// x := x + V y for V n x c (ld), y c values and x n values (device): the solution update.
template <typename T>
void basis_update(std::int64_t n, int c, const T* V, std::int64_t ld, const T* y, T* x,
                  cudaStream_t stream)
{
    constexpr int chunk = blas::max_block_columns;
    for (int c0 = 0; c0 < c; c0 += chunk) {
        const int kk = std::min(chunk, c - c0);
        blas::gemm_rowwise<T>(n, kk, 1, T(1), V + static_cast<std::int64_t>(c0) * ld, ld, y + c0,
                              kk, T(1), x, ld, stream);
    }
}

/// The shifts of the Ritz values of the plain GMRES cycle, Leja ordered; never throws (values
/// that are not finite are dropped; an unpaired complex value, which a real Hessenberg matrix
/// does not give, makes every shift real).
inline std::vector<std::complex<double>> ritz_shifts(int c, const double* H, int ldh)
{
    std::vector<std::complex<double>> z;
    for (const std::complex<double>& v : ritz_values(c, H, ldh))
        if (std::isfinite(v.real()) && std::isfinite(v.imag())) z.push_back(v);
    try {
        return leja_order(z);
    } catch (const std::invalid_argument&) {
        for (auto& v : z) v = v.real();
        return leja_order(z);
    }
}

inline std::string block_name(int restart, int j, int k)
{
    return "restart " + std::to_string(restart) + ", block of basis vectors " +
           std::to_string(j + 1) + ".." + std::to_string(j + k);
}

/// The columns of a two-stage panel: panel_columns, or min(restart length, 64) when 0.
inline int panel_limit(const CaGmresOptions& o, int m)
{
    return o.panel_columns > 0 ? o.panel_columns : std::min(m, blas::max_block_columns);
}

/// Stage 1's factor (CaBorth::two_stage): the upper triangular R (k x k, ld k, zeros below)
/// with R^T R = W^T W - C^T C (the Pythagorean identity of BCGS-PIP), from the fused product
/// G = [Q_{0:j}, W]^T W ((j + 1 + k) x k, ld j + 1 + k: C = G(0:j, :), W^T W = G(j+1:, :)), in
/// double on the host. A failing Cholesky pivot is the outcome (not_positive_definite, the
/// column, detail "... (stage 1)").
template <typename T>
ortho::TsqrOutcome pythagorean_cholesky(int j, int k, const T* G, T* R)
{
    const int ldg = j + 1 + k;
    std::vector<double> m(static_cast<std::size_t>(k) * k, 0.0), u(m.size(), 0.0);
    for (int c = 0; c < k; ++c) {
        for (int r = 0; r <= c; ++r) {
            double sum = static_cast<double>(G[j + 1 + r + static_cast<std::size_t>(c) * ldg]);
            for (int i = 0; i <= j; ++i)
                sum -= static_cast<double>(G[i + static_cast<std::size_t>(r) * ldg]) *
                       static_cast<double>(G[i + static_cast<std::size_t>(c) * ldg]);
            m[r + static_cast<std::size_t>(c) * k] = sum;
        }
    }
    const ortho::TsqrOutcome out =
        ortho::detail::cholesky_factor<double>(k, m.data(), k, 0.0, u.data(), k, "stage 1");
    for (std::size_t i = 0; i < u.size(); ++i) R[i] = static_cast<T>(u[i]);
    return out;
}

template <typename T, typename Backend>
CaGmresResult run_ca_gmres(Backend& be, const CaGmresOptions& o,
                           const CaCycleObserver<T>* observer = nullptr)
{
    CaGmresResult result;
    result.timing_mode = o.timing_mode;
    be.log.on = o.detailed;
    const auto sync = [&be] { be.sync(); };
    const double eps = std::numeric_limits<T>::epsilon();
    const double bnorm = be.norm_b();
    const double scale = bnorm > 0.0 ? 1.0 / bnorm : 1.0;
    const double tol = o.timing_mode ? -1.0 : o.tolerance;
    const int m = restart_length(o);
    const int ldh = m + 1;
    std::vector<double> H(static_cast<std::size_t>(ldh) * m), Cd, Rd, sigma;
    std::vector<T> C, R, norm2, h, Vh, G, C2, R2;
    const bool two_stage = o.borth == CaBorth::two_stage;
    const int panel = panel_limit(o, m);
    HessenbergLsq<T> lsq(m);
    std::vector<std::complex<double>> shifts;
    bool have_shifts = false;
    if (o.basis == CaBasis::newton && !o.shifts.empty()) {
        shifts = leja_order(o.shifts);
        have_shifts = true;
    }
    auto stop = [&](SolveStatus s, std::string detail) {
        result.status = s;
        result.detail = std::move(detail);
    };
    auto record = [&](double relative) {
        result.residual_history.push_back(relative);
        result.history_iterations.push_back(result.iterations);
    };
    auto count_fallback = [&](int restart) {
        ++result.tsqr_fallbacks;
        if (result.first_fallback_restart < 0) result.first_fallback_restart = restart;
    };

    // A factorization of new basis columns and its fallback: both outcomes, and which
    // method's R is used.
    struct Factored {
        ortho::TsqrOutcome first, out;
        std::string first_name;  // "TSQR <method>" or "stage-1 CholQR"
        ortho::TsqrMethod method = ortho::TsqrMethod::cholqr;
        bool fell_back = false;
        std::string failure() const
        {
            std::string what = first_name + " failed (" + first.detail + ")";
            if (fell_back)
                what += " and the fallback " + std::string{ortho::to_string(method)} + " too (" +
                        out.detail + ")";
            return what;
        }
    };
    // The TSQR of the columns j + 1 .. j + k in place (R: k x k), and the fallback on the same
    // columns when it fails.
    auto factor = [&](int j, int k, T* Rk) {
        Factored f;
        f.first_name = "TSQR " + std::string{ortho::to_string(o.tsqr)};
        f.method = o.tsqr;
        const bool can_fall_back = o.fallback_tsqr != o.tsqr;
        if (can_fall_back || o.measure_orthogonality) be.save(j, k);
        f.first = f.out = be.tsqr(o.tsqr, j, k, Rk);
        if (f.out.status != ortho::TsqrStatus::ok && can_fall_back) {
            f.fell_back = true;
            f.method = o.fallback_tsqr;
            be.restore(j, k);
            std::fill(Rk, Rk + static_cast<std::size_t>(k) * k, T(0));
            f.out = be.tsqr(o.fallback_tsqr, j, k, Rk);
        }
        return f;
    };
    // Givens least squares, one Hessenberg column at a time (as GMRES): adds columns c0 .. c1,
    // returns how many went in (fewer: hs says why the next one did not).
    HessenbergStatus hs = HessenbergStatus::ok;
    auto givens = [&](int c0, int c1) {
        int added = 0;
        be.log.time("least squares", sync, [&] {
            for (int c = c0; c <= c1; ++c, ++added) {
                h.resize(static_cast<std::size_t>(c) + 2);
                for (int i = 0; i <= c + 1; ++i)
                    h[i] = static_cast<T>(H[static_cast<std::size_t>(c) * ldh + i]);
                hs = lsq.add_column(h.data());
                if (hs != HessenbergStatus::ok) break;
            }
        });
        return added;
    };
    auto stop_on_column = [&](int c, const std::string& where) {
        if (hs == HessenbergStatus::non_finite)
            stop(SolveStatus::non_finite,
                 "Hessenberg column " + std::to_string(c) + " is not finite (" + where + ")");
        else
            stop(SolveStatus::breakdown, "the rotated Hessenberg diagonal entry " +
                                             std::to_string(c) + " is 0 (" + where + ")");
    };

    const auto t0 = std::chrono::steady_clock::now();
    double beta = be.log.time("other", sync, [&] { return be.residual(); });
    record(beta * scale);
    CycleStagnation stagnation{o.stagnation_cycles};
    result.status = SolveStatus::max_iterations;
    while (true) {
        if (!std::isfinite(beta)) {
            stop(SolveStatus::non_finite, "||b - A x|| is not finite after iteration " +
                                              std::to_string(result.iterations));
            break;
        }
        if (beta * scale <= tol) {
            stop(SolveStatus::converged, "");
            break;
        }
        if (result.iterations >= o.max_iterations) break;
        if (o.max_restarts > 0 && result.restarts >= o.max_restarts) {
            result.detail = "max_restarts = " + std::to_string(o.max_restarts) + " reached";
            break;
        }
        if (beta == 0.0) {  // timing mode with an exact solution: nothing left to do
            stop(SolveStatus::converged, "");
            break;
        }
        // The Newton basis needs shifts: without given ones the first cycle is plain GMRES(m)
        // (one-vector blocks of the monomial recurrence: Arnoldi with BOrth as its Gram-Schmidt).
        const bool ca = o.basis == CaBasis::monomial || have_shifts;
        const int step = ca ? o.s : 1;
        const int restart = result.restarts++;
        const auto cycle_start = std::chrono::steady_clock::now();
        be.log.time("other", sync, [&] { be.scale_first(1.0 / beta); });
        lsq.reset(static_cast<T>(beta));
        std::fill(H.begin(), H.end(), 0.0);
        int j = 0;
        int a = 1;  // two_stage: the first basis column of the panel
        bool happy = false, failed = false;
        double last_kappa = -1.0;
        while (j < m && result.iterations < o.max_iterations) {
            const int k = std::min({step, m - j, o.max_iterations - result.iterations});
            const std::vector<MpkStep> steps =
                newton_steps(ca && o.basis == CaBasis::newton ? shifts
                                                              : std::vector<std::complex<double>>{},
                             k);
            be.log.time("MPK", sync, [&] { be.mpk(j, k, steps); });
            const bool two = two_stage && ca;  // this block is stage 1 of a panel
            R.assign(static_cast<std::size_t>(k) * k, T(0));
            C.assign(static_cast<std::size_t>(j + 1) * k, T(0));
            norm2.assign(static_cast<std::size_t>(k) + 1, T(0));
            Factored f;
            if (!two) {
                be.log.time("BOrth", sync, [&] { be.borth(j, k); });
                be.log.time("TSQR", sync, [&] { f = factor(j, k, R.data()); });
                be.log.time("least squares", sync,
                            [&] { be.fetch(j, k, C.data(), norm2.data()); });
            } else {
                // Stage 1: one fused product, the Pythagorean CholQR (fallback_tsqr when it
                // fails, on W - Q C).
                const int ldg = j + 1 + k;
                G.assign(static_cast<std::size_t>(ldg) * k, T(0));
                be.log.time("BOrth", sync, [&] {
                    be.project(j, k);
                    be.fetch_projection(j, k, G.data(), norm2.data());
                });
                for (int t = 0; t < k; ++t)
                    for (int r = 0; r <= j; ++r)
                        C[r + static_cast<std::size_t>(t) * (j + 1)] =
                            G[r + static_cast<std::size_t>(t) * ldg];
                be.log.time("TSQR", sync, [&] {
                    f.first = f.out = pythagorean_cholesky(j, k, G.data(), R.data());
                    f.first_name = "stage-1 CholQR";
                    if (f.out.status == ortho::TsqrStatus::ok) {
                        be.stage1(j, k, R.data());
                        return;
                    }
                    be.stage1(j, k, nullptr);
                    f.fell_back = true;
                    f.method = o.fallback_tsqr;
                    std::fill(R.begin(), R.end(), T(0));
                    f.out = be.tsqr(o.fallback_tsqr, j, k, R.data());
                });
            }
            if (f.fell_back) count_fallback(restart);

            // Failures of both TSQRs.
            sigma.assign(static_cast<std::size_t>(k) + 1, 1.0);
            bool finite = true;
            if (o.normalize_basis) {  // without it the norms are not computed
                for (int t = 1; t <= k; ++t) {
                    sigma[t] = mpk_scale(static_cast<double>(norm2[t]));
                    finite = finite && std::isfinite(static_cast<double>(norm2[t]));
                }
            }
            for (const T& c : C) finite = finite && std::isfinite(static_cast<double>(c));
            bool block_happy = false;
            if (f.out.status != ortho::TsqrStatus::ok) {
                const bool block_ok = finite && be.block_finite(j, k);
                if (!block_ok || f.out.column != 0) {
                    ++result.iterations;  // as GMRES counts the step in which a failure showed
                    record(result.residual_history.back());
                    failed = true;
                    if (!block_ok)
                        stop(SolveStatus::non_finite,
                             block_name(restart, j, k) + ": the block is not finite after MPK "
                             "and BOrth (overflow of the basis: normalize_basis or balance A); " +
                             f.failure());
                    else
                        stop(SolveStatus::breakdown, block_name(restart, j, k) + ": " +
                                                         f.failure());
                    break;
                }
                // The first new vector lies in the basis: A q_j is in span(Q_{0:j}), GMRES's
                // happy breakdown; R(0, 0) = 0 and the cycle ends with this Hessenberg column.
                std::fill(R.begin(), R.end(), T(0));
                block_happy = true;
            }

            // The Hessenberg columns j .. j + used - 1 (host, double).
            Cd.assign(C.begin(), C.end());
            Rd.assign(R.begin(), R.end());
            int used = 1;
            be.log.time("least squares", sync, [&] {
                if (!block_happy)
                    used = usable_columns(j, k, Cd.data(), Rd.data(), eps, &block_happy);
                const std::vector<double> B = basis_change_matrix(steps, sigma);
                reconstruct_hessenberg(j, k, used, Cd.data(), Rd.data(), B.data(), H.data(), ldh);
                last_kappa = gram_condition(k, Rd.data(), k);
            });
            if (o.measure_orthogonality) {
                CaBlockRecord rec;
                rec.restart = restart;
                rec.first_column = j;
                rec.columns = k;
                rec.used = used;
                rec.method = f.method;
                rec.fallback = f.fell_back;
                rec.gram_condition = last_kappa;
                if (f.out.status == ortho::TsqrStatus::ok) {
                    const ortho::TsqrQuality q = be.quality(j, k, R.data());
                    rec.orthogonality = q.orthogonality;
                    rec.residual = q.residual;
                } else {
                    rec.orthogonality = rec.residual = std::numeric_limits<double>::quiet_NaN();
                }
                result.blocks.push_back(rec);
            }

            if (!two) {
                // Givens least squares, one column at a time (as GMRES).
                const int added = givens(j, j + used - 1);
                if (added < used) {
                    result.iterations += added + 1;
                    record(result.residual_history.back());
                    stop_on_column(j + added, block_name(restart, j, k));
                    failed = true;
                    break;
                }
                result.iterations += used;
                j += used;
            } else {
                result.iterations += used;
                j += used;
                // Stage 2 when the panel is full (the next block would not fit), the block lost
                // rank, or the cycle or the iterations end.
                const int next = std::min({step, m - j, o.max_iterations - result.iterations});
                if (!(block_happy || used < k || next <= 0 || j + next - a + 1 > panel)) continue;
                // Basis columns a .. e (a happy block's last column is not a basis vector);
                // Hessenberg columns a - 1 .. j - 1.
                const int e = block_happy ? j - 1 : j;
                if (e >= a) {
                    const int kp = e - a + 1;
                    R2.assign(static_cast<std::size_t>(kp) * kp, T(0));
                    C2.assign(static_cast<std::size_t>(a) * kp, T(0));
                    norm2.assign(static_cast<std::size_t>(kp) + 1, T(0));
                    Factored f2;
                    be.log.time("BOrth", sync, [&] { be.borth(a - 1, kp); });
                    be.log.time("TSQR", sync, [&] { f2 = factor(a - 1, kp, R2.data()); });
                    be.log.time("least squares", sync,
                                [&] { be.fetch(a - 1, kp, C2.data(), norm2.data()); });
                    if (f2.fell_back) count_fallback(restart);
                    const std::string where = "restart " + std::to_string(restart) +
                                              ", stage 2 of basis vectors " + std::to_string(a) +
                                              ".." + std::to_string(e);
                    if (f2.out.status != ortho::TsqrStatus::ok) {
                        record(result.residual_history.back());
                        failed = true;
                        bool panel_finite = be.block_finite(a - 1, kp);
                        for (const T& c : C2)
                            panel_finite = panel_finite && std::isfinite(static_cast<double>(c));
                        stop(panel_finite ? SolveStatus::breakdown : SolveStatus::non_finite,
                             where + ": " + f2.failure());
                        break;
                    }
                    Cd.assign(C2.begin(), C2.end());
                    Rd.assign(R2.begin(), R2.end());
                    be.log.time("least squares", sync, [&] {
                        change_panel_basis(a, e, j - 1, Cd.data(), Rd.data(), H.data(), ldh);
                    });
                }
                const int added = givens(a - 1, j - 1);
                if (added < j - a + 1) {
                    record(result.residual_history.back());
                    stop_on_column(a - 1 + added, block_name(restart, j - used, k));
                    failed = true;
                    break;
                }
                a = j + 1;
            }
            const double estimate = static_cast<double>(lsq.residual()) * scale;
            record(estimate);
            happy = block_happy;
            if (happy || estimate <= tol) break;
        }
        if (last_kappa >= 0.0) {
            result.gram_condition.push_back(last_kappa);
            if (ca && result.first_gram_condition == 0.0) result.first_gram_condition = last_kappa;
        } else {  // the cycle's first block failed
            result.gram_condition.push_back(std::numeric_limits<double>::quiet_NaN());
        }
        const int cols = lsq.columns();
        if (observer != nullptr && *observer && cols > 0) {
            be.basis(cols, Vh);
            CaCycleSnapshot<T> snap;
            snap.restart = restart;
            snap.communication_avoiding = ca;
            snap.columns = cols;
            snap.n = be.rows();
            snap.V = Vh.data();
            snap.H = H.data();
            snap.ldh = ldh;
            (*observer)(snap);
        }
        if (cols > 0) {
            const std::vector<T> y =
                be.log.time("least squares", sync, [&] { return lsq.solve(); });
            be.log.time("other", sync, [&] { be.update(y); });
        }
        if (!ca && !failed && cols > 0) {
            be.log.time("other", sync, [&] { shifts = ritz_shifts(cols, H.data(), ldh); });
            have_shifts = true;
        }
        const double previous = beta;
        beta = be.log.time("other", sync, [&] { return be.residual(); });
        result.restart_seconds.push_back(
            std::chrono::duration<double>(std::chrono::steady_clock::now() - cycle_start).count());
        if (stop_after_cycle(result, failed, happy, o.timing_mode, "A q_j in the basis",
                             stagnation, beta, previous))
            break;
    }
    result.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    result.true_residual = be.residual() * scale;
    result.phases = be.log.phases;
    if (have_shifts && o.basis == CaBasis::newton) result.shifts = shifts;
    return result;
}

}  // namespace kbench::solvers::detail
