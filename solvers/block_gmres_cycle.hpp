// The iterations of block GMRES and pseudo-block GMRES shared by the CPU and the GPU solvers
// (solvers/block_gmres.hpp): restart cycles with deflation of converged columns, the band
// Hessenberg least squares, statuses and history. A Backend owns X, B, R and the basis and
// does the linear algebra; for s right-hand sides it provides
//   int rhs();                                  s
//   void residual(double* norms);               R := B - A X, norms[k] = ||R(:, k)|| (s entries)
//   void norms_b(double* norms);                norms[k] = ||B(:, k)||
// block GMRES:
//   bool block_start(active, T* S);             V_0 := Q of the TSQR of R(:, active), S (sa x
//                                               sa, ld sa) its R factor; false on rank loss
//   bool block_step(j, sa, T* C, T* Rn);        W := A V_j, two block CGS passes against V_0..V_j
//                                               (C, (j+1) sa x sa, ld (j+1) sa, their sum), TSQR
//                                               W = V_{j+1} Rn (sa x sa, ld sa); false on rank
//                                               loss of W (the block Krylov space is invariant)
//   void block_update(active, cols, y);         X(:, active) += V(:, 0..cols) Y (cols x sa)
// pseudo-block GMRES (one Krylov space per active column, advanced together):
//   void pseudo_start(active, inv);             v_0^(c) := R(:, active[c]) * inv[c]
//   void pseudo_step(j, sa, T* h);              w^(c) := A v_j^(c) for all c (one SpMM), CGS2
//                                               against v_0^(c)..v_j^(c): h (j + 2) x sa, ld
//                                               j + 2, rows 0..j the coefficients, row j + 1 the
//                                               norm; v_{j+1}^(c) := w^(c) / norm when > 0
//   void pseudo_update(active, cols, y);        x_c += V^(c)(:, 0..cols[c]) y_c (y_c at the
//                                               offset sum of the previous cols)
// Internal header: include only from the solver sources.
#pragma once

#include "solvers/block_gmres.hpp"
#include "solvers/hessenberg.hpp"
#include "solvers/restart_length.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace kbench::solvers::detail {

/// The phase times of a detailed run (BlockGmresOptions::detailed): time(name, sync, f) runs f
/// and, when on, adds its host-clock seconds between two sync() calls to the phase `name`.
struct PhaseLog {
    bool on = false;
    std::vector<PhaseTime> phases;

    template <typename Sync, typename F>
    decltype(auto) time(const char* name, Sync&& sync, F&& f)
    {
        if (!on) return f();
        sync();
        const auto t0 = std::chrono::steady_clock::now();
        struct Stop {  // also when f returns a value
            PhaseLog& log;
            const char* name;
            Sync& sync;
            std::chrono::steady_clock::time_point t0;
            ~Stop()
            {
                sync();
                log.add(name, std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                                            t0).count());
            }
        } stop{*this, name, sync, t0};
        return f();
    }
    /// Adds `seconds` and one call to the phase `name` (created in first-use order).
    void add(const char* name, double seconds)
    {
        auto it = std::find_if(phases.begin(), phases.end(),
                               [&](const PhaseTime& p) { return p.name == name; });
        if (it == phases.end()) it = phases.insert(phases.end(), PhaseTime{name, "", 0.0, 0});
        it->seconds += seconds;
        ++it->calls;
    }
};

