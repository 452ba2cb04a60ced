// Distributed row blocks: local matrices of the two halo schemes and redistribution by a
// partition; see row_block.hpp.
#include "solvers/distributed/row_block.hpp"

#include "solvers/distributed/communicator.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>

namespace kbench::dist {

namespace {

[[noreturn]] void fail(const std::string& what) { throw std::invalid_argument(what); }

std::string str(long long v) { return std::to_string(v); }

template <typename V>
auto& at(V& v, long long i)
{
    return v[static_cast<std::size_t>(i)];
}

/// Every rank's value of v, in rank order (MPI_Allgather).
template <typename T>
std::vector<T> allgather_one(const Communicator& comm, T v)
{
    std::vector<T> all(static_cast<std::size_t>(comm.size()));
    KBENCH_MPI_CHECK(MPI_Allgather(&v, 1, detail::mpi_type<T>(), all.data(), 1,
                                   detail::mpi_type<T>(), comm.get()));
    return all;
}

/// Throws std::invalid_argument on every rank when `problem` is not empty on any: the local
/// message where it is, elsewhere "<what>: invalid on rank(s) ...".
void agree(const Communicator& comm, const std::string& problem, const char* what)
{
    const auto failed = allgather_one<int>(comm, problem.empty() ? 0 : 1);
    std::string ranks;
    for (int r = 0; r < comm.size(); ++r)
        if (at(failed, r)) ranks += (ranks.empty() ? "" : ", ") + str(r);
    if (ranks.empty()) return;
    if (!problem.empty()) fail(problem);
    fail(std::string(what) + ": invalid on rank(s) " + ranks + " (see their message)");
}

/// A count as an MPI int; throws std::invalid_argument naming `what` past INT_MAX.
int mpi_count(std::size_t count, const char* what)
{
    if (count > static_cast<std::size_t>(INT_MAX))
        fail(std::string(what) + ": " + str(static_cast<long long>(count)) +
             " entries in one message, more than MPI's int count allows");
    return static_cast<int>(count);
}

/// Displacements (exclusive prefix sums) of MPI counts.
std::vector<int> displacements(const std::vector<int>& counts)
{
    std::vector<int> d(counts.size() + 1, 0);
    for (std::size_t i = 0; i < counts.size(); ++i) {
        const long long next = static_cast<long long>(d[i]) + counts[i];
        if (next > INT_MAX) fail("alltoallv: more than INT_MAX entries in total");
        d[i + 1] = static_cast<int>(next);
    }
    return d;
}

/// MPI_Alltoallv of `send` grouped by destination (send_counts per rank); returns what arrives,
/// grouped by source, and the counts received from each rank in recv_counts.
template <typename T>
std::vector<T> alltoallv(const Communicator& comm, const std::vector<T>& send,
                         const std::vector<int>& send_counts, std::vector<int>& recv_counts)
{
    const int p = comm.size();
    recv_counts.assign(static_cast<std::size_t>(p), 0);
    KBENCH_MPI_CHECK(MPI_Alltoall(send_counts.data(), 1, MPI_INT, recv_counts.data(), 1, MPI_INT,
                                  comm.get()));
    const auto sd = displacements(send_counts), rd = displacements(recv_counts);
    std::vector<T> recv(static_cast<std::size_t>(rd.back()));
    KBENCH_MPI_CHECK(MPI_Alltoallv(send.data(), send_counts.data(), sd.data(),
                                   detail::mpi_type<T>(), recv.data(), recv_counts.data(),
                                   rd.data(), detail::mpi_type<T>(), comm.get()));
    return recv;
}

/// Block offsets of all ranks (size + 1 entries) from their row counts.
std::vector<index_type> block_offsets(const Communicator& comm, index_type rows)
{
    const auto counts = allgather_one<index_type>(comm, rows);
    std::vector<index_type> offsets(counts.size() + 1, 0);
    std::partial_sum(counts.begin(), counts.end(), offsets.begin() + 1);
    return offsets;
}

/// Sorted, distinct column indices of a block's rows that lie outside [begin, end).
template <typename T>
std::vector<index_type> foreign_columns(const Csr<T>& rows, index_type begin, index_type end)
{
    std::vector<index_type> cols;
    for (const index_type c : rows.col_idx)
        if (c < begin || c >= end) cols.push_back(c);
    std::sort(cols.begin(), cols.end());
    cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
    return cols;
}

/// Splits sorted global indices by owner: counts per rank.
std::vector<int> counts_by_owner(const std::vector<index_type>& offsets,
                                 const std::vector<index_type>& sorted)
{
    const int p = static_cast<int>(offsets.size()) - 1;
    std::vector<int> counts(static_cast<std::size_t>(p), 0);
    for (int r = 0; r < p; ++r) {
        const auto lo = std::lower_bound(sorted.begin(), sorted.end(), at(offsets, r));
        const auto hi = std::lower_bound(lo, sorted.end(), at(offsets, r + 1));
        at(counts, r) = mpi_count(static_cast<std::size_t>(hi - lo), "halo");
    }
    return counts;
}

}  // namespace

RowRange natural_block(index_type n, int size, int rank)
{
    if (size < 1) fail("size = " + str(size) + ", expected >= 1 ranks");
    if (rank < 0 || rank >= size)
        fail("rank = " + str(rank) + ", expected in [0, size = " + str(size) + ")");
    if (n < 0) fail("n = " + str(n) + ", expected >= 0 rows");
    const index_type base = n / size, rem = n % size;
    const index_type begin = rank * base + std::min<index_type>(rank, rem);
    return {begin, begin + base + (rank < rem ? 1 : 0)};
}

template <typename T>
RowBlock<T> block_of(const Csr<T>& a, RowRange range)
{
    validate(a, "a");
    if (a.num_rows != a.num_cols)
        fail("a: " + str(a.num_rows) + " x " + str(a.num_cols) + ", expected a square matrix");
    if (range.begin < 0 || range.begin > range.end || range.end > a.num_rows)
        fail("range: [" + str(range.begin) + ", " + str(range.end) + "), expected within [0, " +
             str(a.num_rows) + "]");
    RowBlock<T> b;
    b.row_begin = range.begin;
    b.global_rows = a.num_rows;
    Csr<T>& r = b.rows;
    r.num_rows = range.end - range.begin;
    r.num_cols = a.num_cols;
    const index_type first = at(a.row_ptr, range.begin), last = at(a.row_ptr, range.end);
    r.row_ptr.assign(a.row_ptr.begin() + range.begin, a.row_ptr.begin() + range.end + 1);
    for (auto& p : r.row_ptr) p -= first;
    r.col_idx.assign(a.col_idx.begin() + first, a.col_idx.begin() + last);
    r.values.assign(a.values.begin() + first, a.values.begin() + last);
    b.original.resize(static_cast<std::size_t>(r.num_rows));
    std::iota(b.original.begin(), b.original.end(), range.begin);
    return b;
}

template <typename T>
void check_blocks(const Communicator& comm, const RowBlock<T>& block)
{
    std::string problem;
    try {
        validate(block.rows, "block: rows of rank " + str(comm.rank()));
        if (block.rows.num_cols != block.global_rows)
            fail("block: rank " + str(comm.rank()) + " has " + str(block.rows.num_cols) +
                 " columns, expected global_rows = " + str(block.global_rows));
        if (block.original.size() != static_cast<std::size_t>(block.rows.num_rows))
            fail("block: rank " + str(comm.rank()) + " has " +
                 str(static_cast<long long>(block.original.size())) +
                 " original indices, expected one per row (" + str(block.rows.num_rows) + ")");
    } catch (const std::invalid_argument& e) {
        problem = e.what();
    }
    agree(comm, problem, "block");
    if (!comm.all_equal(static_cast<std::uint64_t>(block.global_rows)))
        fail("block: global_rows differs between ranks (" + str(block.global_rows) + " here)");
    const auto begins = allgather_one<index_type>(comm, block.row_begin);
    const auto offsets = block_offsets(comm, block.rows.num_rows);
    for (int r = 0; r < comm.size(); ++r)
        if (at(begins, r) != at(offsets, r))
            fail("block: rank " + str(r) + " starts at row " + str(at(begins, r)) +
                 ", expected " + str(at(offsets, r)) +
                 " (blocks must tile the rows in rank order)");
    if (offsets.back() != block.global_rows)
        fail("block: the blocks hold " + str(offsets.back()) + " rows, expected global_rows = " +
             str(block.global_rows));
}

const char* to_string(HaloScheme scheme)
{
    return scheme == HaloScheme::bandwidth ? "bandwidth" : "compressed";
}

HaloScheme parse_halo_scheme(const std::string& name)
{
    if (name == "bandwidth" || name == "row_by_row") return HaloScheme::bandwidth;
    if (name == "compressed") return HaloScheme::compressed;
    fail("halo scheme: '" + name + "', expected 'bandwidth' (or 'row_by_row') or 'compressed'");
}

template <typename T>
LocalMatrix<T> block_local_matrix(const Communicator& comm, const RowBlock<T>& block,
                                  HaloScheme scheme)
{
    check_blocks(comm, block);
    const auto offsets = block_offsets(comm, block.rows.num_rows);
    const index_type begin = block.row_begin, rows = block.rows.num_rows, end = begin + rows;
    const Csr<T>& a = block.rows;

    HaloLayout h;
    h.rank = comm.rank();
    h.num_parts = comm.size();
    h.num_owned = rows;
    h.owned_global.resize(static_cast<std::size_t>(rows));
    std::iota(h.owned_global.begin(), h.owned_global.end(), begin);
    if (scheme == HaloScheme::compressed) {
        h.ghost_global = foreign_columns(a, begin, end);
    } else if (!a.col_idx.empty()) {  // the window [lo, hi] of the rows' columns, minus own rows
        const auto [lo, hi] = std::minmax_element(a.col_idx.begin(), a.col_idx.end());
        for (index_type g = *lo; g <= *hi; ++g)
            if (g < begin || g >= end) h.ghost_global.push_back(g);
    }
    h.num_ghosts = static_cast<index_type>(h.ghost_global.size());

    // Ghosts are sorted, hence grouped by owner in increasing rank.
    const auto recv_counts = counts_by_owner(offsets, h.ghost_global);
    h.recv_offsets.push_back(0);
    for (int r = 0; r < comm.size(); ++r) {
        if (at(recv_counts, r) == 0) continue;
        h.recv_ranks.push_back(r);
        h.recv_offsets.push_back(h.recv_offsets.back() + at(recv_counts, r));
    }
    // Every owner learns which of its rows each rank receives, in the receiver's order.
    std::vector<int> send_counts;
    const auto wanted = alltoallv(comm, h.ghost_global, recv_counts, send_counts);
    h.send_offsets.push_back(0);
    for (int r = 0; r < comm.size(); ++r) {
        if (at(send_counts, r) == 0) continue;
        h.send_ranks.push_back(r);
        h.send_offsets.push_back(h.send_offsets.back() + at(send_counts, r));
    }
    h.send_local.reserve(wanted.size());
    for (const index_type g : wanted) h.send_local.push_back(g - begin);

    LocalMatrix<T> out;
    out.global_rows = block.global_rows;
    out.global_nnz = comm.allreduce_sum(static_cast<std::int64_t>(a.nnz()));
    Csr<T>& b = out.a;
    b.num_rows = rows;
    b.num_cols = h.local_size();
    b.row_ptr = a.row_ptr;
    b.col_idx.resize(a.col_idx.size());
    b.values.resize(a.values.size());
    std::vector<std::pair<index_type, T>> row;
    for (index_type i = 0; i < rows; ++i) {
        row.clear();
        for (index_type e = at(a.row_ptr, i); e < at(a.row_ptr, i + 1); ++e) {
            const index_type c = at(a.col_idx, e);
            const index_type lc =
                c >= begin && c < end
                    ? c - begin
                    : h.num_owned + static_cast<index_type>(
                                        std::lower_bound(h.ghost_global.begin(),
                                                         h.ghost_global.end(), c) -
                                        h.ghost_global.begin());
            row.emplace_back(lc, at(a.values, e));
        }
        std::sort(row.begin(), row.end(),
                  [](const auto& x, const auto& y) { return x.first < y.first; });
        for (std::size_t k = 0; k < row.size(); ++k) {
            at(b.col_idx, at(a.row_ptr, i) + static_cast<long long>(k)) = row[k].first;
            at(b.values, at(a.row_ptr, i) + static_cast<long long>(k)) = row[k].second;
        }
    }
    out.halo = std::move(h);
    return out;
}

template <typename T>
RowBlock<T> redistribute(const Communicator& comm, const RowBlock<T>& block,
                         const std::vector<int>& local_part)
{
    const int np = comm.size();
    const index_type rows = block.rows.num_rows;
    std::string problem;
    if (local_part.size() != static_cast<std::size_t>(rows))
        problem = "local_part: " + str(static_cast<long long>(local_part.size())) +
                  " entries on rank " + str(comm.rank()) + ", expected one per row (" +
                  str(rows) + ")";
    for (std::size_t i = 0; problem.empty() && i < local_part.size(); ++i)
        if (local_part[i] < 0 || local_part[i] >= np)
            problem = "local_part: row " + str(block.row_begin + static_cast<long long>(i)) +
                      " has part " + str(local_part[i]) + ", expected in [0, " + str(np) + ")";
    agree(comm, problem, "local_part");
    check_blocks(comm, block);
    const auto old_offsets = block_offsets(comm, rows);

    // New index of each local row: parts in order, within a part the old order, which is rank
    // order then local order (blocks are contiguous), so: start of part p + rows of p on lower
    // ranks + rows of p before it here.
    std::vector<std::int64_t> count(static_cast<std::size_t>(np), 0), before(count.size(), 0),
        total(count.size(), 0);
    for (const int p : local_part) ++at(count, p);
    KBENCH_MPI_CHECK(MPI_Exscan(count.data(), before.data(), np, MPI_INT64_T, MPI_SUM,
                                comm.get()));
    if (comm.rank() == 0) std::fill(before.begin(), before.end(), 0);  // undefined on rank 0
    total = count;
    comm.allreduce_sum(total.data(), np);
    std::vector<std::int64_t> start(static_cast<std::size_t>(np) + 1, 0);
    std::partial_sum(total.begin(), total.end(), start.begin() + 1);
    std::vector<index_type> new_index(static_cast<std::size_t>(rows));
    {
        std::vector<std::int64_t> next(static_cast<std::size_t>(np));
        for (int p = 0; p < np; ++p) at(next, p) = at(start, p) + at(before, p);
        for (index_type i = 0; i < rows; ++i)
            at(new_index, i) = static_cast<index_type>(at(next, at(local_part, i))++);
    }

    // The new index of every column used here, asked from the rank that holds it now.
    const Csr<T>& a = block.rows;
    std::vector<index_type> cols(a.col_idx);
    std::sort(cols.begin(), cols.end());
    cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
    std::vector<int> asked_counts;
    const auto asked = alltoallv(comm, cols, counts_by_owner(old_offsets, cols), asked_counts);
    std::vector<index_type> answers(asked.size());
    for (std::size_t k = 0; k < asked.size(); ++k)
        answers[k] = at(new_index, asked[k] - block.row_begin);
    std::vector<int> unused;
    const auto renamed = alltoallv(comm, answers, asked_counts, unused);  // same order as cols

    // Rows grouped by destination part (old order within a part), columns renamed and sorted.
    std::vector<int> row_counts(static_cast<std::size_t>(np), 0), nnz_counts(row_counts);
    std::vector<std::vector<index_type>> order(static_cast<std::size_t>(np));
    for (index_type i = 0; i < rows; ++i) at(order, at(local_part, i)).push_back(i);
    std::vector<index_type> send_len, send_cols, send_orig;
    std::vector<T> send_vals;
    std::vector<std::pair<index_type, T>> row;
    for (int p = 0; p < np; ++p) {
        std::size_t nnz = 0;
        for (const index_type i : at(order, p)) {
            row.clear();
            for (index_type e = at(a.row_ptr, i); e < at(a.row_ptr, i + 1); ++e) {
                const auto k = std::lower_bound(cols.begin(), cols.end(), at(a.col_idx, e)) -
                               cols.begin();
                row.emplace_back(at(renamed, k), at(a.values, e));
            }
            std::sort(row.begin(), row.end(),
                      [](const auto& x, const auto& y) { return x.first < y.first; });
            for (const auto& [c, v] : row) {
                send_cols.push_back(c);
                send_vals.push_back(v);
            }
            send_len.push_back(static_cast<index_type>(row.size()));
            send_orig.push_back(at(block.original, i));
            nnz += row.size();
        }
        at(row_counts, p) = mpi_count(at(order, p).size(), "redistribute rows");
        at(nnz_counts, p) = mpi_count(nnz, "redistribute nonzeros");
    }
    std::vector<int> got_rows, got_nnz;
    const auto len = alltoallv(comm, send_len, row_counts, got_rows);
    RowBlock<T> out;
    out.original = alltoallv(comm, send_orig, row_counts, got_rows);
    out.rows.col_idx = alltoallv(comm, send_cols, nnz_counts, got_nnz);
    out.rows.values = alltoallv(comm, send_vals, nnz_counts, got_nnz);
    out.rows.num_rows = static_cast<index_type>(len.size());
    out.rows.num_cols = block.global_rows;
    out.rows.row_ptr.assign(len.size() + 1, 0);
    std::partial_sum(len.begin(), len.end(), out.rows.row_ptr.begin() + 1);
    out.row_begin = static_cast<index_type>(at(start, comm.rank()));
    out.global_rows = block.global_rows;
    return out;
}

template <typename T>
std::vector<T> block_entries(const RowBlock<T>& block, const std::vector<T>& x)
{
    std::vector<T> out(block.original.size());
    for (std::size_t i = 0; i < out.size(); ++i) {
        const index_type g = block.original[i];
        if (g < 0 || static_cast<std::size_t>(g) >= x.size())
            fail("x: " + str(static_cast<long long>(x.size())) + " entries, expected more than " +
                 "original row " + str(g));
        out[i] = x[static_cast<std::size_t>(g)];
    }
    return out;
}

template <typename T>
std::vector<T> gather_original(const Communicator& comm, const RowBlock<T>& block,
                               const std::vector<T>& x_local)
{
    const std::size_t rows = block.original.size();
    if (x_local.size() < rows)
        fail("x_local: " + str(static_cast<long long>(x_local.size())) +
             " entries, expected at least the block's " + str(static_cast<long long>(rows)) +
             " rows");
    const auto counts = allgather_one<int>(comm, mpi_count(rows, "x_local"));
    const auto displs = displacements(counts);
    std::vector<T> values(static_cast<std::size_t>(displs.back()));
    std::vector<index_type> where(values.size());
    KBENCH_MPI_CHECK(MPI_Allgatherv(x_local.data(), static_cast<int>(rows), detail::mpi_type<T>(),
                                    values.data(), counts.data(), displs.data(),
                                    detail::mpi_type<T>(), comm.get()));
    KBENCH_MPI_CHECK(MPI_Allgatherv(block.original.data(), static_cast<int>(rows),
                                    detail::mpi_type<index_type>(), where.data(), counts.data(),
                                    displs.data(), detail::mpi_type<index_type>(), comm.get()));
    std::vector<T> x(static_cast<std::size_t>(block.global_rows), T(0));
    for (std::size_t k = 0; k < values.size(); ++k) x[static_cast<std::size_t>(where[k])] = values[k];
    return x;
}

#define KBENCH_INSTANTIATE(T)                                                                    \
    template RowBlock<T> block_of<T>(const Csr<T>&, RowRange);                                   \
    template void check_blocks<T>(const Communicator&, const RowBlock<T>&);                      \
    template LocalMatrix<T> block_local_matrix<T>(const Communicator&, const RowBlock<T>&,       \
                                                  HaloScheme);                                   \
    template RowBlock<T> redistribute<T>(const Communicator&, const RowBlock<T>&,                \
                                         const std::vector<int>&);                               \
    template std::vector<T> block_entries<T>(const RowBlock<T>&, const std::vector<T>&);         \
    template std::vector<T> gather_original<T>(const Communicator&, const RowBlock<T>&,          \
                                               const std::vector<T>&);
KBENCH_INSTANTIATE(float)
KBENCH_INSTANTIATE(double)
#undef KBENCH_INSTANTIATE

}  // namespace kbench::dist
