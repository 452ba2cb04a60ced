// Distributed CA-GMRES on the CPU (solvers/distributed/distributed_ca_gmres.hpp), run by ctest
// under mpiexec with 1, 2 and 3 ranks: the gathered solution, the iteration count and the
// residual history equal the serial ca_gmres_cpu's (solvers/ca_gmres.hpp) with the same options
// (CholQR2 and shifted CholQR3, monomial and Newton, s = 1, 4, 8, m = 16 and 24; two_stage and
// SVQR) on the systems and natural / scattered partitions of distributed_ca_gmres_test_cases.hpp;
// a TSQR that is not Gram-based is rejected on every rank of a run on several (and runs on one);
// bad input throws on every rank; non-finite b is the status non_finite on every rank.
#include "solvers/distributed/distributed_ca_gmres.hpp"

#include "kernels/test/expect_invalid.hpp"
#include "solvers/ca_gmres.hpp"
#include "solvers/distributed/distributed_mpk.hpp"
#include "solvers/test/distributed_ca_gmres_test_cases.hpp"
#include "solvers/test/mpi_gtest.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

namespace kbench::dist {
namespace {

using kbench::test::ca_gmres_cases;
using kbench::test::ca_label;
using kbench::test::ca_option_grid;
using kbench::test::ca_options;
using kbench::test::CaSolve;
using kbench::test::expect_invalid;
using kbench::test::owned_entries;
using kbench::test::tagged_vector;
using kbench::test::world;
using ortho::TsqrMethod;
using solvers::CaBasis;
using solvers::CaBorth;
using solvers::CaGmresOptions;
using solvers::CaGmresResult;
using solvers::SolveStatus;

/// distributed_ca_gmres_cpu from x0 = 0 on an s-step setup of the partition `part`.
CaSolve solve_distributed(const Csr<double>& a, const std::vector<int>& part,
                          const std::vector<double>& b, const CaGmresOptions& o)
{
    return kbench::test::solve_ca_cpu(distribute_mpk(world(), a, part, world().size(), o.s), b, o);
}

/// The distributed solve is the serial one summed in another order (per-rank partial sums,
/// MPI's reduction order; the MPK scales its block after the products instead of step by
/// step). Measured on 1, 2 and 3 ranks over MatchesSerialCaGmres and TwoStageAndSvqrMatchSerial:
/// the same iteration counts, no fallbacks on either side, histories within 1e-12 (absolute, in
/// units of ||b||; the s = 8 monomial basis amplifies the rounding most, the others stay below
/// 1e-14), solutions within 2e-15 of max |x|. Required (expect_same_ca_solve): the same status
/// and fallbacks; iterations within one block (never seen to differ); with the same count,
/// histories within 1e-10 and solutions within 1e-12 of max |x|.
void expect_matches_serial(const kbench::test::DistributedCase& c, const CaGmresOptions& o)
{
    const auto b = tagged_vector(c.a.num_rows);
    std::vector<double> xs(b.size(), 0.0);
    const CaGmresResult serial = solvers::ca_gmres_cpu(c.a, b, xs, o);
    ASSERT_EQ(serial.status, SolveStatus::converged) << serial.detail;
    kbench::test::expect_same_ca_solve(solve_distributed(c.a, c.part, b, o), serial, xs, o, 1e-10,
                                       1e-12);
}

class DistributedCaGmresCpu : public kbench::test::MpiTest {};

TEST_F(DistributedCaGmresCpu, MatchesSerialCaGmres)
{
    for (const auto& c : ca_gmres_cases(world().size()))
        for (const CaGmresOptions& o : ca_option_grid()) {
            SCOPED_TRACE(c.name + ", " + ca_label(o));
            expect_matches_serial(c, o);
        }
}

// Two-stage orthogonalization falls out of the same reductions (stage 1's fused product is one
// all-reduce); SVQR is Gram-based too.
TEST_F(DistributedCaGmresCpu, TwoStageAndSvqrMatchSerial)
{
    CaGmresOptions two = ca_options(4, 24, CaBasis::newton, TsqrMethod::cholqr2);
    two.borth = CaBorth::two_stage;
    const CaGmresOptions svqr = ca_options(4, 16, CaBasis::newton, TsqrMethod::svqr);
    for (const auto& c : ca_gmres_cases(world().size()))
        for (const CaGmresOptions& o : {two, svqr}) {
            SCOPED_TRACE(c.name + ", " + ca_label(o));
            expect_matches_serial(c, o);
        }
}

TEST_F(DistributedCaGmresCpu, TsqrThatIsNotGramBasedIsRejectedOnSeveralRanks)
{
    const auto c = ca_gmres_cases(world().size()).front();
    const auto b = tagged_vector(c.a.num_rows);
    for (const TsqrMethod m :
         {TsqrMethod::mgs, TsqrMethod::cgs, TsqrMethod::cgs2, TsqrMethod::caqr}) {
        for (const bool as_fallback : {false, true}) {
            CaGmresOptions o = ca_options(4, 16, CaBasis::monomial, TsqrMethod::cholqr2);
            (as_fallback ? o.fallback_tsqr : o.tsqr) = m;
            const std::string name = as_fallback ? "fallback_tsqr" : "tsqr";
            SCOPED_TRACE(name + " = " + ortho::to_string(m));
            if (world().size() > 1)
                expect_invalid([&] { (void)solve_distributed(c.a, c.part, b, o); },
                               {"distributed_ca_gmres_cpu", name + " = " + ortho::to_string(m),
                                "Gram-based"});
            else  // one rank: the serial TSQR on the whole block
                expect_matches_serial(c, o);
        }
    }
}

TEST_F(DistributedCaGmresCpu, BadInputThrowsOnEveryRank)
{
    const auto c = ca_gmres_cases(world().size()).front();
    const auto b = tagged_vector(c.a.num_rows);
    CaGmresOptions o = ca_options(4, 16, CaBasis::monomial, TsqrMethod::cholqr2);
    const MpkLocalMatrix<double> local = distribute_mpk(world(), c.a, c.part, world().size(), 2);
    DistributedMpkCpu<double> mpk(world(), local);
    const auto b_local = owned_entries(local.halo, b);
    std::vector<double> x_local(b_local.size(), 0.0);
    expect_invalid([&] { (void)distributed_ca_gmres_cpu(world(), mpk, b_local, x_local, o); },
                   {"distributed_ca_gmres_cpu", "s = 4", "MPK"});
    o.s = 2;
    std::vector<double> short_x(world().rank() == 0 ? x_local.size() + 1 : x_local.size(), 0.0);
    expect_invalid([&] { (void)distributed_ca_gmres_cpu(world(), mpk, b_local, short_x, o); },
                   {"distributed_ca_gmres_cpu", "x_local", "rank 0"});
    o.measure_orthogonality = true;
    expect_invalid([&] { (void)distributed_ca_gmres_cpu(world(), mpk, b_local, x_local, o); },
                   {"measure_orthogonality"});
}

TEST_F(DistributedCaGmresCpu, NonFiniteRightHandSideIsNonFiniteOnEveryRank)
{
    const auto c = ca_gmres_cases(world().size()).front();
    auto b = tagged_vector(c.a.num_rows);
    b[b.size() / 2] = std::numeric_limits<double>::quiet_NaN();
    for (const CaBasis basis : {CaBasis::monomial, CaBasis::newton}) {
        const CaSolve d =
            solve_distributed(c.a, c.part, b, ca_options(4, 16, basis, TsqrMethod::cholqr2));
        EXPECT_EQ(d.result.status, SolveStatus::non_finite) << d.result.detail;
        EXPECT_EQ(world().allreduce_max(static_cast<int>(d.result.status)),
                  world().allreduce_min(static_cast<int>(d.result.status)));
    }
}

}  // namespace
}  // namespace kbench::dist

KBENCH_MPI_TEST_MAIN()
