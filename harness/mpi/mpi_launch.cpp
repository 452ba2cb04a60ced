// Launching MPI workers; see mpi_launch.hpp.
#include "harness/mpi/mpi_launch.hpp"

#include "harness/core/git_info.hpp"
#include "harness/core/process.hpp"

#include <fmt/format.h>

#include <cuda_runtime_api.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <set>
#include <string>
#include <utility>
#include <stdexcept>
#include <thread>

namespace kbench::harness {
namespace fs = std::filesystem;

std::string mpi_launcher()
{
#ifdef KBENCH_MPIEXEC
    return KBENCH_MPIEXEC;
#else
    return "";
#endif
}

std::string self_executable()
{
    std::error_code ec;
    const auto p = fs::read_symlink("/proc/self/exe", ec);
    return ec ? std::string("kbench") : p.string();
}

namespace {

fs::path make_temp_dir()
{
    std::string tmpl = (fs::temp_directory_path() / "kbench-mpi-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr)
        throw std::runtime_error("cannot create a scratch directory under " +
                                 fs::temp_directory_path().string());
    return tmpl;
}

}  // namespace

ScratchDir::ScratchDir() : path{make_temp_dir()} {}

ScratchDir::ScratchDir(const std::string& resume_key)
{
    const fs::path cache = resume_key.empty() ? fs::path() : cache_dir();
    if (cache.empty()) {  // no key or no cache directory: a fresh one
        path = make_temp_dir();
        return;
    }
    path = cache / "runs" / fmt::format("{:016x}", std::hash<std::string>{}(resume_key));
    std::error_code ec;
    if (!fs::create_directories(path, ec) && ec)
        throw std::runtime_error("cannot create the worker directory " + path.string() + ": " +
                                 ec.message());
    resumable = true;
}

std::string ScratchDir::file_for(const std::string& name) const
{
    return (path / (std::to_string(std::hash<std::string>{}(name)) + ".json")).string();
}

ScratchDir::~ScratchDir()
{
    std::error_code ec;
    fs::remove_all(path, ec);
}

std::string resume_key(const StudyRun& run)
{
    const GitInfo git = git_info(KBENCH_SOURCE_DIR);
    if (git.dirty || git.sha == "unknown") return {};
    return fmt::format("{}|{}|{}|{}|{}|{}|{}|{}|{}{}", git.sha, run.id, run.source.set,
                       run.source.matrix_dir, run.source.real, run.options.repetitions, gpu_count(),
                       shared_gpus(), cpu_ranks(),
                       run.options.quick || run.source.quick ? "|quick" : "");
}

nlohmann::json run_mpi_worker(const std::vector<std::string>& argv, const std::string& json_file)
{
    if (fs::exists(json_file)) {
        // Left by a run of the same key that was cut off: reuse a finished worker's object.
        std::ifstream in(json_file);
        nlohmann::json earlier = nlohmann::json::parse(in, nullptr, false);
        if (earlier.is_object() && !earlier.contains("error")) {
            earlier["reused"] = true;
            return earlier;
        }
        in.close();
        fs::remove(json_file);
    }
    const ProcessResult pr = run_process(argv);
    nlohmann::json out;
    if (fs::exists(json_file)) {
        std::ifstream in(json_file);
        out = nlohmann::json::parse(in);
    }
    if (pr.exit_code == 0 && !out.is_null()) return out;
    if (!out.is_object() || !out.contains("error"))
        out = {{"error", "the MPI worker failed (its message is above)"}};
    out["exit_code"] = pr.exit_code;
    return out;
}

}  // namespace kbench::harness
