#include "harness/bench/bench_spmv.hpp"

#include "harness/bench/kernel_bench.hpp"  // profiled_warm_up, relative_max_error
#include "harness/core/progress.hpp"
#include "harness/core/registry.hpp"
#include "harness/core/results_json.hpp"
#include "kernels/base/cuda_handles.hpp"
#include "kernels/l2_flush.hpp"
#include "kernels/spmv.hpp"
#include "kernels/machine_probe.hpp"
#include "kernels/spmv_operator.hpp"
#include "models/spmv_traffic.hpp"

#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <nvtx3/nvtx3.hpp>

#include <cmath>
#include <functional>
#include <memory>
#include <optional>
#include <regex>
#include <sstream>
#include <type_traits>

namespace kbench::harness {
namespace {

using Launch = std::function<void(cudaStream_t)>;

/// One kernel ready to run: its launch, traffic model (models/spmv_traffic.hpp), the time
/// model's prediction (models/spmv_time.hpp) and parameters.
struct KernelCase {
    Launch launch;
    models::Traffic traffic;
    std::size_t stored_entries = 0;
    double n = 0.0, nnz = 0.0;
    double model_us = 0.0;  // the time model's prediction (0: not modeled)
    nlohmann::json params = nlohmann::json::object();
};

/// Everything a matrix's benchmarks share.
struct RunState {
    const SpmvOptions& options;
    const MachineProfile* machine;
    models::SpmvMachine spmv_machine;  // figures of the auto policy's model
    std::optional<std::regex> filter;
    std::unique_ptr<L2Flush> flush;  // only in cold mode
    nlohmann::json& doc;
    Progress progress;
};

/// x_i = 1 + (i mod 13) / 16: exactly representable in float and double, not all equal.
template <typename T>
std::vector<T> make_x(index_type n)
{
    std::vector<T> x(static_cast<std::size_t>(n));
    for (index_type i = 0; i < n; ++i) x[i] = T(1) + static_cast<T>(i % 13) / T(16);
    return x;
}

bool selected(const RunState& run, const std::string& name)
{
    return !run.filter || std::regex_search(name, *run.filter);
}

/// Runs the benchmarks registered so far with a JSON reporter into a string; clears them.
nlohmann::json run_registered()
{
    std::stringstream out, err;
    benchmark::JSONReporter reporter;
    reporter.SetOutputStream(&out);
    reporter.SetErrorStream(&err);
    benchmark::RunSpecifiedBenchmarks(&reporter);
    benchmark::ClearRegisteredBenchmarks();
    return parse_benchmark_json(out.str());
}

/// Registers, runs and records one benchmark of `c`; `error` non-empty marks it failed.
void run_case(RunState& run, const std::string& name, const std::string& kernel,
              const KernelCase& c, cudaStream_t stream, const std::string& error,
              nlohmann::json kbench_obj)
{
    const RunOptions& opt = run.options.run;
    const MachineProfile* machine = run.machine;
    L2Flush* flush = run.flush.get();
    const std::string range = "spmv_" + kernel;
    const double max_err = kbench_obj["max_rel_error"].get<double>();
    auto* b = benchmark::RegisterBenchmark(name.c_str(), [&, flush, machine, max_err,
                                                           range](benchmark::State& st) {
        if (!error.empty()) {
            st.SkipWithError(error.c_str());
            return;
        }
        using benchmark::Counter;
        const auto& t = c.traffic;
        st.counters["bytes_read"] = t.bytes_read;
        st.counters["bytes_written"] = t.bytes_written;
        st.counters["flops"] = t.flops;
        st.counters["GBps"] = Counter(t.bytes() * 1e-9, Counter::kIsIterationInvariantRate);
        st.counters["GFlops"] = Counter(t.flops * 1e-9, Counter::kIsIterationInvariantRate);
        if (machine != nullptr && machine->read_gbps > 0.0) {
            st.counters["bw_frac_read"] = Counter(t.bytes() * 1e-9 / machine->read_gbps,
                                                  Counter::kIsIterationInvariantRate);
        }
        if (machine != nullptr && machine->triad_gbps > 0.0) {
            st.counters["bw_frac_triad"] = Counter(t.bytes() * 1e-9 / machine->triad_gbps,
                                                   Counter::kIsIterationInvariantRate);
        }
        st.counters["max_rel_error"] = max_err;
        st.counters["n"] = c.n;
        st.counters["nnz"] = c.nnz;
        st.counters["stored_entries"] = static_cast<double>(c.stored_entries);
        if (c.model_us > 0.0) st.counters["model_us"] = c.model_us;
        cuda_event start, stop;
        for (auto _ : st) {
            if (flush != nullptr) flush->flush(stream);  // before the start event: untimed
            start.record(stream);
            {
                nvtx3::scoped_range r{range.c_str()};
                c.launch(stream);
            }
            stop.record(stream);
            stop.synchronize();
            st.SetIterationTime(stop.seconds_since(start));
        }
    });
    b->UseManualTime()->Unit(benchmark::kMicrosecond);
    if (!error.empty() || opt.min_time == 0.0) {
        b->Iterations(1)->Repetitions(error.empty() ? opt.repetitions : 1);
    } else {
        b->MinTime(opt.min_time)->MinWarmUpTime(std::min(0.1, opt.min_time))
            ->Repetitions(opt.repetitions);
    }
    b->ReportAggregatesOnly(true);
    const nlohmann::json out = run_registered();
    nlohmann::json part{{"benchmarks", nlohmann::json::array()}};
    for (auto entry : out.at("benchmarks")) {
        // Google Benchmark appends "/min_time:..", "/repeats:..", "/manual_time" to the
        // registered name; results files use the plain name (+ "_<aggregate>").
        entry["run_name"] = name;
        const std::string agg = entry.value("aggregate_name", "");
        entry["name"] = entry.value("run_type", "") == "aggregate" ? name + "_" + agg : name;
        entry["kbench"] = kbench_obj;
        part["benchmarks"].push_back(std::move(entry));
    }
    append_benchmarks(run.doc, part);
}

/// The operator's policy for one kernel name of the study ("auto" or a named kernel).
spmv::Policy policy_for(const SpmvOptions& opt, const std::string& kernel)
{
    spmv::Policy p;
    p.kernel = kernel;
    if (kernel == "sellp") p.sellp = opt.sellp;
    if (kernel == "auto") {
        p.trial = opt.run.spmv_tune == "trial";
        p.trial_candidates = opt.run.spmv_trials;
    }
    return p;
}

template <typename T>
void run_precision(RunState& run, const MatrixEntry& entry, const Csr<double>& a64,
                   const std::string& precision, std::size_t k, std::size_t total)
{
    std::optional<Csr<T>> cast;
    const Csr<T>* ap = nullptr;
    if constexpr (std::is_same_v<T, double>) {
        ap = &a64;
    } else {
        cast = a64.template cast<T>();
        ap = &*cast;
    }
    const Csr<T>& a = *ap;
    const auto x = make_x<T>(a.num_cols);
    std::vector<T> y_ref(static_cast<std::size_t>(a.num_rows));
    spmv::reference::csr(a.view(), T(1), x.data(), T(0), y_ref.data());
    device_buffer<T> dx(x), dy(y_ref.size());
    cuda_stream stream;
    const double tol = std::is_same_v<T, double> ? 1e-8 : 1e-3;

    for (const auto& kernel : run.options.kernels) {
        const std::string name = spmv_benchmark_name(kernel, precision, entry.name);
        if (!selected(run, name)) continue;
        run.progress.report(k, total, fmt::format("{} (n={}, nnz={}): {} {}", entry.name,
                                                  a.num_rows, a.nnz(), kernel, precision));
        spmv::SpmvOperator<T> op(a, policy_for(run.options, kernel), run.spmv_machine);
        const spmv::Choice& choice = op.choice();
        KernelCase c;
        c.n = static_cast<double>(a.num_rows);
        c.nnz = static_cast<double>(a.nnz());
        c.traffic = op.traffic();
        c.stored_entries = op.stored_entries();
        c.model_us = choice.predicted_us;
        c.params = kernel == "auto" ? spmv::choice_json(choice) : spmv::choice_params(choice);
        c.launch = [&op, &dx, &dy](cudaStream_t s) { op.apply(T(1), dx.data(), T(0), dy.data(), s); };
        // Correctness before timing: y starts as NaN so rows the kernel skips are caught. This
        // launch is the one `kbench profile <name>` measures.
        KBENCH_CUDA_CHECK(cudaMemsetAsync(dy.data(), 0xff, dy.bytes(), stream));
        profiled_warm_up(name, [&] { c.launch(stream); });
        stream.synchronize();
        const double err = relative_max_error(dy.to_host(), y_ref);
        std::string error;
        if (!(err <= tol)) {
            error = fmt::format("max_rel_error {:.3e} exceeds the {} tolerance {:.0e}", err,
                                precision, tol);
        }
        nlohmann::json kbench_obj{{"study", "spmv"},     {"kernel", kernel},
                                  {"precision", precision}, {"matrix", entry.name},
                                  {"params", c.params}, {"max_rel_error", err}};
        run_case(run, name, kernel, c, stream, error, std::move(kbench_obj));
    }
}

}  // namespace

nlohmann::json run_spmv_study(const SpmvOptions& options, const std::string& id,
                              const MachineProfile* machine)
{
    validate(options.run);
    std::optional<std::regex> filter = compile_filter(options.filter);
    const MatrixSet set = load_source_set(options.source);
    nlohmann::json doc =
        make_results_document(kbench_context(id, options.source, set, machine, options.run.cold));
    const models::SpmvMachine figures = spmv_figures(machine);
    RunState run{options, machine, figures, std::move(filter), nullptr, doc, {}};
    if (options.run.cold) run.flush = std::make_unique<L2Flush>();

    const std::size_t total = set.matrices.size();
    for (std::size_t k = 0; k < total; ++k) {
        const MatrixEntry& entry = set.matrices[k];
        bool any = false;
        for (const auto& kernel : options.kernels)
            for (const auto& p : options.precisions)
                any = any || selected(run, spmv_benchmark_name(kernel, p, entry.name));
        if (!any) continue;
        const Csr<double> a = build_matrix(entry);
        doc["context"]["kbench"]["matrices"][entry.name] =
            matrix_context(entry, a, spmv::resolve_sellp_params(a.view(), options.sellp));
        for (const auto& p : options.precisions) {
            if (p == "double") run_precision<double>(run, entry, a, p, k + 1, total);
            else run_precision<float>(run, entry, a, p, k + 1, total);
        }
    }
    fix_aggregate_rates(doc, machine != nullptr ? *machine : MachineProfile{});
    return doc;
}

nlohmann::json run_stats_study(const MatrixSource& source, const std::string& id,
                               const MachineProfile* machine)
{
    const MatrixSet set = load_source_set(source);
    nlohmann::json doc = make_results_document(kbench_context(id, source, set, machine, false));
    Progress progress;
    for_each_matrix(set, [&](const MatrixEntry& entry, const Csr<double>& a, std::size_t k,
                             std::size_t total) {
        progress.report(k, total, fmt::format("{} (n={}, nnz={}): stats", entry.name,
                                              a.num_rows, a.nnz()));
        doc["context"]["kbench"]["matrices"][entry.name] =
            matrix_context(entry, a);
    });
    return doc;
}

void print_spmv_summary(const nlohmann::json& doc)
{
    fmt::print("{:<56} {:>12} {:>9} {:>9} {:>11}\n", "benchmark", "time (us)", "GB/s",
               "GFlop/s", "max_rel_err");
    for (const auto& b : doc.at("benchmarks")) {
        const std::string name = b.value("run_name", b.value("name", ""));
        if (b.value("error_occurred", false)) {
            fmt::print("{:<56} error: {}\n", name, b.value("error_message", ""));
            continue;
        }
        const bool single = b.value("run_type", "") == "iteration";
        if (!single && b.value("aggregate_name", "") != "median") continue;
        fmt::print("{:<56} {:>12.2f} {:>9.1f} {:>9.2f} {:>11.2e}\n", name,
                   real_time_seconds(b) * 1e6, b.value("GBps", 0.0), b.value("GFlops", 0.0),
                   b.value("max_rel_error", 0.0));
    }
}

}  // namespace kbench::harness
