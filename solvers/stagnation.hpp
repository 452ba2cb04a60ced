// The stagnation test of every solver in solvers/ (issue 30): progress judged over a window that
// grows with the run, on best-so-far residuals. One pure rule, host and device.
#pragma once

#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#if defined(__CUDACC__)
#define KBENCH_STAGNATION_HD __host__ __device__
#else
#define KBENCH_STAGNATION_HD
#endif

namespace kbench::solvers {

/// The rule. r_0, r_1, ... is a residual measure (BiCGSTAB: the relative residual after each
/// iteration; GMRES, CA-GMRES, block GMRES: the measure after each restart cycle), and
/// best_k = min(r_0 .. r_k) its best-so-far value. After step k the run has stagnated when
///
///     k >= min_window   and   best_k >= (1 - min_reduction) * best_{k - W(k)},
///     W(k) = max(min_window, floor(window_fraction * k)),
///
/// i.e. when the best residual of the last W(k) steps is not smaller, by the factor
/// (1 - min_reduction), than the best one before them. Best-so-far values make it immune to the
/// erratic, non-monotone residual of BiCGSTAB (spikes of several orders of magnitude), and the
/// window that grows with k lets a long, slow solve keep going through plateaus of its best
/// residual: a plateau has to last a fraction of the whole run, not a fixed count, to stop it.
/// Bound: a measure that, after step k0, never again falls below (1 - min_reduction) * best_k0
/// is stopped by about step max(k0 + min_window, k0 / (1 - window_fraction)) (4 k0 at the
/// default fraction). Non-finite entries are ignored (the solvers report them as non_finite).
///
/// min_window = 0 turns the test off. Defaults: window_fraction = 0.75 for every solver (a
/// plateau of the best residual must last 3/4 of the run: unpreconditioned BiCGSTAB on
/// ill-conditioned SPD matrices shows plateaus of over half the run early on, and then
/// converges); min_window and min_reduction per solver: BiCGSTAB and SPIKE+BiCGStab (per
/// iteration): min_window = stagnation_window (200), min_reduction = 1e-3 (a 0.1 % smaller best
/// residual per window is progress: a steady 0.001 % per iteration passes the 200-step window;
/// noise around a constant stops making such records soon);
/// GMRES, CA-GMRES, block GMRES, distributed GMRES (per restart cycle): min_window =
/// stagnation_cycles (3), min_reduction = 1e-12 (a restart cycle minimizes the residual, so
/// the measure is monotone and any reduction beyond rounding is progress; a cycle that leaves the
/// residual unchanged repeats itself).
struct StagnationRule {
    int min_window = 0;            // steps; 0: never stagnation
    double window_fraction = 0.75;  // in [0, 1)
    double min_reduction = 1e-3;    // in [0, 1)

