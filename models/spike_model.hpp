// Traffic, flop and time model of the truncated SPIKE solver of li2012 (SPIKE::GPU) and of its
// CPU baseline, LAPACK dgbsv; plus a partition-size chooser derived from the model and from an
// estimate of how fast the spikes decay (SpikeDecay: the matrix's measured statistics).
//
// The matrix: N x N, half-bandwidth K (lower and upper), split into p = floor(N / psize)
// partitions of psize rows, the last one taking the remainder (li2012 Sec. 1.2, Sec. 2.5).
// Phases (li2012 Sec. 1.2-1.4, Sec. 2.2):
//  - setup: banded LU without pivoting of every partition; UL of the top-left 2K x 2K block of
//    partitions 2..p (Sec. 2.2: l = 2K); the K x K spike tips W_i^b and V_{i+1}^t of the p - 1
//    interfaces; LU of the p - 1 dense 2K x 2K reduced blocks R_i (Sec. 1.3, truncated M_WV);
//  - apply (one preconditioner application): a forward/backward banded solve pair per partition
//    (D g = b), the p - 1 reduced solves, the coupling update of the right-hand side by B_i and
//    C_i, and a second solve pair per partition (Sec. 1.3, last equation);
//  - BiCGStab (Sec. 1.4): per iteration 2 SpMVs, 2 applies (right preconditioning; li2012's
//    Algorithm 1 is written without M^-1: pass preconditioned = false for it) and vector ops.
// Bytes are the compulsory traffic: every array a phase touches read or written once (li2012's
// kernels use no shared memory, Sec. 2.2, so their window re-reads hit the caches, not counted).
// li2012's three copies of A (Sec. 2.1) and host transfers are not counted.
//
// Units: bytes, flops, seconds; GB/s and GFLOP/s are 1e9 per second. Counts are doubles (exact
// integers below 2^53). Bad input throws std::invalid_argument naming the function, the
// parameter, its value and what was expected.
#pragma once

#include "models/spmv_traffic.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace kbench::models::spike {

namespace detail {
[[noreturn]] inline void fail(std::string_view function, std::string_view parameter, double value,
                              std::string_view expected)
{
    throw std::invalid_argument("kbench::models::spike::" + std::string(function) + ": " +
                                std::string(parameter) + " = " + std::to_string(value) +
                                ", expected " + std::string(expected));
}
inline void check_size(std::string_view function, std::int64_t rows, std::int64_t k,
                       int value_bytes)
{
    if (rows < 0) fail(function, "rows", static_cast<double>(rows), ">= 0");
    if (k < 0) fail(function, "K", static_cast<double>(k), ">= 0");
    if (value_bytes <= 0) fail(function, "value_bytes", value_bytes, "> 0 (8 double, 4 float)");
}
// sum_{r=a}^{b-1} r and sum_{r=a}^{b-1} r^2 (0 when b <= a).
inline double sum_r(double a, double b) { return b > a ? (b * (b - 1) - a * (a - 1)) / 2.0 : 0.0; }
inline double sum_r2(double a, double b)
{
    auto s = [](double m) { return m * (m - 1) * (2 * m - 1) / 6.0; };  // sum_{r<m} r^2
    return b > a ? s(b) - s(a) : 0.0;
}
}  // namespace detail

// ------------------------------------------------------------------------------------------------
// Counts of the building blocks
// ------------------------------------------------------------------------------------------------

/// Entries strictly below the diagonal of a rows x rows band of half-bandwidth k:
/// sum_i min(i, k) = rows k - k(k+1)/2 for rows >= k (the same count lies above).
inline double band_strict_lower(std::int64_t rows, std::int64_t k)
{
    const double n = static_cast<double>(rows), kk = static_cast<double>(std::min(k, rows));
    return detail::sum_r(0, kk) + (n - kk) * kk;
}

/// Entries of the band |i - j| <= k of a rows x rows matrix: rows(2k+1) - k(k+1) for rows > k
/// (the nnz of matrices/generators.hpp's `banded`).
inline double band_entries(std::int64_t rows, std::int64_t k)
{
    return static_cast<double>(rows) + 2.0 * band_strict_lower(rows, k);
}

/// Flops of an LU factorization of a rows x rows band with kl sub- and ku super-diagonals
/// (ku >= kl; U keeps ku super-diagonals). Elimination step j has m = min(kl, r) rows below
/// and c = min(ku, r) columns right of the pivot, r = rows - 1 - j; it costs m divisions
/// (multipliers) + 2 m c (rank-1 update). Closed form of sum_r [min(kl,r) + 2 min(kl,r)
/// min(ku,r)]. A dense m x m LU is band_lu_flops(m, m - 1, m - 1) ~ 2/3 m^3.
inline double band_lu_flops(std::int64_t rows, std::int64_t kl, std::int64_t ku)
{
    if (rows < 0 || kl < 0 || ku < kl)
        detail::fail("band_lu_flops", "rows, kl, ku", static_cast<double>(rows),
                     "rows >= 0 and 0 <= kl <= ku");
    const double n = static_cast<double>(rows);
    const double l = std::min<double>(static_cast<double>(kl), n);
    const double u = std::min<double>(static_cast<double>(ku), n);
    double f = 0.0;
    f += detail::sum_r(0, l) + 2.0 * detail::sum_r2(0, l);           // r < kl: r + 2 r^2
    f += (u - l) * l + 2.0 * l * detail::sum_r(l, u);                // kl <= r < ku: kl + 2 kl r
    f += (n - u) * (l + 2.0 * l * static_cast<double>(ku));          // r >= ku: kl + 2 kl ku
    return f;
}

/// Banded LU without pivoting of one partition of `rows` rows, half-bandwidth k (li2012 Sec. 1.2,
/// Sec. 2.2): ~2 k^2 rows flops; the band is read once and overwritten by L and U once.
inline Traffic banded_lu(std::int64_t rows, std::int64_t k, int value_bytes)
{
    detail::check_size("banded_lu", rows, k, value_bytes);
    Traffic t;
    t.bytes_read = band_entries(rows, k) * value_bytes;     // the band of A_i
    t.bytes_written = band_entries(rows, k) * value_bytes;  // L and U in place
    t.flops = band_lu_flops(rows, k, k);                    // rows - 1 elimination steps
    return t;
}

