// li2012/fig4 and li2012/fig5 (run_spike_scaling_study, bench_spike.hpp): SPIKE+BiCGStab in
// double and mixed precision against the CPU baselines, dgbsv (1 thread and all cores, when
// built) and SPIKE+BiCGStab on the CPU with OpenMP over every core, and cuDSS (when built), under
// time budgets.
#include "harness/studies/li2012/bench_spike.hpp"
#include "harness/studies/li2012/bench_spike_common.hpp"

#include "harness/core/progress.hpp"
#include "harness/core/timing.hpp"
#ifdef KBENCH_HAVE_LAPACKE
#include "solvers/spike/gbsv_baseline.hpp"
#endif
#ifdef KBENCH_HAVE_CUDSS
#include "solvers/spike/cudss_baseline.hpp"
#endif

#include <fmt/format.h>

#include <algorithm>
#include <exception>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace kbench::harness {

using namespace spike_bench;

namespace {

/// The time spent and the last measured point of one baseline series (method) of an id.
struct Series {
    std::string method;
    double used_s = 0.0;
    double last_work = 0.0, last_seconds = 0.0;  // work: models::spike::gbsv flops
    bool warmed_up = false;
    /// Seconds predicted for `work` from the last measured point (0: nothing measured yet).
    double predict(double work) const
    {
        return last_work > 0 && last_seconds > 0 ? last_seconds * work / last_work : 0.0;
    }
};

double gbsv_work(const Problem& p) { return ms::gbsv(p.n, p.K, 1, 8, true).flops; }

/// Whether the CPU budgets leave out a point of `series` predicted to take `predicted` seconds
/// (li2012::budget_skip_reason); if so, e gets "skipped" (the reason) and null "seconds".
bool skipped_by_budget(json& e, const Series& series, double predicted)
{
    const std::string skip =
        li2012::budget_skip_reason(predicted, series.used_s, cpu_point_budget_s,
                                   cpu_series_budget_s);
    if (skip.empty()) return false;
    e["skipped"] = skip;
    e["seconds"] = nullptr;
    return true;
}

json baseline_entry(const std::string& figure, const std::string& method, const Problem& p)
{
    json e = {{"name", fmt::format("{}/{}/N={}/K={}", figure, method, p.n, p.K)},
              {"figure", figure}, {"method", method}};
    e.update(point_fields(p));
    return e;
}

#ifdef KBENCH_HAVE_LAPACKE
/// One dgbsv point of a series (threads 1 or all), unless the budget says otherwise.
json gbsv_point(const std::string& figure, Series& series, int threads, const Problem& p,
                std::optional<kbench::spike::LapackBand>& band, int reps_cap)
{
    json e = baseline_entry(figure, series.method, p);
    const models::Traffic traffic = ms::gbsv(p.n, p.K, 1, 8, true);
    const double predicted = series.predict(traffic.flops);
    e["threads"] = threads;
    e["model_flops"] = traffic.flops;
    e["model_bytes"] = traffic.bytes();
    e["model_seconds"] = predicted > 0 ? json(predicted) : json(nullptr);
    e["model_gflops"] = predicted > 0 ? json(series.last_work / series.last_seconds * 1e-9)
                                      : json(nullptr);
    if (skipped_by_budget(e, series, predicted)) return e;
    const auto t0 = clock_type::now();
    try {
        if (!band) band = kbench::spike::to_lapack_band(*p.csr, p.K);
        kbench::spike::GbsvOptions o;
        o.threads = threads;
        o.repetitions = 1;
        kbench::spike::GbsvResult r = kbench::spike::gbsv_solve(*band, p.b, o);
        const int reps = std::clamp(static_cast<int>(baseline_repetition_budget_s /
                                                     std::max(r.seconds, 1e-6)),
                                    1, std::max(1, reps_cap));
        if (reps > 1 && r.status == kbench::spike::GbsvStatus::ok) {
            o.repetitions = reps;
            r = kbench::spike::gbsv_solve(*band, p.b, o);  // the first call was the warm-up
        }
        const bool ok = r.status == kbench::spike::GbsvStatus::ok;
        e["status"] = ok ? "ok" : "singular";
        if (!ok) e["detail"] = r.message;
        e["threads"] = r.threads > 0 ? r.threads : threads;
        e["seconds"] = r.seconds;
        e["repetitions"] = reps > 1 && ok ? reps : 1;
        e["gflops"] = traffic.flops / r.seconds * 1e-9;
        e["residual"] = finite_or_null(ok ? relative_residual(p, r.x).inf
                                          : std::numeric_limits<double>::quiet_NaN());
        if (ok) {
            series.last_work = traffic.flops;
            series.last_seconds = r.seconds;
        }
    } catch (const std::exception& ex) {
        e["error"] = ex.what();
        e["seconds"] = nullptr;
    }
    series.used_s += seconds_since(t0);
    return e;
}
#endif

/// One point of SPIKE+BiCGStab on the CPU (spike_bicgstab_omp in double on `threads` OpenMP
/// threads, the partitions from its rule: one per thread), unless the budget says otherwise: a
/// first solve, then as many as baseline_repetition_budget_s allows (at most reps_cap) when it
/// was quick, x reset to 0 before each; the median of the solver's total_seconds.
json spike_cpu_point(const std::string& figure, Series& series, int threads, const Problem& p,
                     int reps_cap)
{
    json e = baseline_entry(figure, series.method, p);
    const double work = gbsv_work(p);  // the budget's size measure, as for the other series
    const double predicted = series.predict(work);
    e["precision"] = "double";
    e["threads_requested"] = threads;
    e["openmp"] = sp::cpu_openmp();
    e["model_seconds"] = nullptr;  // kbench has no CPU SPIKE time model
    e["predicted_seconds"] = predicted > 0 ? json(predicted) : json(nullptr);
    if (skipped_by_budget(e, series, predicted)) return e;
    const auto t0 = clock_type::now();
    try {
        sp::SpikeOmpOptions omp;
        omp.threads = threads;
        const sp::SpikeBicgstabOptions o = spike_options(0, false);
        std::vector<double> x(p.b.size(), 0.0);
        sp::SpikeBicgstabResult r = sp::spike_bicgstab_omp(p.band, p.b, x, o, omp);
        std::vector<double> total{r.total_seconds}, factor{r.factor_seconds};
        const int reps = std::clamp(static_cast<int>(baseline_repetition_budget_s /
                                                     std::max(r.total_seconds, 1e-6)),
                                    1, std::max(1, reps_cap));
        if (reps > 1 && r.factor_status.ok()) {  // the first solve was the warm-up
            total.clear();
            factor.clear();
            for (int i = 0; i < reps; ++i) {
                std::fill(x.begin(), x.end(), 0.0);
                r = sp::spike_bicgstab_omp(p.band, p.b, x, o, omp);
                total.push_back(r.total_seconds);
                factor.push_back(r.factor_seconds);
            }
        }
        const bool ok = r.factor_status.ok() && r.solve.status == solvers::SolveStatus::converged;
        e["threads"] = r.threads;
        e["psize"] = r.psize;
        e["partitions"] = r.partitions;
        e["iterations"] = r.solve.iterations;
        e["status"] = status_of(r);
        if (!r.factor_status.ok()) e["detail"] = r.factor_status.message();
        else if (!r.solve.detail.empty()) e["detail"] = r.solve.detail;
        e["true_residual"] = finite_or_null(r.solve.true_residual);
        e["residual"] = finite_or_null(relative_residual(p, x).inf);
        e["seconds"] = finite_or_null(median(total));
        e["factor_seconds"] = finite_or_null(median(factor));
        e["repetitions"] = static_cast<int>(total.size());
        if (ok) {
            series.last_work = work;
            series.last_seconds = median(total);
        }
    } catch (const std::exception& ex) {
        e["error"] = ex.what();
        e["seconds"] = nullptr;
    }
    series.used_s += seconds_since(t0);
    return e;
}

#ifdef KBENCH_HAVE_CUDSS
/// The two cuDSS entries (analysis + factorization + solve, and solve alone) of one point.
std::vector<json> cudss_point(const std::string& figure, Series& series, const Problem& p,
                              int reps_cap)
{
    json full = baseline_entry(figure, "cudss_full", p);
    json solve = baseline_entry(figure, "cudss_solve", p);
    const double work = gbsv_work(p);
    const double predicted = series.predict(work);
    const auto set_all = [&](const char* key, const json& v) {
        full[key] = v;
        solve[key] = v;
    };
    set_all("model_seconds", nullptr);  // kbench has no cuDSS model
    set_all("predicted_seconds", predicted > 0 ? json(predicted) : json(nullptr));
    const std::string skip = li2012::budget_skip_reason(predicted, series.used_s,
                                                        cpu_point_budget_s, cpu_series_budget_s);
    if (!skip.empty()) {
        set_all("skipped", skip);
        set_all("seconds", nullptr);
        return {full, solve};
    }
    const auto t0 = clock_type::now();
    try {
        kbench::spike::CudssOptions o;
        if (!series.warmed_up) {  // library loading, first allocations
            kbench::spike::cudss_solve(*p.csr, p.b, o);
            series.warmed_up = true;
        }
        o.repetitions = predicted > 0 && predicted < baseline_repetition_budget_s / 3
                            ? std::min(3, std::max(1, reps_cap))
                            : 1;
        const kbench::spike::CudssResult r = kbench::spike::cudss_solve(*p.csr, p.b, o);
        const double total = r.analysis_s + r.factorization_s + r.solve_s;
        const json residual =
            finite_or_null(r.info == 0 ? relative_residual(p, r.x).inf
                                       : std::numeric_limits<double>::quiet_NaN());
        set_all("analysis_seconds", r.analysis_s);
        set_all("factorization_seconds", r.factorization_s);
        set_all("solve_seconds", r.solve_s);
        set_all("lu_nnz", r.lu_nnz);
        set_all("info", r.info);
        set_all("status", r.info == 0 ? "ok" : "failed");
        set_all("residual", residual);
        set_all("repetitions", o.repetitions);
        full["seconds"] = total;
        solve["seconds"] = r.solve_s;
        if (r.info == 0) {
            series.last_work = work;
            series.last_seconds = total;
        }
    } catch (const std::exception& ex) {
        set_all("error", ex.what());
        set_all("seconds", nullptr);
    }
    series.used_s += seconds_since(t0);
    return {full, solve};
}
#endif

}  // namespace

