// GPU TSQR and BOrth (solvers/orthogonalization/tsqr_gpu.hpp) against the CPU references of
// tsqr.hpp on blocks of controlled condition number: every method agrees with its reference
// (R to a tolerance scaled by kappa eps, Q to the same orthogonality order), failures are a
// status naming the column (no NaN), padding rows are never touched, and BOrth leaves V
// orthogonal to Q with V_in = V_out + Q C. Argument errors need no GPU.
#include "kernels/base/cuda_handles.hpp"
#include "kernels/base/device_buffer.hpp"
#include "kernels/test/expect_invalid.hpp"
#include "kernels/test/gpu_test.hpp"
#include "solvers/orthogonalization/tsqr.hpp"
#include "solvers/orthogonalization/gpu_context.hpp"
#include "solvers/orthogonalization/tsqr_gpu.hpp"

#include <Eigen/Dense>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace kbench::ortho {
namespace {

constexpr double eps = std::numeric_limits<double>::epsilon();

using Gpu = GpuContext;

template <typename T>
struct Factored {
    TsqrOutcome outcome;
    TsqrQuality quality;
    std::vector<T> r;  // k x k
    std::vector<T> q;  // n x k (ld n)
};

/// GPU TSQR of `v0` (n x k, ld n) stored with ld = n + 3 and NaN padding rows, which must
/// stay NaN.
template <typename T>
Factored<T> gpu_tsqr(Gpu& gpu, TsqrMethod method, std::int64_t n, int k, const std::vector<T>& v0,
                std::int64_t block_rows = 0)
{
    const std::int64_t ld = n + 3;
    std::vector<T> padded(static_cast<std::size_t>(ld) * k, std::numeric_limits<T>::quiet_NaN());
    for (int j = 0; j < k; ++j)
        for (std::int64_t i = 0; i < n; ++i) padded[i + j * ld] = v0[i + j * n];
    device_buffer<T> v(padded);
    const std::size_t bytes =
        tsqr_workspace_bytes(method, gpu.handles(), n, k, sizeof(T), block_rows);
    device_buffer<unsigned char> ws(bytes);
    Factored<T> run;
    run.r.assign(static_cast<std::size_t>(k) * k, T(-7));
    run.outcome = tsqr(method, gpu.handles(), n, k, v.data(), ld, run.r.data(), k, ws.data(),
                       bytes, block_rows);
    const std::vector<T> out = v.to_host();
    run.q.resize(static_cast<std::size_t>(n) * k);
    for (int j = 0; j < k; ++j) {
        for (std::int64_t i = 0; i < n; ++i) run.q[i + j * n] = out[i + j * ld];
        for (std::int64_t i = n; i < ld; ++i)
            EXPECT_TRUE(std::isnan(out[i + j * ld])) << "padding row " << i << " written";
    }
    if (run.outcome.status == TsqrStatus::ok)
        run.quality = tsqr_quality(n, k, v0.data(), n, run.q.data(), n, run.r.data(), k);
    return run;
}

template <typename T>
std::vector<T> as(const std::vector<double>& v)
{
    return std::vector<T>(v.begin(), v.end());
}

TEST(TsqrGpu, EveryMethodMatchesItsReference)
{
    KBENCH_REQUIRE_GPU();
    Gpu gpu;
    constexpr std::int64_t n = 20000;
    for (const int k : {1, 8, 30, 64}) {
        const std::vector<double> v0 = conditioned_block(n, k, 1e3, 7);
        for (const TsqrMethod m : tsqr_methods()) {
            SCOPED_TRACE(std::string{to_string(m)} + ", k = " + std::to_string(k));
            const Factored<double> g = gpu_tsqr(gpu, m, n, k, v0);
            ASSERT_EQ(g.outcome.status, TsqrStatus::ok) << g.outcome.detail;
            std::vector<double> v = v0, r(static_cast<std::size_t>(k) * k);
            ASSERT_EQ(reference::tsqr(m, n, k, v.data(), n, r.data(), k).status, TsqrStatus::ok);
            const TsqrQuality ref = tsqr_quality(n, k, v0.data(), n, v.data(), n, r.data(), k);
            // The same algorithm in another summation order: the same orders of accuracy.
            EXPECT_LT(g.quality.orthogonality, std::max(100 * eps, 100 * ref.orthogonality));
            EXPECT_LT(g.quality.residual, 100 * eps);
            // R is unique (positive diagonal): it agrees to ~ kappa^2 eps (CholQR's bound).
            double rmax = 0.0, diff = 0.0;
            for (std::size_t e = 0; e < r.size(); ++e) {
                rmax = std::max(rmax, std::abs(r[e]));
                diff = std::max(diff, std::abs(r[e] - g.r[e]));
            }
            EXPECT_LE(diff, 1e6 * 100 * eps * rmax);
            for (int j = 0; j < k; ++j)
                for (int i = j + 1; i < k; ++i) EXPECT_EQ(g.r[i + j * k], 0.0);
        }
    }
}

TEST(TsqrGpu, LossOfOrthogonalityFollowsTheKnownOrders)
{
    KBENCH_REQUIRE_GPU();
    Gpu gpu;
    constexpr std::int64_t n = 20000;
    constexpr int k = 30;
    const Factored<double> mgs = gpu_tsqr(gpu, TsqrMethod::mgs, n, k, conditioned_block(n, k, 1e8, 3));
    ASSERT_EQ(mgs.outcome.status, TsqrStatus::ok) << mgs.outcome.detail;
    EXPECT_GT(mgs.quality.orthogonality, 1e3 * eps);
    EXPECT_LT(mgs.quality.orthogonality, 1e3 * eps * 1e8);
    for (const TsqrMethod m : {TsqrMethod::cholqr, TsqrMethod::svqr, TsqrMethod::cgs}) {
        SCOPED_TRACE(to_string(m));
        const Factored<double> g = gpu_tsqr(gpu, m, n, k, conditioned_block(n, k, 1e5, 3));
        ASSERT_EQ(g.outcome.status, TsqrStatus::ok) << g.outcome.detail;
        EXPECT_GT(g.quality.orthogonality, 1e-9);
        EXPECT_LT(g.quality.orthogonality, 1e3 * eps * 1e10);
    }
    const std::pair<TsqrMethod, double> stable[] = {{TsqrMethod::cgs2, 1e12},
                                                    {TsqrMethod::cholqr2, 1e7},
                                                    {TsqrMethod::caqr, 1e15},
                                                    {TsqrMethod::shifted_cholqr3, 1e12}};
    for (const auto& [m, kappa] : stable) {
        SCOPED_TRACE(to_string(m));
        const Factored<double> g = gpu_tsqr(gpu, m, n, k, conditioned_block(n, k, kappa, 3));
        ASSERT_EQ(g.outcome.status, TsqrStatus::ok) << g.outcome.detail;
        EXPECT_LT(g.quality.orthogonality, 1e3 * eps);
        EXPECT_LT(g.quality.residual, 1e3 * eps);
    }
}

TEST(TsqrGpu, FailuresAreAStatusNamingTheColumn)
{
    KBENCH_REQUIRE_GPU();
    Gpu gpu;
    constexpr std::int64_t n = 5000;
    constexpr int k = 12;
    // kappa^2 eps >> 1: CholQR's Gram matrix is not numerically positive definite.
    const Factored<double> chol =
        gpu_tsqr(gpu, TsqrMethod::cholqr, n, k, conditioned_block(n, k, 1e12, 5));
    EXPECT_EQ(chol.outcome.status, TsqrStatus::not_positive_definite);
    EXPECT_GE(chol.outcome.column, 1);
    EXPECT_NE(chol.outcome.detail.find("pivot"), std::string::npos);
    // Column 5 repeats column 2: Gram-Schmidt and SVQR report rank deficiency at column 5.
    std::vector<double> v = conditioned_block(n, k, 10.0, 5);
    for (std::int64_t i = 0; i < n; ++i) v[i + 5 * n] = v[i + 2 * n];
    for (const TsqrMethod m : {TsqrMethod::mgs, TsqrMethod::cgs, TsqrMethod::cgs2}) {
        SCOPED_TRACE(to_string(m));
        const Factored<double> g = gpu_tsqr(gpu, m, n, k, v);
        EXPECT_EQ(g.outcome.status, TsqrStatus::rank_deficient);
        EXPECT_EQ(g.outcome.column, 5) << g.outcome.detail;
    }
    const Factored<double> sv = gpu_tsqr(gpu, TsqrMethod::svqr, n, k, v);
    EXPECT_EQ(sv.outcome.status, TsqrStatus::rank_deficient) << sv.outcome.detail;
}

TEST(TsqrGpu, CaqrBlockSizesGiveTheSameFactorization)
{
    KBENCH_REQUIRE_GPU();
    Gpu gpu;
    constexpr std::int64_t n = 10007;
    constexpr int k = 16;
    const std::vector<double> v0 = conditioned_block(n, k, 1e6, 9);
    const Factored<double> one = gpu_tsqr(gpu, TsqrMethod::caqr, n, k, v0, n);
    ASSERT_EQ(one.outcome.status, TsqrStatus::ok);
    for (const std::int64_t h : {std::int64_t{k}, std::int64_t{1000}, std::int64_t{0}}) {
        SCOPED_TRACE("block_rows = " + std::to_string(h));
        const Factored<double> g = gpu_tsqr(gpu, TsqrMethod::caqr, n, k, v0, h);
        ASSERT_EQ(g.outcome.status, TsqrStatus::ok) << g.outcome.detail;
        EXPECT_LT(g.quality.orthogonality, 100 * eps);
        for (std::size_t e = 0; e < g.r.size(); ++e)
            EXPECT_NEAR(g.r[e], one.r[e], 1e3 * eps * std::abs(one.r[0]));
    }
}

TEST(TsqrGpu, SinglePrecision)
{
    KBENCH_REQUIRE_GPU();
    Gpu gpu;
    constexpr std::int64_t n = 8000;
    constexpr int k = 10;
    const std::vector<float> v0 = as<float>(conditioned_block(n, k, 1e2, 4));
    for (const TsqrMethod m : tsqr_methods()) {
        SCOPED_TRACE(to_string(m));
        const Factored<float> g = gpu_tsqr(gpu, m, n, k, v0);
        ASSERT_EQ(g.outcome.status, TsqrStatus::ok) << g.outcome.detail;
        EXPECT_LT(g.quality.residual, 1e-5);
        EXPECT_LT(g.quality.orthogonality, m == TsqrMethod::cholqr || m == TsqrMethod::svqr ||
                                                   m == TsqrMethod::cgs
                                               ? 1e-2
                                               : 1e-5);
    }
}

TEST(BorthGpu, LeavesVOrthogonalToQ)
{
    KBENCH_REQUIRE_GPU();
    Gpu gpu;
    constexpr std::int64_t n = 12000;
    for (const int kq : {5, 100}) {  // 100: two chunks of basis columns
        constexpr int kv = 10;
        const std::vector<double> q = [&] {
            std::vector<double> b = conditioned_block(n, kq, 1.0, 21);  // orthonormal columns
            return b;
        }();
        std::vector<double> v0 = conditioned_block(n, kv, 10.0, 22);
        for (auto& e : v0) e *= 3.0;
        for (const BorthMethod m : {BorthMethod::cgs, BorthMethod::cgs2, BorthMethod::mgs}) {
            SCOPED_TRACE(std::string{to_string(m)} + ", kq = " + std::to_string(kq));
            device_buffer<double> dq(q), dv(v0), dc(static_cast<std::size_t>(kq + 1) * kv);
            const std::size_t bytes = borth_workspace_bytes(m, n, kq, kv, 8);
            device_buffer<unsigned char> ws(bytes);
            borth(m, gpu.handles(), n, kq, dq.data(), n, kv, dv.data(), n, dc.data(), kq + 1,
                  ws.data(), bytes);
            gpu.stream.synchronize();
            const std::vector<double> v = dv.to_host(), c = dc.to_host();
            using Mat = Eigen::MatrixXd;
            const Eigen::Map<const Mat> Q(q.data(), n, kq), V(v.data(), n, kv), V0(v0.data(), n, kv);
            const Eigen::Map<const Mat, 0, Eigen::OuterStride<>> C(c.data(), kq, kv,
                                                                   Eigen::OuterStride<>(kq + 1));
            EXPECT_LT((Q.transpose() * V).norm(), 1e-12 * V0.norm());
            EXPECT_LT((V0 - V - Q * C).norm(), 1e-13 * V0.norm());
        }
    }
}

TEST(TsqrGpuArguments, BadArgumentsNameTheParameter)
{
    const GpuHandles none{};
    double fake = 0.0;
    using test::expect_invalid;
    expect_invalid([&] { tsqr_workspace_bytes(TsqrMethod::cholqr, none, 10, 65, 8); }, {"k = 65"});
    expect_invalid([&] { tsqr_workspace_bytes(TsqrMethod::cholqr, none, 3, 4, 8); }, {"n = 3"});
    expect_invalid([&] { tsqr_workspace_bytes(TsqrMethod::caqr, none, 100, 4, 8); },
                   {"handles.solver"});
    expect_invalid([&] { tsqr(TsqrMethod::mgs, none, 100, 4, &fake, 50, &fake, 4, &fake, 8); },
                   {"ld = 50"});
    expect_invalid([&] { tsqr(TsqrMethod::mgs, none, 100, 4, &fake, 100, &fake, 4, nullptr, 0); },
                   {"workspace"});
    expect_invalid([&] { borth_workspace_bytes(BorthMethod::cgs, 100, 0, 4, 8); }, {"kq = 0"});
    EXPECT_THROW(parse_borth_method("householder"), std::invalid_argument);
    EXPECT_EQ(parse_borth_method("cgs2"), BorthMethod::cgs2);
}

}  // namespace
}  // namespace kbench::ortho
