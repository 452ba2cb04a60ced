// anzt2015, BiCGSTAB part (Sec. 4.5): Table 4 (the cuBLAS reference's time split per matrix over
// 1000 iterations), Table 5 (the merged form's improvement split into kernel fusion and SpMV
// format, double and single precision) and Fig. 11 (the improvement the models of eqs. 2, 4 and
// 5 predict next to the measured one). One run serves all three: timing-mode solves of the
// reference (cuSPARSE CSR), merged (cuSPARSE CSR and auto) and graph (auto) forms, detailed runs
// of reference/CSR and merged/auto for the profiles, the dot-sequence savings F(n) refitted on
// this GPU, and per matrix and precision an entry of kind "prediction":
//   spmv_fraction, dot_fraction   reference profile: T_SpMV / T, T_dot / T (Table 4)
//   zeta_m                        1 - T_SpMV(merged, auto) / T_SpMV(reference, cuSPARSE CSR)
//   dot_savings {paper, refit}    F(n) of eq. 3 with the paper's and this GPU's parameters
//   predicted {memory, memory_dot, memory_dot_spmv}   eqs. 2, 4, 5 (refit F when available)
//   predicted_paper_fit {memory_dot, memory_dot_spmv} eqs. 4, 5 with the paper's F
//   measured {fusion, total, spmv, graph_total}       1 - T / T(reference, CSR) per iteration
#include "harness/bench/bench_bicgstab.hpp"
#include "harness/studies/anzt2015/bench_vector_kernels.hpp"
#include "harness/core/study.hpp"
#include "models/bicgstab_model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <stdexcept>
#include <tuple>

