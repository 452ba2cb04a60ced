// The zianekhodja2014 runners; see bench_dist_gmres.hpp.
#include "harness/studies/zianekhodja2014/bench_dist_gmres.hpp"

#include "harness/mpi/mpi_launch.hpp"
#include "harness/core/op_cost.hpp"
#include "harness/core/partition_file.hpp"
#include "harness/core/quick.hpp"
#include "harness/core/results_json.hpp"
#include "harness/core/study_context.hpp"
#include "models/gmres_comm_model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>

namespace kbench::harness {
using nlohmann::json;

namespace {

/// zianekhodja2014 Fig. 9: 5M rows per GPU.
constexpr long long weak_rows_per_rank = 5'000'000;
/// Rows per rank of Fig. 9 in a quick run (`kbench reproduce --quick`; 1/20 of the paper's).
constexpr long long quick_weak_rows_per_rank = 250'000;

std::vector<double> read_doubles(const std::string& file)
{
    std::ifstream in(file, std::ios::binary | std::ios::ate);
    if (!in) return {};
    std::vector<double> x(static_cast<std::size_t>(in.tellg()) / sizeof(double));
    in.seekg(0);
    in.read(reinterpret_cast<char*>(x.data()), static_cast<std::streamsize>(x.size() * 8));
    return x;
}

/// Timed solves per run: at most 3, since a solve is up to 500 iterations and every run also
/// makes a warm-up and a detailed solve.
int timed_solves(const StudyRun& run) { return std::min(run.options.repetitions, 3); }

std::string variant(const DistRun& r) { return r.partition + "+" + r.scheme; }

/// Seconds per iteration predicted by models/gmres_comm_model.hpp for a GPU run's entry, from the
/// slowest rank's load and the figures measured for the run: the device's triad bandwidth, L2 size
/// and bandwidth, launch and synchronization latencies and the fixed costs of a streaming kernel
/// and of a dot (machine profile), the host's enqueue times of kbench's launchers and its
/// synchronization tail, measured by the worker in its own process ("launch_figures"; they replace
/// the profile's empty-kernel launch), the run's iteration count, and the link figures the worker
/// measured over the run's own transport. A host-staged link figure already includes both PCIe
/// copies (no PCIe term); the transport decides whether halos and all-reduces synchronize the host.
/// A run whose SpMVs overlapped the exchange ("overlap") is priced so, from the largest boundary
/// rows and nnz of a rank (entries written before the overlap have neither: priced without).
json model_entry(const json& e, const MachineProfile* machine)
{
    if (machine == nullptr || e.value("device", "") != "gpu") return nullptr;
    models::GmresRankLoad load;
    load.rows = e.at("rows_max").get<double>();
    load.nnz = e.at("nnz_max").get<double>();
    load.halo_words = e.at("halo").at("words_received_max").get<double>();
    load.halo_messages = e.at("halo").at("messages_received_max").get<double>();
    load.boundary_rows = e.value("boundary_rows_max", 0.0);
    load.boundary_nnz = e.value("boundary_nnz_max", 0.0);
    models::GmresSetup setup;
    setup.m = e.at("restart").get<int>();
    setup.orth = e.at("orth") == "cgs2" ? models::GmresOrth::cgs2 : models::GmresOrth::mgs;
    setup.iterations = e.at("iterations").get<int>();
    setup.overlap = e.value("overlap", false) && e.contains("boundary_rows_max");
    setup.halo_path = e.value("transport", "") == "host_staged" ? models::HaloPath::host_staged
                                                                : models::HaloPath::direct;
    models::GmresMachine mc;
    mc.device_bytes_per_s = machine->triad_gbps * 1e9;
    const auto& link = e.at("link");
    mc.link_bytes_per_s = link.at("bandwidth_bytes_per_second").get<double>();
    mc.p2p_latency_s = link.at("latency_seconds").get<double>();
    mc.allreduce_latency_s = link.at("allreduce_seconds").get<double>();
    mc.l2_bytes = machine->spmv.l2_bytes;
    // A pass over the L2-resident working vector is a read-modify-write (w -= h v, w /= h):
    // its measured rate; the read-only L2 rate for profiles from before that probe.
    mc.l2_bytes_per_s =
        (machine->spmv.l2_rmw_gbps > 0 ? machine->spmv.l2_rmw_gbps : machine->spmv.l2_gbps) * 1e9;
    mc.launch = {machine->launch_latency_us * 1e-6, machine->launch_sync_roundtrip_us * 1e-6,
                 machine->kernel_fixed_us * 1e-6, machine->reduction_fixed_us * 1e-6,
                 machine->graph_node_us * 1e-6};
    // The host's costs the worker measured in its own process on kbench's launchers (entries
    // written before it measured them: the profile's empty-kernel launch and round trip).
    if (const auto& lf = e.value("launch_figures", json()); lf.is_object())
        mc.launch = with_launch_figures(mc.launch, lf.get<LaunchFigures>());
    const auto t = models::gmres_iteration_time(load, e.at("ranks").get<int>(), setup, mc);
    return {{"spmv", t.spmv}, {"vector", t.vector_ops}, {"halo", t.halo},
            {"reductions", t.reductions}, {"launches", t.launches}, {"total", t.total}};
}

/// The entry name of a run: <item>/<matrix>/<variant>/<device>[/<transport>]/P=<ranks>.
std::string run_name(const std::string& item, const DistRun& r)
{
    return fmt::format("{}/{}/{}/{}{}/P={}", item, r.matrix, variant(r), r.device,
                       r.device == "gpu" ? "/" + r.transport : "", r.ranks);
}

/// Launches one run and returns its entry (the worker's object plus name, item, variant).
json launch(const StudyRun& run, const std::string& item, const DistRun& r, const ScratchDir& dir,
            std::vector<double>* solution = nullptr)
{
    const std::string name = run_name(item, r);
    const std::string file = dir.file_for(name);
    const auto argv = dist_command(mpi_launcher(), self_executable(), run.source, r,
                                   r.timed > 0 ? r.timed : timed_solves(run), file);
    std::cerr << "kbench: " << name << "\n";
    json e = run_mpi_worker(argv, file);
    if (!e.contains("error")) {
        const int it = e.at("iterations").get<int>();
        e["seconds_per_iteration"] = it > 0 ? e.at("seconds").get<double>() / it : 0.0;
        e["model"] = model_entry(e, run.machine);
        if (solution != nullptr) *solution = read_doubles(file + ".x");
    }
    e["name"] = name;
    e["item"] = item;
    e["variant"] = variant(r);
    return e;
}

/// Launches `r`, except on one rank, where nothing is exchanged and every partition, scheme and
/// transport is one computation: that is run once per matrix (natural, compressed, host-staged;
/// `single` keeps its entry) and entered again under r's name, with "same_run_as".
json launch_once_on_one_rank(const StudyRun& run, const std::string& item, const DistRun& r,
                             const ScratchDir& dir, json& single)
{
    if (r.ranks != 1) return launch(run, item, r, dir);
    if (single.is_null()) {
        DistRun one = r;
        one.transport = "host_staged";
        one.partition = "natural";
        one.scheme = "compressed";
        one.partition_cache.clear();
        single = launch(run, item, one, dir);
    }
    if (single.at("name") == run_name(item, r)) return single;
    json e = single;
    e["same_run_as"] = single.at("name");
    e["name"] = run_name(item, r);
    e["variant"] = variant(r);
    if (!e.contains("error"))
        e.update({{"transport", r.transport}, {"partition", r.partition}, {"scheme", r.scheme}});
    return e;
}

json new_document(const StudyRun& run, const MatrixSet& set)
{
    if (mpi_launcher().empty())
        throw std::runtime_error(run.id + ": kbench was built without MPI (libopenmpi-dev)");
    json doc = make_results_document(kbench_context(run.id, run.source, set, run.machine, false));
    const DistGmresParameters gmres;  // what every worker is given (dist_command)
    doc["context"]["kbench"]["parameters"] = {{"restart", gmres.restart},
                                              {"tolerance", gmres.tolerance},
                                              {"max_iterations", gmres.max_iterations},
                                              {"orth", gmres.orth},
                                              {"preconditioner", gmres.preconditioner},
                                              {"b", 1}, {"x0", 0},
                                              {"repetitions", timed_solves(run)},
                                              {"gpus", gpu_count()},
                                              {"cpu_ranks", run_cpu_ranks(run.options)}};
    return doc;
}

/// The GMRES parameters of context.kbench.parameters as the workers report them: those of the
/// first entry that has them (a worker that ran), else those new_document set from
/// DistGmresParameters (no worker ran). Call when every run is in doc["benchmarks"].
void record_worker_parameters(json& doc)
{
    auto& p = doc["context"]["kbench"]["parameters"];
    for (const json& e : doc["benchmarks"]) {
        if (e.contains("error") || !e.contains("restart")) continue;
        for (const char* key : {"restart", "tolerance", "max_iterations", "orth", "preconditioner"})
            p[key] = e.at(key);
        return;
    }
}

/// Records the matrix (n, nnz from a successful run) in context.kbench.matrices.
void note_matrix(json& doc, const MatrixEntry& entry, const json& e)
{
    auto& m = doc["context"]["kbench"]["matrices"][entry.name];
    m["source"] = entry.source;
    m["stands_for"] = entry.stands_for;
    m["spec"] = json::parse(entry.spec);
    if (e.contains("n")) {
        m["n"] = e["n"];
        m["nnz"] = e["nnz"];
    }
}

MatrixSet load(const StudyRun& run)
{
    return load_source_set(run.source);
}

double max_abs_diff(const std::vector<double>& x, const std::vector<double>& y)
{
    if (x.size() != y.size() || x.empty()) return std::nan("");
    double d = 0.0;
    for (std::size_t i = 0; i < x.size(); ++i) d = std::max(d, std::abs(x[i] - y[i]));
    return d;
}

}  // namespace

std::vector<std::string> dist_command(const std::string& mpiexec, const std::string& kbench,
                                      const MatrixSource& source, const DistRun& r,
                                      int repetitions, const std::string& json_file)
{
    const DistGmresParameters gmres;
    std::vector<std::string> argv = {mpiexec, "-n", std::to_string(r.ranks)};
    argv.insert(argv.end(), {kbench, "dist", "gmres", "--set", source.set, "--matrix", r.matrix,
                             "--device", r.device, "--transport", r.transport, "--partition",
                             r.partition, "--scheme", r.scheme, "--restart",
                             std::to_string(gmres.restart), "--tolerance",
                             fmt::format("{}", gmres.tolerance), "--max-iterations",
                             std::to_string(gmres.max_iterations), "--orth", gmres.orth,
                             "--preconditioner", gmres.preconditioner, "--repetitions",
                             std::to_string(repetitions), "--json", json_file});
    if (!source.matrix_dir.empty()) argv.insert(argv.end(), {"--matrix-dir", source.matrix_dir});
    if (source.real) argv.push_back("--real");
    if (source.quick) argv.push_back("--quick");
    if (r.rows_per_rank > 0)
        argv.insert(argv.end(), {"--rows-per-rank", std::to_string(r.rows_per_rank)});
    if (r.write_solution) argv.insert(argv.end(), {"--solution", json_file + ".x"});
    if (!r.partition_cache.empty())
        argv.insert(argv.end(), {"--partition-cache", r.partition_cache});
    if (!r.detailed) argv.push_back("--no-detailed");
    if (r.warmups != 1) argv.insert(argv.end(), {"--warmups", std::to_string(r.warmups)});
    return argv;
}

json run_dist_table2(const StudyRun& run)
{
    const MatrixSet set = load(run);
    json doc = new_document(run, set);
    ScratchDir dir{resume_key(run)};
    const int gpus =
        std::max(1, run.options.quick ? std::min(gpu_count(), quick_gpu_ranks) : gpu_count());
    for (const auto& entry : set.matrices) {
        DistRun cpu{entry.name, run_cpu_ranks(run.options), "cpu"};
        cpu.write_solution = true;
        DistRun gpu{entry.name, gpus, "gpu"};
        gpu.write_solution = true;
        std::vector<double> x_cpu, x_gpu;
        json c = launch(run, "table2", cpu, dir, &x_cpu);
        json g = launch(run, "table2", gpu, dir, &x_gpu);
        if (!g.contains("error") && !c.contains("error")) {
            g["delta"] = max_abs_diff(x_cpu, x_gpu);
            g["tau"] = c.at("seconds").get<double>() / g.at("seconds").get<double>();
        }
        note_matrix(doc, entry, g.contains("n") ? g : c);
        doc["benchmarks"].push_back(std::move(c));
        doc["benchmarks"].push_back(std::move(g));
    }
    record_worker_parameters(doc);
    return doc;
}

json run_dist_schemes(const StudyRun& run)
{
    // table5: the two schemes on natural blocks (zianekhodja2014 Sec. 6.1); table8: compressed on
    // natural blocks vs after the hypergraph partition (Sec. 6.2), plus the bandwidth scheme on
    // natural blocks, whose volume table9 lists. On 1, 2, 4, ... GPUs.
    const bool table5 = run.id == "zianekhodja2014/table5";
    const std::string item = table5 ? "table5" : "table8";
    std::vector<std::pair<std::string, std::string>> variants = {{"natural", "bandwidth"},
                                                                 {"natural", "compressed"}};
    if (!table5) variants.emplace_back("hypergraph", "compressed");
    const MatrixSet set = load(run);
    json doc = new_document(run, set);
    const std::vector<int> counts = run_gpu_rank_counts(run.options);
    doc["context"]["kbench"]["gpu_counts"] = counts;
    ScratchDir dir{resume_key(run)};
    for (const auto& entry : set.matrices) {
        json first, single;
        const std::string cache = partition_cache_prefix(entry, 0, dir.path);
        for (const int p : counts) {
            for (const std::string transport : {"host_staged", "nccl"}) {
                for (const auto& [partition, scheme] : variants) {
                    DistRun r{entry.name, p, "gpu", transport, partition, scheme};
                    r.partition_cache = cache;
                    json e = launch_once_on_one_rank(run, item, r, dir, single);
                    if (first.is_null() && e.contains("n")) first = e;
                    doc["benchmarks"].push_back(std::move(e));
                }
            }
        }
        DistRun cpu{entry.name, run_cpu_ranks(run.options), "cpu"};
        cpu.timed = 1;  // Time_CPU of tau only: one timed solve (8M rows take seconds each)
        cpu.warmups = 0;
        cpu.detailed = false;
        doc["benchmarks"].push_back(launch(run, item, cpu, dir));
        note_matrix(doc, entry, first.is_null() ? json::object() : first);
    }
    record_worker_parameters(doc);
    return doc;
}

json run_dist_table9(const StudyRun& run)
{
    if (run.derive_from_results != nullptr) {
        json doc = derived_results(run);
        doc["context"]["kbench"]["derived_from"] = "zianekhodja2014/table8";
        return doc;
    }
    json doc = run_dist_schemes(run);
    doc["context"]["kbench"]["derived_from"] = "zianekhodja2014/table8";
    return doc;
}

json run_dist_weak_scaling(const StudyRun& run)
{
    const MatrixSet set = load(run);
    if (set.matrices.empty()) throw std::invalid_argument(run.id + ": the matrix set is empty");
    json doc = new_document(run, set);
    const long long rows_per_rank =
        run.options.quick ? quick_weak_rows_per_rank : weak_rows_per_rank;
    doc["context"]["kbench"]["parameters"]["rows_per_rank"] = rows_per_rank;
    ScratchDir dir{resume_key(run)};
    const MatrixEntry& entry = set.matrices.front();
    json first, single;
    const std::string cache = partition_cache_prefix(entry, rows_per_rank, dir.path);
    for (const int p : run_gpu_rank_counts(run.options)) {
        for (const std::string transport : {"host_staged", "nccl"}) {
            for (const std::string partition : {"natural", "hypergraph"}) {
                for (const std::string scheme : {"bandwidth", "compressed"}) {
                    DistRun r{entry.name, p, "gpu", transport, partition, scheme};
                    r.rows_per_rank = rows_per_rank;
                    r.partition_cache = cache;
                    json e = launch_once_on_one_rank(run, "fig9", r, dir, single);
                    if (first.is_null() && e.contains("n")) first = e;
                    doc["benchmarks"].push_back(std::move(e));
                }
            }
        }
        DistRun cpu{entry.name, p, "cpu"};
        cpu.rows_per_rank = rows_per_rank;
        cpu.timed = 1;  // a CPU solve of 5M rows per rank takes tens of seconds: no warm-up
        cpu.warmups = 0;
        cpu.detailed = false;
        doc["benchmarks"].push_back(launch(run, "fig9", cpu, dir));
    }
    note_matrix(doc, entry, first.is_null() ? json::object() : first);
    record_worker_parameters(doc);
    return doc;
}

}  // namespace kbench::harness
