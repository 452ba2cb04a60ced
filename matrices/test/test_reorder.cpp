// Reorderings before distribution (matrices/reorder.hpp, yamazaki2014 Sec. IV): RCM on randomly
// permuted and disconnected Laplacians, METIS k-way balance and edge cut against a random
// partition, the block partition, symmetric permutation round trips and the error messages.
// RCM and k-way tests are skipped, with the library's "not built" message, when Boost.Graph or
// METIS was not found at configuration.
#include "matrices/reorder.hpp"
#include "matrices/banded.hpp"
#include "matrices/generators.hpp"

#include "kernels/test/expect_invalid.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace kbench {
namespace {

#define KBENCH_SKIP_UNLESS_BUILT(have, call)                      \
    if (!(have)) {                                                \
        try {                                                     \
            (void)(call);                                         \
        } catch (const std::runtime_error& e) {                   \
            GTEST_SKIP() << e.what();                             \
        }                                                         \
        FAIL() << #call " neither ran nor threw when not built";  \
    }

std::vector<index_type> shuffled(index_type n, unsigned seed)
{
    std::vector<index_type> p(static_cast<std::size_t>(n));
    std::iota(p.begin(), p.end(), 0);
    std::mt19937 rng(seed);
    std::shuffle(p.begin(), p.end(), rng);
    return p;
}

bool is_permutation_of_n(const std::vector<index_type>& p, index_type n)
{
    std::vector<index_type> s = p;
    std::sort(s.begin(), s.end());
    std::vector<index_type> id(static_cast<std::size_t>(n));
    std::iota(id.begin(), id.end(), 0);
    return s == id;
}

/// Two grids side by side without coupling, plus one isolated row in between: 3 components.
Csr<double> disconnected_matrix()
{
    const Csr<double> g1 = laplacian_2d_5pt(6, 5);
    const Csr<double> g2 = laplacian_2d_5pt(4, 7);
    Csr<double> a;
    a.num_rows = a.num_cols = g1.num_rows + 1 + g2.num_rows;
    a.row_ptr = g1.row_ptr;
    a.col_idx = g1.col_idx;
    a.values = g1.values;
    a.col_idx.push_back(g1.num_rows);  // the isolated row: its diagonal only
    a.values.push_back(1.0);
    a.row_ptr.push_back(a.nnz());
    const index_type off = g1.num_rows + 1;
    for (index_type i = 0; i < g2.num_rows; ++i) {
        for (index_type k = g2.row_ptr[i]; k < g2.row_ptr[i + 1]; ++k) {
            a.col_idx.push_back(g2.col_idx[k] + off);
            a.values.push_back(g2.values[k]);
        }
        a.row_ptr.push_back(a.nnz());
    }
    validate(a);
    return a;
}

double imbalance(const std::vector<int>& parts, int k)
{
    std::vector<std::int64_t> size(static_cast<std::size_t>(k), 0);
    for (const int p : parts) ++size.at(static_cast<std::size_t>(p));
    const double mean = static_cast<double>(parts.size()) / k;
    return *std::max_element(size.begin(), size.end()) / mean - 1.0;
}

TEST(Reorder, RcmRecoversAboutTheGridWidthFromARandomOrder)
{
    const index_type nx = 30, ny = 40;
    const Csr<double> lap = laplacian_2d_5pt(nx, ny);
    const Csr<double> scrambled = permute_symmetric(lap, shuffled(lap.num_rows, 7));
    ASSERT_GT(bandwidth(scrambled), 20 * nx);  // a random order spreads the band over the matrix
    KBENCH_SKIP_UNLESS_BUILT(reorder_has_rcm(), rcm_permutation(scrambled));

    const std::vector<index_type> perm = rcm_permutation(scrambled);
    ASSERT_TRUE(is_permutation_of_n(perm, lap.num_rows));
    const Csr<double> b = permute_symmetric(scrambled, perm);
    // Level sets of a grid from a corner are anti-diagonals of at most min(nx, ny) vertices.
    EXPECT_LE(bandwidth(b), nx + 2);
    EXPECT_GE(bandwidth(b), nx / 2);
    EXPECT_EQ(b.nnz(), lap.nnz());
}

TEST(Reorder, RcmHandlesDisconnectedGraphs)
{
    const Csr<double> a = disconnected_matrix();
    KBENCH_SKIP_UNLESS_BUILT(reorder_has_rcm(), rcm_permutation(a));
    const Csr<double> scrambled = permute_symmetric(a, shuffled(a.num_rows, 3));
    const std::vector<index_type> perm = rcm_permutation(scrambled);
    ASSERT_TRUE(is_permutation_of_n(perm, a.num_rows));
    EXPECT_LE(bandwidth(permute_symmetric(scrambled, perm)), 7);
}

TEST(Reorder, RcmOfADiagonalMatrixIsAPermutation)
{
    Csr<float> d;
    d.num_rows = d.num_cols = 5;
    d.row_ptr = {0, 1, 2, 3, 4, 5};
    d.col_idx = {0, 1, 2, 3, 4};
    d.values = {1, 2, 3, 4, 5};
    KBENCH_SKIP_UNLESS_BUILT(reorder_has_rcm(), rcm_permutation(d));
    EXPECT_TRUE(is_permutation_of_n(rcm_permutation(d), 5));
}

TEST(Reorder, KwayBalancesPartsAndCutsFarFewerEdgesThanARandomPartition)
{
    const Csr<double> lap = laplacian_2d_5pt(40, 40);
    KBENCH_SKIP_UNLESS_BUILT(reorder_has_metis(), kway_partition(lap, 2, 1));
    std::mt19937 rng(11);
    for (const int k : {2, 3, 4}) {
        const std::vector<int> parts = kway_partition(lap, k, 1);
        ASSERT_EQ(parts.size(), static_cast<std::size_t>(lap.num_rows));
        for (const int p : parts) ASSERT_TRUE(p >= 0 && p < k) << "part id " << p;
        EXPECT_LE(imbalance(parts, k), 0.10) << "k = " << k;

        std::uniform_int_distribution<int> pick(0, k - 1);
        std::vector<int> random_parts(parts.size());
        for (int& p : random_parts) p = pick(rng);
        const std::int64_t cut = edge_cut(lap, parts);
        const std::int64_t random_cut = edge_cut(lap, random_parts);
        EXPECT_GT(cut, 0) << "k = " << k;
        EXPECT_LT(10 * cut, random_cut) << "k = " << k << ": cut " << cut << " vs random "
                                        << random_cut;
        // A grid cut into k strips cuts (k - 1) * 40 edges; METIS should be near that.
        EXPECT_LE(cut, 2 * (k - 1) * 40) << "k = " << k;
        // The same seed gives the same partition.
        EXPECT_EQ(kway_partition(lap, k, 1), parts) << "k = " << k;
    }
}

TEST(Reorder, KwayWithOnePartOrNoEdgesIsTheBlockPartition)
{
    const Csr<double> lap = laplacian_2d_5pt(5, 5);
    KBENCH_SKIP_UNLESS_BUILT(reorder_has_metis(), kway_partition(lap, 1, 1));
    EXPECT_EQ(kway_partition(lap, 1, 1), block_partition(25, 1));
    Csr<double> d;
    d.num_rows = d.num_cols = 4;
    d.row_ptr = {0, 1, 2, 3, 4};
    d.col_idx = {0, 1, 2, 3};
    d.values = {1, 1, 1, 1};
    EXPECT_EQ(kway_partition(d, 3, 1), block_partition(4, 3));
}

TEST(Reorder, BlockPartitionSizesDifferByAtMostOne)
{
    EXPECT_EQ(block_partition(7, 3), (std::vector<int>{0, 0, 0, 1, 1, 2, 2}));
    EXPECT_EQ(block_partition(4, 4), (std::vector<int>{0, 1, 2, 3}));
    EXPECT_EQ(block_partition(3, 1), (std::vector<int>{0, 0, 0}));
    for (const int k : {1, 2, 5, 16, 99}) {
        const std::vector<int> parts = block_partition(1000, k);
        std::vector<int> size(static_cast<std::size_t>(k), 0);
        for (const int p : parts) ++size.at(static_cast<std::size_t>(p));
        const auto [lo, hi] = std::minmax_element(size.begin(), size.end());
        EXPECT_LE(*hi - *lo, 1) << "k = " << k;
        EXPECT_TRUE(std::is_sorted(parts.begin(), parts.end()));
    }
}

TEST(Reorder, PermutationFromPartsGroupsRowsStably)
{
    const std::vector<int> parts = {2, 0, 1, 0, 2, 1};
    EXPECT_EQ(permutation_from_parts(parts), (std::vector<index_type>{1, 3, 2, 5, 0, 4}));
    EXPECT_EQ(permutation_from_parts(block_partition(6, 2)),
              (std::vector<index_type>{0, 1, 2, 3, 4, 5}));
    EXPECT_TRUE(permutation_from_parts({}).empty());
}

TEST(Reorder, PermuteSymmetricByHandAndRoundTrip)
{
    // A = [1 2 0; 0 3 4; 5 0 6], perm = {2, 0, 1}: B(i, j) = A(perm[i], perm[j]).
    Csr<double> a;
    a.num_rows = a.num_cols = 3;
    a.row_ptr = {0, 2, 4, 6};
    a.col_idx = {0, 1, 1, 2, 0, 2};
    a.values = {1, 2, 3, 4, 5, 6};
    const Csr<double> b = permute_symmetric(a, {2, 0, 1});
    EXPECT_EQ(b.row_ptr, (std::vector<index_type>{0, 2, 4, 6}));
    EXPECT_EQ(b.col_idx, (std::vector<index_type>{0, 1, 1, 2, 0, 2}));
    EXPECT_EQ(b.values, (std::vector<double>{6, 5, 1, 2, 4, 3}));

    const Csr<double> c = convection_diffusion(9, 7, 1, 30.0, -10.0, 0.0);  // nonsymmetric
    const std::vector<index_type> perm = shuffled(c.num_rows, 5);
    const Csr<double> d = permute_symmetric(c, perm);
    validate(d);
    const Csr<double> back = permute_symmetric(d, inverse_permutation(perm));
    EXPECT_EQ(back.row_ptr, c.row_ptr);
    EXPECT_EQ(back.col_idx, c.col_idx);
    EXPECT_EQ(back.values, c.values);
}

TEST(Reorder, EdgeCutCountsEachUndirectedEdgeOnce)
{
    // 2 x 2 grid: 4 edges; the block partition {0, 0, 1, 1} (rows of x) cuts the 2 vertical ones.
    const Csr<double> lap = laplacian_2d_5pt(2, 2);
    EXPECT_EQ(edge_cut(lap, {0, 0, 1, 1}), 2);
    EXPECT_EQ(edge_cut(lap, {0, 1, 2, 3}), 4);
    EXPECT_EQ(edge_cut(lap, {0, 0, 0, 0}), 0);
}


TEST(Reorder, ErrorsNameTheParameter)
{
    const Csr<double> lap = laplacian_2d_5pt(3, 3);
    Csr<double> rect;
    rect.num_rows = 2;
    rect.num_cols = 3;
    rect.row_ptr = {0, 0, 0};

    test::expect_invalid([&] { kway_partition(lap, 0, 1); }, {"parts = 0"});
    test::expect_invalid([&] { kway_partition(lap, 10, 1); }, {"parts = 10"});
    test::expect_invalid([&] { kway_partition(rect, 1, 1); }, {"square"});
    test::expect_invalid([&] { rcm_permutation(rect); }, {"2 x 3"});
    test::expect_invalid([&] { block_partition(5, 6); }, {"parts = 6"});
    test::expect_invalid([&] { block_partition(5, -1); }, {"parts = -1"});
    test::expect_invalid([&] { permute_symmetric(lap, {0, 1, 2}); }, {"perm"});
    test::expect_invalid([&] { permute_symmetric(lap, {0, 1, 2, 3, 4, 5, 6, 7, 7}); },
                         {"perm is not a permutation"});
    test::expect_invalid([&] { permute_symmetric(rect, {0, 1}); }, {"square"});
    test::expect_invalid([&] { permutation_from_parts({0, -2}); }, {"parts[1] = -2"});
    test::expect_invalid([&] { edge_cut(lap, {0, 1}); }, {"parts has 2"});
    test::expect_invalid([&] { inverse_permutation({1, 1}); }, {"perm"});
}

TEST(Reorder, MissingLibrariesSayWhatToInstall)
{
    const Csr<double> lap = laplacian_2d_5pt(3, 3);
    // Nothing to check when both are built (no GTEST_SKIP: ctest would report the whole
    // executable as skipped).
    if (!reorder_has_rcm()) {
        try {
            rcm_permutation(lap);
            FAIL() << "rcm_permutation did not throw";
        } catch (const std::runtime_error& e) {
            EXPECT_NE(std::string(e.what()).find("libboost-graph-dev"), std::string::npos);
        }
    }
    if (!reorder_has_metis()) {
        try {
            kway_partition(lap, 2, 1);
            FAIL() << "kway_partition did not throw";
        } catch (const std::runtime_error& e) {
            EXPECT_NE(std::string(e.what()).find("libmetis-dev"), std::string::npos);
        }
    }
}

}  // namespace
}  // namespace kbench
