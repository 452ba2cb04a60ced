// SPIKE-preconditioned BiCGStab (spike_bicgstab.hpp): the parts both twins share (option
// checks, partition size, stopping test) and the CPU twin.
#include "solvers/spike/spike_bicgstab.hpp"

#include "kernels/bicgstab_kernels.hpp"
#include "models/spike_model.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace kbench::solvers::spike {

using bicgstab::DeviceScalars;
using bicgstab::DeviceStatus;

const char* to_string(SpikePrecision precision)
{
    return precision == SpikePrecision::double_precision ? "double" : "mixed";
}

SpikePrecision parse_spike_precision(const std::string& name)
{
    for (SpikePrecision p : {SpikePrecision::double_precision, SpikePrecision::mixed})
        if (name == to_string(p)) return p;
    throw std::invalid_argument("SPIKE precision '" + name + "': expected double or mixed");
}

namespace detail {

void check_options(const SpikeBicgstabOptions& options)
{
    check_stopping_options("spike_bicgstab", options.tolerance, options.max_iterations,
                           options.stagnation_window);
}

void finish_without_iterations(SpikeBicgstabResult& result, double bnorm, double r0,
                               std::vector<PhaseTime>&& phases)
{
    SolveResult& solve = result.solve;
    if (result.factor_status.ok()) {
        solve.status = SolveStatus::converged;
        solve.residual_history = {0.0};
    } else {
        solve.status = SolveStatus::breakdown;
        solve.detail = result.factor_status.message();
        solve.residual_history = {bnorm > 0.0 ? r0 / bnorm : r0};
        solve.true_residual = solve.residual_history[0];
    }
    result.total_seconds = result.factor_seconds;
    result.phases = std::move(phases);
}

models::spike::SpikeDecay measure_spike_decay(const BandMatrix<double>& a, double target)
{
    namespace ms = models::spike;
    // Power steps on windows of at most this many multiply-adds (~30 ms on one core).
    constexpr double budget = 5e7;
    BandDecayStats st = band_decay_stats(a);
    ms::SpikeDecay decay{st.rho, st.d_min};
    const auto cap = static_cast<index_type>(std::min<double>(
        a.n, std::max<double>(st.window_rows, budget / (32.0 * (2.0 * a.K + 1.0)))));
    for (;;) {
        const std::int64_t need = ms::min_psize_for_truncation(target, a.K, decay);
        if (need >= 0 && need <= st.window_rows) return decay;  // measured over that distance
        if (st.window_rows >= cap) break;
        const auto grown = static_cast<index_type>(std::min<double>(
            cap, std::max(2.0 * st.window_rows, need >= 0 ? 2.0 * static_cast<double>(need)
                                                          : static_cast<double>(cap))));
        const double rate_before = -std::log(ms::effective_rho(decay));
        st = band_decay_stats(a, 4096, grown);
        decay = {st.rho, std::min(decay.d_min, st.d_min)};
        // An intrinsic decay keeps its rate when the window grows; a diffusive one (a weakly
        // dominant M-matrix: 1 - rho ~ (K / window)^2) loses it.
        if (-std::log(ms::effective_rho(decay)) >= 0.5 * rate_before) return decay;
    }
    decay.rho = std::max(decay.rho, 1.0);  // no decay seen within the largest window
    return decay;
}

index_type resolve_psize(const BandMatrix<double>& a, const SpikeBicgstabOptions& options,
                         int sm_count, int resident_blocks_per_sm,
                         std::optional<models::spike::SpikeDecay>* decay)
{
    if (options.psize != 0) {
        make_partitioning(a.n, a.K, options.psize);  // throws naming psize
        return options.psize;
    }
    models::spike::PsizeOptions po;
    po.value_bytes = options.precision == SpikePrecision::mixed ? 4 : 8;
    // The spike decay from the matrix (li2012 Sec. 1.3; models::spike::SpikeDecay). Shapes
    // choose_psize rejects (N < 4K) are left to its message.
    if (a.K >= 1 && a.n >= 4 * static_cast<std::int64_t>(a.K)) {
        po.decay = measure_spike_decay(a, po.truncation_target);
        if (decay != nullptr) *decay = po.decay;
    }
    const auto choice =
        models::spike::choose_psize(a.n, a.K, sm_count, resident_blocks_per_sm, po);
    return static_cast<index_type>(choice.partitioning.psize);
}

bool stop_after(SolveResult& result, int iteration, double rel, int status,
                const SpikeBicgstabOptions& options, StagnationState& stagnation)
{
    const StagnationRule rule{options.stagnation_window, stagnation_window_fraction,
                              iteration_stagnation_reduction};
    bool stagnated = false;
    if (iteration == 0) stagnation_start(stagnation, rel);
    else
        stagnated = stagnation_update(rule, stagnation, result.residual_history.data(), iteration,
                                      rel);
    if (status == 0 && !std::isfinite(rel)) status = static_cast<int>(DeviceStatus::non_finite);
    if (rel <= options.tolerance) {  // a status raised by this iteration's scalars is moot
        result.status = SolveStatus::converged;
        return true;
    }
    if (status != 0) {
        result.status = status == static_cast<int>(DeviceStatus::non_finite)
                            ? SolveStatus::non_finite
                            : SolveStatus::breakdown;
        result.detail = std::string{bicgstab::status_text(status)} + " in iteration " +
                        std::to_string(iteration);
        return true;
    }
    if (iteration >= options.max_iterations) {
        result.status = SolveStatus::max_iterations;
        return true;
    }
    if (stagnated) {
        result.status = SolveStatus::stagnation;
        result.detail = stagnation_detail(rule, stagnation, iteration, "iteration");
        return true;
    }
    return false;
}

std::vector<PhaseTime> empty_phases()
{
    std::vector<PhaseTime> out;
    for (const char* name : {"LU/UL", "spikes", "reduced system"})
        out.push_back(PhaseTime{name, "setup", 0.0, 0});
    for (const char* name : {"BiCGStab SpMV", "preconditioner", "other"})
        out.push_back(PhaseTime{name, "iteration", 0.0, 0});
    return out;
}

}  // namespace detail

