// Systems, options and checks shared by the tests of distributed CA-GMRES
// (test_distributed_ca_gmres_cpu.cpp, test_distributed_ca_gmres_gpu.cpp): every rank builds the
// same cases, deterministically.
#pragma once

#include "solvers/ca_gmres.hpp"
#include "solvers/distributed/distributed_ca_gmres.hpp"
#include "solvers/distributed/distributed_mpk.hpp"
#include "solvers/distributed/distributed_spmv.hpp"
#include "solvers/test/distributed_gmres_test_cases.hpp"
#include "solvers/test/mpi_gtest.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace kbench::test {

/// The natural and scattered partitions of gmres_cases (two nonsymmetric systems of 456 rows).
inline std::vector<DistributedCase> ca_gmres_cases(int parts)
{
    std::vector<DistributedCase> out;
    for (auto& c : gmres_cases(parts))
        if (c.name.find("/natural") != std::string::npos ||
            c.name.find("/scattered") != std::string::npos)
            out.push_back(c);
    return out;
}

/// CA-GMRES(s, m) with the given basis and TSQR, a Gram-based fallback (shifted CholQR3),
/// tolerance 1e-8, at most 400 iterations.
inline solvers::CaGmresOptions ca_options(int s, int m, solvers::CaBasis basis,
                                          ortho::TsqrMethod tsqr)
{
    solvers::CaGmresOptions o;
    o.s = s;
    o.restart = m;
    o.basis = basis;
    o.tsqr = tsqr;
    o.fallback_tsqr = ortho::TsqrMethod::shifted_cholqr3;
    o.tolerance = 1e-8;
    o.max_iterations = 400;
    return o;
}

/// The option grid of the comparisons: CholQR2 and shifted CholQR3, monomial and Newton,
/// s = 1, 4 (m = 16) and 8 (m = 24).
inline std::vector<solvers::CaGmresOptions> ca_option_grid()
{
    std::vector<solvers::CaGmresOptions> all;
    for (const auto tsqr : {ortho::TsqrMethod::cholqr2, ortho::TsqrMethod::shifted_cholqr3})
        for (const auto basis : {solvers::CaBasis::monomial, solvers::CaBasis::newton})
            for (const int s : {1, 4, 8})
                all.push_back(ca_options(s, s == 8 ? 24 : 16, basis, tsqr));
    return all;
}

/// "CA-GMRES(s, m), basis, tsqr, borth" for SCOPED_TRACE.
inline std::string ca_label(const solvers::CaGmresOptions& o)
{
    return "CA-GMRES(" + std::to_string(o.s) + ", " + std::to_string(o.restart) + "), " +
           solvers::to_string(o.basis) + ", " + ortho::to_string(o.tsqr) + ", " +
           solvers::to_string(o.borth);
}

/// A CA-GMRES solve's result and its solution gathered in global order.
struct CaSolve {
    solvers::CaGmresResult result;
    std::vector<double> x;
};

/// distributed_ca_gmres_cpu on the world communicator from x0 = 0 (b: global).
inline CaSolve solve_ca_cpu(const dist::MpkLocalMatrix<double>& local,
                            const std::vector<double>& b, const solvers::CaGmresOptions& o)
{
    dist::DistributedMpkCpu<double> mpk(world(), local);
    const auto b_local = owned_entries(local.halo, b);
    std::vector<double> x_local(b_local.size(), 0.0);
    CaSolve s;
    s.result = dist::distributed_ca_gmres_cpu(world(), mpk, b_local, x_local, o);
    s.x = dist::allgather(world(), local.halo, x_local, local.global_rows);
    return s;
}

/// Expects two solves by the same iteration, summed in other orders, to agree: the same status
/// and fallbacks, true residuals within the tolerance, iterations within one block (s: an
/// estimate within rounding of the tolerance may cross it a block later); with the same count
/// the same history iterations, histories within history_tol (absolute, units of ||b||) and
/// solutions within x_tol of max |x|.
/// The largest deviations expect_same_ca_solve measured: of the residual histories (units of
/// ||b||) and of the solutions (relative to max |x|); 0 for runs of other iteration counts.
struct CaDeviation {
    double history = 0.0;
    double x = 0.0;
};

inline CaDeviation expect_same_ca_solve(const CaSolve& got,
                                        const solvers::CaGmresResult& expected,
                                        const std::vector<double>& x_expected,
                                        const solvers::CaGmresOptions& o, double history_tol,
                                        double x_tol)
{
    EXPECT_EQ(got.result.status, expected.status) << got.result.detail;
    EXPECT_LE(got.result.true_residual, o.tolerance);
    EXPECT_LE(std::abs(got.result.iterations - expected.iterations), o.s);
    EXPECT_EQ(got.result.tsqr_fallbacks, expected.tsqr_fallbacks);
    CaDeviation d;
    if (got.result.iterations != expected.iterations) return d;
    d.x = max_abs_diff(got.x, x_expected) / std::max(max_abs(x_expected), 1e-300);
    EXPECT_LE(d.x, x_tol);
    EXPECT_EQ(got.result.residual_history.size(), expected.residual_history.size());
    EXPECT_EQ(got.result.history_iterations, expected.history_iterations);
    const std::size_t n =
        std::min(got.result.residual_history.size(), expected.residual_history.size());
    for (std::size_t i = 0; i < n; ++i) {
        const double e = std::abs(got.result.residual_history[i] - expected.residual_history[i]);
        d.history = std::max(d.history, e);
        EXPECT_LE(e, history_tol) << "entry " << i;
    }
    return d;
}

}  // namespace kbench::test
