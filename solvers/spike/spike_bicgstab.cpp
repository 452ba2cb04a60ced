// SPIKE-preconditioned BiCGStab (spike_bicgstab.hpp): the parts both twins share (option
// checks, partition size, stopping test), the CPU twin and the multi-core CPU solve (OpenMP
// over the partitions), which share one host iteration.
#include "solvers/spike/spike_bicgstab.hpp"

#include "kernels/bicgstab_kernels.hpp"
#include "models/spike_model.hpp"
#include "solvers/spike/spike_omp.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

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
                         std::optional<models::spike::SpikeDecay>* decay, bool blocked_lu)
{
    if (options.psize != 0) {
        make_partitioning(a.n, a.K, options.psize);  // throws naming psize
        return options.psize;
    }
    models::spike::PsizeOptions po;
    po.value_bytes = options.precision == SpikePrecision::mixed ? 4 : 8;
    po.blocked_lu = blocked_lu;
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

/// max(m, |e|), NaN once either is NaN (a plain `!(|e| <= m)` test would let a later finite
/// entry replace a NaN).
double max_abs(double m, double e)
{
    return std::isnan(m) || std::isnan(e) ? std::numeric_limits<double>::quiet_NaN()
                                          : std::max(m, std::abs(e));
}

/// max |v_i| over [first, last); NaN if any entry is NaN.
double inf_norm(const double* v, index_type first, index_type last)
{
    double m = 0.0;
    for (index_type i = first; i < last; ++i) m = max_abs(m, v[i]);
    return m;
}

/// The vector work of the host solves over row ranges: one range [0, n) (spike_bicgstab_cpu)
/// or the partitions' rows (spike_bicgstab_omp), each range one OpenMP iteration on `threads`
/// threads. Element updates and SpMV rows are the same whatever the ranges; a dot product is
/// the sum of the ranges' partial dots in range order, so it does not depend on the threads.
class HostRanges {
public:
    HostRanges(const Partitioning& part, bool per_partition, int threads) : threads_(threads)
    {
        if (!per_partition) {
            first_ = {0, part.n};
            return;
        }
        for (index_type i = 0; i < part.count; ++i) first_.push_back(part.offset(i));
        first_.push_back(part.n);
    }

    /// f(first, last) for every range.
    template <typename F>
    void each(F&& f) const
    {
        indexed([&](index_type, index_type first, index_type last) { f(first, last); });
    }
    /// W partial results f(first, last) per range, folded in range order by
    /// combine(total, partial) from total = 0.
    template <std::size_t W, typename F, typename C>
    std::array<double, W> reduce(F&& f, C&& combine) const
    {
        std::vector<std::array<double, W>> partial(first_.size() - 1);
        indexed([&](index_type k, index_type first, index_type last) {
            partial[k] = f(first, last);
        });
        std::array<double, W> total{};
        for (const auto& pr : partial) combine(total, pr);
        return total;
    }
    /// sum_i a[i] b[i] (kernels' reference dot per range, the partials added in range order).
    double dot(const double* a, const double* b) const
    {
        return reduce<1>(
            [&](index_type first, index_type last) {
                return std::array<double, 1>{
                    bicgstab::reference::dot<double>(last - first, a + first, b + first)};
            },
            [](auto& total, const auto& pr) { total[0] += pr[0]; })[0];
    }

private:
    /// f(k, first, last) for every range k, one OpenMP iteration each.
    template <typename F>
    void indexed(F&& f) const
    {
        const auto m = static_cast<index_type>(first_.size() - 1);
        [[maybe_unused]] const int nt = threads_;  // the OpenMP loops' team size
        KBENCH_SPIKE_OMP(omp parallel for num_threads(nt) schedule(static))
        for (index_type k = 0; k < m; ++k) f(k, first_[k], first_[k + 1]);
    }

    int threads_ = 1;
    std::vector<index_type> first_;  // range k: [first_[k], first_[k+1])
};

/// r = b - A x over the ranges.
void residual(const BandMatrix<double>& a, const HostRanges& ranges, const double* b,
              const double* x, double* r)
{
    ranges.each([&](index_type first, index_type last) {
        band_multiply_rows(a, x, r, first, last);
        for (index_type i = first; i < last; ++i) r[i] = b[i] - r[i];
    });
}

/// ||v||_inf over the ranges (NaN if any entry is NaN).
double inf_norm(const HostRanges& ranges, const double* v)
{
    return ranges.reduce<1>(
        [&](index_type first, index_type last) {
            return std::array<double, 1>{inf_norm(v, first, last)};
        },
        [](auto& total, const auto& pr) {
            total[0] = max_abs(total[0], pr[0]);
        })[0];
}

/// n doubles, not zero-filled: the per-range loops write them first, each range's pages on its
/// own thread.
std::unique_ptr<double[]> host_vector(std::size_t n)
{
    return std::unique_ptr<double[]>(new double[n]);
}

/// The host solve both CPU entries share, at result.psize: SpikeReference on `threads` threads,
/// the vector work over one range [0, N) (per_partition false) or over the partitions' rows.
SpikeBicgstabResult solve_host(const BandMatrix<double>& a, const std::vector<double>& bv,
                               std::vector<double>& xv, const SpikeBicgstabOptions& options,
                               SpikeBicgstabResult result, int threads, bool per_partition)
{
    const std::size_t n = static_cast<std::size_t>(a.n);
    std::vector<PhaseTime> phases = options.detailed ? detail::empty_phases()
                                                     : std::vector<PhaseTime>{};
    std::vector<PhaseTime>* timed = options.detailed ? &phases : nullptr;
    const bool mixed = options.precision == SpikePrecision::mixed;

    SpikeReference<double> md(threads);
    SpikeReference<float> mf(threads);
    const BandMatrix<float> af = mixed ? band_cast<float>(a) : BandMatrix<float>{};
    const auto f0 = clock_type::now();
    result.factor_status = mixed ? mf.factor(af, result.psize, options.tips, timed)
                                 : md.factor(a, result.psize, options.tips, timed);
    result.factor_seconds = seconds_since(f0);
    const Partitioning part = make_partitioning(a.n, a.K, result.psize);
    result.partitions = part.count;
    result.threads = mixed ? mf.threads_used() : md.threads_used();
    const HostRanges ranges(part, per_partition, threads);
    auto precondition = [&](const double* in, double* out) {
        if (mixed) mf.apply_mixed(in, out);
        else md.apply(in, out);
    };
    auto spmv = [&](const double* in, double* out) {
        ranges.each([&](index_type first, index_type last) {
            band_multiply_rows(a, in, out, first, last);
        });
    };

    SolveResult& solve = result.solve;
    const double* b = bv.data();
    double* x = xv.data();
    const auto r_buf = host_vector(n);
    double* r = r_buf.get();
    residual(a, ranges, b, x, r);
    const double bnorm = inf_norm(ranges, b), r0 = inf_norm(ranges, r);
    if (!result.factor_status.ok() || bnorm == 0.0) {
        if (result.factor_status.ok()) std::fill(xv.begin(), xv.end(), 0.0);  // b = 0: x = 0
        detail::finish_without_iterations(result, bnorm, r0, std::move(phases));
        return result;
    }

    const auto r_hat_buf = host_vector(n), p_buf = host_vector(n), v_buf = host_vector(n),
               s_buf = host_vector(n), t_buf = host_vector(n), p_hat_buf = host_vector(n),
               s_hat_buf = host_vector(n);
    double *r_hat = r_hat_buf.get(), *p = p_buf.get(), *v = v_buf.get(), *s = s_buf.get(),
           *t = t_buf.get(), *p_hat = p_hat_buf.get(), *s_hat = s_hat_buf.get();
    // reference::init per range (r_hat = r, p = v = 0), its scalars from the whole r . r.
    ranges.each([&](index_type first, index_type last) {
        DeviceScalars<double> part_sc;
        bicgstab::reference::init<double>(last - first, r + first, r_hat + first, p + first,
                                          v + first, &part_sc);
    });
    DeviceScalars<double> sc;
    bicgstab::detail::finish_init(sc, ranges.dot(r, r));
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
        phase("other", [&] {
            ranges.each([&](index_type first, index_type last) {
                bicgstab::reference::p_update<double>(last - first, r + first, v + first,
                                                      p + first, &sc);
            });
        });
        phase("preconditioner", [&] { precondition(p, p_hat); });
        phase("BiCGStab SpMV", [&] { spmv(p_hat, v); });
        phase("other", [&] {
            bicgstab::detail::finish_alpha(sc, ranges.dot(r_hat, v));
            ranges.each([&](index_type first, index_type last) {
                bicgstab::reference::s_update<double>(last - first, r + first, v + first,
                                                      s + first, &sc);
            });
        });
        phase("preconditioner", [&] { precondition(s, s_hat); });
        phase("BiCGStab SpMV", [&] { spmv(s_hat, t); });
        double rnorm = 0.0;
        phase("other", [&] {
            bicgstab::detail::finish_omega(sc, ranges.dot(t, s), ranges.dot(t, t),
                                           ranges.dot(s, s));
            // x += alpha p_hat + omega s_hat; r = s - omega t; rho = r_hat . r, rr = r . r,
            // and ||r||_inf, per range.
            const double alpha = sc.alpha, omega = sc.omega;
            const std::array<double, 3> red = ranges.reduce<3>(
                [&](index_type first, index_type last) {
                    double rho = 0.0, rr = 0.0;
                    for (index_type i = first; i < last; ++i) {
                        x[i] = std::fma(omega, s_hat[i], std::fma(alpha, p_hat[i], x[i]));
                        r[i] = std::fma(-omega, t[i], s[i]);
                        rho = std::fma(r_hat[i], r[i], rho);
                        rr = std::fma(r[i], r[i], rr);
                    }
                    return std::array<double, 3>{rho, rr, inf_norm(r, first, last)};
                },
                [](auto& total, const auto& pr) {
                    total[0] += pr[0];
                    total[1] += pr[1];
                    total[2] = max_abs(total[2], pr[2]);
                });
            bicgstab::detail::finish_xr(sc, red[0], red[1]);
            rnorm = red[2];
        });
        ++iteration;
        const double rel = rnorm / bnorm;
        solve.residual_history.push_back(rel);
        stop = detail::stop_after(solve, iteration, rel, sc.status, options, stagnation);
    }
    solve.seconds = seconds_since(begin);
    solve.iterations = iteration;
    residual(a, ranges, b, x, r);
    solve.true_residual = inf_norm(ranges, r) / bnorm;
    result.total_seconds = result.factor_seconds + solve.seconds;
    result.phases = std::move(phases);
    return result;
}

