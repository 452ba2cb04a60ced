// The matrix powers kernel on several ranks, on the CPU (solvers/distributed/distributed_mpk.hpp),
// run by ctest under mpiexec with 1, 2 and 3 ranks: every rank's owned entries of v_2..v_{s+1}
// against the serial reference::matrix_powers of solvers/ca_gmres.hpp on the matrices and
// partitions of distributed_test_cases.hpp, monomial and Newton (a real shift and a
// complex-conjugate pair), s from 1 to beyond the graph's diameter and calls of fewer steps than
// the setup's s; one exchange per call whose words and messages are the s-step HaloPlan's; the
// local sizes against mpk_part_counts (the model's counts); bad input throws on every rank.
#include "solvers/distributed/distributed_mpk.hpp"

#include "kernels/test/expect_invalid.hpp"
#include "matrices/row_partition.hpp"
#include "solvers/ca_gmres.hpp"
#include "solvers/test/distributed_test_cases.hpp"
#include "solvers/test/mpi_gtest.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <string>
#include <vector>

namespace kbench::dist {
namespace {

using kbench::test::DistributedCase;
using kbench::test::distributed_cases;
using kbench::test::expect_invalid;
using kbench::test::MpiTest;
using kbench::test::tagged_vector;
using kbench::test::world;

/// Monomial steps: k times {0, 0}.
std::vector<MpkStep> monomial(int k) { return std::vector<MpkStep>(static_cast<std::size_t>(k)); }

/// Newton steps from a real shift and a complex-conjugate pair (Leja ordered, cycled), in the
/// spectrum of the test matrices (the 2D Laplacian's lies in [0, 8]).
std::vector<MpkStep> newton(int k)
{
    using c = std::complex<double>;
    return solvers::newton_steps(solvers::leja_order({c(3.0, 2.5), c(3.0, -2.5), c(1.0, 0.0)}),
                                 k);
}

/// v_1 (global): the tagged vector scaled to a largest entry of 1.
std::vector<double> start_vector(index_type n)
{
    std::vector<double> x = tagged_vector(n);
    const double m = *std::max_element(x.begin(), x.end());
    for (double& v : x) v /= m;
    return x;
}

/// The serial block [v_1 .. v_{k+1}] (n x (k + 1), column-major) of reference::matrix_powers.
std::vector<double> serial_block(const Csr<double>& a, const std::vector<MpkStep>& steps,
                                 const std::vector<double>& v1)
{
    const auto n = static_cast<std::size_t>(a.num_rows);
    std::vector<double> V(n * (steps.size() + 1), 0.0);
    std::copy(v1.begin(), v1.end(), V.begin());
    solvers::reference::matrix_powers(a, steps, static_cast<int>(steps.size()), false, V.data(),
                                      a.num_rows, static_cast<double*>(nullptr));
    return V;
}

/// Runs one MPK call of `steps` on an s-step setup of case c and expects this rank's columns
/// to match the serial block to `tol` relative to each column's largest entry (over all rows).
template <typename T>
void expect_matches_serial(const DistributedCase& c, int s, const std::vector<MpkStep>& steps,
                           double tol)
{
    const int np = world().size();
    const Csr<T> a = c.a.template cast<T>();
    const MpkLocalMatrix<T> local = distribute_mpk(world(), a, c.part, np, s);
    DistributedMpkCpu<T> mpk(world(), local);
    const std::vector<double> v1 = start_vector(c.a.num_rows);
    const index_type owned = local.num_owned();
    const std::int64_t ld = std::max<index_type>(owned, 1);
    const std::size_t k = steps.size();
    std::vector<T> V(static_cast<std::size_t>(ld) * (k + 1), T(0));
    for (index_type i = 0; i < owned; ++i)
        V[static_cast<std::size_t>(i)] =
            static_cast<T>(v1[static_cast<std::size_t>(local.halo.owned_global[i])]);
    mpk.apply(steps, V.data(), ld);

    const std::vector<double> ref = serial_block(c.a, steps, v1);
    const auto n = static_cast<std::size_t>(c.a.num_rows);
    for (std::size_t j = 1; j <= k; ++j) {
        double scale = 0.0;
        for (std::size_t r = 0; r < n; ++r) scale = std::max(scale, std::abs(ref[j * n + r]));
        double err = 0.0;
        for (index_type i = 0; i < owned; ++i) {
            const auto g = static_cast<std::size_t>(local.halo.owned_global[i]);
            err = std::max(err, std::abs(static_cast<double>(
                                    V[j * static_cast<std::size_t>(ld) + i]) - ref[j * n + g]));
        }
        EXPECT_LE(err, tol * scale) << c.name << ", s = " << s << ", " << k << " steps, column "
                                    << j << " (scale " << scale << ")";
    }
    EXPECT_EQ(mpk.counters().exchanges, 1) << c.name;
}

// ---- Against the serial MPK -------------------------------------------------------------------

class DistributedMpkTest : public MpiTest {};

TEST_F(DistributedMpkTest, MonomialEqualsTheSerialMatrixPowers)
{
    // s = 45 exceeds the diameter of the 24 x 19 grid (41) and of the random matrix's graph:
    // every part then holds every row it can reach, and the outer distances are empty.
    for (const auto& c : distributed_cases(world().size()))
        for (const int s : {1, 2, 3, 7, 45})
            expect_matches_serial<double>(c, s, monomial(s), 1e-12);
}

TEST_F(DistributedMpkTest, NewtonWithAComplexPairEqualsTheSerialMatrixPowers)
{
    for (const auto& c : distributed_cases(world().size()))
        for (const int s : {2, 3, 6, 45}) {
            const auto steps = newton(s);
            ASSERT_GT(steps[1].b2, 0.0) << "the test needs the conjugate pair's second step";
            expect_matches_serial<double>(c, s, steps, 1e-11);
        }
}

TEST_F(DistributedMpkTest, ACallOfFewerStepsThanTheSetupUsesTheLastLevels)
{
    for (const auto& c : distributed_cases(world().size())) {
        expect_matches_serial<double>(c, 5, monomial(1), 1e-12);
        expect_matches_serial<double>(c, 5, newton(3), 1e-12);
    }
}

TEST_F(DistributedMpkTest, SinglePrecision)
{
    for (const auto& c : distributed_cases(world().size()))
        expect_matches_serial<float>(c, 4, newton(4), 2e-5);
}

TEST_F(DistributedMpkTest, RepeatedCallsGiveTheSameBlock)
{
    const auto c = distributed_cases(world().size()).back();
    const MpkLocalMatrix<double> local = distribute_mpk(world(), c.a, c.part, world().size(), 4);
    DistributedMpkCpu<double> mpk(world(), local);
    const std::int64_t ld = std::max<index_type>(local.num_owned(), 1);
    std::vector<double> first(static_cast<std::size_t>(ld) * 5, 0.5), second = first;
    mpk.apply(newton(4), first.data(), ld);
    mpk.apply(newton(4), second.data(), ld);
    EXPECT_EQ(first, second);
    EXPECT_EQ(mpk.counters().exchanges, 2);
}

// ---- Communication: one exchange of delta^(d,1:s) ---------------------------------------------

TEST_F(DistributedMpkTest, OneExchangePerCallWithThePlansWordsAndMessages)
{
    const int np = world().size(), d = world().rank();
    for (const auto& c : distributed_cases(np))
        for (const int s : {1, 3, 45}) {
            const HaloPlan plan = halo_plan(c.a, c.part, np, s);
            const MpkLocalMatrix<double> local = distribute_mpk(world(), c.a, c.part, np, s);
            DistributedMpkCpu<double> mpk(world(), local);
            const std::int64_t ld = std::max<index_type>(local.num_owned(), 1);
            std::vector<double> V(static_cast<std::size_t>(ld) * (s + 1), 1.0);
            for (int call = 1; call <= 3; ++call) mpk.apply(monomial(s), V.data(), ld);
            const ExchangeCounters& k = mpk.counters();
            EXPECT_EQ(k.exchanges, 3) << c.name;
            const auto words = static_cast<std::int64_t>(3 * sizeof(double));
            EXPECT_EQ(k.bytes_received, words * plan.received(d)) << c.name;
            EXPECT_EQ(k.bytes_sent, words * plan.sent(d)) << c.name;
            EXPECT_EQ(k.messages_received, 3 * plan.neighbours(d)) << c.name << ", s = " << s;
            EXPECT_EQ(local.num_ghosts(), plan.received(d));
            // products() alone communicates nothing.
            mpk.reset_counters();
            mpk.products(monomial(s), V.data(), ld);
            EXPECT_EQ(mpk.counters(), ExchangeCounters{});
        }
}

TEST_F(DistributedMpkTest, LocalSizesAreTheModelsCounts)
{
    const int np = world().size(), d = world().rank();
    for (const auto& c : distributed_cases(np))
        for (const int s : {1, 2, 5}) {
            const auto sets = mpk_index_sets(c.a, c.part, np, s);
            const MpkPartCounts counts = mpk_part_counts(
                c.a, sets, halo_plan(c.a, c.part, np, 1))[static_cast<std::size_t>(d)];
            const MpkLocalMatrix<double> local = distribute_mpk(world(), c.a, c.part, np, s);
            EXPECT_EQ(local.a_own.nnz(), counts.own_nnz) << c.name;
            EXPECT_EQ(local.num_ghosts(), counts.boundary_rows.front()) << c.name;
            // k = 1..s: |delta^(d,k:s)| = ghost_offsets[s - k + 1].
            for (int k = 1; k <= s; ++k)
                EXPECT_EQ(local.ghost_offsets[static_cast<std::size_t>(s - k + 1)],
                          counts.boundary_rows[static_cast<std::size_t>(k - 1)]);
            // Nonzeros of one call: s nnz(A^(d)) + sum_{k=2..s} nnz(A(delta^(d,k:s), :)).
            double expected = s * counts.own_nnz;
            for (int k = 2; k <= s; ++k)
                expected += counts.boundary_nnz[static_cast<std::size_t>(k - 1)];
            EXPECT_EQ(static_cast<double>(local.call_nnz(s)), expected) << c.name << ", s = " << s;
        }
}

// ---- Bad input ---------------------------------------------------------------------------------

TEST_F(DistributedMpkTest, BadInputThrowsOnEveryRank)
{
    const int np = world().size();
    const Csr<double> a = laplacian_2d_5pt(6, 5);  // 30 rows
    const std::vector<int> part = block_partition(30, np);
    expect_invalid([&] { distribute_mpk(world(), a, part, np, 0); }, {"s = 0", ">= 1"});
    expect_invalid([&] { distribute_mpk(world(), a, std::vector<int>(29, 0), np, 2); },
                   {"part", "29 entries"});
    if (np >= 2) {  // another partition on rank 0: caught by the collective check
        std::vector<int> other = part;
        if (world().rank() == 0) std::reverse(other.begin(), other.end());
        expect_invalid([&] { distribute_mpk(world(), a, other, np, 2); },
                       {"part", "differs between ranks"});
    }
    const MpkLocalMatrix<double> local = distribute_mpk(world(), a, part, np, 3);
    DistributedMpkCpu<double> mpk(world(), local);
    const std::int64_t ld = std::max<index_type>(local.num_owned(), 1);
    std::vector<double> V(static_cast<std::size_t>(ld) * 5, 1.0);
    expect_invalid([&] { mpk.apply(monomial(4), V.data(), ld); }, {"steps", "4 entries", "s = 3"});
    expect_invalid([&] { mpk.apply({}, V.data(), ld); }, {"steps", "0 entries"});
    expect_invalid([&] { mpk.apply({{1.0, 2.0}, {0.0, 0.0}}, V.data(), ld); },
                   {"steps[0].b2", "expected 0"});
    expect_invalid([&] { mpk.apply({{std::nan(""), 0.0}}, V.data(), ld); }, {"finite"});
    expect_invalid([&] { mpk.apply(monomial(2), V.data(), 0); }, {"ld = 0"});
    expect_invalid([&] { local.step_rows(2, 4); }, {"k_max", "s = 3"});
    // Index sets of another part, and a plan of another s.
    const RowDistribution dist = row_distribution(30, part, np);
    const auto sets = mpk_index_sets(a, part, np, 2);
    expect_invalid([&] { mpk_local_matrix(a, dist, sets[0], halo_plan(a, part, np, 3), 0); },
                   {"plan", "s = 3"});
    if (np >= 2)
        expect_invalid([&] { mpk_local_matrix(a, dist, sets[1], halo_plan(sets, part, np), 0); },
                       {"sets", "part 1"});
    // Nothing was left half-done: a valid call still works on every rank.
    mpk.apply(monomial(3), V.data(), ld);
    EXPECT_EQ(mpk.counters().exchanges, 1);
}

}  // namespace
}  // namespace kbench::dist

KBENCH_MPI_TEST_MAIN()
