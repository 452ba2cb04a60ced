// The peers study: kbench's GMRES(m) and BiCGSTAB against CuPy's and SciPy's
// (harness/studies/peers/bench_peers.hpp).
#include "harness/studies/peers/bench_peers.hpp"
#include "harness/studies/peers/peers_belos.hpp"

#include "harness/bench/solve_timing.hpp"

#include "harness/mpi/mpi_launch.hpp"  // ScratchDir
#include "harness/core/process.hpp"
#include "harness/core/progress.hpp"
#include "harness/core/results_json.hpp"
#include "harness/core/study_context.hpp"
#include "harness/core/timing.hpp"
#include "kernels/base/cuda_check.hpp"
#include "kernels/machine_probe.hpp"
#include "kernels/spmv.hpp"
#include "kernels/spmv_operator.hpp"
#include "matrices/mm_io.hpp"
#include "solvers/bicgstab.hpp"
#include "solvers/gmres.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <tuple>
#include <stdexcept>

#ifndef KBENCH_PYTHON
#define KBENCH_PYTHON "python3"
#endif

namespace kbench::harness {
namespace {

using json = nlohmann::json;

constexpr int restart = 30;                // GMRES(m)
constexpr double tolerance = 1e-8;
constexpr int gmres_max_steps = 600;       // 20 cycles: SciPy takes ~30 ms a step on 1M rows
constexpr int bicgstab_max_steps = 500;    // iterations (2 SpMVs each)
constexpr int cpu_repetitions = 1;         // SciPy: seconds per solve on 1M rows

/// A kbench solver on the GPU (time_gpu_solve): the median host wall time of `reps` whole solve
/// calls (x0 = 0) after an untimed one, and the last call's result.
json kbench_solve(const Csr<double>& a, const std::vector<double>& b, int reps,
                  const GpuSolve& solve)
{
    const TimedSolve t = time_gpu_solve(a, b, reps, solve);
    const int steps = t.last.iterations;
    return {{"steps", steps},
            {"seconds", t.seconds},
            {"seconds_per_step", steps > 0 ? json(t.seconds / steps) : json(nullptr)},
            {"true_residual", t.true_residual},
            {"status", solvers::to_string(t.last.status)},
            {"repetitions", reps}};
}

/// A peer through analysis/peer_solvers.py; an entry with "skipped" (the script's reason) when
/// its library, or the solver in it, is missing.
json peer_solve(const std::string& matrix_file, const std::string& solver,
                const std::string& backend, int max_steps, int reps, const std::string& json_file)
{
    const std::string script = std::string(KBENCH_SOURCE_DIR) + "/analysis/peer_solvers.py";
    const ProcessResult p = run_process(
        {KBENCH_PYTHON, script, "--matrix", matrix_file, "--solver", solver, "--backend", backend,
         "--restart", std::to_string(restart), "--tolerance", fmt::format("{:g}", tolerance),
         "--max-steps", std::to_string(max_steps), "--rhs", "ones", "--repetitions",
         std::to_string(reps), "--json", json_file},
        true, false);
    if (p.exit_code == 2) {
        const json why = json::parse(p.out, nullptr, /*allow_exceptions=*/false);
        return {{"skipped", why.is_object() && why.contains("skipped")
                                ? why.at("skipped").get<std::string>()
                                : fmt::format("{} is not installed", backend)}};
    }
    if (p.exit_code != 0)
        throw std::runtime_error(fmt::format("analysis/peer_solvers.py --backend {} exited with {}",
                                             backend, p.exit_code));
    json r;
    try {
        r = json::parse(p.out);
    } catch (const json::exception& e) {
        throw std::runtime_error(fmt::format("analysis/peer_solvers.py --backend {}: not JSON ({})",
                                             backend, e.what()));
    }
    const bool converged = r.value("converged", false);
    return {{"steps", r.at("steps")},
            {"spmvs", r.at("spmvs")},
            {"seconds", r.at("seconds")},
            {"seconds_per_step", r.at("seconds_per_step")},
            {"true_residual", r.at("true_residual")},
            {"status", converged ? "converged" : "max_iterations"},
            {"version", r.at("version")},
            {"step_counting", r.at("step_counting")},
            {"repetitions", reps}};
}

/// One of kbench's solvers in a family's table.
struct Ours {
    std::string key, label;
    std::function<solvers::SolveResult(spmv::SpmvOperator<double>&, const double*, double*,
                                       cudaStream_t)>
        solve;
};

/// A solver family of the peers study: kbench's variants, then the same solver of CuPy (GPU)
/// and SciPy (CPU).
struct Family {
    std::string solver;  // peer_solvers.py's name, and the entries' "figure"
    std::string label;   // e.g. "GMRES(30)"
    int max_steps;
    std::vector<Ours> ours;
    std::vector<std::string> notes;
};

json run_family(const StudyRun& run, const Family& f)
{
    validate(run.options);
    const MatrixSet set = load_source_set(run.source);
    json doc = make_results_document(kbench_context(run.id, run.source, set, run.machine, false));
    const int gpu_reps = std::max(1, std::min(run.options.repetitions, 5));
    json notes = {"b = A * ones, x0 = 0; converged: ||b - A x|| / ||b|| <= 1e-8 recomputed on "
                  "the host",
                  fmt::format("seconds: host wall time of the whole solve call (kbench: "
                              "solvers::{}, which returns after its stream finished; peers: the "
                              "library's {} call between device synchronizations), median of the "
                              "repetitions after one untimed call",
                              f.solver, f.solver)};
    for (const auto& n : f.notes) notes.push_back(n);
    doc["context"]["kbench"]["peers"] = {
        {"solver", f.solver},
        {"restart", f.solver == "gmres" ? json(restart) : json(nullptr)},
        {"tolerance", tolerance},
        {"max_steps", f.max_steps},
        {"repetitions", {{"gpu", gpu_reps}, {"cpu", cpu_repetitions}}},
        {"python", KBENCH_PYTHON},
        {"notes", notes}};
    const models::SpmvMachine figures = spmv_figures(run.machine);
    ScratchDir scratch;
    Progress progress;
    for_each_matrix(set, [&](const MatrixEntry& entry, const Csr<double>& a, std::size_t k,
                             std::size_t total) {
        doc["context"]["kbench"]["matrices"][entry.name] =
            matrix_context(entry, a);
        const std::vector<double> b = rhs_of_ones(a);
        const std::string mtx = (scratch.path / (entry.name + ".mtx")).string();
        write_matrix_market(a, mtx);
        const auto add = [&](const std::string& key, const std::string& label,
                             const std::string& device, json fields) {
            json e = {{"name", fmt::format("{}/{}/{}", f.solver, entry.name, key)},
                      {"figure", f.solver}, {"matrix", entry.name}, {"n", a.num_rows},
                      {"nnz", a.nnz()}, {"key", key}, {"implementation", label},
                      {"device", device}, {"tolerance", tolerance}};
            if (f.solver == "gmres") e["restart"] = restart;
            e.update(fields);
            doc["benchmarks"].push_back(e);
        };
        spmv::SpmvOperator<double> op(a, spmv::Policy{"auto"}, figures);
        for (const Ours& o : f.ours) {
            progress.report(k, total, entry.name + ": " + o.label);
            add(o.key, o.label, "gpu",
                kbench_solve(a, b, gpu_reps, [&](const double* db, double* dx, cudaStream_t s) {
                    return o.solve(op, db, dx, s);
                }));
        }
        for (const auto& [backend, device, reps] :
             {std::tuple<std::string, std::string, int>{"cupy", "gpu", gpu_reps},
              std::tuple<std::string, std::string, int>{"scipy", "cpu", cpu_repetitions}}) {
            const std::string label =
                fmt::format("{} {}", backend == "cupy" ? "CuPy" : "SciPy", f.solver);
            progress.report(k, total, entry.name + ": " + label);
            add(backend, label, device,
                peer_solve(mtx, f.solver, backend, f.max_steps, reps,
                           scratch.file_for(entry.name + "/" + backend)));
        }
        std::filesystem::remove(mtx);
    });
    return doc;
}

Ours gmres_variant(const std::string& key, const std::string& label, solvers::ArnoldiOrth orth)
{
    return {key, label,
            [orth](spmv::SpmvOperator<double>& op, const double* b, double* x, cudaStream_t s) {
                solvers::GmresOptions o;
                o.restart = restart;
                o.tolerance = tolerance;
                o.max_iterations = gmres_max_steps;
                o.orth = orth;
                return solvers::gmres(op, b, x, o, s);
            }};
}

Ours bicgstab_variant(const std::string& key, const std::string& label,
                      solvers::BicgstabForm form)
{
    return {key, label,
            [form](spmv::SpmvOperator<double>& op, const double* b, double* x, cudaStream_t s) {
                solvers::BicgstabOptions o;
                o.form = form;
                o.tolerance = tolerance;
                o.max_iterations = bicgstab_max_steps;
                return solvers::bicgstab(op, b, x, o, s);
            }};
}

}  // namespace

json run_peers_gmres_study(const StudyRun& run)
{
    return run_family(
        run, {"gmres",
              "GMRES(30)",
              gmres_max_steps,
              {gmres_variant("kbench_cgs2", "kbench GMRES(30) CGS2", solvers::ArnoldiOrth::cgs2),
               gmres_variant("kbench_lowsync", "kbench GMRES(30) low-sync CGS2",
                             solvers::ArnoldiOrth::cgs2_lowsync)},
              {"kbench: auto SpMV operator; CGS2 (two classical passes, a Hessenberg column to "
               "the host per step) and the one-reduce low-synchronization CGS2 (DCGS2)",
               "CuPy checks convergence only between restart cycles and runs whole cycles; SciPy "
               "and kbench stop inside a cycle (step_counting says how a peer's steps were "
               "counted)"}});
}

json run_peers_bicgstab_study(const StudyRun& run)
{
    return run_family(
        run, {"bicgstab",
              "BiCGSTAB",
              bicgstab_max_steps,
              {bicgstab_variant("kbench_merged", "kbench BiCGSTAB merged",
                                solvers::BicgstabForm::merged),
               bicgstab_variant("kbench_graph", "kbench BiCGSTAB graph",
                                solvers::BicgstabForm::graph)},
              {"kbench: auto SpMV operator; merged: five fused kernels, one 32-byte state copy to "
               "the host per iteration; graph: the merged iteration in a CUDA graph with a "
               "conditional WHILE node, the host waits once per solve",
               "kbench stops on its recurrence residual (||r_i|| / ||b|| <= 1e-8); SciPy's "
               "bicgstab on its own residual (rtol, atol = 0); the true residual of each is "
               "recomputed on the host",
               "steps: iterations (two products A v each)"}});
}

}  // namespace kbench::harness
