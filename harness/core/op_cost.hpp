// Host and device cost of one enqueued operation (a kernel launch through kbench's launchers, a
// copy, a library call), measured apart: the launch pipeline of models/launch_pipeline.hpp
// advances a host clock by what the host pays to enqueue an op and a device clock by what the op
// takes on the device, and at small sizes these two, not bytes over bandwidth, set the time.
#pragma once

#include "models/launch_pipeline.hpp"

#include <nlohmann/json_fwd.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <functional>

namespace kbench::harness {

/// Cost of one call of an enqueued operation, microseconds.
struct OpCost {
    double host_us = 0;    // host time to enqueue it (wall clock; the device never waits)
    double device_us = 0;  // device time per call back to back in the stream (CUDA events):
                           // the op and the gap to the next op launched from the host
};

/// Measures op(stream), `calls` calls per sample, the median of `samples` samples after one
/// warm-up sample. Each sample first enqueues a spin kernel long enough (at least twice the
/// host's time to enqueue the calls; doubled and retried until it is) that the host enqueues
/// every call while the device is still spinning: the host time is then pure enqueue time, and
/// the device time between an event after the spin and one after the calls is the calls' own
/// back-to-back time, with no host waits in it. op must only enqueue work on `stream` (no
/// synchronization), and `calls` of it must fit the launch queue (a few hundred launches).
/// Throws std::invalid_argument for calls or samples < 1, kbench::cuda_error on CUDA failures.
OpCost measure_op_cost(const std::function<void(cudaStream_t)>& op, cudaStream_t stream,
                       int calls = 64, int samples = 5);

/// Host figures of kbench's launchers on vectors of n doubles, microseconds (the inputs
/// models::LaunchCosts takes as launch_s, reduction_launch_s, copy_launch_s, sync_tail_s and
/// stream_node_s):
/// enqueue times (measure_op_cost) of a vector kernel (blas::gemm_rowwise w -= v h, the
/// update of the Gram-Schmidt step), of a dot product (blas::dot with its workspace) and of a
/// copy of one value to page-locked host memory; and the synchronization tail: the median wall
/// time of a dot, the copy of its value and cudaStreamSynchronize, less the two enqueue times;
/// and the device time of an empty kernel launched back to back into a busy stream (stream_node_s).
struct LaunchFigures {
    double kernel_us = 0;
    double reduction_us = 0;
    double copy_us = 0;
    double sync_tail_us = 0;
    double stream_node_us = 0;
};

/// `costs` with the figures (microseconds) in place of its host terms (seconds): launch_s =
/// kernel_us, reduction_launch_s, copy_launch_s, sync_tail_s and stream_node_s; its other
/// members are kept.
models::LaunchCosts with_launch_figures(models::LaunchCosts costs, const LaunchFigures& f);

/// JSON of the figures: {"kernel_us", "reduction_us", "copy_us", "sync_tail_us",
/// "stream_node_us"}; from_json reads them (stream_node_us 0 where absent: entries written before
/// it was measured). from_json throws nlohmann::json's exceptions for a missing other key.
void to_json(nlohmann::json& j, const LaunchFigures& f);
void from_json(const nlohmann::json& j, LaunchFigures& f);

/// Measures LaunchFigures on `stream` at n (>= 1) entries. Throws std::invalid_argument for
/// n < 1, kbench::cuda_error on CUDA failures.
LaunchFigures measure_launch_figures(std::int64_t n, cudaStream_t stream);

/// LaunchFigures of cuBLAS's level-1 calls on vectors of n values of T (float or double), as a
/// solver on cuBLAS with its scalars on the host makes them: kernel_us the enqueue time of
/// an axpy, reduction_us that of a dot returning its result to device memory (pointer mode
/// device), copy_us 0 (a dot returning its value to the host copies it inside the call),
/// sync_tail_us the median wall time of a dot returning its value to the host (pointer mode
/// host) on an idle device less reduction_us, stream_node_us as measure_launch_figures gives it.
/// Throws std::invalid_argument for n < 1 or n > INT_MAX (cuBLAS's int sizes),
/// kbench::cuda_error on CUDA or cuBLAS failures.
template <typename T>
LaunchFigures measure_cublas_launch_figures(std::int64_t n, cudaStream_t stream);

/// Device time per call of cuBLAS's level-1 calls on vectors of n values, microseconds: each
/// call back to back in the stream (measure_op_cost's device_us: its kernels and the gap to the
/// next launch from the host), results of dot and nrm2 to device memory: what a solver built on
/// cuBLAS's level-1 calls spends on the device per call at its system's size. The calls go round
/// cublas_call_pairs(...) pairs of vectors, so that a vector's lines are as far from L2 as the
/// solver leaves them between two uses (a solver whose SpMV streams more than L2 between two calls
/// finds its vectors in DRAM: a 1-pair measurement of 16 MB vectors, all in L2, was 12-17 % short
/// of such a solver's calls on an H200).
struct CublasCallTimes {
    double axpy_us = 0;      // y += a x (a = 1e-30: y keeps its values, no shortcut for a = 0)
    double scal_us = 0;      // x = a x (a = -1: x changes sign, no shortcut for a = 1)
    double copy_us = 0;      // y = x
    double dot_us = 0;       // x . y
    double dot_self_us = 0;  // x . x
    double nrm2_us = 0;      // ||x||_2
    int pairs = 1;           // pairs of vectors the calls went round (cublas_call_pairs)
};

/// JSON of the times: {"axpy_us", "scal_us", "copy_us", "dot_us", "dot_self_us", "nrm2_us",
/// "pairs"}; from_json throws nlohmann::json's exceptions for a missing key (pairs 1 where
/// absent: entries measured before the calls went round several pairs).
void to_json(nlohmann::json& j, const CublasCallTimes& t);
void from_json(const nlohmann::json& j, CublasCallTimes& t);

/// Pairs of vectors (n values of value_bytes each) that the cuBLAS call measurement goes round:
/// the fewest whose bytes reach min(reuse_distance_bytes, 2 x the L2 cache size), from 1 (a
/// solver whose data stays in L2: the same pair every call, hot) to 64. reuse_distance_bytes is
/// what the solver moves between two uses of a vector, e.g. its bytes per iteration. Throws
/// kbench::cuda_error without a usable device (it reads the L2 size).
int cublas_call_pairs(std::int64_t n, std::size_t value_bytes, double reuse_distance_bytes);

/// Measures CublasCallTimes for T (float or double) on `stream` at n entries, the calls going
/// round cublas_call_pairs(n, sizeof(T), reuse_distance_bytes) pairs of vectors. Throws
/// std::invalid_argument for n < 1 or n > INT_MAX (cuBLAS's int sizes) or a negative or NaN
/// reuse_distance_bytes, kbench::cuda_error on CUDA or cuBLAS failures.
template <typename T>
CublasCallTimes measure_cublas_call_times(std::int64_t n, double reuse_distance_bytes,
                                          cudaStream_t stream);

}  // namespace kbench::harness