namespace {
const std::vector<index_type> fig4_n{10000,   20000,   50000,   100000,  200000,
                                     500000,  1000000, 2000000, 5000000, 10000000};
const std::vector<index_type> fig5_k{1, 2, 4, 8, 16, 24, 32, 33, 48, 64, 96, 128, 192, 256};
constexpr index_type fig5_n = 400000;
}  // namespace

json run_spike_scaling_study(const StudyRun& run)
{
    const bool fig4 = run.id == "li2012/fig4";
    if (!fig4 && run.id != "li2012/fig5")
        throw std::invalid_argument("run_spike_scaling_study: id '" + run.id +
                                    "' is neither li2012/fig4 nor li2012/fig5");
    const std::string figure = fig4 ? "fig4" : "fig5";
    const bool quick = run.options.quick;  // N <= quick_max_n, 5 of the K <= quick_max_k
    const std::vector<index_type> n_values = quick ? quick_cap(fig4_n, quick_max_n) : fig4_n;
    const std::vector<index_type> k_values = quick ? quick_cap(fig5_k, quick_max_k, 5) : fig5_k;
    const index_type k_sweep_n = quick ? std::min(fig5_n, quick_max_n) : fig5_n;
    std::vector<std::pair<index_type, index_type>> points;  // (N, K)
    if (fig4)
        for (index_type n : n_values) points.emplace_back(n, default_k);
    else
        for (index_type K : k_values) points.emplace_back(k_sweep_n, K);
    Study s = new_study(run, fig4 ? json{{"K", default_k}, {"n_values", n_values}}
                                  : json{{"n", k_sweep_n}, {"k_values", k_values}});
    s.ctx()["notes"].push_back(
        "psize: automatic (li2012 tuned Figs. 4 and 5 by hand; li2012/table3 measures what "
        "tuning gains); dgbsv: LAPACKE_dgbsv of OpenBLAS on 1 thread and on every core, "
        "the band already in LAPACK storage, median of the calls (1 when a call takes over "
        "1 s); its model_seconds extrapolates the previous measured point of the series by the "
        "worst-case-fill flops (models::spike::gbsv), as the time budget does; OpenBLAS's "
        "banded LU is serial, so dgbsv on every core is no faster than on one thread; "
        "spike_cpu_all_cores is the multi-core CPU baseline: SPIKE+BiCGStab in double on the "
        "CPU (spike_bicgstab_omp), OpenMP over the partitions on every core (\"threads\"), one "
        "partition per thread (spike::cpu_partition_count), the same tolerance, seconds = "
        "median of the solver's total_seconds (factorization and iterations; the band already "
        "in host memory), predicted_seconds the budget's extrapolation by the dgbsv flops, no "
        "model; cuDSS: analysis (reordering, symbolic), factorization and solve of the CSR "
        "matrix, no model");
    const int all_cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    Series gbsv1{"dgbsv_1thread"}, gbsv_all{"dgbsv_all_cores"}, cudss{"cudss"};
    Series spike_cpu{"spike_cpu_all_cores"};
    bool keep_csr = false;
#ifdef KBENCH_HAVE_LAPACKE
    keep_csr = true;
#endif
#ifdef KBENCH_HAVE_CUDSS
    keep_csr = true;
#endif
    Progress progress;
    for (std::size_t i = 0; i < points.size(); ++i) {
        const auto [n, K] = points[i];
        progress.report(i + 1, points.size(), fmt::format("{} N = {}, K = {}", figure, n, K));
        const Problem p = make_problem(n, K, default_d, matrix_seed, keep_csr);
        {
            Gpu g(p);
            for (bool mixed : {false, true}) {
                const SpikeTimed t = time_spike(p, g, spike_options(0, mixed), s.reps_cap);
                const std::string method = mixed ? "spike_mixed" : "spike_double";
                json e = baseline_entry(figure, method, p);
                e.update(spike_fields(p, t, 0, mixed, s.figures));
                fmt::print(stderr, "  {} N = {} K = {}: {} s, {} iterations, psize {}\n", method,
                           n, K, t.seconds, t.result.solve.iterations, t.result.psize);
                s.doc["benchmarks"].push_back(e);
            }
        }
#ifdef KBENCH_HAVE_LAPACKE
        {
            std::optional<kbench::spike::LapackBand> band;
            for (auto [series, threads] : {std::pair{&gbsv1, 1}, std::pair{&gbsv_all, all_cores}}) {
                json e = gbsv_point(figure, *series, threads, p, band, s.reps_cap);
                fmt::print(stderr, "  {} N = {} K = {}: {}\n", series->method, n, K,
                           e.contains("skipped") ? e["skipped"].get<std::string>()
                           : e["seconds"].is_number()
                               ? fmt::format("{} s", e["seconds"].get<double>())
                               : std::string("failed"));
                s.doc["benchmarks"].push_back(std::move(e));
            }
        }
#endif
        {
            json e = spike_cpu_point(figure, spike_cpu, all_cores, p, s.reps_cap);
            fmt::print(stderr, "  {} N = {} K = {}: {}\n", spike_cpu.method, n, K,
                       e.contains("skipped") ? e["skipped"].get<std::string>()
                       : e["seconds"].is_number()
                           ? fmt::format("{} s on {} threads, {} partitions",
                                         e["seconds"].get<double>(), e["threads"].get<int>(),
                                         e["partitions"].get<index_type>())
                           : std::string("failed"));
            s.doc["benchmarks"].push_back(std::move(e));
        }
#ifdef KBENCH_HAVE_CUDSS
        for (json& e : cudss_point(figure, cudss, p, s.reps_cap))
            s.doc["benchmarks"].push_back(std::move(e));
#endif
    }
    return s.doc;
}

}  // namespace kbench::harness