namespace {

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point t0)
{
    return std::chrono::duration<double>(clock_type::now() - t0).count();
}

/// max |v_i|; NaN if any entry is NaN.
double inf_norm(const std::vector<double>& v)
{
    double m = 0.0;
    for (double e : v)
        if (!(std::abs(e) <= m)) m = std::abs(e);
    return m;
}

/// r = b - A x.
void residual(const BandMatrix<double>& a, const std::vector<double>& b,
              const std::vector<double>& x, std::vector<double>& r)
{
    band_multiply(a, x.data(), r.data());
    for (std::size_t i = 0; i < r.size(); ++i) r[i] = b[i] - r[i];
}

}  // namespace

SpikeBicgstabResult spike_bicgstab_cpu(const BandMatrix<double>& a, const std::vector<double>& b,
                                       std::vector<double>& x, const SpikeBicgstabOptions& options)
{
    detail::check_options(options);
    const std::size_t n = static_cast<std::size_t>(a.n);
    if (b.size() != n || x.size() != n)
        throw std::invalid_argument("spike_bicgstab_cpu: b has " + std::to_string(b.size()) +
                                    " and x " + std::to_string(x.size()) +
                                    " entries, expected n = " + std::to_string(n));
    SpikeBicgstabResult result;
    result.psize = detail::resolve_psize(a, options, 1, 1, &result.psize_decay);  // one slot
    std::vector<PhaseTime> phases = options.detailed ? detail::empty_phases()
                                                     : std::vector<PhaseTime>{};
    std::vector<PhaseTime>* timed = options.detailed ? &phases : nullptr;
    const bool mixed = options.precision == SpikePrecision::mixed;

    SpikeReference<double> md;
    SpikeReference<float> mf;
    const BandMatrix<float> af = mixed ? band_cast<float>(a) : BandMatrix<float>{};
    const auto f0 = clock_type::now();
    result.factor_status = mixed ? mf.factor(af, result.psize, options.tips, timed)
                                 : md.factor(a, result.psize, options.tips, timed);
    result.factor_seconds = seconds_since(f0);
    result.partitions = make_partitioning(a.n, a.K, result.psize).count;
    auto precondition = [&](const std::vector<double>& in, std::vector<double>& out) {
        if (mixed) mf.apply_mixed(in.data(), out.data());
        else md.apply(in.data(), out.data());
    };

    SolveResult& solve = result.solve;
    std::vector<double> r(n);
    residual(a, b, x, r);
    const double bnorm = inf_norm(b), r0 = inf_norm(r);
    if (!result.factor_status.ok() || bnorm == 0.0) {
        if (result.factor_status.ok()) std::fill(x.begin(), x.end(), 0.0);  // b = 0: x = 0
        detail::finish_without_iterations(result, bnorm, r0, std::move(phases));
        return result;
    }

    std::vector<double> r_hat(n), p(n), v(n), s(n), t(n), p_hat(n), s_hat(n);
    DeviceScalars<double> sc;
    bicgstab::reference::init(a.n, r.data(), r_hat.data(), p.data(), v.data(), &sc);
    StagnationState stagnation;
    int iteration = 0;
    solve.residual_history = {r0 / bnorm};
    bool stop = detail::stop_after(solve, 0, r0 / bnorm, sc.status, options, stagnation);
    auto phase = [&](const char* name, auto&& work) {
        const auto t0 = clock_type::now();
        work();
        if (timed != nullptr) detail::add_phase(phases, name, "iteration", seconds_since(t0));
    };
    const auto begin = clock_type::now();
    while (!stop) {
        const std::int64_t m = a.n;
        phase("other",
              [&] { bicgstab::reference::p_update(m, r.data(), v.data(), p.data(), &sc); });
        phase("preconditioner", [&] { precondition(p, p_hat); });
        phase("BiCGStab SpMV", [&] { band_multiply(a, p_hat.data(), v.data()); });
        phase("other", [&] {
            bicgstab::reference::alpha_dot(m, r_hat.data(), v.data(), &sc);
            bicgstab::reference::s_update(m, r.data(), v.data(), s.data(), &sc);
        });
        phase("preconditioner", [&] { precondition(s, s_hat); });
        phase("BiCGStab SpMV", [&] { band_multiply(a, s_hat.data(), t.data()); });
        double rnorm = 0.0;
        phase("other", [&] {
            bicgstab::reference::omega_dot(m, t.data(), s.data(), &sc);
            // x += alpha p_hat + omega s_hat; r = s - omega t; rho = r_hat . r, rr = r . r.
            const double alpha = sc.alpha, omega = sc.omega;
            double rho = 0.0, rr = 0.0;
            for (std::size_t i = 0; i < n; ++i) {
                x[i] = std::fma(omega, s_hat[i], std::fma(alpha, p_hat[i], x[i]));
                r[i] = std::fma(-omega, t[i], s[i]);
                rho = std::fma(r_hat[i], r[i], rho);
                rr = std::fma(r[i], r[i], rr);
            }
            bicgstab::detail::finish_xr(sc, rho, rr);
            rnorm = inf_norm(r);
        });
        ++iteration;
        const double rel = rnorm / bnorm;
        solve.residual_history.push_back(rel);
        stop = detail::stop_after(solve, iteration, rel, sc.status, options, stagnation);
    }
    solve.seconds = seconds_since(begin);
    solve.iterations = iteration;
    residual(a, b, x, r);
    solve.true_residual = inf_norm(r) / bnorm;
    result.total_seconds = result.factor_seconds + solve.seconds;
    result.phases = std::move(phases);
    return result;
}

}  // namespace kbench::solvers::spike
