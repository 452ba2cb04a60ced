// Time of one iteration of distributed, Jacobi-preconditioned GMRES(m) with one GPU per rank
// (zianekhodja2014: Algorithm 1, row blocks Sec. 5.1, halo schemes Secs. 5.1 and 6.1; the paper
// reports measured times only, the model is kbench's). The halo scheme (bandwidth window,
// compressed, partitioned) enters only through the halo words and messages, which
// matrices/row_partition.hpp counts (bandwidth_comm_volume, compressed_comm_volume).
//
// Pricing: every local kernel is memory bound, bytes / device bandwidth; a halo exchange costs
// one point-to-point latency (its messages overlap) + bytes / link bandwidth, plus 2 x bytes /
// PCIe bandwidth on
// the host-staged path (Sec. 5.1: GPU -> host copy, MPI, host -> GPU copy); an all-reduce costs
// its measured latency + payload bytes / link bandwidth (on one rank nothing: the GPU ranks
// issue no all-reduce there). Ranks run concurrently
// and every all-reduce synchronizes them: the slowest rank sets the time.
//
// Counts per restart cycle, for a rank of n_d rows; a "pass" is one local vector (n_d words)
// read or written. Algorithm 1's lines, step j = 1..m:
//   l. 9      w = M^-1 A v_j    1 SpMV with 1 halo exchange; Jacobi w = D^-1 w: 3 passes
//   l. 10-13  MGS, j times:     h_ij = (w, v_i): 2 passes + 1 all-reduce of 1 word;
//                               w -= h_ij v_i: 3 passes
//             CGS2 (option):    twice [h = V_j^T w: j+1 passes; w -= V_j h: j+2 passes],
//                               2 all-reduces of j words (kbench solvers/gmres.hpp)
//   l. 14     ||w||             1 pass + 1 all-reduce of 1 word
//   l. 15     v_{j+1} = w / h   2 passes
// and once per cycle (the restart):
//   l. 19     x = x0 + V_m y    m + 2 passes (V_m and x read, x written)
//   l. 20     r = M^-1(b - Ax)  1 SpMV with 1 halo exchange; copies of x (into room for its
//                               ghosts) and b: 4 passes; r read by the SpMV: 1; Jacobi: 3
//   l. 21     beta = ||r||      1 pass + 1 all-reduce of 1 word
//   l. 7      v_1 = r / beta    2 passes
// The passes over the working vector w in lines 10-15 (MGS: 3j + 3, CGS2: 9 per step) hit the
// L2 cache instead of device memory when w fits in half of it (n_d words <= L2 / 2): priced at
// the L2 bandwidth then, when it is given.
// Per iteration = cycle / m (the restart amortized over the m steps; a solve of a given number
// of iterations: its full cycles and its last, shorter one). On the GPU the kernels of a cycle
// go through the launch pipeline of models/launch_pipeline.hpp, in the order kbench's solver
// issues them (gmres_cycle_timeline): each launch costs host time, each streaming kernel a fixed
// device time on top of its bytes (a dot its own), and each copy of values to the
// host a synchronization that drains the queue. Those costs dominate small systems; on large
// ones the host runs ahead during the SpMV and hides the launches of the short kernels behind
// it.
// Launches (kernels and copies) of kbench's solver (solvers/gmres_device.hpp): SpMV 1, Jacobi
// 1, dot 1 (one launch since issue 30), one-column update 1, scaling 1, the Hessenberg column
// and the norm to the host 2; MGS step j: 6 + 2j, CGS2 step j: 6 + 4 ceil(j/64) (mdgm 1 and
// gemm_rowwise 1 per chunk of 64 columns, two passes); one synchronization per step; the
// restart: 9 launches and 2 synchronizations (the update's copy of y, the residual norm). Left out: the least squares
// (l. 18, m x m on the host) and the bytes of the halo's pack kernel.
// Overlapped SpMV (GmresSetup::overlap, kbench's DistributedSpmv default on P > 1 ranks,
// solvers/distributed/distributed_spmv.hpp): the interior rows' product (no ghost column) runs
// during the halo exchange, then the boundary rows' product into a scratch vector and its
// scatter-add into y: one SpMV costs max(halo, interior product) + boundary product +
// scatter-add, and the iteration's "halo" term is the part of the exchange the interior product
// does not hide, max(0, halo - interior). A rank without interior rows does not overlap.
// Units: seconds, bytes, bytes/s, words (vector entries of word_bytes). Bad input throws
// std::invalid_argument naming the function, the parameter, its value and what was expected.
#pragma once

