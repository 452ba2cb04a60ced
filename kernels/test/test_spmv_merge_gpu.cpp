// GPU merge-based CSR SpMV (spmv::csr_merge, Merrill & Garland SC16) against the CPU reference,
// in float and double, label gpu: empty rows, one row longer than many tiles, an all-empty
// matrix, n = 1, power-law rows with scattered columns, random and stencil matrices; alpha/beta
// variants; bitwise-identical results from run to run.
//
// The reference is reference::csr's product with the row sums accumulated in long double (64-bit
// significand, x86-64): reference::csr's recursive sum in double over a 17k-entry row is itself
// off by up to about 17k eps, more than the kernel, and failed good results on power-law rows.
// Tolerance, per row: |y_i - y_ref_i| <= c * eps(T) * (|alpha| sum_j |a_ij x_j| + |beta y_i|)
// with c = 32 for double and c = 64 for float. The kernel rounds each product once and sums a
// row along its merge path: up to 7 items per lane in order, a 5-level shuffle tree over the
// lanes of a tile, and for a row split across tiles up to 8 carry-outs in order (one thread) or
// ceil(tiles / 32) carry-outs per lane and another 5-level tree (a warp, longer rows), then
// alpha*p + beta*y + alpha*carries: for the longest row here (20000 entries, about 90 tiles) a
// summation depth below 25.
#include "kernels/base/cuda_handles.hpp"
#include "kernels/device_matrix.hpp"
#include "kernels/machine_probe.hpp"
#include "kernels/spmv.hpp"
#include "kernels/spmv_operator.hpp"
#include "kernels/test/gpu_test.hpp"
#include "matrices/generators.hpp"
#include "matrices/test/random_data.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace kbench::spmv {
namespace {

template <typename T> constexpr double tolerance_factor = 0.0;
template <> constexpr double tolerance_factor<double> = 32.0;
template <> constexpr double tolerance_factor<float> = 64.0;

/// A CSR matrix of the given row lengths, columns spread over num_cols, values in [-1, 1).
Csr<double> with_row_lengths(const std::vector<index_type>& lengths, index_type num_cols)
{
    Csr<double> a;
    a.num_rows = static_cast<index_type>(lengths.size());
    a.num_cols = num_cols;
    std::uint64_t h = 12345;
    for (index_type len : lengths) {
        for (index_type c = 0; c < len; ++c) {
            a.col_idx.push_back(static_cast<index_type>(std::int64_t{c} * num_cols / len));
            h = h * 6364136223846793005ULL + 1442695040888963407ULL;
            a.values.push_back(static_cast<double>(h >> 11) * 0x1.0p-52 - 1.0);
        }
        a.row_ptr.push_back(a.nnz());
    }
    return a;
}

Csr<double> power_law(index_type n, double exponent, index_type row_max, std::uint64_t seed)
{
    RandomRowsParams p;
    p.n = n;
    p.distribution = RowLengthDistribution::power_law;
    p.row_min = 1;
    p.row_max = row_max;
    p.exponent = exponent;
    p.bandwidth = n;  // columns scattered over the whole row
    p.seed = seed;
    return random_rows(p);
}

/// y = alpha*A*x + beta*y on the GPU for each (alpha, beta) against the long-double product (y
/// poisoned with NaN when beta = 0), then the same product again: bitwise equal.
template <typename T>
void check_merge(const Csr<double>& a64, const std::string& what)
{
    SCOPED_TRACE(what + " (" + std::string(sizeof(T) == 8 ? "double" : "float") + ", n = " +
                 std::to_string(a64.num_rows) + ", nnz = " + std::to_string(a64.nnz()) + ")");
    const Csr<T> a = a64.template cast<T>();
    const CsrMergePlan plan = make_csr_merge_plan(a.view());
    const DeviceCsrMerge<T> d(a, plan);
    const cuda_stream stream;
    const std::vector<T> x = test::random_vector<T>(std::size_t(a.num_cols), 1);
    const device_buffer<T> dx(x);
    const std::pair<T, T> cases[] = {{1, 0}, {-0.75, 1.5}, {2, -1}, {0, 0.5}, {1, 1}};
    for (const auto& [alpha, beta] : cases) {
        const std::vector<T> y0 =
            beta == T{0} ? std::vector<T>(std::size_t(a.num_rows), std::numeric_limits<T>::quiet_NaN())
                         : test::random_vector<T>(std::size_t(a.num_rows), 2);
        std::vector<long double> y_ref(y0.size());
        for (index_type i = 0; i < a.num_rows; ++i) {
            long double sum = 0.0L;
            for (index_type k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k)
                sum += static_cast<long double>(a.values[k]) * x[a.col_idx[k]];
            y_ref[i] = alpha * sum + (beta == T{0} ? 0.0L : beta * static_cast<long double>(y0[i]));
        }
        device_buffer<T> dy(y0);
        csr_merge(d.view(), alpha, dx.data(), beta, dy.data(), stream);
        stream.synchronize();
        const std::vector<T> got = dy.to_host();
        int bad = 0;
        for (index_type i = 0; i < a.num_rows; ++i) {
            double scale = beta == T{0} ? 0.0 : std::abs(double(beta) * double(y0[i]));
            for (index_type k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k)
                scale += std::abs(double(alpha) * double(a.values[k]) * double(x[a.col_idx[k]]));
            const double bound = tolerance_factor<T> * std::numeric_limits<T>::epsilon() * scale;
            const double err = double(std::abs(got[i] - y_ref[i]));
            if (!(err <= bound) && bad++ < 5)
                ADD_FAILURE() << "row " << i << ": got " << got[i] << ", reference " << y_ref[i]
                              << ", error " << err << " > " << bound << " (alpha " << alpha
                              << ", beta " << beta << ", row length "
                              << a.row_ptr[i + 1] - a.row_ptr[i] << ")";
        }
        EXPECT_EQ(bad, 0) << "rows beyond the tolerance (alpha " << alpha << ", beta " << beta << ")";
        // Run to run: the same product again from the same y is bitwise identical.
        device_buffer<T> dy2(y0);
        csr_merge(d.view(), alpha, dx.data(), beta, dy2.data(), stream);
        stream.synchronize();
        const std::vector<T> again = dy2.to_host();
        EXPECT_EQ(std::memcmp(got.data(), again.data(), got.size() * sizeof(T)), 0)
            << "two runs differ (alpha " << alpha << ", beta " << beta << ")";
    }
}

template <typename T>
void check_all(const Csr<double>& a, const std::string& what)
{
    check_merge<T>(a, what);
}

TEST(SpmvMergeGpu, RandomPatternWithEmptyRowsAndALongRow)
{
    KBENCH_REQUIRE_GPU();
    // rows of 0..40 entries, 1 in 8 empty, row n/2 with 3000 draws (about 13 tiles)
    const Csr<double> a = test::random_csr(5000, 5037, 7, {40, 8, 2500, 3000});
    check_all<double>(a, "random with empty rows and a long row");
    check_all<float>(a, "random with empty rows and a long row");
}

TEST(SpmvMergeGpu, OneRowLongerThanManyTiles)
{
    KBENCH_REQUIRE_GPU();
    // 20000 entries in row 3 (about 90 tiles, more than the 32 lanes of the fix-up warp), short
    // rows and empty rows around it, and a last row that is split too.
    std::vector<index_type> lengths{1, 0, 2, 20000, 0, 0, 5};
    for (int i = 0; i < 300; ++i) lengths.push_back(static_cast<index_type>(i % 4));
    lengths.push_back(700);
    const Csr<double> a = with_row_lengths(lengths, 25000);
    ASSERT_GE(make_csr_merge_plan(a.view()).runs.size(), 2u);
    check_all<double>(a, "one very long row");
    check_all<float>(a, "one very long row");
    // A single row only.
    check_all<double>(with_row_lengths({20000}, 20000), "a single long row");
}

TEST(SpmvMergeGpu, SplitRowsOnBothSidesOfTheSerialRunLimit)
{
    KBENCH_REQUIRE_GPU();
    // Rows of 1-12 tiles between short ones: the fix-up's warps hold runs of at most
    // csr_merge_serial_run_tiles tiles (one thread each) beside several longer ones (the whole
    // warp, one after the other).
    std::vector<index_type> lengths;
    for (int i = 0; i < 200; ++i) {
        lengths.push_back(static_cast<index_type>(csr_merge_tile_items * (1 + i % 12) + 37 * i % 200));
        lengths.push_back(static_cast<index_type>(i % 5));
    }
    const Csr<double> a = with_row_lengths(lengths, 4000);
    const CsrMergePlan plan = make_csr_merge_plan(a.view());
    const auto tiles = [](const CsrMergeRun& r) { return r.tile_end - r.tile_begin; };
    ASSERT_GE(plan.runs.size(), 64u);
    const auto serial = std::count_if(plan.runs.begin(), plan.runs.begin() + 32,
                                      [&](const auto& r) { return tiles(r) <= csr_merge_serial_run_tiles; });
    ASSERT_GE(serial, 2);       // the first warp has runs of both kinds,
    ASSERT_LE(serial, 32 - 2);  // at least two of them long
    check_all<double>(a, "split rows of 1-12 tiles");
    check_all<float>(a, "split rows of 1-12 tiles");
}

TEST(SpmvMergeGpu, AllEmptyMatrixAndTinyMatrices)
{
    KBENCH_REQUIRE_GPU();
    Csr<double> empty;  // 1000 x 0, no nonzeros: x is empty, every row is alpha*0 + beta*y
    empty.num_rows = 1000;
    empty.row_ptr.assign(1001, 0);
    check_all<double>(empty, "all empty");
    check_all<float>(empty, "all empty");
    check_all<double>(with_row_lengths({1}, 1), "n = 1");
    check_all<float>(with_row_lengths({0}, 1), "n = 1, empty row");
    check_all<double>(with_row_lengths({3, 0, 1}, 4), "3 rows");
    // Exactly one tile (112 rows of one entry) and one item more.
    check_all<double>(with_row_lengths(std::vector<index_type>(112, 1), 112), "one full tile");
    check_all<double>(with_row_lengths(std::vector<index_type>(113, 1), 113), "a tile and 2 items");
    Csr<double> none;  // 0 x 0: no tile, nothing launched
    check_all<double>(none, "0 x 0");
}

TEST(SpmvMergeGpu, PowerLawRowsWithScatteredColumns)
{
    KBENCH_REQUIRE_GPU();
    for (const double exponent : {1.2, 1.6, 2.0, 2.5}) {
        const Csr<double> a = power_law(60000, exponent, 20000, 41);
        check_all<double>(a, "power law " + std::to_string(exponent));
        check_all<float>(a, "power law " + std::to_string(exponent));
    }
}

TEST(SpmvMergeGpu, RandomAndStencilMatrices)
{
    KBENCH_REQUIRE_GPU();
    for (std::uint32_t seed : {1u, 2u, 3u}) {
        const Csr<double> a = test::random_csr(20000 + 777 * index_type(seed), 20011, seed,
                                               {int(8 * seed), 0, -1, 0});
        check_all<double>(a, "random " + std::to_string(seed));
        check_all<float>(a, "random " + std::to_string(seed));
    }
    check_all<double>(laplacian_2d_5pt(300, 200), "2D Laplacian");
    check_all<float>(laplacian_3d_27pt(30, 30, 30), "3D 27-point Laplacian");
    // Rectangular: more columns than rows and the reverse.
    check_all<double>(test::random_csr(3000, 90000, 5, {60, 4, 10, 2000}), "wide");
    check_all<double>(test::random_csr(90000, 300, 6, {6, 3, 50000, 280}), "tall");
}

TEST(SpmvMergeGpu, OperatorRunsTheNamedKernelWithItsTraffic)
{
    KBENCH_REQUIRE_GPU();
    const Csr<double> a = power_law(30000, 1.8, 8000, 9);
    SpmvOperator<double> op(a, Policy{"csr_merge"}, machine_figures());
    EXPECT_EQ(op.choice().kernel, Kernel::csr_merge);
    const CsrMergePlan plan = make_csr_merge_plan(a.view());
    const models::Traffic t = op.traffic();
    const models::Traffic want = models::csr_merge_spmv(
        a.num_rows, a.num_cols, a.nnz(), plan.num_tiles(),
        static_cast<std::int64_t>(plan.runs.size()), plan.carry_tiles(), 8);
    EXPECT_DOUBLE_EQ(t.bytes(), want.bytes());
    const cuda_stream stream;
    const auto x = test::random_vector<double>(std::size_t(a.num_cols), 1);
    const device_buffer<double> dx(x);
    device_buffer<double> dy(std::size_t(a.num_rows));
    op.apply(1.0, dx.data(), 0.0, dy.data(), stream);
    stream.synchronize();
    std::vector<double> y_ref(std::size_t(a.num_rows));
    reference::csr(a.view(), 1.0, x.data(), 0.0, y_ref.data());
    const std::vector<double> got = dy.to_host();
    for (std::size_t i = 0; i < got.size(); ++i)
        ASSERT_NEAR(got[i], y_ref[i], 1e-10 * (1.0 + std::abs(y_ref[i]))) << "row " << i;
}

}  // namespace
}  // namespace kbench::spmv
