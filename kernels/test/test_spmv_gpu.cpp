// GPU SpMV kernels (csr_scalar, csr_vector, csr_adaptive, csr_merge, sellp, cuSPARSE CSR ALG1 and
// ALG2 and sliced ELL) against the CPU reference, in float and double, label gpu.
//
// Tolerance: max_i |y_i - y_ref_i| <= c * eps(T) * max_i (|alpha| sum_j |a_ij||x_j| + |beta||y_i|)
// with c = 32 for double and c = 64 for float (the kernels accumulate in T, in a different order
// than the double-accumulating reference; the generated rows are at most a few hundred entries
// long; the long-row kernel sums a row of L entries as 256 strided partial sums and a tree).
#include "kernels/base/cuda_handles.hpp"
#include "kernels/device_matrix.hpp"
#include "kernels/spmv.hpp"
#include "kernels/spmv_cusparse.hpp"
#include "kernels/test/gpu_test.hpp"
#include "matrices/generators.hpp"
#include "matrices/mm_io.hpp"
#include "matrices/test/random_data.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace kbench::spmv {
namespace {

template <typename T> constexpr double tolerance_factor = 0.0;
template <> constexpr double tolerance_factor<double> = 32.0;
template <> constexpr double tolerance_factor<float> = 64.0;

/// n x (n + 37) random pattern: rows of 0..40 entries (about 1 in 8 rows empty) and row n/2
/// holding 600 entries.
Csr<double> random_matrix(index_type n, std::uint32_t seed)
{
    return test::random_csr(n, n + 37, seed, {40, 8, n / 2, 600});
}

/// 2D 5-point Laplacian on nx x ny (built here, independent of matrices/generators.cpp).
Csr<double> laplacian(index_type nx, index_type ny)
{
    Csr<double> a;
    a.num_rows = a.num_cols = nx * ny;
    for (index_type j = 0; j < ny; ++j) {
        for (index_type i = 0; i < nx; ++i) {
            const index_type row = j * nx + i;
            const auto add = [&](index_type c, double v) {
                a.col_idx.push_back(c);
                a.values.push_back(v);
            };
            if (j > 0) add(row - nx, -1.0);
            if (i > 0) add(row - 1, -1.0);
            add(row, 4.0);
            if (i + 1 < nx) add(row + 1, -1.0);
            if (j + 1 < ny) add(row + nx, -1.0);
            a.row_ptr.push_back(a.nnz());
        }
    }
    return a;
}


/// Runs `run` for (alpha, beta) = (1, 0) with y poisoned with NaN and (-0.75, 1.5) with random y,
/// and compares with the CSR reference.
template <typename T>
void check_product(const Csr<T>& a, const std::string& kernel,
                   const std::function<void(T, T, const T*, T*, cudaStream_t)>& run)
{
    SCOPED_TRACE(kernel);
    const cuda_stream stream;
    const std::vector<T> x = test::random_vector<T>(std::size_t(a.num_cols), 1);
    const device_buffer<T> dx(x);
    for (const auto& [alpha, beta] : {std::pair<T, T>{1, 0}, std::pair<T, T>{-0.75, 1.5}}) {
        std::vector<T> y = beta == T{0}
                               ? std::vector<T>(std::size_t(a.num_rows),
                                                std::numeric_limits<T>::quiet_NaN())
                               : test::random_vector<T>(std::size_t(a.num_rows), 2);
        device_buffer<T> dy(y);
        double scale = 0.0;
        for (index_type i = 0; i < a.num_rows; ++i) {
            double s = 0.0;
            for (index_type k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k)
                s += std::abs(double(a.values[k]) * double(x[a.col_idx[k]]));
            scale = std::max(scale, std::abs(double(alpha)) * s +
                                        (beta == T{0} ? 0.0 : std::abs(double(beta * y[i]))));
        }
        reference::csr(a.view(), alpha, x.data(), beta, y.data());
        run(alpha, beta, dx.data(), dy.data(), stream);
        stream.synchronize();
        const std::vector<T> got = dy.to_host();
        double err = 0.0;
        for (std::size_t i = 0; i < got.size(); ++i) {
            const double d = std::abs(double(got[i]) - double(y[i]));
            err = std::isnan(d) ? std::numeric_limits<double>::infinity() : std::max(err, d);
        }
        const double bound = tolerance_factor<T> * std::numeric_limits<T>::epsilon() * scale;
        EXPECT_LE(err, bound) << "alpha=" << alpha << " beta=" << beta << " n=" << a.num_rows;
    }
}

template <typename T>
void check_all_kernels(const Csr<double>& a64)
{
    const Csr<T> a = a64.template cast<T>();
    const DeviceCsr<T> d(a);
    check_product<T>(a, "csr_scalar", [&](T al, T be, const T* x, T* y, cudaStream_t s) {
        csr_scalar(d.view(), al, x, be, y, s);
    });
    for (int sw : {0, 2, 4, 8, 16, 32}) {
        check_product<T>(a, "csr_vector subwarp " + std::to_string(sw),
                         [&](T al, T be, const T* x, T* y, cudaStream_t s) {
                             csr_vector(d.view(), al, x, be, y, s, sw);
                         });
    }
    const DeviceCsrAdaptive<T> adaptive(a, make_csr_adaptive_plan(a.view()));
    check_product<T>(a,
                     "csr_adaptive (" + std::to_string(adaptive.blocks.size()) + " blocks, " +
                         std::to_string(adaptive.long_rows.size()) + " long rows)",
                     [&](T al, T be, const T* x, T* y, cudaStream_t s) {
                         csr_adaptive(adaptive.view(), al, x, be, y, s);
                     });
    SellpParams no_split = choose_sellp_params(a.view());
    no_split.long_row_threshold = 0;
    std::vector<SellpParams> params{choose_sellp_params(a.view()), no_split};
    for (index_type t : {1, 2, 4, 8, 16, 32}) {
        params.push_back({256 / t, t, 1});
        params.push_back({256 / t, t, 4 * (256 / t)});  // SELL-C-sigma
        params.push_back({5, t, 1});                    // b*t not a multiple of 32
        params.push_back({256 / t, t, 1, 16});          // long-row split, many long rows
        params.push_back({256 / t, t, 4 * (256 / t), 64});  // split + SELL-C-sigma
        params.push_back({5, t, 1, 64});
    }
    for (const SellpParams& p : params) {
        const Sellp<T> host = to_sellp(a, p);
        const DeviceSellp<T> ds(host);
        check_product<T>(a,
                         "sellp b=" + std::to_string(p.slice_height) +
                             " t=" + std::to_string(p.threads_per_row) +
                             " sigma=" + std::to_string(p.sigma) +
                             " long_row_threshold=" + std::to_string(p.long_row_threshold) +
                             " (" + std::to_string(host.num_long_rows()) + " long rows)",
                         [&](T al, T be, const T* x, T* y, cudaStream_t s) {
                             sellp(ds.view(), al, x, be, y, s);
                         });
    }
    const CsrMergePlan merge_plan = make_csr_merge_plan(a.view());
    const DeviceCsrMerge<T> merge(a, merge_plan);
    check_product<T>(a,
                     "csr_merge (" + std::to_string(merge_plan.num_tiles()) + " tiles, " +
                         std::to_string(merge_plan.runs.size()) + " split rows)",
                     [&](T al, T be, const T* x, T* y, cudaStream_t s) {
                         csr_merge(merge.view(), al, x, be, y, s);
                     });
    for (auto format : {CusparseFormat::csr, CusparseFormat::sliced_ell, CusparseFormat::csr_alg2}) {
        const std::string name = format == CusparseFormat::csr        ? "cusparse csr"
                                 : format == CusparseFormat::csr_alg2 ? "cusparse csr alg2"
                                                                      : "cusparse sliced_ell";
        CusparseSpmv<T> op(a, format);  // one operator, new vectors in every call
        check_product<T>(a, name, [&](T al, T be, const T* x, T* y, cudaStream_t s) {
            op.run(al, x, be, y, s);
        });
    }
}

TEST(SpmvGpu, RandomPatternWithEmptyRowsAndLongRow)
{
    KBENCH_REQUIRE_GPU();
    const Csr<double> a = random_matrix(1000, 7);
    check_all_kernels<double>(a);
    check_all_kernels<float>(a);
}

TEST(SpmvGpu, Laplacian2d)
{
    KBENCH_REQUIRE_GPU();
    const Csr<double> a = laplacian(45, 31);
    check_all_kernels<double>(a);
    check_all_kernels<float>(a);
}

TEST(SpmvGpu, TinyMatrixSmallerThanAWarp)
{
    KBENCH_REQUIRE_GPU();
    const Csr<double> a = random_matrix(5, 3);
    check_all_kernels<double>(a);
}

TEST(SpmvGpu, SuiteSparseMatrices)
{
    KBENCH_REQUIRE_GPU();
    const std::string dir = test::matrix_dir();
    if (dir.empty() || !std::filesystem::is_directory(dir))
        GTEST_SKIP() << "KBENCH_MATRIX_DIR unset or not a directory ('" << dir << "')";
    int count = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        if (entry.path().extension() != ".mtx") continue;
        SCOPED_TRACE(entry.path().filename().string());
        const Csr<double> a = read_matrix_market<double>(entry.path().string());
        check_all_kernels<double>(a);
        check_all_kernels<float>(a);
        ++count;
    }
    if (count == 0) GTEST_SKIP() << "no .mtx file in " << dir;
}