#include "models/launch_pipeline.hpp"
#include "models/spmv_traffic.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace kbench::models {

/// Orthogonalization of the Arnoldi step: modified Gram-Schmidt (Algorithm 1, the default) or
/// classical Gram-Schmidt twice (kbench's solvers).
enum class GmresOrth { mgs, cgs2 };

/// How halo words travel: directly between GPUs (CUDA-aware MPI, NCCL) or staged through the
/// hosts (zianekhodja2014 Sec. 5.1: crosses PCIe twice).
enum class HaloPath { direct, host_staged };

/// Machine-independent counts of GMRES work on one rank (see the table above).
struct GmresCounts {
    double spmvs = 0;            // SpMVs, each with one halo exchange
    double vector_passes = 0;    // local vectors read or written by the vector kernels
    double allreduces = 0;       // all-reduces (each synchronizes the ranks)
    double allreduce_words = 0;  // words summed over those all-reduces
    double working_passes = 0;   // of vector_passes, those over the working vector w (l. 10-15)
    double launches = 0;         // GPU kernel launches (and device copies)
    double syncs = 0;            // host waits for the device (values copied to the host)
};

namespace detail {
[[noreturn]] inline void gmres_comm_fail(const char* function, const std::string& what)
{
    throw std::invalid_argument(std::string(function) + ": " + what);
}
inline void gmres_check(const char* function, const char* name, double x, bool positive)
{
    if (!std::isfinite(x) || (positive ? !(x > 0.0) : !(x >= 0.0)))
        gmres_comm_fail(function, std::string(name) + " = " + std::to_string(x) +
                                      (positive ? ", expected finite and > 0"
                                                : ", expected finite and >= 0"));
}
inline void gmres_check_int(const char* function, const char* name, int x)
{
    if (x < 1) gmres_comm_fail(function, std::string(name) + " = " + std::to_string(x) +
                                             ", expected >= 1");
}
}  // namespace detail

/// Counts of Arnoldi step j (1-based; Algorithm 1 lines 9-15). Throws for j < 1 ("j").
inline GmresCounts gmres_step_counts(int j, GmresOrth orth)
{
    detail::gmres_check_int("gmres_step_counts", "j", j);
    GmresCounts c;
    c.spmvs = 1;                  // l. 9: A v_j, one halo exchange
    c.vector_passes = 3 + 1 + 2;  // l. 9 Jacobi (D^-1, w in, w out); l. 14 norm; l. 15 scaling
    if (orth == GmresOrth::mgs) {
        c.vector_passes += 5.0 * j;    // l. 11 dot (2) + l. 12 axpy (3), j times
        c.allreduces = j + 1.0;        // j dots (in sequence) + l. 14 norm
        c.allreduce_words = j + 1.0;   // one word each
        c.launches = 6 + 2.0 * j;  // SpMV, Jacobi, norm's dot, 2 copies, scaling; j x (dot,
                                   // update)
        c.working_passes = 3.0 * j + 3;  // w read by each dot, read and written by each update;
                                         // norm 1, scaling 2
    } else {
        c.vector_passes += 2.0 * ((j + 1.0) + (j + 2.0));  // two passes of V^T w and w -= V h
        c.allreduces = 3;                                  // 2 projections + l. 14 norm
        c.allreduce_words = 2.0 * j + 1;                   // j words each, 1 for the norm
        c.launches = 6 + 4.0 * std::ceil(j / 64.0);  // 2 passes x (mdgm, gemm) per chunk
        c.working_passes = 2.0 * 3 + 3;  // per pass: V^T w reads w, w -= V h reads and writes it
    }
    c.syncs = 1;  // the Hessenberg column and the norm to the host
    return c;
}

/// Counts of the restart of a cycle of m steps (lines 19-21 and 7). Throws for m < 1 ("m").
inline GmresCounts gmres_restart_counts(int m)
{
    detail::gmres_check_int("gmres_restart_counts", "m", m);
    GmresCounts c;
    c.spmvs = 1;                              // l. 20: A x, one halo exchange
    c.vector_passes = (m + 2.0) + 2 + 2 + 1 + 3 + 1 + 2;  // l. 19 x update; l. 20 copies of x
                                                         // and b, r read by the SpMV, Jacobi;
                                                         // l. 21; l. 7
    c.allreduces = 1;                         // l. 21 norm
    c.allreduce_words = 1;
    c.launches = 9;  // y to the device, update, copies of x and b, SpMV, Jacobi, norm's dot,
                     // the norm to the host, scaling
    c.syncs = 2;     // the residual norm; the update's copy of y
    return c;
}

