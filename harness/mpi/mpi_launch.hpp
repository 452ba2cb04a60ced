// Launching the MPI workers of the distributed studies (`mpiexec -n P kbench dist ...`) from a
// `kbench reproduce` run, which itself never initializes MPI: the launcher CMake found, this
// executable's path, a scratch directory for the workers' output, and one call that runs a
// worker and returns the JSON object its rank 0 wrote.
#pragma once

#include "harness/core/resources.hpp"
#include "harness/core/study.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace kbench::harness {

/// mpiexec as CMake found it (MPIEXEC_EXECUTABLE); empty when kbench was built without MPI.
std::string mpi_launcher();

/// This executable's path (/proc/self/exe), or "kbench" when it cannot be read.
std::string self_executable();

/// Where the MPI workers of one study run write their JSON objects.
///  * ScratchDir(): a fresh directory under the system's temporary directory.
///  * ScratchDir(resume_key) with a non-empty key and a cache_dir(): <cache>/runs/<hash of key>,
///    the same directory for the same key. A reproduce cut off by a time limit (killed, so no
///    destructor runs) and started again with the same key finds the JSON of every worker that
///    had finished, and run_mpi_worker reuses it instead of running that worker again (as the
///    partition cache does for partitions). The key must name everything a worker's result
///    depends on: resume_key() builds it.
/// Either way the directory is removed with its contents on destruction (a run that ended).
/// Throws std::runtime_error when it cannot be created.
struct ScratchDir {
    std::filesystem::path path;
    bool resumable = false;  // under the cache directory, kept if the run is killed
    ScratchDir();
    explicit ScratchDir(const std::string& resume_key);
    ~ScratchDir();
    /// Where a worker of the run named `name` writes its JSON: <path>/<hash of name>.json.
    std::string file_for(const std::string& name) const;
    ScratchDir(const ScratchDir&) = delete;
    ScratchDir& operator=(const ScratchDir&) = delete;
};

/// The resume key of a study run's workers: the commit (git_info of the source tree) and
/// everything of `run` and the machine that a worker's result depends on (id, matrix set and
/// directory, --real, repetitions, GPU count, KBENCH_SHARE_GPUS, CPU ranks, --quick). Empty, so
/// no resuming, when the tree has uncommitted changes or its commit is unknown: a result is
/// reused only for the code that made it.
std::string resume_key(const StudyRun& run);

/// Runs `argv` (a launcher command line whose worker writes its JSON object to json_file),
/// stdout and stderr inherited, and returns that object; when the command fails, {"error":
/// <what>, "exit_code": <code>} instead, <what> being the "error" a failing worker wrote to
/// json_file, or a pointer to its message on stderr when it wrote none. Never throws for a failed
/// worker; throws nlohmann::json::parse_error for a file that is not JSON. When json_file already
/// holds a finished worker's object (no "error"; a resumable ScratchDir after a cut-off run),
/// returns it with "reused": true and runs nothing.
nlohmann::json run_mpi_worker(const std::vector<std::string>& argv, const std::string& json_file);

}  // namespace kbench::harness