/// kbench's blocked LU of one partition of `rows` rows for large K (solvers/spike/
/// band_lu_blocked.hpp): the band viewed as block tridiagonal with b = ceil(rows / K) K x K
/// blocks (the last padded with the identity). Each block row j < b - 1 costs a getrf without
/// pivoting of D_j (2/3 K^3 flops), two triangular solves with K right-hand sides (C_j U_j^-1,
/// L_j^-1 B_j: K^3 each) and the update D_{j+1} -= C_j B_j (2 K^3); the last one its getrf.
/// Bytes: the band read (gather) and written (scatter) once, the 3b - 2 dense blocks written by
/// the gather and read by the scatter, and per block row the compulsory traffic of its cuBLAS
/// calls (getrf: D read and written; trsm: D, C read, C written; trsm: D, B read, B written;
/// gemm: C, B, D_{j+1} read, D_{j+1} written: 8 K^2 read, 4 K^2 written; the last row's getrf
/// K^2 each). More flops than banded_lu (dense triangular blocks, ~14/3 K^2
/// rows against ~2 K^2 rows), at the rate of dense batched cuBLAS calls instead of one thread
/// block's dependent steps.
inline Traffic blocked_lu(std::int64_t rows, std::int64_t k, int value_bytes)
{
    detail::check_size("blocked_lu", rows, k, value_bytes);
    if (rows == 0 || k == 0) return {};
    const double kk = static_cast<double>(k);
    const double b = std::ceil(static_cast<double>(rows) / kk);        // block rows
    const double k2 = kk * kk, k3 = k2 * kk;
    Traffic t;
    t.bytes_read = band_entries(rows, k) * value_bytes                 // gather: the band
                   + (3.0 * b - 2.0) * k2 * value_bytes                // scatter: dense blocks
                   + ((b - 1.0) * 8.0 + 1.0) * k2 * value_bytes;       // cuBLAS reads
    t.bytes_written = (3.0 * b - 2.0) * k2 * value_bytes               // gather: dense blocks
                      + band_entries(rows, k) * value_bytes            // scatter: the band
                      + ((b - 1.0) * 4.0 + 1.0) * k2 * value_bytes;    // cuBLAS writes
    t.flops = (b - 1.0) * (2.0 / 3.0 + 1.0 + 1.0 + 2.0) * k3           // getrf, 2 trsm, gemm
              + 2.0 / 3.0 * k3;                                        // the last getrf
    return t;
}

/// cuBLAS calls and kernels of one blocked LU over every partition at once whose largest
/// partition has `rows` rows: 4 batched calls per block row but the last (1), the gather, the
/// scatter and the pivot check.
inline double blocked_lu_launches(std::int64_t rows, std::int64_t k)
{
    if (rows < 1 || k < 1) return 0.0;
    const double b = std::ceil(static_cast<double>(rows) / static_cast<double>(k));
    return 4.0 * (b - 1.0) + 1.0 + 3.0;
}

/// Banded UL without pivoting (li2012 Sec. 2.2: the LU sweep mirrored, bottom-right to
/// top-left): the same counts as banded_lu. SPIKE::GPU factors only the top-left 2K x 2K block.
inline Traffic banded_ul(std::int64_t rows, std::int64_t k, int value_bytes)
{
    detail::check_size("banded_ul", rows, k, value_bytes);
    return banded_lu(rows, k, value_bytes);
}

/// One K x K spike tip (W_i^b from the bottom-right corner of A_i's LU, or V_{i+1}^t from the
/// top-left corner of A_{i+1}'s UL; li2012 Sec. 1.3, 2.2): K right-hand sides (the columns of the
/// triangular coupling block C_i or B_{i+1}), each a unit-triangular K x K solve (K(K-1)
/// flops) and a triangular K x K solve with divisions (K^2 flops).
inline Traffic spike_tip(std::int64_t k, int value_bytes)
{
    detail::check_size("spike_tip", 0, k, value_bytes);
    const double kk = static_cast<double>(k);
    Traffic t;
    t.bytes_read = kk * kk * value_bytes                     // the factors' K x K corner
                   + kk * (kk + 1) / 2.0 * value_bytes;      // the triangular coupling block
    t.bytes_written = kk * kk * value_bytes;                 // the tip
    t.flops = kk * (kk * (kk - 1) + kk * kk);                // K rhs x (L solve + U solve)
    return t;
}

/// LU without pivoting of one dense 2K x 2K reduced block R_i = [I W_i^b; V_{i+1}^t I] (li2012
/// Sec. 1.3, truncated M_WV): reads the two tips, writes the factors; ~16/3 K^3 flops.
inline Traffic reduced_factor(std::int64_t k, int value_bytes)
{
    detail::check_size("reduced_factor", 0, k, value_bytes);
    const double kk = static_cast<double>(k);
    Traffic t;
    t.bytes_read = 2.0 * kk * kk * value_bytes;              // W_i^b and V_{i+1}^t
    t.bytes_written = 4.0 * kk * kk * value_bytes;           // L and U of R_i
    t.flops = k > 0 ? band_lu_flops(2 * k, 2 * k - 1, 2 * k - 1) : 0.0;  // dense LU, m = 2K
    return t;
}

/// One solve with a factored reduced block (m = 2K): unit-L solve m(m-1) + U solve m^2 flops.
inline Traffic reduced_solve(std::int64_t k, int value_bytes)
{
    detail::check_size("reduced_solve", 0, k, value_bytes);
    const double m = 2.0 * static_cast<double>(k);
    Traffic t;
    t.bytes_read = m * m * value_bytes                       // the factors of R_i
                   + m * value_bytes;                        // g_i^b and g_{i+1}^t
    t.bytes_written = m * value_bytes;                       // x_i^b and x_{i+1}^t
    t.flops = m * (m - 1) + m * m;
    return t;
}