/// Counts of one restart cycle: steps j = 1..m plus the restart. Closed forms:
///   MGS:  spmvs m + 1, passes 6m + 5m(m+1)/2 + m + 13, all-reduces = words = m(m+1)/2 + m + 1;
///   CGS2: spmvs m + 1, passes 12m + 2m(m+1) + m + 13, all-reduces 3m + 1,
///         words m(m+1) + m + 1;
///   launches: MGS 6m + m(m+1) + 9, CGS2 (m <= 64) 10m + 9; syncs m + 2.
/// Throws for m < 1 ("m").
inline GmresCounts gmres_cycle_counts(int m, GmresOrth orth)
{
    GmresCounts c = gmres_restart_counts(m);
    for (int j = 1; j <= m; ++j) {
        const GmresCounts s = gmres_step_counts(j, orth);
        c.spmvs += s.spmvs;
        c.vector_passes += s.vector_passes;
        c.allreduces += s.allreduces;
        c.allreduce_words += s.allreduce_words;
        c.working_passes += s.working_passes;
        c.launches += s.launches;
        c.syncs += s.syncs;
    }
    return c;
}

/// One rank's share per SpMV (the counts of matrices/row_partition.hpp).
struct GmresRankLoad {
    double rows = 0;           // n_d: rows (and vector entries) the rank owns
    double nnz = 0;            // nonzeros of those rows
    double halo_words = 0;     // words it receives per SpMV (SpmvCommVolume::words_received[d])
    double halo_messages = 0;  // messages it receives per SpMV (messages_received[d])
    // Overlap only (GmresSetup::overlap): of rows and nnz, those of the rows with a ghost column
    // (solvers/distributed/interior_boundary.hpp interior_boundary_counts).
    double boundary_rows = 0;
    double boundary_nnz = 0;
};

/// Measured machine figures (kbench machine and the distributed benchmarks).
struct GmresMachine {
    double device_bytes_per_s = 0;   // device memory bandwidth (bytes/s)
    double link_bytes_per_s = 0;     // rank-to-rank bandwidth (bytes/s); P > 1 only
    double p2p_latency_s = 0;        // one halo exchange of one word (s); P > 1 only
    double allreduce_latency_s = 0;  // one all-reduce call of a few words on P ranks (s); P > 1
    double pcie_bytes_per_s = 0;     // host <-> device (bytes/s); host_staged with P > 1 only;
                                     // 0: already in link_bytes_per_s (measured over that path)
    double l2_bytes = 0;          // L2 cache size (bytes); 0: w is never taken as cached
    double l2_bytes_per_s = 0;    // L2 bandwidth of a pass over w (bytes/s; kbench machine's
                                  // read-modify-write rate); with l2_bytes > 0
    LaunchCosts launch;  // the launch pipeline (models/launch_pipeline.hpp); all 0: not priced
};

/// Solver and data format of the model.
struct GmresSetup {
    int m = 30;                       // restart length
    GmresOrth orth = GmresOrth::mgs;  // Algorithm 1: MGS
    HaloPath halo_path = HaloPath::direct;
    int word_bytes = 8;   // one vector entry or matrix value (double)
    int index_bytes = 4;  // one CSR index (kbench::index_type)
    int iterations = 0;   // of the solve: iterations / m full cycles and one of iterations mod m
                          // steps; 0: a full cycle
    bool overlap = false;  // P > 1: the halo exchange overlaps the interior rows' product
};

/// Seconds per GMRES iteration (Arnoldi step, restart amortized), term by term. The first four
/// are the work: bytes over bandwidths, latencies of messages and all-reduces.
struct GmresIterationTime {
    double spmv = 0;        // local CSR SpMVs
    double vector_ops = 0;  // Jacobi scalings, orthogonalization, norms, scalings, restart updates
    double halo = 0;        // halo exchanges
    double reductions = 0;  // all-reduces
    double launches = 0;    // what the launch pipeline adds to the work: total less the four
    double total = 0;       // the launch pipeline's time (the sum of the four when unpriced)
};

