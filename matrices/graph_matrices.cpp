// Graph-like matrices for SpMV on skewed and scattered rows (issue 29, the `graphs` set): R-MAT
// / Kronecker graphs and an unstructured 2D triangle mesh in grid, random or RCM order.
// Declarations in matrices/graph_matrices.hpp. Own generator (splitmix64 streams keyed by the seed
// and the edge or vertex index) and no std:: distributions, so a seed gives the same matrix with
// every standard library; compiled with -ffp-contract=off as random_matrices.cpp.
#include "matrices/graph_matrices.hpp"

#include "matrices/reorder.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace kbench {
namespace {

constexpr std::int64_t index_max = std::numeric_limits<index_type>::max();
constexpr std::uint64_t rmat_stream = 0x726d61745f656467ULL;    // edges
constexpr std::uint64_t rmat_label_stream = 0x726d61745f6c6162ULL;  // vertex labels
constexpr std::uint64_t rmat_value_stream = 0x726d61745f76616cULL;  // edge values
constexpr std::uint64_t mesh_stream = 0x6d6573685f707473ULL;    // jitter
constexpr std::uint64_t mesh_perm_stream = 0x6d6573685f706572ULL;   // random order
constexpr std::uint64_t gamma = 0x9e3779b97f4a7c15ULL;

std::uint64_t mix64(std::uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/// splitmix64 stream number `index` of (seed, stream): independent of generation order.
class Rng {
public:
    Rng(std::uint64_t seed, std::uint64_t stream, std::uint64_t index)
        : state_(mix64(mix64(seed ^ stream) + index * gamma))
    {
    }
    std::uint64_t next()
    {
        state_ += gamma;
        return mix64(state_);
    }
    std::uint64_t below(std::uint64_t bound)  // multiply-shift, bias < bound / 2^64
    {
        __extension__ using u128 = unsigned __int128;
        return static_cast<std::uint64_t>((static_cast<u128>(next()) * bound) >> 64);
    }
    double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

private:
    std::uint64_t state_;
};

[[noreturn]] void bad(const char* fn, const std::string& msg)
{
    throw std::invalid_argument(fmt::format("{}: {}", fn, msg));
}

/// A bijection of [0, 2^scale) that scatters R-MAT's vertex labels (as Graph500 permutes them),
/// so the high-degree vertices are not the low row numbers: two rounds of an odd multiply and an
/// xor-shift, all modulo 2^scale, each invertible.
struct LabelScramble {
    int scale;
    std::uint64_t mask, m1, m2, add;
    LabelScramble(int s, std::uint64_t seed)
        : scale{s}, mask{(std::uint64_t{1} << s) - 1}
    {
        Rng rng(seed, rmat_label_stream, 0);
        m1 = rng.next() | 1;
        m2 = rng.next() | 1;
        add = rng.next();
    }
    std::uint64_t operator()(std::uint64_t v) const
    {
        const int shift = scale / 2 + 1;
        v = (v * m1 + add) & mask;
        v ^= v >> shift;
        v = (v * m2) & mask;
        v ^= v >> shift;
        return v;
    }
};

/// Off-diagonal value of the undirected edge {i, j}: magnitude uniform in [0.1, 1), random sign,
/// the same for (i, j) and (j, i).
double edge_value(std::uint64_t seed, index_type i, index_type j)
{
    const auto lo = static_cast<std::uint64_t>(std::min(i, j));
    const auto hi = static_cast<std::uint64_t>(std::max(i, j));
    const std::uint64_t x = Rng(seed, rmat_value_stream, (hi << 32) | lo).next();
    const double magnitude = 0.1 + 0.9 * (static_cast<double>(x >> 11) * 0x1.0p-53);
    return (x & 1) != 0 ? -magnitude : magnitude;
}

/// Sorts and deduplicates the columns of every row of a (row_ptr bounds the unsorted, possibly
/// repeated columns), compacting in place; returns the new row pointers.
void sort_unique_rows(std::vector<index_type>& row_ptr, std::vector<index_type>& col)
{
    index_type out = 0;
    index_type begin = row_ptr[0];
    for (std::size_t i = 0; i + 1 < row_ptr.size(); ++i) {
        const index_type end = row_ptr[i + 1];
        std::sort(col.begin() + begin, col.begin() + end);
        const auto last = std::unique(col.begin() + begin, col.begin() + end);
        const auto len = static_cast<index_type>(last - (col.begin() + begin));
        std::copy(col.begin() + begin, last, col.begin() + out);
        row_ptr[i] = out;
        out += len;
        begin = end;
    }
    row_ptr.back() = out;
    col.resize(static_cast<std::size_t>(out));
}

}  // namespace

void check_rmat(const RmatParams& p)
{
    const char* fn = "rmat";
    if (p.scale < 1 || p.scale > 30) bad(fn, fmt::format("scale = {}, expected 1..30", p.scale));
    if (p.edge_factor < 1) bad(fn, fmt::format("edge_factor = {}, expected >= 1", p.edge_factor));
    for (const auto& [name, v] : {std::pair{"a", p.a}, std::pair{"b", p.b}, std::pair{"c", p.c}})
        if (!(std::isfinite(v) && v >= 0.0 && v <= 1.0))
            bad(fn, fmt::format("{} = {}, expected a probability in [0, 1]", name, v));
    if (!(p.a + p.b + p.c <= 1.0 + 1e-12))
        bad(fn, fmt::format("a + b + c = {}, expected <= 1 (d = 1 - a - b - c)", p.a + p.b + p.c));
    const std::int64_t n = std::int64_t{1} << p.scale;
    // Both directions of every edge plus the diagonal bound nnz before duplicates are merged.
    const std::int64_t bound = 2 * n * p.edge_factor + n;
    if (bound > index_max)
        bad(fn, fmt::format("2^{} vertices x {} edges each: up to {} nonzeros, more than "
                            "index_type holds",
                            p.scale, p.edge_factor, bound));
}

Csr<double> rmat(const RmatParams& p)
{
    check_rmat(p);
    const index_type n = index_type{1} << p.scale;
    const std::int64_t edges = std::int64_t{n} * p.edge_factor;
    // Quadrant thresholds on 32-bit draws: [0, ta) a, [ta, tb) b, [tb, tc) c, else d.
    const auto threshold = [](double v) {
        return static_cast<std::uint64_t>(std::min(1.0, v) * 4294967296.0);
    };
    const std::uint64_t ta = threshold(p.a), tb = threshold(p.a + p.b),
                        tc = threshold(p.a + p.b + p.c);
    const LabelScramble label(p.scale, p.seed);
    // Edge e: one splitmix64 stream, two quadrant choices per 64-bit draw (high word first),
    // from the most significant bit of the row and column down.
    const auto edge = [&](std::int64_t e, index_type& i, index_type& j) {
        Rng rng(p.seed, rmat_stream, static_cast<std::uint64_t>(e));
        std::uint64_t r = 0, c = 0, bits = 0;
        for (int level = 0; level < p.scale; ++level) {
            if (level % 2 == 0) bits = rng.next();
            const std::uint64_t u = level % 2 == 0 ? bits >> 32 : bits & 0xffffffffULL;
            r = (r << 1) | (u >= tb ? 1 : 0);                 // quadrants c and d: lower half
            c = (c << 1) | ((u >= ta && u < tb) || u >= tc ? 1 : 0);  // b and d: right half
        }
        i = static_cast<index_type>(label(r));
        j = static_cast<index_type>(label(c));
    };
    // Pass 1 counts both directions of every edge (self loops dropped) and the diagonal; pass 2
    // draws the same edges again into place; then rows are sorted and duplicates merged.
    std::vector<index_type> row_ptr(static_cast<std::size_t>(n) + 1, 0);
    for (index_type v = 0; v < n; ++v) row_ptr[v + 1] = 1;
    for (std::int64_t e = 0; e < edges; ++e) {
        index_type i, j;
        edge(e, i, j);
        if (i == j) continue;
        ++row_ptr[i + 1];
        ++row_ptr[j + 1];
    }
    for (index_type v = 0; v < n; ++v) row_ptr[v + 1] += row_ptr[v];
    std::vector<index_type> col(static_cast<std::size_t>(row_ptr.back()));
    std::vector<index_type> fill(row_ptr.begin(), row_ptr.end() - 1);
    for (index_type v = 0; v < n; ++v) col[fill[v]++] = v;
    for (std::int64_t e = 0; e < edges; ++e) {
        index_type i, j;
        edge(e, i, j);
        if (i == j) continue;
        col[fill[i]++] = j;
        col[fill[j]++] = i;
    }
    fill = {};
    sort_unique_rows(row_ptr, col);
    Csr<double> a;
    a.num_rows = a.num_cols = n;
    a.row_ptr = std::move(row_ptr);
    a.col_idx = std::move(col);
    a.values.resize(a.col_idx.size());
    for (index_type i = 0; i < n; ++i) {
        double sum = 0.0;
        index_type diag = -1;
        for (index_type k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
            const index_type j = a.col_idx[k];
            if (j == i) {
                diag = k;
                continue;
            }
            a.values[k] = edge_value(p.seed, i, j);
            sum += std::abs(a.values[k]);
        }
        a.values[diag] = 1.0 + sum;
    }
    return a;
}

const char* to_string(MeshOrdering ordering)
{
    switch (ordering) {
    case MeshOrdering::grid: return "grid";
    case MeshOrdering::random: return "random";
    case MeshOrdering::rcm: return "rcm";
    }
    return "?";
}

MeshOrdering parse_mesh_ordering(const std::string& name)
{
    if (name == "grid") return MeshOrdering::grid;
    if (name == "random") return MeshOrdering::random;
    if (name == "rcm") return MeshOrdering::rcm;
    throw std::invalid_argument("unknown mesh ordering '" + name +
                                "' (valid: grid, random, rcm)");
}

void check_mesh_2d(index_type nx, index_type ny)
{
    const char* fn = "mesh_2d";
    if (nx < 2 || ny < 2) bad(fn, fmt::format("nx = {}, ny = {}, expected >= 2", nx, ny));
    const std::int64_t n = std::int64_t{nx} * ny;
    // n diagonal entries, 2 per edge: (nx-1) ny + nx (ny-1) grid edges and one per cell.
    const std::int64_t nnz = n + 2 * ((std::int64_t{nx} - 1) * ny + std::int64_t{nx} * (ny - 1) +
                                      (std::int64_t{nx} - 1) * (ny - 1));
    if (nnz > index_max)
        bad(fn, fmt::format("{} x {} mesh has {} nonzeros, more than index_type holds", nx, ny,
                            nnz));
}

Csr<double> mesh_2d(index_type nx, index_type ny, MeshOrdering ordering, std::uint64_t seed)
{
    check_mesh_2d(nx, ny);
    const index_type n = nx * ny;
    // Jittered points: vertex (i, j) at (i + s, j + t), s and t uniform in [-0.35, 0.35).
    std::vector<double> px(static_cast<std::size_t>(n)), py(static_cast<std::size_t>(n));
    for (index_type v = 0; v < n; ++v) {
        Rng rng(seed, mesh_stream, static_cast<std::uint64_t>(v));
        px[v] = (v % nx) + 0.7 * rng.unit() - 0.35;
        py[v] = (v / nx) + 0.7 * rng.unit() - 0.35;
    }
    const auto id = [nx](index_type i, index_type j) { return j * nx + i; };
    const auto dist2 = [&](index_type u, index_type v) {
        const double dx = px[u] - px[v], dy = py[u] - py[v];
        return dx * dx + dy * dy;
    };
    // Cell (ci, cj), corners (ci, cj)-(ci+1, cj+1): split along its shorter diagonal (the main
    // one, (ci, cj)-(ci+1, cj+1), on ties).
    const auto main_diagonal = [&](index_type ci, index_type cj) {
        return dist2(id(ci, cj), id(ci + 1, cj + 1)) <= dist2(id(ci + 1, cj), id(ci, cj + 1));
    };
    Csr<double> a;
    a.num_rows = a.num_cols = n;
    a.row_ptr.reserve(static_cast<std::size_t>(n) + 1);
    std::vector<index_type> nb;
    for (index_type j = 0; j < ny; ++j) {
        for (index_type i = 0; i < nx; ++i) {
            nb.clear();
            if (i > 0) nb.push_back(id(i - 1, j));
            if (i + 1 < nx) nb.push_back(id(i + 1, j));
            if (j > 0) nb.push_back(id(i, j - 1));
            if (j + 1 < ny) nb.push_back(id(i, j + 1));
            if (i > 0 && j > 0 && main_diagonal(i - 1, j - 1)) nb.push_back(id(i - 1, j - 1));
            if (i + 1 < nx && j + 1 < ny && main_diagonal(i, j)) nb.push_back(id(i + 1, j + 1));
            if (i + 1 < nx && j > 0 && !main_diagonal(i, j - 1)) nb.push_back(id(i + 1, j - 1));
            if (i > 0 && j + 1 < ny && !main_diagonal(i - 1, j)) nb.push_back(id(i - 1, j + 1));
            const index_type self = id(i, j);
            nb.push_back(self);
            std::sort(nb.begin(), nb.end());
            const auto degree = static_cast<double>(nb.size() - 1);
            for (index_type c : nb) {
                a.col_idx.push_back(c);
                a.values.push_back(c == self ? degree + 1.0 : -1.0);
            }
            a.row_ptr.push_back(a.nnz());
        }
    }
    if (ordering == MeshOrdering::grid) return a;
    // Random order: a Fisher-Yates shuffle of the vertices (new-to-old) from one stream.
    std::vector<index_type> perm(static_cast<std::size_t>(n));
    for (index_type v = 0; v < n; ++v) perm[v] = v;
    Rng rng(seed, mesh_perm_stream, 0);
    for (index_type k = n - 1; k > 0; --k)
        std::swap(perm[k], perm[static_cast<index_type>(rng.below(std::uint64_t(k) + 1))]);
    Csr<double> shuffled = permute_symmetric(a, perm);
    if (ordering == MeshOrdering::random) return shuffled;
    return permute_symmetric(shuffled, rcm_permutation(shuffled));
}

}  // namespace kbench
