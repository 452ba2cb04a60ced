// Launching the MPI workers of the distributed studies (`mpiexec -n P kbench dist ...`) from a
// `kbench reproduce` run, which itself never initializes MPI: the launcher CMake found, this
// executable's path, a scratch directory for the workers' output, and one call that runs a
// worker and returns the JSON object its rank 0 wrote.
#pragma once

#include "harness/core/resources.hpp"
#include "harness/core/study.hpp"

#include <nlohmann/json.hpp>

#include <exception>
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
/// Either way the directory is removed with its contents on destruction (a run that ended),
/// except a resumable one destroyed by an exception (e.g. a launch that timed out): a run
/// started again resumes from it. Throws std::runtime_error when it cannot be created.
struct ScratchDir {
    std::filesystem::path path;
    bool resumable = false;  // under the cache directory, kept if the run is killed
    int exceptions_at_start = std::uncaught_exceptions();
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

/// Seconds a launch of MPI workers may run: $KBENCH_RANK_TIMEOUT_S, else 3600 (an hour: one
/// launch of the stored studies took minutes at most); 0 = no limit. Throws std::runtime_error
/// naming KBENCH_RANK_TIMEOUT_S when it is not a number >= 0.
double rank_timeout_seconds();

/// The file where rank `rank` of a worker writing `json_file` says it finished, written by
/// run_worker (dist_worker.hpp) when the rank's part ended: <json_file>.rank<rank>, holding
/// {"rank": r, "finished": true}, or {"rank": r, "error": <what>} after an error on that rank;
/// the ranks remove them once all have finished, so they remain only after a failure.
std::string rank_file(const std::string& json_file, int rank);

/// Runs `argv` (a launcher command line `<mpiexec> -n P ...` whose worker writes its JSON object
/// to json_file), stdout and stderr inherited, for at most rank_timeout_seconds(), and returns
/// that object. When the launch fails, returns {"error": <what>, "exit_code": <code>} instead,
/// <what> being the "error" rank 0 wrote to json_file or else what the ranks' files
/// (rank_file) say: the ranks that failed with their message, and those that wrote nothing
/// (e.g. "rank 1 of 2 ended without finishing (wrote nothing to <file>)"); the message also goes
/// to stderr. When json_file already holds a finished worker's object (no "error"; a resumable
/// ScratchDir after a cut-off run), returns it with "reused": true and runs nothing. A launch
/// that fails or times out leaves neither json_file nor rank files behind (nothing partial is
/// reused). Throws std::runtime_error naming the ranks that did not finish, their files and the
/// timeout when the launch runs past it (its whole process group is then killed), and as
/// rank_timeout_seconds.
nlohmann::json run_mpi_worker(const std::vector<std::string>& argv, const std::string& json_file);

}  // namespace kbench::harness
