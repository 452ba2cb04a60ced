// `kbench dist gmres`: one distributed GMRES run, launched as `mpirun -np P kbench dist gmres
// ...` (by hand, or by the zianekhodja2014 runners of
// harness/studies/zianekhodja2014/bench_dist_gmres.hpp): every rank builds its block of the matrix
// (dist_setup.hpp), the ranks measure their link (dist_link.hpp), then Jacobi-preconditioned
// GMRES(m) runs --warmups times untimed (default 1), `repetitions` times timed (the slowest rank's
// seconds, median reported) and once detailed (the computation / communication split),
// on CPU ranks or on one GPU per rank. Rank 0 writes one JSON object (schema below) to --json.
//
// JSON: {"matrix", "n", "nnz", "ranks", "device" ("cpu" | "gpu"), "gpu_name" (gpu only),
//   "transport" (gpu only), "overlap" (whether the timed solves' SpMVs overlapped the halo
//   exchange with the interior rows' product: gpu without --no-overlap), "detailed_overlap"
//   (false: the detailed solve never overlaps, so that its "halo" and "spmv" phases stay
//   apart; distributed_gmres.hpp), "scheme", "partition", "build_seconds", "partition_seconds",
//   "restart", "tolerance", "max_iterations", "warmups", "orth", "preconditioner",
//   "partition_cached", "partition_made_on" (host, ranks and hardware threads of the run that
//   made the partition; empty for natural), "status", "detail", "iterations", "seconds" (median
//   of the timed solves, slowest rank),
//   "seconds_all", "true_residual" (||M^-1 (b - A x)|| / ||M^-1 b||),
//   "prec" (||M^-1 (b - A x)||_inf, zianekhodja2014 formula 6), "phases" {name: seconds} and
//   "detailed_seconds" of the detailed solve (empty and 0 with --no-detailed), "rows_max",
//   "rows_min", "nnz_max" (per rank), "boundary_rows_max", "boundary_nnz_max" (per rank: the
//   rows with a ghost column and their entries, solvers/distributed/interior_boundary.hpp),
//   "halo" {"words_received_total", "words_received_max", "words_sent_max",
//   "messages_received_total", "messages_received_max"} (per SpMV halo exchange),
//   "link" {"latency_seconds", "bandwidth_bytes_per_second", "allreduce_seconds",
//   "host_staged_path" ("shared_memory" | "mpi_messages"; gpu host_staged only),
//   "host_staged_note" (why mpi_messages, when there is a reason)},
//   "launch_figures" (gpu only; null on CPU ranks) {"kernel_us", "reduction_us", "copy_us",
//   "sync_tail_us", "stream_node_us"}: harness/core/op_cost.hpp measure_launch_figures at the
//   rank's rows, the largest over the ranks, measured in this process after the warm-up
//   solves}.
// With --partition-only: {"matrix", "n", "nnz", "ranks", "partition", "partition_only": true,
//   "build_seconds", "partition_seconds", "partition_cached", "partition_made_on"}.
// Errors end every rank (harness/mpi/dist_worker.hpp run_worker; rank 0 writes {"error": message}).
#include "harness/studies/zianekhodja2014/dist_gmres_worker.hpp"
#include "harness/studies/zianekhodja2014/bench_dist_gmres.hpp"

#include "harness/mpi/dist_link.hpp"
#include "harness/mpi/dist_setup.hpp"
#include "harness/mpi/dist_worker.hpp"
#include "harness/core/op_cost.hpp"
#include "harness/core/results_json.hpp"
#include "harness/core/study_context.hpp"
#include "harness/core/timing.hpp"

#include "kernels/base/cuda_check.hpp"
#include "kernels/base/cuda_handles.hpp"
#include "kernels/base/device_buffer.hpp"
#include "kernels/machine_probe.hpp"
#include "kernels/spmv.hpp"
#include "solvers/distributed/distributed_gmres.hpp"
#include "solvers/distributed/interior_boundary.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>

