// Reorderings before distribution (matrices/reorder.hpp; yamazaki2014 Sec. IV).
#include "matrices/reorder.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>

#ifdef KBENCH_HAVE_BOOST_GRAPH
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/cuthill_mckee_ordering.hpp>
#endif
#ifdef KBENCH_HAVE_METIS
#include <metis.h>
#endif

namespace kbench {
namespace {

template <typename T>
void require_square(const Csr<T>& a, const char* who)
{
    if (a.num_rows != a.num_cols)
        throw std::invalid_argument(std::string(who) + ": the matrix must be square, got " +
                                    std::to_string(a.num_rows) + " x " +
                                    std::to_string(a.num_cols));
}

void require_parts(index_type n, int parts, const char* who)
{
    if (parts < 1 || parts > n)
        throw std::invalid_argument(std::string(who) + ": parts = " + std::to_string(parts) +
                                    " must lie in [1, n] with n = " + std::to_string(n) +
                                    " rows");
}

/// The graph of a (A + A^T without self loops) in CSR form: ptr has n + 1 entries, adj the
/// sorted, distinct neighbours of every vertex (each undirected edge appears twice).
struct Graph {
    std::vector<std::int64_t> ptr;
    std::vector<index_type> adj;
};

template <typename T>
Graph symmetrized_graph(const Csr<T>& a)
{
    const index_type n = a.num_rows;
    std::vector<std::int64_t> count(static_cast<std::size_t>(n) + 1, 0);
    for (index_type i = 0; i < n; ++i)
        for (index_type k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
            const index_type j = a.col_idx[k];
            if (j == i) continue;
            ++count[i + 1];
            ++count[j + 1];
        }
    std::partial_sum(count.begin(), count.end(), count.begin());
    Graph g;
    g.adj.resize(static_cast<std::size_t>(count[n]));
    std::vector<std::int64_t> next(count.begin(), count.end() - 1);
    for (index_type i = 0; i < n; ++i)
        for (index_type k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
            const index_type j = a.col_idx[k];
            if (j == i) continue;
            g.adj[next[i]++] = j;
            g.adj[next[j]++] = i;
        }
    // Sort and deduplicate each list (a symmetric pattern lists every edge twice per vertex).
    g.ptr.assign(static_cast<std::size_t>(n) + 1, 0);
    std::int64_t out = 0;
    for (index_type i = 0; i < n; ++i) {
        const auto first = g.adj.begin() + count[i];
        const auto last = g.adj.begin() + count[i + 1];
        std::sort(first, last);
        const auto end = std::unique(first, last);
        for (auto it = first; it != end; ++it) g.adj[out++] = *it;
        g.ptr[i + 1] = out;
    }
    g.adj.resize(static_cast<std::size_t>(out));
    return g;
}

void require_permutation(const std::vector<index_type>& perm, std::size_t n, const char* who)
{
    if (perm.size() != n)
        throw std::invalid_argument(std::string(who) + ": perm has " +
                                    std::to_string(perm.size()) + " entries, expected n = " +
                                    std::to_string(n));
    std::vector<char> seen(n, 0);
    for (std::size_t i = 0; i < n; ++i) {
        const index_type p = perm[i];
        if (p < 0 || static_cast<std::size_t>(p) >= n || seen[p])
            throw std::invalid_argument(std::string(who) + ": perm is not a permutation of 0.." +
                                        std::to_string(static_cast<long long>(n) - 1) +
                                        " (entry " + std::to_string(i) + " = " +
                                        std::to_string(p) + ")");
        seen[p] = 1;
    }
}

#ifdef KBENCH_HAVE_METIS
const char* metis_status_name(int status)
{
    switch (status) {
    case METIS_OK: return "METIS_OK";
    case METIS_ERROR_INPUT: return "METIS_ERROR_INPUT";
    case METIS_ERROR_MEMORY: return "METIS_ERROR_MEMORY";
    case METIS_ERROR: return "METIS_ERROR";
    default: return "unknown METIS status";
    }
}
#endif

}  // namespace

bool reorder_has_rcm()
{
#ifdef KBENCH_HAVE_BOOST_GRAPH
    return true;
#else
    return false;
#endif
}

bool reorder_has_metis()
{
#ifdef KBENCH_HAVE_METIS
    return true;
#else
    return false;
#endif
}

template <typename T>
std::vector<index_type> rcm_permutation(const Csr<T>& a)
{
    require_square(a, "rcm_permutation");
#ifdef KBENCH_HAVE_BOOST_GRAPH
    using namespace boost;
    using VertexProps =
        property<vertex_color_t, default_color_type, property<vertex_degree_t, int>>;
    using BoostGraph = adjacency_list<vecS, vecS, undirectedS, VertexProps>;
    const index_type n = a.num_rows;
    const Graph g = symmetrized_graph(a);
    BoostGraph bg(static_cast<std::size_t>(n));
    for (index_type i = 0; i < n; ++i)
        for (std::int64_t k = g.ptr[i]; k < g.ptr[i + 1]; ++k)
            if (g.adj[k] > i)
                add_edge(static_cast<std::size_t>(i), static_cast<std::size_t>(g.adj[k]), bg);
    // Without a start vertex, Boost orders every component from a pseudo-peripheral vertex.
    // Writing the Cuthill-McKee order backwards gives the reverse one: perm[new] = old.
    std::vector<std::size_t> order(static_cast<std::size_t>(n));
    cuthill_mckee_ordering(bg, order.rbegin(), get(vertex_color, bg), make_degree_map(bg));
    return std::vector<index_type>(order.begin(), order.end());
#else
    throw std::runtime_error(
        "rcm_permutation: not built: install libboost-graph-dev (Boost.Graph) and reconfigure");
#endif
}

template <typename T>
std::vector<int> kway_partition(const Csr<T>& a, int parts, std::uint64_t seed)
{
    require_square(a, "kway_partition");
    require_parts(a.num_rows, parts, "kway_partition");
#ifdef KBENCH_HAVE_METIS
    const index_type n = a.num_rows;
    const Graph g = symmetrized_graph(a);
    if (parts == 1 || g.adj.empty()) return block_partition(n, parts);
    if (g.ptr[n] > static_cast<std::int64_t>(std::numeric_limits<idx_t>::max()))
        throw std::invalid_argument("kway_partition: the graph has " + std::to_string(g.ptr[n]) +
                                    " adjacency entries, more than METIS's idx_t holds");
    std::vector<idx_t> xadj(g.ptr.begin(), g.ptr.end());
    std::vector<idx_t> adjncy(g.adj.begin(), g.adj.end());
    idx_t nvtxs = n;
    idx_t ncon = 1;
    idx_t nparts = parts;
    idx_t options[METIS_NOPTIONS];
    METIS_SetDefaultOptions(options);
    options[METIS_OPTION_NUMBERING] = 0;
    options[METIS_OPTION_SEED] = static_cast<idx_t>(seed % (std::uint64_t{1} << 31));
    idx_t objval = 0;
    std::vector<idx_t> part(static_cast<std::size_t>(n));
    const int status =
        METIS_PartGraphKway(&nvtxs, &ncon, xadj.data(), adjncy.data(), nullptr, nullptr, nullptr,
                            &nparts, nullptr, nullptr, options, &objval, part.data());
    if (status != METIS_OK)
        throw std::runtime_error(std::string("kway_partition: METIS_PartGraphKway failed with ") +
                                 metis_status_name(status) + " (n = " + std::to_string(n) +
                                 ", parts = " + std::to_string(parts) + ")");
    return std::vector<int>(part.begin(), part.end());
#else
    (void)seed;
    throw std::runtime_error(
        "kway_partition: not built: install libmetis-dev (METIS 5) and reconfigure");
#endif
}

std::vector<int> block_partition(index_type n, int parts)
{
    require_parts(n, parts, "block_partition");
    const index_type q = n / parts;
    const index_type r = n % parts;
    std::vector<int> part(static_cast<std::size_t>(n));
    index_type row = 0;
    for (int b = 0; b < parts; ++b) {
        const index_type size = q + (b < r ? 1 : 0);
        std::fill_n(part.begin() + row, size, b);
        row += size;
    }
    return part;
}

std::vector<index_type> permutation_from_parts(const std::vector<int>& parts)
{
    if (parts.size() > static_cast<std::size_t>(std::numeric_limits<index_type>::max()))
        throw std::invalid_argument("permutation_from_parts: more rows than index_type holds");
    int num_parts = 0;
    for (std::size_t i = 0; i < parts.size(); ++i) {
        if (parts[i] < 0)
            throw std::invalid_argument("permutation_from_parts: parts[" + std::to_string(i) +
                                        "] = " + std::to_string(parts[i]) + " is negative");
        num_parts = std::max(num_parts, parts[i] + 1);
    }
    // Counting sort by part id, stable within a part.
    std::vector<std::size_t> start(static_cast<std::size_t>(num_parts) + 1, 0);
    for (const int p : parts) ++start[static_cast<std::size_t>(p) + 1];
    std::partial_sum(start.begin(), start.end(), start.begin());
    std::vector<index_type> perm(parts.size());
    for (std::size_t i = 0; i < parts.size(); ++i)
        perm[start[static_cast<std::size_t>(parts[i])]++] = static_cast<index_type>(i);
    return perm;
}

std::vector<index_type> inverse_permutation(const std::vector<index_type>& perm)
{
    require_permutation(perm, perm.size(), "inverse_permutation");
    std::vector<index_type> inv(perm.size());
    for (std::size_t i = 0; i < perm.size(); ++i) inv[perm[i]] = static_cast<index_type>(i);
    return inv;
}

template <typename T>
Csr<T> permute_symmetric(const Csr<T>& a, const std::vector<index_type>& perm)
{
    require_square(a, "permute_symmetric");
    require_permutation(perm, static_cast<std::size_t>(a.num_rows), "permute_symmetric");
    const index_type n = a.num_rows;
    std::vector<index_type> inv(static_cast<std::size_t>(n));
    for (index_type i = 0; i < n; ++i) inv[perm[i]] = i;
    Csr<T> b;
    b.num_rows = b.num_cols = n;
    b.row_ptr.assign(static_cast<std::size_t>(n) + 1, 0);
    b.col_idx.reserve(a.col_idx.size());
    b.values.reserve(a.values.size());
    std::vector<std::pair<index_type, T>> row;
    for (index_type i = 0; i < n; ++i) {
        const index_type old = perm[i];
        row.clear();
        for (index_type k = a.row_ptr[old]; k < a.row_ptr[old + 1]; ++k)
            row.emplace_back(inv[a.col_idx[k]], a.values[k]);
        std::sort(row.begin(), row.end(),
                  [](const auto& x, const auto& y) { return x.first < y.first; });
        for (const auto& [c, v] : row) {
            b.col_idx.push_back(c);
            b.values.push_back(v);
        }
        b.row_ptr[i + 1] = static_cast<index_type>(b.col_idx.size());
    }
    return b;
}

template <typename T>
std::int64_t edge_cut(const Csr<T>& a, const std::vector<int>& parts)
{
    require_square(a, "edge_cut");
    if (parts.size() != static_cast<std::size_t>(a.num_rows))
        throw std::invalid_argument("edge_cut: parts has " + std::to_string(parts.size()) +
                                    " entries, expected n = " + std::to_string(a.num_rows));
    const Graph g = symmetrized_graph(a);
    std::int64_t cut = 0;
    for (index_type i = 0; i < a.num_rows; ++i)
        for (std::int64_t k = g.ptr[i]; k < g.ptr[i + 1]; ++k)
            if (g.adj[k] > i && parts[i] != parts[g.adj[k]]) ++cut;
    return cut;
}

#define KBENCH_REORDER_INSTANTIATE(T)                                                    \
    template std::vector<index_type> rcm_permutation<T>(const Csr<T>&);                  \
    template std::vector<int> kway_partition<T>(const Csr<T>&, int, std::uint64_t);      \
    template Csr<T> permute_symmetric<T>(const Csr<T>&, const std::vector<index_type>&); \
    template std::int64_t edge_cut<T>(const Csr<T>&, const std::vector<int>&);

KBENCH_REORDER_INSTANTIATE(float)
KBENCH_REORDER_INSTANTIATE(double)
#undef KBENCH_REORDER_INSTANTIATE

}  // namespace kbench
