// MPK counts for every step count from one set of index sets; see mpk_sweep.hpp.
#include "harness/studies/yamazaki2014/mpk_sweep.hpp"

#include "matrices/row_partition.hpp"

#include <algorithm>
#include <cstddef>

namespace kbench::harness {

namespace {

/// Lowers `slot` to t (0 = not set yet).
void keep_nearest(int& slot, int t) { slot = slot == 0 ? t : std::min(slot, t); }

}  // namespace

MpkSweep mpk_sweep(const Csr<double>& a, const std::vector<int>& part, int num_parts, int s_max)
{
    const auto sets = mpk_index_sets(a, part, num_parts, s_max);  // checks a, part, s
    const HaloPlan halo1 = halo_plan(a, part, num_parts, 1);
    const auto counts = mpk_part_counts(a, sets, halo1);
    const auto parts = static_cast<std::size_t>(num_parts);
    const auto steps = static_cast<std::size_t>(s_max);

    MpkSweep w;
    w.num_parts = num_parts;
    w.s_max = s_max;
    for (const MpkPartCounts& c : counts) {
        w.own_rows.push_back(c.own_rows);
        w.own_nnz.push_back(c.own_nnz);
        w.boundary_nnz.push_back(c.boundary_nnz);
        w.boundary_rows.push_back(c.boundary_rows);
        w.halo_words_s1.push_back(c.halo_words_s1);
        w.halo_messages_s1.push_back(c.halo_messages_s1);
    }
    // delta^(d,k) of s_max steps holds the rows at exactly t = s_max - k + 1 edges from part d,
    // and delta^(d,1:s) those at 1..s edges. nearest[r]: the fewest edges from a part that
    // needs row r; reach[d][p]: the fewest edges from part d to a row of part p (0: none).
    std::vector<int> nearest(static_cast<std::size_t>(a.num_rows), 0);
    std::vector<std::vector<int>> reach(parts, std::vector<int>(parts, 0));
    for (std::size_t d = 0; d < parts; ++d)
        for (int k = 1; k <= s_max; ++k)
            for (const index_type r : sets[d].delta(k)) {
                const auto row = static_cast<std::size_t>(r);
                const int t = s_max - k + 1;
                keep_nearest(nearest[row], t);
                keep_nearest(reach[d][static_cast<std::size_t>(part[row])], t);
            }
    std::vector<double> at_distance(steps + 1, 0.0);  // rows whose nearest part is t edges away
    for (const int t : nearest) at_distance[static_cast<std::size_t>(t)] += 1.0;
    double union_rows = 0.0;
    for (std::size_t t = 1; t <= steps; ++t) w.ghost_union.push_back(union_rows += at_distance[t]);
    w.mpk_messages.assign(parts, std::vector<double>(steps, 0.0));
    for (std::size_t d = 0; d < parts; ++d)
        for (const int t : reach[d])  // part p sends to d in every MPK of s >= t steps
            if (t > 0)
                for (auto s = static_cast<std::size_t>(t); s <= steps; ++s)
                    w.mpk_messages[d][s - 1] += 1.0;
    return w;
}

}  // namespace kbench::harness
