// The interior/boundary split of a local matrix (solvers/distributed/interior_boundary.hpp) and
// the CPU twin of the scatter-add kernel (pack.hpp), label cpu, no MPI: the parts of a
// hand-checked matrix, then every part of the distributed layer's test cases (distributed on the
// host with local_matrix, 1 to 3 parts): the interior product followed by the boundary rows'
// scatter-add reproduces A_local's product bit for bit (alpha and beta powers of two, so that
// every product is exact and each row's only rounding is that of its one CSR row sum and of
// the final addition, on both sides), the counts match the parts, and bad input is rejected.
#include "solvers/distributed/interior_boundary.hpp"
#include "solvers/distributed/pack.hpp"
#include "solvers/distributed/row_distribution.hpp"

#include "kernels/spmv.hpp"
#include "kernels/test/expect_invalid.hpp"
#include "matrices/row_partition.hpp"
#include "solvers/test/distributed_test_cases.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

namespace kbench::dist {
namespace {

using kbench::test::expect_invalid;
using Rows = std::vector<std::vector<std::pair<index_type, double>>>;

Csr<double> from_rows(const Rows& rows, index_type num_cols)
{
    Csr<double> a;
    a.num_rows = static_cast<index_type>(rows.size());
    a.num_cols = num_cols;
    for (const auto& r : rows) {
        for (const auto& [c, v] : r) {
            a.col_idx.push_back(c);
            a.values.push_back(v);
        }
        a.row_ptr.push_back(a.nnz());
    }
    return a;
}

/// y := alpha * A x + beta * y through the split, as DistributedSpmv does it on the GPU.
template <typename T>
void split_apply(const InteriorBoundarySplit<T>& s, T alpha, const T* x, T beta, T* y)
{
    spmv::reference::csr(s.interior.view(), alpha, x, beta, y);
    std::vector<T> t(static_cast<std::size_t>(s.num_boundary()));
    spmv::reference::csr(s.boundary.view(), T(1), x, T(0), t.data());
    detail::reference::scatter_add(alpha, t.data(), s.boundary_rows.data(), s.num_boundary(), y);
}

TEST(InteriorBoundary, SplitsAHandCheckedMatrix)
{
    // 5 rows, 4 owned columns, 2 ghosts (columns 4 and 5).
    const Csr<double> a = from_rows({{{0, 1.0}, {1, 2.0}},           // interior
                                     {},                              // empty: interior
                                     {{2, 3.0}, {4, 4.0}},           // boundary
                                     {{5, 5.0}},                      // boundary, ghosts only
                                     {{0, 6.0}, {3, 7.0}}},           // interior
                                    6);
    const auto s = split_interior_boundary(a, 4);
    EXPECT_EQ(s.num_interior(), 3);
    EXPECT_EQ(s.num_boundary(), 2);
    EXPECT_EQ(s.boundary_rows, (std::vector<index_type>{2, 3}));
    EXPECT_EQ(s.interior.num_rows, 5);
    EXPECT_EQ(s.interior.num_cols, 4);
    EXPECT_EQ(s.interior.row_ptr, (std::vector<index_type>{0, 2, 2, 2, 2, 4}));
    EXPECT_EQ(s.interior.col_idx, (std::vector<index_type>{0, 1, 0, 3}));
    EXPECT_EQ(s.interior.values, (std::vector<double>{1.0, 2.0, 6.0, 7.0}));
    EXPECT_EQ(s.boundary.num_rows, 2);
    EXPECT_EQ(s.boundary.num_cols, 6);
    EXPECT_EQ(s.boundary.row_ptr, (std::vector<index_type>{0, 2, 3}));
    EXPECT_EQ(s.boundary.col_idx, (std::vector<index_type>{2, 4, 5}));
    EXPECT_EQ(s.boundary.values, (std::vector<double>{3.0, 4.0, 5.0}));
    validate(s.interior, "interior");
    validate(s.boundary, "boundary");

    const auto c = interior_boundary_counts(a, 4);
    EXPECT_EQ(c.interior_rows, 3);
    EXPECT_EQ(c.boundary_rows, 2);
    EXPECT_EQ(c.interior_nnz, 4);
    EXPECT_EQ(c.boundary_nnz, 3);

    // y = 2 A x - 0.5 y.
    const std::vector<double> x{1, 2, 3, 4, 5, 6};
    std::vector<double> y{8, 8, 8, 8, 8};
    split_apply(s, 2.0, x.data(), -0.5, y.data());
    EXPECT_EQ(y, (std::vector<double>{10 - 4, -4, 2 * 29.0 - 4, 2 * 30.0 - 4, 2 * 34.0 - 4}));
}

TEST(InteriorBoundary, AllInteriorAndAllBoundary)
{
    const Csr<double> a = from_rows({{{0, 1.0}}, {{0, 2.0}, {1, 3.0}}}, 3);
    const auto interior = split_interior_boundary(a, 3);  // no ghost column at all
    EXPECT_EQ(interior.num_interior(), 2);
    EXPECT_EQ(interior.num_boundary(), 0);
    EXPECT_EQ(interior.boundary.row_ptr, (std::vector<index_type>{0}));
    EXPECT_EQ(interior.interior.col_idx, a.col_idx);
    EXPECT_EQ(interior.interior.num_cols, 3);

    const auto boundary = split_interior_boundary(a, 0);  // every column a ghost
    EXPECT_EQ(boundary.num_interior(), 0);
    EXPECT_EQ(boundary.num_boundary(), 2);
    EXPECT_EQ(boundary.boundary.row_ptr, a.row_ptr);
    EXPECT_EQ(boundary.boundary.col_idx, a.col_idx);
    EXPECT_EQ(boundary.interior.nnz(), 0);
    EXPECT_EQ(boundary.interior.num_cols, 0);

    const auto none = split_interior_boundary(Csr<double>{}, 0);
    EXPECT_EQ(none.interior.num_rows, 0);
    EXPECT_EQ(none.num_boundary(), 0);

    const auto f = split_interior_boundary(a.cast<float>(), 1);
    EXPECT_EQ(f.boundary_rows, (std::vector<index_type>{1}));
}

TEST(InteriorBoundary, ReproducesEveryLocalProductExactly)
{
    long long boundary_rows = 0;  // over every case and part: the scatter-add was exercised
    for (int parts = 1; parts <= 3; ++parts) {
        for (const auto& c : kbench::test::distributed_cases(parts)) {
            const RowDistribution dist = row_distribution(c.a.num_rows, c.part, parts);
            const HaloPlan plan = halo_plan(c.a, c.part, parts, 1);
            const auto x_global = kbench::test::tagged_vector(c.a.num_rows);
            for (int d = 0; d < parts; ++d) {
                SCOPED_TRACE(c.name + ", part " + std::to_string(d) + " of " +
                             std::to_string(parts));
                const LocalMatrix<double> lm = local_matrix(c.a, dist, plan, d);
                const index_type owned = lm.halo.num_owned;
                const auto s = split_interior_boundary(lm.a, owned);
                const auto counts = interior_boundary_counts(lm.a, owned);
                EXPECT_EQ(counts.interior_rows, s.num_interior());
                EXPECT_EQ(counts.boundary_rows, s.num_boundary());
                EXPECT_EQ(counts.interior_nnz, s.interior.nnz());
                EXPECT_EQ(counts.boundary_nnz, s.boundary.nnz());
                EXPECT_EQ(s.interior.nnz() + s.boundary.nnz(), lm.a.nnz());
                // One part: no ghost, every row interior.
                if (parts == 1) {
                    EXPECT_EQ(s.num_boundary(), 0);
                }
                boundary_rows += s.num_boundary();
                // Ghosts exist only for boundary rows.
                EXPECT_EQ(lm.halo.num_ghosts > 0, s.num_boundary() > 0);

                // The local vector with its ghosts filled, as after the exchange.
                std::vector<double> x_ghosted = local_vector(lm.halo, x_global, 0.0);
                for (std::size_t j = 0; j < lm.halo.ghost_global.size(); ++j)
                    x_ghosted[static_cast<std::size_t>(owned) + j] =
                        x_global[static_cast<std::size_t>(lm.halo.ghost_global[j])];
                for (const auto& [alpha, beta] :
                     std::vector<std::pair<double, double>>{{1.0, 0.0}, {2.0, -0.5}, {-1.0, 1.0}}) {
                    std::vector<double> y0(static_cast<std::size_t>(owned));
                    for (index_type i = 0; i < owned; ++i)
                        y0[static_cast<std::size_t>(i)] = std::cos(static_cast<double>(i));
                    std::vector<double> want = y0, got = y0;
                    spmv::reference::csr(lm.a.view(), alpha, x_ghosted.data(), beta, want.data());
                    split_apply(s, alpha, x_ghosted.data(), beta, got.data());
                    for (index_type i = 0; i < owned; ++i)
                        EXPECT_EQ(got[static_cast<std::size_t>(i)],
                                  want[static_cast<std::size_t>(i)])
                            << "row " << i << ", alpha " << alpha << ", beta " << beta;
                }
            }
        }
    }
    EXPECT_GT(boundary_rows, 100);
}

TEST(InteriorBoundary, RejectsBadInput)
{
    const Csr<double> a = from_rows({{{0, 1.0}, {2, 2.0}}}, 3);
    expect_invalid([&] { split_interior_boundary(a, -1); },
                   {"num_owned = -1", "[0, a.num_cols = 3]"});
    expect_invalid([&] { split_interior_boundary(a, 4); }, {"num_owned = 4"});
    expect_invalid([&] { interior_boundary_counts(a, 4); }, {"num_owned = 4"});
    Csr<double> bad = a;
    bad.col_idx = {2, 0};  // not increasing
    expect_invalid([&] { split_interior_boundary(bad, 1); }, {"a:", "not strictly increasing"});
    bad = a;
    bad.row_ptr = {0};
    expect_invalid([&] { interior_boundary_counts(bad, 1); }, {"a:", "row_ptr"});
}

TEST(InteriorBoundary, ScatterAddReferenceFusesTheMultiplyAdd)
{
    const std::vector<double> t{1.0 + 0x1p-30, 3.0};
    const std::vector<index_type> rows{2, 0};
    std::vector<double> y{10.0, 20.0, -(1.0 + 0x1p-29)};
    detail::reference::scatter_add(1.0 + 0x1p-30, t.data(), rows.data(), 2, y.data());
    EXPECT_EQ(y[0], std::fma(1.0 + 0x1p-30, 3.0, 10.0));
    EXPECT_EQ(y[1], 20.0);  // not in rows
    EXPECT_EQ(y[2], 0x1p-60);  // (1 + 2^-30)^2 - (1 + 2^-29) exactly: one rounding
    detail::reference::scatter_add(2.0, t.data(), rows.data(), 0, y.data());  // nothing
    EXPECT_EQ(y[1], 20.0);
}

}  // namespace
}  // namespace kbench::dist
