// yamazaki2014/fig8: the time of the matrix powers kernel (MPK) on 1, 2, 4, ... GPUs against s
// SpMVs (yamazaki2014 Sec. IV-B, Fig. 8: m = 100 basis vectors, total time and its SpMV part vs
// s). Every run is one `mpiexec -n P kbench dist mpk ...` worker
// (harness/studies/yamazaki2014/dist_mpk_worker.cpp) launched by run_mpk_time, which collects rank
// 0's JSON object and stores beside every measurement the MPK model's predicted time
// (models/mpk_model.hpp, add_mpk_model).
//
// Entries ("benchmarks"): the object `kbench dist mpk` writes (schema in dist_mpk_worker.cpp) plus
//   "name" ("fig8/<matrix>/P=<ranks>/<transport>"), "item" ("fig8"), and, when the worker
//   succeeded, "baseline"."model" and per element of "mpk" a "model" (add_mpk_model). A run that
//   failed is kept as {"name", "item", "matrix", "ranks", "transport", "error", "exit_code"}.
#pragma once

#include "harness/core/study.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace kbench::harness {

/// The arguments of one `kbench dist mpk` run (without the launcher).
struct DistMpkRun {
    std::string matrix;
    int ranks = 1;
    std::string device = "gpu";  // "cpu" | "gpu"
    std::string transport = "host_staged";
    std::string partition = "natural";
    std::vector<int> steps;  // s values; empty: the worker's default
    int vectors = 100;       // m
};

/// The command line of a run: mpiexec -n P kbench dist mpk
/// --set ... --json <json_file> (--matrix-dir, --real, --quick as `source` asks). Pure function.
std::vector<std::string> dist_mpk_command(const std::string& mpiexec, const std::string& kbench,
                                          const MatrixSource& source, const DistMpkRun& r,
                                          int repetitions, const std::string& json_file);

/// Adds the model's predictions to a worker's object (in place; pure otherwise), from the
/// figures the worker measured (per-rank SpMV rate, link latency and bandwidth) and counted
/// (per-part counts), with models/mpk_model.hpp:
///  * per s, "model": {"seconds" (floor(m/s) calls of s steps + one of m mod s steps, each the
///    slowest part's flops / its SpMV rate + ghost words / bandwidth + exchanges x latency),
///    "products_seconds" (the flops term alone), "seconds_per_call", "ratio" (model over
///    measured total), "products_ratio"};
///  * "baseline"."model": {"seconds" (m SpMVs, each priced by spmvs_part_cost of one step),
///    "products_seconds", "ratio", "products_ratio"}.
/// Flops are those the MPK multiplies: 2 s nnz(A^(d)) + mpk_extra_flops_needed (the ghost rows
/// delta^(d,1) are inputs only). The exchange of a shorter last call is the s-step one. With
/// one rank no words move (the bandwidth term is 0). Beyond models/mpk_model.hpp, with a
/// `machine` profile: the vector copies of the worker's loops at the triad bandwidth (read and
/// write) and the kernel launches beyond the products at the launch latency, per step of the
/// slowest (largest) part: baseline 1 copy and 1 launch per SpMV; MPK 2 local-vector copies
/// and 2 launches per call plus 1 copy and 2 launches (1 without ghost rows) per step but the
/// last. The model is null
/// where a figure it needs is missing (no link measured on P > 1 ranks, no SpMV rate). Throws
/// nlohmann::json exceptions for an object that is not the worker's.
void add_mpk_model(nlohmann::json& worker, const MachineProfile* machine);

/// yamazaki2014/fig8: for every matrix of the set, on 1, 2, 4, ... GPUs (powers of two up to
/// the device count), with the host_staged and nccl transports (one rank: host_staged only, no
/// exchange moves data), natural block rows, s = 1, 2, 3, 5, 8, 10, 15, 20, m = 100.
/// min(run.options.repetitions, 10) timed sweeps each; a quick run (run.options.quick) on at
/// most quick_gpu_ranks GPUs with s = 1, 3, 10, 20. Throws std::runtime_error when kbench has
/// no MPI launcher.
nlohmann::json run_mpk_time(const StudyRun& run);

}  // namespace kbench::harness
