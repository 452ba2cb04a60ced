// The peers study: kbench's GMRES(m) against CuPy's and SciPy's (harness/studies/peers/bench_peers.hpp).
#include "harness/studies/peers/bench_peers.hpp"
#include "harness/studies/peers/peers_belos.hpp"

#include "harness/mpi/mpi_launch.hpp"  // ScratchDir
#include "harness/core/process.hpp"
#include "harness/core/progress.hpp"
#include "harness/core/results_json.hpp"
#include "harness/core/study_context.hpp"
#include "harness/core/timing.hpp"
#include "kernels/base/cuda_check.hpp"
#include "kernels/base/device_buffer.hpp"
#include "kernels/machine_probe.hpp"
#include "kernels/spmv.hpp"
#include "kernels/spmv_operator.hpp"
#include "matrices/mm_io.hpp"
#include "solvers/gmres.hpp"
#include "solvers/orthogonalization/gpu_context.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <stdexcept>

#ifndef KBENCH_PYTHON
#define KBENCH_PYTHON "python3"
#endif

namespace kbench::harness {
namespace {

using json = nlohmann::json;

constexpr int restart = 30;
constexpr double tolerance = 1e-8;
constexpr int max_steps = 600;  // 20 cycles: SciPy takes ~30 ms a step on 1M rows
constexpr int cpu_repetitions = 1;  // SciPy: seconds per solve on 1M rows

/// kbench GMRES(m) on the GPU: the median host wall time of `reps` whole solve calls (x0 = 0)
/// after an untimed one, and the last call's result.
json kbench_gmres(const Csr<double>& a, const std::vector<double>& b,
                  spmv::SpmvOperator<double>& op, solvers::ArnoldiOrth orth, int reps)
{
    ortho::GpuContext ctx;
    const auto n = static_cast<std::size_t>(a.num_rows);
    device_buffer<double> db(b), dx(n);
    solvers::GmresOptions o;
    o.restart = restart;
    o.tolerance = tolerance;
    o.max_iterations = max_steps;
    o.orth = orth;
    solvers::SolveResult last;
    std::vector<double> seconds;
    for (int r = 0; r <= reps; ++r) {
        KBENCH_CUDA_CHECK(cudaMemsetAsync(dx.data(), 0, sizeof(double) * n, ctx.stream));
        KBENCH_CUDA_CHECK(cudaStreamSynchronize(ctx.stream));
        const auto t0 = std::chrono::steady_clock::now();
        last = solvers::gmres(op, db.data(), dx.data(), o, ctx.stream);
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (r > 0) seconds.push_back(s);  // r = 0: untimed (first launches, allocations)
    }
    const double t = median(seconds);
    const std::vector<double> x = dx.to_host();
    return {{"steps", last.iterations},
            {"seconds", t},
            {"seconds_per_step", last.iterations > 0 ? json(t / last.iterations) : json(nullptr)},
            {"true_residual", peers::largest_relative_residual(a, 1, b, x)},
            {"status", solvers::to_string(last.status)},
            {"repetitions", reps}};
}

/// A peer through analysis/peer_solvers.py; an entry with "skipped" when its library is missing.
json peer_gmres(const std::string& matrix_file, const std::string& backend, int reps,
                const std::string& json_file)
{
    const std::string script = std::string(KBENCH_SOURCE_DIR) + "/analysis/peer_solvers.py";
    const ProcessResult p = run_process(
        {KBENCH_PYTHON, script, "--matrix", matrix_file, "--solver", "gmres", "--backend", backend,
         "--restart", std::to_string(restart), "--tolerance", fmt::format("{:g}", tolerance),
         "--max-steps", std::to_string(max_steps), "--rhs", "ones", "--repetitions",
         std::to_string(reps), "--json", json_file},
        true, false);
    if (p.exit_code == 2) return {{"skipped", fmt::format("{} is not installed", backend)}};
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

}  // namespace

json run_peers_gmres_study(const StudyRun& run)
{
    validate(run.options);
    const MatrixSet set = load_source_set(run.source);
    json doc = make_results_document(kbench_context(run.id, run.source, set, run.machine, false));
    const int gpu_reps = std::max(1, std::min(run.options.repetitions, 5));
    doc["context"]["kbench"]["peers"] = {
        {"restart", restart},
        {"tolerance", tolerance},
        {"max_steps", max_steps},
        {"repetitions", {{"gpu", gpu_reps}, {"cpu", cpu_repetitions}}},
        {"python", KBENCH_PYTHON},
        {"notes",
         {"b = A * ones, x0 = 0; converged: ||b - A x|| / ||b|| <= 1e-8 recomputed on the host",
          "seconds: host wall time of the whole solve call (kbench: solvers::gmres, which "
          "returns after its stream finished; peers: the library's gmres call between device "
          "synchronizations), median of the repetitions after one untimed call",
          "kbench: auto SpMV operator; CGS2 (two classical passes, a Hessenberg column to the "
          "host per step) and the one-reduce low-synchronization CGS2 (DCGS2)",
          "CuPy checks convergence only between restart cycles and runs whole cycles; SciPy "
          "and kbench stop inside a cycle (step_counting says how a peer's steps were counted)"}}};
    const models::SpmvMachine figures =
        run.machine != nullptr ? run.machine->spmv : spmv::machine_figures();
    ScratchDir scratch;
    Progress progress;
    for_each_matrix(set, [&](const MatrixEntry& entry, const Csr<double>& a, std::size_t k,
                             std::size_t total) {
        doc["context"]["kbench"]["matrices"][entry.name] =
            matrix_context(entry, a, spmv::resolve_sellp_params(a.view(), SellpParams{0, 0, 0, 0}));
        std::vector<double> b(static_cast<std::size_t>(a.num_rows));
        const std::vector<double> ones(static_cast<std::size_t>(a.num_cols), 1.0);
        spmv::reference::csr(a.view(), 1.0, ones.data(), 0.0, b.data());
        const std::string mtx = (scratch.path / (entry.name + ".mtx")).string();
        write_matrix_market(a, mtx);
        const auto add = [&](const std::string& key, const std::string& label,
                             const std::string& device, json fields) {
            json e = {{"name", fmt::format("gmres/{}/{}", entry.name, key)},
                      {"figure", "gmres"}, {"matrix", entry.name}, {"n", a.num_rows},
                      {"nnz", a.nnz()}, {"key", key}, {"implementation", label},
                      {"device", device}, {"restart", restart}, {"tolerance", tolerance}};
            e.update(fields);
            doc["benchmarks"].push_back(e);
        };
        spmv::SpmvOperator<double> op(a, spmv::Policy{"auto"}, figures);
        progress.report(k, total, entry.name + ": kbench GMRES(30) CGS2");
        add("kbench_cgs2", "kbench GMRES(30) CGS2", "gpu",
            kbench_gmres(a, b, op, solvers::ArnoldiOrth::cgs2, gpu_reps));
        progress.report(k, total, entry.name + ": kbench GMRES(30) low-sync CGS2");
        add("kbench_lowsync", "kbench GMRES(30) low-sync CGS2", "gpu",
            kbench_gmres(a, b, op, solvers::ArnoldiOrth::cgs2_lowsync, gpu_reps));
        progress.report(k, total, entry.name + ": CuPy gmres");
        add("cupy", "CuPy gmres", "gpu",
            peer_gmres(mtx, "cupy", gpu_reps, scratch.file_for(entry.name + "/cupy")));
        progress.report(k, total, entry.name + ": SciPy gmres");
        add("scipy", "SciPy gmres", "cpu",
            peer_gmres(mtx, "scipy", cpu_repetitions, scratch.file_for(entry.name + "/scipy")));
        std::filesystem::remove(mtx);
    });
    return doc;
}

}  // namespace kbench::harness