/// The restart loop both methods share: residuals, convergence, deflation, stagnation.
/// `cycle(active, rel, result)` runs one cycle on the active columns, updates rel with its
/// estimates, counts result.iterations, and returns false when it set a final status.
template <typename Backend, typename Cycle>
SolveResult run_restarts(Backend& be, const BlockGmresOptions& o, Cycle&& cycle)
{
    const int s = be.rhs();
    be.log.on = o.detailed;
    std::vector<double> scale(static_cast<std::size_t>(s)), rel(scale.size());
    be.norms_b(scale.data());
    for (double& v : scale) v = v > 0.0 ? 1.0 / v : 1.0;
    SolveResult result;
    result.status = SolveStatus::max_iterations;
    const auto t0 = std::chrono::steady_clock::now();
    auto measure = [&] {
        be.log.time("residual", [&] { be.sync(); }, [&] { be.residual(rel.data()); });
        for (int k = 0; k < s; ++k) rel[k] *= scale[k];
        return *std::max_element(rel.begin(), rel.end());
    };
    double worst = measure();
    result.residual_history.push_back(worst);
    CycleStagnation stagnation{o.stagnation_cycles};
    while (true) {
        if (!std::isfinite(worst)) {
            result.status = SolveStatus::non_finite;
            result.detail = "a residual is not finite after step " +
                            std::to_string(result.iterations);
            break;
        }
        if (worst <= o.tolerance) {
            result.status = SolveStatus::converged;
            break;
        }
        if (result.iterations >= o.max_iterations) break;
        std::vector<int> active;  // the columns still above the tolerance
        for (int k = 0; k < s; ++k)
            if (rel[k] > o.tolerance) active.push_back(k);
        const bool go_on = cycle(active, rel, scale, result);
        const double previous = worst;
        worst = measure();
        if (!go_on) break;
        if (stagnation.stalled(worst, previous)) {
            result.status = SolveStatus::stagnation;
            result.detail = "largest relative residual: " + stagnation.detail() +
                            " (last cycle ended at step " + std::to_string(result.iterations) + ")";
            break;
        }
    }
    result.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    result.true_residual = measure();
    result.phases = be.log.phases;
    return result;
}

inline SolveStatus hessenberg_failure(HessenbergStatus hs)
{
    return hs == HessenbergStatus::non_finite ? SolveStatus::non_finite : SolveStatus::breakdown;
}

inline std::string hessenberg_detail(HessenbergStatus hs, int column, int step)
{
    return "Hessenberg column " + std::to_string(column) +
           (hs == HessenbergStatus::non_finite ? " is not finite"
                                               : " makes the least squares singular") +
           " in step " + std::to_string(step);
}

/// Block GMRES (boman2022, Algorithm BGMRES) over a backend.
template <typename T, typename Backend>
SolveResult run_block_gmres(Backend& be, const BlockGmresOptions& o)
{
    const int m = restart_length(o);
    std::vector<T> S, C, Rn, h;
    auto cycle = [&](const std::vector<int>& active, std::vector<double>& rel,
                     const std::vector<double>& scale, SolveResult& result) {
        const int sa = static_cast<int>(active.size());
        S.assign(static_cast<std::size_t>(sa) * sa, T(0));
        if (!be.block_start(active, S.data())) {
            result.status = SolveStatus::breakdown;
            result.detail = "rank loss of the residual block of " + std::to_string(sa) +
                            " columns after block step " + std::to_string(result.iterations) +
                            " (dependent residuals; BGMRES without deflation cannot go on)";
            return false;
        }
        HessenbergLsq<T> lsq(m, sa);
        lsq.reset(S.data(), sa);
        bool failed = false;
        for (int j = 0; j < m && result.iterations < o.max_iterations; ++j) {
            const int rows_above = (j + 1) * sa;
            C.assign(static_cast<std::size_t>(rows_above) * sa, T(0));
            Rn.assign(static_cast<std::size_t>(sa) * sa, T(0));
            const bool full_rank = be.block_step(j, sa, C.data(), Rn.data());
            // Column j sa + c of H: C(:, c) over the basis, then Rn(0..c, c), zeros below.
            be.log.time("least squares (host)", [] {}, [&] {
                const std::size_t ldh = static_cast<std::size_t>(rows_above) + sa;
                h.assign(ldh * sa, T(0));
                for (int c = 0; c < sa; ++c) {
                    T* hc = h.data() + c * ldh;
                    for (int i = 0; i < rows_above; ++i) hc[i] = C[i + c * rows_above];
                    if (full_rank)
                        for (int i = 0; i <= c; ++i) hc[rows_above + i] = Rn[i + c * sa];
                }
                const HessenbergStatus hs = lsq.add_columns(h.data(), ldh, sa);
                if (hs != HessenbergStatus::ok) {
                    result.status = hessenberg_failure(hs);
                    result.detail = hessenberg_detail(hs, lsq.columns(), result.iterations + 1);
                    failed = true;
                }
            });
            if (failed) break;
            ++result.iterations;
            // Converged columns keep their residual; the active ones take the estimates.
            for (int c = 0; c < sa; ++c)
                rel[active[c]] = static_cast<double>(lsq.residual(c)) * scale[active[c]];
            const double estimate = *std::max_element(rel.begin(), rel.end());
            result.residual_history.push_back(estimate);
            if (!full_rank || estimate <= o.tolerance) break;
        }
        if (lsq.columns() > 0)
            be.log.time("X update", [&] { be.sync(); },
                        [&] { be.block_update(active, lsq.columns(), lsq.solve()); });
        return !failed;
    };
    return run_restarts(be, o, cycle);
}

