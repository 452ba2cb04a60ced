// Distributed row blocks (solvers/distributed/row_block.hpp) on 1, 2 and 3 CPU ranks: natural
// blocks, the local matrices of the compressed and the bandwidth halo schemes (the compressed one
// equals what `distribute` builds from the whole matrix; the bandwidth one receives the whole
// window, formula 4 of zianekhodja2014), the distributed SpMV over both, redistribution by a
// partition against the serial permute_symmetric, and the errors of bad blocks.
#include "solvers/distributed/distributed_spmv.hpp"
#include "solvers/distributed/row_block.hpp"

#include "kernels/spmv.hpp"
#include "kernels/test/expect_invalid.hpp"
#include "matrices/generators.hpp"
#include "matrices/reorder.hpp"
#include "solvers/test/distributed_test_cases.hpp"
#include "solvers/test/mpi_gtest.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
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

const double nan = std::numeric_limits<double>::quiet_NaN();

std::vector<double> serial_spmv(const Csr<double>& a, const std::vector<double>& x)
{
    std::vector<double> y(static_cast<std::size_t>(a.num_rows));
    spmv::reference::csr(a.view(), 1.0, x.data(), 0.0, y.data());
    return y;
}

RowBlock<double> my_block(const Csr<double>& a)
{
    return block_of(a, natural_block(a.num_rows, world().size(), world().rank()));
}

/// y = A x through block_local_matrix of `scheme` and DistributedSpmvCpu, gathered in the
/// original numbering; also returns the words this rank received per exchange.
std::vector<double> block_spmv(const RowBlock<double>& block, HaloScheme scheme,
                               const std::vector<double>& x_original, index_type* words = nullptr)
{
    const LocalMatrix<double> lm = block_local_matrix(world(), block, scheme);
    std::vector<double> xl = block_entries(block, x_original);
    xl.resize(static_cast<std::size_t>(lm.halo.local_size()), nan);
    std::vector<double> yl(static_cast<std::size_t>(lm.halo.num_owned), nan);
    DistributedSpmvCpu<double> spmv(world(), lm);
    spmv.apply(1.0, xl, 0.0, yl);
    if (words != nullptr) *words = lm.halo.words_received();
    return gather_original(world(), block, yl);
}

/// max_i |x_i - y_i| relative to max_i |y_i| (the local column order changes the summation
/// order, so products agree to rounding, not bit for bit).
double max_diff(const std::vector<double>& x, const std::vector<double>& y)
{
    double scale = 0.0;
    for (const double v : y) scale = std::max(scale, std::abs(v));
    double d = x.size() == y.size() ? 0.0 : std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < std::min(x.size(), y.size()); ++i)
        d = std::max(d, std::abs(x[i] - y[i]));
    return scale > 0.0 ? d / scale : d;
}

class RowBlockTest : public MpiTest {};

TEST_F(RowBlockTest, NaturalBlocksTileTheRowsLikeBlockPartition)
{
    for (const index_type n : {0, 1, 7, 456}) {
        const int np = world().size();
        index_type next = 0;
        for (int r = 0; r < np; ++r) {
            const RowRange b = natural_block(n, np, r);
            EXPECT_EQ(b.begin, next);
            next = b.end;
            if (n >= np) {
                for (index_type g = b.begin; g < b.end; ++g)
                    EXPECT_EQ(block_partition(n, np)[static_cast<std::size_t>(g)], r);
            }
        }
        EXPECT_EQ(next, n);
    }
    expect_invalid([] { natural_block(5, 0, 0); }, {"size = 0"});
    expect_invalid([] { natural_block(5, 2, 2); }, {"rank = 2"});
}

TEST_F(RowBlockTest, CompressedSchemeEqualsTheLocalMatrixOfTheWholeMatrix)
{
    const int np = world().size();
    for (const auto& c : distributed_cases(np)) {
        if (c.name.find("/natural") == std::string::npos) continue;
        SCOPED_TRACE(c.name);
        const LocalMatrix<double> whole = distribute(world(), c.a, c.part, np);
        const LocalMatrix<double> lm =
            block_local_matrix(world(), my_block(c.a), HaloScheme::compressed);
        EXPECT_EQ(lm.halo.owned_global, whole.halo.owned_global);
        EXPECT_EQ(lm.halo.ghost_global, whole.halo.ghost_global);
        EXPECT_EQ(lm.halo.recv_ranks, whole.halo.recv_ranks);
        EXPECT_EQ(lm.halo.recv_offsets, whole.halo.recv_offsets);
        EXPECT_EQ(lm.halo.send_ranks, whole.halo.send_ranks);
        EXPECT_EQ(lm.halo.send_offsets, whole.halo.send_offsets);
        EXPECT_EQ(lm.halo.send_local, whole.halo.send_local);
        EXPECT_EQ(lm.a.row_ptr, whole.a.row_ptr);
        EXPECT_EQ(lm.a.col_idx, whole.a.col_idx);
        EXPECT_EQ(lm.a.values, whole.a.values);
        EXPECT_EQ(lm.global_nnz, c.a.nnz());
    }
}

