// Measured machine figures of the SpMV time model (models/spmv_time.hpp): what the `auto` SpMV
// policy needs to know about the GPU it runs on, measured on it rather than looked up by name.
#pragma once

#include "models/spmv_time.hpp"

#include <cstddef>

#include <cuda_runtime_api.h>

namespace kbench::spmv {

/// Mean latency, in microseconds, of one load that depends on the previous one: one thread
/// walks a cyclic chain of 4-byte indices spread over `footprint_bytes` (stride 2084 bytes, so
/// every step touches a new sector), `steps` times, with loads cached in L2 only (ld.global.cg).
/// A footprint inside L2 is walked after a warm-up walk (L2 hit latency); a larger one right
/// after an L2 flush, so that steps * 128 bytes well below the footprint all miss (DRAM latency).
/// Median of 3 walks.
/// Throws std::invalid_argument for footprint_bytes < 4096 or steps < 1, kbench::cuda_error on
/// CUDA failures.
double dependent_load_latency_us(std::size_t footprint_bytes, int steps, cudaStream_t stream);

/// Measures models::SpmvMachine on the current device in about a second: read bandwidth of an
/// array of max(1 GiB, 16 x L2) read once (DRAM) and of one of L2/4 read 64 times per launch
/// (L2; 16-byte ld.global.cg loads, 8 blocks of 256 threads per SM), the read-modify-write
/// bandwidth of that L2-resident array updated in place 64 times per launch, the rate of random
/// 8-byte gathers (GB/s of the 32-byte sectors they touch) from arrays of L2/4 and L2/2 (every SM
/// busy, 256 gathers per thread, their indices hashed, not loaded), the dependent-load
/// latency over 4 x L2 (DRAM) and L2/8 (L2), the time CUDA events measure around one launch of an empty kernel (what a timed product of a tiny matrix
/// cannot go below); SM count, resident threads and blocks per SM and L2 size from the device
/// properties; and, on a calibration matrix (rows of 16 entries in a band, 8x the L2 size), the
/// streaming efficiencies of SELL-P and CSR-Adaptive (model bytes over median time less one
/// launch, over the DRAM bandwidth) and the load factor of dependent steps (csr_vector with 32
/// lanes per row, latency bound: its time less one launch over the model's latency bound). Medians of repeated CUDA-event timings. Throws kbench::cuda_error.
models::SpmvMachine measure_machine_figures();

/// NVTX range around the probes of machine_figures(), for profilers to exclude.
inline constexpr const char* machine_probe_range = "kbench_machine_probe";

/// measure_machine_figures() of the current device, measured once per process and device
/// (thread safe), inside the NVTX range machine_probe_range.
const models::SpmvMachine& machine_figures();

}  // namespace kbench::spmv