/// Pseudo-block GMRES (one GMRES(m) per active column, advanced together) over a backend.
template <typename T, typename Backend>
SolveResult run_pseudo_block_gmres(Backend& be, const BlockGmresOptions& o)
{
    const int m = restart_length(o);
    std::vector<T> h, column;
    auto cycle = [&](const std::vector<int>& active, std::vector<double>& rel,
                     const std::vector<double>& scale, SolveResult& result) {
        const int sa = static_cast<int>(active.size());
        std::vector<double> inv(static_cast<std::size_t>(sa));
        std::vector<HessenbergLsq<T>> lsq(static_cast<std::size_t>(sa), HessenbergLsq<T>(m));
        // A column stops taking Hessenberg columns (frozen) once it converged or its Krylov
        // space became invariant; its vectors still ride along in the batched steps.
        std::vector<char> frozen(static_cast<std::size_t>(sa), 0);
        for (int c = 0; c < sa; ++c) {
            const double beta = rel[active[c]] / scale[active[c]];
            inv[c] = 1.0 / beta;
            lsq[c].reset(static_cast<T>(beta));
        }
        be.pseudo_start(active, inv);
        bool failed = false;
        for (int j = 0; j < m && result.iterations < o.max_iterations; ++j) {
            h.assign(static_cast<std::size_t>(j + 2) * sa, T(0));
            be.pseudo_step(j, sa, h.data());
            be.log.time("least squares (host)", [] {}, [&] {
            for (int c = 0; c < sa && !failed; ++c) {
                if (frozen[c]) continue;
                const T* hc = h.data() + static_cast<std::size_t>(c) * (j + 2);
                const HessenbergStatus hs = lsq[c].add_column(hc);
                if (hs != HessenbergStatus::ok) {
                    result.status = hessenberg_failure(hs);
                    result.detail = hessenberg_detail(hs, j, result.iterations + 1) +
                                    " of right-hand side " + std::to_string(active[c]);
                    failed = true;
                    break;
                }
                rel[active[c]] = static_cast<double>(lsq[c].residual()) * scale[active[c]];
                double norm2 = 0.0;
                for (int i = 0; i <= j + 1; ++i) norm2 += static_cast<double>(hc[i]) * hc[i];
                const bool happy = !(static_cast<double>(hc[j + 1]) >
                                     10.0 * std::numeric_limits<T>::epsilon() * std::sqrt(norm2));
                if (happy || rel[active[c]] <= o.tolerance) frozen[c] = 1;
            }
            });
            if (failed) break;
            ++result.iterations;
            result.residual_history.push_back(*std::max_element(rel.begin(), rel.end()));
            if (std::all_of(frozen.begin(), frozen.end(), [](char f) { return f != 0; })) break;
        }
        std::vector<int> cols(static_cast<std::size_t>(sa));
        std::vector<T> y;
        for (int c = 0; c < sa; ++c) {
            cols[c] = lsq[c].columns();
            if (cols[c] == 0) continue;
            const std::vector<T> yc = lsq[c].solve();
            y.insert(y.end(), yc.begin(), yc.end());
        }
        if (!y.empty())
            be.log.time("X update", [&] { be.sync(); },
                        [&] { be.pseudo_update(active, cols, y); });
        return !failed;
    };
    return run_restarts(be, o, cycle);
}

}  // namespace kbench::solvers::detail
