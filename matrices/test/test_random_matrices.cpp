// Tests of random_rows and banded: row-length distributions against their analytic pmf,
// structure (band, sorted distinct columns, dominant diagonal), determinism and errors.
// Statistical checks use fixed seeds and a tolerance of 6 standard errors, so they are exact
// regression tests that a correct sampler passes with a wide margin.
#include "matrices/generators.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace kbench {
namespace {

index_type row_len(const Csr<double>& a, index_type i) { return a.row_ptr[i + 1] - a.row_ptr[i]; }

/// The pmf of the row length over [row_min, row_max], computed here from the definitions in
/// generators.hpp (independently of the generator's tables).
std::vector<double> pmf(const RandomRowsParams& p)
{
    const index_type span = p.row_max - p.row_min;
    std::vector<double> f(static_cast<std::size_t>(span) + 1);
    if (p.distribution == RowLengthDistribution::uniform) {
        std::fill(f.begin(), f.end(), 1.0 / (span + 1));
    } else if (p.distribution == RowLengthDistribution::geometric) {
        const double m = p.mean - p.row_min, q = m / (m + 1.0);
        for (index_type k = 0; k < span; ++k) f[k] = (1.0 - q) * std::pow(q, k);
        f[span] = std::pow(q, span);  // clamped tail
    } else {
        double z = 0.0;
        for (index_type k = 0; k <= span; ++k) z += f[k] = std::pow(p.row_min + k, -p.exponent);
        for (double& v : f) v /= z;
    }
    return f;
}

struct Moments {
    double mean, var;
};
Moments moments(const RandomRowsParams& p)
{
    const std::vector<double> f = pmf(p);
    double m1 = 0.0, m2 = 0.0;
    for (std::size_t k = 0; k < f.size(); ++k) {
        const double l = p.row_min + static_cast<double>(k);
        m1 += f[k] * l;
        m2 += f[k] * l * l;
    }
    return {m1, m2 - m1 * m1};
}

/// Checks the row lengths of `a` (no band clamping: bandwidth >= row_max - 1) against pmf(p):
/// bounds, sample mean within 6 standard errors, and the count of each length in `check`
/// within 6 binomial standard deviations (+1 for tiny expectations).
void expect_lengths_follow(const Csr<double>& a, const RandomRowsParams& p,
                           const std::vector<index_type>& check)
{
    ASSERT_GE(p.bandwidth, p.row_max - 1);
    const std::vector<double> f = pmf(p);
    std::vector<std::int64_t> count(f.size(), 0);
    double sum = 0.0;
    for (index_type i = 0; i < a.num_rows; ++i) {
        const index_type l = row_len(a, i);
        ASSERT_GE(l, p.row_min) << "row " << i;
        ASSERT_LE(l, p.row_max) << "row " << i;
        ++count[static_cast<std::size_t>(l - p.row_min)];
        sum += l;
    }
    const double n = a.num_rows;
    const Moments m = moments(p);
    EXPECT_NEAR(sum / n, m.mean, 6.0 * std::sqrt(m.var / n));
    EXPECT_NEAR(expected_row_length(p), m.mean, 1e-12 * m.mean);
    for (index_type l : check) {
        const double pl = f[static_cast<std::size_t>(l - p.row_min)];
        EXPECT_NEAR(static_cast<double>(count[static_cast<std::size_t>(l - p.row_min)]), n * pl,
                    6.0 * std::sqrt(n * pl * (1.0 - pl)) + 1.0)
            << "length " << l;
    }
}

TEST(RandomRows, UniformLengths)
{
    RandomRowsParams p;
    p.n = 400000;
    p.row_min = 1;
    p.row_max = 49;
    p.bandwidth = 100;
    p.seed = 7;
    const Csr<double> a = random_rows(p);
    expect_lengths_follow(a, p, {1, 2, 25, 48, 49});
}

TEST(RandomRows, GeometricLengthsWithClampedTail)
{
    RandomRowsParams p;
    p.n = 400000;
    p.distribution = RowLengthDistribution::geometric;
    p.row_min = 3;
    p.row_max = 60;
    p.mean = 14.0;  // q = 11/12: P(L = 60) = q^57 = 0.7 %, mean 13.92
    p.bandwidth = 60;
    p.seed = 8;
    const Csr<double> a = random_rows(p);
    expect_lengths_follow(a, p, {3, 4, 14, 40, 59, 60});
    EXPECT_LT(expected_row_length(p), 14.0);
    EXPECT_GT(expected_row_length(p), 13.9);
    // mean == row_min: every row has row_min entries.
    p.n = 1000;
    p.mean = 3.0;
    const Csr<double> b = random_rows(p);
    EXPECT_EQ(b.nnz(), 3000);
    EXPECT_EQ(expected_row_length(p), 3.0);
}

TEST(RandomRows, PowerLawLengthsHaveTheHeavyTail)
{
    RandomRowsParams p;
    p.n = 1000000;
    p.distribution = RowLengthDistribution::power_law;
    p.row_min = 1;
    p.row_max = 2000;
    p.exponent = 2.0;
    p.bandwidth = 2000;
    p.seed = 9;
    const Csr<double> a = random_rows(p);
    expect_lengths_follow(a, p, {1, 2, 3, 10, 100});
    // Tail: P(L >= 1000) = 3.0e-4 (about 300 rows), P(L >= 1900) = 1.6e-5 (about 16 rows).
    const std::vector<double> f = pmf(p);
    double p1000 = 0.0;
    for (index_type l = 1000; l <= 2000; ++l) p1000 += f[static_cast<std::size_t>(l - 1)];
    std::int64_t tail = 0;
    index_type longest = 0;
    for (index_type i = 0; i < a.num_rows; ++i) {
        tail += row_len(a, i) >= 1000;
        longest = std::max(longest, row_len(a, i));
    }
    EXPECT_NEAR(static_cast<double>(tail), p.n * p1000, 6.0 * std::sqrt(p.n * p1000));
    EXPECT_GT(tail, 150);
    EXPECT_GE(longest, 1900);
    // A steeper exponent has a lighter tail and a smaller mean.
    RandomRowsParams steep = p;
    steep.exponent = 2.5;
    EXPECT_LT(expected_row_length(steep), expected_row_length(p));
}

/// Checks the structure every random_rows matrix must have: valid CSR (sorted distinct columns),
/// columns within the band, diagonal present and equal to 1 + sum |off-diagonal| (strictly
/// dominant), off-diagonal magnitudes in [0.1, 1], row lengths min(L, columns of the band).
void expect_structure(const Csr<double>& a, const RandomRowsParams& p)
{
    validate(a, "random_rows");
    ASSERT_EQ(a.num_rows, p.n);
    ASSERT_EQ(a.num_cols, p.n);
    for (index_type i = 0; i < a.num_rows; ++i) {
        const std::int64_t lo = std::max<std::int64_t>(0, std::int64_t{i} - p.bandwidth);
        const std::int64_t hi = std::min<std::int64_t>(p.n - 1, std::int64_t{i} + p.bandwidth);
        const std::int64_t avail = hi - lo + 1;
        ASSERT_LE(row_len(a, i), std::min<std::int64_t>(p.row_max, avail)) << "row " << i;
        ASSERT_GE(row_len(a, i), std::min<std::int64_t>(p.row_min, avail)) << "row " << i;
        double diag = 0.0, off = 0.0;
        int diags = 0;
        for (index_type k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
            const index_type j = a.col_idx[k];
            ASSERT_GE(j, lo) << "row " << i;
            ASSERT_LE(j, hi) << "row " << i;
            if (j == i) {
                diag = a.values[k];
                ++diags;
                continue;
            }
            ASSERT_GE(std::abs(a.values[k]), 0.1) << "row " << i;
            ASSERT_LE(std::abs(a.values[k]), 1.0) << "row " << i;
            off += std::abs(a.values[k]);
        }
        ASSERT_EQ(diags, 1) << "row " << i;
        ASSERT_NEAR(diag, 1.0 + off, 1e-13 * diag) << "row " << i;
        ASSERT_GT(diag, off) << "row " << i;
    }
}

/// Off-diagonal offsets j - i of the rows at least `bandwidth` from either end fall uniformly
/// on [-bandwidth, bandwidth] \ {0}: 8 equal bins, each within 6 standard deviations.
void expect_uniform_offsets(const Csr<double>& a, index_type bandwidth)
{
    std::vector<double> bins(8, 0.0);
    double total = 0.0;
    for (index_type i = bandwidth; i + bandwidth < a.num_rows; ++i) {
        for (index_type k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
            const index_type d = a.col_idx[k] - i;
            if (d == 0) continue;
            const index_type pos = d < 0 ? d + bandwidth : d + bandwidth - 1;  // in [0, 2bw)
            bins[static_cast<std::size_t>(std::int64_t{pos} * 8 / (2 * bandwidth))] += 1.0;
            total += 1.0;
        }
    }
    ASSERT_GT(total, 10000.0);
    for (std::size_t b = 0; b < bins.size(); ++b) {
        const double sd = std::sqrt(total * (1.0 / 8) * (7.0 / 8));
        EXPECT_NEAR(bins[b], total / 8, 6.0 * sd) << "bin " << b;
    }
}

TEST(RandomRows, StructureForEveryColumnSampler)
{
    RandomRowsParams p;
    p.n = 30000;
    p.seed = 3;
    // Selection sampling (more than half of the band), the bitmap, and sort-and-deduplicate.
    struct Case {
        index_type row_min, row_max, bandwidth;
    };
    for (const Case c : {Case{20, 41, 20}, Case{2, 30, 1000}, Case{2, 12, 9000}}) {
        p.row_min = c.row_min;
        p.row_max = c.row_max;
        p.bandwidth = c.bandwidth;
        SCOPED_TRACE(testing::Message() << "bandwidth " << c.bandwidth);
        const Csr<double> a = random_rows(p);
        expect_structure(a, p);
        expect_uniform_offsets(a, c.bandwidth);
    }
    p.distribution = RowLengthDistribution::power_law;  // long rows near the edges are clamped
    p.row_min = 1;
    p.row_max = 300;
    p.exponent = 1.5;
    p.bandwidth = 100;
    expect_structure(random_rows(p), p);
}

TEST(RandomRows, RowsLongerThanTheBandAreClampedToIt)
{
    RandomRowsParams p;
    p.n = 50;
    p.row_min = p.row_max = 41;
    p.bandwidth = 3;  // every row takes its whole band [i - 3, i + 3] clipped to [0, 50)
    const Csr<double> a = random_rows(p);
    expect_structure(a, p);
    for (index_type i = 0; i < p.n; ++i) {
        const index_type lo = std::max(0, i - 3), hi = std::min(p.n - 1, i + 3);
        ASSERT_EQ(row_len(a, i), hi - lo + 1);
        for (index_type k = 0; k < row_len(a, i); ++k) {
            EXPECT_EQ(a.col_idx[a.row_ptr[i] + k], lo + k);
        }
    }
    p.bandwidth = 0;  // diagonal only
    const Csr<double> d = random_rows(p);
    EXPECT_EQ(d.nnz(), 50);
    EXPECT_EQ(d.values, std::vector<double>(50, 1.0));
    p.n = 1;
    p.row_min = p.row_max = 1;
    EXPECT_EQ(random_rows(p).nnz(), 1);
}

/// FNV-1a over the CSR arrays (values by bit pattern).
std::uint64_t fingerprint(const Csr<double>& a)
{
    std::uint64_t h = 0xcbf29ce484222325ULL;
    auto eat = [&](const void* data, std::size_t bytes) {
        const auto* c = static_cast<const unsigned char*>(data);
        for (std::size_t k = 0; k < bytes; ++k) h = (h ^ c[k]) * 0x100000001b3ULL;
    };
    eat(a.row_ptr.data(), a.row_ptr.size() * sizeof(index_type));
    eat(a.col_idx.data(), a.col_idx.size() * sizeof(index_type));
    eat(a.values.data(), a.values.size() * sizeof(double));
    return h;
}

TEST(RandomRows, SameSeedSameMatrixOtherSeedOtherMatrix)
{
    for (auto dist : {RowLengthDistribution::uniform, RowLengthDistribution::geometric,
                      RowLengthDistribution::power_law}) {
        RandomRowsParams p;
        p.n = 5000;
        p.distribution = dist;
        p.row_min = 1;
        p.row_max = 200;
        p.mean = 10.0;
        p.exponent = 2.0;
        p.bandwidth = 300;
        p.seed = 11;
        const Csr<double> a = random_rows(p), b = random_rows(p);
        EXPECT_EQ(a.row_ptr, b.row_ptr);
        EXPECT_EQ(a.col_idx, b.col_idx);
        EXPECT_EQ(a.values, b.values);
        p.seed = 12;
        const Csr<double> c = random_rows(p);
        EXPECT_NE(a.row_ptr, c.row_ptr);
        EXPECT_NE(a.values, c.values);
    }
}

TEST(RandomRows, PinnedOutputForASeed)
{
    // Only integer arithmetic and IEEE basic operations (no libm, no fused multiply-add: see
    // matrices/CMakeLists.txt) make these matrices, so they are the same on every platform;
    // a change here changes every generated set.
    RandomRowsParams p;
    p.n = 1000;
    p.row_min = 1;
    p.row_max = 30;
    p.bandwidth = 50;
    p.seed = 2024;
    const Csr<double> u = random_rows(p);
    p.distribution = RowLengthDistribution::geometric;
    p.mean = 6.5;
    const Csr<double> g = random_rows(p);
    const Csr<double> b = banded(500, 5, 2.0, 2024);
    EXPECT_EQ(u.nnz(), 15645);
    EXPECT_EQ(fingerprint(u), 0xc3e8c7305dd34f47ULL);
    EXPECT_EQ(g.nnz(), 6567);
    EXPECT_EQ(fingerprint(g), 0x66c03e439efb60aeULL);
    EXPECT_EQ(fingerprint(b), 0x11841cea7c3db573ULL);
}

TEST(RandomRows, ErrorsNameTheParameter)
{
    RandomRowsParams ok;
    ok.n = 100;
    ok.row_min = 2;
    ok.row_max = 10;
    ok.bandwidth = 5;
    struct Case {
        const char* expected;
        void (*edit)(RandomRowsParams&);
    };
    const Case cases[] = {
        {"n = 0", [](RandomRowsParams& p) { p.n = 0; }},
        {"row_min = 0", [](RandomRowsParams& p) { p.row_min = 0; }},
        {"row_min = 11 > row_max = 10", [](RandomRowsParams& p) { p.row_min = 11; }},
        {"row_max = 101 > n = 100", [](RandomRowsParams& p) { p.row_max = 101; }},
        {"bandwidth = -1", [](RandomRowsParams& p) { p.bandwidth = -1; }},
        {"mean = 1.5 outside [row_min, row_max]",
         [](RandomRowsParams& p) {
             p.distribution = RowLengthDistribution::geometric;
             p.mean = 1.5;
         }},
        {"mean = 10.5", [](RandomRowsParams& p) {
             p.distribution = RowLengthDistribution::geometric;
             p.mean = 10.5;
         }},
        {"mean = nan", [](RandomRowsParams& p) {
             p.distribution = RowLengthDistribution::geometric;
             p.mean = NAN;
         }},
        {"exponent = 0", [](RandomRowsParams& p) {
             p.distribution = RowLengthDistribution::power_law;
             p.exponent = 0.0;
         }},
        {"exponent = inf", [](RandomRowsParams& p) {
             p.distribution = RowLengthDistribution::power_law;
             p.exponent = INFINITY;
         }},
    };
    for (const Case& c : cases) {
        RandomRowsParams p = ok;
        c.edit(p);
        try {
            random_rows(p);
            ADD_FAILURE() << "no exception for " << c.expected;
        } catch (const std::invalid_argument& e) {
            EXPECT_NE(std::string(e.what()).find(c.expected), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find("random_rows"), std::string::npos) << e.what();
        }
        EXPECT_THROW(check_random_rows(p), std::invalid_argument) << c.expected;
        EXPECT_THROW(expected_row_length(p), std::invalid_argument) << c.expected;
    }
    EXPECT_NO_THROW(check_random_rows(ok));
}

TEST(RandomRows, NonzeroOverflowIsCaught)
{
    RandomRowsParams p;
    p.n = 2147483647;
    p.row_min = 2;
    p.row_max = 2;
    p.bandwidth = 1;  // at least 2 per row: fails before allocating anything
    EXPECT_THROW(random_rows(p), std::invalid_argument);
    p.n = 30000000;  // at least 1 per row fits; about 100.5 per row overflows after ~21M rows
    p.row_min = 1;
    p.row_max = 200;
    p.bandwidth = 200;
    try {
        random_rows(p);
        ADD_FAILURE() << "no exception";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("overflow the 32-bit index type"), std::string::npos)
            << e.what();
    }
}

