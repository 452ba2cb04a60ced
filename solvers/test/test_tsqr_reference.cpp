// CPU tests of the reference TSQR family (solvers/orthogonalization/tsqr.hpp) on blocks of
// controlled condition number: each method's loss of orthogonality is of the order yamazaki2014
// (Sec. V, table of TSQR methods) and Fukaya et al. 2020 give, failures are a status naming the
// column, and bad arguments are rejected by name.
#include "solvers/orthogonalization/tsqr.hpp"

#include "kernels/test/expect_invalid.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace kbench::ortho {
namespace {

constexpr std::int64_t n = 3000;
constexpr int k = 12;
constexpr double eps = std::numeric_limits<double>::epsilon();

struct Factored {
    TsqrOutcome outcome;
    TsqrQuality quality;
    std::vector<double> r;
};

/// Factorizes a block of condition number kappa stored with leading dimension ld = n + 5.
Factored factor(TsqrMethod method, double kappa, std::int64_t block_rows = 0)
{
    const std::vector<double> v0 = conditioned_block(n, k, kappa, 42);
    constexpr std::int64_t ld = n + 5;
    std::vector<double> v(static_cast<std::size_t>(ld) * k, -7.0), r(k * k, -7.0);
    for (int j = 0; j < k; ++j)
        for (std::int64_t i = 0; i < n; ++i) v[j * ld + i] = v0[j * n + i];
    Factored run;
    run.outcome = reference::tsqr(method, n, k, v.data(), ld, r.data(), k, block_rows);
    for (int j = 0; j < k; ++j)  // the padding rows are never touched
        for (std::int64_t i = n; i < ld; ++i) EXPECT_EQ(v[j * ld + i], -7.0);
    run.quality = tsqr_quality(n, k, v0.data(), n, v.data(), ld, r.data(), k);
    run.r = r;
    return run;
}

TEST(TsqrReference, EveryMethodIsExactOnAWellConditionedBlock)
{
    for (const TsqrMethod m : tsqr_methods()) {
        SCOPED_TRACE(to_string(m));
        const Factored run = factor(m, 10.0);
        ASSERT_EQ(run.outcome.status, TsqrStatus::ok) << run.outcome.detail;
        EXPECT_LT(run.quality.orthogonality, 100 * eps);
        EXPECT_LT(run.quality.residual, 100 * eps);
        for (int j = 0; j < k; ++j) {
            EXPECT_GT(run.r[j * k + j], 0.0) << "R diagonal " << j;
            for (int i = j + 1; i < k; ++i) EXPECT_EQ(run.r[j * k + i], 0.0);
        }
    }
}

TEST(TsqrReference, LossOfOrthogonalityFollowsTheKnownOrders)
{
    // MGS loses ~ eps kappa: visible at kappa = 1e8, bounded by a modest multiple of it.
    const Factored mgs = factor(TsqrMethod::mgs, 1e8);
    ASSERT_EQ(mgs.outcome.status, TsqrStatus::ok);
    EXPECT_GT(mgs.quality.orthogonality, 1e3 * eps);
    EXPECT_LT(mgs.quality.orthogonality, 1e3 * eps * 1e8);
    // CholQR and SVQR lose ~ eps kappa^2: at kappa = 1e5 far more than MGS does.
    for (const TsqrMethod m : {TsqrMethod::cholqr, TsqrMethod::svqr}) {
        SCOPED_TRACE(to_string(m));
        const Factored run = factor(m, 1e5);
        ASSERT_EQ(run.outcome.status, TsqrStatus::ok) << run.outcome.detail;
        EXPECT_GT(run.quality.orthogonality, 1e-8);
        EXPECT_LT(run.quality.orthogonality, 1e3 * eps * 1e10);
        EXPECT_LT(run.quality.residual, 1e3 * eps);
    }
    // Reorthogonalized and Householder methods stay at eps where their conditions hold.
    const std::pair<TsqrMethod, double> stable[] = {{TsqrMethod::cgs2, 1e12},
                                                    {TsqrMethod::cholqr2, 1e7},
                                                    {TsqrMethod::caqr, 1e15},
                                                    {TsqrMethod::shifted_cholqr3, 1e12}};
    for (const auto& [m, kappa] : stable) {
        SCOPED_TRACE(std::string{to_string(m)} + " kappa " + std::to_string(kappa));
        const Factored run = factor(m, kappa);
        ASSERT_EQ(run.outcome.status, TsqrStatus::ok) << run.outcome.detail;
        EXPECT_LT(run.quality.orthogonality, 100 * eps);
        EXPECT_LT(run.quality.residual, 100 * eps);
    }
}

TEST(TsqrReference, CholqrReportsTheFailingPivotInsteadOfProducingNaN)
{
    const Factored run = factor(TsqrMethod::cholqr, 1e12);  // eps kappa^2 >> 1
    EXPECT_EQ(run.outcome.status, TsqrStatus::not_positive_definite);
    EXPECT_GE(run.outcome.column, 1);
    EXPECT_LT(run.outcome.column, k);
    EXPECT_NE(run.outcome.detail.find("pivot " + std::to_string(run.outcome.column)),
              std::string::npos)
        << run.outcome.detail;
}

TEST(TsqrReference, RankDeficientBlocksAreAStatus)
{
    std::vector<double> v = conditioned_block(200, 4, 10.0, 7), r(16);
    for (int i = 0; i < 200; ++i) v[2 * 200 + i] = v[0 * 200 + i];  // column 2 = column 0
    std::vector<double> copy = v;
    EXPECT_EQ(reference::tsqr(TsqrMethod::mgs, 200, 4, copy.data(), 200, r.data(), 4).column, 2);
    copy = v;
    EXPECT_EQ(reference::tsqr(TsqrMethod::cholqr, 200, 4, copy.data(), 200, r.data(), 4).status,
              TsqrStatus::not_positive_definite);
}

TEST(TsqrReference, CaqrBlockSizesDoNotChangeTheResult)
{
    for (const std::int64_t h : {std::int64_t{k}, std::int64_t{100}, std::int64_t{1000}, n}) {
        SCOPED_TRACE(h);
        const Factored run = factor(TsqrMethod::caqr, 1e6, h);
        ASSERT_EQ(run.outcome.status, TsqrStatus::ok);
        EXPECT_LT(run.quality.orthogonality, 100 * eps);
        EXPECT_LT(run.quality.residual, 100 * eps);
    }
}

TEST(TsqrReference, SinglePrecisionWorksInSinglePrecision)
{
    const std::vector<double> v0 = conditioned_block(500, 6, 10.0, 3);
    for (const TsqrMethod m : tsqr_methods()) {
        SCOPED_TRACE(to_string(m));
        std::vector<float> v(v0.begin(), v0.end()), r(36);
        const std::vector<float> input = v;
        ASSERT_EQ(reference::tsqr(m, 500, 6, v.data(), 500, r.data(), 6).status, TsqrStatus::ok);
        const TsqrQuality q = tsqr_quality(500, 6, input.data(), 500, v.data(), 500, r.data(), 6);
        EXPECT_LT(q.orthogonality, 1e-5);
        EXPECT_LT(q.residual, 1e-5);
    }
}

TEST(TsqrReference, ConditionedBlockHasTheRequestedConditionNumber)
{
    // R of a stable QR has the block's singular values, so the product of its diagonal (|det R|)
    // is the product of the requested s_j = kappa^(-j/(k-1)).
    const std::vector<double> v = conditioned_block(400, 5, 1e4, 11);
    std::vector<double> q = v, r(25);
    ASSERT_EQ(reference::tsqr(TsqrMethod::caqr, 400, 5, q.data(), 400, r.data(), 5).status,
              TsqrStatus::ok);
    // The product of R's diagonal is the product of the singular values: 1 * ... * 1e-4.
    double log_det = 0.0, expected = 0.0;
    for (int j = 0; j < 5; ++j) {
        log_det += std::log10(r[j * 5 + j]);
        expected += -4.0 * j / 4.0;
    }
    EXPECT_NEAR(log_det, expected, 1e-9);
    EXPECT_EQ(conditioned_block(400, 5, 1e4, 11), v);  // deterministic for a seed
}

TEST(TsqrReference, BadArgumentsNameTheParameter)
{
    std::vector<double> v(100), r(100);
    const auto tsqr = [&](std::int64_t nn, int kk, std::int64_t ld, int ldr, std::int64_t h,
                          const std::string& part) {
        test::expect_invalid(
            [&] { reference::tsqr(TsqrMethod::caqr, nn, kk, v.data(), ld, r.data(), ldr, h); },
            {part});
    };
    tsqr(10, 0, 10, 1, 0, "k = 0");
    tsqr(3, 4, 3, 4, 0, "n = 3, expected >= k");
    tsqr(10, 2, 9, 2, 0, "ld = 9");
    tsqr(10, 2, 10, 1, 0, "ldr = 1");
    tsqr(10, 4, 10, 4, 3, "block_rows = 3");
    test::expect_invalid(
        [&] { reference::tsqr<double>(TsqrMethod::mgs, 10, 2, nullptr, 10, r.data(), 2); },
        {"V = null"});
    test::expect_invalid([] { conditioned_block(10, 2, 0.5, 1); }, {"kappa = 0.5"});
    EXPECT_THROW(parse_tsqr_method("householder"), std::invalid_argument);
    for (const TsqrMethod m : tsqr_methods()) EXPECT_EQ(parse_tsqr_method(to_string(m)), m);
}

}  // namespace
}  // namespace kbench::ortho
