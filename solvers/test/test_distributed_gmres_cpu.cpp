// Distributed GMRES on the CPU (solvers/distributed/distributed_gmres.hpp), run by ctest under
// mpiexec with 1, 2 and 3 ranks: the gathered solution equals the serial gmres_cpu's on the
// explicitly Jacobi-scaled system D^-1 A x = D^-1 b (contiguous, scattered and empty parts; MGS,
// CGS2 and the one-reduce CGS2), the paper's setup converges, non-finite input and bad diagonals are reported on
// every rank, and detailed runs name their phases without changing the numbers.
#include "solvers/distributed/distributed_gmres.hpp"

#include "kernels/spmv.hpp"
#include "kernels/test/expect_invalid.hpp"
#include "solvers/distributed/communicator.hpp"
#include "solvers/distributed/distributed_spmv.hpp"
#include "solvers/distributed/row_distribution.hpp"
#include "solvers/gmres.hpp"
#include "solvers/test/distributed_gmres_test_cases.hpp"
#include "solvers/test/mpi_gtest.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace kbench::dist {
namespace {

using kbench::test::expect_invalid;
using kbench::test::expect_same_solve;
using kbench::test::gmres_cases;
using kbench::test::max_abs_diff;
using kbench::test::owned_entries;
using kbench::test::paper_options;
using kbench::test::Solve;
using kbench::test::solve_distributed_cpu;
using kbench::test::tagged_vector;
using kbench::test::world;
using solvers::ArnoldiOrth;
using solvers::GmresOptions;
using solvers::SolveResult;
using solvers::SolveStatus;

/// D^-1 A and D^-1 b, D = diag(A) (every diagonal entry of the test matrices is stored).
std::pair<Csr<double>, std::vector<double>> jacobi_scaled(const Csr<double>& a,
                                                          std::vector<double> b)
{
    Csr<double> s = a;
    for (index_type i = 0; i < a.num_rows; ++i) {
        double diag = 0.0;
        for (index_type k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k)
            if (a.col_idx[k] == i) diag = a.values[k];
        for (index_type k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) s.values[k] /= diag;
        b[static_cast<std::size_t>(i)] /= diag;
    }
    return {s, b};
}

/// One distributed solve from x0 = 0 of A x = b on the partition `part`.
Solve solve_distributed(const Csr<double>& a, const std::vector<int>& part,
                        const std::vector<double>& b, const GmresOptions& o, Preconditioner p,
                        bool detailed = false)
{
    return solve_distributed_cpu(distribute(world(), a, part, world().size()), b, o, p, detailed);
}

/// The case of that name among gmres_cases (e.g. "convection_diffusion_24x19/scattered").
kbench::test::DistributedCase named_case(const std::string& name)
{
    for (auto& c : gmres_cases(world().size()))
        if (c.name == name) return c;
    throw std::logic_error("no test case " + name);
}

class DistributedGmresCpu : public kbench::test::MpiTest {};

// The distributed Jacobi-preconditioned solve is the serial solve of the scaled system
// D^-1 A x = D^-1 b (whose residual history is ||D^-1 (b - A x)|| / ||D^-1 b||, the paper's
// test), run in another order of summation: per-rank partial sums, MPI's reduction order, plain
// loops instead of Eigen's vectorized ones.
TEST_F(DistributedGmresCpu, JacobiMatchesSerialGmresOnTheScaledSystem)
{
    for (const ArnoldiOrth orth :
         {ArnoldiOrth::mgs, ArnoldiOrth::cgs2, ArnoldiOrth::cgs2_lowsync}) {
        const GmresOptions o = paper_options(orth, 1e-10);
        for (const auto& c : gmres_cases(world().size())) {
            SCOPED_TRACE(c.name + ", " + solvers::to_string(orth));
            const auto b = tagged_vector(c.a.num_rows);
            const auto [as, bs] = jacobi_scaled(c.a, b);
            std::vector<double> xs(bs.size(), 0.0);
            const SolveResult serial = solvers::gmres_cpu(as, bs, xs, o);
            ASSERT_EQ(serial.status, SolveStatus::converged);
            const Solve d = solve_distributed(c.a, c.part, b, o, Preconditioner::jacobi);
            expect_same_solve(d.result, d.x, serial, xs, o.tolerance);
        }
    }
}

// Without a preconditioner the solve is the serial one on A itself.
TEST_F(DistributedGmresCpu, NoPreconditionerMatchesSerialGmres)
{
    for (const ArnoldiOrth orth : {ArnoldiOrth::cgs2, ArnoldiOrth::cgs2_lowsync}) {
        const GmresOptions o = paper_options(orth, 1e-10);
        for (const auto& c : gmres_cases(world().size())) {
            SCOPED_TRACE(c.name + ", " + solvers::to_string(orth));
            const auto b = tagged_vector(c.a.num_rows);
            std::vector<double> xs(b.size(), 0.0);
            const SolveResult serial = solvers::gmres_cpu(c.a, b, xs, o);
            ASSERT_EQ(serial.status, SolveStatus::converged);
            const Solve d = solve_distributed(c.a, c.part, b, o, Preconditioner::none);
            expect_same_solve(d.result, d.x, serial, xs, o.tolerance);
        }
    }
}

// zianekhodja2014 Sec. 5.2: m = 16, tolerance 1e-12, at most 500 iterations, MGS, x0 = 0,
// b = 1, M = diag(A); on a replicated matrix (Sec. 5.2's generator) of 3,040 rows.
TEST_F(DistributedGmresCpu, PaperSetupConverges)
{
    const Csr<double> a = replicate(convection_diffusion(16, 19, 1, 30.0, -15.0, 0.0), 3000,
                                    ReplicationLayout::diagonal);
    const std::vector<double> ones(static_cast<std::size_t>(a.num_rows), 1.0);
    const Solve d = solve_distributed(a, block_partition(a.num_rows, world().size()), ones,
                                      paper_options(), Preconditioner::jacobi);
    EXPECT_EQ(d.result.status, SolveStatus::converged) << d.result.detail;
    EXPECT_LE(d.result.true_residual, 1e-12);
    EXPECT_LT(d.result.iterations, 500);
    // The true residual of the unscaled system is small too.
    std::vector<double> ax(ones.size());
    spmv::reference::csr(a.view(), 1.0, d.x.data(), 0.0, ax.data());
    EXPECT_LE(max_abs_diff(ax, ones), 1e-9);
}

TEST_F(DistributedGmresCpu, NonFiniteRightHandSideStopsEveryRank)
{
    for (const auto& c : gmres_cases(world().size())) {
        SCOPED_TRACE(c.name);
        auto b = tagged_vector(c.a.num_rows);
        b[123] = std::numeric_limits<double>::quiet_NaN();  // owned by one rank only
        for (const Preconditioner p : {Preconditioner::none, Preconditioner::jacobi}) {
            const Solve d = solve_distributed(c.a, c.part, b, paper_options(), p);
            EXPECT_EQ(d.result.status, SolveStatus::non_finite) << d.result.detail;
            EXPECT_EQ(d.result.iterations, 0);
        }
    }
}

TEST_F(DistributedGmresCpu, ZeroOrNonFiniteDiagonalThrowsOnEveryRankNamingTheRow)
{
    const auto c = named_case("convection_diffusion_24x19/scattered");
    for (const double bad : {0.0, std::numeric_limits<double>::infinity()}) {
        SCOPED_TRACE(c.name);
        Csr<double> a = c.a;
        for (index_type k = a.row_ptr[300]; k < a.row_ptr[301]; ++k)
            if (a.col_idx[k] == 300) a.values[k] = bad;
        const LocalMatrix<double> lm = distribute(world(), a, c.part, world().size());
        DistributedSpmvCpu<double> spmv(world(), lm);
        const auto b_local = owned_entries(lm.halo, tagged_vector(a.num_rows));
        std::vector<double> x_local(b_local.size(), 0.0);
        expect_invalid(
            [&] {
                distributed_gmres_cpu(world(), spmv, b_local, x_local, paper_options(),
                                      Preconditioner::jacobi);
            },
            {"distributed_gmres_cpu", "jacobi", "global row 300"});
        // Without the preconditioner the diagonal is not needed (a zero diagonal is no error).
        if (bad == 0.0) {
            EXPECT_NO_THROW(distributed_gmres_cpu(world(), spmv, b_local, x_local,
                                                  paper_options(), Preconditioner::none));
        }
    }
}

TEST_F(DistributedGmresCpu, BadArgumentsThrowOnEveryRank)
{
    const auto c = named_case("convection_diffusion_24x19/natural");
    const LocalMatrix<double> lm = distribute(world(), c.a, c.part, world().size());
    DistributedSpmvCpu<double> spmv(world(), lm);
    const auto b_local = owned_entries(lm.halo, tagged_vector(c.a.num_rows));
    std::vector<double> x_local(b_local.size(), 0.0);
    GmresOptions bad = paper_options();
    bad.restart = 0;
    expect_invalid(
        [&] {
            distributed_gmres_cpu(world(), spmv, b_local, x_local, bad, Preconditioner::none);
        },
        {"distributed_gmres_cpu", "restart = 0"});
    // A wrong size on the last rank only: every rank throws its message.
    const int last = world().size() - 1;
    std::vector<double> x_wrong = x_local;
    if (world().rank() == last) x_wrong.push_back(0.0);
    expect_invalid(
        [&] {
            distributed_gmres_cpu(world(), spmv, b_local, x_wrong, paper_options(),
                                  Preconditioner::none);
        },
        {"distributed_gmres_cpu", "x_local", "rank " + std::to_string(last)});
    EXPECT_EQ(parse_preconditioner("jacobi"), Preconditioner::jacobi);
    EXPECT_STREQ(to_string(Preconditioner::none), "none");
    expect_invalid([] { parse_preconditioner("ilu"); }, {"'ilu'", "none", "jacobi"});
}

// A detailed run reports the phases of distributed_gmres.hpp (names, groups, counts that follow
// from the steps) within the solve's time, and computes the same bits as a plain run.
// The one-reduce step applies M^-1 A inside its orthogonalization: its detailed phases count
// that SpMV, halo exchange and preconditioner under their own names, not again under orth (the
// phases still sum to no more than the solve), and it reduces once per step (twice in a cycle's
// first step, and where the Pythagorean norm cancels) plus once per residual.
TEST_F(DistributedGmresCpu, OneReduceDetailedRunCountsEachPhaseOnce)
{
    const auto c = named_case("replicated_convection_diffusion_8x19/scattered");
    const auto b = tagged_vector(c.a.num_rows);
    const GmresOptions o = paper_options(ArnoldiOrth::cgs2_lowsync, 1e-10);
    const Solve plain = solve_distributed(c.a, c.part, b, o, Preconditioner::jacobi);
    const Solve detailed = solve_distributed(c.a, c.part, b, o, Preconditioner::jacobi, true);
    EXPECT_EQ(detailed.x, plain.x);
    EXPECT_EQ(detailed.result.residual_history, plain.result.residual_history);
    const auto& phases = detailed.result.phases;
    ASSERT_EQ(phases.size(), 6u);
    double total = 0.0;
    for (const auto& p : phases) total += p.seconds;
    EXPECT_LE(total, detailed.result.seconds * 1.05 + 1e-4);
    const int steps = detailed.result.iterations;
    const int cycles = (steps + o.restart - 1) / o.restart;
    EXPECT_EQ(phases[0].name, "spmv");
    EXPECT_GE(phases[0].calls, steps + cycles);  // one per step, one per residual
    EXPECT_EQ(phases[4].name, "reductions");
    EXPECT_GE(phases[4].calls, steps + 2 * cycles);
    EXPECT_LE(phases[4].calls, 2 * steps + 2 * cycles);
}

TEST_F(DistributedGmresCpu, DetailedRunNamesItsPhasesAndKeepsTheNumbers)
{
    const auto c = named_case("replicated_convection_diffusion_8x19/scattered");
    const auto b = tagged_vector(c.a.num_rows);
    for (const ArnoldiOrth orth : {ArnoldiOrth::mgs, ArnoldiOrth::cgs2}) {
        SCOPED_TRACE(solvers::to_string(orth));
        const GmresOptions o = paper_options(orth, 1e-10);
        const Solve plain = solve_distributed(c.a, c.part, b, o, Preconditioner::jacobi);
        const Solve detailed = solve_distributed(c.a, c.part, b, o, Preconditioner::jacobi, true);
        EXPECT_TRUE(plain.result.phases.empty());
        EXPECT_EQ(detailed.x, plain.x);
        EXPECT_EQ(detailed.result.residual_history, plain.result.residual_history);

        const auto& phases = detailed.result.phases;
        std::vector<std::string> names;
        double total = 0.0;
        for (const auto& p : phases) {
            names.push_back(p.name);
            EXPECT_GE(p.seconds, 0.0) << p.name;
            EXPECT_EQ(p.group, p.name == "halo" || p.name == "reductions" ? "communication"
                                                                           : "computation");
            total += p.seconds;
        }
        EXPECT_EQ(names, (std::vector<std::string>{"spmv", "halo", "precond", "orth",
                                                   "reductions", "update"}));
        EXPECT_LE(total, detailed.result.seconds * 1.05 + 1e-4);
        // One SpMV (and halo exchange) per step and per residual: the first and one per cycle
        // (the final check is not counted). Reductions: per step 3 (CGS2) or j + 2 (MGS), one
        // per residual.
        const int steps = detailed.result.iterations;
        const int cycles = (steps + o.restart - 1) / o.restart;
        ASSERT_EQ(phases.size(), 6u);
        EXPECT_EQ(phases[0].calls, steps + 1 + cycles);
        EXPECT_EQ(phases[1].calls, steps + 1 + cycles);
        int reductions = 1 + cycles;
        for (int i = 0; i < steps; ++i)
            reductions += orth == ArnoldiOrth::cgs2 ? 3 : (i % o.restart) + 2;
        EXPECT_EQ(phases[4].calls, reductions);
    }
}

}  // namespace
}  // namespace kbench::dist

KBENCH_MPI_TEST_MAIN()
