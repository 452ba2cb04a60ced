// The li2012 SPIKE::GPU study (declarations and results schema in bench_spike.hpp): the public
// helpers and what the runners share (bench_spike_common.hpp). The runners are
// bench_spike_residual.cpp (table1), bench_spike_psize.cpp (table3), bench_spike_scaling.cpp
// (fig4, fig5 and the CPU and cuDSS baselines), bench_spike_phases.cpp (fig6) and
// bench_spike_mixed.cpp (mixed).
#include "harness/studies/li2012/bench_spike.hpp"
#include "harness/studies/li2012/bench_spike_common.hpp"

#include "harness/core/machine.hpp"
#include "harness/core/results_json.hpp"
#include "harness/core/study_context.hpp"
#include "harness/core/timing.hpp"
#include "kernels/base/cuda_check.hpp"
#include "kernels/base/device.hpp"
#include "matrices/matrix_set.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <limits>
#include <optional>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace kbench::harness {

// ------------------------------------------------------------------------------ public helpers
namespace li2012 {

namespace {
void require_psize_range(const char* function, index_type n, index_type K)
{
    if (K < 1 || n < 4 * static_cast<std::int64_t>(K))
        throw std::invalid_argument(fmt::format(
            "li2012::{}: N = {}, K = {}: expected K >= 1 and N >= 4K (2K <= psize <= N/2)",
            function, n, K));
}
}  // namespace

index_type ill_tuned_psize(index_type n, index_type K)
{
    require_psize_range("ill_tuned_psize", n, K);
    return std::max<index_type>(2 * K, std::min<index_type>(2048, n / 2));
}

std::vector<index_type> psize_grid(index_type n, index_type K)
{
    require_psize_range("psize_grid", n, K);
    const index_type lo = 2 * K, hi = n / 2;
    std::set<index_type> grid{lo, hi};
    for (std::int64_t p = 64; p <= hi; p *= 2) {
        for (std::int64_t v : {p, p + p / 2}) {
            if (v >= lo && v <= hi) grid.insert(static_cast<index_type>(v));
        }
    }
    return {grid.begin(), grid.end()};
}

std::string budget_skip_reason(double predicted_s, double used_s, double point_budget_s,
                               double series_budget_s)
{
    if (predicted_s > point_budget_s)
        return fmt::format("predicted {:.3g} s exceeds the point budget of {:g} s", predicted_s,
                           point_budget_s);
    if (used_s + std::max(predicted_s, 0.0) > series_budget_s)
        return fmt::format("the series budget of {:g} s would be exceeded ({:.3g} s used, {:.3g} s "
                           "predicted)",
                           series_budget_s, used_s, std::max(predicted_s, 0.0));
    return {};
}

}  // namespace li2012

