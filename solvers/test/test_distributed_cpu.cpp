// The distributed layer on the CPU (solvers/distributed/), run by ctest under mpiexec with 1, 2
// and 3 ranks (MPI over shared memory): the row distribution and local matrices on hand-checked
// cases, the halo exchange of a known global vector (every rank gets exactly its ghost entries,
// with byte and message counters equal to the HaloPlan counts of matrices/row_partition.hpp),
// the distributed SpMV against the serial one, the all-reduce of sums and dot products, and the
// errors of bad input.
#include "solvers/distributed/communicator.hpp"
#include "solvers/distributed/distributed_spmv.hpp"
#include "solvers/distributed/halo_exchange.hpp"
#include "solvers/distributed/row_distribution.hpp"

#include "kernels/spmv.hpp"
#include "kernels/test/expect_invalid.hpp"
#include "matrices/reorder.hpp"
#include "matrices/row_partition.hpp"
#include "solvers/test/distributed_test_cases.hpp"
#include "solvers/test/mpi_gtest.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace kbench::dist {
namespace {

using kbench::test::distributed_cases;
using kbench::test::expect_invalid;
using kbench::test::MpiTest;
using kbench::test::tagged_vector;
using kbench::test::world;
using Set = std::vector<index_type>;

const double nan = std::numeric_limits<double>::quiet_NaN();

// v[i] for an index_type i.
template <typename V>
auto& at(V& v, index_type i)
{
    return v[static_cast<std::size_t>(i)];
}

// Pattern matrix (values 1 + column / 10) from its rows' column lists.
Csr<double> from_rows(const std::vector<Set>& rows)
{
    Csr<double> a;
    a.num_rows = a.num_cols = static_cast<index_type>(rows.size());
    for (const auto& r : rows) {
        for (const index_type c : r) {
            a.col_idx.push_back(c);
            a.values.push_back(1.0 + c / 10.0);
        }
        a.row_ptr.push_back(static_cast<index_type>(a.col_idx.size()));
    }
    return a;
}

// 1D tridiagonal pattern of n rows.
Csr<double> tridiagonal(index_type n)
{
    std::vector<Set> rows(static_cast<std::size_t>(n));
    for (index_type i = 0; i < n; ++i)
        for (index_type j = std::max(0, i - 1); j <= std::min(n - 1, i + 1); ++j)
            rows[static_cast<std::size_t>(i)].push_back(j);
    return from_rows(rows);
}

std::vector<double> serial_spmv(const Csr<double>& a, const std::vector<double>& x)
{
    std::vector<double> y(static_cast<std::size_t>(a.num_rows));
    spmv::reference::csr(a.view(), 1.0, x.data(), 0.0, y.data());
    return y;
}

double max_abs(const std::vector<double>& v)
{
    double m = 0.0;
    for (const double e : v) m = std::max(m, std::abs(e));
    return m;
}

// ---- Pure functions: distribution and local matrices, checked by hand (no communication) --------

class RowDistributionTest : public MpiTest {};

TEST_F(RowDistributionTest, GroupsRowsByPartInOriginalOrder)
{
    const RowDistribution d = row_distribution(6, {1, 0, 1, 0, 0, 1}, 3);
    EXPECT_EQ(d.perm, (Set{1, 3, 4, 0, 2, 5}));
    EXPECT_EQ(d.offsets, (Set{0, 3, 6, 6}));
    EXPECT_EQ(d.rows(0), 3);
    EXPECT_EQ(d.rows(1), 3);
    EXPECT_EQ(d.rows(2), 0);  // an empty part
    EXPECT_EQ(d.local_index(4), 2);
    EXPECT_EQ(d.local_index(5), 2);
    EXPECT_EQ(d.local_index(0), 0);
}

TEST_F(RowDistributionTest, LocalMatricesOfATridiagonalSplitInTwo)
{
    // Rows 0..5, parts {0,0,0 | 1,1,1}: part 0 needs x_3, part 1 needs x_2.
    const Csr<double> a = tridiagonal(6);
    const std::vector<int> part{0, 0, 0, 1, 1, 1};
    const RowDistribution d = row_distribution(6, part, 2);
    const HaloPlan plan = halo_plan(a, part, 2, 1);

    const LocalMatrix<double> p0 = local_matrix(a, d, plan, 0);
    EXPECT_EQ(p0.halo.owned_global, (Set{0, 1, 2}));
    EXPECT_EQ(p0.halo.ghost_global, (Set{3}));
    EXPECT_EQ(p0.halo.recv_ranks, (std::vector<int>{1}));
    EXPECT_EQ(p0.halo.send_ranks, (std::vector<int>{1}));
    EXPECT_EQ(p0.halo.send_local, (Set{2}));
    EXPECT_EQ(p0.a.num_rows, 3);
    EXPECT_EQ(p0.a.num_cols, 4);
    EXPECT_EQ(p0.a.row_ptr, (Set{0, 2, 5, 8}));
    EXPECT_EQ(p0.a.col_idx, (Set{0, 1, 0, 1, 2, 1, 2, 3}));

    const LocalMatrix<double> p1 = local_matrix(a, d, plan, 1);
    EXPECT_EQ(p1.halo.owned_global, (Set{3, 4, 5}));
    EXPECT_EQ(p1.halo.ghost_global, (Set{2}));
    EXPECT_EQ(p1.halo.send_local, (Set{0}));
    // Row 3 = local 0 has global columns 2, 3, 4 -> local 3 (ghost), 0, 1: sorted 0, 1, 3, with
    // the values moving along (1 + column / 10).
    EXPECT_EQ(p1.a.col_idx, (Set{0, 1, 3, 0, 1, 2, 1, 2}));
    EXPECT_EQ(p1.a.values[2], 1.2);
    EXPECT_EQ(p1.a.values[0], 1.3);
    EXPECT_NO_THROW(validate(p1.a, "p1"));
}

TEST_F(RowDistributionTest, ScatteredOwnersGetLocalIndicesInGlobalOrder)
{
    // part {1,0,1,0,0,1}: part 0 owns 1, 3, 4; part 1 owns 0, 2, 5.
    const Csr<double> a = tridiagonal(6);
    const std::vector<int> part{1, 0, 1, 0, 0, 1};
    const RowDistribution d = row_distribution(6, part, 2);
    const HaloPlan plan = halo_plan(a, part, 2, 1);
    const LocalMatrix<double> p0 = local_matrix(a, d, plan, 0);
    // Rows 1, 3, 4 need columns 0, 2 (row 1), 2 (row 3), 5 (row 4) of part 1.
    EXPECT_EQ(p0.halo.ghost_global, (Set{0, 2, 5}));
    // Part 1 needs 1 (rows 0, 2), 3 (row 2), 4 (row 5): local indices 0, 1, 2 of part 0.
    EXPECT_EQ(p0.halo.send_local, (Set{0, 1, 2}));
    // Row 1 (local 0): columns 0, 1, 2 -> local 3 (ghost 0), 0, 4 (ghost 2).
    EXPECT_EQ(std::vector<index_type>(p0.a.col_idx.begin(), p0.a.col_idx.begin() + 3),
              (Set{0, 3, 4}));
}

TEST_F(RowDistributionTest, LayoutCountsEqualTheHaloPlanForEveryPart)
{
    for (const int parts : {1, 2, 3, 5}) {
        for (const auto& c : distributed_cases(parts)) {
            SCOPED_TRACE(c.name + ", " + std::to_string(parts) + " parts");
            const RowDistribution d = row_distribution(c.a.num_rows, c.part, parts);
            const HaloPlan plan = halo_plan(c.a, c.part, parts, 1);
            index_type total_sent = 0;
            index_type total_received = 0;
            for (int p = 0; p < parts; ++p) {
                const HaloLayout h = halo_layout(d, plan, p);
                EXPECT_EQ(h.words_received(), plan.received(p));
                EXPECT_EQ(h.words_sent(), plan.sent(p));
                EXPECT_EQ(h.messages_received(), plan.neighbours(p));
                int senders_to = 0;
                for (int q = 0; q < parts; ++q) senders_to += plan.count(q, p) > 0 ? 1 : 0;
                EXPECT_EQ(h.messages_sent(), senders_to);
                Set expected_ghosts;
                for (int q = 0; q < parts; ++q)
                    for (const index_type g : plan.recv[static_cast<std::size_t>(p)]
                                                       [static_cast<std::size_t>(q)])
                        expected_ghosts.push_back(g);
                EXPECT_EQ(h.ghost_global, expected_ghosts);
                total_sent += h.words_sent();
                total_received += h.words_received();
            }
            EXPECT_EQ(total_sent, total_received);
        }
    }
}

TEST_F(RowDistributionTest, LocalSpmvOfEveryPartReassemblesTheSerialProduct)
{
    // Without MPI: each part's local matrix times a local vector filled from the global x
    // (ghosts included) gives the serial product on its rows.
    for (const int parts : {1, 3, 4}) {
        for (const auto& c : distributed_cases(parts)) {
            SCOPED_TRACE(c.name + ", " + std::to_string(parts) + " parts");
            const RowDistribution d = row_distribution(c.a.num_rows, c.part, parts);
            const HaloPlan plan = halo_plan(c.a, c.part, parts, 1);
            const auto x = tagged_vector(c.a.num_rows);
            const auto y = serial_spmv(c.a, x);
            double err = 0.0;
            for (int p = 0; p < parts; ++p) {
                const LocalMatrix<double> lm = local_matrix(c.a, d, plan, p);
                auto xl = local_vector(lm.halo, x);
                for (index_type j = 0; j < lm.halo.num_ghosts; ++j)
                    at(xl, lm.halo.num_owned + j) = at(x, at(lm.halo.ghost_global, j));
                std::vector<double> yl(static_cast<std::size_t>(lm.halo.num_owned));
                spmv::reference::csr(lm.a.view(), 1.0, xl.data(), 0.0, yl.data());
                for (index_type i = 0; i < lm.halo.num_owned; ++i)
                    err = std::max(err, std::abs(at(yl, i) - at(y, at(lm.halo.owned_global, i))));
            }
            EXPECT_LE(err, 1e-14 * max_abs(y));
        }
    }
}

// ---- Halo exchange over MPI ---------------------------------------------------------------------

class HaloExchangeTest : public MpiTest {};

TEST_F(HaloExchangeTest, EveryRankGetsExactlyItsGhostEntries)
{
    const int np = world().size();
    const int rank = world().rank();
    for (const auto& c : distributed_cases(np)) {
        SCOPED_TRACE(c.name + " on " + std::to_string(np) + " ranks, rank " + std::to_string(rank));
        const LocalMatrix<double> lm = distribute(world(), c.a, c.part, np);
        const HaloPlan plan = halo_plan(c.a, c.part, np, 1);
        const HaloLayout& h = lm.halo;
        const auto x = tagged_vector(c.a.num_rows);
        auto xl = local_vector(h, x, nan);

        HaloExchange ex(world(), h);
        ex.exchange(xl);
        for (index_type i = 0; i < h.num_owned; ++i)  // owned entries untouched
            EXPECT_EQ(at(xl, i), at(x, at(h.owned_global, i)));
        for (index_type j = 0; j < h.num_ghosts; ++j)  // ghosts: the owners' entries, bit for bit
            EXPECT_EQ(at(xl, h.num_owned + j), at(x, at(h.ghost_global, j)))
                << "ghost " << j << " = global row " << at(h.ghost_global, j);

        // Counters of one exchange: the plan's words and neighbours.
        ExchangeCounters one;
        one.exchanges = 1;
        one.bytes_received = static_cast<std::int64_t>(plan.received(rank)) * 8;
        one.bytes_sent = static_cast<std::int64_t>(plan.sent(rank)) * 8;
        one.messages_received = plan.neighbours(rank);
        for (int q = 0; q < np; ++q) one.messages_sent += plan.count(q, rank) > 0 ? 1 : 0;
        EXPECT_EQ(ex.counters(), one);
        EXPECT_EQ(exchange_counts(h, sizeof(double)), one);

        // A second exchange of another vector (float): counters add up, with 4-byte words.
        std::vector<float> xf(xl.size(), -1.0f);
        for (index_type i = 0; i < h.num_owned; ++i) at(xf, i) = static_cast<float>(at(xl, i));
        ex.exchange(xf);
        for (index_type j = 0; j < h.num_ghosts; ++j)
            EXPECT_EQ(at(xf, h.num_owned + j), static_cast<float>(at(x, at(h.ghost_global, j))));
        ExchangeCounters two = one;
        two += exchange_counts(h, sizeof(float));
        EXPECT_EQ(ex.counters(), two);
        EXPECT_EQ(ex.counters().exchanges, 2);
        ex.reset_counters();
        EXPECT_EQ(ex.counters(), ExchangeCounters{});

        // Globally: bytes sent == bytes received, messages likewise.
        EXPECT_EQ(world().allreduce_sum(one.bytes_sent), world().allreduce_sum(one.bytes_received));
        EXPECT_EQ(world().allreduce_sum(one.messages_sent),
                  world().allreduce_sum(one.messages_received));
    }
}

TEST_F(HaloExchangeTest, RepeatedExchangesStayInOrder)
{
    // Back-to-back exchanges of changing vectors (no barrier between): every one delivers its own
    // values (MPI keeps the order of messages between two ranks on one tag).
    const int np = world().size();
    const auto c = distributed_cases(np).at(1);  // the Laplacian, scattered
    const LocalMatrix<double> lm = distribute(world(), c.a, c.part, np);
    HaloExchange ex(world(), lm.halo);
    const auto x = tagged_vector(c.a.num_rows);
    for (int round = 0; round < 20; ++round) {
        auto xl = local_vector(lm.halo, x, nan);
        for (index_type i = 0; i < lm.halo.num_owned; ++i) at(xl, i) += round;
        ex.exchange(xl);
        for (index_type j = 0; j < lm.halo.num_ghosts; ++j)
            EXPECT_EQ(at(xl, lm.halo.num_owned + j), at(x, at(lm.halo.ghost_global, j)) + round);
    }
    EXPECT_EQ(ex.counters().exchanges, 20);
}

// ---- Distributed SpMV ---------------------------------------------------------------------------

class DistributedSpmvTest : public MpiTest {};

TEST_F(DistributedSpmvTest, EqualsTheSerialSpmv)
{
    const int np = world().size();
    for (const auto& c : distributed_cases(np)) {
        SCOPED_TRACE(c.name + " on " + std::to_string(np) + " ranks, rank " +
                     std::to_string(world().rank()));
        const LocalMatrix<double> lm = distribute(world(), c.a, c.part, np);
        const auto x = tagged_vector(c.a.num_rows);
        const auto y = serial_spmv(c.a, x);
        DistributedSpmvCpu<double> spmv(world(), lm);
        auto xl = local_vector(lm.halo, x, nan);
        std::vector<double> yl(static_cast<std::size_t>(lm.halo.num_owned), nan);
        spmv.apply(1.0, xl, 0.0, yl);  // beta = 0: the NaNs of y are not read
        double err = 0.0;
        for (index_type i = 0; i < lm.halo.num_owned; ++i)
            err = std::max(err, std::abs(at(yl, i) - at(y, at(lm.halo.owned_global, i))));
        EXPECT_LE(err, 1e-14 * max_abs(y));

        // The gathered global product on every rank.
        const auto y_all = allgather(world(), lm.halo, yl, c.a.num_rows);
        double err_all = 0.0;
        for (std::size_t g = 0; g < y.size(); ++g)
            err_all = std::max(err_all, std::abs(y_all[g] - y[g]));
        EXPECT_LE(err_all, 1e-14 * max_abs(y));

        // alpha and beta: y := 2 A x - 0.5 y.
        std::vector<double> y2 = yl;
        spmv.apply(2.0, xl, -0.5, y2);
        double err2 = 0.0;
        for (std::size_t i = 0; i < y2.size(); ++i)
            err2 = std::max(err2, std::abs(y2[i] - 1.5 * yl[i]));
        EXPECT_LE(err2, 1e-14 * max_abs(y));
        EXPECT_EQ(spmv.counters().exchanges, 2);
        EXPECT_EQ(spmv.counters().bytes_received,
                  2 * static_cast<std::int64_t>(lm.halo.num_ghosts) * 8);
    }
}

// ---- All-reduce ---------------------------------------------------------------------------------

class AllreduceTest : public MpiTest {};

TEST_F(AllreduceTest, SumsOverRanks)
{
    const int np = world().size();
    const int r = world().rank();
    // Exact in binary: integers and powers of two.
    std::vector<double> v{double(r + 1), std::ldexp(1.0, -r), -2.0 * r};
    world().allreduce_sum(v.data(), static_cast<int>(v.size()));
    EXPECT_EQ(v[0], np * (np + 1) / 2.0);
    EXPECT_EQ(v[1], 2.0 - std::ldexp(1.0, 1 - np));
    EXPECT_EQ(v[2], -1.0 * np * (np - 1));
    EXPECT_EQ(world().allreduce_sum(std::int64_t{1} << 40), np * (std::int64_t{1} << 40));
    EXPECT_EQ(world().allreduce_sum(3), 3 * np);
    EXPECT_EQ(world().allreduce_max(r), np - 1);
    EXPECT_EQ(world().allreduce_min(r), 0);
    world().allreduce_sum(static_cast<double*>(nullptr), 0);  // nothing to do
    expect_invalid([&] { world().allreduce_sum(v.data(), -1); }, {"count = -1"});
    EXPECT_TRUE(world().all_equal(42));
    EXPECT_EQ(world().all_equal(static_cast<std::uint64_t>(r)), np == 1);
}

TEST_F(AllreduceTest, DistributedDotEqualsTheSerialDot)
{
    const int np = world().size();
    for (const auto& c : distributed_cases(np)) {
        SCOPED_TRACE(c.name);
        const LocalMatrix<double> lm = distribute(world(), c.a, c.part, np);
        const auto x = tagged_vector(c.a.num_rows);
        std::vector<double> y(x.size());
        for (std::size_t g = 0; g < y.size(); ++g) y[g] = std::cos(0.3 * static_cast<double>(g));
        double serial = 0.0;
        double serial_abs = 0.0;
        for (std::size_t g = 0; g < x.size(); ++g) {
            serial += x[g] * y[g];
            serial_abs += std::abs(x[g] * y[g]);
        }
        const auto xl = local_vector(lm.halo, x);
        const auto yl = local_vector(lm.halo, y);
        const double d = dot(world(), xl.data(), yl.data(), lm.halo.num_owned);
        EXPECT_LE(std::abs(d - serial), 1e-14 * serial_abs);
    }
}

// ---- Bad input ----------------------------------------------------------------------------------

class DistributedErrorsTest : public MpiTest {};

TEST_F(DistributedErrorsTest, BadInputNamesTheParameter)
{
    const int np = world().size();
    const Csr<double> a = laplacian_2d_5pt(6, 5);  // 30 rows
    const std::vector<int> part = block_partition(30, np);

    // Partition of the wrong size.
    expect_invalid([&] { distribute(world(), a, std::vector<int>(29, 0), np); },
                   {"part", "29 entries", "n = 30"});
    expect_invalid([&] { row_distribution(30, std::vector<int>(31, 0), np); }, {"part", "31"});
    // Ranks != parts: a partition into np + 1 parts on np ranks.
    expect_invalid([&] { distribute(world(), a, block_partition(30, np + 1), np + 1); },
                   {"num_parts = " + std::to_string(np + 1), "ranks " + std::to_string(np)});
    // A part id outside [0, ranks).
    std::vector<int> bad = part;
    bad[7] = np;
    expect_invalid([&] { distribute(world(), a, bad, np); }, {"part[7]", "num_parts"});
    // A layout of another part, or of another number of parts, for this rank's exchange.
    const RowDistribution d2 = row_distribution(30, block_partition(30, np + 1), np + 1);
    const HaloPlan plan2 = halo_plan(a, d2.part, np + 1, 1);
    expect_invalid([&] { HaloExchange(world(), halo_layout(d2, plan2, 0)); },
                   {"layout", "parts"});
    // A plan of s = 2 for a local matrix, and a plan of another partition.
    const RowDistribution d = row_distribution(30, part, np);
    expect_invalid([&] { local_matrix(a, d, halo_plan(a, part, np, 2), 0); }, {"plan", "s = 2"});
    if (np >= 2) {
        std::vector<int> other(30);
        for (index_type r = 0; r < 30; ++r) other[static_cast<std::size_t>(r)] = r % np;
        expect_invalid([&] { halo_layout(d, halo_plan(a, other, np, 1), 0); }, {"plan"});
        expect_invalid([&] { local_matrix(a, d, halo_plan(a, other, np, 1), 0); }, {"plan"});
    }
    expect_invalid([&] { halo_layout(d, halo_plan(a, part, np, 1), np); }, {"rank = "});
    // A matrix of another size than the distribution.
    expect_invalid([&] { local_matrix(laplacian_2d_5pt(5, 5), d, halo_plan(a, part, np, 1), 0); },
                   {"a", "25 rows", "n = 30"});
    // Vectors of the wrong size.
    const LocalMatrix<double> lm = distribute(world(), a, part, np);
    HaloExchange ex(world(), lm.halo);
    std::vector<double> short_x(static_cast<std::size_t>(lm.halo.local_size()) + 1);
    expect_invalid([&] { ex.exchange(short_x); }, {"x_local", "local_size()"});
    DistributedSpmvCpu<double> spmv(world(), lm);
    std::vector<double> xl(static_cast<std::size_t>(lm.halo.local_size()));
    std::vector<double> yl(static_cast<std::size_t>(lm.halo.num_owned) + 2);
    expect_invalid([&] { spmv.apply(1.0, xl, 0.0, yl); }, {"y_local", "num_owned"});
    EXPECT_THROW(parse_transport("gloo"), std::invalid_argument);
}

TEST_F(DistributedErrorsTest, DifferentInputsOnTheRanksAreCaughtOnEveryRank)
{
    const int np = world().size();
    const Csr<double> a = laplacian_2d_5pt(6, 5);
    if (np == 1) {  // one rank always agrees with itself (no skip: ctest would report one)
        EXPECT_NO_THROW(distribute(world(), a, std::vector<int>(30, 0), 1));
        return;
    }
    // Rank 0 passes another (valid) partition than the others: every rank throws.
    std::vector<int> part = block_partition(30, np);
    if (world().rank() == 0) std::reverse(part.begin(), part.end());
    expect_invalid([&] { distribute(world(), a, part, np); }, {"part", "differs between ranks"});
    // Rank 0 passes another matrix.
    const Csr<double> b = world().rank() == 0 ? laplacian_2d_5pt(5, 6) : a;
    expect_invalid([&] { distribute(world(), b, block_partition(30, np), np); },
                   {"a", "differs between ranks"});
}

TEST(MpiErrors, FailingCallThrowsWithTheCallAndMpiErrorString)
{
    // An invalid root for MPI_Bcast, straight through the macro (the communicator returns
    // errors instead of aborting).
    double v = 0.0;
    try {
        KBENCH_MPI_CHECK(MPI_Bcast(&v, 1, MPI_DOUBLE, -5, world().get()));
        ADD_FAILURE() << "no mpi_error thrown";
    } catch (const mpi_error& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("test_distributed_cpu.cpp:"), std::string::npos) << what;
        EXPECT_NE(what.find("MPI_Bcast(&v, 1, MPI_DOUBLE, -5, world().get()) failed: "),
                  std::string::npos)
            << what;
    }
    expect_invalid([&] { world().broadcast(&v, sizeof(v), world().size()); }, {"root = "});
}

}  // namespace
}  // namespace kbench::dist

KBENCH_MPI_TEST_MAIN()