/// Throws unless b and x have a.n entries, naming `function`.
void check_sizes(const char* function, const BandMatrix<double>& a, const std::vector<double>& b,
                 const std::vector<double>& x)
{
    const std::size_t n = static_cast<std::size_t>(a.n);
    if (b.size() != n || x.size() != n)
        throw std::invalid_argument(std::string{function} + ": b has " +
                                    std::to_string(b.size()) + " and x " +
                                    std::to_string(x.size()) + " entries, expected n = " +
                                    std::to_string(n));
}

}  // namespace

SpikeBicgstabResult spike_bicgstab_cpu(const BandMatrix<double>& a, const std::vector<double>& b,
                                       std::vector<double>& x, const SpikeBicgstabOptions& options)
{
    detail::check_options(options);
    check_sizes("spike_bicgstab_cpu", a, b, x);
    SpikeBicgstabResult result;
    result.psize = detail::resolve_psize(a, options, 1, 1, &result.psize_decay);  // one slot
    return solve_host(a, b, x, options, std::move(result), 1, false);
}

SpikeBicgstabResult spike_bicgstab_omp(const BandMatrix<double>& a, const std::vector<double>& b,
                                       std::vector<double>& x,
                                       const SpikeBicgstabOptions& options,
                                       const SpikeOmpOptions& omp)
{
    detail::check_options(options);
    if (omp.threads < 0)
        throw std::invalid_argument("spike_bicgstab_omp: threads = " +
                                    std::to_string(omp.threads) +
                                    ", expected threads >= 0 (0: every core)");
    if (omp.partitions < 0)
        throw std::invalid_argument("spike_bicgstab_omp: partitions = " +
                                    std::to_string(omp.partitions) +
                                    ", expected partitions >= 0 (0: one per thread)");
    if (omp.partitions != 0 && options.psize != 0)
        throw std::invalid_argument("spike_bicgstab_omp: partitions = " +
                                    std::to_string(omp.partitions) + " and psize = " +
                                    std::to_string(options.psize) +
                                    " both given, expected one or neither");
    check_sizes("spike_bicgstab_omp", a, b, x);
    const int threads = omp.threads > 0 ? omp.threads : cpu_max_threads();
    SpikeBicgstabResult result;
    if (options.psize != 0) {
        make_partitioning(a.n, a.K, options.psize);  // throws naming psize
        result.psize = options.psize;
    } else {
        const index_type p =
            omp.partitions != 0 ? omp.partitions : cpu_partition_count(a.n, a.K, threads);
        result.psize = psize_for_partitions(a.n, a.K, p);
    }
    return solve_host(a, b, x, options, std::move(result), threads, true);
}

}  // namespace kbench::solvers::spike