TEST(Banded, ExactPatternAndDegreeOfDominance)
{
    const index_type n = 60, K = 7;
    for (double d : {0.5, 1.0, 10.0, 1e4}) {
        SCOPED_TRACE(testing::Message() << "d = " << d);
        const Csr<double> a = banded(n, K, d, 5);
        validate(a, "banded");
        EXPECT_EQ(a.nnz(), n * (2 * K + 1) - K * (K + 1));
        double ratio_min = INFINITY, ratio_max = 0.0;
        for (index_type i = 0; i < n; ++i) {
            const index_type lo = std::max(0, i - K), hi = std::min(n - 1, i + K);
            ASSERT_EQ(row_len(a, i), hi - lo + 1);
            double diag = 0.0, off = 0.0;
            for (index_type k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
                ASSERT_EQ(a.col_idx[k], lo + (k - a.row_ptr[i]));
                if (a.col_idx[k] == i) {
                    diag = a.values[k];
                } else {
                    ASSERT_GE(std::abs(a.values[k]), 0.1);
                    ASSERT_LE(std::abs(a.values[k]), 1.0);
                    off += std::abs(a.values[k]);
                }
            }
            ASSERT_GT(diag, 0.0);
            ratio_min = std::min(ratio_min, diag / off);
            ratio_max = std::max(ratio_max, diag / off);
        }
        // li2012 footnote 1 with equality in every row: the degree of dominance is d itself.
        EXPECT_NEAR(ratio_min, d, 1e-12 * d);
        EXPECT_NEAR(ratio_max, d, 1e-12 * d);
    }
}

