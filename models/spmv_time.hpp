// Run-time model of one SpMV kernel configuration: the time the `auto` SpMV policy ranks its
// candidates by (kernels/spmv_policy.hpp). A kernel is bound by one of four things, whichever
// takes longest, and every launch adds its overhead:
//  - device memory: the bytes of the traffic model (models/spmv_traffic.hpp) over the DRAM
//    bandwidth (anzt2015 Sec. 4.2: SpMV is bandwidth bound) times the kernel family's streaming
//    efficiency, the fraction of the read bandwidth it reaches where nothing else bounds it
//    (measured on a calibration matrix: the stencil-like rows of equal length, larger than L2);
//  - the L2 cache: the same bytes over the L2 bandwidth (the memory term of a product whose
//    bytes fit in L2);
//  - the x gathers: every 32-byte sector of x that a warp's gather touches and the L1 cache does
//    not hold is one L2 request, and scattered requests are served far below the streaming L2
//    bandwidth (an H200 served random 8-byte gathers from an L2-resident array at 157 G
//    sectors/s, 5.0 TB/s of sectors, against 7.9 TB/s streaming). The sectors counted are those
//    a gather touches that the previous gathers of its thread block (in the kernel's order) did
//    not; the rate is measured at x's size (kbench machine: random gathers over L2/4 and L2/2,
//    interpolated). Without it the model had csr_adaptive on matrices with scattered columns at
//    0.54-0.76 of its measured time (H200), all of them gather bound;
//  - latency: the chains of dependent loads of its threads (a row pointer, then column indices
//    and values, then the gathered x entries), overlapped across the resident threads. A step
//    of a chain takes longer on a loaded GPU than one pointer-chasing load on an idle one: the
//    step time is the idle latency times a load factor calibrated on a latency-bound kernel.
//
//   T = launches * t_launch + || dram_bytes / (eta * BW_dram), l2_bytes / BW_l2,
//                                 gather_sector_bytes / BW_gather(x_bytes),
//                                 t_step * (max(waves, 1) * chain_mean + (chain_max - chain_mean)) ||_3
//   waves = threads / (SMs * resident threads per SM)
//   resident threads per SM = min(max threads per SM, max blocks per SM * threads per block)
//
// A wave of resident threads overlaps its chains, so the latency bound grows with the number of
// waves times the mean chain; the longest chain adds its excess once (the tail of the last wave).
// The bounds are combined by a 3-norm, not a plain maximum: near the knee a kernel that is almost
// as latency bound as bandwidth bound runs slower than either bound alone (on an H100, SELL-P
// with b = 32, half the resident threads of b = 64, ran 10-15 % slower on 2e6..4e6-row matrices
// that both bounds call bandwidth bound; the 3-norm reproduces that within 3 %).
// A product whose DRAM bytes fit in half of L2 is L2 resident in repeated products (hot cache):
// its memory term is the L2 one and its load latency the L2 latency. All figures are measured
// (kbench machine, spmv::probe_machine), none is a constant of a GPU model.
#pragma once

#include <algorithm>
#include <cmath>