/// Forward and backward banded substitution with one partition's LU factors, one right-hand
/// side (li2012 Sec. 1.3): 2 flops per stored entry of L and U off the diagonal, one division
/// per row; the intermediate vector goes through device memory.
inline Traffic banded_solve_pair(std::int64_t rows, std::int64_t k, int value_bytes)
{
    detail::check_size("banded_solve_pair", rows, k, value_bytes);
    const double n = static_cast<double>(rows);
    Traffic t;
    t.bytes_read = band_entries(rows, k) * value_bytes       // L and U
                   + n * value_bytes                         // right-hand side
                   + n * value_bytes;                        // intermediate y (backward sweep)
    t.bytes_written = n * value_bytes                        // y (forward sweep)
                      + n * value_bytes;                     // solution
    t.flops = 2.0 * band_strict_lower(rows, k)               // forward, unit L
              + 2.0 * band_strict_lower(rows, k) + n;        // backward, U with divisions
    return t;
}

/// Coupling update at one interface (li2012 Sec. 1.3, last equation): b_i^b -= C_i x_{i+1}^t and
/// b_{i+1}^t -= B_{i+1} x_i^b, two triangular K x K products (K(K+1)/2 entries each).
inline Traffic coupling_update(std::int64_t k, int value_bytes)
{
    detail::check_size("coupling_update", 0, k, value_bytes);
    const double kk = static_cast<double>(k);
    Traffic t;
    t.bytes_read = kk * (kk + 1) * value_bytes               // B_{i+1} and C_i
                   + 2.0 * kk * value_bytes                  // x_i^b and x_{i+1}^t
                   + 2.0 * kk * value_bytes;                 // the 2K right-hand-side entries
    t.bytes_written = 2.0 * kk * value_bytes;                // updated right-hand side
    t.flops = 2.0 * kk * (kk + 1);                           // 2 flops per coupling entry
    return t;
}

// ------------------------------------------------------------------------------------------------
// Partitioning and phases
// ------------------------------------------------------------------------------------------------

/// N rows in `partitions` = floor(N / psize) partitions of psize rows; the last has last_rows
/// = N - (partitions - 1) psize in [psize, 2 psize) rows (li2012 Sec. 1.2, 2.5).
struct Partitioning {
    std::int64_t n = 0;
    std::int64_t k = 0;
    std::int64_t psize = 0;
    std::int64_t partitions = 0;
    std::int64_t last_rows = 0;
};

/// Partitions N rows for half-bandwidth K. Throws std::invalid_argument unless K >= 1 and
/// 2K <= psize <= N / 2 (li2012 Sec. 1.2: SPIKE fails below 2K; above N/2 there is one
/// partition), which needs N >= 4K.
inline Partitioning partition(std::int64_t n, std::int64_t k, std::int64_t psize)
{
    if (k < 1) detail::fail("partition", "K", static_cast<double>(k), ">= 1");
    if (n < 4 * k) detail::fail("partition", "N", static_cast<double>(n), "N >= 4K");
    if (psize < 2 * k || psize > n / 2)
        detail::fail("partition", "psize", static_cast<double>(psize), "2K <= psize <= N/2");
    const std::int64_t p = n / psize;
    return {n, k, psize, p, n - (p - 1) * psize};
}

/// What one step of a phase's dependent chain is (MachineRates gives its seconds): a
/// block-synchronous step ending in a barrier, a pivot of the partition LU/UL kernel, a row of
/// a partition's substitution sweep; or, for the fixed-size kernels of one block per interface
/// (the spike tips, the reduced blocks' LU), one block: chain_steps counts the phase's blocks,
/// which run in waves of the kernel's resident blocks, each wave taking the measured seconds.
enum class Chain { block, lu_pivot, solve_row, tips_block, reduced_block, blocked_step };

/// A phase: `traffic` summed over its blocks, `launches` kernel launches, run `count` times,
/// keeping a fraction `efficiency` in (0, 1] of the GPU busy (1 for whole-GPU kernels; for one
/// thread block per partition see partition_efficiency). A phase of one thread block per
/// partition whose block walks its rows in order also has a dependent chain: `chain_steps`
/// steps of kind `chain` of its longest block, in `waves` waves of resident blocks (0 steps: no
/// chain, e.g. the batched cuBLAS calls).
struct Phase {
    std::string_view name;
    Traffic traffic;
    double launches = 1.0;
    double count = 1.0;
    double efficiency = 1.0;
    double chain_steps = 0.0;
    double waves = 1.0;
    Chain chain = Chain::block;
    /// Chain::blocked_step: the blocks in the batched calls, summed over the chain's steps.
    double batch_blocks = 0.0;
};

/// Waves of `blocks` equal thread blocks on `slots` concurrent ones (slots <= 0: unknown, 1).
inline double block_waves(double blocks, double slots)
{
    return slots > 0.0 && blocks > 0.0 ? std::ceil(blocks / slots) : 1.0;
}

/// Block-synchronous steps of one pivot of the shared-memory band LU (solvers/spike/spike.cu,
/// band_lu_kernel): the multipliers' scaling, a barrier, the K x K update, a barrier. Used
/// where the pivot step of the kernel itself was not measured (MachineRates::lu_step_s = 0).
inline constexpr double lu_steps_per_pivot = 2.0;
/// Steps of one row of a substitution sweep (band_solve_kernel, reduced_solve_kernel): read the
/// row's value, update the K rows below (above) it, a barrier; likewise the fallback of
/// MachineRates::solve_step_s.
inline constexpr double solve_steps_per_row = 1.0;

