// `kbench dist ca-gmres`: the yamazaki2014 Fig. 14 comparison on P ranks, launched as
// `mpirun -np P kbench dist ca-gmres ...` (by hand, or by the yamazaki2014/fig14 runner of
// harness/studies/yamazaki2014/bench_ca_gmres.hpp on a machine of several GPUs). Every rank builds
// the whole matrix of a matrix-set entry (the sets of this study fit one host), balances it as the
// one-GPU runs do, partitions the rows (natural blocks, or METIS k-way) and, on one GPU per rank
// (host_staged or NCCL transport) or on CPU ranks, solves the balanced system with b of
// harness/studies/yamazaki2014/ca_gmres_rows.hpp (the one-GPU runs' b), x0 = 0, to the relative
// residual 1e-4, with
//  * GMRES(m) on the distributed layer (solvers/distributed/distributed_gmres.hpp, no
//    preconditioner): CGS2, MGS and, on GPU ranks, the one-reduce CGS2 (low-sync);
//  * CA-GMRES(1, m) and (s, m) on it (distributed_ca_gmres.hpp) with each Gram-based TSQR
//    (CholQR, CholQR2, SVQR, shifted CholQR3; the others do not run on several ranks), the
//    monomial basis, the normalized Newton basis with CholQR2, and the two-stage block
//    orthogonalization with the basis and TSQR of the fastest converged s > 1 row; a TSQR
//    that fails is redone by shifted CholQR3, as on one GPU.
// m and s: --restart and --steps (the runner passes the paper's per matrix, fig14::paper_setup).
// Each row: one untimed solve to the tolerance, up to --repetitions timed solves (about 0.5 s of
// them, at least 2; fig14::timed_repetitions; the slowest rank's seconds, median; in timing mode
// for three full cycles when the untimed solve took fewer, fig14::timed_iterations), one
// detailed solve run like the timed ones for the phase split (GMRES: SpMV = its "spmv" and "halo" phases, Orth =
// the rest of a cycle; CA-GMRES: SpMV = MPK, Orth = BOrth + TSQR).
//
// JSON (rank 0): {"matrix", "n", "nnz", "ranks", "device", "gpu_name" and "transport" (gpu
//   only), "host_staged_path" ("shared_memory" | "mpi_messages": the halo exchange's mechanism,
//   gpu host_staged only), "overlap" (whether GMRES's timed solves overlapped each SpMV's halo
//   exchange with the interior rows' product: gpu without --no-overlap; their detailed solves
//   never do, so the GMRES rows' SpMV time is that of the serial exchange and product),
//   "partition", "restart", "steps", "build_seconds", "rows_max", "rows_min",
//   "halo_words_max" (one SpMV's halo, the largest rank's), "rows": [fig14 rows of
//   harness/studies/yamazaki2014/ca_gmres_rows.hpp with "speedup" over this run's GMRES(m)
//   CGS2 row]}.
// Errors end every rank (harness/mpi/dist_worker.hpp run_worker; rank 0 writes {"error": message}).
#include "harness/studies/yamazaki2014/ca_gmres_rows.hpp"
#include "harness/studies/yamazaki2014/dist_ca_gmres_worker.hpp"

#include "harness/mpi/dist_worker.hpp"
#include "harness/core/timing.hpp"

#include "kernels/base/cuda_check.hpp"
#include "kernels/base/cuda_handles.hpp"
#include "kernels/base/device_buffer.hpp"
#include "kernels/machine_probe.hpp"
#include "matrices/matrix_set.hpp"
#include "solvers/distributed/distributed_ca_gmres.hpp"
#include "solvers/distributed/distributed_gmres.hpp"
#include "solvers/distributed/distributed_mpk.hpp"
#include "solvers/distributed/distributed_spmv.hpp"
#include "solvers/distributed/row_distribution.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <optional>

