// MPK index sets and halo plans (yamazaki2014 Sec. IV-A, Fig. 4); see row_partition.hpp.
#include "matrices/row_partition.hpp"

#include <algorithm>
#include <iterator>
#include <stdexcept>
#include <string>

namespace kbench {

namespace {

[[noreturn]] void fail(const std::string& what) { throw std::invalid_argument(what); }

void check_s(int s)
{
    if (s < 1) fail("s = " + std::to_string(s) + ", expected >= 1");
}

template <typename T>
void check_square(const Csr<T>& a)
{
    validate(a, "a");
    if (a.num_rows != a.num_cols)
        fail("a: " + std::to_string(a.num_rows) + " x " + std::to_string(a.num_cols) +
             ", expected a square matrix");
}

void check_sets(const std::vector<MpkIndexSets>& sets, int num_parts)
{
    if (sets.size() != static_cast<std::size_t>(num_parts))
        fail("sets: " + std::to_string(sets.size()) + " parts, expected num_parts = " +
             std::to_string(num_parts));
    for (std::size_t d = 0; d < sets.size(); ++d)
        if (sets[d].part != static_cast<int>(d) || sets[d].s != sets[0].s ||
            sets[d].levels.size() != static_cast<std::size_t>(sets[d].s) + 1 ||
            sets[d].deltas.size() != static_cast<std::size_t>(sets[d].s))
            fail("sets[" + std::to_string(d) + "]: expected part " + std::to_string(d) + ", s = " +
                 std::to_string(sets[0].s) + " and s+1 levels, s deltas");
}

}  // namespace

const std::vector<index_type>& MpkIndexSets::i(int k) const
{
    if (k < 1 || k > s + 1)
        fail("k = " + std::to_string(k) + ", expected in [1, s+1 = " + std::to_string(s + 1) + "]");
    return levels[static_cast<std::size_t>(k - 1)];
}

const std::vector<index_type>& MpkIndexSets::delta(int k) const
{
    if (k < 1 || k > s)
        fail("k = " + std::to_string(k) + ", expected in [1, s = " + std::to_string(s) + "]");
    return deltas[static_cast<std::size_t>(k - 1)];
}

std::vector<index_type> MpkIndexSets::boundary(int k) const
{
    const auto& ik = i(k);  // checks k
    std::vector<index_type> out;
    std::set_difference(ik.begin(), ik.end(), own().begin(), own().end(), std::back_inserter(out));
    return out;
}

void validate_partition(index_type n, const std::vector<int>& part, int num_parts)
{
    if (num_parts < 1) fail("num_parts = " + std::to_string(num_parts) + ", expected >= 1");
    if (part.size() != static_cast<std::size_t>(n))
        fail("part: " + std::to_string(part.size()) + " entries, expected n = " +
             std::to_string(n));
    for (std::size_t r = 0; r < part.size(); ++r)
        if (part[r] < 0 || part[r] >= num_parts)
            fail("part[" + std::to_string(r) + "] = " + std::to_string(part[r]) +
                 ", expected in [0, num_parts = " + std::to_string(num_parts) + ")");
}

template <typename T>
std::vector<MpkIndexSets> mpk_index_sets(const Csr<T>& a, const std::vector<int>& part,
                                         int num_parts, int s)
{
    check_square(a);
    validate_partition(a.num_rows, part, num_parts);
    check_s(s);
    const index_type n = a.num_rows;
    // dist[r]: shortest distance from an own row of the current part, -1 = not reached yet.
    std::vector<int> dist(static_cast<std::size_t>(n), -1);
    std::vector<MpkIndexSets> out(static_cast<std::size_t>(num_parts));
    for (int d = 0; d < num_parts; ++d) {
        MpkIndexSets& m = out[static_cast<std::size_t>(d)];
        m.part = d;
        m.s = s;
        m.levels.assign(static_cast<std::size_t>(s) + 1, {});
        m.deltas.assign(static_cast<std::size_t>(s), {});
        std::vector<index_type> touched;  // rows whose dist was set, to reset after this part
        std::vector<index_type> frontier;
        for (index_type r = 0; r < n; ++r)
            if (part[static_cast<std::size_t>(r)] == d) {
                dist[static_cast<std::size_t>(r)] = 0;
                frontier.push_back(r);
                touched.push_back(r);
            }
        m.levels[static_cast<std::size_t>(s)] = frontier;  // i^(d,s+1), sorted by construction
        // Step t = 1..s builds delta^(d,k) with k = s+1-t: columns of the rows at distance t-1
        // that are not in i^(d,k+1) (rows nearer than t-1 add no new columns: theirs are
        // already at distance <= t-1).
        for (int t = 1; t <= s; ++t) {
            std::vector<index_type> next;
            for (const index_type r : frontier)
                for (index_type e = a.row_ptr[static_cast<std::size_t>(r)];
                     e < a.row_ptr[static_cast<std::size_t>(r) + 1]; ++e) {
                    const index_type c = a.col_idx[static_cast<std::size_t>(e)];
                    if (dist[static_cast<std::size_t>(c)] < 0) {
                        dist[static_cast<std::size_t>(c)] = t;
                        next.push_back(c);
                        touched.push_back(c);
                    }
                }
            std::sort(next.begin(), next.end());
            const int k = s + 1 - t;
            const auto& inner = m.levels[static_cast<std::size_t>(k)];  // i^(d,k+1)
            auto& level = m.levels[static_cast<std::size_t>(k - 1)];     // i^(d,k)
            std::merge(inner.begin(), inner.end(), next.begin(), next.end(),
                       std::back_inserter(level));
            m.deltas[static_cast<std::size_t>(k - 1)] = next;
            frontier = std::move(next);
        }
        for (const index_type r : touched) dist[static_cast<std::size_t>(r)] = -1;
    }
    return out;
}

index_type HaloPlan::count(int d, int p) const
{
    return static_cast<index_type>(
        recv.at(static_cast<std::size_t>(d)).at(static_cast<std::size_t>(p)).size());
}

index_type HaloPlan::received(int d) const
{
    index_type total = 0;
    for (int p = 0; p < num_parts; ++p) total += count(d, p);
    return total;
}

index_type HaloPlan::sent(int p) const
{
    index_type total = 0;
    for (int d = 0; d < num_parts; ++d) total += count(d, p);
    return total;
}

int HaloPlan::neighbours(int d) const
{
    int k = 0;
    for (int p = 0; p < num_parts; ++p) k += count(d, p) > 0 ? 1 : 0;
    return k;
}

HaloPlan halo_plan(const std::vector<MpkIndexSets>& sets, const std::vector<int>& part,
                   int num_parts)
{
    if (num_parts < 1) fail("num_parts = " + std::to_string(num_parts) + ", expected >= 1");
    check_sets(sets, num_parts);
    validate_partition(static_cast<index_type>(part.size()), part, num_parts);
    HaloPlan plan;
    plan.num_parts = num_parts;
    plan.s = sets[0].s;
    plan.recv.assign(static_cast<std::size_t>(num_parts),
                     std::vector<std::vector<index_type>>(static_cast<std::size_t>(num_parts)));
    for (int d = 0; d < num_parts; ++d)
        for (const index_type r : sets[static_cast<std::size_t>(d)].boundary(1)) {  // delta^(d,1:s)
            if (static_cast<std::size_t>(r) >= part.size())
                fail("sets[" + std::to_string(d) + "]: row " + std::to_string(r) +
                     " outside the partition");
            // Increasing r, so every list stays sorted.
            plan.recv[static_cast<std::size_t>(d)][static_cast<std::size_t>(part[r])].push_back(r);
        }
    return plan;
}

template <typename T>
HaloPlan halo_plan(const Csr<T>& a, const std::vector<int>& part, int num_parts, int s)
{
    return halo_plan(mpk_index_sets(a, part, num_parts, s), part, num_parts);
}

template <typename T>
std::vector<MpkPartCounts> mpk_part_counts(const Csr<T>& a, const std::vector<MpkIndexSets>& sets,
                                           const HaloPlan& halo_s1)
{
    validate(a, "a");
    if (sets.empty()) fail("sets: empty, expected one entry per part");
    check_sets(sets, static_cast<int>(sets.size()));
    if (halo_s1.s != 1 || halo_s1.num_parts != static_cast<int>(sets.size()) ||
        halo_s1.recv.size() != sets.size())
        fail("halo_s1: s = " + std::to_string(halo_s1.s) + ", " +
             std::to_string(halo_s1.num_parts) + " parts, expected s = 1 and " +
             std::to_string(sets.size()) + " parts");
    auto row_nnz = [&](index_type r) {
        return static_cast<double>(a.row_ptr[static_cast<std::size_t>(r) + 1] -
                                   a.row_ptr[static_cast<std::size_t>(r)]);
    };
    auto nnz_of = [&](const std::vector<index_type>& rows) {
        double total = 0;
        for (const index_type r : rows) total += row_nnz(r);
        return total;
    };
    std::vector<MpkPartCounts> out(sets.size());
    for (std::size_t d = 0; d < sets.size(); ++d) {
        const MpkIndexSets& m = sets[d];
        MpkPartCounts& c = out[d];
        c.own_rows = static_cast<double>(m.own().size());
        c.own_nnz = nnz_of(m.own());
        for (int k = 1; k <= m.s; ++k) {
            const auto b = m.boundary(k);  // delta^(d,k:s)
            c.boundary_rows.push_back(static_cast<double>(b.size()));
            c.boundary_nnz.push_back(nnz_of(b));
        }
        c.halo_words_s1 = static_cast<double>(halo_s1.received(static_cast<int>(d)));
        c.halo_messages_s1 = static_cast<double>(halo_s1.neighbours(static_cast<int>(d)));
        // Owners of the ghost rows delta^(d,1:s): one message from each in the MPK setup.
        std::vector<char> seen(sets.size(), 0);
        for (const index_type r : m.boundary(1))
            for (std::size_t p = 0; p < sets.size(); ++p)
                if (!seen[p] && std::binary_search(sets[p].own().begin(), sets[p].own().end(), r))
                    seen[p] = 1;
        c.mpk_messages = static_cast<double>(std::count(seen.begin(), seen.end(), char{1}));
    }
    return out;
}

index_type ghost_union_size(const std::vector<MpkIndexSets>& sets, index_type n)
{
    std::vector<char> ghost(static_cast<std::size_t>(n), 0);
    for (const auto& m : sets)
        for (const index_type r : m.boundary(1)) {
            if (r < 0 || r >= n)
                fail("sets: row " + std::to_string(r) + " outside [0, n = " + std::to_string(n) +
                     ")");
            ghost[static_cast<std::size_t>(r)] = 1;
        }
    return static_cast<index_type>(std::count(ghost.begin(), ghost.end(), char{1}));
}

void validate_offsets(index_type n, const std::vector<index_type>& offsets)
{
    if (offsets.size() < 2)
        fail("offsets: " + std::to_string(offsets.size()) +
             " entries, expected P + 1 >= 2 (rank d owns [offsets[d], offsets[d+1]))");
    if (offsets.front() != 0 || offsets.back() != n)
        fail("offsets: runs from " + std::to_string(offsets.front()) + " to " +
             std::to_string(offsets.back()) + ", expected 0 to n = " + std::to_string(n));
    for (std::size_t d = 0; d + 1 < offsets.size(); ++d)
        if (offsets[d + 1] < offsets[d])
            fail("offsets[" + std::to_string(d + 1) + "] = " + std::to_string(offsets[d + 1]) +
                 " < offsets[" + std::to_string(d) + "] = " + std::to_string(offsets[d]) +
                 ", expected non-decreasing");
}

std::vector<int> parts_from_offsets(const std::vector<index_type>& offsets)
{
    validate_offsets(offsets.empty() ? 0 : offsets.back(), offsets);
    std::vector<int> part(static_cast<std::size_t>(offsets.back()));
    for (std::size_t d = 0; d + 1 < offsets.size(); ++d)
        std::fill(part.begin() + offsets[d], part.begin() + offsets[d + 1], static_cast<int>(d));
    return part;
}

std::vector<index_type> part_offsets(const std::vector<int>& part, int num_parts)
{
    validate_partition(static_cast<index_type>(part.size()), part, num_parts);
    std::vector<index_type> offsets(static_cast<std::size_t>(num_parts) + 1, 0);
    for (const int p : part) ++offsets[static_cast<std::size_t>(p) + 1];
    for (std::size_t d = 1; d < offsets.size(); ++d) offsets[d] += offsets[d - 1];
    return offsets;
}

namespace {

SpmvCommVolume empty_volume(int num_ranks)
{
    SpmvCommVolume v;
    v.words_received.assign(static_cast<std::size_t>(num_ranks), 0);
    v.words_sent.assign(static_cast<std::size_t>(num_ranks), 0);
    v.messages_received.assign(static_cast<std::size_t>(num_ranks), 0);
    v.messages_sent.assign(static_cast<std::size_t>(num_ranks), 0);
    return v;
}

/// Rank d receives `words` entries from rank p in one message.
void add_transfer(SpmvCommVolume& v, int d, int p, std::int64_t words)
{
    if (words <= 0) return;
    v.words_received[static_cast<std::size_t>(d)] += words;
    v.words_sent[static_cast<std::size_t>(p)] += words;
    ++v.messages_received[static_cast<std::size_t>(d)];
    ++v.messages_sent[static_cast<std::size_t>(p)];
    v.total_words += words;
    ++v.total_messages;
}

}  // namespace

SpmvCommVolume comm_volume(const HaloPlan& plan)
{
    if (plan.num_parts < 1 || plan.recv.size() != static_cast<std::size_t>(plan.num_parts))
        fail("plan: " + std::to_string(plan.num_parts) + " parts and " +
             std::to_string(plan.recv.size()) + " receive lists, expected num_parts >= 1 of each");
    SpmvCommVolume v = empty_volume(plan.num_parts);
    for (int d = 0; d < plan.num_parts; ++d)
        for (int p = 0; p < plan.num_parts; ++p)
            if (p != d) add_transfer(v, d, p, plan.count(d, p));
    return v;
}

template <typename T>
SpmvCommVolume bandwidth_comm_volume(const Csr<T>& a, const std::vector<index_type>& offsets)
{
    check_square(a);
    validate_offsets(a.num_rows, offsets);
    const int num_ranks = static_cast<int>(offsets.size() - 1);
    // The rank owning column c (the last d with offsets[d] <= c skips empty blocks).
    auto owner = [&](index_type c) {
        return static_cast<int>(std::upper_bound(offsets.begin(), offsets.end(), c) -
                                offsets.begin()) - 1;
    };
    SpmvCommVolume v = empty_volume(num_ranks);
    for (int d = 0; d < num_ranks; ++d) {
        // Window [lo, hi]: smallest and largest column of d's rows (columns sorted per row).
        index_type lo = a.num_cols, hi = -1;
        for (index_type r = offsets[d]; r < offsets[d + 1]; ++r)
            if (a.row_ptr[r] < a.row_ptr[r + 1]) {
                lo = std::min(lo, a.col_idx[a.row_ptr[r]]);
                hi = std::max(hi, a.col_idx[a.row_ptr[r + 1] - 1]);
            }
        if (hi < 0) continue;  // no rows or no nonzeros: nothing to receive
        for (int p = owner(lo); p <= owner(hi); ++p)
            if (p != d)  // entries of p's block inside the window (<= 0 for an empty block)
                add_transfer(v, d, p,
                             static_cast<std::int64_t>(std::min(hi + 1, offsets[p + 1])) -
                                 std::max(lo, offsets[p]));
    }
    return v;
}

template <typename T>
SpmvCommVolume compressed_comm_volume(const Csr<T>& a, const std::vector<index_type>& offsets)
{
    check_square(a);
    validate_offsets(a.num_rows, offsets);
    const int num_ranks = static_cast<int>(offsets.size() - 1);
    return comm_volume(halo_plan(a, parts_from_offsets(offsets), num_ranks, 1));
}

#define KBENCH_INSTANTIATE(T)                                                                    \
    template std::vector<MpkIndexSets> mpk_index_sets<T>(const Csr<T>&, const std::vector<int>&, \
                                                         int, int);                              \
    template HaloPlan halo_plan<T>(const Csr<T>&, const std::vector<int>&, int, int);            \
    template std::vector<MpkPartCounts> mpk_part_counts<T>(                                      \
        const Csr<T>&, const std::vector<MpkIndexSets>&, const HaloPlan&);                       \
    template SpmvCommVolume bandwidth_comm_volume<T>(const Csr<T>&,                              \
                                                     const std::vector<index_type>&);            \
    template SpmvCommVolume compressed_comm_volume<T>(const Csr<T>&,                             \
                                                      const std::vector<index_type>&);
KBENCH_INSTANTIATE(float)
KBENCH_INSTANTIATE(double)
#undef KBENCH_INSTANTIATE

}  // namespace kbench