namespace kbench::harness {
namespace {

struct DistArgs : WorkerArgs {
    std::string scheme = "compressed", orth = DistGmresParameters{}.orth,
                preconditioner = DistGmresParameters{}.preconditioner, solution;
    DistSetupOptions setup;
    solvers::GmresOptions gmres;
    int repetitions = 3;
    int warmups = 1;
    bool link = true;
    bool detailed = true;
    bool partition_only = false;
};

/// ||M^-1 (b - A x)||_inf over all ranks, on the host (x_local: num_owned entries).
double preconditioned_residual_inf(const dist::Communicator& comm,
                                   dist::DistributedSpmvCpu<double>& a,
                                   const std::vector<double>& inv_diag,
                                   const std::vector<double>& b_local,
                                   const std::vector<double>& x_local)
{
    const auto& h = a.exchange().layout();
    std::vector<double> x(static_cast<std::size_t>(h.local_size()), 0.0);
    std::copy(x_local.begin(), x_local.end(), x.begin());
    std::vector<double> r = b_local;
    a.apply(-1.0, x, 1.0, r);
    double m = 0.0;
    for (std::size_t i = 0; i < r.size(); ++i)
        m = std::max(m, std::abs(r[i] * (inv_diag.empty() ? 1.0 : inv_diag[i])));
    return comm.allreduce_max(m);
}

nlohmann::json run(const dist::Communicator& comm, const DistArgs& o)
{
    const MatrixEntry entry = find_matrix_entry(o.source, o.matrix);
    WorkerDevice dev = open_worker_device(comm, o.device, o.transport);
    const bool gpu = dev.gpu;
    const dist::Transport transport = dev.transport;
    const dist::Preconditioner prec = dist::parse_preconditioner(o.preconditioner);
    if (o.repetitions < 1)
        throw std::invalid_argument(fmt::format("--repetitions: {}, expected >= 1", o.repetitions));
    if (o.warmups < 0)
        throw std::invalid_argument(fmt::format("--warmups: {}, expected >= 0", o.warmups));

    dist::NcclCommunicator* nccl = dev.nccl.get();

    const DistProblem p = build_dist_problem(comm, entry, o.setup);
    if (o.partition_only)
        return {{"matrix", o.matrix},
                {"n", p.local.global_rows},
                {"nnz", p.nnz},
                {"ranks", comm.size()},
                {"partition", o.setup.partition},
                {"partition_only", true},
                {"build_seconds", p.build_seconds},
                {"partition_seconds", p.partition_seconds},
                {"partition_cached", p.partition_cached},
                {"partition_made_on", p.partition_made_on}};
    const auto& h = p.local.halo;
    const index_type owned = h.num_owned;
    const std::vector<double> b(static_cast<std::size_t>(owned), 1.0);  // b = 1, x0 = 0
    std::vector<double> x(static_cast<std::size_t>(owned), 0.0);
    dist::DistributedSpmvCpu<double> host_spmv(comm, p.local);

    std::vector<double> seconds;
    solvers::SolveResult result, detailed;
    nlohmann::json launch_figures = nullptr;
    if (gpu) {
        cuda_stream stream;
        dist::DistributedSpmv<double> spmv(comm, p.local, transport, spmv::Policy{"auto"},
                                           spmv::machine_figures(), nccl, o.overlap);
        device_buffer<double> d_b(b), d_x(static_cast<std::size_t>(std::max<index_type>(owned, 1)));
        auto solve = [&](bool detail) {
            KBENCH_CUDA_CHECK(cudaMemsetAsync(d_x.data(), 0, sizeof(double) * owned, stream.get()));
            comm.barrier();
            return dist::distributed_gmres(comm, spmv, p.local, d_b.data(), d_x.data(), o.gmres,
                                           prec, stream.get(), detail);
        };
        for (int w = 0; w < o.warmups; ++w) solve(false);
        // The host's costs in this process, on this core, at this size: what sets the time of
        // a small system's solve (models/launch_pipeline.hpp).
        const LaunchFigures lf =
            measure_launch_figures(std::max<index_type>(owned, 1), stream.get());
        launch_figures = LaunchFigures{comm.allreduce_max(lf.kernel_us),
                                       comm.allreduce_max(lf.reduction_us),
                                       comm.allreduce_max(lf.copy_us),
                                       comm.allreduce_max(lf.sync_tail_us),
                                       comm.allreduce_max(lf.stream_node_us)};
        for (int r = 0; r < o.repetitions; ++r) {
            result = solve(false);
            seconds.push_back(comm.allreduce_max(result.seconds));
        }
        KBENCH_CUDA_CHECK(cudaMemcpy(x.data(), d_x.data(), sizeof(double) * owned,
                                     cudaMemcpyDeviceToHost));
        if (o.detailed) detailed = solve(true);
    } else {
        auto solve = [&](bool detail) {
            std::fill(x.begin(), x.end(), 0.0);
            comm.barrier();
            return dist::distributed_gmres_cpu(comm, host_spmv, b, x, o.gmres, prec, detail);
        };
        for (int w = 0; w < o.warmups; ++w) solve(false);
        for (int r = 0; r < o.repetitions; ++r) {
            result = solve(false);
            seconds.push_back(comm.allreduce_max(result.seconds));
        }
        if (o.detailed) {
            const std::vector<double> solution = x;
            detailed = solve(true);
            x = solution;  // the timed solves' x is the one checked and written
        }
    }
    const auto inv_diag =
        dist::inverse_diagonal(comm, p.local.a, h.owned_global, prec, "kbench dist gmres");
    const double prec_inf = preconditioned_residual_inf(comm, host_spmv, inv_diag, b, x);
    if (!o.solution.empty()) {
        const auto all = dist::gather_original(comm, p.block, x);
        if (comm.rank() == 0) {
            std::ofstream out(o.solution, std::ios::binary);
            out.write(reinterpret_cast<const char*>(all.data()),
                      static_cast<std::streamsize>(all.size() * sizeof(double)));
            if (!out) throw std::runtime_error("--solution: cannot write " + o.solution);
        }
    }
    LinkFigures link;
    if (o.link) link = measure_link(comm, gpu, transport, nccl);

    nlohmann::json phases = nlohmann::json::object();
    for (const auto& ph : detailed.phases) phases[ph.name] = comm.allreduce_max(ph.seconds);
    const auto total = [&](double v) { return comm.allreduce_sum(v); };
    const dist::InteriorBoundaryCounts split = dist::interior_boundary_counts(p.local.a, owned);
    nlohmann::json doc = {
        {"matrix", o.matrix},
        {"n", p.local.global_rows},
        {"nnz", p.nnz},
        {"ranks", comm.size()},
        {"device", o.device},
        {"overlap", gpu && o.overlap && comm.size() > 1},
        {"detailed_overlap", false},
        {"scheme", dist::to_string(o.setup.scheme)},
        {"partition", o.setup.partition},
        {"build_seconds", p.build_seconds},
        {"partition_seconds", p.partition_seconds},
        {"partition_cached", p.partition_cached},
        {"partition_made_on", p.partition_made_on},
        {"restart", o.gmres.restart},
        {"tolerance", o.gmres.tolerance},
        {"max_iterations", o.gmres.max_iterations},
        {"warmups", o.warmups},
        {"orth", solvers::to_string(o.gmres.orth)},
        {"preconditioner", dist::to_string(prec)},
        {"status", solvers::to_string(result.status)},
        {"detail", result.detail},
        {"iterations", result.iterations},
        {"seconds", median(seconds)},
        {"seconds_all", seconds},
        {"true_residual", result.true_residual},
        {"prec", prec_inf},
        {"phases", phases},
        {"detailed_seconds", comm.allreduce_max(detailed.seconds)},
        {"rows_max", comm.allreduce_max(owned)},
        {"rows_min", comm.allreduce_min(owned)},
        {"nnz_max", comm.allreduce_max(static_cast<std::int64_t>(p.local.a.nnz()))},
        {"boundary_rows_max", comm.allreduce_max(static_cast<std::int64_t>(split.boundary_rows))},
        {"boundary_nnz_max", comm.allreduce_max(split.boundary_nnz)},
        {"halo",
         {{"words_received_total", total(static_cast<double>(h.words_received()))},
          {"words_received_max", comm.allreduce_max(static_cast<std::int64_t>(h.words_received()))},
          {"words_sent_max", comm.allreduce_max(static_cast<std::int64_t>(h.words_sent()))},
          {"messages_received_total", total(static_cast<double>(h.messages_received()))},
          {"messages_received_max", comm.allreduce_max(h.messages_received())}}},
        {"link", link_json(link)},
        {"launch_figures", launch_figures},
    };
    add_device_fields(doc, dev);
    return doc;
}

}  // namespace

void add_dist_gmres_subcommand(CLI::App* dist)
{
    auto a = std::make_shared<DistArgs>();
    const DistGmresParameters defaults;  // zianekhodja2014's GMRES, as its runners pass it
    a->gmres.restart = defaults.restart;
    a->gmres.tolerance = defaults.tolerance;
    a->gmres.max_iterations = defaults.max_iterations;
    a->gmres.orth = solvers::parse_arnoldi_orth(defaults.orth);
    auto* sub = add_worker_subcommand<DistArgs>(
        dist, "gmres",
        "Jacobi-preconditioned GMRES(m) on P ranks (zianekhodja2014): b = 1, x0 = 0; one "
        "warm-up, timed solves, one detailed solve; rank 0 writes JSON",
        "natural or hypergraph (Zoltan PHG)", a, run, [](DistArgs& o) {
            o.setup.partition = o.partition;
            o.setup.scheme = dist::parse_halo_scheme(o.scheme);
            o.gmres.orth = solvers::parse_arnoldi_orth(o.orth);
        });
    sub->add_option("--target-rows", a->setup.target_rows,
                    "replicate entries: rows of the generated matrix instead of the set's");
    sub->add_option("--rows-per-rank", a->setup.rows_per_rank,
                    "replicate entries: rows per rank (weak scaling: target = this x ranks)");
    sub->add_option("--scheme", a->scheme, "halo scheme: compressed or bandwidth (row-by-row)")
        ->capture_default_str();
    sub->add_option("--restart", a->gmres.restart, "restart length m")->capture_default_str();
    sub->add_option("--tolerance", a->gmres.tolerance,
                    "stop at ||M^-1 (b - A x)|| / ||M^-1 b|| <= this")->capture_default_str();
    sub->add_option("--max-iterations", a->gmres.max_iterations, "iteration limit")
        ->capture_default_str();
    sub->add_option("--orth", a->orth, "Arnoldi orthogonalization: mgs, cgs2 or lowsync (one-reduce CGS2)")
        ->capture_default_str();
    sub->add_option("--preconditioner", a->preconditioner, "jacobi or none")
        ->capture_default_str();
    sub->add_option("--repetitions", a->repetitions, "timed solves after the warm-up (median)")
        ->capture_default_str();
    sub->add_option("--warmups", a->warmups, "untimed solves before the timed ones")
        ->capture_default_str();
    sub->add_option("--solution", a->solution,
                    "rank 0 writes x (original numbering, raw little-endian doubles) to FILE");
    sub->add_flag("!--no-link", a->link, "skip the link measurement");
    sub->add_flag("!--no-detailed", a->detailed,
                  "skip the detailed solve (its phases: the computation / communication split)");
    sub->add_option("--partition-cache", a->setup.partition_cache,
                    "hypergraph: read the partition from PREFIX.<rank>of<P>, or make and write "
                    "it; auto: the file `kbench reproduce` uses, in kbench's cache directory");
    sub->add_flag("--partition-only", a->partition_only,
                  "stop after building and partitioning (with --partition-cache: make the cache "
                  "on a CPU node for a later GPU run); the JSON has the partition fields only");
}

}  // namespace kbench::harness
