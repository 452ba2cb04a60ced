// GMRES(m) solves on one GPU over a matrix set (declarations in bench_gmres.hpp).
#include "harness/bench/bench_gmres.hpp"

#include "harness/bench/solve_timing.hpp"
#include "harness/core/progress.hpp"
#include "harness/core/results_json.hpp"
#include "kernels/machine_probe.hpp"
#include "kernels/spmv.hpp"
#include "kernels/spmv_operator.hpp"
#include "matrices/matrix_set.hpp"

#include <fmt/format.h>

#include <optional>
#include <regex>
#include <stdexcept>

namespace kbench::harness {

nlohmann::json run_gmres_solves(const GmresRunOptions& o, const std::string& id,
                                const MachineProfile* machine)
{
    if (o.repetitions < 1)
        throw std::invalid_argument("GMRES runs: repetitions = " + std::to_string(o.repetitions) +
                                    ", expected >= 1");
    const std::optional<std::regex> filter = compile_filter(o.filter);
    const MatrixSet set = load_source_set(o.source);
    nlohmann::json doc = make_results_document(kbench_context(id, o.source, set, machine, false));
    nlohmann::json orths = nlohmann::json::array();
    for (const auto orth : o.orths) orths.push_back(solvers::to_string(orth));
    doc["context"]["kbench"]["gmres"] = {{"orths", orths},
                                         {"spmv", o.spmv},
                                         {"restart", o.solve.restart},
                                         {"tolerance", o.solve.tolerance},
                                         {"max_iterations", o.solve.max_iterations},
                                         {"timing_mode", o.solve.timing_mode},
                                         {"repetitions", o.repetitions},
                                         {"rhs", "b = A * ones, x0 = 0"}};
    const models::SpmvMachine figures = spmv_figures(machine);
    Progress progress;
    for_each_matrix(set, [&](const MatrixEntry& entry, const Csr<double>& a, std::size_t k,
                             std::size_t total) {
        doc["context"]["kbench"]["matrices"][entry.name] =
            matrix_context(entry, a);
        const std::vector<double> b = rhs_of_ones(a);
        std::optional<spmv::SpmvOperator<double>> op;  // built when a solve of this matrix runs
        for (const auto orth : o.orths) {
            const std::string name = fmt::format("gmres/{}/{}/{}", solvers::to_string(orth),
                                                 o.spmv, entry.name);
            if (filter && !std::regex_search(name, *filter)) continue;
            if (!op) op.emplace(a, spmv::Policy{o.spmv}, figures);
            progress.report(k, total, name);
            solvers::GmresOptions so = o.solve;
            so.orth = orth;
            const TimedSolve t = time_gpu_solve(
                a, b, o.repetitions, [&](const double* db, double* dx, cudaStream_t s) {
                    return solvers::gmres(*op, db, dx, so, s);
                });
            const int steps = t.last.iterations;
            doc["benchmarks"].push_back(
                {{"name", name},
                 {"orth", solvers::to_string(orth)},
                 {"spmv", spmv::choice_summary(op->choice())},
                 {"matrix", entry.name},
                 {"n", a.num_rows},
                 {"nnz", a.nnz()},
                 {"restart", so.restart},
                 {"status", solvers::to_string(t.last.status)},
                 {"steps", steps},
                 {"seconds", t.seconds},
                 {"seconds_per_step",
                  steps > 0 ? nlohmann::json(t.seconds / steps) : nlohmann::json(nullptr)},
                 {"true_residual", t.true_residual},
                 {"repetitions", t.repetitions}});
        }
    });
    return doc;
}

void print_gmres_summary(const nlohmann::json& doc)
{
    fmt::print("{:<60} {:>16} {:>6} {:>10} {:>12}\n", "solve", "status", "steps", "true res",
               "us/step");
    for (const auto& b : doc.at("benchmarks")) {
        const auto& per_step = b.at("seconds_per_step");
        fmt::print("{:<60} {:>16} {:>6} {:>10.2e} {:>12}\n", b.value("name", ""),
                   b.value("status", ""), b.value("steps", 0), b.value("true_residual", 0.0),
                   per_step.is_number() ? fmt::format("{:.1f}", per_step.get<double>() * 1e6)
                                        : std::string("-"));
    }
}

}  // namespace kbench::harness