/// Fraction of `slots` concurrent thread blocks (SMs x resident blocks per SM) kept busy by
/// `blocks` blocks of equal work, plus one block `last_scale` times larger scheduled in the last
/// wave: work / (slots x makespan), makespan = (waves - 1) + last_scale block times. slots = 0
/// means "unknown": 1 is returned. Work per partition is taken proportional to its rows.
inline double partition_efficiency(double blocks, double last_scale, double slots)
{
    if (slots <= 0.0 || blocks <= 0.0) return 1.0;
    const double waves = std::ceil(blocks / slots);
    const double work = blocks - 1.0 + last_scale;
    return std::min(1.0, work / (slots * (waves - 1.0 + last_scale)));
}

namespace detail {
inline Traffic scaled(Traffic t, double s)
{
    t.bytes_read *= s;
    t.bytes_written *= s;
    t.flops *= s;
    return t;
}
inline Traffic plus(Traffic a, const Traffic& b)
{
    a.bytes_read += b.bytes_read;
    a.bytes_written += b.bytes_written;
    a.flops += b.flops;
    return a;
}
// Sum of f(rows, k, vb) over p - 1 partitions of psize rows and the last one.
template <class F>
Traffic over_partitions(const Partitioning& s, int vb, F f)
{
    return plus(scaled(f(s.psize, s.k, vb), static_cast<double>(s.partitions - 1)),
                f(s.last_rows, s.k, vb));
}
}  // namespace detail

/// Setup phases (factorization, li2012 Sec. 1.2, 1.3, 2.2). `slots`: concurrent thread blocks
/// of the GPU (0: assume a full GPU). Launch counts: one kernel per phase, two for the tips
/// (W's and V's on two streams, Sec. 2.3). blocked: the LU and UL run as kbench's blocked
/// LU (blocked_lu, batched over all partitions and corners at once: whole-GPU calls, launches
/// blocked_lu_launches of the last partition) instead of one thread block per partition, the
/// tips as batched triangular solves and the reduced blocks' LU as one batched cuBLAS getrf
/// (3 launches, whole GPU).
inline std::vector<Phase> setup_phases(const Partitioning& s, int value_bytes, double slots = 0,
                                       bool blocked = false)
{
    const double p = static_cast<double>(s.partitions);
    const double last = static_cast<double>(s.last_rows) / static_cast<double>(s.psize);
    const double e_part = partition_efficiency(p, last, slots);
    const double e_iface = partition_efficiency(p - 1, 1.0, slots);
    // The shared-memory LU: LU blocks and corner-UL blocks in one launch; its chain is the
    // longest partition's pivots (the corners' 2K pivots run beside them).
    const double longest = static_cast<double>(std::max(s.psize, s.last_rows));
    // The blocked LU's chain: the longest partition's block-row steps, each one set of batched
    // calls over the blocks still factoring; summed over the steps, every partition's blocks
    // but its last and each corner-UL block's one full step (2K rows: 2 block rows).
    const auto full_steps = [&](std::int64_t rows) {
        return std::ceil(static_cast<double>(rows) / static_cast<double>(s.k)) - 1.0;
    };
    Phase lu_blocked{"lu", detail::over_partitions(s, value_bytes, blocked_lu),
                     blocked_lu_launches(s.last_rows, s.k), 1, 1,
                     std::max(full_steps(s.psize), full_steps(s.last_rows)), 1,
                     Chain::blocked_step};
    lu_blocked.batch_blocks =
        (p - 1.0) * full_steps(s.psize) + full_steps(s.last_rows) + (p - 1.0);
    const Phase lu = blocked ? lu_blocked
                             : Phase{"lu", detail::over_partitions(s, value_bytes, banded_lu),
                                     1, 1, e_part, longest,
                                     block_waves(2.0 * p - 1.0, slots), Chain::lu_pivot};
    const Phase ul = blocked ? Phase{"ul_top",
                                     detail::scaled(blocked_lu(2 * s.k, s.k, value_bytes), p - 1),
                                     0, 1, 1}  // in the LU's batched calls
                             : Phase{"ul_top",
                                     detail::scaled(banded_ul(2 * s.k, s.k, value_bytes), p - 1),
                                     1, 1, e_iface};
    return {
        lu,
        ul,
        // blocked: the tips as two batched trsm between a right-hand-side and a reversal kernel
        // (SpikeSolver does so where 2K^2 values do not fit in shared memory: in double the same
        // K as the blocked LU, in float from K = 169).
        {"spike_tips", detail::scaled(spike_tip(s.k, value_bytes), 2 * (p - 1)),
         blocked ? 4.0 : 2.0, 1, blocked ? 1.0 : e_iface, blocked ? 0.0 : 2 * (p - 1), 1,
         Chain::tips_block},
        // blocked: build, batched getrf and pivot check over all interfaces (whole-GPU calls).
        {"reduced_factor", detail::scaled(reduced_factor(s.k, value_bytes), p - 1),
         blocked ? 3.0 : 1.0, 1, blocked ? 1.0 : e_iface, blocked ? 0.0 : p - 1, 1,
         Chain::reduced_block},
    };
}

/// Phases of one preconditioner application (li2012 Sec. 1.3), one launch each.
inline std::vector<Phase> apply_phases(const Partitioning& s, int value_bytes, double slots = 0)
{
    const double p = static_cast<double>(s.partitions);
    const double last = static_cast<double>(s.last_rows) / static_cast<double>(s.psize);
    const double e_part = partition_efficiency(p, last, slots);
    const double e_iface = partition_efficiency(p - 1, 1.0, slots);
    const Traffic pair = detail::over_partitions(s, value_bytes, banded_solve_pair);
    // Chains: a forward and a backward sweep over the longest partition's rows; the reduced
    // 2K x 2K blocks' forward and backward substitution.
    const double longest = static_cast<double>(std::max(s.psize, s.last_rows));
    const double pair_rows = 2.0 * longest;
    const double reduced_steps = 2.0 * solve_steps_per_row * 2.0 * static_cast<double>(s.k);
    const double w_part = block_waves(p, slots), w_iface = block_waves(p - 1, slots);
    return {
        {"solve_pair_1", pair, 1, 1, e_part, pair_rows, w_part, Chain::solve_row},  // D g = b
        {"reduced_solve", detail::scaled(reduced_solve(s.k, value_bytes), p - 1), 1, 1, e_iface,
         reduced_steps, w_iface},
        {"coupling", detail::scaled(coupling_update(s.k, value_bytes), p - 1), 1, 1, e_iface},
        {"solve_pair_2", pair, 1, 1, e_part, pair_rows, w_part,
         Chain::solve_row},  // A_i x_i = b_i'
    };
}