namespace kbench::models {

/// Measured machine figures the SpMV time model needs. Bandwidths in GB/s (1e9 bytes/s),
/// latencies and launch overhead in microseconds, sizes in bytes.
struct SpmvMachine {
    double dram_gbps = 0.0;        // read bandwidth of device memory (read-only reduction)
    double l2_gbps = 0.0;          // read bandwidth of an L2-resident array
    double l2_rmw_gbps = 0.0;      // read-modify-write of an L2-resident array in place (bytes
                                   // read + written per second; 0: not measured)
    double dram_latency_us = 0.0;  // one dependent load that misses L2 (pointer chase)
    double l2_latency_us = 0.0;    // one dependent load that hits L2 (pointer chase)
    double launch_us = 0.0;        // CUDA-event time of one empty kernel launch
    double l2_bytes = 0.0;         // L2 cache size
    int sm_count = 0;              // streaming multiprocessors
    int max_threads_per_sm = 0;    // resident threads per SM
    int max_blocks_per_sm = 0;     // resident thread blocks per SM
    double load_factor = 1.0;      // chain step time at full load / idle dependent-load latency
    double sellp_efficiency = 1.0;  // eta of the SELL-P kernel: its model bytes / time / dram_gbps
    double csr_efficiency = 1.0;    // eta of the CSR kernels, measured with CSR-Adaptive
    double gather_gbps = 0.0;      // random 8-byte gathers from an array of L2/4 (L2 resident):
                                   // 32-byte sectors per second x 32, GB/s
    double gather_far_gbps = 0.0;  // the same from an array of L2/2
};

/// GB/s of 32-byte sectors that random gathers from an x of `x_bytes` get on `m`: gather_gbps up
/// to L2/4, gather_far_gbps from L2/2, linear between (an x past L2/2 is charged the L2/2 rate:
/// the sectors that miss L2 are the traffic model's DRAM bytes). 0 when m has no gather figures.
constexpr double gather_rate_gbps(const SpmvMachine& m, double x_bytes)
{
    const double lo = 0.25 * m.l2_bytes, hi = 0.5 * m.l2_bytes;
    if (x_bytes <= lo || hi <= lo) return m.gather_gbps;
    if (x_bytes >= hi) return m.gather_far_gbps;
    return m.gather_gbps + (m.gather_far_gbps - m.gather_gbps) * (x_bytes - lo) / (hi - lo);
}

/// The parallel shape of one kernel launch: how many threads in blocks of how many, and how
/// many dependent memory latencies each thread waits for (mean over threads and the maximum).
struct LaunchShape {
    double threads = 0.0;
    double chain_mean = 0.0;
    double chain_max = 0.0;
    int block_threads = 256;
};

/// Seconds of the latency bound of one launch on `m`, `latency_us` being the time of one
/// dependent step (DRAM or L2 latency times the load factor). 0 for a launch with no threads.
constexpr double latency_bound_seconds(const LaunchShape& s, const SpmvMachine& m,
                                       double latency_us)
{
    if (s.threads <= 0.0) return 0.0;
    const double per_sm = std::min<double>(m.max_threads_per_sm,
                                           double(m.max_blocks_per_sm) * s.block_threads);
    const double resident = static_cast<double>(m.sm_count) * per_sm;
    const double waves = resident > 0.0 ? s.threads / resident : 1.0;
    return latency_us * 1e-6 *
           (std::max(waves, 1.0) * s.chain_mean + (s.chain_max - s.chain_mean));
}

/// Breakdown of a predicted time, seconds.
struct SpmvTime {
    double launch = 0.0;   // launches * t_launch
    double dram = 0.0;     // DRAM bytes / DRAM bandwidth (0 when L2 resident)
    double l2 = 0.0;       // L2 bytes / L2 bandwidth
    double gather = 0.0;   // x-gather sectors' bytes / gather rate
    double latency = 0.0;  // sum of the launches' latency bounds
    bool l2_resident = false;
    /// launch + (dram^3 + l2^3 + gather^3 + latency^3)^(1/3)
    double total() const
    {
        const double m = std::max({dram, l2, gather, latency});
        if (m <= 0.0) return launch;
        const double a = dram / m, b = l2 / m, g = gather / m, c = latency / m;
        return launch + m * std::cbrt(a * a * a + b * b * b + g * g * g + c * c * c);
    }
    /// "dram", "l2", "gather" or "latency": the term that bounds the kernel.
    constexpr const char* bound() const
    {
        if (latency >= dram && latency >= l2 && latency >= gather) return "latency";
        if (gather >= dram && gather >= l2) return "gather";
        return dram >= l2 ? "dram" : "l2";
    }
};

/// Predicted time of a kernel configuration moving `dram_bytes` through device memory (the
/// traffic model) at `efficiency` of the DRAM bandwidth and `l2_bytes` through L2, gathering
/// `gather_bytes` (32 per sector the L1 cache does not serve) from an x of `x_bytes`, with
/// `num_launches` launches of shapes `shapes[0..num_launches)`. The gather term is 0 on a
/// machine without gather figures.
inline SpmvTime predict_spmv_time(double dram_bytes, double l2_bytes, double gather_bytes,
                                  double x_bytes, const LaunchShape* shapes, int num_launches,
                                  const SpmvMachine& m, double efficiency = 1.0)
{
    SpmvTime t;
    t.l2_resident = dram_bytes <= 0.5 * m.l2_bytes;
    t.launch = num_launches * m.launch_us * 1e-6;
    t.dram = t.l2_resident || m.dram_gbps <= 0.0 || efficiency <= 0.0
                 ? 0.0
                 : dram_bytes / (efficiency * m.dram_gbps * 1e9);
    t.l2 = m.l2_gbps > 0.0 ? l2_bytes / (m.l2_gbps * 1e9) : 0.0;
    const double gather_gbps = gather_rate_gbps(m, x_bytes);
    t.gather = gather_gbps > 0.0 ? gather_bytes / (gather_gbps * 1e9) : 0.0;
    const double latency_us =
        m.load_factor * (t.l2_resident ? m.l2_latency_us : m.dram_latency_us);
    for (int i = 0; i < num_launches; ++i)
        t.latency += latency_bound_seconds(shapes[i], m, latency_us);
    return t;
}

}  // namespace kbench::models
