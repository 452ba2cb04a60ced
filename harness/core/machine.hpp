// Machine profile: the measured rates that the performance models divide by (STREAM-style
// bandwidth, launch and reduction latencies, FP64 and FP32 gemm rates). The models
// treat SpMV and the Krylov vector operations as bandwidth bound; the latencies bound the cost of
// each kernel launch and each host round trip of a dot product.
#pragma once

#include "models/spmv_time.hpp"

#include <cstddef>
#include <iosfwd>

namespace kbench::harness {

/// All bandwidths in GB/s (1e9 bytes/s), latencies in microseconds, rates in GFlop/s (1e9).
struct MachineProfile {
    double read_gbps = 0.0;   // read-only reduction (stream::read_sum), bytes read / time
    double copy_gbps = 0.0;   // stream::copy, bytes read + written / time
    double triad_gbps = 0.0;  // stream::triad, bytes read + written / time
    double launch_latency_us = 0.0;            // per launch of N empty kernels back to back
    double launch_sync_roundtrip_us = 0.0;     // one empty launch + cudaStreamSynchronize
    double reduction_roundtrip_latency_us = 0.0;  // tiny read_sum + cudaMemcpy of the scalar to host
    double graph_node_us = 0.0;  // per node of a replayed CUDA graph of empty kernels (events)
    double graph_while_iteration_us = 0.0;  // per iteration of a conditional WHILE node, its
                                            // body's one kernel node left out (events)
    double kernel_fixed_us = 0.0;     // per streaming kernel on top of its bytes / triad bandwidth
    double reduction_fixed_us = 0.0;  // per blas::dot (one launch since issue 30), the same way
    double block_step_us = 0.0;  // one step of a block-synchronous chain in shared memory
                                 // (32 threads: a neighbour's value, an FMA, a barrier)
    double dgemm_gflops = 0.0;                 // cublasDgemm, n = 8192
    double sgemm_gflops = 0.0;                 // cublasSgemm, n = 8192, FP32 math (no TF32)
    std::size_t bandwidth_bytes = 0;           // bytes of each array of the bandwidth tests
    models::SpmvMachine spmv;  // figures of the SpMV time model (spmv::measure_machine_figures)
};

/// Measures the profile of the current device: bandwidth on arrays of >= 2^28 doubles and >= 8x
/// the L2 size (median of 20 reps after warm-up, CUDA events), launch latencies (median of
/// host wall-clock samples), reduction round trip, the time per iteration of a CUDA graph's
/// conditional WHILE node (two iteration counts, so the launch cancels), the fixed costs of a
/// streaming kernel and of
/// a dot, blas::dot (replayed CUDA graphs of triads, of dots, over 2^18 .. 2^21 doubles, each
/// call on arrays not in L2: the median over the sizes of the time per call less its bytes at
/// the triad bandwidth), the block step (one block of 32 threads per SM, each step reading the
/// value a neighbour wrote in the previous step from shared memory, an FMA, a write, a barrier:
/// the time per step from two step counts, so the launch cancels), dgemm and sgemm, and the SpMV time model's figures
/// (L2 bandwidth, DRAM and L2 load latency, kernels/machine_probe.hpp). Progress lines go to `log`
/// when given. Takes a few seconds. Throws kbench::cuda_error on any CUDA/cuBLAS failure (no
/// device, out of memory).
MachineProfile measure_machine(std::ostream* log = nullptr);

/// The SpMV time model's figures for an operator's `auto` policy: the profile's when it has them
/// (spmv.sm_count > 0), else measured on the current device (spmv::machine_figures(), once per
/// process). Throws kbench::cuda_error when it has to measure and there is no device.
models::SpmvMachine spmv_figures(const MachineProfile* machine);

/// Prints the profile as a two-column table (name, value with unit).
void print_machine_profile(std::ostream& out, const MachineProfile& m);

}  // namespace kbench::harness
