// Shared pieces of the MPI workers; see dist_worker.hpp.
#include "harness/mpi/dist_worker.hpp"

#include "harness/core/results_json.hpp"
#include "harness/mpi/mpi_launch.hpp"  // rank_file
#include "kernels/base/cuda_check.hpp"
#include "kernels/base/device.hpp"
#include "matrices/reorder.hpp"
#include "matrices/row_partition.hpp"

#include <CLI/CLI.hpp>
#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <regex>
#include <stdexcept>

namespace kbench::harness {

void add_worker_options(CLI::App* sub, WorkerArgs& a, const std::string& partition_help)
{
    sub->add_option("--set", a.source.set, "matrix set: shipped name or manifest path")
        ->required();
    sub->add_option("--matrix", a.matrix, "the entry of the set")->required();
    sub->add_option("--matrix-dir", a.source.matrix_dir,
                    "directory of Matrix Market files (default $KBENCH_MATRIX_DIR)");
    sub->add_flag("--real", a.source.real,
                  "the set's SuiteSparse matrices where present (kbench reproduce --real)");
    sub->add_flag("--quick", a.source.quick,
                  "the set's quick entries and quick_params (kbench reproduce --quick)");
    sub->add_option("--partition", a.partition, partition_help)->capture_default_str();
    sub->add_option("--device", a.device, "cpu (one rank per core) or gpu (one GPU per rank)")
        ->capture_default_str();
    sub->add_option("--transport", a.transport, "gpu: host_staged or nccl")
        ->capture_default_str();
    sub->add_flag("!--no-overlap", a.overlap,
                  "gpu: the distributed SpMV exchanges the halo, then multiplies (default: the "
                  "exchange overlaps the interior rows' product)");
    sub->add_option("--json", a.json, "rank 0 writes the results object to FILE");
}

MatrixEntry find_matrix_entry(const MatrixSource& source, const std::string& name)
{
    const MatrixSet set = load_source_set(source);
    const auto entry = std::find_if(set.matrices.begin(), set.matrices.end(),
                                    [&](const MatrixEntry& e) { return e.name == name; });
    if (entry == set.matrices.end())
        throw std::invalid_argument(
            fmt::format("--matrix: '{}' is not in matrix set '{}'", name, set.name));
    return *entry;
}

std::vector<int> worker_partition(const Csr<double>& a, const std::string& how, int parts)
{
    if (how == "natural") return block_partition(a.num_rows, parts);
    if (how == "kway") return kway_partition(a, parts, 1);  // throws without METIS
    throw std::invalid_argument(
        fmt::format("--partition: '{}', expected natural or kway", how));
}

double seconds_since(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

WorkerDevice open_worker_device(const dist::Communicator& comm, const std::string& device,
                                const std::string& transport)
{
    WorkerDevice d;
    if (device != "gpu" && device != "cpu")
        throw WorkerUsageError(fmt::format("--device: '{}', expected cpu or gpu", device));
    d.gpu = device == "gpu";
    try {
        d.transport = dist::parse_transport(transport);
    } catch (const std::invalid_argument& e) {
        throw WorkerUsageError(e.what());
    }
    if (!d.gpu) return d;
    if (const std::string reason = gpu_unavailable_reason(); !reason.empty())
        throw WorkerUsageError(
            fmt::format("--device gpu needs a GPU (or --device cpu); {}", reason));
    const int id = dist::select_device(comm);
    cudaDeviceProp prop{};
    KBENCH_CUDA_CHECK(cudaGetDeviceProperties(&prop, id));
    d.gpu_name = prop.name;
    if (d.transport == dist::Transport::nccl)
        d.nccl = std::make_unique<dist::NcclCommunicator>(comm);
    return d;
}

void add_device_fields(nlohmann::json& doc, const WorkerDevice& dev)
{
    if (!dev.gpu) return;
    doc["gpu_name"] = dev.gpu_name;
    doc["transport"] = dist::to_string(dev.transport);
}

namespace {

/// Writes this rank's file (rank_file) when there is a json_file; never throws.
void write_rank_file(const std::string& json_file, int rank, const char* error)
{
    if (json_file.empty()) return;
    nlohmann::json doc = {{"rank", rank}};
    if (error != nullptr) doc["error"] = error;
    else doc["finished"] = true;
    try {
        write_json_file(doc, rank_file(json_file, rank));
    } catch (const std::exception&) {  // the launcher then names this rank as silent
    }
}

/// A fault injected for the tests (test-only): rank `rank` exits or hangs after its body.
struct InjectedFault {
    int rank = -1;
    bool hang = false;
};

/// The fault that $KBENCH_FAULT_INJECT asks for ("rank=R:exit" or "rank=R:hang"), read here
/// alone; none when unset or empty. Throws WorkerUsageError naming KBENCH_FAULT_INJECT for
/// another value.
std::optional<InjectedFault> injected_fault()
{
    const char* v = std::getenv("KBENCH_FAULT_INJECT");
    if (v == nullptr || *v == '\0') return std::nullopt;
    static const std::regex form(R"(rank=([0-9]{1,6}):(exit|hang))");
    std::cmatch m;
    if (!std::regex_match(v, m, form))
        throw WorkerUsageError(fmt::format(
            "KBENCH_FAULT_INJECT: '{}', expected rank=R:exit or rank=R:hang (test-only)", v));
    return InjectedFault{std::stoi(m[1].str()), m[2].str() == "hang"};
}

/// Once every rank has come here (a barrier: the others have written their rank files), a
/// `fault` ends its own rank's process at once with status 3 and no MPI_Finalize (as a crash
/// would), or waits there until a signal ends the process; the other ranks go on.
void strike(const std::optional<InjectedFault>& fault, const dist::Communicator& comm)
{
    if (!fault) return;
    comm.barrier();
    if (fault->rank != comm.rank()) return;
    fmt::print(stderr, "kbench: KBENCH_FAULT_INJECT: rank {} {} here (test-only)\n", comm.rank(),
               fault->hang ? "hangs" : "exits");
    std::fflush(stderr);
    if (!fault->hang) std::_Exit(3);
    for (;;) ::pause();
}

/// body on this rank, its object written by rank 0. Returns true after a WorkerUsageError (see
/// run_worker); any other error ends every rank with MPI_Abort.
bool run_body(const char* command, const std::string& json_file,
              const std::function<nlohmann::json(const dist::Communicator&)>& body,
              const dist::Communicator& comm)
{
    const int rank = comm.rank();
    try {
        const std::optional<InjectedFault> fault = injected_fault();
        const nlohmann::json doc = body(comm);
        if (!fault || fault->rank != rank) write_rank_file(json_file, rank, nullptr);
        strike(fault, comm);
        comm.barrier();  // every rank finished: the rank files have served
        if (!json_file.empty()) std::remove(rank_file(json_file, rank).c_str());
        if (rank == 0) {
            if (!json_file.empty()) write_json_file(doc, json_file);
            else std::cout << doc.dump(1) << "\n";
        }
        return false;
    } catch (const WorkerUsageError& e) {  // the same on every rank: rank 0 says it
        if (rank == 0) {
            fmt::print(stderr, "{}: error: {}\n", command, e.what());
            if (!json_file.empty()) write_json_file(nlohmann::json{{"error", e.what()}}, json_file);
        }
        return true;
    } catch (const std::exception& e) {
        fmt::print(stderr, "{}: error on rank {}: {}\n", command, rank, e.what());
        std::fflush(stderr);
        write_rank_file(json_file, rank, e.what());
        if (rank == 0 && !json_file.empty())
            write_json_file(nlohmann::json{{"error", e.what()}}, json_file);
        MPI_Abort(comm.get(), 1);
    }
    return true;
}

}  // namespace

void run_worker(const char* command, const std::string& json_file,
                const std::function<nlohmann::json(const dist::Communicator&)>& body)
{
    bool usage_error = false;
    {
        dist::MpiSession session(nullptr, nullptr);
        const dist::Communicator comm;
        usage_error = run_body(command, json_file, body, comm);
    }  // MPI is finalized on every rank before the exit
    if (usage_error) std::exit(1);
}

}  // namespace kbench::harness