TEST(SpmvGpu, LongRowSplitIsDeterministicOnAnArrowMatrix)
{
    KBENCH_REQUIRE_GPU();
    // Arrow matrix (like bloweybq): diagonal plus a full row 0 and a full column 0, n = 5000.
    const index_type n = 5000;
    Csr<double> a64;
    a64.num_rows = a64.num_cols = n;
    for (index_type j = 0; j < n; ++j) {
        a64.col_idx.push_back(j);
        a64.values.push_back(1.0 / (1.0 + j));
    }
    a64.row_ptr.push_back(n);
    for (index_type i = 1; i < n; ++i) {
        a64.col_idx.insert(a64.col_idx.end(), {0, i});
        a64.values.insert(a64.values.end(), {0.5, 2.0});
        a64.row_ptr.push_back(a64.nnz());
    }
    const Csr<float> a = a64.cast<float>();
    const SellpParams p = choose_sellp_params(a.view());
    const Sellp<float> host = to_sellp(a, p);
    ASSERT_EQ(host.num_long_rows(), 1);  // threshold max(256, 16*ceil(3)) = 256 < 5000
    EXPECT_EQ(host.long_rows[0], 0);
    EXPECT_LT(host.padding_ratio(), 1.01);  // no slice padded to 5000
    const DeviceSellp<float> ds(host);
    const cuda_stream stream;
    const device_buffer<float> x(test::random_vector<float>(std::size_t(n), 5));
    device_buffer<float> y1{static_cast<std::size_t>(n)}, y2{static_cast<std::size_t>(n)};
    sellp(ds.view(), 1.0f, x.data(), 0.0f, y1.data(), stream);
    sellp(ds.view(), 1.0f, x.data(), 0.0f, y2.data(), stream);
    stream.synchronize();
    EXPECT_EQ(y1.to_host(), y2.to_host());  // bitwise: fixed reduction order, no atomics
    check_product<float>(a, "arrow", [&](float al, float be, const float* xx, float* yy,
                                         cudaStream_t s) { sellp(ds.view(), al, xx, be, yy, s); });
}

