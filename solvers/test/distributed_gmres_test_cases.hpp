// Systems, options and checks shared by the tests of distributed GMRES
// (test_distributed_gmres_cpu.cpp, test_distributed_gmres_gpu.cpp): every rank builds the same
// cases, deterministically.
#pragma once

#include "matrices/csr.hpp"
#include "matrices/generators.hpp"
#include "solvers/distributed/distributed_gmres.hpp"
#include "solvers/distributed/distributed_spmv.hpp"
#include "solvers/distributed/row_distribution.hpp"
#include "solvers/gmres.hpp"
#include "solvers/solve_result.hpp"
#include "solvers/test/distributed_test_cases.hpp"
#include "solvers/test/mpi_gtest.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace kbench::test {

/// Two nonsymmetric systems of 456 rows: a 2D convection-diffusion operator on 24 x 19 (w =
/// (30, -15), cell Peclet number 0.67) and the zianekhodja2014 replication (Sec. 5.2, diagonal
/// layout) of one on 8 x 19 to 3 copies, each under the partitions distributed_cases gives
/// the 456 rows of its 2D Laplacian: natural blocks, a scattered one (no part contiguous),
/// METIS k-way when built, and for parts >= 2 one that leaves the last part empty.
inline std::vector<DistributedCase> gmres_cases(int parts)
{
    const std::vector<std::pair<std::string, Csr<double>>> matrices = {
        {"convection_diffusion_24x19", convection_diffusion(24, 19, 1, 30.0, -15.0, 0.0)},
        {"replicated_convection_diffusion_8x19",
         replicate(convection_diffusion(8, 19, 1, 30.0, -15.0, 0.0), 456,
                   ReplicationLayout::diagonal)}};
    std::vector<DistributedCase> out;
    for (const auto& c : distributed_cases(parts)) {
        if (c.a.num_rows != 456) continue;  // the Laplacian's partitions
        const std::string partition = c.name.substr(c.name.find('/'));
        for (const auto& [name, a] : matrices) out.push_back({name + partition, a, c.part});
    }
    return out;
}

/// The paper's setup (zianekhodja2014 Sec. 5.2): m = 16, at most 500 iterations, tolerance
/// `tolerance` (the paper's 1e-12 by default), MGS unless told.
inline solvers::GmresOptions paper_options(solvers::ArnoldiOrth orth = solvers::ArnoldiOrth::mgs,
                                           double tolerance = 1e-12)
{
    solvers::GmresOptions o;
    o.restart = 16;
    o.max_iterations = 500;
    o.tolerance = tolerance;
    o.orth = orth;
    return o;
}

/// The owned entries of a global vector on this part (num_owned, local order).
inline std::vector<double> owned_entries(const dist::HaloLayout& layout,
                                         const std::vector<double>& global)
{
    auto local = dist::local_vector(layout, global);
    local.resize(static_cast<std::size_t>(layout.num_owned));
    return local;
}

/// A solve's result and its solution gathered in global order.
struct Solve {
    solvers::SolveResult result;
    std::vector<double> x;
};

/// distributed_gmres_cpu on the world communicator from x0 = 0 (b: global, n entries).
inline Solve solve_distributed_cpu(const dist::LocalMatrix<double>& lm,
                                   const std::vector<double>& b, const solvers::GmresOptions& o,
                                   dist::Preconditioner p, bool detailed = false)
{
    dist::DistributedSpmvCpu<double> spmv(world(), lm);
    const auto b_local = owned_entries(lm.halo, b);
    std::vector<double> x_local(b_local.size(), 0.0);
    Solve s;
    s.result = dist::distributed_gmres_cpu(world(), spmv, b_local, x_local, o, p, detailed);
    s.x = dist::allgather(world(), lm.halo, x_local, lm.global_rows);
    return s;
}

inline double max_abs(const std::vector<double>& v)
{
    double m = 0.0;
    for (const double e : v) m = std::max(m, std::abs(e));
    return m;
}

inline double max_abs_diff(const std::vector<double>& u, const std::vector<double>& v)
{
    double m = 0.0;
    for (std::size_t i = 0; i < u.size(); ++i) m = std::max(m, std::abs(u[i] - v[i]));
    return m;
}

/// Expects two solves of one system by the same iteration, summed in other orders, to agree:
/// both meet the stopping test; the Givens estimates agree to rounding level (measured: <= 2e-14
/// of ||M^-1 b||), so they cross the tolerance in the same step unless one lies within that of
/// it, when the counts may differ by one (allowed, never seen here); with the same count the
/// solutions agree to rounding growth (measured: <= 2e-15 of max |x|; 1e-11 required) and the
/// histories to 1e-12 (absolute, in units of ||M^-1 b||).
inline void expect_same_solve(const solvers::SolveResult& got, const std::vector<double>& x,
                              const solvers::SolveResult& expected,
                              const std::vector<double>& x_expected, double tolerance)
{
    EXPECT_EQ(got.status, expected.status) << got.detail;
    EXPECT_LE(got.true_residual, tolerance);
    EXPECT_LE(std::abs(got.iterations - expected.iterations), 1);
    if (got.iterations != expected.iterations) return;
    EXPECT_LE(max_abs_diff(x, x_expected), 1e-11 * max_abs(x_expected));
    ASSERT_EQ(got.residual_history.size(), expected.residual_history.size());
    for (std::size_t i = 0; i < got.residual_history.size(); ++i)
        EXPECT_NEAR(got.residual_history[i], expected.residual_history[i], 1e-12)
            << "step " << i;
}

}  // namespace kbench::test