    /// W(k) = max(min_window, floor(window_fraction * k)).
    KBENCH_STAGNATION_HD int window(int k) const
    {
        const int grown = static_cast<int>(window_fraction * static_cast<double>(k));
        return grown > min_window ? grown : min_window;
    }
};

/// The rule for BiCGSTAB-type solvers (per iteration): see StagnationRule.
inline constexpr double iteration_stagnation_reduction = 1e-3;
/// The rule for restarted solvers (per restart cycle): see StagnationRule.
inline constexpr double cycle_stagnation_reduction = 1e-12;
inline constexpr double stagnation_window_fraction = 0.75;

/// What the rule needs besides the history: O(1) state, so a single device thread can carry it.
/// k - W(k) never decreases with k, so best_{k - W(k)} is a running minimum too.
struct StagnationState {
    int reference = 0;            // k - W(k) of the last step (the window starts after it)
    int best_iteration = 0;       // step of best
    double reference_best = 0.0;  // best_{reference}
    double best = 0.0;            // best_k
};

/// Starts the state at step 0 with measure r0 (history[0] = r0).
KBENCH_STAGNATION_HD inline void stagnation_start(StagnationState& s, double r0)
{
    s = StagnationState{};
    s.reference_best = r0;
    s.best = r0;
}

/// Records step k >= 1 with measure `rel` and returns whether the run has stagnated (always
/// false with min_window <= 0). history[0 .. k - 1] must hold the measures of the earlier steps
/// (history[k] is not read); steps must come in order 1, 2, ... Pure: the same history gives the
/// same decision on the host and on the device.
KBENCH_STAGNATION_HD inline bool stagnation_update(const StagnationRule& rule, StagnationState& s,
                                                   const double* history, int k, double rel)
{
    if (rel < s.best) {  // false for NaN
        s.best = rel;
        s.best_iteration = k;
    }
    if (rule.min_window <= 0 || k < rule.min_window) return false;
    const int reference = k - rule.window(k);  // in [0, k - 1]
    while (s.reference < reference) {
        ++s.reference;
        const double h = history[s.reference];
        if (h < s.reference_best) s.reference_best = h;
    }
    return s.best >= (1.0 - rule.min_reduction) * s.reference_best;
}

/// "best residual <best> at step <i> is not <percent> below the best <ref> of steps 0..<j>
/// (window of <W> <unit>s: <j+1>..<k>)" for a result's detail.
inline std::string stagnation_detail(const StagnationRule& rule, const StagnationState& s, int k,
                                     const char* unit)
{
    auto sci = [](double v) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.3e", v);
        return std::string{buf};
    };
    return "best residual " + sci(s.best) + " (" + unit + " " + std::to_string(s.best_iteration) +
           ") is not a factor " + sci(1.0 - rule.min_reduction) + " below the best " +
           sci(s.reference_best) + " of " + unit + "s 0.." + std::to_string(s.reference) +
           " (window of " + std::to_string(k - s.reference) + " " + unit + "s ending at " +
           std::to_string(k) + ")";
}

/// Throws std::invalid_argument "<who>: <field> = <value>, expected ..." for a rule outside its
/// domain (min_window < 0, window_fraction or min_reduction outside [0, 1)).
inline void check_stagnation_rule(const std::string& who, const char* window_field,
                                  const StagnationRule& rule)
{
    if (rule.min_window < 0)
        throw std::invalid_argument(who + ": " + window_field + " = " +
                                    std::to_string(rule.min_window) + ", expected >= 0 (0: off)");
    if (!(rule.window_fraction >= 0.0 && rule.window_fraction < 1.0))
        throw std::invalid_argument(who + ": stagnation window_fraction = " +
                                    std::to_string(rule.window_fraction) + ", expected in [0, 1)");
    if (!(rule.min_reduction >= 0.0 && rule.min_reduction < 1.0))
        throw std::invalid_argument(who + ": stagnation min_reduction = " +
                                    std::to_string(rule.min_reduction) + ", expected in [0, 1)");
}

/// The rule over restart cycles (GMRES, CA-GMRES, block GMRES): min_window = stagnation_cycles,
/// min_reduction = cycle_stagnation_reduction. Host only; keeps the per-cycle history itself.
class CycleStagnation {
public:
    explicit CycleStagnation(int stagnation_cycles)
        : rule_{stagnation_cycles, stagnation_window_fraction, cycle_stagnation_reduction}
    {
    }
    /// Records a cycle that took the measure from `previous` to `now` (`previous` of the first
    /// call is the initial measure); true once the rule says stagnation. A non-finite `now` never
    /// stops here (the callers report non_finite).
    bool stalled(double now, double previous)
    {
        if (rule_.min_window <= 0) return false;
        if (history_.empty()) {
            history_.push_back(previous);
            stagnation_start(state_, previous);
        }
        const int k = static_cast<int>(history_.size());
        const bool stop = stagnation_update(rule_, state_, history_.data(), k, now);
        history_.push_back(now);
        return stop && std::isfinite(now);
    }
    int cycles() const { return static_cast<int>(history_.size()) - 1; }
    /// The detail of a stagnation stop, counted in restart cycles.
    std::string detail() const { return stagnation_detail(rule_, state_, cycles(), "cycle"); }
    const StagnationRule& rule() const { return rule_; }

private:
    StagnationRule rule_;
    StagnationState state_;
    std::vector<double> history_;  // the measure before cycle 1, after cycle 1, ...
};

}  // namespace kbench::solvers
