// What a run may use on this machine: its GPUs (with KBENCH_SHARE_GPUS, a dry run of the
// multi-GPU ids on fewer GPUs), its cores as CPU ranks, and kbench's persistent cache directory.
#pragma once

#include <filesystem>
#include <vector>

namespace kbench::harness {

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
/// created (callers then keep what they would cache in a temporary directory).
std::filesystem::path cache_dir();

}  // namespace kbench::harness
