// `kbench dist mpk`: the matrix powers kernel (MPK) on P ranks against s distributed SpMVs
// (yamazaki2014 Sec. IV-B, Fig. 8), launched as `mpirun -np P kbench dist mpk ...` (by hand, or
// by the yamazaki2014/fig8 runner of harness/studies/yamazaki2014/bench_dist_mpk.hpp). Every rank
// builds the whole matrix of a matrix-set entry (the sets of this study are small), partitions it
// (natural blocks, or METIS k-way), and, on one GPU per rank (host_staged or NCCL transport) or on
// CPU ranks, times the generation of m basis vectors (--vectors, default 100):
//  * the baseline: m distributed SpMVs (DistributedSpmv / DistributedSpmvCpu), each with its
//    s = 1 halo exchange (on GPUs overlapped with the interior rows' product unless
//    --no-overlap), in chains of max(--steps) vectors started again from v_1 (the values
//    stay bounded), and its local-product part (the same SpMVs and copies without exchange);
//  * per s of --steps: floor(m / s) MPK calls of s steps and one of m mod s steps when that is
//    not 0 (DistributedMpk / DistributedMpkCpu of solvers/distributed/distributed_mpk.hpp, every
//    call from v_1), the total and its local-product ("SpMV") part (products(): no exchange),
//    and the largest deviation of one s-step call from s baseline SpMVs;
//  * the figures the model prices with (models/mpk_model.hpp): the link (harness/mpi/dist_link.hpp
//    measure_link, over the run's own transport), every rank's local SpMV time on its s = 1
//    local matrix (same kernel policy), and the per-part counts of mpk_part_counts
//    (matrices/row_partition.hpp) for each s.
// Monomial basis (timing only; the Newton basis adds one fused combination per step). Times
// are the slowest rank's wall time of a whole sweep of m vectors (GPU: after a stream
// synchronization), median of --repetitions sweeps after one untimed sweep.
//
// JSON (rank 0, to --json or stdout); lists "[d]" are per rank, "[d][k-1]" per rank and k:
// {"matrix", "n", "nnz", "ranks", "device" ("cpu" | "gpu"), "gpu_name", "transport" (gpu only),
//  "overlap" (whether the baseline's SpMVs overlapped their exchange: gpu without --no-overlap;
//  the MPK never does), "partition", "vectors" (m), "repetitions", "basis" ("monomial"),
//  "build_seconds",
//  "rows" [d], "local_nnz" [d] (nnz of the part's rows),
//  "halo_s1" {"words" [d], "messages" [d]} (one SpMV's exchange: |delta^(d,1)|, neighbours),
//  "spmv" {"kernel" (rank 0's own-row kernel), "seconds" [d] (one local SpMV, median; GPU:
//          CUDA events), "seconds_min" [d], "seconds_max" [d] (the samples' spread),
//          "flops_per_second" [d] (2 local_nnz / seconds)},
//  "link" {"latency_seconds", "bandwidth_bytes_per_second", "allreduce_seconds",
//          "host_staged_path" ("shared_memory" | "mpi_messages"; gpu host_staged only),
//          "host_staged_note" (why mpi_messages, when there is a reason)},
//  "baseline" {"seconds", "seconds_all", "products_seconds", "products_seconds_all",
//              "exchanges", "chain"} (m SpMVs; exchanges counted on rank 0 per sweep),
//  "mpk" [{"s", "calls", "last_call_steps" (m mod s, 0: none), "setup_seconds" (index sets,
//          plan, local matrices and the MPK object, slowest rank), "seconds", "seconds_all",
//          "products_seconds", "products_seconds_all", "max_rel_error" (one s-step call vs s
//          SpMVs, over all ranks, relative to each column's largest entry), "exchanges" (rank 0,
//          per sweep), "words_received" [d] and "messages_received" [d] (one call),
//          "call_nnz" [d] (nonzeros one s-step call multiplies), "kernel" (gpu, rank 0),
//          "counts" {"own_rows" [d], "own_nnz" [d], "boundary_rows" [d][k-1],
//                    "boundary_nnz" [d][k-1], "mpk_messages" [d]} (MpkPartCounts of s steps)}]}
// Errors end every rank (harness/mpi/dist_worker.hpp run_worker; rank 0 writes {"error": message}).
#include "harness/studies/yamazaki2014/dist_mpk_worker.hpp"

