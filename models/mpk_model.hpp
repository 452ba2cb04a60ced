// Model of the matrix powers kernel (MPK) on a row partition (yamazaki2014 Sec. IV-B):
//  1. the surface-to-volume ratio nnz(A(delta^(d,1:s), :)) / nnz(A^(d)) (Fig. 6);
//  2. the extra flops W^(d,s) = 2 sum_{k=1..s} nnz(A(delta^(d,k:s), :)) (Fig. 6, the area under
//     the curve), and the smaller count of the rows MPK actually needs (kbench);
//  3. the communication volume of one MPK call (Fig. 7) against s SpMVs with an s = 1 halo
//     exchange each, in total and per part, with the message counts;
//  4. kbench extension: a predicted time, max over parts of flops / SpMV rate + words /
//     bandwidth + exchanges * latency (the messages of one exchange are in flight together).
//
// Notation (matrices/row_partition.hpp, Fig. 4): part d owns rows i^(d,s+1), A^(d) =
// A(i^(d,s+1), :); delta^(d,k:s) = i^(d,k) \ i^(d,s+1) holds the ghost rows within s-k+1 edges.
// The functions are pure over numbers; kbench::mpk_part_counts (matrices/row_partition.hpp)
// computes them from A and the index sets. boundary_nnz[k-1] = nnz(A(delta^(d,k:s), :)) for
// k = 1..s (so boundary_nnz.size() == s and it is non-increasing); the list of s_max steps holds
// those of every s <= s_max (mpk_boundary_for_steps).
// Units: flops, words (vector entries of the solver's precision), seconds; rates in flops/s and
// words/s. Bad input throws std::invalid_argument naming the function, the parameter, its value
// and what was expected.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace kbench::models {

namespace detail {
[[noreturn]] inline void mpk_fail(const char* function, const std::string& what)
{
    throw std::invalid_argument(std::string(function) + ": " + what);
}
inline void mpk_check_count(const char* function, const char* name, double x)
{
    if (!(x >= 0.0) || !std::isfinite(x))
        mpk_fail(function,
                 std::string(name) + " = " + std::to_string(x) + ", expected finite and >= 0");
}
inline void mpk_check_boundary(const char* function, const std::vector<double>& boundary_nnz)
{
    if (boundary_nnz.empty()) mpk_fail(function, "boundary_nnz is empty, expected s >= 1 entries");
    for (const double x : boundary_nnz) mpk_check_count(function, "boundary_nnz[k]", x);
}
}  // namespace detail

// ------------------------------------------------------------------------------------------------
// 1.-2. Surface and extra computation (Fig. 6)
// ------------------------------------------------------------------------------------------------

/// Surface-to-volume ratio of part d (Fig. 6): nnz(A(delta^(d,1:s), :)) / nnz(A^(d)), i.e.
/// boundary_nnz_1s = boundary_nnz[0]. Also the extra storage of the boundary submatrix relative
/// to the local one. own_nnz > 0.
inline double mpk_surface_to_volume(double boundary_nnz_1s, double own_nnz)
{
    detail::mpk_check_count("mpk_surface_to_volume", "boundary_nnz_1s", boundary_nnz_1s);
    if (!(own_nnz > 0.0) || !std::isfinite(own_nnz))
        detail::mpk_fail("mpk_surface_to_volume",
                         "own_nnz = " + std::to_string(own_nnz) + ", expected finite and > 0");
    return boundary_nnz_1s / own_nnz;
}

/// Extra flops of one MPK call on part d, the paper's W^(d,s) (Fig. 6):
///   W^(d,s) = 2 * ( nnz(A(delta^(d,1:s), :)) + nnz(A(delta^(d,2:s), :)) + ... +
///                   nnz(A(delta^(d,s:s), :)) ) = 2 * sum_{k=1..s} boundary_nnz[k-1].
/// Step k of Fig. 4 multiplies A^(d,k) = A(i^(d,k), :) = A^(d) plus the boundary rows
/// A(delta^(d,k:s), :), 2 flops (multiply, add) per non-zero.
inline double mpk_extra_flops(const std::vector<double>& boundary_nnz)
{
    detail::mpk_check_boundary("mpk_extra_flops", boundary_nnz);
    double sum = 0.0;
    for (const double x : boundary_nnz) sum += x;  // k = 1..s
    return 2.0 * sum;
}

/// Extra flops if step k computes only the rows v_{k+1} is needed on, i^(d,k+1) (kbench; the
/// rows of delta^(d,1) get v_1 from the setup and are never multiplied):
///   2 * sum_{k=2..s} nnz(A(delta^(d,k:s), :)) = W^(d,s) - 2 nnz(A(delta^(d,1:s), :)).
inline double mpk_extra_flops_needed(const std::vector<double>& boundary_nnz)
{
    detail::mpk_check_boundary("mpk_extra_flops_needed", boundary_nnz);
    double sum = 0.0;
    for (std::size_t k = 1; k < boundary_nnz.size(); ++k) sum += boundary_nnz[k];  // k = 2..s
    return 2.0 * sum;
}