/// Vector operations of one right-preconditioned BiCGStab iteration, in multiples of N:
/// rho = (r_hat, r) 2 reads; p = r + beta (p - omega v) 3 reads 1 write; alpha: (r_hat, v)
/// 2 reads; s = r - alpha v 2 reads 1 write; omega: (t, s) and (t, t) 4 reads; x += alpha p_hat +
/// omega s_hat 3 reads 1 write; r = s - omega t 2 reads 1 write; ||r|| 1 read.
/// Flops: 5 reductions x 2 + p 4 + s 2 + x 4 + r 2 = 22. Launches: one per operation, 9.
struct VectorOps {
    static constexpr double reads_n = 19.0;
    static constexpr double writes_n = 4.0;
    static constexpr double flops_n = 22.0;
    static constexpr double launches = 9.0;
};

/// Phases of one BiCGStab iteration (li2012 Sec. 1.4): 2 CSR SpMVs with nnz = band_entries(N, K)
/// (models/spmv_traffic.hpp), 2 preconditioner applies when `preconditioned`, the vector ops.
inline std::vector<Phase> iteration_phases(const Partitioning& s, int value_bytes,
                                           bool preconditioned = true, double slots = 0,
                                           int index_bytes = 4)
{
    const double n = static_cast<double>(s.n);
    const auto nnz = static_cast<std::int64_t>(band_entries(s.n, s.k));
    std::vector<Phase> out{
        {"spmv", csr_spmv(s.n, s.n, nnz, value_bytes, index_bytes), 1, 2, 1},
        {"vector_ops",
         {VectorOps::reads_n * n * value_bytes, VectorOps::writes_n * n * value_bytes,
          VectorOps::flops_n * n},
         VectorOps::launches, 1, 1},
    };
    if (preconditioned)
        for (Phase ph : apply_phases(s, value_bytes, slots)) {
            ph.count *= 2;
            out.push_back(ph);
        }
    return out;
}

/// Phases of a whole solve: setup, the start (x0 = M^-1 b: one apply; r0 = b - A x0: one SpMV
/// reading b; r_hat = r0 and ||b||: 2N reads, N writes, 2N flops, 2 launches), and `iterations`
/// BiCGStab iterations (counts multiplied).
inline std::vector<Phase> solve_phases(const Partitioning& s, double iterations, int value_bytes,
                                       bool preconditioned = true, double slots = 0,
                                       int index_bytes = 4)
{
    if (!(iterations >= 0.0) || !std::isfinite(iterations))
        detail::fail("solve_phases", "iterations", iterations, "finite and >= 0");
    std::vector<Phase> out = setup_phases(s, value_bytes, slots);
    for (const Phase& ph : apply_phases(s, value_bytes, slots)) out.push_back(ph);
    const double n = static_cast<double>(s.n);
    const auto nnz = static_cast<std::int64_t>(band_entries(s.n, s.k));
    out.push_back({"start_spmv", csr_spmv(s.n, s.n, nnz, value_bytes, index_bytes, true), 1, 1, 1});
    out.push_back({"start_vector_ops", {2 * n * value_bytes, n * value_bytes, 2 * n}, 2, 1, 1});
    for (Phase ph : iteration_phases(s, value_bytes, preconditioned, slots, index_bytes)) {
        ph.count *= iterations;
        out.push_back(ph);
    }
    return out;
}

/// Sum of count x traffic over `phases`.
inline Traffic total(const std::vector<Phase>& phases)
{
    Traffic t;
    for (const Phase& ph : phases) t = detail::plus(t, detail::scaled(ph.traffic, ph.count));
    return t;
}

// ------------------------------------------------------------------------------------------------
// Time
// ------------------------------------------------------------------------------------------------

/// Measured machine figures: bandwidth in GB/s, flop rate in GFLOP/s (of the precision
/// modeled), seconds per kernel launch, seconds per step of a block-synchronous shared-memory
/// chain (kbench machine's block_step_us; 0: not measured, the chain term is left out), and
/// the seconds per pivot of the partition LU/UL kernel and per row of a substitution sweep,
/// measured on those kernels with every thread-block slot busy (solvers/spike's
/// SpikeSolver<T>::step_seconds; 0: not measured, lu_steps_per_pivot and solve_steps_per_row
/// block steps instead).
struct MachineRates {
    double bandwidth_gbs = 0.0;
    double gflops = 0.0;
    double launch_s = 0.0;
    double step_s = 0.0;
    double lu_step_s = 0.0;
    double solve_step_s = 0.0;
    /// One wave of a fixed-size kernel of one block per interface: its seconds with every
    /// resident block busy, and how many blocks that is (SpikeSolver<T>::step_seconds; 0: not
    /// measured, the phase has no chain term).
    struct Wave {
        double seconds = 0.0;
        double slots = 0.0;
    };
    Wave tips_wave{}, reduced_wave{};
    /// One block-row step of the blocked LU (batched getrf, two trsm and gemm over every block
    /// still factoring; solvers/spike/band_lu_blocked.hpp): fixed_s + per_block_s x the blocks
    /// in the batch, launches included (SpikeSolver<T>::step_seconds; 0: not measured, the
    /// phase has no chain term).
    struct BatchedStep {
        double fixed_s = 0.0;
        double per_block_s = 0.0;
    };
    BatchedStep blocked_step{};
};

