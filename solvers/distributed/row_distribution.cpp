// Row-block distribution, halo layouts and local matrices; see row_distribution.hpp.
#include "solvers/distributed/row_distribution.hpp"

#include "matrices/reorder.hpp"
#include "solvers/distributed/communicator.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

namespace kbench::dist {

namespace {

[[noreturn]] void fail(const std::string& what) { throw std::invalid_argument(what); }

std::string str(long long v) { return std::to_string(v); }

void check_rank(int rank, int num_parts)
{
    if (rank < 0 || rank >= num_parts)
        fail("rank = " + str(rank) + ", expected in [0, num_parts = " + str(num_parts) + ")");
}

}  // namespace

index_type RowDistribution::rows(int d) const
{
    if (d < 0 || d >= num_parts)
        fail("part = " + str(d) + ", expected in [0, num_parts = " + str(num_parts) + ")");
    return offsets[static_cast<std::size_t>(d) + 1] - offsets[static_cast<std::size_t>(d)];
}

index_type RowDistribution::local_index(index_type g) const
{
    if (g < 0 || g >= n) fail("row = " + str(g) + ", expected in [0, n = " + str(n) + ")");
    const auto gs = static_cast<std::size_t>(g);
    return inverse[gs] - offsets[static_cast<std::size_t>(part[gs])];
}

RowDistribution row_distribution(index_type n, const std::vector<int>& part, int num_parts)
{
    validate_partition(n, part, num_parts);  // names "part" / "num_parts"
    RowDistribution d;
    d.n = n;
    d.num_parts = num_parts;
    d.part = part;
    d.perm = permutation_from_parts(part);
    d.inverse = inverse_permutation(d.perm);
    d.offsets.assign(static_cast<std::size_t>(num_parts) + 1, 0);
    for (const int p : part) ++d.offsets[static_cast<std::size_t>(p) + 1];
    for (int p = 0; p < num_parts; ++p)
        d.offsets[static_cast<std::size_t>(p) + 1] += d.offsets[static_cast<std::size_t>(p)];
    return d;
}

HaloLayout halo_layout(const RowDistribution& dist, const HaloPlan& plan, int rank)
{
    const int np = dist.num_parts;
    check_rank(rank, np);
    if (plan.num_parts != np || plan.recv.size() != static_cast<std::size_t>(np))
        fail("plan: " + str(plan.num_parts) + " parts, expected num_parts = " + str(np) +
             " (the distribution's)");
    for (int d = 0; d < np; ++d)
        if (plan.recv[static_cast<std::size_t>(d)].size() != static_cast<std::size_t>(np))
            fail("plan: recv[" + str(d) + "] has " +
                 str(static_cast<long long>(plan.recv[static_cast<std::size_t>(d)].size())) +
                 " entries, expected num_parts = " + str(np));
    const auto d = static_cast<std::size_t>(rank);
    if (!plan.recv[d][d].empty())
        fail("plan: recv[" + str(rank) + "][" + str(rank) + "] is not empty (a part receives "
             "nothing from itself)");

    // Checks that row g of plan.recv[to][from] exists and is owned by `from`.
    auto check_row = [&](index_type g, int to, int from) {
        if (g < 0 || g >= dist.n || dist.part[static_cast<std::size_t>(g)] != from)
            fail("plan: recv[" + str(to) + "][" + str(from) + "] lists row " + str(g) +
                 (g < 0 || g >= dist.n
                      ? ", outside [0, n = " + str(dist.n) + ")"
                      : ", owned by part " + str(dist.part[static_cast<std::size_t>(g)])) +
                 "; expected a plan of the same partition");
    };

    HaloLayout h;
    h.rank = rank;
    h.num_parts = np;
    h.s = plan.s;
    h.num_owned = dist.rows(rank);
    h.owned_global.assign(dist.perm.begin() + dist.offsets[d],
                          dist.perm.begin() + dist.offsets[d + 1]);
    h.recv_offsets.push_back(0);
    for (int p = 0; p < np; ++p) {
        const auto& rows = plan.recv[d][static_cast<std::size_t>(p)];
        if (p == rank || rows.empty()) continue;
        for (const index_type g : rows) {
            check_row(g, rank, p);
            h.ghost_global.push_back(g);
        }
        h.recv_ranks.push_back(p);
        h.recv_offsets.push_back(static_cast<index_type>(h.ghost_global.size()));
    }
    h.num_ghosts = static_cast<index_type>(h.ghost_global.size());
    h.send_offsets.push_back(0);
    for (int q = 0; q < np; ++q) {
        const auto& rows = plan.recv[static_cast<std::size_t>(q)][d];
        if (q == rank || rows.empty()) continue;
        for (const index_type g : rows) {
            check_row(g, q, rank);
            h.send_local.push_back(dist.local_index(g));
        }
        h.send_ranks.push_back(q);
        h.send_offsets.push_back(static_cast<index_type>(h.send_local.size()));
    }
    return h;
}

namespace detail {

std::vector<index_type> local_numbering(index_type n, const std::vector<index_type>& owned,
                                        const std::vector<index_type>& ghosts)
{
    std::vector<index_type> local(static_cast<std::size_t>(n), -1);
    for (std::size_t i = 0; i < owned.size(); ++i)
        local[static_cast<std::size_t>(owned[i])] = static_cast<index_type>(i);
    for (std::size_t j = 0; j < ghosts.size(); ++j)
        local[static_cast<std::size_t>(ghosts[j])] = static_cast<index_type>(owned.size() + j);
    return local;
}

template <typename T>
Csr<T> renumbered_rows(const Csr<T>& a, const index_type* rows, index_type count,
                       const std::vector<index_type>& local, index_type num_cols,
                       const std::function<void(index_type, index_type)>& unmapped)
{
    Csr<T> b;
    b.num_rows = count;
    b.num_cols = num_cols;
    b.row_ptr.assign(1, 0);
    b.row_ptr.reserve(static_cast<std::size_t>(count) + 1);
    std::vector<std::pair<index_type, T>> row;
    for (index_type i = 0; i < count; ++i) {
        const index_type r = rows[i];
        row.clear();
        for (index_type e = a.row_ptr[static_cast<std::size_t>(r)];
             e < a.row_ptr[static_cast<std::size_t>(r) + 1]; ++e) {
            const index_type c = a.col_idx[static_cast<std::size_t>(e)];
            const index_type lc = local[static_cast<std::size_t>(c)];
            if (lc < 0) unmapped(r, c);
            row.emplace_back(lc, a.values[static_cast<std::size_t>(e)]);
        }
        std::sort(row.begin(), row.end(),
                  [](const auto& x, const auto& y) { return x.first < y.first; });
        for (const auto& [c, v] : row) {
            b.col_idx.push_back(c);
            b.values.push_back(v);
        }
        b.row_ptr.push_back(static_cast<index_type>(b.col_idx.size()));
    }
    return b;
}

}  // namespace detail

template <typename T>
LocalMatrix<T> local_matrix(const Csr<T>& a, const RowDistribution& dist, const HaloPlan& plan,
                            int rank)
{
    validate(a, "a");
    if (a.num_rows != a.num_cols)
        fail("a: " + str(a.num_rows) + " x " + str(a.num_cols) + ", expected a square matrix");
    if (a.num_rows != dist.n)
        fail("a: " + str(a.num_rows) + " rows, expected the distribution's n = " + str(dist.n));
    check_rank(rank, dist.num_parts);
    if (plan.s != 1)
        fail("plan: s = " + str(plan.s) + ", expected 1 (the halo of one SpMV)");

    LocalMatrix<T> out;
    out.halo = halo_layout(dist, plan, rank);
    out.global_rows = a.num_rows;
    out.global_nnz = a.nnz();
    const HaloLayout& h = out.halo;

    // Global column -> local column, -1 where this part neither owns nor receives the entry.
    const std::vector<index_type> local =
        detail::local_numbering(a.num_cols, h.owned_global, h.ghost_global);
    out.a = detail::renumbered_rows(
        a, h.owned_global.data(), h.num_owned, local, h.local_size(),
        [&](index_type r, index_type c) {
            fail("plan: column " + str(c) + " of row " + str(r) + " (part " + str(rank) +
                 ") is neither owned nor in the halo; expected plan = halo_plan(a, part, "
                 "num_parts, 1) of the same partition");
        });
    return out;
}

template <typename T>
LocalMatrix<T> distribute(const Communicator& comm, const Csr<T>& a, const std::vector<int>& part,
                          int num_parts)
{
    if (num_parts != comm.size())
        fail("num_parts = " + str(num_parts) + ", expected the number of ranks " +
             str(comm.size()) + " (one part per rank)");
    // Same inputs on every rank, so that the local checks below throw on all ranks or on none.
    const auto part_size = static_cast<std::uint64_t>(part.size());
    const std::uint64_t hp = fnv1a(&part_size, sizeof(part_size), fnv1a(part));
    if (!comm.all_equal(hp))
        fail("part: differs between ranks (" + str(static_cast<long long>(part.size())) +
             " entries here); every rank must pass the same partition");
    std::uint64_t ha = fnv1a(&a.num_rows, sizeof(a.num_rows));
    ha = fnv1a(&a.num_cols, sizeof(a.num_cols), ha);
    ha = fnv1a(a.row_ptr, ha);
    ha = fnv1a(a.col_idx, ha);
    ha = fnv1a(a.values, ha);
    if (!comm.all_equal(ha))
        fail("a: differs between ranks (" + str(a.num_rows) + " x " + str(a.num_cols) + ", " +
             str(a.nnz()) + " nonzeros here); every rank must pass the same matrix");
    validate(a, "a");
    if (a.num_rows != a.num_cols)
        fail("a: " + str(a.num_rows) + " x " + str(a.num_cols) + ", expected a square matrix");
    const RowDistribution dist = row_distribution(a.num_rows, part, num_parts);
    const HaloPlan plan = halo_plan(a, part, num_parts, 1);
    return local_matrix(a, dist, plan, comm.rank());
}

template <typename T>
std::vector<T> local_vector(const HaloLayout& layout, const std::vector<T>& x, T ghost_fill)
{
    std::vector<T> out(static_cast<std::size_t>(layout.local_size()), ghost_fill);
    for (std::size_t i = 0; i < layout.owned_global.size(); ++i) {
        const index_type g = layout.owned_global[i];
        if (g < 0 || static_cast<std::size_t>(g) >= x.size())
            fail("x: " + str(static_cast<long long>(x.size())) + " entries, expected more than " +
                 "global row " + str(g));
        out[i] = x[static_cast<std::size_t>(g)];
    }
    return out;
}

#define KBENCH_INSTANTIATE(T)                                                                    \
    template Csr<T> detail::renumbered_rows<T>(                                                  \
        const Csr<T>&, const index_type*, index_type, const std::vector<index_type>&, index_type, \
        const std::function<void(index_type, index_type)>&);                                      \
    template LocalMatrix<T> local_matrix<T>(const Csr<T>&, const RowDistribution&,               \
                                            const HaloPlan&, int);                                \
    template LocalMatrix<T> distribute<T>(const Communicator&, const Csr<T>&,                     \
                                          const std::vector<int>&, int);                          \
    template std::vector<T> local_vector<T>(const HaloLayout&, const std::vector<T>&, T);
KBENCH_INSTANTIATE(float)
KBENCH_INSTANTIATE(double)
#undef KBENCH_INSTANTIATE

}  // namespace kbench::dist
