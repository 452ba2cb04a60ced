// CPU tests of the merge-based CSR SpMV (Merrill & Garland, SC16): the merge-path search against
// coordinates worked out by hand, the plan (tiles, rows split across tiles) and the CPU
// reference that follows the plan lane by lane as the kernel does, label cpu.
#include "kernels/merge_path.hpp"
#include "kernels/spmv.hpp"
#include "kernels/spmv_plan.hpp"
#include "matrices/generators.hpp"
#include "matrices/test/random_data.hpp"
#include "models/spmv_traffic.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace kbench::spmv {
namespace {

/// A CSR matrix of the given row lengths, columns 0, 1, ... of n + 1 columns, value 1 + (k mod 7).
Csr<double> with_row_lengths(const std::vector<index_type>& lengths)
{
    Csr<double> a;
    a.num_rows = static_cast<index_type>(lengths.size());
    a.num_cols = *std::max_element(lengths.begin(), lengths.end()) + 1;
    for (index_type len : lengths) {
        for (index_type c = 0; c < len; ++c) {
            a.col_idx.push_back(c);
            a.values.push_back(1.0 + a.nnz() % 7);
        }
        a.row_ptr.push_back(a.nnz());
    }
    return a;
}

CsrMergeView<double> view_of(const Csr<double>& a, const CsrMergePlan& plan)
{
    return {a.view(), static_cast<index_type>(plan.num_tiles()), plan.coords.data(),
            static_cast<index_type>(plan.runs.size()), plan.runs.data(), nullptr};
}

// The 6 x 6 matrix of test_spmv_reference.cpp: row lengths 2, 1, 3, 0, 1, 2, so
// row_ptr = 0 2 3 6 6 7 9 and the row ends are 2 3 6 6 7 9. Merging them with the nonzero
// indices 0..8 (a nonzero j goes first while j < the open row's end; ties: the row end first):
//   nz0 nz1 E0 nz2 E1 nz3 nz4 nz5 E2 E3 nz6 E4 nz7 nz8 E5
// so after d items the path is at (rows ended, nonzeros consumed):
TEST(MergePath, SearchFindsTheHandMergedCoordinates)
{
    const Csr<double> a = with_row_lengths({2, 1, 3, 0, 1, 2});
    ASSERT_EQ(a.row_ptr, (std::vector<index_type>{0, 2, 3, 6, 6, 7, 9}));
    const std::vector<std::pair<int, int>> want{{0, 0}, {0, 1}, {0, 2}, {1, 2}, {1, 3}, {2, 3},
                                                {2, 4}, {2, 5}, {2, 6}, {3, 6}, {4, 6}, {4, 7},
                                                {5, 7}, {5, 8}, {5, 9}, {6, 9}};
    for (std::size_t d = 0; d < want.size(); ++d) {
        const CsrMergeCoord c = merge_path_coord(a.view(), static_cast<std::int64_t>(d));
        EXPECT_EQ(c.row, want[d].first) << "diagonal " << d;
        EXPECT_EQ(c.nz, want[d].second) << "diagonal " << d;
        // The same search on a 32-bit local range, as the kernel runs it in shared memory.
        const auto local = merge_path::search<int>(static_cast<int>(d), a.row_ptr.data() + 1, 6, 9);
        EXPECT_EQ(local.row, want[d].first);
        EXPECT_EQ(local.nz, want[d].second);
    }
    EXPECT_THROW(merge_path_coord(a.view(), 16), std::invalid_argument);
    EXPECT_THROW(merge_path_coord(a.view(), -1), std::invalid_argument);
}

TEST(MergePath, EmptyRowsAndNoNonzeros)
{
    // Rows only: the path is the row ends; no nonzeros: diagonal d is (d, 0).
    const Csr<double> empty = with_row_lengths({0, 0, 0, 0});
    for (int d = 0; d <= 4; ++d) {
        EXPECT_EQ(merge_path_coord(empty.view(), d).row, d);
        EXPECT_EQ(merge_path_coord(empty.view(), d).nz, 0);
    }
    Csr<double> none;  // 0 x 0
    EXPECT_EQ(merge_path_coord(none.view(), 0).row, 0);
    EXPECT_EQ(make_csr_merge_plan(none.view()).num_tiles(), 0);
    EXPECT_EQ(make_csr_merge_plan(none.view()).coords.size(), 1u);
}

// Row lengths 1, 1000, 0, 2: row_ptr 0 1 1001 1001 1003, path nz0 E0 nz1..nz1000 E1 E2 nz1001
// nz1002 E3 of 1007 items, 5 tiles of 224. Tile boundaries: d = 224 is after nz0, E0 and 222
// nonzeros of row 1: (1, 223); then (1, 447), (1, 671), (1, 895); the end (4, 1003). Tiles 0-3
// end inside row 1 after some of its nonzeros: one run, row 1, tiles [0, 4).
TEST(CsrMergePlan, OneRowLongerThanFourTilesIsOneRun)
{
    const Csr<double> a = with_row_lengths({1, 1000, 0, 2});
    const CsrMergePlan plan = make_csr_merge_plan(a.view());
    ASSERT_EQ(plan.num_tiles(), 5);
    const std::vector<std::pair<int, int>> want{{0, 0}, {1, 223}, {1, 447}, {1, 671}, {1, 895},
                                                {4, 1003}};
    for (std::size_t t = 0; t < want.size(); ++t) {
        EXPECT_EQ(plan.coords[t].row, want[t].first) << "tile " << t;
        EXPECT_EQ(plan.coords[t].nz, want[t].second) << "tile " << t;
    }
    ASSERT_EQ(plan.runs.size(), 1u);
    EXPECT_EQ(plan.runs[0].row, 1);
    EXPECT_EQ(plan.runs[0].tile_begin, 0);
    EXPECT_EQ(plan.runs[0].tile_end, 4);
    EXPECT_EQ(plan.carry_tiles(), 4);
}

// Rows of one entry are 2 items each (nz, E). 112 of them: 224 items, exactly one tile, no run.
// 113: 226 items, two tiles; the boundary d = 224 falls after E111: (112, 112), the start of row
// 112, so tile 0 leaves no carry-out and there is no run.
TEST(CsrMergePlan, TilesEndingAtARowStartLeaveNoRun)
{
    const CsrMergePlan one = make_csr_merge_plan(with_row_lengths(std::vector<index_type>(112, 1)).view());
    EXPECT_EQ(one.num_tiles(), 1);
    EXPECT_TRUE(one.runs.empty());
    const CsrMergePlan two = make_csr_merge_plan(with_row_lengths(std::vector<index_type>(113, 1)).view());
    ASSERT_EQ(two.num_tiles(), 2);
    EXPECT_EQ(two.coords[1].row, 112);
    EXPECT_EQ(two.coords[1].nz, 112);
    EXPECT_EQ(two.coords[2].row, 113);
    EXPECT_EQ(two.coords[2].nz, 113);
    EXPECT_TRUE(two.runs.empty());
}

/// Plan invariants on any matrix: every coordinate on the path at its diagonal, runs exactly
/// the tiles ending inside a row after some of its nonzeros.
void expect_plan_consistent(const Csr<double>& a)
{
    const CsrMergePlan plan = make_csr_merge_plan(a.view());
    const std::int64_t length = std::int64_t{a.num_rows} + a.nnz();
    ASSERT_EQ(plan.num_tiles(), (length + csr_merge_tile_items - 1) / csr_merge_tile_items);
    for (std::int64_t t = 0; t <= plan.num_tiles(); ++t) {
        const CsrMergeCoord c = plan.coords[t];
        EXPECT_EQ(std::int64_t{c.row} + c.nz, std::min(length, t * csr_merge_tile_items));
        // On the path: rows [0, c.row) ended, so their nonzeros are consumed, and no nonzero
        // past row c.row's end is.
        EXPECT_GE(c.nz, a.row_ptr[c.row]);
        if (c.row < a.num_rows) {
            EXPECT_LE(c.nz, a.row_ptr[c.row + 1]);
        }
    }
    std::int64_t expected_carries = 0;
    for (std::int64_t t = 0; t < plan.num_tiles(); ++t) {
        const CsrMergeCoord e = plan.coords[t + 1];
        expected_carries += e.row < a.num_rows && e.nz > a.row_ptr[e.row];
    }
    EXPECT_EQ(plan.carry_tiles(), expected_carries);
    for (std::size_t k = 1; k < plan.runs.size(); ++k) {
        EXPECT_LT(plan.runs[k - 1].row, plan.runs[k].row);
        EXPECT_LE(plan.runs[k - 1].tile_end, plan.runs[k].tile_begin);
    }
}

TEST(CsrMergePlan, CoordinatesAreOnThePathAndRunsAreTheSplitRows)
{
    expect_plan_consistent(test::random_csr(3000, 3000, 11, {40, 8, 1500, 5000}));
    expect_plan_consistent(with_row_lengths({1, 1000, 0, 2}));
    expect_plan_consistent(with_row_lengths(std::vector<index_type>(1000, 0)));
    expect_plan_consistent(with_row_lengths({1}));
    expect_plan_consistent(with_row_lengths({5000}));
    expect_plan_consistent(laplacian_2d_5pt(30, 30));
}

/// reference::csr_merge (plan, lanes, carries) against reference::csr, with y poisoned with NaN
/// for beta = 0 (a row the plan misses would stay NaN, and the reference throws first).
void expect_reference_matches_csr(const Csr<double>& a)
{
    SCOPED_TRACE("n = " + std::to_string(a.num_rows) + ", nnz = " + std::to_string(a.nnz()));
    const CsrMergePlan plan = make_csr_merge_plan(a.view());
    const auto x = test::random_vector<double>(std::size_t(a.num_cols), 3);
    for (const auto& [alpha, beta] : {std::pair{1.0, 0.0}, std::pair{-0.75, 1.5},
                                      std::pair{2.0, -1.0}, std::pair{0.0, 0.5}}) {
        auto y = beta == 0.0 ? std::vector<double>(std::size_t(a.num_rows),
                                                   std::numeric_limits<double>::quiet_NaN())
                             : test::random_vector<double>(std::size_t(a.num_rows), 4);
        auto y_ref = y;
        reference::csr_merge(view_of(a, plan), alpha, x.data(), beta, y.data());
        reference::csr(a.view(), alpha, x.data(), beta, y_ref.data());
        for (std::size_t i = 0; i < y.size(); ++i) {
            double scale = std::abs(beta * y_ref[i]) + 1.0;
            for (index_type k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k)
                scale += std::abs(alpha * a.values[k] * x[a.col_idx[k]]);
            ASSERT_NEAR(y[i], y_ref[i], 1e-13 * scale) << "row " << i << " alpha " << alpha;
        }
    }
}

TEST(CsrMergeReference, MatchesCsrOnEmptyLongAndPowerLawRows)
{
    expect_reference_matches_csr(test::random_csr(3000, 3037, 7, {40, 8, 1500, 3000}));
    expect_reference_matches_csr(with_row_lengths({1, 1000, 0, 2}));
    expect_reference_matches_csr(with_row_lengths(std::vector<index_type>(700, 0)));
    expect_reference_matches_csr(with_row_lengths({1}));
    expect_reference_matches_csr(with_row_lengths({0}));
    expect_reference_matches_csr(with_row_lengths({20000}));
    RandomRowsParams p;
    p.n = 5000;
    p.distribution = RowLengthDistribution::power_law;
    p.row_min = 1;
    p.row_max = 4000;
    p.exponent = 1.5;
    p.bandwidth = p.n;
    p.seed = 3;
    expect_reference_matches_csr(random_rows(p));
}

TEST(CsrMergeReference, RejectsAPlanOfAnotherMatrix)
{
    const Csr<double> a = with_row_lengths({1, 1000, 0, 2});
    const Csr<double> b = with_row_lengths({300, 700, 0, 2});  // same sizes, other tiles
    const CsrMergePlan plan = make_csr_merge_plan(b.view());
    std::vector<double> x(std::size_t(a.num_cols), 1.0), y(4, 0.0);
    EXPECT_THROW(reference::csr_merge(view_of(a, plan), 1.0, x.data(), 0.0, y.data()),
                 std::invalid_argument);
    CsrMergePlan no_runs = make_csr_merge_plan(a.view());
    no_runs.runs.clear();  // the long row's carries would be lost
    EXPECT_THROW(reference::csr_merge(view_of(a, no_runs), 1.0, x.data(), 0.0, y.data()),
                 std::invalid_argument);
    CsrMergePlan short_plan = make_csr_merge_plan(a.view());
    short_plan.coords.pop_back();
    EXPECT_THROW(reference::csr_merge(view_of(a, short_plan), 1.0, x.data(), 0.0, y.data()),
                 std::invalid_argument);
}

TEST(CsrMergeLauncher, RejectsAPlanOfTheWrongSizeBeforeLaunching)
{
    // The checks run on the host before any CUDA call, so this needs no GPU.
    const Csr<double> a = with_row_lengths({1, 1000, 0, 2});
    CsrMergePlan plan = make_csr_merge_plan(a.view());
    CsrMergeView<double> v = view_of(a, plan);
    std::vector<double> carries(static_cast<std::size_t>(plan.num_tiles()));
    v.carries = carries.data();
    double x = 1.0, y = 0.0;
    CsrMergeView<double> wrong = v;
    wrong.num_tiles = 4;
    EXPECT_THROW(csr_merge(wrong, 1.0, &x, 0.0, &y, nullptr), std::invalid_argument);
    CsrMergeView<double> no_workspace = v;
    no_workspace.carries = nullptr;
    EXPECT_THROW(csr_merge(no_workspace, 1.0, &x, 0.0, &y, nullptr), std::invalid_argument);
    CsrMergeView<double> no_runs = v;
    no_runs.runs = nullptr;
    EXPECT_THROW(csr_merge(no_runs, 1.0, &x, 0.0, &y, nullptr), std::invalid_argument);
}

TEST(CsrMergeTraffic, AddsCoordinatesCarriesAndSplitRows)
{
    // n = 1000, m = 1200, nnz = 20000, double, 94 tiles, 10 runs covering 30 tiles.
    const models::Traffic csr = models::csr_spmv(1000, 1200, 20000, 8);
    const models::Traffic t = models::csr_merge_spmv(1000, 1200, 20000, 94, 10, 30, 8);
    EXPECT_DOUBLE_EQ(t.bytes_read - csr.bytes_read, 95 * 2 * 4 + 10 * 16 + 30 * 8 + 10 * 8);
    EXPECT_DOUBLE_EQ(t.bytes_written - csr.bytes_written, 94 * 8 + 10 * 8);
    EXPECT_DOUBLE_EQ(t.flops, csr.flops);
    // No split rows: only the coordinates and carry-outs.
    const models::Traffic u = models::csr_merge_spmv(1000, 1200, 20000, 94, 0, 0, 4, 4, true);
    const models::Traffic csr_f = models::csr_spmv(1000, 1200, 20000, 4, 4, true);
    EXPECT_DOUBLE_EQ(u.bytes() - csr_f.bytes(), 95 * 2 * 4 + 94 * 4);
}

}  // namespace
}  // namespace kbench::spmv
