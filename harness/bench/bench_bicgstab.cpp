// BiCGSTAB solves over a matrix set; see harness/bench/bench_bicgstab.hpp.
#include "harness/bench/bench_bicgstab.hpp"

#include "harness/core/op_cost.hpp"
#include "harness/core/progress.hpp"
#include "harness/core/results_json.hpp"
#include "harness/core/timing.hpp"
#include "kernels/base/cuda_handles.hpp"
#include "kernels/base/device_buffer.hpp"
#include "kernels/machine_probe.hpp"
#include "kernels/spmv_operator.hpp"
#include "matrices/matrix_set.hpp"
#include "matrices/sellp.hpp"
#include "models/bicgstab_model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <cmath>
#include <optional>
#include <regex>
#include <stdexcept>

namespace kbench::harness {
namespace {

/// ||x - 1||_inf of a solution of A x = A * ones.
template <typename T>
double error_from_ones(const std::vector<T>& x)
{
    double err = 0.0;
    for (const T v : x) err = std::max(err, std::abs(double(v) - 1.0));
    return err;
}

/// The absolute time model and the memory lower bound of one iteration of `form` with operator
/// `op` (anzt2015 Table 1 bytes; models::iteration_time, the launch pipeline), both per
/// iteration in seconds. An SpMV's device time is the operator's measured back-to-back device
/// time less the stream's gap (the pipeline adds it): this model prices the iteration around
/// its SpMVs, and the SpMV time model, scored on its own in table3, stays out of it (its launch
/// term, an isolated product's floor, is no graph node's time). The host costs are measured
/// at the system's size, on the calls the form makes (harness/core/op_cost.hpp): `f`, cuBLAS's
/// launch figures for the reference and kbench's for the others (the caller's, measured once per
/// system and precision), and the operator's SpMV enqueue time, measured here; the fixed costs,
/// the graph node, the graph's WHILE loop and the round trip come from the machine profile. The
/// reference's cuBLAS calls take their device times measured at the system's size (`calls`, the
/// caller's, measured once per system and precision; null for the other forms). The model entry
/// records them.
template <typename T>
void add_model(nlohmann::json& entry, solvers::BicgstabForm form, spmv::SpmvOperator<T>& op,
               const MachineProfile& m, const LaunchFigures& f, const CublasCallTimes* calls,
               const T* x, T* y, cudaStream_t stream)
{
    if (!(m.read_gbps > 0.0) || !(m.triad_gbps > 0.0)) return;
    const models::Traffic traffic = op.traffic(false);
    const double spmv_bytes = traffic.bytes_read + traffic.bytes_written;
    const std::int64_t n = op.num_rows();
    const bool reference = form == solvers::BicgstabForm::reference;
    const OpCost apply =
        measure_op_cost([&](cudaStream_t s) { op.apply(T{1}, x, T{0}, y, s); }, stream);
    const double stream_gap_us = std::max(0.0, f.stream_node_us - m.graph_node_us);
    const double spmv_s = 1e-6 * std::max(0.0, apply.device_us - stream_gap_us);
    const double spmv_launch_us = apply.host_us;
    models::BicgstabMachine machine;
    machine.bw_bytes_per_s = m.triad_gbps * 1e9;
    models::LaunchCosts profile;
    profile.sync_s = m.launch_sync_roundtrip_us * 1e-6;
    profile.kernel_fixed_s = m.kernel_fixed_us * 1e-6;
    profile.reduction_fixed_s = m.reduction_fixed_us * 1e-6;
    profile.node_s = m.graph_node_us * 1e-6;
    machine.launch = with_launch_figures(profile, f);
    machine.spmv_launch_s = spmv_launch_us * 1e-6;
    machine.graph_iteration_s = m.graph_while_iteration_us * 1e-6;
    if (calls != nullptr)
        machine.reference_calls = {1e-6 * calls->axpy_us, 1e-6 * calls->scal_us,
                                   1e-6 * calls->copy_us, 1e-6 * calls->dot_us,
                                   1e-6 * calls->dot_self_us, 1e-6 * calls->nrm2_us};
    const models::SolverForm model_form =
        reference                               ? models::SolverForm::cublas_reference
        : form == solvers::BicgstabForm::merged ? models::SolverForm::merged
                                                : models::SolverForm::merged_graph;
    const auto t = models::iteration_time(model_form, n, sizeof(T), machine, spmv_s, spmv_s);
    entry["model"] = {{"seconds_per_iteration", t.total_s}, {"spmv_s", t.spmv_s},
                      {"dots_s", t.dots_s},  {"updates_s", t.updates_s},
                      {"check_s", t.check_s}, {"host_s", t.host_s},
                      {"spmv_source", "measured"},
                      {"launch_figures", f}};
    entry["model"]["launch_figures"].update(
        {{"source", reference ? "cublas" : "kbench"}, {"spmv_us", spmv_launch_us}});
    if (calls != nullptr) entry["model"]["cublas_call_us"] = *calls;
    const models::BicgstabVariant variant =
        reference ? models::BicgstabVariant::reference : models::BicgstabVariant::merged;
    entry["lower_bound_seconds_per_iteration"] =
        models::iteration_bytes(variant, n, sizeof(T), spmv_bytes) / (m.read_gbps * 1e9);
}

/// Table 4 columns: seconds of each phase group summed over the iterations.
nlohmann::json phase_groups(const std::vector<solvers::PhaseTime>& phases)
{
    nlohmann::json groups = {{"spmv", 0.0},     {"dot", 0.0},       {"p_update", 0.0},
                             {"s_update", 0.0}, {"xr_update", 0.0}, {"check", 0.0}};
    for (const auto& p : phases) groups[p.group] = groups.value(p.group, 0.0) + p.seconds;
    return groups;
}

template <typename T>
void run_precision(const BicgstabRunOptions& o, const std::optional<std::regex>& filter,
                   const MachineProfile* machine, const models::SpmvMachine& figures,
                   const MatrixEntry& entry, const Csr<double>& a64, const std::string& precision,
                   nlohmann::json& doc, Progress& progress, std::size_t k, std::size_t total)
{
    const Csr<T> a = a64.cast<T>();
    const std::size_t n = static_cast<std::size_t>(a.num_rows);
    const nlohmann::json size = {{"n", a.num_rows}, {"nnz", a.nnz()}};
    // b = A * ones in double, rounded to T: the solution is all ones up to that rounding.
    std::vector<T> b(n);
    for (std::size_t i = 0; i < n; ++i) {
        double s = 0.0;
        for (index_type j = a64.row_ptr[i]; j < a64.row_ptr[i + 1]; ++j) s += a64.values[j];
        b[i] = static_cast<T>(s);
    }
    if (o.cpu_baseline) {
        const std::string name = fmt::format("bicgstab/cpu/eigen/{}/{}", precision, entry.name);
        if (!filter || std::regex_search(name, *filter)) {
            std::vector<T> x(n, T{0});
            progress.report(k, total, name);
            const solvers::SolveResult r = solvers::bicgstab_cpu(a, b, x, o.solve);
            nlohmann::json e = {
                {"kind", "solve"}, {"name", name}, {"form", "cpu"},
                {"spmv", {{"policy", "eigen"}}}, {"precision", precision},
                {"matrix", entry.name}, {"status", to_string(r.status)}, {"detail", r.detail},
                {"iterations", r.iterations}, {"true_residual", r.true_residual},
                {"error", error_from_ones(x)}, {"seconds", r.seconds},
                {"seconds_per_iteration", r.seconds_per_iteration()}, {"repetitions", 1}};
            e.update(size);
            doc["benchmarks"].push_back(std::move(e));
        }
    }
    device_buffer<T> db(b), dx(n);
    cuda_stream stream;
    std::map<std::string, spmv::SpmvOperator<T>> ops;  // one operator per policy
    // The model's launch figures, measured at the first configuration that needs them.
    std::optional<LaunchFigures> kbench_figures, cublas_figures;
    std::optional<CublasCallTimes> cublas_calls;
    for (const BicgstabConfig& config : o.configs) {
        const std::string name = fmt::format("bicgstab/{}/{}/{}/{}", solvers::to_string(config.form),
                                             config.spmv, precision, entry.name);
        if (filter && !std::regex_search(name, *filter)) continue;
        auto it = ops.find(config.spmv);
        if (it == ops.end())
            it = ops.emplace(config.spmv,
                             spmv::SpmvOperator<T>(a, spmv::Policy{config.spmv}, figures)).first;
        spmv::SpmvOperator<T>& op = it->second;
        const nlohmann::json spmv_json = spmv::choice_summary(op.choice());
        progress.report(k, total, name);
        solvers::BicgstabOptions so = o.solve;
        so.form = config.form;
        auto solve = [&](const solvers::BicgstabOptions& opts) {
            KBENCH_CUDA_CHECK(cudaMemset(dx.data(), 0, dx.bytes()));
            return solvers::bicgstab(op, db.data(), dx.data(), opts, stream);
        };
        {  // warm-up: module loading, cuBLAS/cuSPARSE first calls; a few iterations suffice
            solvers::BicgstabOptions warm = so;
            warm.max_iterations = std::min(so.max_iterations, 10);
            solve(warm);
        }
        std::vector<double> seconds, per_iteration;
        solvers::SolveResult first;
        for (int rep = 0; rep < o.repetitions; ++rep) {
            solvers::SolveResult r = solve(so);
            seconds.push_back(r.seconds);
            per_iteration.push_back(r.seconds_per_iteration());
            if (rep == 0) first = std::move(r);
        }
        // Fields every entry of this configuration has: what ran, on what, how it ended.
        auto entry_of = [&](const char* kind, const std::string& entry_name,
                            const solvers::SolveResult& r) {
            nlohmann::json j = {{"kind", kind},
                                {"name", entry_name},
                                {"form", solvers::to_string(config.form)},
                                {"spmv", spmv_json},
                                {"precision", precision},
                                {"matrix", entry.name},
                                {"status", to_string(r.status)},
                                {"detail", r.detail},
                                {"iterations", r.iterations}};
            j.update(size);
            return j;
        };
        nlohmann::json e = entry_of("solve", name, first);
        e.update({{"timing_mode", first.timing_mode},
                  {"true_residual", first.true_residual},
                  {"error", error_from_ones(dx.to_host())},
                  {"seconds", median(seconds)},
                  {"seconds_per_iteration", median(per_iteration)},
                  {"repetitions", o.repetitions}});
        if (o.residual_history) e["residual_history"] = first.residual_history;
        if (machine != nullptr) {
            const bool reference = config.form == solvers::BicgstabForm::reference;
            std::optional<LaunchFigures>& f = reference ? cublas_figures : kbench_figures;
            if (!f)
                f = reference ? measure_cublas_launch_figures<T>(a.num_rows, stream)
                              : measure_launch_figures(a.num_rows, stream);
            if (reference && !cublas_calls) {
                // Between two uses of a vector the reference iteration moves its own bytes.
                const models::Traffic t = op.traffic(false);
                cublas_calls = measure_cublas_call_times<T>(
                    a.num_rows,
                    models::iteration_bytes(models::BicgstabVariant::reference, a.num_rows,
                                            sizeof(T), t.bytes_read + t.bytes_written),
                    stream);
            }
            add_model(e, config.form, op, *machine, *f, reference ? &*cublas_calls : nullptr,
                      db.data(), dx.data(), stream);
        }
        doc["benchmarks"].push_back(std::move(e));

        if (!config.detailed || config.form == solvers::BicgstabForm::graph) continue;
        solvers::BicgstabOptions detailed = so;
        detailed.detailed = true;
        const solvers::SolveResult r = solve(detailed);
        nlohmann::json phases = nlohmann::json::array();
        double sum = 0.0;
        for (const auto& p : r.phases) {
            phases.push_back({{"name", p.name}, {"group", p.group}, {"seconds", p.seconds},
                              {"calls", p.calls}});
            sum += p.seconds;
        }
        nlohmann::json d = entry_of("phases",
                                    fmt::format("bicgstab-phases/{}/{}/{}/{}",
                                                solvers::to_string(config.form), config.spmv,
                                                precision, entry.name),
                                    r);
        d.update({{"seconds", sum},
                  {"loop_seconds", r.seconds},
                  {"phases", std::move(phases)},
                  {"groups", phase_groups(r.phases)}});
        doc["benchmarks"].push_back(std::move(d));
    }
}

}  // namespace

std::vector<BicgstabConfig> cross_configs(const std::vector<solvers::BicgstabForm>& forms,
                                          const std::vector<std::string>& spmv_policies,
                                          bool detailed)
{
    std::vector<BicgstabConfig> configs;
    for (const auto& policy : spmv_policies)
        for (const auto form : forms)
            configs.push_back({form, policy, detailed && form != solvers::BicgstabForm::graph});
    return configs;
}

nlohmann::json run_bicgstab_study(const BicgstabRunOptions& o, const std::string& id,
                                  const MachineProfile* machine)
{
    if (o.repetitions < 1)
        throw std::invalid_argument("BiCGSTAB runs: repetitions = " +
                                    std::to_string(o.repetitions) + ", expected >= 1");
    std::optional<std::regex> filter = compile_filter(o.filter);
    const MatrixSet set = load_source_set(o.source);
    nlohmann::json doc = make_results_document(kbench_context(id, o.source, set, machine, false));
    doc["context"]["kbench"]["bicgstab"] = {{"precisions", o.precisions},
                                            {"iterations", o.solve.timing_mode
                                                               ? nlohmann::json(o.solve.max_iterations)
                                                               : nlohmann::json(nullptr)},
                                            {"tolerance", o.solve.tolerance},
                                            {"max_iterations", o.solve.max_iterations},
                                            {"timing_mode", o.solve.timing_mode},
                                            {"stagnation_window", o.solve.stagnation_window},
                                            {"repetitions", o.repetitions},
                                            {"rhs", "b = A * ones, x0 = 0"}};
    const models::SpmvMachine figures = spmv_figures(machine);
    Progress progress;
    for_each_matrix(set, [&](const MatrixEntry& entry, const Csr<double>& a, std::size_t k,
                             std::size_t total) {
        doc["context"]["kbench"]["matrices"][entry.name] =
            matrix_context(entry, a);
        for (const auto& p : o.precisions) {
            if (p == "double")
                run_precision<double>(o, filter, machine, figures, entry, a, p, doc, progress, k,
                                      total);
            else
                run_precision<float>(o, filter, machine, figures, entry, a, p, doc, progress, k,
                                     total);
        }
    });
    return doc;
}

void print_bicgstab_summary(const nlohmann::json& doc)
{
    fmt::print("{:<60} {:>14} {:>6} {:>10} {:>10} {:>10} {:>10}\n", "solve", "status", "iter",
               "true res", "error", "us/iter", "model");
    for (const auto& b : doc.at("benchmarks")) {
        if (b.value("kind", "") != "solve") continue;
        const double model =
            b.contains("model") ? b["model"].value("seconds_per_iteration", 0.0) * 1e6 : 0.0;
        fmt::print("{:<60} {:>14} {:>6} {:>10.2e} {:>10.2e} {:>10.2f} {:>10}\n",
                   b.value("name", ""), b.value("status", ""), b.value("iterations", 0),
                   b.value("true_residual", 0.0), b.value("error", 0.0),
                   b.value("seconds_per_iteration", 0.0) * 1e6,
                   model > 0.0 ? fmt::format("{:.2f}", model) : "-");
    }
    bool header = false;
    for (const auto& b : doc.at("benchmarks")) {
        if (b.value("kind", "") != "phases") continue;
        if (!header) {
            fmt::print("\n{:<60} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}  (us per iteration)\n",
                       "detailed run", "SpMV", "dot", "p upd", "s upd", "x+r upd", "check");
            header = true;
        }
        const double it = std::max(1, b.value("iterations", 0));
        const auto& g = b.at("groups");
        fmt::print("{:<60} {:>9.2f} {:>9.2f} {:>9.2f} {:>9.2f} {:>9.2f} {:>9.2f}\n",
                   b.value("name", ""), g.value("spmv", 0.0) / it * 1e6,
                   g.value("dot", 0.0) / it * 1e6, g.value("p_update", 0.0) / it * 1e6,
                   g.value("s_update", 0.0) / it * 1e6, g.value("xr_update", 0.0) / it * 1e6,
                   g.value("check", 0.0) / it * 1e6);
    }
}

}  // namespace kbench::harness