/// boundary_nnz (or |delta^(d,k:s)|, boundary_rows) of an MPK of s steps, from the same list
/// of an MPK of s_max = boundary_smax.size() >= s steps on the same partition (kbench; lets one
/// set of index sets serve every s of Figs. 6 and 7). delta^(d,k:s) holds the rows within
/// s-k+1 edges of part d's own rows (matrices/row_partition.hpp), so it depends on k and s only
/// through s-k+1: delta^(d,k:s) = delta^(d,k+s_max-s : s_max), i.e. the result is the last s
/// entries of boundary_smax. Throws std::invalid_argument for an empty or negative list
/// ("boundary_smax") or s outside [1, s_max] ("s").
inline std::vector<double> mpk_boundary_for_steps(const std::vector<double>& boundary_smax, int s)
{
    const char* f = "mpk_boundary_for_steps";
    if (boundary_smax.empty())
        detail::mpk_fail(f, "boundary_smax is empty, expected s_max >= 1 entries");
    for (const double x : boundary_smax) detail::mpk_check_count(f, "boundary_smax[k]", x);
    if (s < 1 || static_cast<std::size_t>(s) > boundary_smax.size())
        detail::mpk_fail(f, "s = " + std::to_string(s) + ", expected in [1, s_max = " +
                                std::to_string(boundary_smax.size()) + "]");
    return std::vector<double>(boundary_smax.end() - s, boundary_smax.end());
}

/// Flops of one MPK call of s = boundary_nnz.size() steps on part d (Fig. 4):
/// s local products 2 s nnz(A^(d)) plus W^(d,s).
inline double mpk_flops(double own_nnz, const std::vector<double>& boundary_nnz)
{
    detail::mpk_check_count("mpk_flops", "own_nnz", own_nnz);
    return 2.0 * static_cast<double>(boundary_nnz.size()) * own_nnz +
           mpk_extra_flops(boundary_nnz);
}

/// Flops of s SpMVs on part d: 2 s nnz(A^(d)).
inline double spmvs_flops(double own_nnz, int s)
{
    detail::mpk_check_count("spmvs_flops", "own_nnz", own_nnz);
    if (s < 1) detail::mpk_fail("spmvs_flops", "s = " + std::to_string(s) + ", expected >= 1");
    return 2.0 * s * own_nnz;
}

// ------------------------------------------------------------------------------------------------
// 3. Communication volume (Fig. 7)
// ------------------------------------------------------------------------------------------------

/// Words of one MPK call, the paper's Fig. 7 (per call; the figure plots m/s calls):
///   |union_d delta^(d,1:s)|   gathered from the GPUs to the CPU (each ghost entry once),
/// + sum_d |delta^(d,1:s)|     scattered from the CPU to each GPU that needs it.
/// ghost_union = |union_d delta^(d,1:s)|, ghost_per_part[d] = |delta^(d,1:s)|.
inline double mpk_comm_volume(double ghost_union, const std::vector<double>& ghost_per_part)
{
    detail::mpk_check_count("mpk_comm_volume", "ghost_union", ghost_union);
    double scatter = 0.0;
    for (const double g : ghost_per_part) {
        detail::mpk_check_count("mpk_comm_volume", "ghost_per_part[d]", g);
        scatter += g;
    }
    return ghost_union + scatter;
}

/// Words of s SpMVs, each with the s = 1 exchange of the same scheme: s times
/// mpk_comm_volume of the s = 1 sets (halo_union = |union_d delta^(d,1)|, halo_per_part[d] =
/// |delta^(d,1)|, both for s = 1).
inline double spmvs_comm_volume(int s, double halo_union, const std::vector<double>& halo_per_part)
{
    if (s < 1)
        detail::mpk_fail("spmvs_comm_volume", "s = " + std::to_string(s) + ", expected >= 1");
    return s * mpk_comm_volume(halo_union, halo_per_part);
}

/// Words over a restart loop of m basis vectors: m/s calls of per_call words (Fig. 7's
/// (m/s)(...); for s SpMVs pass their volume with s = 1 steps, or divide accordingly).
inline double per_restart(double m, int s, double per_call)
{
    detail::mpk_check_count("per_restart", "m", m);
    detail::mpk_check_count("per_restart", "per_call", per_call);
    if (s < 1) detail::mpk_fail("per_restart", "s = " + std::to_string(s) + ", expected >= 1");
    return m / s * per_call;
}

// ------------------------------------------------------------------------------------------------
// 4. Time prediction (kbench extension)
// ------------------------------------------------------------------------------------------------

/// What one part does for s basis vectors: flops, words it receives, messages it receives, and
/// the halo exchanges those messages come in (an exchange posts all its receives and sends
/// at once, so its messages are in flight together: solvers/distributed/halo_exchange*.cpp).
struct MpkPartCost {
    double flops = 0.0;
    double words = 0.0;
    double messages = 0.0;
    double exchanges = 0.0;
};