/// Seconds of one step of kind `c` at rates `m` (see MachineRates); 0 for the block kinds,
/// whose chains are waves (chain_seconds).
inline double chain_step_seconds(Chain c, const MachineRates& m)
{
    switch (c) {
    case Chain::lu_pivot: return m.lu_step_s > 0.0 ? m.lu_step_s : lu_steps_per_pivot * m.step_s;
    case Chain::solve_row:
        return m.solve_step_s > 0.0 ? m.solve_step_s : solve_steps_per_row * m.step_s;
    case Chain::tips_block:
    case Chain::reduced_block:
    case Chain::blocked_step: return 0.0;
    case Chain::block: break;
    }
    return m.step_s;
}

/// The dependent-chain time of phase `ph` at rates `m`: waves x chain_steps x the step's
/// seconds; for the block kinds, ceil(blocks / slots) waves x the wave's seconds (0 where the
/// wave was not measured); for the blocked LU's steps, chain_steps x (fixed_s - its 4 launches)
/// + batch_blocks x per_block_s (0 where not measured).
inline double chain_seconds(const Phase& ph, const MachineRates& m)
{
    if (ph.chain == Chain::blocked_step) {
        // The measured step includes its four launches, which phase_time adds as the phase's
        // launches: only the rest of the fixed part is chained here.
        const MachineRates::BatchedStep& b = m.blocked_step;
        if (!(b.fixed_s > 0.0 || b.per_block_s > 0.0)) return 0.0;
        return ph.chain_steps * std::max(0.0, b.fixed_s - 4.0 * m.launch_s) +
               ph.batch_blocks * b.per_block_s;
    }
    if (ph.chain == Chain::tips_block || ph.chain == Chain::reduced_block) {
        const MachineRates::Wave& w = ph.chain == Chain::tips_block ? m.tips_wave : m.reduced_wave;
        if (!(w.seconds > 0.0 && w.slots > 0.0) || !(ph.chain_steps > 0.0)) return 0.0;
        return std::ceil(ph.chain_steps / w.slots) * w.seconds;
    }
    return ph.waves * ph.chain_steps * chain_step_seconds(ph.chain, m);
}

/// Time of one run of a phase: the larger of its roofline, max(bytes / bandwidth, flops /
/// rate) / efficiency, and its dependent chain, chain_seconds (the steps one block must take
/// in order, however idle the GPU), plus launches x launch latency.
inline double phase_time(const Phase& ph, const MachineRates& m)
{
    if (!(m.bandwidth_gbs > 0.0) || !(m.gflops > 0.0) || !(m.launch_s >= 0.0) ||
        !(m.step_s >= 0.0) || !(m.lu_step_s >= 0.0) || !(m.solve_step_s >= 0.0) ||
        !(m.tips_wave.seconds >= 0.0) || !(m.tips_wave.slots >= 0.0) ||
        !(m.reduced_wave.seconds >= 0.0) || !(m.reduced_wave.slots >= 0.0) ||
        !(m.blocked_step.fixed_s >= 0.0) || !(m.blocked_step.per_block_s >= 0.0))
        detail::fail("phase_time", "bandwidth_gbs", m.bandwidth_gbs,
                     "bandwidth_gbs > 0, gflops > 0, launch_s, step_s, lu_step_s, "
                     "solve_step_s, the waves' seconds and slots and the blocked step's "
                     "seconds >= 0");
    if (!(ph.efficiency > 0.0 && ph.efficiency <= 1.0))
        detail::fail("phase_time", "efficiency", ph.efficiency, "in (0, 1]");
    if (!(ph.chain_steps >= 0.0) || !(ph.waves >= 1.0))
        detail::fail("phase_time", "chain_steps", ph.chain_steps, ">= 0, with waves >= 1");
    const double memory = ph.traffic.bytes() / (m.bandwidth_gbs * 1e9);
    const double compute = ph.traffic.flops / (m.gflops * 1e9);
    const double chain = chain_seconds(ph, m);
    return std::max(std::max(memory, compute) / ph.efficiency, chain) + ph.launches * m.launch_s;
}

/// Predicted seconds of `phases`: sum of count x phase_time.
inline double predict_time(const std::vector<Phase>& phases, const MachineRates& m)
{
    double t = 0.0;
    for (const Phase& ph : phases) t += ph.count * phase_time(ph, m);
    return t;
}

// ------------------------------------------------------------------------------------------------
// CPU baseline: LAPACK dgbsv (dgbtrf + dgbtrs)
// ------------------------------------------------------------------------------------------------

/// LAPACK dgbsv on N x N with kl = ku = K and `nrhs` right-hand sides. Partial pivoting lets U
/// fill to kl + ku = 2K super-diagonals: dgbtrf's step updates min(K, r) rows x min(2K, r)
/// columns, ~4 K^2 N flops (`worst_case_fill`). Without any row interchange (e.g. columns
/// diagonally dominant) its fill tracker stays at K columns: ~2 K^2 N, as banded_lu.
/// dgbtrs: L solve 2 K N, U solve (bandwidth 2K or K) 2 ku N + N divisions, per right-hand side.
/// Bytes: the LAPACK band storage (ldab = 2 kl + ku + 1 = 3K + 1 rows x N) read and written by
/// the factorization and read by the solve, the pivots (4-byte ints), B read and written.
inline Traffic gbsv(std::int64_t n, std::int64_t k, std::int64_t nrhs, int value_bytes,
                    bool worst_case_fill = true)
{
    detail::check_size("gbsv", n, k, value_bytes);
    if (nrhs < 0) detail::fail("gbsv", "nrhs", static_cast<double>(nrhs), ">= 0");
    const std::int64_t ku = worst_case_fill ? 2 * k : k;
    const double nn = static_cast<double>(n), r = static_cast<double>(nrhs);
    const double ab = static_cast<double>(3 * k + 1) * nn;  // ldab x N
    Traffic t;
    t.bytes_read = ab * value_bytes                          // dgbtrf reads AB
                   + ab * value_bytes                        // dgbtrs reads the factors
                   + nn * 4.0                                // dgbtrs reads ipiv
                   + r * nn * value_bytes;                   // B in
    t.bytes_written = ab * value_bytes                       // dgbtrf writes L, U
                      + nn * 4.0                             // ipiv
                      + r * nn * value_bytes;                // X out
    t.flops = band_lu_flops(n, k, ku)                                    // dgbtrf
              + r * (2.0 * band_strict_lower(n, k)                       // L solve
                     + 2.0 * band_strict_lower(n, ku) + nn);             // U solve
    return t;
}