namespace kbench::harness {
namespace {

using nlohmann::json;
namespace sv = kbench::solvers;

struct CaArgs : WorkerArgs {
    int restart = 30;
    int steps = 15;
    int repetitions = 10;
};

/// b (this rank's owned entries of the global b, local order) and x, on the host or the device;
/// x is reset to x0 = 0 before every solve.
struct RankVectors {
    std::vector<double> b, x;
    std::optional<device_buffer<double>> db, dx;
    RankVectors(const dist::HaloLayout& layout, const std::vector<double>& global_b, bool gpu)
        : b(dist::local_vector(layout, global_b))
    {
        b.resize(static_cast<std::size_t>(layout.num_owned));  // the ghost entries are not b's
        x.assign(b.size(), 0.0);
        if (gpu) {
            db.emplace(b);
            dx.emplace(std::max<std::size_t>(b.size(), 1));
        }
    }
    void reset(cudaStream_t stream)
    {
        std::fill(x.begin(), x.end(), 0.0);
        if (!dx) return;
        KBENCH_CUDA_CHECK(cudaMemsetAsync(dx->data(), 0, dx->size() * sizeof(double), stream));
        KBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
    }
};

/// One untimed solve(false, 0) to the tolerance (returned: status, iterations, restarts; the
/// same on every rank), then fig14::timed_repetitions(its slowest rank's seconds, max_reps)
/// timed solves(false, fixed) with fixed = fig14::timed_iterations (0, or at least three full
/// cycles in timing mode; slowest rank, median in `seconds`, their iterations in `iterations`)
/// and one detailed solve(true, fixed).
template <typename R>
R timed(const dist::Communicator& comm, int max_reps, int m,
        const std::function<R(bool, int)>& solve, double& seconds, int& iterations, R& detailed)
{
    const R converged = solve(false, 0);
    const int fixed = fig14::timed_iterations(converged.iterations, m);
    const double scale = fixed > 0 && converged.iterations > 0
                             ? double(fixed) / converged.iterations : 1.0;
    const int reps = fig14::timed_repetitions(
        comm.allreduce_max(converged.seconds) * scale, max_reps);
    std::vector<double> t;
    R r{};
    for (int i = 0; i < reps; ++i) {
        r = solve(false, fixed);
        t.push_back(comm.allreduce_max(r.seconds));
    }
    seconds = median(t);
    iterations = r.iterations;
    detailed = solve(true, fixed);
    return converged;
}

json run(const dist::Communicator& comm, const CaArgs& o)
{
    const MatrixEntry entry = find_matrix_entry(o.source, o.matrix);
    WorkerDevice dev = open_worker_device(comm, o.device, o.transport);
    if (o.repetitions < 1)
        throw std::invalid_argument(fmt::format("--repetitions: {}, expected >= 1", o.repetitions));
    if (o.restart < 1 || o.steps < 1 || o.steps > o.restart)
        throw std::invalid_argument(fmt::format(
            "--restart {} / --steps {}: expected 1 <= steps <= restart", o.restart, o.steps));
    const bool gpu = dev.gpu;
    const int np = comm.size(), m = o.restart;

    auto t0 = std::chrono::steady_clock::now();
    const Csr<double> a = build_matrix(entry);
    const sv::Balanced<double> bal = sv::balance(a);
    const std::vector<double> b = fig14::balanced_rhs(bal.row_scale);
    const std::vector<int> part = worker_partition(a, o.partition, np);
    const dist::LocalMatrix<double> local1 = dist::distribute(comm, bal.matrix, part, np);
    const dist::MpkLocalMatrix<double> local_s =
        dist::distribute_mpk(comm, bal.matrix, part, np, o.steps);
    const double build_seconds = comm.allreduce_max(seconds_since(t0));

    std::optional<cuda_stream> stream;
    if (gpu) stream.emplace();
    const cudaStream_t st = gpu ? stream->get() : nullptr;
    const spmv::Policy policy{"auto"};
    const models::SpmvMachine machine = gpu ? spmv::machine_figures() : models::SpmvMachine{};
    RankVectors v1(local1.halo, b, gpu);
    RankVectors vs(local_s.halo, b, gpu);

    json rows = json::array();
    double gmres_cycle = std::numeric_limits<double>::quiet_NaN();
    const auto add = [&](json row, double cycle) {
        row["speedup"] = fig14::finite_or_null(gmres_cycle / cycle);
        if (comm.rank() == 0)
            fmt::print(stderr, "kbench dist ca-gmres: {} P={} {}: {} ({} iterations), {:.3g} ms "
                               "per restart\n",
                       o.matrix, np, row.at("label").get<std::string>(),
                       row.at("status").get<std::string>(), row.at("iterations").get<int>(),
                       cycle * 1e3);
        rows.push_back(std::move(row));
    };

    // GMRES(m) on the s = 1 distribution.
    {
        std::optional<dist::DistributedSpmvCpu<double>> cpu_spmv;
        std::optional<dist::DistributedSpmv<double>> gpu_spmv;
        if (gpu)
            gpu_spmv.emplace(comm, local1, dev.transport, policy, machine, dev.nccl.get(),
                             o.overlap);
        else cpu_spmv.emplace(comm, local1);
        std::vector<sv::ArnoldiOrth> orths{sv::ArnoldiOrth::cgs2, sv::ArnoldiOrth::mgs};
        if (gpu) orths.push_back(sv::ArnoldiOrth::cgs2_lowsync);  // GPU ranks only
        for (const sv::ArnoldiOrth orth : orths) {
            const std::function<sv::SolveResult(bool, int)> solve = [&](bool detail,
                                                                        int fixed_its) {
                const sv::GmresOptions go = fig14::gmres_options(m, orth, fixed_its);
                v1.reset(st);
                comm.barrier();
                if (gpu)
                    return dist::distributed_gmres(comm, *gpu_spmv, local1, v1.db->data(),
                                                   v1.dx->data(), go,
                                                   dist::Preconditioner::none, st, detail);
                return dist::distributed_gmres_cpu(comm, *cpu_spmv, v1.b, v1.x, go,
                                                   dist::Preconditioner::none, detail);
            };
            double seconds = 0.0;
            int iterations = 0;
            sv::SolveResult d;
            const sv::SolveResult r = timed<sv::SolveResult>(comm, o.repetitions, m, solve,
                                                             seconds, iterations, d);
            const double spmv = comm.allreduce_max(fig14::phase_seconds(d.phases, "spmv") +
                                                   fig14::phase_seconds(d.phases, "halo"));
            const double spmv_cycle = d.iterations > 0 ? spmv * m / d.iterations : 0.0;
            const double cycle = fig14::per_cycle(seconds, iterations, m);
            if (orth == sv::ArnoldiOrth::cgs2) gmres_cycle = cycle;
            add(fig14::gmres_row(m, orth, r, seconds, iterations, spmv_cycle), cycle);
        }
    }

    // CA-GMRES(s, m) on the s-step distribution.
    std::optional<dist::DistributedMpkCpu<double>> cpu_mpk;
    std::optional<dist::DistributedMpk<double>> gpu_mpk;
    if (gpu) gpu_mpk.emplace(comm, local_s, dev.transport, policy, machine, dev.nccl.get());
    else cpu_mpk.emplace(comm, local_s);
    const auto run_ca = [&](const fig14::CaConfig& c, sv::CaBorth borth) {
        const std::function<sv::CaGmresResult(bool, int)> solve = [&](bool detail,
                                                                       int fixed_its) {
            sv::CaGmresOptions co = fig14::ca_options(c, m, borth, fixed_its);
            vs.reset(st);
            co.detailed = detail;
            comm.barrier();
            if (gpu)
                return dist::distributed_ca_gmres(comm, *gpu_mpk, vs.db->data(), vs.dx->data(),
                                                  co, st);
            return dist::distributed_ca_gmres_cpu(comm, *cpu_mpk, vs.b, vs.x, co);
        };
        double seconds = 0.0;
        int iterations = 0;
        sv::CaGmresResult d;
        const sv::CaGmresResult r =
            timed<sv::CaGmresResult>(comm, o.repetitions, m, solve, seconds, iterations, d);
        for (auto& p : d.phases) p.seconds = comm.allreduce_max(p.seconds);
        const double cycle = fig14::per_cycle(seconds, iterations, m);
        add(fig14::ca_row(m, c, borth, r, seconds, iterations, d), cycle);
        return r.status == sv::SolveStatus::converged && std::isfinite(cycle)
                   ? cycle
                   : std::numeric_limits<double>::infinity();
    };
    const std::vector<fig14::CaConfig> configs = fig14::ca_configs(o.steps, true);
    fig14::CaConfig best = configs.back();
    double best_cycle = std::numeric_limits<double>::infinity();
    for (const fig14::CaConfig& c : configs) {
        const double cycle = run_ca(c, sv::CaBorth::block);
        if (c.s > 1 && cycle < best_cycle) {
            best_cycle = cycle;
            best = c;
        }
    }
    run_ca(best, sv::CaBorth::two_stage);

    const auto rows_owned = static_cast<std::int64_t>(local1.halo.num_owned);
    json doc = {{"matrix", o.matrix},
                {"n", a.num_rows},
                {"nnz", a.nnz()},
                {"ranks", np},
                {"device", o.device},
                {"overlap", gpu && o.overlap && comm.size() > 1},
                {"partition", o.partition},
                {"restart", m},
                {"steps", o.steps},
                {"build_seconds", build_seconds},
                {"rows_max", comm.allreduce_max(rows_owned)},
                {"rows_min", comm.allreduce_min(rows_owned)},
                {"halo_words_max",
                 comm.allreduce_max(static_cast<std::int64_t>(local1.halo.words_received()))},
                {"rows", rows}};
    add_device_fields(doc, dev);
    if (gpu && dev.transport == dist::Transport::host_staged)
        doc["host_staged_path"] = gpu_mpk->exchange().host_staged_path();
    return doc;
}

}  // namespace

void add_dist_ca_gmres_subcommand(CLI::App* dist)
{
    auto a = std::make_shared<CaArgs>();
    auto* sub = add_worker_subcommand<CaArgs>(
        dist, "ca-gmres",
        "GMRES(m) vs CA-GMRES(s, m) on P ranks (yamazaki2014 Fig. 14): every TSQR that runs on "
        "several ranks, per-restart times; rank 0 writes JSON",
        "natural (block rows) or kway (METIS)", a, run);
    sub->add_option("--restart", a->restart, "restart length m")->capture_default_str();
    sub->add_option("--steps", a->steps, "step size s of CA-GMRES(s, m)")->capture_default_str();
    sub->add_option("--repetitions", a->repetitions, "timed solves per row at most (about 0.5 s "
                    "of them, at least 2; median)")->capture_default_str();
}

}  // namespace kbench::harness