/// Cost of one MPK call of s = boundary_nnz.size() steps on part d, point-to-point exchange:
/// flops = mpk_flops; words = |delta^(d,1:s)| (every ghost entry of v_1 received once);
/// messages = number of parts owning a row of delta^(d,1:s) (one message per neighbour);
/// exchanges = 1 when there is a neighbour (one exchange of v_1 per call), else 0.
inline MpkPartCost mpk_part_cost(double own_nnz, const std::vector<double>& boundary_nnz,
                                 double ghost_words, double neighbours)
{
    detail::mpk_check_count("mpk_part_cost", "ghost_words", ghost_words);
    detail::mpk_check_count("mpk_part_cost", "neighbours", neighbours);
    return {mpk_flops(own_nnz, boundary_nnz), ghost_words, neighbours, neighbours > 0 ? 1.0 : 0.0};
}

/// Cost of s SpMVs on part d, each after an s = 1 halo exchange: flops = 2 s nnz(A^(d));
/// words = s |delta^(d,1)|; messages = s * (neighbours of the s = 1 halo); exchanges = s when
/// there is a neighbour, else 0.
inline MpkPartCost spmvs_part_cost(double own_nnz, int s, double halo_words, double neighbours)
{
    detail::mpk_check_count("spmvs_part_cost", "halo_words", halo_words);
    detail::mpk_check_count("spmvs_part_cost", "neighbours", neighbours);
    return {spmvs_flops(own_nnz, s), s * halo_words, s * neighbours,
            neighbours > 0 ? static_cast<double>(s) : 0.0};
}

/// Machine rates of the time model: SpMV flop rate (flops/s), exchange bandwidth (words/s),
/// latency of one halo exchange (s; harness/mpi/dist_link.hpp measures it as one whole exchange of
/// one word between two ranks).
struct MpkRates {
    double flops_per_s = 0.0;
    double words_per_s = 0.0;
    double latency_s = 0.0;
};

/// Time of one part: flops / flops_per_s + words / words_per_s + exchanges * latency_s. The
/// messages of one exchange overlap, so latency is paid per exchange, not per message: on 4
/// H100s (fig8 at d0027e8, 2 neighbours per inner rank) one MPK call of s = 1 took 30 us over
/// NCCL against a 24 us link latency, where one latency per message predicted 62 us.
inline double part_time(const MpkPartCost& c, const MpkRates& r)
{
    const char* f = "part_time";
    detail::mpk_check_count(f, "flops", c.flops);
    detail::mpk_check_count(f, "words", c.words);
    detail::mpk_check_count(f, "messages", c.messages);
    detail::mpk_check_count(f, "exchanges", c.exchanges);
    if (!(r.flops_per_s > 0.0) || !std::isfinite(r.flops_per_s))
        detail::mpk_fail(f, "flops_per_s = " + std::to_string(r.flops_per_s) + ", expected > 0");
    if (!(r.words_per_s > 0.0) || !std::isfinite(r.words_per_s))
        detail::mpk_fail(f, "words_per_s = " + std::to_string(r.words_per_s) + ", expected > 0");
    detail::mpk_check_count(f, "latency_s", r.latency_s);
    return c.flops / r.flops_per_s      // computation: local plus boundary rows
           + c.words / r.words_per_s    // bandwidth: ghost entries received
           + c.exchanges * r.latency_s;  // latency: one per exchange (its messages overlap)
}

/// Predicted time: the slowest part, max_d part_time(parts[d], r) (parts run concurrently and
/// the next step waits for all). parts must not be empty.
inline double predicted_time(const std::vector<MpkPartCost>& parts, const MpkRates& r)
{
    if (parts.empty()) detail::mpk_fail("predicted_time", "parts is empty, expected >= 1 part");
    double t = 0.0;
    for (const auto& c : parts) t = std::max(t, part_time(c, r));
    return t;
}

/// Predicted time when every part runs at its own rates (kbench; e.g. the SpMV rate measured on
/// each rank, whose parts differ in shape): max_d part_time(parts[d], rates[d]). parts and rates
/// must have the same number (>= 1) of entries.
inline double predicted_time_per_part(const std::vector<MpkPartCost>& parts,
                                      const std::vector<MpkRates>& rates)
{
    const char* f = "predicted_time_per_part";
    if (parts.empty()) detail::mpk_fail(f, "parts is empty, expected >= 1 part");
    if (rates.size() != parts.size())
        detail::mpk_fail(f, "rates has " + std::to_string(rates.size()) +
                                " entries, expected one per part (" +
                                std::to_string(parts.size()) + ")");
    double t = 0.0;
    for (std::size_t d = 0; d < parts.size(); ++d) t = std::max(t, part_time(parts[d], rates[d]));
    return t;
}

}  // namespace kbench::models
