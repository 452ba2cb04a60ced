// BiCGSTAB solves over a matrix set; see harness/bench_bicgstab.hpp.
#include "harness/bench_bicgstab.hpp"

#include "harness/progress.hpp"
#include "harness/results_json.hpp"
#include "kernels/base/cuda_handles.hpp"
#include "kernels/base/device_buffer.hpp"
#include "kernels/machine_probe.hpp"
#include "kernels/spmv_operator.hpp"
#include "matrices/matrix_set.hpp"
#include "matrices/sellp.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <regex>
#include <stdexcept>

namespace kbench::harness {
namespace {

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    const std::size_t m = v.size() / 2;
    return v.size() % 2 == 1 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

template <typename T>
void run_precision(const BicgstabRunOptions& o, const std::optional<std::regex>& filter,
                   const models::SpmvMachine& figures, const MatrixEntry& entry,
                   const Csr<double>& a64, const std::string& precision, nlohmann::json& doc,
                   Progress& progress, std::size_t k, std::size_t total)
{
    const Csr<T> a = a64.cast<T>();
    const std::size_t n = static_cast<std::size_t>(a.num_rows);
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
            double err = 0.0;
            for (const T v : x) err = std::max(err, std::abs(double(v) - 1.0));
            doc["benchmarks"].push_back(
                {{"name", name}, {"form", "cpu"}, {"spmv", {{"policy", "eigen"}}},
                 {"precision", precision}, {"matrix", entry.name}, {"status", to_string(r.status)},
                 {"detail", r.detail}, {"iterations", r.iterations},
                 {"true_residual", r.true_residual}, {"error", err}, {"seconds", r.seconds},
                 {"seconds_per_iteration", r.seconds_per_iteration()}, {"repetitions", 1}});
        }
    }
    device_buffer<T> db(b), dx(n);
    cuda_stream stream;
    for (const auto& kernel : o.spmv_kernels) {
        std::optional<spmv::SpmvOperator<T>> op;
        for (const auto form : o.forms) {
            const std::string name = fmt::format("bicgstab/{}/{}/{}/{}", solvers::to_string(form),
                                                 kernel, precision, entry.name);
            if (filter && !std::regex_search(name, *filter)) continue;
            if (!op) op.emplace(a, spmv::Policy{kernel}, figures);
            progress.report(k, total, name);
            solvers::BicgstabOptions so = o.solve;
            so.form = form;
            std::vector<double> seconds, per_iteration;
            solvers::SolveResult first;
            for (int rep = 0; rep <= o.repetitions; ++rep) {  // rep 0: warm-up
                KBENCH_CUDA_CHECK(cudaMemset(dx.data(), 0, dx.bytes()));
                solvers::SolveResult r = solvers::bicgstab(*op, db.data(), dx.data(), so, stream);
                if (rep == 0) continue;
                seconds.push_back(r.seconds);
                per_iteration.push_back(r.seconds_per_iteration());
                if (rep == 1) first = std::move(r);
            }
            const std::vector<T> x = dx.to_host();
            double err = 0.0;
            for (const T v : x) err = std::max(err, std::abs(double(v) - 1.0));
            const auto& choice = op->choice();
            doc["benchmarks"].push_back(
                {{"name", name},
                 {"form", solvers::to_string(form)},
                 {"spmv",
                  {{"policy", kernel},
                   {"kernel", spmv::kernel_names()[static_cast<std::size_t>(choice.kernel)]},
                   {"params", spmv::choice_params(choice)}}},
                 {"precision", precision},
                 {"matrix", entry.name},
                 {"status", to_string(first.status)},
                 {"detail", first.detail},
                 {"iterations", first.iterations},
                 {"timing_mode", first.timing_mode},
                 {"true_residual", first.true_residual},
                 {"error", err},
                 {"seconds", median(seconds)},
                 {"seconds_per_iteration", median(per_iteration)},
                 {"repetitions", o.repetitions},
                 {"residual_history", first.residual_history}});
        }
    }
}

}  // namespace

nlohmann::json run_bicgstab_study(const BicgstabRunOptions& o, const std::string& id,
                                  const MachineProfile* machine)
{
    if (o.repetitions < 1)
        throw std::invalid_argument("BiCGSTAB runs: repetitions = " +
                                    std::to_string(o.repetitions) + ", expected >= 1");
    std::optional<std::regex> filter = compile_filter(o.filter);
    const MatrixSet set = load_matrix_set(o.source.set, resolve_matrix_dir(o.source.matrix_dir));
    nlohmann::json doc = make_results_document(kbench_context(id, o.source, set, machine, false));
    doc["context"]["kbench"]["bicgstab"] = {{"tolerance", o.solve.tolerance},
                                            {"max_iterations", o.solve.max_iterations},
                                            {"timing_mode", o.solve.timing_mode},
                                            {"stagnation_window", o.solve.stagnation_window},
                                            {"rhs", "b = A * ones, x0 = 0"}};
    const models::SpmvMachine figures =
        machine != nullptr ? machine->spmv : spmv::machine_figures();
    Progress progress;
    for_each_matrix(set, [&](const MatrixEntry& entry, const Csr<double>& a, std::size_t k,
                             std::size_t total) {
        doc["context"]["kbench"]["matrices"][entry.name] =
            matrix_context(entry, a, spmv::resolve_sellp_params(a.view(), SellpParams{0, 0, 0, 0}));
        for (const auto& p : o.precisions) {
            if (p == "double")
                run_precision<double>(o, filter, figures, entry, a, p, doc, progress, k, total);
            else
                run_precision<float>(o, filter, figures, entry, a, p, doc, progress, k, total);
        }
    });
    return doc;
}

void print_bicgstab_summary(const nlohmann::json& doc)
{
    fmt::print("{:<60} {:>14} {:>6} {:>10} {:>10} {:>12}\n", "solve", "status", "iter",
               "true res", "error", "us/iter");
    for (const auto& b : doc.at("benchmarks")) {
        fmt::print("{:<60} {:>14} {:>6} {:>10.2e} {:>10.2e} {:>12.2f}\n",
                   b.value("name", ""), b.value("status", ""), b.value("iterations", 0),
                   b.value("true_residual", 0.0), b.value("error", 0.0),
                   b.value("seconds_per_iteration", 0.0) * 1e6);
    }
}

}  // namespace kbench::harness