#include "harness/mpi/dist_link.hpp"
#include "harness/mpi/dist_worker.hpp"
#include "harness/core/results_json.hpp"
#include "harness/core/study_context.hpp"
#include "harness/core/timing.hpp"

#include "kernels/base/cuda_check.hpp"
#include "kernels/base/cuda_handles.hpp"
#include "kernels/base/device_buffer.hpp"
#include "kernels/machine_probe.hpp"
#include "kernels/spmv.hpp"
#include "matrices/matrix_set.hpp"
#include "matrices/reorder.hpp"
#include "matrices/row_partition.hpp"
#include "solvers/distributed/distributed_mpk.hpp"
#include "solvers/distributed/distributed_spmv.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>

namespace kbench::harness {
namespace {

using nlohmann::json;

struct MpkArgs : WorkerArgs {
    std::vector<int> steps = {1, 2, 3, 5, 8, 10, 15, 20};
    int vectors = 100;
    int repetitions = 10;
    bool link = true;
};

/// The calls of a sweep of m vectors in calls of at most s steps: floor(m / s) of s, then one
/// of m mod s when it is not 0.
std::vector<int> call_lengths(int m, int s)
{
    std::vector<int> calls(static_cast<std::size_t>(m / s), s);
    if (m % s != 0) calls.push_back(m % s);
    return calls;
}

/// The vectors of one rank: v_1 (column 0) and room for the steps, in host or device memory.
/// On the GPU, `sync` waits for the stream; on the CPU it does nothing.
struct Block {
    std::int64_t ld = 1;
    int columns = 1;
    std::vector<double> host;
    std::optional<device_buffer<double>> device;
    double* data() { return device ? device->data() : host.data(); }
    std::vector<double> to_host() const { return device ? device->to_host() : host; }
};

/// The timed sweeps of one kind of work: `sweep()` once untimed, then `reps` times between
/// barriers; the slowest rank's seconds of each (after `sync`).
std::vector<double> time_sweeps(const dist::Communicator& comm, int reps,
                                const std::function<void()>& sweep,
                                const std::function<void()>& sync)
{
    sweep();
    sync();
    std::vector<double> samples;
    for (int r = 0; r < reps; ++r) {
        comm.barrier();
        const auto t0 = std::chrono::steady_clock::now();
        sweep();
        sync();
        samples.push_back(comm.allreduce_max(seconds_since(t0)));
    }
    return samples;
}

/// max over columns 1..k and ranks of |got - want| / (largest |want| of the column, all ranks).
double max_rel_error(const dist::Communicator& comm, const std::vector<double>& got,
                     const std::vector<double>& want, std::int64_t ld, index_type rows, int k)
{
    double worst = 0.0;
    for (int j = 1; j <= k; ++j) {
        double scale = 0.0, err = 0.0;
        for (index_type i = 0; i < rows; ++i) {
            const auto e = static_cast<std::size_t>(j * ld + i);
            scale = std::max(scale, std::abs(want[e]));
            err = std::max(err, std::abs(got[e] - want[e]));
        }
        scale = comm.allreduce_max(scale);
        err = comm.allreduce_max(err);
        worst = std::max(worst, scale > 0.0 ? err / scale : err);
    }
    return worst;
}

json run(const dist::Communicator& comm, const MpkArgs& o)
{
    const MatrixEntry entry = find_matrix_entry(o.source, o.matrix);
    WorkerDevice dev = open_worker_device(comm, o.device, o.transport);
    const bool gpu = dev.gpu;
    const dist::Transport transport = dev.transport;
    if (o.vectors < 1)
        throw std::invalid_argument(fmt::format("--vectors: {}, expected >= 1", o.vectors));
    if (o.repetitions < 1)
        throw std::invalid_argument(fmt::format("--repetitions: {}, expected >= 1", o.repetitions));
    if (o.steps.empty() || *std::min_element(o.steps.begin(), o.steps.end()) < 1)
        throw std::invalid_argument("--steps: expected a non-empty list of s >= 1");
    const int s_max = *std::max_element(o.steps.begin(), o.steps.end());
    const int m = o.vectors, np = comm.size(), rank = comm.rank();

    const std::unique_ptr<dist::NcclCommunicator>& nccl = dev.nccl;
    std::optional<cuda_stream> stream;
    if (gpu) stream.emplace();
    const cudaStream_t st = gpu ? stream->get() : nullptr;
    const auto sync = [&] {
        if (gpu) KBENCH_CUDA_CHECK(cudaStreamSynchronize(st));
    };

    // The problem: the whole matrix on every rank, its partition and s = 1 distribution.
    auto t0 = std::chrono::steady_clock::now();
    const Csr<double> a = build_matrix(entry);
    const std::vector<int> part = worker_partition(a, o.partition, np);
    const dist::LocalMatrix<double> local1 = dist::distribute(comm, a, part, np);
    const dist::RowDistribution distribution = dist::row_distribution(a.num_rows, part, np);
    const HaloPlan halo1 = halo_plan(a, part, np, 1);
    const double build_seconds = comm.allreduce_max(seconds_since(t0));
    const index_type owned = local1.halo.num_owned;
    const spmv::Policy policy{"auto"};
    const models::SpmvMachine machine = gpu ? spmv::machine_figures() : models::SpmvMachine{};

    // v_1 on the own rows: 1 + sin(g) / 4 (no zero, every entry its own value).
    Block v;
    v.ld = std::max<index_type>(owned, 1);
    v.columns = s_max + 1;
    v.host.assign(static_cast<std::size_t>(v.ld) * v.columns, 0.0);
    for (index_type i = 0; i < owned; ++i)
        v.host[static_cast<std::size_t>(i)] =
            1.0 + std::sin(static_cast<double>(local1.halo.owned_global[i])) / 4.0;
    Block ref = {v.ld, v.columns, v.host, std::nullopt};  // s_max SpMVs from v_1 (checks)
    if (gpu) {
        v.device.emplace(v.host);
        ref.device.emplace(ref.host);
    }

    // The baseline: SpMVs with their s = 1 exchange, and the local operator alone.
    std::optional<dist::DistributedSpmvCpu<double>> cpu_spmv;
    std::optional<dist::DistributedSpmv<double>> gpu_spmv;
    std::optional<spmv::SpmvOperator<double>> local_op;  // the same kernel, no exchange
    if (gpu) {
        gpu_spmv.emplace(comm, local1, transport, policy, machine, nccl.get(), o.overlap);
        if (owned > 0) local_op.emplace(local1.a, policy, machine);
    } else {
        cpu_spmv.emplace(comm, local1);
    }
    const auto local_size = static_cast<std::size_t>(local1.halo.local_size());
    std::vector<double> x_host(local_size, 0.0);
    std::optional<device_buffer<double>> x_dev;
    if (gpu) x_dev.emplace(std::max<std::size_t>(local_size, 1));
    // One SpMV of the baseline: column j-1 of `b` -> column j, with or without the exchange.
    const auto spmv_step = [&](Block& b, int j, bool exchange) {
        double* col = b.data() + (j - 1) * b.ld;
        double* out = col + b.ld;
        if (gpu) {
            if (owned > 0)
                KBENCH_CUDA_CHECK(cudaMemcpyAsync(x_dev->data(), col, sizeof(double) * owned,
                                                  cudaMemcpyDeviceToDevice, st));
            if (exchange) gpu_spmv->apply(1.0, x_dev->data(), 0.0, out, st);
            else if (local_op) local_op->apply(1.0, x_dev->data(), 0.0, out, st);
        } else {
            std::copy(col, col + owned, x_host.begin());
            if (exchange) cpu_spmv->apply(1.0, x_host.data(), 0.0, out);
            else spmv::reference::csr(local1.a.view(), 1.0, x_host.data(), 0.0, out);
        }
    };
    const auto baseline_sweep = [&](bool exchange) {
        for (const int k : call_lengths(m, s_max))
            for (int j = 1; j <= k; ++j) spmv_step(v, j, exchange);
    };
    const auto base_all = time_sweeps(comm, o.repetitions, [&] { baseline_sweep(true); }, sync);
    const auto base_local = time_sweeps(comm, o.repetitions, [&] { baseline_sweep(false); }, sync);
    const auto& base_counters = gpu ? gpu_spmv->counters() : cpu_spmv->counters();
    const std::int64_t before = base_counters.exchanges;
    baseline_sweep(true);
    sync();
    const std::int64_t base_exchanges = base_counters.exchanges - before;

    // Every rank's local SpMV time: median of max(--repetitions, 5) samples of 10 back-to-back
    // products each, after 10 untimed ones. On GPUs CUDA events time the products on the stream,
    // so host-side delays (a synchronization's wake-up, the other ranks' threads) do not count:
    // a 4-GPU run once read 44 us per product here by the host clock while the sweep's own local
    // products took 5.8 us, and the model took that rate on trust.
    std::vector<double> spmv_samples;
    {
        constexpr int batch = 10;
        const auto products = [&] {
            for (int i = 0; i < batch; ++i) {
                if (gpu && local_op)
                    local_op->apply(1.0, x_dev->data(), 0.0, v.data() + v.ld, st);
                if (!gpu)
                    spmv::reference::csr(local1.a.view(), 1.0, x_host.data(), 0.0,
                                         v.data() + v.ld);
            }
        };
        products();  // warm-up
        sync();
        std::optional<cuda_event> start, stop;
        if (gpu) {
            start.emplace();
            stop.emplace();
        }
        for (int r = 0; r < std::max(o.repetitions, 5); ++r) {
            const auto t1 = std::chrono::steady_clock::now();
            if (gpu) start->record(st);
            products();
            if (gpu) stop->record(st);
            sync();
            spmv_samples.push_back((gpu ? stop->seconds_since(*start) : seconds_since(t1)) /
                                   batch);
        }
    }
    const double spmv_seconds = median(spmv_samples);
    const auto local_nnz = static_cast<double>(local1.a.nnz());

    LinkFigures link;
    if (o.link) link = measure_link(comm, gpu, transport, nccl.get());

    for (int j = 1; j <= s_max; ++j) spmv_step(ref, j, true);
    sync();
    const std::vector<double> ref_host = ref.to_host();

    json mpk_entries = json::array();
    for (const int s : o.steps) {
        t0 = std::chrono::steady_clock::now();
        const std::vector<MpkIndexSets> sets = mpk_index_sets(a, part, np, s);
        const HaloPlan plan = halo_plan(sets, part, np);
        const dist::MpkLocalMatrix<double> local =
            dist::mpk_local_matrix(a, distribution, sets[static_cast<std::size_t>(rank)], plan,
                                   rank);
        std::optional<dist::DistributedMpkCpu<double>> cpu_mpk;
        std::optional<dist::DistributedMpk<double>> gpu_mpk;
        if (gpu) gpu_mpk.emplace(comm, local, transport, policy, machine, nccl.get());
        else cpu_mpk.emplace(comm, local);
        const double setup_seconds = comm.allreduce_max(seconds_since(t0));
        json counts = json::object();
        if (rank == 0) {
            const auto c = mpk_part_counts(a, sets, halo1);
            std::vector<double> own_rows, own_nnz, messages;
            std::vector<std::vector<double>> b_rows, b_nnz;
            for (const auto& p : c) {
                own_rows.push_back(p.own_rows);
                own_nnz.push_back(p.own_nnz);
                messages.push_back(p.mpk_messages);
                b_rows.push_back(p.boundary_rows);
                b_nnz.push_back(p.boundary_nnz);
            }
            counts = {{"own_rows", own_rows}, {"own_nnz", own_nnz}, {"boundary_rows", b_rows},
                      {"boundary_nnz", b_nnz}, {"mpk_messages", messages}};
        }

        const auto call = [&](int k, bool exchange) {
            const std::vector<dist::MpkStep> steps(static_cast<std::size_t>(k));
            if (gpu) {
                if (exchange) gpu_mpk->apply(steps, v.data(), v.ld, st);
                else gpu_mpk->products(steps, v.data(), v.ld, st);
            } else {
                if (exchange) cpu_mpk->apply(steps, v.data(), v.ld);
                else cpu_mpk->products(steps, v.data(), v.ld);
            }
        };
        // Correctness of one s-step call against the SpMV chain.
        call(s, true);
        sync();
        const double error = max_rel_error(comm, v.to_host(), ref_host, v.ld, owned,
                                           std::min(s, s_max));
        const auto lengths_s = call_lengths(m, s);
        const auto sweep = [&](bool exchange) {
            for (const int k : lengths_s) call(k, exchange);
        };
        const auto total = time_sweeps(comm, o.repetitions, [&] { sweep(true); }, sync);
        const auto products = time_sweeps(comm, o.repetitions, [&] { sweep(false); }, sync);
        // The traffic of one sweep, counted.
        if (gpu) gpu_mpk->reset_counters();
        else cpu_mpk->reset_counters();
        sweep(true);
        sync();
        const auto& counted = gpu ? gpu_mpk->counters() : cpu_mpk->counters();
        const auto calls = static_cast<double>(std::max<std::int64_t>(counted.exchanges, 1));
        const double words = static_cast<double>(counted.bytes_received) / sizeof(double) / calls;
        const double messages = static_cast<double>(counted.messages_received) / calls;
        json e = {{"s", s},
                  {"calls", static_cast<int>(lengths_s.size())},
                  {"last_call_steps", m % s},
                  {"setup_seconds", setup_seconds},
                  {"seconds", median(total)},
                  {"seconds_all", total},
                  {"products_seconds", median(products)},
                  {"products_seconds_all", products},
                  {"max_rel_error", error},
                  {"exchanges", comm.allreduce_max(counted.exchanges)},
                  {"words_received", per_rank(comm, words)},
                  {"messages_received", per_rank(comm, messages)},
                  {"call_nnz", per_rank(comm, static_cast<double>(local.call_nnz(s)))},
                  {"counts", counts}};
        if (gpu) {
            const spmv::Choice* choice = gpu_mpk->choice();
            e["kernel"] = choice != nullptr ? spmv::kernel_name(choice->kernel) : "none";
        }
        mpk_entries.push_back(std::move(e));
        if (rank == 0)
            fmt::print(stderr, "kbench dist mpk: {} P={} s={}: {:.3g} ms (products {:.3g} ms), "
                               "baseline {:.3g} ms, error {:.2g}\n",
                       o.matrix, np, s, median(total) * 1e3, median(products) * 1e3,
                       median(base_all) * 1e3, error);
    }

    const std::vector<double> flops_per_second =
        per_rank(comm, spmv_seconds > 0.0 ? 2.0 * local_nnz / spmv_seconds : 0.0);
    std::vector<double> halo_words, halo_messages;
    for (int d = 0; d < np; ++d) {
        halo_words.push_back(static_cast<double>(halo1.received(d)));
        halo_messages.push_back(static_cast<double>(halo1.neighbours(d)));
    }
    std::string kernel = "csr_reference";
    // The kernel of the local SpMV timed above (A_local's own operator; with overlap the
    // distributed SpMV's interior operator may pick another).
    if (gpu) kernel = local_op ? spmv::kernel_name(local_op->choice().kernel) : "none";
    json doc = {
        {"matrix", o.matrix},
        {"n", a.num_rows},
        {"nnz", a.nnz()},
        {"ranks", np},
        {"device", o.device},
        {"overlap", gpu && o.overlap && comm.size() > 1},
        {"partition", o.partition},
        {"vectors", m},
        {"repetitions", o.repetitions},
        {"basis", "monomial"},
        {"build_seconds", build_seconds},
        {"rows", per_rank(comm, static_cast<double>(owned))},
        {"local_nnz", per_rank(comm, local_nnz)},
        {"halo_s1", {{"words", halo_words}, {"messages", halo_messages}}},
        {"spmv",
         {{"kernel", kernel},
          {"seconds", per_rank(comm, spmv_seconds)},
          {"seconds_min",
           per_rank(comm, *std::min_element(spmv_samples.begin(), spmv_samples.end()))},
          {"seconds_max",
           per_rank(comm, *std::max_element(spmv_samples.begin(), spmv_samples.end()))},
          {"flops_per_second", flops_per_second}}},
        {"link", link_json(link)},
        {"baseline",
         {{"seconds", median(base_all)},
          {"seconds_all", base_all},
          {"products_seconds", median(base_local)},
          {"products_seconds_all", base_local},
          {"exchanges", comm.allreduce_max(base_exchanges)},
          {"chain", s_max}}},
        {"mpk", mpk_entries},
    };
    add_device_fields(doc, dev);
    return doc;
}

}  // namespace

void add_dist_mpk_subcommand(CLI::App* dist)
{
    auto a = std::make_shared<MpkArgs>();
    auto* sub = add_worker_subcommand<MpkArgs>(
        dist, "mpk",
        "Matrix powers kernel vs s SpMVs on P ranks (yamazaki2014 Fig. 8): m vectors in calls of "
        "s steps, total and local-product times; rank 0 writes JSON",
        "natural (block rows) or kway (METIS)", a, run);
    sub->add_option("--steps", a->steps, "the step counts s, e.g. 1,2,3,5")
        ->delimiter(',')
        ->capture_default_str();
    sub->add_option("--vectors", a->vectors, "basis vectors m per sweep")->capture_default_str();
    sub->add_option("--repetitions", a->repetitions, "timed sweeps after the warm-up (median)")
        ->capture_default_str();
    sub->add_flag("!--no-link", a->link, "skip the link measurement");
}

}  // namespace kbench::harness