// ------------------------------------------------------------------------------------------------
// Spike decay and the partition-size chooser
// ------------------------------------------------------------------------------------------------

/// How fast the spikes decay away from the coupling block that makes them, as the chooser
/// sees it. li2012 Sec. 1.3: for diagonally dominant matrices the spikes decay away from the
/// interface, so truncated SPIKE drops the far spike tips (the truncated M_WV); what it drops
/// decides the preconditioner's quality. Estimate (kbench's, geometric per band-width): with
/// E = I - D^-1 A (D = diag A), A^-1 = sum_m E^m D^-1 and E^m has no entry beyond m K of the
/// diagonal, so spike entries m K rows away from the coupling rows come from the Neumann terms
/// of order >= m, which shrink as rho^m with rho E's spectral radius. ||E||_inf = 1 / d_min
/// bounds rho (li2012 footnote 1's d); with random signs the cancellations make rho far smaller
/// (~0.14 / d for li2012's random matrices at K = 32: circular law), which a measured rho
/// catches (matrices/banded.hpp band_decay_stats). A weakly dominant M-matrix (d_min = 1, like
/// tridiag(-1, 2, -1)) has rho -> 1 as N grows: no decay; its far tips fall only as K / psize
/// and, the matrix being ill conditioned (~(N/K)^2), BiCGStab stagnates whatever the partitions
/// (kbench CPU runs, N = 1e5, K = 32: psize 256, 2048 and N/2; see PsizeOptions).
struct SpikeDecay {
    /// Decay factor per band-width, >= 0; >= 1: no decay. The default, 0.01^(1/7), makes the
    /// default target 1e-2 ask for psize >= 8K: the chooser's former fixed floor
    /// (quality_ratio = 8), an assumption never measured.
    double rho = 0.5179474679231212;
    /// min_i |a_ii| / sum_{j != i} |a_ij| (li2012 footnote 1); > 0 caps rho at 1 / d_min
    /// (decay_bound_from_dominance); 0: unknown (no cap).
    double d_min = 0.0;
};

/// The geometric decay bound from the degree of diagonal dominance alone: 1 / d_min (see
/// SpikeDecay; rigorous, pessimistic for mixed signs). +inf for d_min <= 0 or NaN.
inline double decay_bound_from_dominance(double d_min)
{
    return d_min > 0.0 ? 1.0 / d_min : std::numeric_limits<double>::infinity();
}

/// rho as the estimates use it: min(decay.rho, 1 / decay.d_min) (d_min > 0), decay.rho else.
inline double effective_rho(const SpikeDecay& decay)
{
    return decay.d_min > 0.0 ? std::min(decay.rho, decay_bound_from_dominance(decay.d_min))
                             : decay.rho;
}

/// Estimated relative truncation error of truncated SPIKE with partitions of psize rows: the
/// size of the dropped far spike tip relative to the coupling, rho^(psize/K - 1) with rho =
/// effective_rho(decay), in [0, 1] (1: no decay). The far tip's K rows begin psize - 2K rows
/// after the coupling rows end, so at least psize/K - 1 Neumann terms separate them. A model
/// estimate, not a bound (see SpikeDecay). Throws std::invalid_argument for K < 1, psize < 1 or
/// rho < 0 / NaN.
inline double truncation_error(std::int64_t psize, std::int64_t k, const SpikeDecay& decay)
{
    if (k < 1) detail::fail("truncation_error", "K", static_cast<double>(k), ">= 1");
    if (psize < 1) detail::fail("truncation_error", "psize", static_cast<double>(psize), ">= 1");
    if (!(decay.rho >= 0.0)) detail::fail("truncation_error", "rho", decay.rho, ">= 0");
    const double rho = effective_rho(decay);
    if (rho >= 1.0) return 1.0;
    const double ratio = static_cast<double>(psize) / static_cast<double>(k);
    return std::min(1.0, std::pow(rho, std::max(ratio - 1.0, 0.0)));
}

/// The smallest psize whose truncation_error is <= target (0 < target < 1), or -1 when no
/// psize reaches it (rho >= 1). Not clamped to 2K <= psize <= N/2. From the closed form
/// psize >= K (1 + ln target / ln rho), rounded up with a relative slack of 1e-9 (so that
/// rho = target^(1/7) gives exactly 8K). Throws std::invalid_argument for K < 1, target outside
/// (0, 1) or rho < 0 / NaN.
inline std::int64_t min_psize_for_truncation(double target, std::int64_t k,
                                             const SpikeDecay& decay)
{
    if (k < 1) detail::fail("min_psize_for_truncation", "K", static_cast<double>(k), ">= 1");
    if (!(target > 0.0 && target < 1.0))
        detail::fail("min_psize_for_truncation", "target", target, "in (0, 1)");
    if (!(decay.rho >= 0.0)) detail::fail("min_psize_for_truncation", "rho", decay.rho, ">= 0");
    const double rho = effective_rho(decay);
    if (rho >= 1.0) return -1;
    const double kk = static_cast<double>(k);
    const double need = rho > 0.0 ? kk * (1.0 + std::log(target) / std::log(rho)) : kk;
    if (!std::isfinite(need) || need > 9e18) return -1;
    return std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(need * (1.0 - 1e-9))));
}