TEST(Banded, DeterministicSignsMixedAndErrors)
{
    const Csr<double> a = banded(1000, 16, 1.0, 42), b = banded(1000, 16, 1.0, 42);
    EXPECT_EQ(a.values, b.values);
    EXPECT_NE(a.values, banded(1000, 16, 1.0, 43).values);
    const auto negative =
        std::count_if(a.values.begin(), a.values.end(), [](double v) { return v < 0; });
    EXPECT_NEAR(static_cast<double>(negative), (a.nnz() - 1000) / 2.0,
                6.0 * std::sqrt(a.nnz() / 4.0));
    EXPECT_EQ(banded(2, 1, 1.0, 1).nnz(), 4);  // smallest: a full 2 x 2
    const struct {
        index_type n, K;
        double d;
        const char* expected;
    } bad[] = {{1, 1, 1.0, "n = 1"},          {10, 0, 1.0, "K = 0"},
               {10, 10, 1.0, "K = 10, expected 1 <= K < n = 10"},
               {10, 3, 0.0, "d = 0"},         {10, 3, -1.0, "d = -1"},
               {10, 3, NAN, "d = nan"},       {2000000000, 1000, 1.0, "overflow"}};
    for (const auto& c : bad) {
        try {
            banded(c.n, c.K, c.d, 1);
            ADD_FAILURE() << "no exception for " << c.expected;
        } catch (const std::invalid_argument& e) {
            EXPECT_NE(std::string(e.what()).find(c.expected), std::string::npos) << e.what();
        }
    }
}

