// The yamazaki2014/fig8 runner and the MPK model of its entries; see bench_dist_mpk.hpp.
#include "harness/studies/yamazaki2014/bench_dist_mpk.hpp"

#include "harness/mpi/mpi_launch.hpp"
#include "harness/core/quick.hpp"
#include "harness/core/results_json.hpp"
#include "harness/core/study_context.hpp"
#include "kernels/spmv_operator.hpp"
#include "models/mpk_model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iostream>

namespace kbench::harness {
using nlohmann::json;

namespace {

/// yamazaki2014 Fig. 8: m = 100 vectors.
constexpr int fig8_vectors = 100;
/// The s grid. Fig. 8 goes to s = 20; the communication time falls fast over the first few s
/// and the computation then grows about linearly, so the grid is dense where the curve bends
/// and sparse after it. Each s needs its own setup (index sets, local matrices, a tuned SpMV
/// operator) and timed sweeps: 8 points instead of 20 make a run about 2.5x shorter.
const std::vector<int> fig8_steps = {1, 2, 3, 5, 8, 10, 15, 20};
constexpr std::size_t quick_steps = 4;  // a quick run: 4 of them, 1 and 20 kept

std::vector<double> doubles(const json& v) { return v.get<std::vector<double>>(); }

/// A positive rate, or `fallback` when the work it prices is 0 (so that part_time accepts
/// it); NaN (the model is null) when work needs a rate that was not measured.
double rate_or(double rate, bool needed, double fallback = 1.0)
{
    if (rate > 0.0) return rate;
    return needed ? std::nan("") : fallback;
}

}  // namespace

std::vector<std::string> dist_mpk_command(const std::string& mpiexec, const std::string& kbench,
                                          const MatrixSource& source, const DistMpkRun& r,
                                          int repetitions, const std::string& json_file)
{
    std::vector<std::string> argv = {mpiexec, "-n", std::to_string(r.ranks)};
    argv.insert(argv.end(), {kbench, "dist", "mpk", "--set", source.set, "--matrix", r.matrix,
                             "--device", r.device, "--transport", r.transport, "--partition",
                             r.partition, "--vectors", std::to_string(r.vectors),
                             "--repetitions", std::to_string(repetitions), "--json", json_file});
    if (!r.steps.empty()) {
        std::string list;
        for (const int s : r.steps) list += (list.empty() ? "" : ",") + std::to_string(s);
        argv.insert(argv.end(), {"--steps", list});
    }
    if (!source.matrix_dir.empty()) argv.insert(argv.end(), {"--matrix-dir", source.matrix_dir});
    if (source.real) argv.push_back("--real");
    if (source.quick) argv.push_back("--quick");
    return argv;
}

void add_mpk_model(json& worker, const MachineProfile* machine)
{
    using namespace models;
    const int m = worker.at("vectors").get<int>();
    const auto np = static_cast<std::size_t>(worker.at("ranks").get<int>());
    const std::vector<double> own_nnz = doubles(worker.at("local_nnz"));
    const std::vector<double> spmv_rate = doubles(worker.at("spmv").at("flops_per_second"));
    const std::vector<double> halo_words = doubles(worker.at("halo_s1").at("words"));
    const std::vector<double> halo_messages = doubles(worker.at("halo_s1").at("messages"));
    const json& link = worker.at("link");
    const double bandwidth = link.at("bandwidth_bytes_per_second").get<double>() / sizeof(double);
    const double latency = link.at("latency_seconds").get<double>();

    // Rates of each part: its own SpMV rate, the link's bandwidth (words/s) and latency.
    bool complete = true;
    std::vector<MpkRates> rates(np);
    for (std::size_t d = 0; d < np; ++d) {
        rates[d].flops_per_s = rate_or(spmv_rate[d], own_nnz[d] > 0.0);
        rates[d].words_per_s = rate_or(bandwidth, np > 1);
        rates[d].latency_s = latency;
        complete = complete && !std::isnan(rates[d].flops_per_s + rates[d].words_per_s);
    }
    /// The flops term alone of a set of part costs.
    const auto compute_only = [](std::vector<MpkPartCost> parts) {
        for (auto& c : parts) c.words = c.messages = c.exchanges = 0.0;
        return parts;
    };
    const auto ratio = [](double model, const json& measured) {
        const double t = measured.get<double>();
        return t > 0.0 ? model / t : std::nan("");
    };

    json& base = worker.at("baseline");
    if (!complete) {
        base["model"] = nullptr;
        for (json& e : worker.at("mpk")) e["model"] = nullptr;
        return;
    }
    std::vector<MpkPartCost> spmv_parts;  // one SpMV with its s = 1 exchange
    for (std::size_t d = 0; d < np; ++d)
        spmv_parts.push_back(spmvs_part_cost(own_nnz[d], 1, halo_words[d], halo_messages[d]));
    // Beyond the products, every step copies a vector and launches kernels (the figures the
    // worker's loops make): priced with the device's triad bandwidth and launch latency.
    const double bw = machine != nullptr ? machine->triad_gbps * 1e9 : 0.0;
    const double launch = machine != nullptr ? machine->launch_latency_us * 1e-6 : 0.0;
    const auto overhead = [&](double words, double launches) {
        return (bw > 0.0 ? 2.0 * words * sizeof(double) / bw : 0.0) + launches * launch;
    };
    double rows_max = 0.0;
    for (const double r : doubles(worker.at("rows"))) rows_max = std::max(rows_max, r);
    // Baseline step: v_j copied into the exchange's vector (1 copy, 1 launch).
    const double base_step = overhead(rows_max, 1);
    const double base_model = m * (predicted_time_per_part(spmv_parts, rates) + base_step);
    const double base_products =
        m * (predicted_time_per_part(compute_only(spmv_parts), rates) + base_step);
    base["model"] = {{"seconds", base_model},
                     {"products_seconds", base_products},
                     {"ratio", ratio(base_model, base.at("seconds"))},
                     {"products_ratio", ratio(base_products, base.at("products_seconds"))}};

    for (json& e : worker.at("mpk")) {
        const int s = e.at("s").get<int>();
        const json& counts = e.at("counts");
        const auto boundary = counts.at("boundary_nnz").get<std::vector<std::vector<double>>>();
        const auto boundary_rows =
            counts.at("boundary_rows").get<std::vector<std::vector<double>>>();
        const std::vector<double> messages = doubles(counts.at("mpk_messages"));
        // One call of k <= s steps on the s-step setup: the last k levels' flops, the s-step
        // exchange (|delta^(d,1:s)| words from mpk_messages neighbours).
        const auto call_parts = [&](int k) {
            std::vector<MpkPartCost> parts;
            for (std::size_t d = 0; d < np; ++d) {
                const auto b = mpk_boundary_for_steps(boundary[d], k);
                MpkPartCost c = mpk_part_cost(own_nnz[d], b, boundary_rows[d].front(),
                                              messages[d]);
                c.flops = spmvs_flops(own_nnz[d], k) + mpk_extra_flops_needed(b);
                parts.push_back(c);
            }
            return parts;
        };
        // A call of k steps: v_1 copied and gathered into the local numbering (2 copies of the
        // local vector, 2 launches), then k - 1 steps that each launch the boundary product
        // (when there are ghost rows) and copy their own rows into V (1 copy, 1 or 2
        // launches); the last step writes into V.
        double local_max = 0.0;
        for (std::size_t d = 0; d < np; ++d)
            local_max = std::max(local_max, doubles(worker.at("rows"))[d] +
                                                (boundary_rows[d].empty() ? 0.0
                                                                          : boundary_rows[d][0]));
        const double step_launches = local_max > rows_max ? 2 : 1;  // no ghosts: no boundary
        const auto call_overhead = [&](int k) {
            return overhead(2.0 * local_max, 2) + (k - 1) * overhead(rows_max, step_launches);
        };
        const int full = m / s, rest = m % s;
        const auto parts = call_parts(s);
        const double per_call = predicted_time_per_part(parts, rates) + call_overhead(s);
        double total = full * per_call;
        double products =
            full * (predicted_time_per_part(compute_only(parts), rates) + call_overhead(s));
        if (rest > 0) {
            const auto last = call_parts(rest);
            total += predicted_time_per_part(last, rates) + call_overhead(rest);
            products += predicted_time_per_part(compute_only(last), rates) + call_overhead(rest);
        }
        e["model"] = {{"seconds", total},
                      {"products_seconds", products},
                      {"seconds_per_call", per_call},
                      {"ratio", ratio(total, e.at("seconds"))},
                      {"products_ratio", ratio(products, e.at("products_seconds"))}};
    }
}

json run_mpk_time(const StudyRun& run)
{
    if (mpi_launcher().empty())
        throw std::runtime_error(run.id + ": kbench was built without MPI (libopenmpi-dev)");
    const MatrixSet set =
        load_source_set(run.source);
    json doc = make_results_document(kbench_context(run.id, run.source, set, run.machine, false));
    const int repetitions = std::min(run.options.repetitions, 10);
    const std::vector<int> counts = run_gpu_rank_counts(run.options);
    const std::vector<int> steps =
        run.options.quick ? quick_cap(fig8_steps, fig8_steps.back(), quick_steps) : fig8_steps;
    json& k = doc["context"]["kbench"];
    k["parameters"] = {{"vectors", fig8_vectors}, {"steps", steps},
                       {"basis", "monomial"}, {"partition", "natural"},
                       {"repetitions", repetitions}, {"gpus", gpu_count()},
                       {"gpu_counts", counts}, {"transports", {"host_staged", "nccl"}}};
    k["notes"] = {
        "One rank per GPU; with one GPU nothing is exchanged, so P = 1 runs once (host_staged).",
        "Every MPK call starts from v_1 (timing: the values stay bounded); the baseline's SpMVs "
        "run in chains of 20 started from v_1.",
        "Times: the slowest rank's wall time of the m = 100 vectors, median of the sweeps.",
        "Model: the slowest part's flops at its own measured SpMV rate + ghost words at the "
        "measured link bandwidth + halo exchanges x the measured link latency (the messages of an "
        "exchange overlap; models/mpk_model.hpp), "
        "per call, + the vector copies at the triad bandwidth and the launches beyond the "
        "products at the measured launch latency."};
    ScratchDir dir{resume_key(run)};
    for_each_matrix(set, [&](const MatrixEntry& entry, const Csr<double>& a, std::size_t,
                             std::size_t) {
        k["matrices"][entry.name] = matrix_context(
            entry, a, spmv::resolve_sellp_params(a.view(), SellpParams{0, 0, 0, 0}));
        for (const int p : counts) {
            for (const std::string transport : {"host_staged", "nccl"}) {
                if (p == 1 && transport == "nccl") continue;
                DistMpkRun r{entry.name, p, "gpu", transport, "natural", steps, fig8_vectors};
                const std::string name = fmt::format("fig8/{}/P={}/{}", entry.name, p, transport);
                const std::string file = dir.file_for(name);
                std::cerr << "kbench: " << name << "\n";
                json e = run_mpi_worker(dist_mpk_command(mpi_launcher(), self_executable(),
                                                         run.source, r, repetitions, file),
                                        file);
                if (!e.contains("error")) add_mpk_model(e, run.machine);
                e["name"] = name;
                e["item"] = "fig8";
                e["matrix"] = entry.name;
                e["ranks"] = p;
                e["transport"] = transport;
                doc["benchmarks"].push_back(std::move(e));
            }
        }
    });
    return doc;
}

}  // namespace kbench::harness
