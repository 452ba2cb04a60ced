// CPU tests of the LAPACK dgbsv baseline (solvers/spike/gbsv_baseline.hpp), label cpu.
#include "matrices/generators.hpp"
#include "solvers/spike/gbsv_baseline.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace kbench::spike {
namespace {

std::vector<double> multiply(const Csr<double>& a, const std::vector<double>& x)
{
    std::vector<double> y(a.num_rows, 0.0);
    for (index_type i = 0; i < a.num_rows; ++i)
        for (index_type p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p)
            y[i] += a.values[p] * x[a.col_idx[p]];
    return y;
}

// ||b - A x||_2 / ||b||_2.
double relative_residual(const Csr<double>& a, const std::vector<double>& x,
                         const std::vector<double>& b)
{
    const std::vector<double> ax = multiply(a, x);
    double r = 0.0, nb = 0.0;
    for (std::size_t i = 0; i < b.size(); ++i) {
        r += (b[i] - ax[i]) * (b[i] - ax[i]);
        nb += b[i] * b[i];
    }
    return std::sqrt(r / nb);
}

std::vector<double> random_vector(index_type n, unsigned seed)
{
    std::mt19937_64 gen(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    std::vector<double> v(n);
    for (double& x : v) x = u(gen);
    return v;
}

// 3 x 3 tridiagonal: A(i, j) at row kl + ku + i - j = 2 + i - j of column j, ldab = 4.
TEST(GbsvBaseline, BandStorageByHand)
{
    Csr<double> a;
    a.num_rows = a.num_cols = 3;
    a.row_ptr = {0, 2, 5, 7};
    a.col_idx = {0, 1, 0, 1, 2, 1, 2};
    a.values = {1, 2, 3, 4, 5, 6, 7};
    const LapackBand band = to_lapack_band(a, 1);
    EXPECT_EQ(band.ldab, 4);
    EXPECT_EQ(band.ab, (std::vector<double>{0, 0, 1, 3, 0, 2, 4, 6, 0, 5, 7, 0}));
    EXPECT_THROW(to_lapack_band(a, 0), std::invalid_argument);  // (0, 1) is outside K = 0
    EXPECT_THROW(to_lapack_band(a, 3), std::invalid_argument);  // K >= n
}

TEST(GbsvBaseline, SolvesBandedSystemsOnOneAndTwoThreads)
{
    for (index_type k : {1, 8, 32})
        for (double d : {1.0, 10.0})
            for (int threads : {1, 2}) {
                SCOPED_TRACE("K=" + std::to_string(k) + " d=" + std::to_string(d) +
                             " threads=" + std::to_string(threads));
                const Csr<double> a = banded(20000, k, d, 42 + k);
                const std::vector<double> b = multiply(a, random_vector(a.num_rows, 7));
                const GbsvResult r = gbsv_solve(a, k, b, {threads, 2});
                ASSERT_EQ(r.status, GbsvStatus::ok) << r.message;
                EXPECT_LT(relative_residual(a, r.x, b), 1e-10);
                EXPECT_GT(r.seconds, 0.0);
                if (gbsv_threads_settable()) {
                    EXPECT_EQ(r.threads, threads);
                }
            }
}

// A zero column stays zero through elimination (with any row interchanges): U(17, 17) = 0.
TEST(GbsvBaseline, SingularMatrixNamesTheRow)
{
    Csr<double> a = banded(60, 3, 2.0, 5);
    for (index_type p = 0; p < a.nnz(); ++p)
        if (a.col_idx[p] == 17) a.values[p] = 0.0;
    const GbsvResult r = gbsv_solve(a, 3, std::vector<double>(60, 1.0));
    EXPECT_EQ(r.status, GbsvStatus::singular);
    EXPECT_EQ(r.singular_row, 17);
    EXPECT_NE(r.message.find("row 17"), std::string::npos) << r.message;
    EXPECT_TRUE(r.x.empty());
}

TEST(GbsvBaseline, RejectsBadInput)
{
    const Csr<double> a = banded(50, 2, 2.0, 1);
    EXPECT_THROW(gbsv_solve(a, 2, std::vector<double>(49, 1.0)), std::invalid_argument);
    EXPECT_THROW(gbsv_solve(a, 2, std::vector<double>(50, 1.0), {-1, 1}), std::invalid_argument);
    EXPECT_THROW(gbsv_solve(a, 2, std::vector<double>(50, 1.0), {1, 0}), std::invalid_argument);
    EXPECT_THROW(gbsv_solve(a, 1, std::vector<double>(50, 1.0)), std::invalid_argument);
}

}  // namespace
}  // namespace kbench::spike
