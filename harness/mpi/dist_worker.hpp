// What the MPI workers (`kbench dist gmres`, `kbench dist mpk`, `kbench dist ca-gmres`) share:
// finding their matrix-set entry, the distributed SpMV's overlap switch, opening each rank's GPU
// (and NCCL), declaring their subcommand, and running their body under MPI so that an error on any rank ends every rank
// instead of leaving the others waiting in a collective. Needs MPI (built only with it).
#pragma once

#include "harness/core/study_context.hpp"
#include "solvers/distributed/communicator.hpp"
#include "solvers/distributed/halo_exchange_gpu.hpp"

#include "matrices/csr.hpp"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace kbench::harness {

/// What every worker's command line names: the matrix-set entry, how its rows are partitioned,
/// the ranks' device and transport, and where rank 0 writes its JSON object.
struct WorkerArgs {
    MatrixSource source;
    std::string matrix;
    std::string partition = "natural";
    std::string device = "gpu";            // "cpu" | "gpu"
    std::string transport = "host_staged";  // "host_staged" | "nccl" (gpu only)
    std::string json;                       // empty: stdout
    bool overlap = true;  // gpu: the distributed SpMV overlaps its halo exchange (--no-overlap)
};

/// Adds --set (required), --matrix (required), --matrix-dir, --real, --quick, --partition (with
/// partition_help), --device, --transport, --no-overlap and --json to `sub`, bound to `a`.
void add_worker_options(CLI::App* sub, WorkerArgs& a, const std::string& partition_help);

/// The entry `name` of the matrix set of `source`. Throws std::invalid_argument naming
/// "--matrix" when the set has no such entry, and as load_matrix_set.
MatrixEntry find_matrix_entry(const MatrixSource& source, const std::string& name);

/// Where a worker's vectors live: CPU ranks, or one GPU per rank with a transport.
struct WorkerDevice {
    bool gpu = false;
    std::string gpu_name;  // the rank's GPU ("" on CPU ranks)
    dist::Transport transport = dist::Transport::host_staged;
    std::unique_ptr<dist::NcclCommunicator> nccl;  // for Transport::nccl on GPUs only
};

/// An error that every rank raises alike, from what every rank has (the options, the node's
/// GPUs): run_worker ends such a worker without MPI_Abort, rank 0 alone saying why.
struct WorkerUsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// Opens the rank's device: "cpu", or "gpu" (select_device, then an NCCL communicator when
/// `transport` is nccl). Collective. Throws WorkerUsageError naming "--device" or "--transport"
/// for an unknown name and for "gpu" where no GPU can be used (saying "or --device cpu"), and
/// as select_device and NcclCommunicator.
WorkerDevice open_worker_device(const dist::Communicator& comm, const std::string& device,
                                const std::string& transport);

/// On GPU ranks, sets a worker document's "gpu_name" and "transport" from dev; on CPU ranks
/// leaves doc as it is.
void add_device_fields(nlohmann::json& doc, const WorkerDevice& dev);

/// The rows' parts for a worker's --partition: "natural" (contiguous blocks,
/// matrices/row_partition.hpp block_partition) or "kway" (METIS, matrices/reorder.hpp
/// kway_partition). part[i] in [0, parts). Throws std::invalid_argument naming "--partition"
/// for another name, and std::runtime_error for kway without METIS.
std::vector<int> worker_partition(const Csr<double>& a, const std::string& how, int parts);

/// Seconds (steady clock) since t0.
double seconds_since(std::chrono::steady_clock::time_point t0);

/// Every rank's value, on every rank (entry d: rank d's). Collective.
template <typename T>
std::vector<T> per_rank(const dist::Communicator& comm, T value)
{
    std::vector<T> v(static_cast<std::size_t>(comm.size()), T(0));
    v[static_cast<std::size_t>(comm.rank())] = value;
    comm.allreduce_sum(v.data(), comm.size());
    return v;
}

/// Initializes MPI, runs body(world) on every rank and has rank 0 write the object it returns
/// to json_file (stdout when empty). With a json_file, each rank whose body ended writes its
/// rank_file (mpi_launch.hpp): finished, or the error it caught, so that the launcher names the
/// ranks that died or hung; once every rank has finished (a barrier) each removes its own. When
/// body throws a WorkerUsageError (on every rank), rank 0
/// prints "<command>: error: <what>" and writes {"error": <what>} to json_file, and every rank
/// finalizes MPI and exits with status 1. When body throws anything else on a rank, that rank
/// prints "<command>: error on rank r: <what>", rank 0 writes {"error": <what>} to json_file
/// when it is the one that caught it, and MPI_Abort ends all ranks (exit status non-zero).
/// Test-only: KBENCH_FAULT_INJECT="rank=R:exit" or "rank=R:hang" makes rank R, once its body
/// has returned and before it writes its rank file, exit at once (status 3, no MPI_Finalize,
/// as a crash) or hang until killed; the other ranks finish, so the launcher names R alone.
void run_worker(const char* command, const std::string& json_file,
                const std::function<nlohmann::json(const dist::Communicator&)>& body);

/// Adds the worker subcommand `name` to `dist` ("kbench dist <name>"): the options every worker
/// has (add_worker_options, into *args) and a callback that calls prepare(*args) (checks and
/// parses of the worker's own options, before MPI starts; may be empty), then body(comm, *args)
/// through run_worker, rank 0 writing to args->json. Returns the subcommand, to which the worker
/// adds its own options. Args derives from WorkerArgs.
template <typename Args>
CLI::App* add_worker_subcommand(
    CLI::App* dist, const std::string& name, const std::string& description,
    const std::string& partition_help, const std::shared_ptr<Args>& args,
    std::function<nlohmann::json(const dist::Communicator&, const Args&)> body,
    std::function<void(Args&)> prepare = {})
{
    CLI::App* sub = dist->add_subcommand(name, description);
    add_worker_options(sub, *args, partition_help);
    sub->callback([args, body = std::move(body), prepare = std::move(prepare),
                   command = "kbench dist " + name] {
        if (prepare) prepare(*args);
        run_worker(command.c_str(), args->json,
                   [&](const dist::Communicator& comm) { return body(comm, *args); });
    });
    return sub;
}

}  // namespace kbench::harness
