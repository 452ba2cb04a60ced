// What a quick run (`kbench reproduce --quick`, RunOptions::quick) reduces, in one place: the
// repetitions and the time per repetition, the sweeps a runner makes over sizes (quick_cap), the
// ranks of the MPI runs, and where its results go. The matrix sets reduce themselves (the
// "quick" entries and "quick_params" of a manifest: matrices/matrix_set.hpp). Each runner that
// sweeps sizes calls quick_cap on its own lists under run.options.quick.
#pragma once

#include "harness/core/study_context.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace kbench::harness {

inline constexpr int quick_repetitions = 2;     // at most, unless --repetitions is given
inline constexpr double quick_min_time = 0.01;  // seconds, at most, unless --min-time is given
inline constexpr int quick_gpu_ranks = 2;       // MPI runs on at most 2 GPUs
inline constexpr int quick_cpu_ranks = 4;       // and CPU-rank runs on at most 4 ranks

/// The values of a sweep (ascending) that a quick run keeps: those <= cap, then, when
/// max_points > 0 and more are left, max_points of them evenly spread by index, the first and
/// the last kept (max_points == 1: the first alone). When no value is <= cap, the first value
/// alone (a sweep never becomes empty). Throws std::invalid_argument when `values` is empty.
template <typename T>
std::vector<T> quick_cap(const std::vector<T>& values, T cap, std::size_t max_points = 0)
{
    if (values.empty()) throw std::invalid_argument("quick_cap: no values to cap");
    std::vector<T> kept;
    for (const T& v : values)
        if (!(cap < v)) kept.push_back(v);
    if (kept.empty()) return {values.front()};
    if (max_points == 0 || kept.size() <= max_points) return kept;
    if (max_points == 1) return {kept.front()};
    std::vector<T> thinned;
    const double step = static_cast<double>(kept.size() - 1) / static_cast<double>(max_points - 1);
    for (std::size_t i = 0; i < max_points; ++i) {
        const long index = std::lround(step * static_cast<double>(i));
        thinned.push_back(kept[static_cast<std::size_t>(index)]);
    }
    return thinned;
}

/// Under o.quick: repetitions lowered to at most quick_repetitions unless repetitions_given, and
/// min_time to at most quick_min_time unless min_time_given (the user's values stand). Without
/// quick, `o` is left as it is. Never throws.
void apply_quick(RunOptions& o, bool repetitions_given, bool min_time_given);

/// gpu_rank_counts() of a run (1, 2, 4, ... GPUs); under o.quick those <= quick_gpu_ranks.
std::vector<int> run_gpu_rank_counts(const RunOptions& o);

/// cpu_ranks() of a run (one per core); under o.quick at most quick_cpu_ranks.
int run_cpu_ranks(const RunOptions& o);

/// The default results root of a quick reproduce, so that it never writes into the committed
/// results/: <cache_dir()>/quick-results, created; without a cache directory a fresh directory
/// kbench-quick-results-XXXXXX under the system's temporary directory. Throws
/// std::runtime_error when neither can be created.
std::string quick_results_root();

}  // namespace kbench::harness