TEST(SpmvGpu, CusparseCsrAlg2OnPowerLawRowsIsReproducible)
{
    KBENCH_REQUIRE_GPU();
    // Power-law rows (one of up to 20000 entries) with columns scattered over the whole matrix:
    // the case ALG2 (merge-based) is for; it is documented deterministic, so two runs agree
    // bitwise.
    RandomRowsParams p;
    p.n = 50000;
    p.distribution = RowLengthDistribution::power_law;
    p.row_min = 1;
    p.row_max = 20000;
    p.exponent = 1.5;
    p.bandwidth = p.n;
    p.seed = 77;
    const Csr<double> a64 = random_rows(p);
    for (const bool single : {false, true}) {
        SCOPED_TRACE(single ? "float" : "double");
        const auto run_twice = [&](auto type_tag) {
            using T = decltype(type_tag);
            const Csr<T> a = a64.template cast<T>();
            CusparseSpmv<T> op(a, CusparseFormat::csr_alg2);
            check_product<T>(a, "cusparse csr alg2 power law",
                             [&](T al, T be, const T* x, T* y, cudaStream_t s) {
                                 op.run(al, x, be, y, s);
                             });
            const cuda_stream stream;
            const device_buffer<T> x(test::random_vector<T>(std::size_t(a.num_cols), 5));
            device_buffer<T> y1{std::size_t(a.num_rows)}, y2{std::size_t(a.num_rows)};
            op.run(T(1), x.data(), T(0), y1.data(), stream);
            op.run(T(1), x.data(), T(0), y2.data(), stream);
            stream.synchronize();
            EXPECT_EQ(y1.to_host(), y2.to_host());
        };
        if (single) run_twice(float{});
        else run_twice(double{});
    }
}

TEST(SpmvGpu, RejectsBadSubwarpThreadsPerRowAndLongPart)
{
    KBENCH_REQUIRE_GPU();
    const Csr<double> a = laplacian(4, 4);
    const DeviceCsr<double> d(a);
    device_buffer<double> x(16), y(16);
    EXPECT_THROW(csr_vector(d.view(), 1.0, x.data(), 0.0, y.data(), nullptr, 3),
                 std::invalid_argument);
    Sellp<double> s = to_sellp(a, SellpParams{4, 2, 1});
    s.params.threads_per_row = 3;
    const DeviceSellp<double> ds(s);
    EXPECT_THROW(sellp(ds.view(), 1.0, x.data(), 0.0, y.data(), nullptr), std::invalid_argument);
    const DeviceSellp<double> good(to_sellp(a, SellpParams{4, 2, 1, 3}));
    SellpView<double> v = good.view();
    ASSERT_GT(v.num_long_rows, 0);  // interior rows have 5 > 3 entries
    v.long_row_ptr = nullptr;
    EXPECT_THROW(sellp(v, 1.0, x.data(), 0.0, y.data(), nullptr), std::invalid_argument);
}

}  // namespace
}  // namespace kbench::spmv
