// Helpers shared by the CA-GMRES CPU test files (test_ca_gmres_cpu.cpp,
// test_ca_gmres_host_pieces.cpp, test_ca_gmres_two_stage_cpu.cpp; one executable,
// test_ca_gmres_cpu): the names they use unqualified, the convection-diffusion test matrix, a
// solve with ca_gmres_cpu from x0 = 0 and the invariants every result keeps. What the CPU and GPU
// tests share is in ca_gmres_test_util.hpp.
#pragma once

#include "kernels/test/expect_invalid.hpp"
#include "matrices/csr.hpp"
#include "matrices/generators.hpp"
#include "solvers/ca_gmres.hpp"
#include "solvers/test/gmres_test_matrices.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstddef>
#include <vector>

namespace kbench::solvers::test_util {

// The names the CPU test files use unqualified (each file says `using namespace test_util;`).
using cd = std::complex<double>;
using test::smooth_rhs;
using test::unit_rhs;
using ortho::TsqrMethod;
using ::kbench::test::expect_invalid;

/// The nx^2-row 2D convection-diffusion matrix of the tests (nonsymmetric).
inline Csr<double> convection(index_type nx)
{
    return convection_diffusion(nx, nx, 1, 20.0, -10.0, 0.0);
}

/// Solves with ca_gmres_cpu from x0 = 0.
template <typename T>
CaGmresResult solve(const Csr<T>& a, const std::vector<T>& b, const CaGmresOptions& o,
                    std::vector<T>* x_out = nullptr)
{
    std::vector<T> x(b.size(), T(0));
    CaGmresResult r = ca_gmres_cpu(a, b, x, o);
    if (x_out) *x_out = x;
    return r;
}

/// The invariants every result keeps.
inline void expect_consistent(const CaGmresResult& r)
{
    ASSERT_EQ(r.residual_history.size(), r.history_iterations.size());
    ASSERT_FALSE(r.residual_history.empty());
    EXPECT_EQ(r.history_iterations.front(), 0);
    EXPECT_EQ(r.history_iterations.back(), r.iterations);
    for (std::size_t i = 1; i < r.history_iterations.size(); ++i)
        EXPECT_GT(r.history_iterations[i], r.history_iterations[i - 1]) << i;
    for (double h : r.residual_history) EXPECT_TRUE(std::isfinite(h));
    EXPECT_EQ(static_cast<int>(r.gram_condition.size()), r.restarts);
    EXPECT_EQ(static_cast<int>(r.restart_seconds.size()), r.restarts);
    double cycles = 0.0;
    for (double t : r.restart_seconds) {
        EXPECT_GE(t, 0.0);
        cycles += t;
    }
    EXPECT_LE(cycles, r.seconds);
    EXPECT_TRUE(std::isfinite(r.true_residual));
}

}  // namespace kbench::solvers::test_util