/// Bytes of one local CSR SpMV of a rank (models/spmv_traffic.hpp csr_spmv): values and column
/// indices of its nnz, its row pointers, x once (own rows + received halo words), y written.
inline double gmres_spmv_bytes(const GmresRankLoad& r, int word_bytes, int index_bytes)
{
    return csr_spmv(static_cast<std::int64_t>(r.rows),
                    static_cast<std::int64_t>(r.rows + r.halo_words),
                    static_cast<std::int64_t>(r.nnz), word_bytes, index_bytes)
        .bytes();
}

/// Bytes of the parts of one overlapped SpMV of a rank with load.boundary_rows boundary rows
/// holding load.boundary_nnz nonzeros (models/spmv_traffic.hpp csr_spmv): the interior product
/// (all rows, the boundary ones empty; x: the owned entries), the boundary product (its rows
/// into a scratch vector t; x: at most one read per nonzero of them, owned or ghost), and the
/// scatter-add (t and the row list read, y read and written at the boundary rows).
struct GmresOverlapBytes {
    double interior = 0;
    double boundary = 0;
    double scatter = 0;
};
inline GmresOverlapBytes gmres_overlap_bytes(const GmresRankLoad& r, int word_bytes,
                                             int index_bytes)
{
    const auto i64 = [](double v) { return static_cast<std::int64_t>(v); };
    GmresOverlapBytes b;
    b.interior = csr_spmv(i64(r.rows), i64(r.rows), i64(r.nnz - r.boundary_nnz), word_bytes,
                          index_bytes)
                     .bytes();
    if (r.boundary_rows > 0) {
        b.boundary = csr_spmv(i64(r.boundary_rows),
                              i64(std::min(r.rows + r.halo_words, r.boundary_nnz)),
                              i64(r.boundary_nnz), word_bytes, index_bytes)
                         .bytes();
        b.scatter = r.boundary_rows * (3.0 * word_bytes + index_bytes);
    }
    return b;
}

/// Seconds of the op kinds of one cycle on one rank (inputs of gmres_cycle_timeline).
struct GmresOpTimes {
    double spmv = 0;       // one local SpMV
    double dram_pass = 0;  // one pass over a local vector in device memory
    double w_pass = 0;     // one pass over the working vector w (L2 when it fits)
    double halo = 0;       // one halo exchange: messages and words over the link
    double allreduce_latency = 0;  // one all-reduce call
    double allreduce_word = 0;     // one word of an all-reduce over the link
    // The overlapped SpMV (GmresSetup::overlap on P > 1 ranks, taken when spmv_interior > 0):
    // its interior product, boundary product and scatter-add (0: no boundary rows).
    double spmv_interior = 0;
    double spmv_boundary = 0;
    double scatter = 0;
};