/// Options of choose_psize. decay: what is known of the matrix's spike decay (default: the
/// former fixed floor 8K, see SpikeDecay); truncation_target: the largest truncation_error
/// kept (1e-2: li2012's Table 1 residuals at d >= 10 are 1.2 % and less, with 6-7 BiCGStab
/// iterations; a kbench choice). no_decay_ratio: the floor psize >= no_decay_ratio K used when
/// no psize <= N/2 reaches the target (no decay measured): longer partitions then buy nothing
/// measurable (kbench CPU runs, N = 1e5, K = 32, the weakly dominant M-matrix: BiCGStab
/// stagnates at psize 256, 2048 and N/2, the true residual worst at N/2), so the former fixed
/// floor 8K stays and the model picks the fastest above it. applies: preconditioner
/// applications counted with the setup (li2012 Sec. 1.4: 6-7 iterations, 2 applies each).
/// rates: only their ratio matters.
struct PsizeOptions {
    SpikeDecay decay{};
    double truncation_target = 1e-2;
    double no_decay_ratio = 8.0;
    double applies = 14.0;
    MachineRates rates{3000.0, 30000.0, 0.0};
    int value_bytes = 8;
    /// The GPU factors with the blocked LU (setup_phases' `blocked`; SpikeSolver<T>::
    /// blocked_lu(K)): the LU no longer runs one thread block per partition.
    bool blocked_lu = false;
};

/// A chosen psize with its partitioning, the waves of thread blocks it takes, the predicted
/// time (seconds) of setup + options.applies applies at options.rates, the accuracy floor
/// min_psize (min_psize_for_truncation within [2K, N/2], or the no-decay floor),
/// the estimated truncation_error at the chosen psize and whether it meets the target (false
/// also when no psize <= N/2 meets it and the no-decay floor was used).
struct PsizeChoice {
    Partitioning partitioning;
    double waves = 0.0;
    double predicted_s = 0.0;
    std::int64_t min_psize = 0;
    double truncation = 1.0;
    bool target_met = false;
};

/// Chooses psize for N x N, half-bandwidth K on a GPU with sm_count SMs holding
/// resident_blocks_per_sm partition blocks each (slots S = product), li2012 tuning psize by hand
/// (Sec. 2.5). Reasoning from the model:
///  - accuracy: psize >= min_psize_for_truncation(target, K, decay), so the dropped spike tips
///    are small (fewer BiCGStab iterations); when no psize <= N/2 reaches the target the floor
///    is no_decay_ratio K (see PsizeOptions);
///  - time: LU and solve work is ~2K^2 N and ~4K N regardless of psize, but one block per
///    partition runs it: with p < S partitions only p/S of the GPU works (time ~ 1/p), with
///    p > S blocks run in waves and the partition overhead (UL, tips, reduced block: ~12 K^3
///    flops each) grows with p: the best p is about S (one wave) or a small multiple when the
///    last partition's remainder unbalances a wave;
///  - always 2K <= psize <= N/2.
/// Candidates: psize = floor and ceil of N / (w S) for w = 1..64 waves, the floor and N/2, all
/// clamped to [floor, N/2]; the one with the least predicted time wins, ties to the larger
/// psize. The model's phase costs decide between candidates; the measured kernel times do not
/// enter (they change as the kernels are tuned).
/// Throws std::invalid_argument for K < 1, N < 4K, sm_count < 1, resident_blocks_per_sm < 1,
/// applies < 0, no_decay_ratio < 0, truncation_target outside (0, 1) or decay.rho < 0 / NaN.
inline PsizeChoice choose_psize(std::int64_t n, std::int64_t k, int sm_count,
                                int resident_blocks_per_sm, const PsizeOptions& options = {})
{
    if (k < 1) detail::fail("choose_psize", "K", static_cast<double>(k), ">= 1");
    if (n < 4 * k) detail::fail("choose_psize", "N", static_cast<double>(n), "N >= 4K");
    if (sm_count < 1) detail::fail("choose_psize", "sm_count", sm_count, ">= 1");
    if (resident_blocks_per_sm < 1)
        detail::fail("choose_psize", "resident_blocks_per_sm", resident_blocks_per_sm, ">= 1");
    if (!(options.applies >= 0.0))
        detail::fail("choose_psize", "applies", options.applies, ">= 0");
    if (!(options.no_decay_ratio >= 0.0))
        detail::fail("choose_psize", "no_decay_ratio", options.no_decay_ratio, ">= 0");
    const std::int64_t hi = n / 2;
    std::int64_t wanted = min_psize_for_truncation(options.truncation_target, k, options.decay);
    if (wanted < 0 || wanted > hi)  // unreachable: the no-decay floor
        wanted = static_cast<std::int64_t>(std::ceil(options.no_decay_ratio * k));
    const std::int64_t lo = std::max(2 * k, std::min(wanted, hi));
    const double slots = static_cast<double>(sm_count) * resident_blocks_per_sm;

    std::vector<std::int64_t> candidates{lo, hi};
    for (int w = 1; w <= 64; ++w) {
        const double target = static_cast<double>(n) / (w * slots);
        candidates.push_back(static_cast<std::int64_t>(std::floor(target)));
        candidates.push_back(static_cast<std::int64_t>(std::ceil(target)));
    }
    PsizeChoice best;
    for (std::int64_t c : candidates) {
        const std::int64_t psize = std::clamp(c, lo, hi);
        const Partitioning s = partition(n, k, psize);
        double t = predict_time(setup_phases(s, options.value_bytes, slots, options.blocked_lu),
                                options.rates);
        t += options.applies * predict_time(apply_phases(s, options.value_bytes, slots),
                                            options.rates);
        const bool better = best.partitioning.psize == 0 || t < best.predicted_s * (1 - 1e-12) ||
                            (t <= best.predicted_s * (1 + 1e-12) && psize > best.partitioning.psize);
        if (better) {
            best.partitioning = s;
            best.waves = std::ceil(static_cast<double>(s.partitions) / slots);
            best.predicted_s = t;
        }
    }
    best.min_psize = lo;
    best.truncation = truncation_error(best.partitioning.psize, k, options.decay);
    best.target_met = best.truncation <= options.truncation_target * (1 + 1e-9);  // rounding
    return best;
}

}  // namespace kbench::models::spike