TEST_F(RowBlockTest, BothSchemesGiveTheSerialProductAndBandwidthReceivesTheWindow)
{
    const int np = world().size();
    for (const auto& c : distributed_cases(np)) {
        if (c.name.find("/natural") == std::string::npos) continue;
        SCOPED_TRACE(c.name);
        const auto x = tagged_vector(c.a.num_rows);
        const auto y = serial_spmv(c.a, x);
        const RowBlock<double> block = my_block(c.a);
        index_type compressed = 0, window = 0;
        EXPECT_LE(max_diff(block_spmv(block, HaloScheme::compressed, x, &compressed), y),
                  1e-13);
        EXPECT_LE(max_diff(block_spmv(block, HaloScheme::bandwidth, x, &window), y), 1e-13);
        // Formula 4: the window [lo, hi] of the block's columns less its own rows.
        const auto& cols = block.rows.col_idx;
        index_type expected = 0;
        if (!cols.empty()) {
            const index_type lo = *std::min_element(cols.begin(), cols.end());
            const index_type hi = *std::max_element(cols.begin(), cols.end());
            for (index_type g = lo; g <= hi; ++g)
                if (g < block.row_begin || g >= block.row_begin + block.rows.num_rows) ++expected;
        }
        EXPECT_EQ(window, expected);
        EXPECT_GE(window, compressed);
        if (np == 1) {
            EXPECT_EQ(window, 0);
        }
    }
}

TEST_F(RowBlockTest, RedistributionEqualsTheSerialPermutation)
{
    const int np = world().size();
    for (const auto& c : distributed_cases(np)) {
        if (c.name.find("/natural") != std::string::npos) continue;  // scattered, metis, empty
        SCOPED_TRACE(c.name);
        const RowBlock<double> block = my_block(c.a);
        std::vector<int> local_part(c.part.begin() + block.row_begin,
                                    c.part.begin() + block.row_begin + block.rows.num_rows);
        const RowBlock<double> moved = redistribute(world(), block, local_part);

        const auto perm = permutation_from_parts(c.part);
        const Csr<double> b = permute_symmetric(c.a, perm);
        index_type begin = 0;
        for (int p = 0; p < world().rank(); ++p)
            begin += static_cast<index_type>(std::count(c.part.begin(), c.part.end(), p));
        const index_type rows = static_cast<index_type>(
            std::count(c.part.begin(), c.part.end(), world().rank()));
        const RowBlock<double> expected = block_of(b, {begin, begin + rows});
        EXPECT_EQ(moved.row_begin, begin);
        EXPECT_EQ(moved.rows.row_ptr, expected.rows.row_ptr);
        EXPECT_EQ(moved.rows.col_idx, expected.rows.col_idx);
        EXPECT_EQ(moved.rows.values, expected.rows.values);
        EXPECT_EQ(moved.original,
                  std::vector<index_type>(perm.begin() + begin, perm.begin() + begin + rows));

        // The product in the new numbering, mapped back, is the product of A.
        const auto x = tagged_vector(c.a.num_rows);
        EXPECT_LE(max_diff(block_spmv(moved, HaloScheme::compressed, x), serial_spmv(c.a, x)),
                  1e-13);
    }
}

TEST_F(RowBlockTest, BadBlocksAndPartsThrowOnEveryRank)
{
    const int np = world().size();
    const Csr<double> a = laplacian_2d_5pt(9, 7);
    RowBlock<double> block = my_block(a);
    expect_invalid([&] { parse_halo_scheme("global"); }, {"halo scheme", "'global'"});
    EXPECT_EQ(parse_halo_scheme("row_by_row"), HaloScheme::bandwidth);

    std::vector<int> part(static_cast<std::size_t>(block.rows.num_rows), 0);
    if (world().rank() == np - 1) part.push_back(0);
    expect_invalid([&] { redistribute(world(), block, part); }, {"local_part"});
    part.assign(static_cast<std::size_t>(block.rows.num_rows), np);  // out of range everywhere
    expect_invalid([&] { redistribute(world(), block, part); }, {"local_part"});

    RowBlock<double> shifted = block;
    shifted.row_begin += 1;  // no longer tiles the rows
    expect_invalid([&] { block_local_matrix(world(), shifted, HaloScheme::compressed); },
                   {"block", "expected"});
    RowBlock<double> short_original = block;
    if (world().rank() == 0) short_original.original.push_back(0);
    expect_invalid([&] { check_blocks(world(), short_original); }, {"block"});
    expect_invalid([&] { block_of(a, {5, 4}); }, {"range"});
    expect_invalid([&] { block_entries(block, std::vector<double>(3)); }, {"x:"});
}

}  // namespace
}  // namespace kbench::dist

KBENCH_MPI_TEST_MAIN()
