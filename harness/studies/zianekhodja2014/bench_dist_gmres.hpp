// The zianekhodja2014 study: Jacobi-preconditioned GMRES(16) on MPI ranks, CPU ranks against
// GPU ranks (Table 2), the two halo schemes (Table 5), hypergraph partitioning (Table 8), the
// exact communication volumes (Table 9) and weak scaling (Fig. 9). Every run is one
// `mpirun -np P kbench dist gmres ...` (harness/studies/zianekhodja2014/dist_gmres_worker.cpp)
// launched by these runners, which collect the ranks' JSON objects, compute Delta = ||x_CPU -
// x_GPU||_inf (formula 6) and add the per-iteration time model of models/gmres_comm_model.hpp to
// each GPU run. Each run makes one warm-up solve, min(--repetitions, 3) timed solves (median) and
// one detailed solve.
//
// Entries ("benchmarks"): the object `kbench dist gmres` writes (see
// harness/studies/zianekhodja2014/dist_gmres_worker.cpp) plus
//   "name" ("<item>/<matrix>/<variant>/<device>[/<transport>]/P=<ranks>"), "item" (table2,
//   table5, table8, fig9), "variant" ("<partition>+<scheme>", e.g. "natural+compressed"),
//   "seconds_per_iteration", "model" {"spmv", "vector", "halo", "reductions", "launches",
//   "total"} (seconds per iteration, GPU runs), and for table2's GPU runs "delta" (against the
//   CPU run) and "tau" (T_CPU / T_GPU).
//   A run that failed is kept as {"name", "item", "error", "exit_code"}.
#pragma once

#include "harness/core/study.hpp"
#include "matrices/matrix_set.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>

#include <string>
#include <utility>
#include <vector>

namespace kbench::harness {

/// The GMRES of every zianekhodja2014 run (Sec. 5.2): GMRES(16) with MGS Arnoldi and the Jacobi
/// preconditioner, stopped at the preconditioned relative residual 1e-12 or after 500
/// iterations (b = 1, x0 = 0). Defined here once: the `kbench dist gmres` worker's options default
/// to it, dist_command passes it to every worker, and the results' context records what the
/// workers report they ran (their JSON's "restart", "tolerance", "max_iterations", "orth",
/// "preconditioner").
struct DistGmresParameters {
    int restart = 16;
    double tolerance = 1e-12;
    int max_iterations = 500;
    std::string orth = "mgs";             // "mgs" | "cgs2"
    std::string preconditioner = "jacobi";  // "jacobi" | "none"
};

/// The arguments of one `kbench dist gmres` run (without the launcher).
struct DistRun {
    DistRun(std::string matrix_, int ranks_, std::string device_,
            std::string transport_ = "host_staged", std::string partition_ = "natural",
            std::string scheme_ = "compressed")
        : matrix{std::move(matrix_)}, ranks{ranks_}, device{std::move(device_)},
          transport{std::move(transport_)}, partition{std::move(partition_)},
          scheme{std::move(scheme_)}
    {}
    std::string matrix;
    int ranks = 1;
    std::string device = "gpu";  // "cpu" | "gpu"
    std::string transport = "host_staged";
    std::string partition = "natural";
    std::string scheme = "compressed";
    long long rows_per_rank = 0;  // > 0: weak scaling (replicate entries)
    bool write_solution = false;
    std::string partition_cache;  // hypergraph: --partition-cache prefix (empty: none)
    int timed = 0;                // timed solves; 0: the study's (timed_solves)
    int warmups = 1;              // untimed solves before them (--warmups)
    bool detailed = true;         // false: --no-detailed
};

/// The command line of a run: mpiexec -n P kbench dist gmres
/// --set ... (DistGmresParameters as --restart, --tolerance, --max-iterations, --orth,
/// --preconditioner) --json <json_file> [--matrix-dir, --real, --quick as `source` asks;
/// --rows-per-rank, --solution <json_file>.x,
/// --partition-cache, --no-detailed, --warmups as `r` asks]. Pure function.
std::vector<std::string> dist_command(const std::string& mpiexec, const std::string& kbench,
                                      const MatrixSource& source, const DistRun& r,
                                      int repetitions, const std::string& json_file);

/// zianekhodja2014/table2: for every matrix of the set, CPU ranks (one per core) against GPU
/// ranks (one per GPU). Throws std::runtime_error when kbench has no MPI launcher.

nlohmann::json run_dist_table2(const StudyRun& run);
/// zianekhodja2014/table5 (run.id ends in table5: bandwidth vs compressed, natural blocks) and
/// table8 (otherwise: the same two plus compressed after the hypergraph partition, whose three
/// volumes table9 lists), for every matrix of the set on 1, 2, 4, ... GPUs with both
/// transports (one GPU exchanges nothing: one run there, entered under every variant and
/// transport with "same_run_as"), plus the CPU ranks' natural compressed run (the paper's
/// Time_CPU; one timed solve, no warm-up and no detailed one). Hypergraph partitions are kept in
/// cache_dir() between runs (see partition_cache_prefix, harness/core/partition_file.hpp), and so
/// are the workers' results of a run cut off before its end (ScratchDir's resume key).
nlohmann::json run_dist_schemes(const StudyRun& run);
/// zianekhodja2014/table9: the communication volumes and partitioning times of table8's runs
/// (run.derive_from_results when table8 ran in this invocation, else table8's runs are made).
nlohmann::json run_dist_table9(const StudyRun& run);
/// zianekhodja2014/fig9: weak scaling, the set's first matrix at 5M rows per rank, the four
/// variants (natural / hypergraph x bandwidth / compressed) on 1, 2, 4, ... GPUs (powers of two
/// up to the device count) with both transports, and natural + compressed on as many CPU ranks
/// (one timed solve, no warm-up and no detailed one: a CPU solve of 5M rows per rank takes tens
/// of seconds). On one GPU the variants and transports are one computation: it runs once and
/// each of their entries holds it, with "same_run_as" naming the run.
/// The hypergraph partition of each rank count is made once and reused (--partition-cache, kept
/// in cache_dir() between runs).
/// Quick runs (run.options.quick) of these runners: at most quick_gpu_ranks GPUs and
/// quick_cpu_ranks CPU ranks (harness/core/quick.hpp), fig9 at 250k rows per rank.
nlohmann::json run_dist_weak_scaling(const StudyRun& run);

}  // namespace kbench::harness
