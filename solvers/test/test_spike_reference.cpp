// Truncated SPIKE on the CPU (solvers/spike/spike.hpp): exact where nothing is truncated (two
// partitions, zero couplings), li2012 Table 1's trend of the residual with the diagonal
// dominance d, the remainder partition, psize validation and zero-pivot statuses.
#include "kernels/test/expect_invalid.hpp"
#include "matrices/banded.hpp"
#include "matrices/generators.hpp"
#include "solvers/spike/spike.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace kbench::solvers::spike {
namespace {

std::vector<double> random_rhs(index_type n, unsigned seed = 11)
{
    std::mt19937 gen(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    std::vector<double> b(n);
    for (double& v : b) v = u(gen);
    return b;
}

/// ||b - A z||_inf / ||b||_inf (li2012's relative residual, Table 1 footnote).
double relative_residual(const BandMatrix<double>& a, const std::vector<double>& b,
                         const std::vector<double>& z)
{
    std::vector<double> az(b.size());
    band_multiply(a, z.data(), az.data());
    double rn = 0.0, bn = 0.0;
    for (std::size_t i = 0; i < b.size(); ++i) {
        rn = std::max(rn, std::abs(b[i] - az[i]));
        bn = std::max(bn, std::abs(b[i]));
    }
    return rn / bn;
}

double spike_residual(const BandMatrix<double>& a, index_type psize)
{
    SpikeReference<double> s;
    const SpikeStatus st = s.factor(a, psize);
    EXPECT_TRUE(st.ok()) << st.message();
    const auto b = random_rhs(a.n);
    std::vector<double> z(a.n);
    s.apply(b.data(), z.data());
    return relative_residual(a, b, z);
}

TEST(SpikeReference, TwoPartitionsTruncateNothing)
{
    // p = 2: R_0 couples everything there is, so M = A even at d = 1.
    const BandMatrix<double> a = band_from_csr(banded(1000, 7, 1.0, 5), 7);
    EXPECT_LT(spike_residual(a, 500), 1e-12);
}

TEST(SpikeReference, ZeroCouplingsAreSolvedExactly)
{
    // Block diagonal with 4 blocks of 300: B_i = C_i = 0, so the spikes vanish.
    const index_type n = 1200, K = 5, psize = 300;
    BandMatrix<double> a = band_from_csr(banded(n, K, 1.0, 9), K);
    for (index_type j = 0; j < n; ++j)
        for (index_type i = std::max(0, j - K); i <= std::min(n - 1, j + K); ++i)
            if (i / psize != j / psize) a.ab[a.index(i, j)] = 0.0;
    SpikeReference<double> s;
    ASSERT_TRUE(s.factor(a, psize).ok());
    EXPECT_EQ(s.partition_count(), 4);
    EXPECT_LT(spike_residual(a, psize), 1e-13);
}

TEST(SpikeReference, ResidualFallsWithDiagonalDominance)
{
    // li2012 Table 1: about 35 %, 1.2 %, 0.2 %, 0.02 %, 0.002 % for d = 1 .. 1e4 (N, K and psize
    // not stated). With exact tips the truncation error is far smaller (kbench, K = 16, psize =
    // 2K: about 3e-3, 2e-6, 2e-9, 2e-12, then rounding), so only the trend is checked: at least
    // as good as Table 1's orders (0.35 / d), falling by 10x or more per decade of d until it
    // reaches rounding, and visibly truncated at d = 1.
    const index_type n = 4096, K = 16, psize = 2 * K;
    double previous = 1.0;
    for (const double d : {1.0, 10.0, 100.0, 1e3, 1e4}) {
        const BandMatrix<double> a = band_from_csr(banded(n, K, d, 3), K);
        const double res = spike_residual(a, psize);
        SCOPED_TRACE("d = " + std::to_string(d) + ", residual " + std::to_string(res));
        EXPECT_LT(res, 0.35 / d);
        EXPECT_TRUE(res < previous / 10 || res < 1e-13);
        if (d == 1.0) {
            EXPECT_GT(res, 1e-6);
        }
        previous = res;
    }
    EXPECT_LT(previous, 1e-4);
    // Wider partitions leave less to truncate: psize = 16K is exact to rounding at d = 1.
    EXPECT_LT(spike_residual(band_from_csr(banded(n, K, 1.0, 3), K), 16 * K), 1e-12);
}

TEST(SpikeReference, LastPartitionTakesTheRemainder)
{
    // li2012 Sec. 2.5, Fig. 3(b): N = 8191, K = 32, psize = 2048 leaves 4095 rows to the last.
    const Partitioning part = make_partitioning(8191, 32, 2048);
    EXPECT_EQ(part.count, 3);
    EXPECT_EQ(part.offset(2), 4096);
    EXPECT_EQ(part.size(2), 4095);
    const BandMatrix<double> a = band_from_csr(banded(8191, 32, 1e3, 4), 32);
    EXPECT_LT(spike_residual(a, 2048), 1e-3);
}

TEST(SpikeReference, MixedPrecisionApply)
{
    // li2012 Sec. 2.4: factors in float, r and z in double.
    const BandMatrix<double> a = band_from_csr(banded(3000, 8, 1e4, 8), 8);
    SpikeReference<float> s;
    ASSERT_TRUE(s.factor(band_cast<float>(a), 200).ok());
    const auto b = random_rhs(a.n);
    std::vector<double> z(a.n);
    s.apply_mixed(b.data(), z.data());
    EXPECT_LT(relative_residual(a, b, z), 1e-4);
}

TEST(SpikeReference, PsizeOutsideItsRangeIsRejected)
{
    const BandMatrix<double> a = band_from_csr(banded(1000, 8, 10.0, 1), 8);
    SpikeReference<double> s;
    test::expect_invalid([&] { s.factor(a, 15); }, {"psize = 15", "N = 1000", "K = 8"});
    test::expect_invalid([&] { s.factor(a, 501); }, {"psize = 501", "N = 1000", "K = 8"});
    EXPECT_NO_THROW(s.factor(a, 16));
    EXPECT_NO_THROW(s.factor(a, 500));
    std::vector<double> r(1000), z(1000);
    SpikeReference<double> fresh;
    EXPECT_THROW(fresh.apply(r.data(), z.data()), std::logic_error);
}

TEST(SpikeReference, ZeroPivotNamesPartitionAndRow)
{
    const index_type n = 1000, K = 4, psize = 100;
    const BandMatrix<double> base = band_from_csr(banded(n, K, 10.0, 2), K);
    {   // A zero at the top of partition 3: the LU's first pivot.
        BandMatrix<double> a = base;
        a.ab[a.index(300, 300)] = 0.0;
        SpikeReference<double> s;
        const SpikeStatus st = s.factor(a, psize);
        EXPECT_EQ(st.code, SpikeCode::zero_pivot);
        EXPECT_EQ(st.stage, SpikeStage::lu);
        EXPECT_EQ(st.partition, 3);
        EXPECT_EQ(st.row, 300);
        EXPECT_EQ(st.message(), "zero pivot in the LU of partition 3 at row 300");
        std::vector<double> r(n), z(n);
        EXPECT_THROW(s.apply(r.data(), z.data()), std::logic_error);
    }
    {   // At the bottom of partition 5: the UL's first pivot (the LU's last one is not zero).
        BandMatrix<double> a = base;
        a.ab[a.index(599, 599)] = 0.0;
        SpikeReference<double> s;
        const SpikeStatus st = s.factor(a, psize);
        EXPECT_EQ(st.stage, SpikeStage::ul);
        EXPECT_EQ(st.partition, 5);
        EXPECT_EQ(st.row, 599);
    }
    {   // A NaN in the last (remainder) partition.
        BandMatrix<double> a = base;
        a.ab[a.index(950, 950)] = std::nan("");
        const SpikeStatus st = SpikeReference<double>{}.factor(a, psize);
        EXPECT_EQ(st.code, SpikeCode::zero_pivot);
        EXPECT_EQ(st.partition, 9);
        EXPECT_EQ(st.stage, SpikeStage::lu);
    }
}

TEST(SpikeReference, SingularReducedBlockIsReported)
{
    // [[2, 1, 0, 0], [1, 1, .5, 0], [0, .5, 1, 1], [0, 0, 1, 2]]: both 2 x 2 blocks are
    // nonsingular, A is not; with p = 2, R_0 = [[1, 1], [1, 1]].
    BandMatrix<double> a = band_zeros<double>(4, 1);
    const double v[4][4] = {{2, 1, 0, 0}, {1, 1, .5, 0}, {0, .5, 1, 1}, {0, 0, 1, 2}};
    for (index_type i = 0; i < 4; ++i)
        for (index_type j = std::max(0, i - 1); j <= std::min(3, i + 1); ++j) a.ab[a.index(i, j)] = v[i][j];
    const SpikeStatus st = SpikeReference<double>{}.factor(a, 2);
    EXPECT_EQ(st.stage, SpikeStage::reduced);
    EXPECT_EQ(st.partition, 0);
    EXPECT_EQ(st.row, 2);
}

}  // namespace
}  // namespace kbench::solvers::spike