// BandedSigns::negative: the same magnitudes as the random-sign matrix of the seed, every
// off-diagonal negative (a Z-matrix with a positive diagonal), the degree of dominance exactly d.
TEST(Banded, NegativeSignsGiveAnMMatrixOfTheSameMagnitudes)
{
    const index_type n = 80, K = 6;
    for (double d : {1.0, 3.0}) {
        SCOPED_TRACE(testing::Message() << "d = " << d);
        const Csr<double> r = banded(n, K, d, 11, BandedSigns::random);
        const Csr<double> m = banded(n, K, d, 11, BandedSigns::negative);
        validate(m, "banded");
        EXPECT_EQ(banded(n, K, d, 11).values, r.values);  // the default is random
        ASSERT_EQ(m.row_ptr, r.row_ptr);
        ASSERT_EQ(m.col_idx, r.col_idx);
        double ratio_min = INFINITY, ratio_max = 0.0;
        for (index_type i = 0; i < n; ++i) {
            double diag = 0.0, off = 0.0, signed_sum = 0.0;
            for (index_type k = m.row_ptr[i]; k < m.row_ptr[i + 1]; ++k) {
                if (m.col_idx[k] == i) {
                    diag = m.values[k];
                    EXPECT_EQ(m.values[k], r.values[k]);  // same diagonal
                } else {
                    ASSERT_LT(m.values[k], 0.0) << "row " << i << " column " << m.col_idx[k];
                    ASSERT_EQ(m.values[k], -std::abs(r.values[k]));
                    off += std::abs(m.values[k]);
                    signed_sum += m.values[k];
                }
            }
            ASSERT_GT(diag, 0.0);
            ratio_min = std::min(ratio_min, diag / off);
            ratio_max = std::max(ratio_max, diag / off);
            // Row sum a_ii + sum_j a_ij = (d - 1) sum_j |a_ij|: zero at d = 1 (weak dominance).
            EXPECT_NEAR(diag + signed_sum, (d - 1.0) * off, 1e-12 * diag);
        }
        EXPECT_NEAR(ratio_min, d, 1e-12 * d);
        EXPECT_NEAR(ratio_max, d, 1e-12 * d);
    }
    // Some random-sign values are positive (the two patterns differ).
    const Csr<double> r = banded(n, K, 1.0, 11);
    EXPECT_TRUE(std::any_of(r.values.begin(), r.values.end(), [&](double v) { return v > 0; }));
    EXPECT_NE(r.values, banded(n, K, 1.0, 11, BandedSigns::negative).values);
}

TEST(Banded, SignNamesRoundTrip)
{
    for (BandedSigns s : {BandedSigns::random, BandedSigns::negative})
        EXPECT_EQ(parse_banded_signs(to_string(s)), s);
    EXPECT_STREQ(to_string(BandedSigns::negative), "negative");
    try {
        parse_banded_signs("positive");
        ADD_FAILURE() << "no exception";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("signs = 'positive', expected \"random\" or "
                                             "\"negative\""),
                  std::string::npos)
            << e.what();
    }
}

}  // namespace
}  // namespace kbench
