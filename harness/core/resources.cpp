// What a run may use on this machine; see resources.hpp.
#include "harness/core/resources.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>

namespace kbench::harness {
namespace fs = std::filesystem;

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

}  // namespace kbench::harness
