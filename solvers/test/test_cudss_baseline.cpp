// GPU tests of the cuDSS baseline (solvers/spike/cudss_baseline.hpp), label gpu: solves li2012
// banded matrices to a small residual; error reporting of the check macro. Skipped without a GPU.
#include "kernels/test/gpu_test.hpp"
#include "matrices/generators.hpp"
#include "solvers/spike/cudss_baseline.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

namespace kbench::spike {
namespace {

static_assert(std::is_nothrow_move_constructible_v<cudss_context>);
static_assert(!std::is_copy_constructible_v<cudss_context>);

TEST(CudssBaseline, CheckMacroNamesTheStatus)
{
    try {
        KBENCH_CUDSS_CHECK(CUDSS_STATUS_INVALID_VALUE);
        FAIL() << "no exception";
    } catch (const cuda_error& e) {
        EXPECT_NE(std::string(e.what()).find("CUDSS_STATUS_INVALID_VALUE"), std::string::npos);
        EXPECT_NE(std::string(e.what()).find("test_cudss_baseline.cpp"), std::string::npos);
    }
}

TEST(CudssBaseline, SolvesBandedSystems)
{
    KBENCH_REQUIRE_GPU();
    for (index_type k : {1, 16, 64}) {
        SCOPED_TRACE("K=" + std::to_string(k));
        const Csr<double> a = banded(50000, k, 1.0, 3 + k);
        std::vector<double> x_true(a.num_rows), b(a.num_rows, 0.0);
        for (index_type i = 0; i < a.num_rows; ++i) x_true[i] = std::sin(0.1 * i);
        for (index_type i = 0; i < a.num_rows; ++i)
            for (index_type p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p)
                b[i] += a.values[p] * x_true[a.col_idx[p]];
        const CudssResult r = cudss_solve(a, b, {2});
        ASSERT_EQ(r.info, 0);
        ASSERT_EQ(r.x.size(), b.size());
        double res = 0.0, nb = 0.0;
        for (index_type i = 0; i < a.num_rows; ++i) {
            double ax = 0.0;
            for (index_type p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p)
                ax += a.values[p] * r.x[a.col_idx[p]];
            res += (b[i] - ax) * (b[i] - ax);
            nb += b[i] * b[i];
        }
        EXPECT_LT(std::sqrt(res / nb), 1e-10);
        EXPECT_GT(r.analysis_s, 0.0);
        EXPECT_GT(r.factorization_s, 0.0);
        EXPECT_GT(r.solve_s, 0.0);
        EXPECT_GE(r.lu_nnz, a.nnz());
    }
}

TEST(CudssBaseline, RejectsBadInput)
{
    KBENCH_REQUIRE_GPU();
    const Csr<double> a = banded(100, 2, 2.0, 1);
    EXPECT_THROW(cudss_solve(a, std::vector<double>(99, 1.0)), std::invalid_argument);
    EXPECT_THROW(cudss_solve(a, std::vector<double>(100, 1.0), {0}), std::invalid_argument);
}

}  // namespace
}  // namespace kbench::spike