namespace kbench::harness {
namespace {

using solvers::BicgstabForm;

constexpr int iterations = 1000;      // anzt2015 Sec. 4.5: profiles of 1000 iterations
constexpr int max_repetitions = 3;    // timed solves per configuration (median), at most

/// Vector lengths of the dot-sequence sweep that refits F(n) (anzt2015 Fig. 10's range).
std::vector<std::int64_t> savings_lengths()
{
    std::vector<std::int64_t> ns;
    for (double e = 3.0; e <= 8.0 + 1e-9; e += 0.5)
        ns.push_back(static_cast<std::int64_t>(std::llround(std::pow(10.0, e))));
    return ns;
}

nlohmann::json fit_json(const models::DotSavingsFit& f)
{
    return {{"a", f.a}, {"b", f.b}, {"c", f.c}};
}

/// Measures the dot-sequence savings and refits F(n); stores both fits in the context.
std::optional<models::DotSavingsFit> refit_dot_savings(const StudyRun& run, nlohmann::json& doc)
{
    std::vector<std::pair<double, double>> points;
    nlohmann::json pts = nlohmann::json::array();
    for (const DotSequenceTiming& t : measure_dot_sequence(
             savings_lengths(), std::min(run.options.repetitions, 5), run.options.min_time)) {
        points.emplace_back(static_cast<double>(t.n), t.savings);
        pts.push_back({t.n, t.savings});
    }
    nlohmann::json fit = {{"paper", fit_json(models::DotSavingsFit{})}, {"points", pts}};
    std::optional<models::DotSavingsFit> refit;
    try {
        refit = models::fit_dot_savings(points);
        fit["refit"] = fit_json(*refit);
    } catch (const std::invalid_argument& e) {
        fit["refit"] = {{"error", e.what()}};
    }
    doc["context"]["kbench"]["dot_savings_fit"] = fit;
    return refit;
}

/// The prediction entries (see the file comment), one per (precision, matrix) with both profiles.
void add_predictions(nlohmann::json& doc, const std::optional<models::DotSavingsFit>& refit)
{
    using Key = std::tuple<std::string, std::string, std::string>;  // kind+form/policy, prec, matrix
    std::map<Key, const nlohmann::json*> by;
    std::vector<std::pair<std::string, std::string>> cases;  // (precision, matrix) in run order
    for (const auto& e : doc["benchmarks"]) {
        const std::string what = e.value("kind", "") + "/" + e.value("form", "") + "/" +
                                 e["spmv"].value("policy", "");
        const auto prec = e.value("precision", ""), matrix = e.value("matrix", "");
        by[{what, prec, matrix}] = &e;
        if (std::find(cases.begin(), cases.end(), std::make_pair(prec, matrix)) == cases.end())
            cases.emplace_back(prec, matrix);
    }
    nlohmann::json predictions = nlohmann::json::array();
    for (const auto& [prec, matrix] : cases) {
        auto find = [&](const std::string& what) -> const nlohmann::json* {
            const auto it = by.find({what, prec, matrix});
            return it == by.end() ? nullptr : it->second;
        };
        const nlohmann::json* ref_profile = find("phases/reference/cusparse_csr");
        const nlohmann::json* auto_profile = find("phases/merged/auto");
        if (ref_profile == nullptr || !((*ref_profile)["seconds"].get<double>() > 0.0)) continue;
        const double total = (*ref_profile)["seconds"];
        const auto& groups = (*ref_profile)["groups"];
        const double spmv = groups.value("spmv", 0.0) / total, dot = groups.value("dot", 0.0) / total;
        const double n = (*ref_profile)["n"].get<double>();
        nlohmann::json p = {{"kind", "prediction"},
                            {"name", fmt::format("bicgstab-model/{}/{}", prec, matrix)},
                            {"precision", prec},
                            {"matrix", matrix},
                            {"n", (*ref_profile)["n"]},
                            {"spmv_fraction", spmv},
                            {"dot_fraction", dot},
                            {"zeta_m", nullptr}};
        // zeta_M from the SpMV time per call of the two detailed runs (their iteration counts
        // differ when one stopped at a breakdown).
        double zeta = 0.0;
        if (auto_profile != nullptr) {
            const double it_ref = (*ref_profile)["iterations"].get<double>();
            const double it_auto = (*auto_profile)["iterations"].get<double>();
            const double ref_spmv = groups.value("spmv", 0.0) / std::max(1.0, it_ref);
            const double auto_spmv =
                (*auto_profile)["groups"].value("spmv", 0.0) / std::max(1.0, it_auto);
            if (ref_spmv > 0.0) {
                zeta = 1.0 - auto_spmv / ref_spmv;
                p["zeta_m"] = zeta;
            }
        }
        const models::DotSavingsFit paper{};
        const models::DotSavingsFit& fit = refit ? *refit : paper;
        const double eta = models::eta_memory();
        p["dot_savings"] = {{"paper", models::dot_savings(n, paper)},
                            {"refit", refit ? nlohmann::json(models::dot_savings(n, *refit))
                                            : nlohmann::json(nullptr)}};
        p["predicted"] = {{"memory", models::p_memory(spmv, dot)},
                          {"memory_dot", models::p_memory_dot(spmv, dot, n, eta, fit)},
                          {"memory_dot_spmv",
                           models::p_memory_dot_spmv(spmv, dot, n, std::min(zeta, 1.0), eta, fit)}};
        p["predicted_paper_fit"] = {
            {"memory_dot", models::p_memory_dot(spmv, dot, n, eta, paper)},
            {"memory_dot_spmv", models::p_memory_dot_spmv(spmv, dot, n, std::min(zeta, 1.0), eta,
                                                          paper)}};
        auto per_iteration = [&](const std::string& what) -> std::optional<double> {
            const nlohmann::json* e = find(what);
            if (e == nullptr || !((*e)["seconds_per_iteration"].get<double>() > 0.0))
                return std::nullopt;
            return (*e)["seconds_per_iteration"].get<double>();
        };
        const auto ref = per_iteration("solve/reference/cusparse_csr");
        const auto merged_csr = per_iteration("solve/merged/cusparse_csr");
        const auto merged_auto = per_iteration("solve/merged/auto");
        const auto graph_auto = per_iteration("solve/graph/auto");
        auto gain = [&](const std::optional<double>& t) {
            return ref && t ? nlohmann::json(1.0 - *t / *ref) : nlohmann::json(nullptr);
        };
        nlohmann::json measured = {{"fusion", gain(merged_csr)},
                                   {"total", gain(merged_auto)},
                                   {"graph_total", gain(graph_auto)},
                                   {"spmv", nullptr}};
        if (ref && merged_csr && merged_auto)
            measured["spmv"] = (*merged_csr - *merged_auto) / *ref;  // total - fusion
        p["measured"] = measured;
        predictions.push_back(std::move(p));
    }
    for (auto& p : predictions) doc["benchmarks"].push_back(std::move(p));
}

/// The shared run; an id selected after another of the three reuses that one's document.
nlohmann::json run_profile(const StudyRun& run)
{
    if (run.derive_from_results != nullptr) {
        return derived_results(run);
    }
    BicgstabRunOptions o;
    o.source = run.source;
    o.configs = {{BicgstabForm::reference, "cusparse_csr", true},
                 {BicgstabForm::merged, "cusparse_csr", false},
                 {BicgstabForm::merged, "auto", true},
                 {BicgstabForm::graph, "auto", false}};
    o.precisions = {"double", "float"};
    o.solve.timing_mode = true;
    o.solve.max_iterations = iterations;
    o.repetitions = std::min(run.options.repetitions, max_repetitions);
    o.cpu_baseline = false;
    o.residual_history = false;  // timing runs: the histories say nothing here (and weigh MBs)
    nlohmann::json doc = run_bicgstab_study(o, run.id, run.machine);
    add_predictions(doc, refit_dot_savings(run, doc));
    return doc;
}

constexpr const char* profile_note =
    " (1000-iteration timing runs, at most 3 timed solves each; shares one run with the other "
    "BiCGSTAB ids)";

const StudyRegistrar registrar{
    {"anzt2015/table5",
     std::string{"anzt2015 Table 5: BiCGSTAB gain of the merged and graph forms over the cuBLAS "
                 "reference, split into kernel fusion and SpMV format, double and single"} +
         profile_note,
     "anzt2015", StudyNeeds{1, false, false}, "", run_profile},
    {"anzt2015/table4",
     std::string{"anzt2015 Table 4: time split of the cuBLAS-reference BiCGSTAB (SpMV, dots, "
                 "p/s/x+r updates) and of the merged form"} +
         profile_note,
     "anzt2015", StudyNeeds{1, false, false}, "anzt2015/table5", run_profile},
    {"anzt2015/fig11",
     std::string{"anzt2015 Fig. 11: predicted (eqs. 2, 4, 5; F(n) refitted here) vs measured "
                 "BiCGSTAB gain per matrix, by SpMV+dot share"} +
         profile_note,
     "anzt2015", StudyNeeds{1, false, false}, "anzt2015/table5", run_profile},
};

}  // namespace
}  // namespace kbench::harness
