// Launching the MPI workers of the distributed studies (`mpiexec -n P kbench dist ...`) from a
// `kbench reproduce` run, which itself never initializes MPI: the launcher CMake found, this
// executable's path, a scratch directory for the workers' output, and one call that runs a
// worker and returns the JSON object its rank 0 wrote.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace kbench::harness {

/// mpiexec as CMake found it (MPIEXEC_EXECUTABLE); empty when kbench was built without MPI.
std::string mpi_launcher();

/// This executable's path (/proc/self/exe), or "kbench" when it cannot be read.
std::string self_executable();

/// N of the environment's KBENCH_SHARE_GPUS, 0 when it is unset or empty: a dry run of the
/// multi-GPU ids on fewer GPUs, where gpu_count() is N and the ranks share the visible GPUs
/// round-robin (dist::select_device). Times of such a run are not multi-GPU figures, and NCCL
/// refuses two ranks on one GPU, so runs over it fail there. Throws std::invalid_argument naming
/// KBENCH_SHARE_GPUS when it is not an integer in [1, 64].
int shared_gpus();

/// CUDA devices a run uses: those visible to this process (0 without a usable GPU), or
/// shared_gpus() when that is set and a GPU is visible.
int gpu_count();

/// Rank counts of a GPU scaling run: 1, 2, 4, ... up to gpu_count() ({1} without a GPU).
std::vector<int> gpu_rank_counts();

/// Physical cores of this machine (distinct core ids of /proc/cpuinfo; hardware threads when it
/// cannot be read), >= 1: the CPU ranks of a "one rank per core" run.
int cpu_ranks();

/// kbench's persistent cache directory, created when missing: $KBENCH_CACHE_DIR, else
/// $XDG_CACHE_HOME/kbench, else $HOME/.cache/kbench. Empty when none is set or it cannot be
/// created (callers then keep what they would cache in a ScratchDir).
std::filesystem::path cache_dir();

/// A fresh directory under the system's temporary directory, removed with its contents on
/// destruction. Throws std::runtime_error when it cannot be created.
struct ScratchDir {
    std::filesystem::path path;
    ScratchDir();
    ~ScratchDir();
    /// Where a worker of the run named `name` writes its JSON: <path>/<hash of name>.json.
    std::string file_for(const std::string& name) const;
    ScratchDir(const ScratchDir&) = delete;
    ScratchDir& operator=(const ScratchDir&) = delete;
};

/// Runs `argv` (a launcher command line whose worker writes its JSON object to json_file),
/// stdout and stderr inherited, and returns that object; when the command fails, {"error":
/// <what>, "exit_code": <code>} instead, <what> being the "error" a failing worker wrote to
/// json_file, or a pointer to its message on stderr when it wrote none. Never throws for a failed worker; throws nlohmann::json::parse_error for a file
/// that is not JSON.
nlohmann::json run_mpi_worker(const std::vector<std::string>& argv, const std::string& json_file);

}  // namespace kbench::harness
