// The boman2022 block GMRES study (declarations and results schema in bench_block_gmres.hpp):
// the sweep of s x GMRES against BGMRES and pseudo-block GMRES, and the runners. The cost
// calibration is bench_block_gmres_calibration.cpp; what both use, bench_block_gmres_common.hpp.
#include "harness/studies/boman2022/bench_block_gmres.hpp"
#include "harness/studies/boman2022/bench_block_gmres_common.hpp"

#include "harness/core/progress.hpp"
#include "harness/core/quick.hpp"
#include "harness/core/results_json.hpp"
#include "harness/core/study_context.hpp"
#include "harness/core/timing.hpp"
#include "kernels/base/cuda_check.hpp"
#include "kernels/base/device_buffer.hpp"
#include "kernels/machine_probe.hpp"
#include "matrices/matrix_set.hpp"
#include "models/block_gmres_model.hpp"
#include "solvers/block_gmres.hpp"
#include "solvers/gmres.hpp"
#include "solvers/orthogonalization/gpu_context.hpp"

#include <fmt/format.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace kbench::harness {

using namespace block_gmres_bench;

namespace block_gmres_bench {

std::vector<double> random_block(std::int64_t n, int s)
{
    std::mt19937_64 gen(rhs_seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    std::vector<double> b(static_cast<std::size_t>(n) * s);
    for (double& v : b) v = u(gen);
    return b;
}

}  // namespace block_gmres_bench

namespace {

constexpr double cpu_budget_seconds = 12.0;  // per matrix and restart on the CPU
const std::vector<int> gpu_s{1, 2, 4, 8, 16, 32, 64};
const std::vector<int> cpu_s{1, 2, 4, 8, 16, 32, 64};
constexpr int quick_max_s = 8;                     // a quick run (`kbench reproduce --quick`):
constexpr double quick_cpu_budget_seconds = 2.0;  // s <= 8, a 2 s CPU budget

/// The s values of each device and the CPU budget of a run: boman2022's, or a quick run's.
struct Plan {
    std::vector<int> gpu_s, cpu_s;
    double cpu_budget;
};
Plan plan_of(const RunOptions& o)
{
    if (!o.quick) return {gpu_s, cpu_s, cpu_budget_seconds};
    return {quick_cap(gpu_s, quick_max_s), quick_cap(cpu_s, quick_max_s), quick_cpu_budget_seconds};
}
const std::vector<int> gpu_restarts{0, 30, 50};  // 0: not restarted
const std::vector<int> cpu_restarts{0, 30};
constexpr int vanbody_block_steps = 600;  // above every count of boman2022's vanbody table

// ------------------------------------------------------------------------------ the sweep
bool converged(const SolveResult& r) { return r.status == SolveStatus::converged; }

/// A detailed solve's phases: {name: {"seconds", "calls"}} in execution order of first use.
json phases_json(const SolveResult& r)
{
    json out = json::array();
    for (const solvers::PhaseTime& p : r.phases)
        out.push_back({{"name", p.name}, {"seconds", p.seconds}, {"calls", p.calls}});
    return out;
}
json ratio_or_null(double num, double den, bool ok)
{
    return ok && den > 0.0 ? json(num / den) : json(nullptr);
}

/// The entries of one device, matrix and restart length, appended to doc.
void sweep(Solvers& solvers, Device device, const std::string& matrix, const Csr<double>& a,
           int restart, const std::vector<int>& s_values, const Costs& costs, double cpu_budget,
           json& doc)
{
    const auto t_start = std::chrono::steady_clock::now();
    const auto elapsed = [&] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
    };
    // Two Gram-Schmidt passes per step: every solver here runs CGS2.
    const models::KrylovProblem problem{static_cast<double>(a.num_rows),
                                        static_cast<double>(a.nnz()), 2.0};
    const double model_restart = restart > 0 ? restart : models::not_restarted;
    std::vector<Timed> singles;  // single solves of columns 0, 1, ... (as many as s needs)
    std::string skipped;
    for (int s : s_values) {
        json e = {{"name", fmt::format("speedup/{}/{}/restart={}/s={}", name(device), matrix,
                                       restart > 0 ? std::to_string(restart) : "none", s)},
                  {"figure", "speedup"}, {"device", name(device)}, {"matrix", matrix},
                  {"n", a.num_rows}, {"nnz", a.nnz()}, {"restart", restart_json(restart)},
                  {"s", s}};
        if (skipped.empty() && device == Device::cpu && elapsed() > cpu_budget)
            skipped = fmt::format("CPU time budget of {} s per matrix and restart used up",
                                  cpu_budget);
        if (!skipped.empty()) {
            e["skipped"] = skipped;
            doc["benchmarks"].push_back(e);
            continue;
        }
        while (static_cast<int>(singles.size()) < s)
            singles.push_back(solvers.gmres(static_cast<int>(singles.size()), restart));
        double t_gmres = 0.0, its = 0.0;
        std::string g_status = "converged";
        for (int k = 0; k < s; ++k) {
            t_gmres += singles[k].seconds;
            its += singles[k].result.iterations;
            if (!converged(singles[k].result) && g_status == "converged")
                g_status = solvers::to_string(singles[k].result.status);
        }
        its /= s;
        const Timed block = solvers.block(false, s, restart);
        const Timed pseudo = solvers.block(true, s, restart);
        fmt::print(stderr, "  {} {} restart {} s {}: {:.3f} s x GMRES, {:.3f} s BGMRES ({}), "
                   "{:.3f} s pseudo ({}), {:.0f} s\n", name(device), matrix, restart, s, t_gmres,
                   block.seconds, block.result.iterations, pseudo.seconds,
                   pseudo.result.iterations, elapsed());
        const bool g_ok = g_status == "converged";
        e["gmres_seconds"] = t_gmres;
        e["gmres_iterations"] = its;
        e["gmres_status"] = g_status;
        e["bgmres_seconds"] = block.seconds;
        e["bgmres_iterations"] = block.result.iterations;
        e["bgmres_status"] = solvers::to_string(block.result.status);
        e["pseudo_seconds"] = pseudo.seconds;
        e["pseudo_iterations"] = pseudo.result.iterations;
        e["pseudo_status"] = solvers::to_string(pseudo.result.status);
        if (device == Device::gpu) {  // where a block step's time goes (a separate, synced solve)
            e["bgmres_phases"] = phases_json(solvers.block(false, s, restart, iteration_cap,
                                                           true).result);
            e["pseudo_phases"] = phases_json(solvers.block(true, s, restart, iteration_cap,
                                                           true).result);
        }
        e["speedup_block"] = ratio_or_null(t_gmres, block.seconds, g_ok && converged(block.result));
        e["speedup_pseudo"] =
            ratio_or_null(t_gmres, pseudo.seconds, g_ok && converged(pseudo.result));
        // The model: s x GMRES and pseudo-block GMRES orthogonalize one vector at a time
        // (gamma(1)), BGMRES a block of s (gamma(s)); their host least squares are s GMRES
        // ones (gamma_lsq(1): pseudo-block GMRES keeps one s = 1 HessenbergLsq per system),
        // BGMRES's one of block size s (gamma_lsq(s)).
        const auto model = [&](double m_single, double m_block, double m_pseudo) {
            const double tg = models::model_time(
                models::counts_s_gmres(problem, s, m_single, model_restart),
                costs.at(costs.alpha, 1, 1));
            const double tb = models::model_time(
                models::counts_bgmres(problem, s, m_block, model_restart),
                costs.at(costs.alpha_block, s, s));
            const double tp = models::model_time(
                models::counts_pseudo_block_gmres(problem, s, m_pseudo, model_restart),
                costs.at(costs.alpha_pseudo, 1, 1));
            return std::pair{tg / tb, tg / tp};
        };
        const auto [mb, mp] = model(its, block.result.iterations, pseudo.result.iterations);
        const double m1 = singles[0].result.iterations;
        const auto [mb1, mp1] = model(m1, m1, m1);
        e["model_speedup_block"] = mb;
        e["model_speedup_pseudo"] = mp;
        e["model_speedup_block_s1"] = mb1;
        e["model_speedup_pseudo_s1"] = mp1;
        doc["benchmarks"].push_back(e);
    }
}

int cpu_threads()
{
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

}  // namespace

std::vector<double> boman2022_right_hand_sides(std::int64_t n, int s)
{
    if (n < 0 || s < 1)
        throw std::invalid_argument(fmt::format(
            "boman2022_right_hand_sides: n = {}, s = {}, expected n >= 0 and s >= 1", n, s));
    return random_block(n, s);
}

json run_block_speedup_study(const StudyRun& run)
{
    if (run.derive_from_results != nullptr) {  // boman2022/model after boman2022/speedup
        return derived_results(run);
    }
    validate(run.options);
    const Plan plan = plan_of(run.options);
    const MatrixSet set = load_source_set(run.source);
    json doc = make_results_document(kbench_context(run.id, run.source, set, run.machine, false));
    // Each point is whole solves (milliseconds to seconds each) after a warm-up; the study's
    // device time allows one timed solve per point.
    const int gpu_reps = 1;
    json& ctx = doc["context"]["kbench"]["boman2022"];
    ctx = {{"tolerance", tolerance},
           {"seed", rhs_seed},
           {"s_values", {{"gpu", plan.gpu_s}, {"cpu", plan.cpu_s}}},
           {"restarts", {{"gpu", json::array()}, {"cpu", json::array()}}},
           {"iteration_cap", iteration_cap},
           {"basis_cap", basis_cap},
           {"repetitions", {{"gpu", gpu_reps}, {"cpu", 1}}},
           {"cpu_budget_seconds", plan.cpu_budget},
           {"cpu_threads", cpu_threads()},
           {"notes",
            {"restart m counts (block) steps per cycle for every method, as Belos' Num Blocks: "
             "a BGMRES cycle holds m s basis vectors",
             "T(s x GMRES) is the sum of the first s single-vector solves (columns 0..s-1), each "
             "the median of the repetitions; BGMRES and pseudo-block GMRES solve columns 0..s-1 "
             "together",
             "alpha: seconds per step on a 256-row matrix (the fixed costs of a step), measured "
             "per method (GMRES; BGMRES and pseudo-block GMRES at s = 1): kbench's refinement of "
             "boman2022's single alpha; beta: "
             "seconds per non-zero of one SpMV of the matrix; gamma(s): seconds per flop of one "
             "block CGS pass of n x s against 128 basis columns; the orthogonalization term "
             "counts two passes, as the solvers run CGS2 (boman2022 counts one)",
             "not restarted: at most 4096 basis vectors (block steps <= 4096 / s)",
             "gamma_lsq(s): seconds per flop of the host least squares (Givens QR of the "
             "band Hessenberg matrix), timed on one cycle of 30 block steps of s columns; the "
             "CPU and GPU solvers both run it on the host. The model adds gamma_lsq lsq_flops "
             "(6 j s^3 in block step j of a cycle; kbench's extension, boman2022 leaves it "
             "out): BGMRES at gamma_lsq(s), s x GMRES and pseudo-block GMRES (s GMRES least "
             "squares) at gamma_lsq(1)"}}};
    for (int r : gpu_restarts) ctx["restarts"]["gpu"].push_back(restart_json(r));
    for (int r : cpu_restarts) ctx["restarts"]["cpu"].push_back(restart_json(r));
    const models::SpmvMachine figures = spmv_figures(run.machine);
    Costs latency[2];  // per device: the three alphas and gamma_lsq, measured once
    std::vector<int> lsq_s = plan.gpu_s;
    lsq_s.insert(lsq_s.end(), plan.cpu_s.begin(), plan.cpu_s.end());
    std::sort(lsq_s.begin(), lsq_s.end());
    lsq_s.erase(std::unique(lsq_s.begin(), lsq_s.end()), lsq_s.end());
    const std::map<int, double> gamma_lsq = calibrate_gamma_lsq(lsq_s);  // host: both devices
    for (Device device : {Device::gpu, Device::cpu}) {
        Costs& c = latency[device == Device::gpu ? 0 : 1];
        c.gamma_lsq = gamma_lsq;
        c.alpha = calibrate_alpha(device, figures);
        c.alpha_block = calibrate_block_alpha(device, false, figures);
        c.alpha_pseudo = calibrate_block_alpha(device, true, figures);
    }
    Progress progress;
    for_each_matrix(set, [&](const MatrixEntry& entry, const Csr<double>& a, std::size_t k,
                             std::size_t total) {
        doc["context"]["kbench"]["matrices"][entry.name] =
            matrix_context(entry, a);
        const std::vector<double> b = random_block(a.num_rows, plan.gpu_s.back());
        for (Device device : {Device::gpu, Device::cpu}) {
            const bool gpu = device == Device::gpu;
            const std::vector<int>& s_values = gpu ? plan.gpu_s : plan.cpu_s;
            Solvers solvers(device, a, b, s_values.back(), figures, gpu ? gpu_reps : 1);
            Costs costs = latency[gpu ? 0 : 1];
            costs.beta = calibrate_beta(
                device, a, const_cast<spmv::SpmvOperator<double>*>(solvers.op()));
            costs.gamma = calibrate_gamma(device, a.num_rows, s_values);
            ctx["costs"][name(device)][entry.name] = costs.to_json();
            if (gpu) ctx["spmv"][entry.name] = spmv::choice_json(solvers.op()->choice());
            if (gpu) {  // warm-up: library handles, kernels, the first allocations
                solvers.gmres(0, 30);
                solvers.block(false, 2, 30);
                solvers.block(true, 2, 30);
            }
            for (int restart : gpu ? gpu_restarts : cpu_restarts) {
                progress.report(k, total,
                                fmt::format("{} {} restart {}", entry.name, name(device),
                                            restart > 0 ? std::to_string(restart) : "none"));
                sweep(solvers, device, entry.name, a, restart, s_values, costs, plan.cpu_budget,
                      doc);
            }
        }
    });
    return doc;
}

json run_vanbody_study(const StudyRun& run)
{
    validate(run.options);
    const MatrixSet set = load_source_set(run.source);
    if (set.matrices.size() != 1)
        throw std::invalid_argument(fmt::format(
            "boman2022/vanbody: matrix set '{}' has {} matrices, expected 1 (the stand-in for "
            "vanbody)",
            run.source.set, set.matrices.size()));
    json doc = make_results_document(kbench_context(run.id, run.source, set, run.machine, false));
    // boman2022's vanbody table: number of right-hand sides, restart length, total iterations.
    const std::map<int, std::pair<int, int>> paper{{5, {854, 493}},  {10, {427, 324}},
                                                   {20, {214, 198}}, {30, {142, 239}},
                                                   {40, {107, 291}}, {50, {85, 413}},
                                                   {60, {70, 215}},  {70, {61, 243}}};
    const std::vector<int> s_values{5, 10, 20, 30, 40, 50, 60, 64};
    const models::SpmvMachine figures = spmv_figures(run.machine);
    Progress progress;
    for_each_matrix(set, [&](const MatrixEntry& entry, const Csr<double>& a, std::size_t,
                             std::size_t) {
        doc["context"]["kbench"]["matrices"][entry.name] =
            matrix_context(entry, a);
        doc["context"]["kbench"]["boman2022"] = {
            {"matrix", entry.name}, {"n", a.num_rows}, {"nnz", a.nnz()},
            {"stands_for", "vanbody (n = 47,072)"}, {"tolerance", tolerance}, {"seed", rhs_seed},
            {"notes",
             {"restart = round(4270 / s) block steps, the pairing of boman2022's table (a basis "
              "of about 4270 vectors); s = 64 replaces s = 70, beyond the GPU kernels' 64 "
              "columns",
              "boman2022's total iterations are block steps (Belos counts a block step as one "
              "iteration; its s = 70 row, 243 at restart 61, rules out block steps x s); "
              "basis_vectors = block steps x s",
              "at most 600 block steps per solve (boman2022's largest count is 493)"}}};
        const std::vector<double> b = random_block(a.num_rows, s_values.back());
        Solvers solvers(Device::gpu, a, b, s_values.back(), figures, 1);
        solvers.block(false, 2, 30);  // warm-up
        for (std::size_t i = 0; i < s_values.size(); ++i) {
            const int s = s_values[i];
            const int restart = static_cast<int>(std::lround(4270.0 / s));
            progress.report(i + 1, s_values.size(), fmt::format("{} s = {}", entry.name, s));
            const Timed t = solvers.block(false, s, restart, vanbody_block_steps);
            const auto p = paper.find(s);
            doc["benchmarks"].push_back(
                {{"name", fmt::format("vanbody/{}/s={}/restart={}", entry.name, s, restart)},
                 {"figure", "vanbody"}, {"device", "gpu"}, {"matrix", entry.name},
                 {"n", a.num_rows}, {"nnz", a.nnz()}, {"s", s}, {"restart", restart},
                 {"block_steps", t.result.iterations},
                 {"basis_vectors", t.result.iterations * s},
                 {"true_residual", t.result.true_residual},
                 {"status", solvers::to_string(t.result.status)}, {"seconds", t.seconds},
                 {"paper_total_iterations",
                  p != paper.end() ? json(p->second.second) : json(nullptr)}});
        }
    });
    return doc;
}

}  // namespace kbench::harness
