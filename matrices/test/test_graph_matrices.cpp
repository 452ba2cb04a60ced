// Statistics of the graph-like generators (R-MAT, the unstructured 2D mesh in grid, random and
// RCM order, power-law random rows with scattered columns) and their manifest entries, label cpu.
#include "matrices/banded.hpp"
#include "matrices/generators.hpp"
#include "matrices/graph_matrices.hpp"
#include "matrices/matrix_set.hpp"
#include "matrices/reorder.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <vector>

namespace kbench {
namespace {

std::vector<index_type> row_lengths(const Csr<double>& a)
{
    std::vector<index_type> len(static_cast<std::size_t>(a.num_rows));
    for (index_type i = 0; i < a.num_rows; ++i) len[i] = a.row_ptr[i + 1] - a.row_ptr[i];
    return len;
}

struct LengthStats {
    double mean = 0, cv = 0;  // coefficient of variation: standard deviation / mean
    index_type max = 0;
};

LengthStats stats_of(const Csr<double>& a)
{
    const auto len = row_lengths(a);
    LengthStats s;
    s.mean = static_cast<double>(a.nnz()) / a.num_rows;
    double var = 0.0;
    for (index_type l : len) var += (l - s.mean) * (l - s.mean);
    s.cv = std::sqrt(var / a.num_rows) / s.mean;
    s.max = *std::max_element(len.begin(), len.end());
    return s;
}

/// A(i, j) == A(j, i) for every stored entry (pattern and values).
bool is_symmetric(const Csr<double>& a)
{
    for (index_type i = 0; i < a.num_rows; ++i) {
        for (index_type k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
            const index_type j = a.col_idx[k];
            const auto begin = a.col_idx.begin() + a.row_ptr[j];
            const auto end = a.col_idx.begin() + a.row_ptr[j + 1];
            const auto it = std::lower_bound(begin, end, i);
            if (it == end || *it != i || a.values[it - a.col_idx.begin()] != a.values[k])
                return false;
        }
    }
    return true;
}

/// Strictly diagonally dominant by rows with a positive diagonal.
bool diagonally_dominant(const Csr<double>& a)
{
    for (index_type i = 0; i < a.num_rows; ++i) {
        double diag = 0.0, off = 0.0;
        for (index_type k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k)
            (a.col_idx[k] == i ? diag : off) += std::abs(a.values[k]);
        if (!(diag > off)) return false;
    }
    return true;
}

RmatParams graph500(int scale, std::uint64_t seed)
{
    RmatParams p;
    p.scale = scale;
    p.edge_factor = 16;
    p.seed = seed;
    return p;
}

TEST(Rmat, SymmetricDominantAndHeavyTailed)
{
    const Csr<double> a = rmat(graph500(14, 5));
    validate(a, "rmat");
    EXPECT_EQ(a.num_rows, 1 << 14);
    EXPECT_TRUE(is_symmetric(a));
    EXPECT_TRUE(diagonally_dominant(a));
    // At most both directions of the 16 n edges plus the diagonal; duplicates and self loops
    // (frequent in the dense corner) remove some.
    const double n = a.num_rows;
    EXPECT_LE(a.nnz(), 2 * 16 * n + n);
    EXPECT_GE(a.nnz(), 1.2 * 16 * n);
    const LengthStats s = stats_of(a);
    // Graph500's a = 0.57: a few vertices of very high degree, many of degree 0 or 1.
    EXPECT_GT(s.max / s.mean, 20.0) << "max " << s.max << " mean " << s.mean;
    EXPECT_GT(s.cv, 1.5);
    // The label scramble spreads the heavy vertices: the longest row is not row 0, and the
    // 1 % longest rows are not all in the first 1 % of the rows.
    const auto len = row_lengths(a);
    EXPECT_NE(std::max_element(len.begin(), len.end()) - len.begin(), 0);
    std::vector<index_type> order(len.size());
    std::iota(order.begin(), order.end(), 0);
    std::partial_sort(order.begin(), order.begin() + 164, order.end(),
                      [&](index_type x, index_type y) { return len[x] > len[y]; });
    EXPECT_GT(*std::max_element(order.begin(), order.begin() + 164), a.num_rows / 2);
}

TEST(Rmat, UniformQuadrantsGiveARandomGraph)
{
    RmatParams p = graph500(14, 5);
    p.a = p.b = p.c = 0.25;
    const LengthStats s = stats_of(rmat(p));
    // Poisson degrees of mean 32: a narrow distribution.
    EXPECT_NEAR(s.mean, 33.0, 1.0);
    EXPECT_LT(s.cv, 0.25);
    EXPECT_LT(s.max / s.mean, 2.0);
}

TEST(Rmat, DeterministicBySeed)
{
    const Csr<double> a = rmat(graph500(12, 7)), b = rmat(graph500(12, 7));
    EXPECT_EQ(a.row_ptr, b.row_ptr);
    EXPECT_EQ(a.col_idx, b.col_idx);
    EXPECT_EQ(a.values, b.values);
    const Csr<double> c = rmat(graph500(12, 8));
    EXPECT_NE(a.col_idx, c.col_idx);
}

TEST(Rmat, RejectsBadParameters)
{
    RmatParams p = graph500(10, 1);
    p.scale = 0;
    EXPECT_THROW(check_rmat(p), std::invalid_argument);
    p = graph500(10, 1);
    p.a = 0.6;
    p.b = 0.3;
    p.c = 0.2;  // a + b + c > 1
    EXPECT_THROW(rmat(p), std::invalid_argument);
    p = graph500(10, 1);
    p.c = std::nan("");
    EXPECT_THROW(check_rmat(p), std::invalid_argument);
    p = graph500(27, 1);  // 2 * 16 * 2^27 + 2^27 > 2^31
    EXPECT_THROW(check_rmat(p), std::invalid_argument);
    p = graph500(10, 1);
    p.edge_factor = 0;
    EXPECT_THROW(check_rmat(p), std::invalid_argument);
}

TEST(Mesh2d, CountsAndRowLengths)
{
    const index_type nx = 40, ny = 30;
    const Csr<double> a = mesh_2d(nx, ny, MeshOrdering::grid, 3);
    validate(a, "mesh");
    const std::int64_t edges = (nx - 1) * ny + nx * (ny - 1) + (nx - 1) * (ny - 1);
    EXPECT_EQ(a.num_rows, nx * ny);
    EXPECT_EQ(a.nnz(), nx * ny + 2 * edges);
    EXPECT_TRUE(is_symmetric(a));
    EXPECT_TRUE(diagonally_dominant(a));
    const auto len = row_lengths(a);
    EXPECT_GE(*std::min_element(len.begin(), len.end()), 3);  // a corner: 2 neighbours at least
    EXPECT_LE(*std::max_element(len.begin(), len.end()), 9);  // 4 grid + 4 diagonal neighbours
    // A triangulation: interior vertices have 6 neighbours on average, so the mean row length
    // is just below 7 (8122 / 1200 = 6.77 here: the boundary has fewer).
    EXPECT_GT(stats_of(a).mean, 6.5);
    EXPECT_LT(stats_of(a).mean, 7.0);
    // Each row sums to 1 (graph Laplacian plus identity).
    for (index_type i = 0; i < a.num_rows; ++i) {
        double sum = 0.0;
        for (index_type k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) sum += a.values[k];
        ASSERT_DOUBLE_EQ(sum, 1.0) << "row " << i;
    }
    // The jitter decides the diagonals: another seed, another mesh of the same size.
    const Csr<double> b = mesh_2d(nx, ny, MeshOrdering::grid, 4);
    EXPECT_EQ(b.nnz(), a.nnz());
    EXPECT_NE(b.col_idx, a.col_idx);
    EXPECT_EQ(mesh_2d(nx, ny, MeshOrdering::grid, 3).col_idx, a.col_idx);
}

TEST(Mesh2d, RandomOrderScattersAndRcmGathers)
{
    if (!reorder_has_rcm()) GTEST_SKIP() << "built without Boost.Graph (no RCM)";
    const index_type nx = 60, ny = 50;
    const Csr<double> grid = mesh_2d(nx, ny, MeshOrdering::grid, 9);
    const Csr<double> random = mesh_2d(nx, ny, MeshOrdering::random, 9);
    const Csr<double> rcm = mesh_2d(nx, ny, MeshOrdering::rcm, 9);
    for (const Csr<double>* m : {&random, &rcm}) {
        validate(*m, "mesh");
        EXPECT_EQ(m->nnz(), grid.nnz());
        EXPECT_TRUE(is_symmetric(*m));
        // The same multiset of row lengths (a relabelling of one mesh).
        auto l1 = row_lengths(grid), l2 = row_lengths(*m);
        std::sort(l1.begin(), l1.end());
        std::sort(l2.begin(), l2.end());
        EXPECT_EQ(l1, l2);
    }
    const index_type n = nx * ny;
    EXPECT_EQ(bandwidth(grid), nx + 1);  // the diagonal neighbour across a row of the grid
    EXPECT_GT(bandwidth(random), n / 2);
    EXPECT_LE(bandwidth(rcm), 3 * std::min(nx, ny));
    EXPECT_EQ(mesh_2d(nx, ny, MeshOrdering::random, 9).col_idx, random.col_idx);
    EXPECT_NE(mesh_2d(nx, ny, MeshOrdering::random, 10).col_idx, random.col_idx);
}

TEST(Mesh2d, RejectsBadParameters)
{
    EXPECT_THROW(check_mesh_2d(1, 10), std::invalid_argument);
    EXPECT_THROW(mesh_2d(10, 1, MeshOrdering::grid, 1), std::invalid_argument);
    EXPECT_THROW(check_mesh_2d(50000, 50000), std::invalid_argument);  // nnz > 2^31
    EXPECT_THROW(parse_mesh_ordering("metis"), std::invalid_argument);
    EXPECT_EQ(parse_mesh_ordering(to_string(MeshOrdering::rcm)), MeshOrdering::rcm);
}

TEST(PowerLawRows, ScatteredColumnsAndSkewAtSeveralExponents)
{
    // random_rows with bandwidth n: Zipf row lengths, columns uniform over the whole row.
    double previous_mean = 1e9;
    for (const double exponent : {1.2, 1.6, 2.0}) {
        RandomRowsParams p;
        p.n = 100000;
        p.distribution = RowLengthDistribution::power_law;
        p.row_min = 1;
        p.row_max = 5000;
        p.exponent = exponent;
        p.bandwidth = p.n;
        p.seed = 3;
        const Csr<double> a = random_rows(p);
        const LengthStats s = stats_of(a);
        // The sample mean of a heavy tail converges slowly (infinite variance for exponent <= 3
        // without the cut at row_max): within 15 % on 1e5 rows.
        EXPECT_NEAR(s.mean, expected_row_length(p), 0.15 * expected_row_length(p)) << exponent;
        EXPECT_GT(s.max / s.mean, 20.0) << exponent;
        EXPECT_LT(s.mean, previous_mean);  // a steeper law, shorter rows
        previous_mean = s.mean;
        // Scattered: the off-diagonal columns of the long rows cover the matrix evenly.
        std::int64_t left = 0, total = 0;
        for (index_type i = 0; i < a.num_rows; ++i) {
            if (a.row_ptr[i + 1] - a.row_ptr[i] < 100) continue;
            for (index_type k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
                left += a.col_idx[k] < a.num_cols / 2;
                ++total;
            }
        }
        ASSERT_GT(total, 0);
        EXPECT_NEAR(double(left) / total, 0.5, 0.05) << exponent;
    }
}

TEST(GraphsSet, LoadsAndNamesEveryKind)
{
    const MatrixSet set = load_matrix_set("graphs", "");
    EXPECT_FALSE(set.description.empty());
    std::map<std::string, int> kinds;
    for (const MatrixEntry& e : set.matrices) {
        const auto p = nlohmann::json::parse(e.spec).at("params");
        if (e.source == "random_rows") {
            EXPECT_EQ(p.at("distribution"), "power_law") << e.name;
            EXPECT_EQ(p.at("bandwidth"), p.at("n")) << e.name;  // scattered columns
            EXPECT_GE(p.at("n").get<int>(), 1000000) << e.name;
            ++kinds["power_law"];
        } else if (e.source == "rmat") {
            EXPECT_GE(p.at("scale").get<int>(), 20) << e.name;
            EXPECT_LE(p.at("scale").get<int>(), 22) << e.name;
            ++kinds["rmat"];
        } else {
            ASSERT_EQ(e.source, "mesh_2d") << e.name;
            ++kinds[p.at("ordering").get<std::string>()];
        }
    }
    EXPECT_GE(kinds["power_law"], 3);  // several exponents
    EXPECT_GE(kinds["rmat"], 1);
    EXPECT_GE(kinds["random"], 1);
    EXPECT_GE(kinds["rcm"], 1);
}

TEST(GraphsSet, ManifestEntriesBuildAsTheirFunctions)
{
    MatrixEntry e;
    e.name = "r";
    e.source = "rmat";
    e.spec = R"({"params": {"scale": 10, "edge_factor": 8, "a": 0.57, "b": 0.19, "c": 0.19, "seed": 4}})";
    RmatParams p = graph500(10, 4);
    p.edge_factor = 8;
    EXPECT_EQ(build_matrix(e).col_idx, rmat(p).col_idx);
    e.source = "mesh_2d";
    e.spec = R"({"params": {"nx": 20, "ny": 10, "ordering": "random", "seed": 2}})";
    EXPECT_EQ(build_matrix(e).col_idx, mesh_2d(20, 10, MeshOrdering::random, 2).col_idx);
    e.spec = R"({"params": {"nx": 20, "ny": 10, "ordering": "hilbert"}})";
    EXPECT_THROW(build_matrix(e), std::invalid_argument);
    e.source = "rmat";
    e.spec = R"({"params": {"scale": 10, "edge_factor": 8, "a": 0.7, "b": 0.2, "c": 0.2}})";
    EXPECT_THROW(build_matrix(e), std::invalid_argument);
}

}  // namespace
}  // namespace kbench
