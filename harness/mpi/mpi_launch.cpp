// Launching MPI workers; see mpi_launch.hpp.
#include "harness/mpi/mpi_launch.hpp"

#include "harness/core/git_info.hpp"
#include "harness/core/process.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cuda_runtime_api.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
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
    if (resumable && std::uncaught_exceptions() > exceptions_at_start) return;  // resume from it
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

double rank_timeout_seconds()
{
    const char* v = std::getenv("KBENCH_RANK_TIMEOUT_S");
    if (v == nullptr || *v == '\0') return 3600;
    char* end = nullptr;
    const double s = std::strtod(v, &end);
    if (*end != '\0' || !(s >= 0) || !std::isfinite(s))
        throw std::runtime_error(std::string("KBENCH_RANK_TIMEOUT_S: '") + v +
                                 "', expected seconds >= 0 (0: no limit) or unset");
    return s;
}

std::string rank_file(const std::string& json_file, int rank)
{
    return json_file + ".rank" + std::to_string(rank);
}

namespace {

/// P of a launcher command line `<mpiexec> ... -n P ...` (-n, -np or --np); 0 when not named.
int launch_ranks(const std::vector<std::string>& argv)
{
    for (std::size_t i = 1; i + 1 < argv.size(); ++i) {
        if (argv[i] == "-n" || argv[i] == "-np" || argv[i] == "--np")
            return std::max(0, std::atoi(argv[i + 1].c_str()));
    }
    return 0;
}

/// What the rank files of a launch of `ranks` ranks say of the ranks that did not finish
/// (`silent`: "wrote nothing" or "did not finish"); empty when every rank finished or P is
/// unknown. Removes the rank files.
std::string unfinished_ranks(const std::string& json_file, int ranks, const char* silent)
{
    std::vector<int> quiet;
    std::string failed;
    for (int r = 0; r < ranks; ++r) {
        const std::string file = rank_file(json_file, r);
        std::ifstream in(file);
        const auto doc = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
        if (!in.is_open() || !doc.is_object()) quiet.push_back(r);
        else if (doc.contains("error"))
            failed += fmt::format("; rank {} failed: {}", r,
                                  doc["error"].is_string() ? doc["error"].get<std::string>()
                                                           : doc["error"].dump());
        in.close();
        std::error_code ec;
        fs::remove(file, ec);
    }
    std::string text;
    if (!quiet.empty())
        text = fmt::format("{} {} of {} {} (no {})", quiet.size() == 1 ? "rank" : "ranks",
                           fmt::join(quiet, ", "), ranks, silent,
                           rank_file(json_file, quiet.front()) + (quiet.size() > 1 ? ", ..." : ""));
    return failed.empty() ? text : text + (text.empty() ? failed.substr(2) : failed);
}

}  // namespace

nlohmann::json run_mpi_worker(const std::vector<std::string>& argv, const std::string& json_file)
{
    std::error_code ec;
    if (fs::exists(json_file)) {
        // Left by a run of the same key that was cut off: reuse a finished worker's object.
        std::ifstream in(json_file);
        nlohmann::json earlier = nlohmann::json::parse(in, nullptr, false);
        if (earlier.is_object() && !earlier.contains("error")) {
            earlier["reused"] = true;
            return earlier;
        }
        in.close();
        fs::remove(json_file, ec);
    }
    const int ranks = launch_ranks(argv);
    for (int r = 0; r < ranks; ++r) fs::remove(rank_file(json_file, r), ec);  // an earlier run's
    const double timeout = rank_timeout_seconds();
    const ProcessResult pr = run_process(argv, false, false, timeout);
    if (pr.timed_out) {
        fs::remove(json_file, ec);
        const std::string who = unfinished_ranks(json_file, ranks, "did not finish");
        throw std::runtime_error(fmt::format(
            "MPI launch ran past KBENCH_RANK_TIMEOUT_S={} s and was killed (every rank): {}",
            timeout, who.empty() ? "its ranks wrote no rank files" : who));
    }
    const std::string who = unfinished_ranks(json_file, ranks, "ended without finishing");
    nlohmann::json out;
    if (std::ifstream in(json_file); in) out = nlohmann::json::parse(in, nullptr, false);
    if (pr.exit_code == 0 && out.is_object()) return out;
    fs::remove(json_file, ec);
    if (!out.is_object() || !out.contains("error"))
        out = {{"error", fmt::format("the MPI worker failed (exit {}): {}", pr.exit_code,
                                     who.empty() ? "its message is above" : who)}};
    out["exit_code"] = pr.exit_code;
    fmt::print(stderr, "kbench: error: {}\n", out["error"].get<std::string>());
    return out;
}

}  // namespace kbench::harness
