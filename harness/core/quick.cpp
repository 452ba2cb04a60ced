// What a quick run reduces; see quick.hpp.
#include "harness/core/quick.hpp"

#include "harness/core/resources.hpp"

#include <stdlib.h>

#include <filesystem>
#include <system_error>

namespace kbench::harness {

namespace fs = std::filesystem;

void apply_quick(RunOptions& o, bool repetitions_given, bool min_time_given)
{
    if (!o.quick) return;
    if (!repetitions_given) o.repetitions = std::min(o.repetitions, quick_repetitions);
    if (!min_time_given) o.min_time = std::min(o.min_time, quick_min_time);
}

std::vector<int> run_gpu_rank_counts(const RunOptions& o)
{
    const std::vector<int> counts = gpu_rank_counts();
    return o.quick ? quick_cap(counts, quick_gpu_ranks) : counts;
}

int run_cpu_ranks(const RunOptions& o)
{
    return o.quick ? std::min(cpu_ranks(), quick_cpu_ranks) : cpu_ranks();
}

std::string quick_results_root()
{
    const fs::path cache = cache_dir();
    std::error_code ec;
    if (!cache.empty()) {
        const fs::path root = cache / "quick-results";
        fs::create_directories(root, ec);
        if (fs::is_directory(root, ec)) return root.string();
    }
    std::string tmpl = (fs::temp_directory_path(ec) / "kbench-quick-results-XXXXXX").string();
    if (ec || ::mkdtemp(tmpl.data()) == nullptr)
        throw std::runtime_error("cannot create a directory for the quick run's results (no "
                                 "cache directory, and none under the temporary directory): "
                                 "pass --results-dir");
    return tmpl;
}

}  // namespace kbench::harness
