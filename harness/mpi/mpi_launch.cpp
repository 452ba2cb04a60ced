// Launching MPI workers; see mpi_launch.hpp.
#include "harness/mpi_launch.hpp"

#include "harness/git_info.hpp"
#include "harness/process.hpp"

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

std::filesystem::path cache_dir()
{
    fs::path dir;
    if (const char* k = std::getenv("KBENCH_CACHE_DIR"); k != nullptr && *k != '\0')
        dir = k;
    else if (const char* x = std::getenv("XDG_CACHE_HOME"); x != nullptr && *x != '\0')
        dir = fs::path(x) / "kbench";
    else if (const char* h = std::getenv("HOME"); h != nullptr && *h != '\0')
        dir = fs::path(h) / ".cache" / "kbench";
    std::error_code ec;
    if (dir.empty() || (!fs::create_directories(dir, ec) && ec)) return {};
    return dir;
}

int shared_gpus()
{
    const char* v = std::getenv("KBENCH_SHARE_GPUS");
    if (v == nullptr || *v == '\0') return 0;
    char* end = nullptr;
    const long n = std::strtol(v, &end, 10);
    if (*end != '\0' || n < 1 || n > 64)
        throw std::invalid_argument(std::string("KBENCH_SHARE_GPUS: '") + v +
                                    "', expected an integer in [1, 64] (GPUs to share the visible "
                                    "ones among) or unset");
    return static_cast<int>(n);
}

int gpu_count()
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n < 1) return 0;
    const int shared = shared_gpus();
    return shared > 0 ? shared : n;
}

std::vector<int> gpu_rank_counts()
{
    std::vector<int> counts;
    for (int p = 1; p <= std::max(1, gpu_count()); p *= 2) counts.push_back(p);
    return counts;
}

int cpu_ranks()
{
    // Distinct (physical id, core id) pairs of /proc/cpuinfo: cores, not hardware threads (an
    // MPI launcher offers one slot per core by default).
    std::ifstream in("/proc/cpuinfo");
    std::set<std::pair<std::string, std::string>> cores;
    std::string line, physical = "0";
    while (std::getline(in, line)) {
        const auto colon = line.find(':');
        if (colon == std::string::npos) continue;
        const std::string key = line.substr(0, line.find_last_not_of(" \t", colon - 1) + 1);
        const std::string value = colon + 2 <= line.size() ? line.substr(colon + 2) : "";
        if (key == "physical id") physical = value;
        if (key == "core id") cores.emplace(physical, value);
    }
    if (!cores.empty()) return static_cast<int>(cores.size());
    return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
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
    return fmt::format("{}|{}|{}|{}|{}|{}|{}|{}|{}", git.sha, run.id, run.source.set,
                       run.source.matrix_dir, run.source.real, run.options.repetitions, gpu_count(),
                       shared_gpus(), cpu_ranks());
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
