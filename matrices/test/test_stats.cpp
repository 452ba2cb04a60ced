// Tests of compute_stats and its JSON form (hand-checked small matrices; padding ratio checked
// against to_sellp).
#include "matrices/generators.hpp"
#include "matrices/sellp.hpp"
#include "matrices/stats.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <map>
#include <random>
#include <utility>

namespace kbench {
namespace {

// 4 x 4, rows of length 1, 3, 2, 0:
// [1 0 0 0]
// [2 3 0 5]
// [0 4 6 0]
// [0 0 0 0]
Csr<double> small_nonsymmetric()
{
    Csr<double> a;
    a.num_rows = a.num_cols = 4;
    a.row_ptr = {0, 1, 4, 6, 6};
    a.col_idx = {0, 0, 1, 3, 1, 2};
    a.values = {1, 2, 3, 5, 4, 6};
    return a;
}

TEST(Stats, RowLengthsBandwidthAndSymmetryByHand)
{
    const MatrixStats s = compute_stats(small_nonsymmetric(), SellpParams{2, 1, 1});
    EXPECT_EQ(s.num_rows, 4);
    EXPECT_EQ(s.nnz, 6);
    EXPECT_EQ(s.row_nnz_min, 0);
    EXPECT_EQ(s.row_nnz_max, 3);
    EXPECT_DOUBLE_EQ(s.row_nnz_mean, 1.5);
    EXPECT_EQ(s.bandwidth, 2);  // entry (1, 3)
    EXPECT_FALSE(s.pattern_symmetric);  // (1, 3) stored, (3, 1) not
    EXPECT_FALSE(s.value_symmetric);
    // Slices {1, 3} -> 2 * 3 and {2, 0} -> 2 * 2: 10 stored / 6 nnz.
    EXPECT_DOUBLE_EQ(s.sellp_padding_ratio, 10.0 / 6.0);
}

TEST(Stats, PatternSymmetricButNotValueSymmetric)
{
    Csr<double> a;
    a.num_rows = a.num_cols = 2;
    a.row_ptr = {0, 2, 4};
    a.col_idx = {0, 1, 0, 1};
    a.values = {1, 2, 3, 4};
    MatrixStats s = compute_stats(a);
    EXPECT_TRUE(s.pattern_symmetric);
    EXPECT_FALSE(s.value_symmetric);
    a.values = {1, 3, 3, 4};
    s = compute_stats(a);
    EXPECT_TRUE(s.value_symmetric);
    const MatrixStats f = compute_stats(a.cast<float>());
    EXPECT_TRUE(f.value_symmetric);
}

/// CSR from an ordered (row, col) -> value map.
Csr<double> from_map(index_type n, const std::map<std::pair<index_type, index_type>, double>& m)
{
    Csr<double> a;
    a.num_rows = a.num_cols = n;
    a.row_ptr.assign(n + 1, 0);
    for (const auto& [ij, v] : m) {
        ++a.row_ptr[ij.first + 1];
        a.col_idx.push_back(ij.second);
        a.values.push_back(v);
    }
    for (index_type i = 0; i < n; ++i) a.row_ptr[i + 1] += a.row_ptr[i];
    return a;
}

TEST(Stats, SymmetryAgreesWithBruteForceOnRandomPatterns)
{
    std::mt19937 rng(12345);
    int symmetric_seen = 0, asymmetric_seen = 0;
    for (int trial = 0; trial < 300; ++trial) {
        const index_type n = 1 + static_cast<index_type>(rng() % 7);
        std::map<std::pair<index_type, index_type>, double> m;
        for (index_type i = 0; i < n; ++i) {
            for (index_type j = i; j < n; ++j) {
                if (rng() % 3 == 0) {
                    const double v = static_cast<double>(rng() % 4);
                    m[{i, j}] = v;
                    m[{j, i}] = v;
                }
            }
        }
        // Perturb: drop one entry (pattern) or change one value, or leave symmetric.
        if (!m.empty() && trial % 3 != 0) {
            auto it = std::next(m.begin(), static_cast<long>(rng() % m.size()));
            if (trial % 3 == 1) m.erase(it);
            else it->second += 1.0;
        }
        bool pattern = true, values = true;
        for (const auto& [ij, v] : m) {
            const auto t = m.find({ij.second, ij.first});
            pattern = pattern && t != m.end();
            values = values && t != m.end() && t->second == v;
        }
        const MatrixStats s = compute_stats(from_map(n, m));
        EXPECT_EQ(s.pattern_symmetric, pattern) << "trial " << trial;
        EXPECT_EQ(s.value_symmetric, values) << "trial " << trial;
        (values ? symmetric_seen : asymmetric_seen)++;
    }
    EXPECT_GT(symmetric_seen, 50);  // both outcomes exercised
    EXPECT_GT(asymmetric_seen, 50);
}

TEST(Stats, PaddingWithThreadsPerRowAndSigmaSorting)
{
    // Row lengths 1, 3, 2, 0 with b = 2, t = 2: slices {1,3} -> 2*4, {2,0} -> 2*2 = 12.
    EXPECT_DOUBLE_EQ(compute_stats(small_nonsymmetric(), SellpParams{2, 2, 1}).sellp_padding_ratio,
                     12.0 / 6.0);
    // sigma = 4 sorts to 3, 2, 1, 0: slices {3,2} -> 6 and {1,0} -> 2 = 8.
    EXPECT_DOUBLE_EQ(compute_stats(small_nonsymmetric(), SellpParams{2, 1, 4}).sellp_padding_ratio,
                     8.0 / 6.0);
    EXPECT_THROW(compute_stats(small_nonsymmetric(), SellpParams{2, 3, 1}), std::invalid_argument);
    EXPECT_THROW(compute_stats(small_nonsymmetric(), SellpParams{0, 1, 1}), std::invalid_argument);
    EXPECT_THROW(compute_stats(small_nonsymmetric(), SellpParams{4, 1, 6}), std::invalid_argument);
    EXPECT_THROW(compute_stats(small_nonsymmetric(), SellpParams{2, 1, 1, -1}),
                 std::invalid_argument);
}

TEST(Stats, PaddingWithLongRowSplit)
{
    // Row lengths 1, 3, 2, 0, threshold 2: row 1 (3) is stored compactly and empty in its
    // slice. b = 2, t = 2: slices {1,0} -> 2*2, {2,0} -> 2*2, plus 3 long entries = 11.
    const MatrixStats s = compute_stats(small_nonsymmetric(), SellpParams{2, 2, 1, 2});
    EXPECT_DOUBLE_EQ(s.sellp_padding_ratio, 11.0 / 6.0);
    EXPECT_EQ(s.sellp_long_rows, 1);
    // Threshold 3: no row has more than 3 nonzeros, same as no split (12 stored).
    const MatrixStats none = compute_stats(small_nonsymmetric(), SellpParams{2, 2, 1, 3});
    EXPECT_DOUBLE_EQ(none.sellp_padding_ratio, 12.0 / 6.0);
    EXPECT_EQ(none.sellp_long_rows, 0);
}

TEST(Stats, PaddingRatioAgreesWithToSellp)
{
    const Csr<double> conv = convection_diffusion(13, 11, 1, 50.0, 0.0, 0.0);
    const Csr<double> tref = trefethen(777);
    for (const Csr<double>* a : {&conv, &tref}) {
        for (const SellpParams p :
             {SellpParams{32, 1, 1}, SellpParams{8, 4, 1}, SellpParams{16, 2, 64},
              SellpParams{5, 1, 1}, SellpParams{8, 4, 1, 4}, SellpParams{16, 2, 64, 3},
              SellpParams{32, 1, 1, 10}}) {
            const Sellp<double> sellp = to_sellp(*a, p);
            const MatrixStats st = compute_stats(*a, p);
            EXPECT_DOUBLE_EQ(st.sellp_padding_ratio, sellp.padding_ratio())
                << "b=" << p.slice_height << " t=" << p.threads_per_row << " sigma=" << p.sigma
                << " threshold=" << p.long_row_threshold;
            EXPECT_EQ(st.sellp_long_rows, sellp.num_long_rows());
        }
    }
}

TEST(Stats, GeneratedMatrices)
{
    const MatrixStats lap = compute_stats(laplacian_3d_7pt(5, 6, 7));
    EXPECT_EQ(lap.row_nnz_min, 4);  // corner
    EXPECT_EQ(lap.row_nnz_max, 7);
    EXPECT_EQ(lap.bandwidth, 30);  // nx * ny
    EXPECT_TRUE(lap.pattern_symmetric);
    EXPECT_TRUE(lap.value_symmetric);
    const MatrixStats cd = compute_stats(convection_diffusion(5, 6, 7, 1.0, 2.0, 3.0));
    EXPECT_TRUE(cd.pattern_symmetric);
    EXPECT_FALSE(cd.value_symmetric);
    Csr<double> rect;
    rect.num_rows = 1;
    rect.num_cols = 3;
    rect.row_ptr = {0, 1};
    rect.col_idx = {2};
    rect.values = {1.0};
    const MatrixStats r = compute_stats(rect);
    EXPECT_FALSE(r.pattern_symmetric);
    EXPECT_EQ(r.bandwidth, 2);
}

TEST(Stats, JsonHasTheDocumentedKeys)
{
    const nlohmann::json j = compute_stats(small_nonsymmetric(), SellpParams{2, 1, 1});
    EXPECT_EQ(j.size(), 15u);
    EXPECT_EQ(j.at("num_rows"), 4);
    EXPECT_EQ(j.at("num_cols"), 4);
    EXPECT_EQ(j.at("nnz"), 6);
    EXPECT_EQ(j.at("row_nnz_min"), 0);
    EXPECT_EQ(j.at("row_nnz_mean"), 1.5);
    EXPECT_EQ(j.at("row_nnz_max"), 3);
    EXPECT_EQ(j.at("bandwidth"), 2);
    EXPECT_EQ(j.at("pattern_symmetric"), false);
    EXPECT_EQ(j.at("value_symmetric"), false);
    EXPECT_DOUBLE_EQ(j.at("sellp_padding_ratio").get<double>(), 10.0 / 6.0);
    EXPECT_EQ(j.at("sellp_slice_height"), 2);
    EXPECT_EQ(j.at("sellp_threads_per_row"), 1);
    EXPECT_EQ(j.at("sellp_sigma"), 1);
    EXPECT_EQ(j.at("sellp_long_row_threshold"), 0);
    EXPECT_EQ(j.at("sellp_long_rows"), 0);
    const nlohmann::json split = compute_stats(small_nonsymmetric(), SellpParams{2, 1, 1, 2});
    EXPECT_EQ(split.at("sellp_long_row_threshold"), 2);
    EXPECT_EQ(split.at("sellp_long_rows"), 1);
}

}  // namespace
}  // namespace kbench