namespace spike_bench {

double seconds_since(clock_type::time_point t0)
{
    return std::chrono::duration<double>(clock_type::now() - t0).count();
}

json finite_or_null(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

// ------------------------------------------------------------------------------ the problem
Problem make_problem(index_type n, index_type K, double d, std::uint64_t seed, bool keep_csr,
                     BandedSigns signs)
{
    Problem p;
    p.n = n;
    p.K = K;
    p.d = d;
    p.seed = seed;
    p.signs = signs;
    Csr<double> a = banded(n, K, d, seed, signs);
    p.band = band_from_csr(a, K);
    if (keep_csr) p.csr = std::move(a);
    std::mt19937_64 gen(rhs_seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    p.b.resize(static_cast<std::size_t>(n));
    for (double& v : p.b) v = u(gen);
    return p;
}

json point_fields(const Problem& p)
{
    return {{"n", p.n}, {"K", p.K}, {"d", p.d}, {"seed", p.seed}, {"signs", to_string(p.signs)}};
}

Residual relative_residual(const Problem& p, const std::vector<double>& x)
{
    if (x.size() != p.b.size()) return {};
    std::vector<double> ax(x.size());
    band_multiply(p.band, x.data(), ax.data());
    double rinf = 0, r2 = 0, binf = 0, b2 = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        const double r = p.b[i] - ax[i];
        rinf = std::max(rinf, std::abs(r));
        r2 += r * r;
        binf = std::max(binf, std::abs(p.b[i]));
        b2 += p.b[i] * p.b[i];
    }
    if (std::isnan(rinf) || std::isnan(r2)) return {};
    return {binf > 0 ? rinf / binf : rinf, b2 > 0 ? std::sqrt(r2 / b2) : std::sqrt(r2)};
}

// ------------------------------------------------------------------------------ the model
namespace {

ModelFigures model_figures(const MachineProfile& m, int sm_count)
{
    ModelFigures f;
    f.fp64 = {m.copy_gbps, m.dgemm_gflops, m.launch_latency_us * 1e-6, m.block_step_us * 1e-6};
    f.fp32 = f.fp64;
    f.fp32.gflops = m.sgemm_gflops;
    f.sm_count = sm_count;
    return f;
}

/// The group of li2012 Fig. 6 (SpikeBicgstabResult::phases) a model phase belongs to. The start
/// (r0 = b - A x0 and its vector operations) is a group of its own: the solver's phase events
/// time the iterations only, so counting it under "BiCGStab SpMV" compared three modeled SpMVs
/// with two timed ones in a one-iteration solve (model / measured 1.72, H200).
const char* phase_group(std::string_view model_phase)
{
    if (model_phase == "lu" || model_phase == "ul_top") return "LU/UL";
    if (model_phase == "spike_tips") return "spikes";
    if (model_phase == "reduced_factor") return "reduced system";
    if (model_phase == "start_spmv" || model_phase == "start_vector_ops") return "start";
    if (model_phase == "spmv") return "BiCGStab SpMV";
    if (model_phase == "vector_ops") return "other";
    return "preconditioner";  // solve_pair_1, reduced_solve, coupling, solve_pair_2
}

}  // namespace

ModelOut model_spike(index_type n, index_type K, index_type psize, double iterations, bool mixed,
                     const ModelFigures& f)
{
    ModelOut out;
    if (psize < 2 * K || psize > n / 2 || !(iterations >= 0) || !std::isfinite(iterations))
        return out;
    const ms::Partitioning s = ms::partition(n, K, psize);
    const int pb = mixed ? 4 : 8;
    const double slots =
        static_cast<double>(f.sm_count) *
        (mixed ? sp::SpikeSolver<float>::resident_blocks_per_sm(K)
               : sp::SpikeSolver<double>::resident_blocks_per_sm(K));
    // The partition kernels' steps, measured on them in the preconditioner's precision.
    const sp::StepSeconds st =
        mixed ? sp::SpikeSolver<float>::step_seconds(K) : sp::SpikeSolver<double>::step_seconds(K);
    ms::MachineRates r64 = f.fp64, r32 = f.fp32;
    for (ms::MachineRates* r : {&r64, &r32}) {
        r->lu_step_s = st.lu_pivot;
        r->solve_step_s = st.solve_row;
        r->tips_wave = {st.tips_wave, st.tips_slots};
        r->reduced_wave = {st.reduced_wave, st.reduced_slots};
        r->blocked_step = {st.blocked_fixed, st.blocked_per_block};
    }
    std::vector<std::pair<ms::Phase, bool>> phases;  // (phase, in the preconditioner's precision)
    const bool blocked = mixed ? sp::SpikeSolver<float>::blocked_lu(K)
                               : sp::SpikeSolver<double>::blocked_lu(K);
    for (const ms::Phase& ph : ms::setup_phases(s, pb, slots, blocked))
        phases.emplace_back(ph, true);
    for (ms::Phase ph : ms::apply_phases(s, pb, slots)) {
        ph.count = 2.0 * iterations;  // p_hat = M^-1 p, s_hat = M^-1 s; x0 is not preconditioned
        phases.emplace_back(ph, true);
    }
    for (const ms::Phase& ph : ms::solve_phases(s, iterations, 8, false, slots)) {
        if (ph.name == "spmv" || ph.name == "vector_ops" || ph.name == "start_spmv" ||
            ph.name == "start_vector_ops")
            phases.emplace_back(ph, false);
    }
    ModelOut sum;
    sum.seconds = sum.bytes = sum.flops = 0.0;
    try {
        for (const auto& [ph, low] : phases) {
            const double t = ph.count * ms::phase_time(ph, low && mixed ? r32 : r64);
            sum.seconds += t;
            sum.bytes += ph.count * ph.traffic.bytes();
            sum.flops += ph.count * ph.traffic.flops;
            sum.groups[phase_group(ph.name)] += t;
        }
    } catch (const std::invalid_argument&) {  // machine figures missing (0): no prediction
        return out;
    }
    sum.steps = st;
    return sum;
}

// ------------------------------------------------------------------------------ SPIKE timing
void reset_x(Gpu& g)
{
    KBENCH_CUDA_CHECK(
        cudaMemsetAsync(g.x.data(), 0, sizeof(double) * g.x.size(), g.stream.get()));
    KBENCH_CUDA_CHECK(cudaStreamSynchronize(g.stream.get()));
}

SpikeTimed time_spike(const Problem& p, Gpu& g, const sp::SpikeBicgstabOptions& o, int reps_cap,
                      double budget_s)
{
    const auto solve = [&](double& wall) {
        reset_x(g);
        const auto t0 = clock_type::now();
        sp::SpikeBicgstabResult r = sp::spike_bicgstab(p.band, g.op, g.b.data(), g.x.data(), o,
                                                       g.stream.get());
        KBENCH_CUDA_CHECK(cudaStreamSynchronize(g.stream.get()));
        wall = seconds_since(t0);
        return r;
    };
    SpikeTimed t;
    double wall0 = 0.0;
    t.result = solve(wall0);
    if (!t.ran()) return t;
    std::vector<double> total, factor, transfer, wall;
    if (wall0 >= budget_s) {
        t.seconds = t.result.total_seconds;
        t.factor_seconds = t.result.factor_seconds;
        t.transfer_seconds = t.result.transfer_seconds;
        t.wall_seconds = wall0;
        t.repetitions = 1;
        t.warm_up = false;
        return t;
    }
    const int reps = std::clamp(static_cast<int>(budget_s / std::max(wall0, 1e-6)), 1,
                                std::max(1, reps_cap));
    for (int i = 0; i < reps; ++i) {
        double w = 0.0;
        const sp::SpikeBicgstabResult r = solve(w);
        total.push_back(r.total_seconds);
        factor.push_back(r.factor_seconds);
        transfer.push_back(r.transfer_seconds);
        wall.push_back(w);
    }
    t.seconds = median(total);
    t.factor_seconds = median(factor);
    t.transfer_seconds = median(transfer);
    t.wall_seconds = median(wall);
    t.repetitions = reps;
    return t;
}

std::string status_of(const sp::SpikeBicgstabResult& r)
{
    return r.factor_status.ok() ? solvers::to_string(r.solve.status) : "zero_pivot";
}

json spike_fields(const Problem& p, const SpikeTimed& t, index_type psize_requested, bool mixed,
                  const ModelFigures& f)
{
    const sp::SpikeBicgstabResult& r = t.result;
    const ModelOut m = model_spike(p.n, p.K, r.psize, r.solve.iterations, mixed, f);
    json e = {{"precision", mixed ? "mixed" : "double"},
              {"psize", r.psize},
              {"psize_requested", psize_requested},
              {"partitions", r.partitions},
              {"iterations", r.solve.iterations},
              {"status", status_of(r)},
              {"true_residual", finite_or_null(r.solve.true_residual)},
              {"seconds", finite_or_null(t.seconds)},
              {"factor_seconds", finite_or_null(t.factor_seconds)},
              {"transfer_seconds", finite_or_null(t.transfer_seconds)},
              {"device_seconds", finite_or_null(t.seconds - t.transfer_seconds)},
              {"wall_seconds", finite_or_null(t.wall_seconds)},
              {"repetitions", t.repetitions},
              {"warm_up", t.warm_up},
              {"model_seconds", finite_or_null(m.seconds)},
              {"model_bytes", finite_or_null(m.bytes)},
              {"model_flops", finite_or_null(m.flops)},
              {"model_lu_pivot_seconds", m.steps.lu_pivot},
              {"model_solve_row_seconds", m.steps.solve_row},
              {"model_tips_wave_seconds", m.steps.tips_wave},
              {"model_tips_wave_blocks", m.steps.tips_slots},
              {"model_reduced_wave_seconds", m.steps.reduced_wave},
              {"model_reduced_wave_blocks", m.steps.reduced_slots},
              {"model_blocked_step_fixed_seconds", m.steps.blocked_fixed},
              {"model_blocked_step_per_block_seconds", m.steps.blocked_per_block}};
    if (!r.factor_status.ok())
        e["detail"] = r.factor_status.message();
    else if (!r.solve.detail.empty())
        e["detail"] = r.solve.detail;
    return e;
}

sp::SpikeBicgstabOptions spike_options(index_type psize, bool mixed)
{
    sp::SpikeBicgstabOptions o;
    o.psize = psize;
    o.precision = mixed ? sp::SpikePrecision::mixed : sp::SpikePrecision::double_precision;
    o.tolerance = tolerance;
    o.max_iterations = max_iterations;
    return o;
}

// ------------------------------------------------------------------------------ the document
Study new_study(const StudyRun& run, json grid)
{
    validate(run.options);
    MatrixSet none;
    none.name = "none";
    none.description =
        "li2012's random banded matrices, generated per point (matrices/generators.hpp: banded): "
        "no matrix set is used";
    if (run.source.set != "default")
        fmt::print(stderr, "{}: --set {} ignored: li2012's banded matrices are generated per "
                   "point\n", run.id, run.source.set);
    Study s;
    std::optional<MachineProfile> measured;
    if (run.machine == nullptr) measured = measure_machine(&std::cerr);
    const MachineProfile& machine = run.machine != nullptr ? *run.machine : *measured;
    s.doc = make_results_document(kbench_context(run.id, run.source, none, &machine, false));
    s.figures = model_figures(machine, query_device().sm_count);
    s.reps_cap = run.options.repetitions;
    json baselines = {
#ifdef KBENCH_HAVE_LAPACKE
        {"dgbsv", "built (LAPACKE + OpenBLAS)"},
#else
        {"dgbsv", "not built: LAPACKE or OpenBLAS missing at configure time (Debian: "
                  "liblapacke-dev, libopenblas-dev)"},
#endif
        {"spike_cpu", sp::cpu_openmp()
                          ? fmt::format("built with OpenMP ({} threads available)",
                                        sp::cpu_max_threads())
                          : std::string("built without OpenMP (not found at configure time): "
                                        "one thread")},
#ifdef KBENCH_HAVE_CUDSS
        {"cudss", "built"},
#else
        {"cudss", "not built: cuDSS missing at configure time (pip install nvidia-cudss-cu13 or "
                  "-DCUDSS_ROOT=...)"},
#endif
    };
    json ctx = {{"tolerance", tolerance},
                {"norm", "inf"},
                {"max_iterations", max_iterations},
                {"rhs_seed", rhs_seed},
                {"matrix_seed", matrix_seed},
                {"d", default_d},
                {"repetitions_cap", s.reps_cap},
                {"point_budget_seconds", point_budget_s},
                {"cpu_point_budget_seconds", cpu_point_budget_s},
                {"cpu_series_budget_seconds", cpu_series_budget_s},
                {"baselines", baselines},
                {"cpu_threads", std::thread::hardware_concurrency()},
                {"model", s.figures.to_json()},
                {"paper",
                 {{"table1", {{"1", 35.0}, {"10", 1.2}, {"100", 0.2}, {"1000", 0.02},
                              {"10000", 0.002}}},
                  {"table3", {{"2000", {4.03, 5.69}}, {"4000", {5.56, 11.73}},
                              {"8000", {7.41, 20.16}}, {"10000", {8.99, 21.07}},
                              {"20000", {14.24, 24.72}}, {"40000", {24.70, 32.10}},
                              {"80000", {42.34, 44.53}}, {"100000", {51.86, 54.83}}}},
                  {"fig3_degradation", 0.645},
                  {"fig4_speedup_over_mkl", {2.1, 3.1}},
                  {"mixed_speedup", {1.15, 1.25}},
                  {"gpu", "GeForce GTX 680 (Kepler), MKL on the CPU"}}},
                {"notes",
                 {"matrices: banded(N, K, d, seed, signs) of matrices/generators.hpp (li2012 gives "
                  "no value distribution: off-diagonal magnitudes uniform in [0.1, 1], a_ii = d x "
                  "the row's off-diagonal sum; signs random unless an entry's \"signs\" is "
                  "\"negative\": every off-diagonal negative, an M-matrix)",
                  "SPIKE+BiCGStab: solvers/spike/spike_bicgstab.hpp, right-preconditioned, "
                  "exact spike tips (SpikeTips::exact) unless stated; seconds = the solver's "
                  "total_seconds (copy of the band to the device, factorization, iterations)",
                  "psize 0 asks for the automatic choice (models::spike::choose_psize: the "
                  "model's fastest psize at or above a floor from the matrix's spike decay, "
                  "measured by band_decay_stats); li2012 tuned psize by hand for Figs. 4 and 5"}}};
    ctx.update(grid);
    s.ctx() = ctx;
    return s;
}

}  // namespace spike_bench

}  // namespace kbench::harness