/// One restart cycle (m steps and the restart) of kbench's GPU GMRES on one rank, op by op on
/// the launch pipeline, in the order solvers/gmres_device.hpp and
/// solvers/distributed/halo_exchange_gpu.cpp issue them. The passes are those of
/// gmres_cycle_counts, its launches and syncs too on one rank (where no halo or all-reduce is
/// issued); on P > 1 ranks each halo exchange adds the pack kernel and, host-staged, a copy to
/// the host, a synchronization, the MPI exchange on the host and a copy back (NCCL: one
/// device-side op); each all-reduce adds, host-staged, a copy, a synchronization, the MPI call
/// and a copy back (NCCL: one device-side op). An overlapped SpMV (s.overlap, P > 1,
/// t.spmv_interior > 0) launches the interior product and the pack kernel, prices the exchange
/// and the interior product as one op of their longer time (host-staged: the host's wait in
/// MPI, the interior product running meanwhile on the device; NCCL: one device op), then
/// launches the boundary product and the scatter-add (when t.spmv_boundary > 0): two launches
/// more than the plain SpMV with boundary rows, none without. With opening_residual, only the
/// residual that opens a solve (r = M^-1 (b - A x0) and its norm, as the restart computes it):
/// a solve is that residual and its cycles.
inline LaunchTimeline gmres_cycle_timeline(int num_ranks, const GmresSetup& s,
                                           const LaunchCosts& costs, const GmresOpTimes& t,
                                           bool opening_residual = false)
{
    LaunchTimeline tl(costs);
    const bool distributed = num_ranks > 1;
    const bool staged = s.halo_path == HaloPath::host_staged;
    const auto through_host = [&](double host_s) {
        tl.copy();  // to the host
        tl.synchronize();
        tl.host(host_s);
        tl.copy();  // back
    };
    const bool overlap = distributed && s.overlap && t.spmv_interior > 0;
    const auto spmv = [&](double extra_work) {
        if (overlap) {
            // The exchange and the interior product side by side (the restart's read of r,
            // extra_work, after them, as the terms count it).
            const double hidden = std::max(t.halo, t.spmv_interior) + extra_work;
            tl.kernel(0);  // the interior product's launch; its time is in `hidden`
            tl.kernel(0);  // pack the words to send
            if (staged) through_host(hidden);
            else tl.kernel(hidden);
            if (t.spmv_boundary > 0) {
                tl.kernel(t.spmv_boundary);
                tl.kernel(t.scatter);
            }
            return;
        }
        if (distributed) {
            tl.kernel(0);  // pack the words to send (gather; its bytes are left out)
            if (staged) through_host(t.halo);
            else tl.kernel(t.halo);
        }
        tl.kernel(t.spmv + extra_work);
    };
    const auto allreduce = [&](double words) {
        if (!distributed) return;  // the sum over one rank: nothing issued
        const double cost = t.allreduce_latency + words * t.allreduce_word;
        if (staged) through_host(cost);
        else tl.kernel(cost);
    };
    // r = M^-1 (b - A x), beta = ||r||.
    const auto residual = [&] {
        tl.kernel(2 * t.dram_pass);  // x into the vector with ghost room
        tl.kernel(2 * t.dram_pass);  // r = b
        spmv(t.dram_pass);           // r -= A x (r read)
        tl.kernel(3 * t.dram_pass);  // Jacobi
        tl.reduction(t.dram_pass);
        allreduce(1);
        tl.copy();  // the norm to the host
        tl.synchronize();
    };
    if (opening_residual) {
        residual();
        return tl;
    }
    for (int j = 1; j <= s.m; ++j) {
        spmv(0);
        tl.kernel(3 * t.dram_pass);  // Jacobi: D^-1, w in, w out
        if (s.orth == GmresOrth::mgs) {
            for (int i = 0; i < j; ++i) {
                tl.reduction(t.dram_pass + t.w_pass);  // (w, v_i)
                allreduce(1);
                tl.kernel(t.dram_pass + 2 * t.w_pass);  // w -= h_ij v_i
            }
        } else {
            const int chunks = (j + 63) / 64;  // gram / update kernels take <= 64 columns
            for (int pass = 0; pass < 2; ++pass) {
                for (int c = 0; c < chunks; ++c) {
                    const int k = std::min(64, j - 64 * c);
                    tl.reduction(k * t.dram_pass + t.w_pass);  // V_c^T w
                }
                allreduce(j);
                for (int c = 0; c < chunks; ++c) {
                    const int k = std::min(64, j - 64 * c);
                    tl.kernel(k * t.dram_pass + 2 * t.w_pass);  // w -= V_c h_c
                }
            }
        }
        tl.reduction(t.w_pass);  // ||w||^2
        allreduce(1);
        tl.copy();  // the Hessenberg column to the host
        tl.copy();  // and the norm
        tl.synchronize();
        tl.kernel(2 * t.w_pass);  // v_{j+1} = w / h_{j+1,j}
    }
    // The restart: x += V_m y, r = M^-1 (b - A x), beta = ||r||, v_1 = r / beta.
    tl.copy();  // y to the device
    tl.kernel((s.m + 2) * t.dram_pass);
    tl.synchronize();  // y's host memory is released
    residual();
    tl.kernel(2 * t.dram_pass);  // v_1 = r / beta
    return tl;
}

