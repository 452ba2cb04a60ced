#include "models/spmv_traffic.hpp"

#include <gtest/gtest.h>

namespace km = kbench::models;

// A 4x4 matrix with 10 nonzeros in double precision, counted by hand:
// values 80 B + col 40 B + row_ptr 5*4 = 20 B + x 32 B = 172 B read, y 32 B written.
TEST(SpmvTraffic, CsrCountsEveryArrayOnce)
{
    constexpr auto t = km::csr_spmv(4, 4, 10, 8);
    EXPECT_DOUBLE_EQ(t.bytes_read, 172.0);
    EXPECT_DOUBLE_EQ(t.bytes_written, 32.0);
    EXPECT_DOUBLE_EQ(t.flops, 20.0);
    EXPECT_DOUBLE_EQ(km::csr_spmv(4, 4, 10, 8, 4, true).bytes_read, 172.0 + 32.0);
}

// Same matrix as SELL-P with b = 2, t = 2: two slices, 12 stored entries.
// values 96 + col 48 + slice_ptr 3*4 = 12 + x 32 = 188 B read; flops only for the 10 nonzeros.
TEST(SpmvTraffic, SellpCountsPaddingAsTraffic)
{
    constexpr auto t = km::sellp_spmv(4, 4, 10, 12, 2, 8);
    EXPECT_DOUBLE_EQ(t.bytes_read, 188.0);
    EXPECT_DOUBLE_EQ(t.bytes_written, 32.0);
    EXPECT_DOUBLE_EQ(t.flops, 20.0);
    EXPECT_DOUBLE_EQ(km::sellp_spmv(4, 4, 10, 12, 2, 8, 4, false, true).bytes_read, 188.0 + 16.0);
}

// Same 4x4 matrix with row lengths 4, 2, 2, 2 as SELL-P with b = 2, t = 2 and
// long_row_threshold = 3: row 0 goes to the long part and is empty in slice 0, so both slices
// have width 2 (8 slice entries) and stored = 8 + 4 long entries = 12.
// Read: values 12*8 = 96 + col 12*4 = 48 + slice_ptr 3*4 = 12 + x 4*8 = 32 + long row_ptr 2*4 = 8
// + long row index 1*4 = 4 + y of the long row re-read 8 = 208 B.
// Written: y 4*8 = 32 + y of the long row re-written 8 = 40 B.
TEST(SpmvTraffic, SellpLongRowPartAddsItsPointersAndYUpdate)
{
    constexpr auto t = km::sellp_spmv(4, 4, 10, 12, 2, 8, 4, false, false, 1);
    EXPECT_DOUBLE_EQ(t.bytes_read, 208.0);
    EXPECT_DOUBLE_EQ(t.bytes_written, 40.0);
    EXPECT_DOUBLE_EQ(t.flops, 20.0);
    // beta != 0 reads y once more (32 B); the permutation adds 4 indices (16 B).
    EXPECT_DOUBLE_EQ(km::sellp_spmv(4, 4, 10, 12, 2, 8, 4, true, true, 1).bytes_read,
                     208.0 + 32.0 + 16.0);
    // long_rows = 0 is the plain SELL-P count of SellpCountsPaddingAsTraffic.
    EXPECT_DOUBLE_EQ(km::sellp_spmv(4, 4, 10, 12, 2, 8, 4, false, false, 0).bytes_read, 188.0);
}

TEST(SpmvTraffic, RatesUseDecimalGiga)
{
    constexpr km::Traffic t{1.5e9, 0.5e9, 4e9};
    EXPECT_DOUBLE_EQ(km::gb_per_s(t, 0.5), 4.0);
    EXPECT_DOUBLE_EQ(km::gflop_per_s(t, 2.0), 2.0);
}

// anzt2015 Table 3, AUDIKW_1: CSR 1.89 GFlop/s vs SELL-P 22.12 GFlop/s gives zeta_M = 91 %.
TEST(SpmvTraffic, ImprovementMatchesAnzt2015Table3)
{
    const double nnz_flops = 2.0 * 77651847;
    const double t_csr = nnz_flops / 1.89e9;
    const double t_sellp = nnz_flops / 22.12e9;
    EXPECT_NEAR(km::improvement(t_csr, t_sellp), 0.91, 0.005);
    // FV1: 5.47 vs 6.20 GFlop/s -> 12 %.
    EXPECT_NEAR(km::improvement(1.0 / 5.47, 1.0 / 6.20), 0.12, 0.005);
}
