// The GMRES(m) iteration shared by the GPU and the CPU solvers (solvers/gmres.hpp): restart
// cycles, Givens least squares, statuses and history. A Backend owns the vectors and does the
// linear algebra:
//   double norm_b();                       ||b||
//   double residual();                     v_0 := b - A x, returns ||v_0||
//   void scale_first(double inv);          v_0 *= inv
//   void arnoldi(int j, std::vector<T>& h) v_{j+1} := A v_j orthogonalized against v_0..v_j;
//                                          h[0..j] its coefficients, h[j+1] = ||v_{j+1}||;
//                                          v_{j+1} /= h[j+1] when h[j+1] > 0
//   void update(const std::vector<T>& y)   x += [v_0 .. v_{y.size()-1}] y
// and, where it implements ArnoldiOrth::cgs2_lowsync (whose arnoldi(j) multiplies by A itself,
// one vector ahead), `static constexpr bool one_reduce_arnoldi = true;`: run_gmres rejects
// cgs2_lowsync for a backend without it.
// Internal header: include only from the solver sources.
#pragma once

#include "solvers/cycle_end.hpp"
#include "solvers/gmres.hpp"
#include "solvers/hessenberg.hpp"
#include "solvers/restart_length.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace kbench::solvers::detail {

/// Whether a backend implements ArnoldiOrth::cgs2_lowsync (see the file comment).
template <typename Backend, typename = void>
struct has_one_reduce_arnoldi : std::false_type {};
template <typename Backend>
struct has_one_reduce_arnoldi<Backend, std::void_t<decltype(Backend::one_reduce_arnoldi)>>
    : std::bool_constant<Backend::one_reduce_arnoldi> {};

/// run_gmres's default cycle hook: nothing.
struct NoCycleHook {
    template <typename Backend>
    void operator()(Backend&, int, int) const
    {}
};

/// The GMRES(m) iteration. hook(be, cycle, columns) runs at the end of every restart cycle that
/// made Hessenberg columns, before x is updated (test hooks read the basis there). Throws
/// std::invalid_argument for ArnoldiOrth::cgs2_lowsync when the backend does not implement it,
/// before any work.
template <typename T, typename Backend, typename Hook = NoCycleHook>
SolveResult run_gmres(Backend& be, const GmresOptions& o, Hook hook = {})
{
    if (o.orth == ArnoldiOrth::cgs2_lowsync && !has_one_reduce_arnoldi<Backend>::value)
        throw std::invalid_argument(
            "GMRES: orth = lowsync (one-reduce CGS2) is not implemented by this solver, whose "
            "Arnoldi step multiplies by A before it orthogonalizes; expected cgs2 or mgs");
    SolveResult result;
    result.timing_mode = o.timing_mode;
    const double bnorm = be.norm_b();
    const double scale = bnorm > 0.0 ? 1.0 / bnorm : 1.0;
    const double tol = o.timing_mode ? -1.0 : o.tolerance;
    const int m = restart_length(o);
    HessenbergLsq<T> lsq(m);
    std::vector<T> h(static_cast<std::size_t>(m) + 1);

    const auto t0 = std::chrono::steady_clock::now();
    double beta = be.residual();
    result.residual_history.push_back(beta * scale);
    CycleStagnation stagnation{o.stagnation_cycles};
    int cycle = 0;
    auto stop = [&](SolveStatus s, std::string detail) {
        result.status = s;
        result.detail = std::move(detail);
    };
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
        if (beta == 0.0) {  // timing mode with an exact solution: nothing left to do
            stop(SolveStatus::converged, "");
            break;
        }
        be.scale_first(1.0 / beta);
        lsq.reset(static_cast<T>(beta));
        bool happy = false, failed = false;
        for (int j = 0; j < m && result.iterations < o.max_iterations; ++j) {
            be.arnoldi(j, h);
            const HessenbergStatus hs = lsq.add_column(h.data());
            if (hs != HessenbergStatus::ok) {
                ++result.iterations;
                result.residual_history.push_back(result.residual_history.back());
                if (hs == HessenbergStatus::non_finite)
                    stop(SolveStatus::non_finite, "Hessenberg column " + std::to_string(j) +
                                                      " is not finite in iteration " +
                                                      std::to_string(result.iterations));
                else
                    stop(SolveStatus::breakdown, "the rotated Hessenberg diagonal entry " +
                                                     std::to_string(j) + " is 0 in iteration " +
                                                     std::to_string(result.iterations));
                failed = true;
                break;
            }
            ++result.iterations;
            const double estimate = static_cast<double>(lsq.residual()) * scale;
            result.residual_history.push_back(estimate);
            // Happy breakdown: A v_j lies in the basis to working accuracy (its part outside,
            // h_{j+1,j}, is at rounding level of the column); the cycle cannot grow further.
            double column = 0.0;
            for (int i = 0; i <= j + 1; ++i) column += static_cast<double>(h[i]) * h[i];
            happy = !(static_cast<double>(h[j + 1]) >
                      10.0 * std::numeric_limits<T>::epsilon() * std::sqrt(column));
            if (happy || estimate <= tol) break;
        }
        if (lsq.columns() > 0) {
            hook(be, cycle, lsq.columns());
            be.update(lsq.solve());
        }
        ++cycle;
        const double previous = beta;
        beta = be.residual();
        if (stop_after_cycle(result, failed, happy, o.timing_mode, "h_{j+1,j} at rounding level",
                             stagnation, beta, previous))
            break;
    }
    result.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    result.true_residual = be.residual() * scale;
    return result;
}

}  // namespace kbench::solvers::detail