/// Time per iteration of one rank among num_ranks (pass the slowest rank's load). On one rank the
/// halo must be empty and no all-reduce is issued. The work terms are priced as the header says;
/// the total replays the cycles on the launch pipeline (gmres_cycle_timeline): one full cycle
/// divided by m, or with s.iterations > 0 the solve's opening residual, full cycles and last,
/// shorter one divided by the iterations (a solve that stops early has fewer, shorter
/// orthogonalization steps per iteration, and its opening residual weighs more; that residual
/// enters total and launches, not the four work terms). With mc.launch all 0 the total is the sum
/// of the work. With s.overlap on P > 1 ranks and interior rows (load.boundary_rows < load.rows),
/// spmv is the interior and boundary products and the scatter-add, and halo only the exchange's
/// part beyond the interior product (header). Throws std::invalid_argument for num_ranks, m,
/// word_bytes or index_bytes < 1, a negative s.iterations, a negative or non-finite load, halo
/// words or messages on one rank ("halo_words", "halo_messages"), boundary rows or nnz above rows
/// or nnz ("boundary_rows", "boundary_nnz"), device_bytes_per_s <= 0, a negative launch cost, and
/// with num_ranks > 1 link_bytes_per_s <= 0, a negative p2p or all-reduce latency or
/// pcie_bytes_per_s.
inline GmresIterationTime gmres_iteration_time(const GmresRankLoad& load, int num_ranks,
                                               const GmresSetup& s, const GmresMachine& mc)
{
    const char* f = "gmres_iteration_time";
    detail::gmres_check_int(f, "num_ranks", num_ranks);
    detail::gmres_check_int(f, "m", s.m);
    detail::gmres_check_int(f, "word_bytes", s.word_bytes);
    detail::gmres_check_int(f, "index_bytes", s.index_bytes);
    detail::gmres_check(f, "rows", load.rows, false);
    detail::gmres_check(f, "nnz", load.nnz, false);
    detail::gmres_check(f, "halo_words", load.halo_words, false);
    detail::gmres_check(f, "halo_messages", load.halo_messages, false);
    detail::gmres_check(f, "boundary_rows", load.boundary_rows, false);
    detail::gmres_check(f, "boundary_nnz", load.boundary_nnz, false);
    if (load.boundary_rows > load.rows)
        detail::gmres_comm_fail(f, "boundary_rows = " + std::to_string(load.boundary_rows) +
                                       ", expected <= rows = " + std::to_string(load.rows));
    if (load.boundary_nnz > load.nnz)
        detail::gmres_comm_fail(f, "boundary_nnz = " + std::to_string(load.boundary_nnz) +
                                       ", expected <= nnz = " + std::to_string(load.nnz));
    detail::gmres_check(f, "device_bytes_per_s", mc.device_bytes_per_s, true);
    const bool distributed = num_ranks > 1;
    detail::gmres_check(f, "l2_bytes", mc.l2_bytes, false);
    if (mc.l2_bytes > 0) detail::gmres_check(f, "l2_bytes_per_s", mc.l2_bytes_per_s, true);
    detail::gmres_check(f, "launch_s", mc.launch.launch_s, false);
    detail::gmres_check(f, "sync_s", mc.launch.sync_s, false);
    detail::gmres_check(f, "kernel_fixed_s", mc.launch.kernel_fixed_s, false);
    detail::gmres_check(f, "reduction_fixed_s", mc.launch.reduction_fixed_s, false);
    detail::gmres_check(f, "node_s", mc.launch.node_s, false);
    if (!distributed && (load.halo_words > 0 || load.halo_messages > 0))
        detail::gmres_comm_fail(f, "halo_words = " + std::to_string(load.halo_words) +
                                       ", halo_messages = " + std::to_string(load.halo_messages) +
                                       " with num_ranks = 1, expected 0");
    GmresOpTimes op;
    if (distributed) {
        detail::gmres_check(f, "link_bytes_per_s", mc.link_bytes_per_s, true);
        detail::gmres_check(f, "p2p_latency_s", mc.p2p_latency_s, false);
        detail::gmres_check(f, "allreduce_latency_s", mc.allreduce_latency_s, false);
        detail::gmres_check(f, "pcie_bytes_per_s", mc.pcie_bytes_per_s, false);
        const double halo_bytes = load.halo_words * s.word_bytes;
        const bool pcie = s.halo_path == HaloPath::host_staged && mc.pcie_bytes_per_s > 0;
        // One latency per exchange: its messages (to and from every neighbour) are posted
        // together and in flight at once, and p2p_latency_s is measured as one whole exchange
        // (harness/mpi/dist_link.hpp).
        op.halo = (load.halo_messages > 0 ? mc.p2p_latency_s : 0.0)
                  + halo_bytes / mc.link_bytes_per_s                   // the words over the link
                  + (pcie ? 2.0 * halo_bytes / mc.pcie_bytes_per_s : 0.0);  // GPU -> host -> GPU
        op.allreduce_latency = mc.allreduce_latency_s;
        op.allreduce_word = s.word_bytes / mc.link_bytes_per_s;
    }
    op.spmv = gmres_spmv_bytes(load, s.word_bytes, s.index_bytes) / mc.device_bytes_per_s;
    const bool overlap = distributed && s.overlap && load.boundary_rows < load.rows;
    if (overlap) {
        const GmresOverlapBytes ob = gmres_overlap_bytes(load, s.word_bytes, s.index_bytes);
        op.spmv_interior = ob.interior / mc.device_bytes_per_s;
        op.spmv_boundary = ob.boundary / mc.device_bytes_per_s;
        op.scatter = ob.scatter / mc.device_bytes_per_s;
    }
    // One SpMV's product and its exposed halo.
    const double spmv_product =
        overlap ? op.spmv_interior + op.spmv_boundary + op.scatter : op.spmv;
    const double spmv_halo = overlap ? std::max(0.0, op.halo - op.spmv_interior) : op.halo;
    const double pass_bytes = load.rows * s.word_bytes;
    op.dram_pass = pass_bytes / mc.device_bytes_per_s;
    const bool w_cached = mc.l2_bytes > 0 && pass_bytes <= mc.l2_bytes / 2;
    op.w_pass = w_cached ? pass_bytes / mc.l2_bytes_per_s : op.dram_pass;

    // The terms of one cycle of `steps` steps (and its restart), not yet divided.
    const auto cycle = [&](int steps) {
        GmresSetup cs = s;
        cs.m = steps;
        const GmresCounts c = gmres_cycle_counts(steps, s.orth);
        GmresIterationTime t;
        t.spmv = c.spmvs * spmv_product;
        t.vector_ops =
            (c.vector_passes - c.working_passes) * op.dram_pass + c.working_passes * op.w_pass;
        t.halo = distributed ? c.spmvs * spmv_halo : 0.0;
        t.reductions = distributed ? c.allreduces * op.allreduce_latency +
                                         c.allreduce_words * op.allreduce_word
                                   : 0.0;
        t.total = gmres_cycle_timeline(num_ranks, cs, mc.launch, op).seconds();
        return t;
    };
    detail::gmres_check(f, "iterations", s.iterations, false);
    const int full = s.iterations > 0 ? s.iterations / s.m : 1;
    const int rest = s.iterations > 0 ? s.iterations % s.m : 0;
    const double steps = s.iterations > 0 ? s.iterations : s.m;
    const GmresIterationTime a = cycle(s.m);
    const GmresIterationTime b = rest > 0 ? cycle(rest) : GmresIterationTime{};
    const auto per_step = [&](double GmresIterationTime::*term) {
        return (full * (a.*term) + b.*term) / steps;
    };
    GmresIterationTime t;
    t.spmv = per_step(&GmresIterationTime::spmv);
    t.vector_ops = per_step(&GmresIterationTime::vector_ops);
    t.halo = per_step(&GmresIterationTime::halo);
    t.reductions = per_step(&GmresIterationTime::reductions);
    t.total = per_step(&GmresIterationTime::total);
    if (s.iterations > 0)  // the solve's opening residual
        t.total += gmres_cycle_timeline(num_ranks, s, mc.launch, op, true).seconds() / steps;
    t.launches = std::max(0.0, t.total - (t.spmv + t.vector_ops + t.halo + t.reductions));
    return t;
}

/// Time per iteration on ranks.size() ranks: the terms of the rank with the largest total (the
/// first on ties), since every all-reduce waits for the slowest. Throws for an empty list
/// ("ranks") and as the one-rank overload.
inline GmresIterationTime gmres_iteration_time(const std::vector<GmresRankLoad>& ranks,
                                               const GmresSetup& s, const GmresMachine& mc)
{
    if (ranks.empty())
        detail::gmres_comm_fail("gmres_iteration_time", "ranks is empty, expected >= 1 rank");
    const int p = static_cast<int>(ranks.size());
    GmresIterationTime slowest = gmres_iteration_time(ranks.front(), p, s, mc);
    for (std::size_t d = 1; d < ranks.size(); ++d) {
        const GmresIterationTime t = gmres_iteration_time(ranks[d], p, s, mc);
        if (t.total > slowest.total) slowest = t;
    }
    return slowest;
}

}  // namespace kbench::models
