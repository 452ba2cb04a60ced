// Merged BiCGSTAB kernels (kernels/bicgstab_kernels.hpp), label gpu.
//
// CPU tests (run everywhere): hand-checked tiny cases of the reference kernels, the breakdown
// statuses on the references, a reference merged iteration that solves a tridiagonal system, and
// argument validation of launchers and references (checked before any CUDA call).
// GPU tests (KBENCH_REQUIRE_GPU): each kernel against its reference for n in {1, 31, 1000,
// 100003, 2^20}, float and double; a merged iteration sequence on GPU and CPU with a tridiagonal
// SpMV done on the host; determinism; the workspace counter reset; CUDA graph capture; n = 0;
// the breakdown statuses and their stickiness on the GPU.
//
// Tolerances:
// * Updated vectors (p, s, x, r, and r_hat, p, v of init) must be equal: both sides evaluate the
//   same expression with the same explicit fused multiply-adds (__fma_rn / std::fma) and IEEE
//   divisions, each correctly rounded, so the results are the same numbers.
// * Dot products: see dot_tolerance.
// * Scalars derived from dots (alpha = rho / rhat_v, omega = ts / tt): the dots' relative
//   tolerance plus 2 eps(T) for the quotient.
// * Merged iteration: see iteration_tolerance.
#include "kernels/base/cuda_check.hpp"
#include "kernels/base/cuda_handles.hpp"
#include "kernels/base/device_buffer.hpp"
#include "kernels/bicgstab_kernels.hpp"
#include "kernels/test/gpu_test.hpp"
#include "matrices/test/random_data.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace kbench::bicgstab {
namespace {

const std::int64_t sizes[] = {1, 31, 1000, 100003, std::int64_t{1} << 20};
constexpr double dbl_eps = std::numeric_limits<double>::epsilon();
constexpr double nan = std::numeric_limits<double>::quiet_NaN();
constexpr double inf = std::numeric_limits<double>::infinity();

constexpr int status_of(DeviceStatus s) { return static_cast<int>(s); }

// ------------------------------------------------------------------------------------------
// Host state of one iteration, and the kernels applied to it on the CPU or the GPU.

enum class Op { init, p_update, alpha_dot, s_update, omega_dot, xr_update };

/// Every vector of the merged iteration plus its scalars, in host memory.
template <typename T>
struct HostState {
    explicit HostState(std::int64_t length)
        : n{length}, r(size()), r_hat(size()), p(size()), v(size()), s(size()), t(size()), x(size())
    {}
    std::size_t size() const { return static_cast<std::size_t>(n); }

    std::int64_t n;
    std::vector<T> r, r_hat, p, v, s, t, x;
    DeviceScalars<T> sc{};
};

/// Random vectors (uniform in [-1, 1)) and scalars of a mid-iteration state.
template <typename T>
HostState<T> random_state(std::int64_t n, std::uint32_t seed)
{
    HostState<T> h(n);
    h.r = test::random_vector<T>(h.size(), seed);
    h.r_hat = test::random_vector<T>(h.size(), seed + 1);
    h.p = test::random_vector<T>(h.size(), seed + 2);
    h.v = test::random_vector<T>(h.size(), seed + 3);
    h.s = test::random_vector<T>(h.size(), seed + 4);
    h.t = test::random_vector<T>(h.size(), seed + 5);
    h.x = test::random_vector<T>(h.size(), seed + 6);
    h.sc.rho = T(0.8);
    h.sc.rho_old = T(1.25);
    h.sc.alpha = T(0.375);
    h.sc.omega = T(-0.625);
    h.sc.rhat_v = T(3);  // the fields below are outputs: values an op must overwrite
    h.sc.ts = T(5);
    h.sc.tt = T(7);
    h.sc.ss = T(11);
    h.sc.rr = T(13);
    return h;
}

template <typename T>
void run_reference(Op op, HostState<T>& h)
{
    switch (op) {
    case Op::init:
        reference::init(h.n, h.r.data(), h.r_hat.data(), h.p.data(), h.v.data(), &h.sc);
        break;
    case Op::p_update: reference::p_update(h.n, h.r.data(), h.v.data(), h.p.data(), &h.sc); break;
    case Op::alpha_dot: reference::alpha_dot(h.n, h.r_hat.data(), h.v.data(), &h.sc); break;
    case Op::s_update: reference::s_update(h.n, h.r.data(), h.v.data(), h.s.data(), &h.sc); break;
    case Op::omega_dot: reference::omega_dot(h.n, h.t.data(), h.s.data(), &h.sc); break;
    case Op::xr_update:
        reference::xr_update(h.n, h.r_hat.data(), h.p.data(), h.s.data(), h.t.data(), h.x.data(),
                             h.r.data(), &h.sc);
        break;
    }
}

/// The same state in device memory, with a workspace (zero-filled once, then reused by every
/// launch) and a stream.
template <typename T>
class DeviceState {
public:
    explicit DeviceState(std::int64_t length)
        : n{length}, r(size()), r_hat(size()), p(size()), v(size()), s(size()), t(size()),
          x(size()), sc(1), ws(std::vector<unsigned char>(workspace_bytes(length), 0))
    {}
    std::size_t size() const { return static_cast<std::size_t>(n); }

    void upload(const HostState<T>& h)
    {
        r.copy_from_host(h.r.data(), h.size());
        r_hat.copy_from_host(h.r_hat.data(), h.size());
        p.copy_from_host(h.p.data(), h.size());
        v.copy_from_host(h.v.data(), h.size());
        s.copy_from_host(h.s.data(), h.size());
        t.copy_from_host(h.t.data(), h.size());
        x.copy_from_host(h.x.data(), h.size());
        sc.copy_from_host(&h.sc, 1);
    }
    void download(HostState<T>& h) const
    {
        h.r = r.to_host();
        h.r_hat = r_hat.to_host();
        h.p = p.to_host();
        h.v = v.to_host();
        h.s = s.to_host();
        h.t = t.to_host();
        h.x = x.to_host();
        h.sc = scalars();
    }
    DeviceScalars<T> scalars() const { return sc.to_host()[0]; }

    /// Enqueues op on the stream without synchronizing (also used under graph capture).
    void enqueue(Op op)
    {
        switch (op) {
        case Op::init:
            init(n, r.data(), r_hat.data(), p.data(), v.data(), sc.data(), ws.data(), ws.size(),
                 stream);
            break;
        case Op::p_update: p_update(n, r.data(), v.data(), p.data(), sc.data(), stream); break;
        case Op::alpha_dot:
            alpha_dot(n, r_hat.data(), v.data(), sc.data(), ws.data(), ws.size(), stream);
            break;
        case Op::s_update: s_update(n, r.data(), v.data(), s.data(), sc.data(), stream); break;
        case Op::omega_dot:
            omega_dot(n, t.data(), s.data(), sc.data(), ws.data(), ws.size(), stream);
            break;
        case Op::xr_update:
            xr_update(n, r_hat.data(), p.data(), s.data(), t.data(), x.data(), r.data(), sc.data(),
                      ws.data(), ws.size(), stream);
            break;
        }
    }
    void run(Op op)
    {
        enqueue(op);
        stream.synchronize();
    }

    std::int64_t n;
    device_buffer<T> r, r_hat, p, v, s, t, x;
    device_buffer<DeviceScalars<T>> sc;
    device_buffer<unsigned char> ws;
    cuda_stream stream;
};

/// Runs op on the GPU from h's data (fresh device state) and copies everything back into h.
template <typename T>
void run_gpu(Op op, HostState<T>& h)
{
    DeviceState<T> d(h.n);
    d.upload(h);
    d.run(op);
    d.download(h);
}

// ------------------------------------------------------------------------------------------
// Comparisons.

constexpr const char* field_names[] = {"rho", "rho_old", "alpha", "omega", "rhat_v",
                                       "ts",  "tt",      "ss",    "rr"};

template <typename T>
std::array<T, 9> fields(const DeviceScalars<T>& sc)
{
    return {sc.rho, sc.rho_old, sc.alpha, sc.omega, sc.rhat_v, sc.ts, sc.tt, sc.ss, sc.rr};
}

/// The fields not named in `changed` (and the status) are equal.
template <typename T>
void expect_fields_equal_except(const DeviceScalars<T>& got, const DeviceScalars<T>& ref,
                                std::initializer_list<std::string> changed)
{
    const std::array<T, 9> g = fields(got), e = fields(ref);
    for (std::size_t i = 0; i < g.size(); ++i) {
        if (std::find(changed.begin(), changed.end(), field_names[i]) != changed.end()) continue;
        EXPECT_EQ(g[i], e[i]) << "field " << field_names[i];
    }
    EXPECT_EQ(got.status, ref.status);
}

template <typename T>
bool same_bits(const T& a, const T& b)
{
    return std::memcmp(&a, &b, sizeof(T)) == 0;
}

template <typename T>
void expect_bitwise_equal(const DeviceScalars<T>& a, const DeviceScalars<T>& b)
{
    const std::array<T, 9> fa = fields(a), fb = fields(b);
    for (std::size_t i = 0; i < fa.size(); ++i)
        EXPECT_TRUE(same_bits(fa[i], fb[i])) << "field " << field_names[i] << ": " << fa[i]
                                             << " vs " << fb[i];
    EXPECT_EQ(a.status, b.status);
}

template <typename T>
void expect_bitwise_equal(const std::vector<T>& a, const std::vector<T>& b, const char* what)
{
    ASSERT_EQ(a.size(), b.size()) << what;
    EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(T)), 0) << what;
}

/// Element-by-element equality, reporting the count and the first mismatch (not 2^20 values).
template <typename T>
void expect_same_values(const std::vector<T>& got, const std::vector<T>& ref, const char* what)
{
    ASSERT_EQ(got.size(), ref.size()) << what;
    std::size_t bad = 0, first = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
        if (!(got[i] == ref[i])) {
            if (bad++ == 0) first = i;
        }
    }
    EXPECT_EQ(bad, 0u) << what << ": first mismatch at " << first << ": "
                       << (bad > 0 ? got[first] : T(0)) << " vs " << (bad > 0 ? ref[first] : T(0));
}

/// sum_i |a_i b_i| in double.
template <typename T>
double abs_dot(const std::vector<T>& a, const std::vector<T>& b)
{
    double s = 0.0;
    for (std::size_t i = 0; i < a.size(); ++i) s += std::abs(double(a[i]) * double(b[i]));
    return s;
}

/// Bound on |GPU dot - reference dot| for sum a_i b_i with sum |a_i b_i| = abs_sum and reference
/// value ref. Both sides add fused products in double, so each errs by at most
/// depth * eps(double) * abs_sum (Higham, Accuracy and Stability of Numerical Algorithms, 2nd
/// ed., Sec. 3.1; depth = the longest chain of additions). GPU: a per-thread chain of
/// ceil(n / (grid * 256)) <= 32 terms for n <= 2^20 on a GPU of >= 16 SMs (grid >= 128 blocks),
/// a 256-thread tree (8), at most 8 partials per thread of the finishing block and a second
/// tree (8): depth <= 56. Reference: pairwise with 8-term leaves, depth <= 8 + 17 = 25. Sum
/// 81 <= 128. Each side then rounds to T: 2 eps(T) |ref| covers both roundings.
template <typename T>
double dot_tolerance(double abs_sum, double ref)
{
    const double eps_t = std::numeric_limits<T>::epsilon();
    return 128.0 * dbl_eps * abs_sum + 2.0 * eps_t * std::abs(ref);
}

void expect_close(double got, double ref, double tol, const char* what)
{
    EXPECT_LE(std::abs(got - ref), tol) << what << ": got " << got << ", reference " << ref;
}

// ------------------------------------------------------------------------------------------
// Hand-checked reference kernels (CPU), float and double: every value below is exact in both.

template <typename T>
class BicgstabReference : public ::testing::Test {};
using ScalarTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(BicgstabReference, ScalarTypes);

TYPED_TEST(BicgstabReference, InitCopiesRAndResetsScalars)
{
    using T = TypeParam;
    const std::vector<T> r{3, 4};
    std::vector<T> r_hat(2, T(7)), p(2, T(7)), v(2, T(7));
    DeviceScalars<T> sc{T(9), T(9), T(9), T(9), T(9), T(9), T(9), T(9), T(9),
                        status_of(DeviceStatus::rhat_v_zero)};
    reference::init<T>(2, r.data(), r_hat.data(), p.data(), v.data(), &sc);
    EXPECT_EQ(r_hat, r);
    EXPECT_EQ(p, std::vector<T>(2, T(0)));
    EXPECT_EQ(v, std::vector<T>(2, T(0)));
    EXPECT_EQ(sc.rho, T(25));
    EXPECT_EQ(sc.rr, T(25));
    EXPECT_EQ(sc.rho_old, T(1));
    EXPECT_EQ(sc.alpha, T(1));
    EXPECT_EQ(sc.omega, T(1));
    EXPECT_EQ(sc.rhat_v, T(0));
    EXPECT_EQ(sc.ts, T(0));
    EXPECT_EQ(sc.tt, T(0));
    EXPECT_EQ(sc.ss, T(0));
    EXPECT_EQ(sc.status, status_of(DeviceStatus::ok));  // init restarts the iteration
}

TYPED_TEST(BicgstabReference, FirstPUpdateAfterInitGivesR)
{
    using T = TypeParam;
    const std::vector<T> r{T(0.5), T(-2), T(3)};
    std::vector<T> r_hat(3), p(3, T(1)), v(3, T(1));
    DeviceScalars<T> sc;
    reference::init<T>(3, r.data(), r_hat.data(), p.data(), v.data(), &sc);
    reference::p_update<T>(3, r.data(), v.data(), p.data(), &sc);
    EXPECT_EQ(p, r);
}

TYPED_TEST(BicgstabReference, PUpdate)
{
    using T = TypeParam;
    // beta = (2 / 1) * (1 / 2) = 1; p = r + (p - 2 v) = (1 + 2 - 2, 2 + 0 - 2).
    const std::vector<T> r{1, 2}, v{1, 1};
    std::vector<T> p{2, 0};
    DeviceScalars<T> sc;
    sc.rho = 2;
    sc.rho_old = 1;
    sc.alpha = 1;
    sc.omega = 2;
    reference::p_update<T>(2, r.data(), v.data(), p.data(), &sc);
    EXPECT_EQ(p, (std::vector<T>{1, 0}));
}

TYPED_TEST(BicgstabReference, AlphaDot)
{
    using T = TypeParam;
    const std::vector<T> r_hat{1, 2}, v{3, 4};
    DeviceScalars<T> sc;
    sc.rho = 22;
    reference::alpha_dot<T>(2, r_hat.data(), v.data(), &sc);
    EXPECT_EQ(sc.rhat_v, T(11));
    EXPECT_EQ(sc.alpha, T(2));
    EXPECT_EQ(sc.status, status_of(DeviceStatus::ok));
}

TYPED_TEST(BicgstabReference, SUpdate)
{
    using T = TypeParam;
    const std::vector<T> r{1, 2}, v{3, 4};
    std::vector<T> s(2);
    DeviceScalars<T> sc;
    sc.alpha = T(0.5);
    reference::s_update<T>(2, r.data(), v.data(), s.data(), &sc);
    EXPECT_EQ(s, (std::vector<T>{T(-0.5), T(0)}));
}

TYPED_TEST(BicgstabReference, OmegaDot)
{
    using T = TypeParam;
    const std::vector<T> t{1, 2}, s{3, 4};
    DeviceScalars<T> sc;
    reference::omega_dot<T>(2, t.data(), s.data(), &sc);
    EXPECT_EQ(sc.ts, T(11));
    EXPECT_EQ(sc.tt, T(5));
    EXPECT_EQ(sc.ss, T(25));
    EXPECT_EQ(sc.omega, T(11) / T(5));
    EXPECT_EQ(sc.status, status_of(DeviceStatus::ok));
}

TYPED_TEST(BicgstabReference, XrUpdate)
{
    using T = TypeParam;
    // x = x + 0.5 p + 2 s = (1 + 0.5 + 4, 1 + 1 + 0); r = s - 2 t = (0, 2);
    // rho = r_hat . r = 2, rr = 4, rho_old = the previous rho.
    const std::vector<T> r_hat{1, 1}, p{1, 2}, s{2, 0}, t{1, -1};
    std::vector<T> x{1, 1}, r(2);
    DeviceScalars<T> sc;
    sc.rho = 3;
    sc.alpha = T(0.5);
    sc.omega = 2;
    reference::xr_update<T>(2, r_hat.data(), p.data(), s.data(), t.data(), x.data(), r.data(), &sc);
    EXPECT_EQ(x, (std::vector<T>{T(5.5), T(2)}));
    EXPECT_EQ(r, (std::vector<T>{T(0), T(2)}));
    EXPECT_EQ(sc.rho_old, T(3));
    EXPECT_EQ(sc.rho, T(2));
    EXPECT_EQ(sc.rr, T(4));
    EXPECT_EQ(sc.status, status_of(DeviceStatus::ok));
}

TEST(BicgstabReference, ZeroLengthGivesZeroDots)
{
    DeviceScalars<double> sc;
    reference::init<double>(0, nullptr, nullptr, nullptr, nullptr, &sc);
    EXPECT_EQ(sc.rr, 0.0);
    EXPECT_EQ(sc.status, status_of(DeviceStatus::ok));
    reference::p_update<double>(0, nullptr, nullptr, nullptr, &sc);
    reference::s_update<double>(0, nullptr, nullptr, nullptr, &sc);
    reference::omega_dot<double>(0, nullptr, nullptr, &sc);
    EXPECT_EQ(sc.omega, 0.0);  // tt == ss == 0: half-step convergence, not a breakdown
    EXPECT_EQ(sc.status, status_of(DeviceStatus::ok));
    reference::xr_update<double>(0, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, &sc);
    EXPECT_EQ(sc.rr, 0.0);
    EXPECT_EQ(sc.status, status_of(DeviceStatus::ok));  // rr == 0: converged
    reference::alpha_dot<double>(0, nullptr, nullptr, &sc);
    EXPECT_EQ(sc.status, status_of(DeviceStatus::rhat_v_zero));
}

// ------------------------------------------------------------------------------------------
// A test matrix and merged iterations with the SpMV done on the host.

/// y = A x for the nonsymmetric, diagonally dominant tridiagonal matrix
/// A = tridiag(-1, 4 + 0.1 (i mod 7), -1.5).
void apply_tridiagonal(const std::vector<double>& x, std::vector<double>& y)
{
    const std::size_t n = x.size();
    y.assign(n, 0.0);
    for (std::size_t i = 0; i < n; ++i) {
        double sum = (4.0 + 0.1 * double(i % 7)) * x[i];
        if (i > 0) sum -= x[i - 1];
        if (i + 1 < n) sum -= 1.5 * x[i + 1];
        y[i] = sum;
    }
}

/// One merged iteration on the CPU (references), SpMVs by apply_tridiagonal.
void reference_iteration(HostState<double>& h)
{
    run_reference(Op::p_update, h);
    apply_tridiagonal(h.p, h.v);
    run_reference(Op::alpha_dot, h);
    run_reference(Op::s_update, h);
    apply_tridiagonal(h.s, h.t);
    run_reference(Op::omega_dot, h);
    run_reference(Op::xr_update, h);
}

/// One merged iteration on the GPU: vectors and scalars stay on the device; only p and s travel
/// to the host for the SpMV, and v and t back.
void gpu_iteration(DeviceState<double>& d)
{
    std::vector<double> y;
    d.run(Op::p_update);
    apply_tridiagonal(d.p.to_host(), y);
    d.v.copy_from_host(y.data(), y.size());
    d.run(Op::alpha_dot);
    d.run(Op::s_update);
    apply_tridiagonal(d.s.to_host(), y);
    d.t.copy_from_host(y.data(), y.size());
    d.run(Op::omega_dot);
    d.run(Op::xr_update);
}

TEST(BicgstabReference, MergedIterationSolvesTridiagonalSystem)
{
    // b = A x_true; from x0 = 0 the iteration must reach x_true (the reference kernels together
    // are BiCGSTAB), and the recursive residual rr must match the true one.
    const std::int64_t n = 50;
    const std::vector<double> x_true = test::random_vector<double>(n, 41);
    std::vector<double> b;
    apply_tridiagonal(x_true, b);
    HostState<double> h(n);
    h.r = b;
    run_reference(Op::init, h);
    const double rr0 = h.sc.rr;
    int iterations = 0;
    while (iterations < 40 && h.sc.rr > 1e-24 * rr0) {
        reference_iteration(h);
        ASSERT_EQ(h.sc.status, status_of(DeviceStatus::ok)) << "iteration " << iterations;
        ++iterations;
    }
    EXPECT_LT(iterations, 40) << "no convergence: rr / rr0 = " << h.sc.rr / rr0;
    double err = 0.0;
    for (std::int64_t i = 0; i < n; ++i) err = std::max(err, std::abs(h.x[i] - x_true[i]));
    EXPECT_LE(err, 1e-10);
    std::vector<double> ax;
    apply_tridiagonal(h.x, ax);
    double true_rr = 0.0;
    for (std::int64_t i = 0; i < n; ++i) true_rr += (b[i] - ax[i]) * (b[i] - ax[i]);
    EXPECT_LE(std::sqrt(true_rr), 1e-10 * std::sqrt(rr0));
}

// ------------------------------------------------------------------------------------------
// Breakdown scenarios, written once for a runner `run(Op, HostState<double>&)`: the reference
// on the CPU, or the GPU (upload, launch, download) with one workspace for the whole scenario.

using Runner = std::function<void(Op, HostState<double>&)>;

/// +1, -1, +1, ... (n even: orthogonal to all ones, and every partial sum is exact).
std::vector<double> alternating(std::int64_t n)
{
    std::vector<double> a(static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = i % 2 == 0 ? 1.0 : -1.0;
    return a;
}

void scenario_rhat_orthogonal_to_v(const Runner& run, std::int64_t n)
{
    HostState<double> h = random_state<double>(n, 100);
    h.r_hat.assign(h.size(), 1.0);
    h.v = alternating(n);
    run(Op::alpha_dot, h);
    EXPECT_EQ(h.sc.rhat_v, 0.0);
    EXPECT_EQ(h.sc.status, status_of(DeviceStatus::rhat_v_zero));
    EXPECT_EQ(h.sc.alpha, 0.375);  // left unchanged
}

void scenario_half_step_convergence(const Runner& run, std::int64_t n)
{
    // A = 2 I: v = 2 p = 2 r gives alpha = r.r / (2 r.r) = 0.5 exactly (the two sums differ by
    // an exact factor 2 term by term), so s = r - 0.5 (2 r) = 0 and t = 0.
    HostState<double> h(n);
    h.r = test::random_vector<double>(h.size(), 200);
    const std::vector<double> b = h.r;
    run(Op::init, h);
    run(Op::p_update, h);
    EXPECT_EQ(h.p, b);
    for (std::size_t i = 0; i < h.size(); ++i) h.v[i] = 2.0 * h.p[i];
    run(Op::alpha_dot, h);
    EXPECT_EQ(h.sc.alpha, 0.5);
    run(Op::s_update, h);
    EXPECT_EQ(h.s, std::vector<double>(h.size(), 0.0));
    h.t.assign(h.size(), 0.0);
    run(Op::omega_dot, h);
    EXPECT_EQ(h.sc.tt, 0.0);
    EXPECT_EQ(h.sc.ss, 0.0);
    EXPECT_EQ(h.sc.omega, 0.0);
    EXPECT_EQ(h.sc.status, status_of(DeviceStatus::ok));  // not a breakdown
    run(Op::xr_update, h);
    std::vector<double> half_b(h.size());
    for (std::size_t i = 0; i < h.size(); ++i) half_b[i] = 0.5 * b[i];
    EXPECT_EQ(h.x, half_b);  // the solution of 2 x = b
    EXPECT_EQ(h.r, std::vector<double>(h.size(), 0.0));
    EXPECT_EQ(h.sc.rr, 0.0);
    EXPECT_EQ(h.sc.status, status_of(DeviceStatus::ok));
}

void scenario_t_zero_with_s_nonzero(const Runner& run, std::int64_t n)
{
    HostState<double> h = random_state<double>(n, 300);  // A s = 0 for s != 0: A is singular
    h.t.assign(h.size(), 0.0);
    run(Op::omega_dot, h);
    EXPECT_GT(h.sc.ss, 0.0);
    EXPECT_EQ(h.sc.omega, 0.0);
    EXPECT_EQ(h.sc.status, status_of(DeviceStatus::omega_zero));
}

void scenario_t_orthogonal_to_s(const Runner& run, std::int64_t n)
{
    // ts == 0, tt != 0: omega = 0 without a status in omega_dot; xr_update then finds
    // omega == 0 with rr != 0.
    HostState<double> h = random_state<double>(n, 400);
    h.t.assign(h.size(), 1.0);
    h.s = alternating(n);
    run(Op::omega_dot, h);
    EXPECT_EQ(h.sc.ts, 0.0);
    EXPECT_EQ(h.sc.tt, double(n));
    EXPECT_EQ(h.sc.omega, 0.0);
    EXPECT_EQ(h.sc.status, status_of(DeviceStatus::ok));
    run(Op::xr_update, h);
    EXPECT_EQ(h.r, h.s);
    EXPECT_EQ(h.sc.rr, double(n));
    EXPECT_EQ(h.sc.status, status_of(DeviceStatus::omega_zero));
}

void scenario_rhat_orthogonal_to_new_r(const Runner& run, std::int64_t n)
{
    HostState<double> h = random_state<double>(n, 500);
    h.sc.omega = 0.5;
    h.t.assign(h.size(), 0.0);
    h.s = alternating(n);  // r = s - 0.5 * 0 = s
    h.r_hat.assign(h.size(), 1.0);
    run(Op::xr_update, h);
    EXPECT_EQ(h.sc.rho_old, 0.8);
    EXPECT_EQ(h.sc.rho, 0.0);
    EXPECT_EQ(h.sc.rr, double(n));
    EXPECT_EQ(h.sc.status, status_of(DeviceStatus::rho_zero));
}

void scenario_non_finite(const Runner& run, std::int64_t n)
{
    const std::size_t mid = static_cast<std::size_t>(n / 2);
    {
        HostState<double> h = random_state<double>(n, 600);
        h.r[mid] = nan;
        run(Op::init, h);
        EXPECT_EQ(h.sc.status, status_of(DeviceStatus::non_finite)) << "init";
    }
    {
        HostState<double> h = random_state<double>(n, 601);
        h.v.back() = inf;
        run(Op::alpha_dot, h);
        EXPECT_EQ(h.sc.status, status_of(DeviceStatus::non_finite)) << "alpha_dot";
        EXPECT_EQ(h.sc.alpha, 0.375) << "alpha_dot leaves alpha unchanged";
    }
    {
        HostState<double> h = random_state<double>(n, 602);
        h.s.front() = nan;
        run(Op::omega_dot, h);
        EXPECT_EQ(h.sc.status, status_of(DeviceStatus::non_finite)) << "omega_dot";
        EXPECT_EQ(h.sc.omega, -0.625) << "omega_dot leaves omega unchanged";
    }
    {
        HostState<double> h = random_state<double>(n, 603);
        h.t[mid] = inf;
        run(Op::xr_update, h);
        EXPECT_EQ(h.sc.status, status_of(DeviceStatus::non_finite)) << "xr_update";
    }
}

void scenario_status_is_sticky(const Runner& run, std::int64_t n)
{
    HostState<double> h = random_state<double>(n, 700);
    h.r_hat.assign(h.size(), 1.0);
    h.v = alternating(n);
    run(Op::alpha_dot, h);
    ASSERT_EQ(h.sc.status, status_of(DeviceStatus::rhat_v_zero));
    h.t.assign(h.size(), 0.0);  // alone: omega_zero
    run(Op::omega_dot, h);
    EXPECT_EQ(h.sc.omega, 0.0);  // the scalars still update ...
    EXPECT_EQ(h.sc.status, status_of(DeviceStatus::rhat_v_zero));  // ... the status does not
    h.t[0] = nan;  // alone: non_finite
    run(Op::xr_update, h);
    EXPECT_TRUE(std::isnan(h.sc.rr));
    EXPECT_EQ(h.sc.status, status_of(DeviceStatus::rhat_v_zero));
    h.r = test::random_vector<double>(h.size(), 701);
    run(Op::init, h);  // only init restarts
    EXPECT_EQ(h.sc.status, status_of(DeviceStatus::ok));
}

void run_all_scenarios(const std::function<Runner(std::int64_t)>& make_runner, std::int64_t n)
{
    SCOPED_TRACE(testing::Message() << "n=" << n);
    scenario_rhat_orthogonal_to_v(make_runner(n), n);
    scenario_half_step_convergence(make_runner(n), n);
    scenario_t_zero_with_s_nonzero(make_runner(n), n);
    scenario_t_orthogonal_to_s(make_runner(n), n);
    scenario_rhat_orthogonal_to_new_r(make_runner(n), n);
    scenario_non_finite(make_runner(n), n);
    scenario_status_is_sticky(make_runner(n), n);
}

TEST(BicgstabReference, BreakdownStatuses)
{
    const auto cpu = [](std::int64_t) -> Runner {
        return [](Op op, HostState<double>& h) { run_reference(op, h); };
    };
    for (std::int64_t n : {2, 64, 100000}) run_all_scenarios(cpu, n);
}

// ------------------------------------------------------------------------------------------
// Argument validation (CPU: every check comes before any CUDA call; the pointers below are
// never dereferenced).

void expect_invalid_argument(const std::function<void()>& call,
                             std::initializer_list<std::string> parts)
{
    try {
        call();
        ADD_FAILURE() << "no exception";
    } catch (const std::invalid_argument& e) {
        const std::string msg = e.what();
        for (const std::string& part : parts)
            EXPECT_NE(msg.find(part), std::string::npos) << "'" << part << "' not in: " << msg;
    }
}

TEST(BicgstabValidation, NegativeLengthIsRejected)
{
    double a[4] = {}, b[4] = {}, c[4] = {}, d[4] = {}, e[4] = {}, f[4] = {};
    DeviceScalars<double> sc;
    alignas(16) unsigned char ws[64] = {};
    const std::initializer_list<std::string> n_parts{"parameter 'n' is -1", "expected n >= 0"};
    expect_invalid_argument([&] { init<double>(-1, a, b, c, d, &sc, ws, 64, nullptr); },
                            {"kbench::bicgstab::init"});
    expect_invalid_argument([&] { init<double>(-1, a, b, c, d, &sc, ws, 64, nullptr); }, n_parts);
    expect_invalid_argument([&] { p_update<double>(-1, a, b, c, &sc, nullptr); },
                            {"kbench::bicgstab::p_update", "'n' is -1"});
    expect_invalid_argument([&] { alpha_dot<double>(-1, a, b, &sc, ws, 64, nullptr); },
                            {"kbench::bicgstab::alpha_dot", "'n' is -1"});
    expect_invalid_argument([&] { s_update<double>(-1, a, b, c, &sc, nullptr); },
                            {"kbench::bicgstab::s_update", "'n' is -1"});
    expect_invalid_argument(
        [&] { omega_dot<float>(-1, nullptr, nullptr, nullptr, ws, 64, nullptr); },
        {"kbench::bicgstab::omega_dot", "'n' is -1"});
    expect_invalid_argument(
        [&] { xr_update<double>(-1, a, b, c, d, e, f, &sc, ws, 64, nullptr); },
        {"kbench::bicgstab::xr_update", "'n' is -1"});
    expect_invalid_argument([&] { reference::alpha_dot<double>(-1, a, b, &sc); },
                            {"kbench::bicgstab::reference::alpha_dot", "'n' is -1"});
    expect_invalid_argument([&] { (void)workspace_bytes(-1); },
                            {"kbench::bicgstab::workspace_bytes", "'n' is -1"});
}

TEST(BicgstabValidation, NullVectorIsRejected)
{
    double a[4] = {}, b[4] = {}, c[4] = {}, d[4] = {}, e[4] = {}, f[4] = {};
    DeviceScalars<double> sc;
    const std::int64_t n = 4;  // one block: no workspace needed
    const std::initializer_list<std::string> tail{"is null, expected an array of n = 4 elements"};
    expect_invalid_argument([&] { init<double>(n, a, nullptr, c, d, &sc, nullptr, 0, nullptr); },
                            {"kbench::bicgstab::init", "'r_hat'"});
    expect_invalid_argument([&] { init<double>(n, a, b, c, nullptr, &sc, nullptr, 0, nullptr); },
                            tail);
    expect_invalid_argument([&] { p_update<double>(n, a, b, nullptr, &sc, nullptr); },
                            {"kbench::bicgstab::p_update", "'p'"});
    expect_invalid_argument([&] { alpha_dot<double>(n, nullptr, b, &sc, nullptr, 0, nullptr); },
                            {"kbench::bicgstab::alpha_dot", "'r_hat'"});
    expect_invalid_argument([&] { s_update<double>(n, a, b, nullptr, &sc, nullptr); },
                            {"kbench::bicgstab::s_update", "'s_vec'"});
    expect_invalid_argument([&] { omega_dot<double>(n, nullptr, b, &sc, nullptr, 0, nullptr); },
                            {"kbench::bicgstab::omega_dot", "'t'"});
    const char* names[] = {"'r_hat'", "'p'", "'s_vec'", "'t'", "'x'", "'r'"};
    for (int k = 0; k < 6; ++k) {
        double* ptr[6] = {a, b, c, d, e, f};
        ptr[k] = nullptr;
        expect_invalid_argument(
            [&] {
                xr_update<double>(n, ptr[0], ptr[1], ptr[2], ptr[3], ptr[4], ptr[5], &sc, nullptr,
                                  0, nullptr);
            },
            {"kbench::bicgstab::xr_update", names[k]});
        expect_invalid_argument(
            [&] {
                reference::xr_update<double>(n, ptr[0], ptr[1], ptr[2], ptr[3], ptr[4], ptr[5],
                                             &sc);
            },
            {"kbench::bicgstab::reference::xr_update", names[k]});
    }
    expect_invalid_argument([&] { alpha_dot<double>(n, a, b, nullptr, nullptr, 0, nullptr); },
                            {"kbench::bicgstab::alpha_dot", "'sc' is null"});
    expect_invalid_argument(
        [&] { p_update<float>(0, nullptr, nullptr, nullptr, nullptr, nullptr); },
        {"kbench::bicgstab::p_update", "'sc' is null"});
    expect_invalid_argument([&] { reference::init<double>(n, nullptr, b, c, d, &sc); },
                            {"kbench::bicgstab::reference::init", "'r'"});
}

TEST(BicgstabValidation, BadWorkspaceIsRejected)
{
    double a[4] = {}, b[4] = {}, c[4] = {}, d[4] = {}, e[4] = {}, f[4] = {};
    DeviceScalars<double> sc;
    const std::int64_t n = 1000;  // vectors are not dereferenced: validation throws first
    const std::size_t need = workspace_bytes(n);
    ASSERT_GT(need, 0u);
    const std::string need_text = "expected at least workspace_bytes(n) = " + std::to_string(need);
    std::vector<unsigned char> storage(need + 32);
    void* aligned = storage.data() + (16 - reinterpret_cast<std::uintptr_t>(storage.data()) % 16);
    void* misaligned = static_cast<unsigned char*>(aligned) + 8;
    expect_invalid_argument([&] { init<double>(n, a, b, c, d, &sc, aligned, need - 1, nullptr); },
                            {"kbench::bicgstab::init", "'ws_bytes'", need_text});
    expect_invalid_argument([&] { alpha_dot<double>(n, a, b, &sc, aligned, 0, nullptr); },
                            {"kbench::bicgstab::alpha_dot", "'ws_bytes' is 0", need_text});
    expect_invalid_argument([&] { omega_dot<double>(n, a, b, &sc, aligned, need - 1, nullptr); },
                            {"kbench::bicgstab::omega_dot", "'ws_bytes'", need_text});
    expect_invalid_argument(
        [&] { xr_update<double>(n, a, b, c, d, e, f, &sc, aligned, need / 2, nullptr); },
        {"kbench::bicgstab::xr_update", "'ws_bytes'", need_text});
    expect_invalid_argument([&] { alpha_dot<double>(n, a, b, &sc, nullptr, need, nullptr); },
                            {"kbench::bicgstab::alpha_dot", "'ws' is null"});
    expect_invalid_argument([&] { alpha_dot<double>(n, a, b, &sc, misaligned, need, nullptr); },
                            {"kbench::bicgstab::alpha_dot", "'ws' is misaligned", "16 bytes"});
}

TEST(BicgstabValidation, WorkspaceBytes)
{
    EXPECT_EQ(workspace_bytes(0), 0u);  // one block: no counter, no partials
    EXPECT_EQ(workspace_bytes(256), 0u);
    EXPECT_GE(workspace_bytes(257), 2 * 3 * sizeof(double));  // two blocks of 3 partials
    std::size_t prev = 0;
    for (std::int64_t n = 1; n <= (std::int64_t{1} << 40); n *= 3) {
        const std::size_t bytes = workspace_bytes(n);
        EXPECT_GE(bytes, prev) << "n=" << n;
        prev = bytes;
    }
    EXPECT_EQ(workspace_bytes(std::int64_t{1} << 40), workspace_bytes(std::int64_t{1} << 30));
    EXPECT_EQ(workspace_bytes(std::numeric_limits<std::int64_t>::max()),
              workspace_bytes(std::int64_t{1} << 30));
}

// ------------------------------------------------------------------------------------------
// GPU kernels against their references.

template <typename T>
class BicgstabKernelsGpu : public ::testing::Test {};
TYPED_TEST_SUITE(BicgstabKernelsGpu, ScalarTypes);

TYPED_TEST(BicgstabKernelsGpu, InitMatchesReference)
{
    KBENCH_REQUIRE_GPU();
    using T = TypeParam;
    for (std::int64_t n : sizes) {
        SCOPED_TRACE(testing::Message() << "n=" << n);
        HostState<T> ref = random_state<T>(n, 1);
        ref.sc.status = status_of(DeviceStatus::omega_zero);  // init resets it
        HostState<T> got = ref;
        run_reference(Op::init, ref);
        run_gpu(Op::init, got);
        expect_same_values(got.r_hat, ref.r_hat, "r_hat");
        expect_same_values(got.p, ref.p, "p");
        expect_same_values(got.v, ref.v, "v");
        const double tol = dot_tolerance<T>(abs_dot(got.r, got.r), ref.sc.rr);
        expect_close(got.sc.rr, ref.sc.rr, tol, "rr");
        expect_close(got.sc.rho, ref.sc.rho, tol, "rho");
        expect_fields_equal_except(got.sc, ref.sc, {"rr", "rho"});
        EXPECT_EQ(got.sc.status, status_of(DeviceStatus::ok));
    }
}

TYPED_TEST(BicgstabKernelsGpu, PUpdateMatchesReference)
{
    KBENCH_REQUIRE_GPU();
    using T = TypeParam;
    for (std::int64_t n : sizes) {
        SCOPED_TRACE(testing::Message() << "n=" << n);
        HostState<T> ref = random_state<T>(n, 10), got = ref;
        run_reference(Op::p_update, ref);
        run_gpu(Op::p_update, got);
        expect_same_values(got.p, ref.p, "p");
        expect_same_values(got.r, ref.r, "r (input)");
        expect_fields_equal_except(got.sc, ref.sc, {});
    }
}

TYPED_TEST(BicgstabKernelsGpu, AlphaDotMatchesReference)
{
    KBENCH_REQUIRE_GPU();
    using T = TypeParam;
    const double eps = std::numeric_limits<T>::epsilon();
    for (std::int64_t n : sizes) {
        SCOPED_TRACE(testing::Message() << "n=" << n);
        HostState<T> ref = random_state<T>(n, 20), got = ref;
        run_reference(Op::alpha_dot, ref);
        run_gpu(Op::alpha_dot, got);
        const double rv = ref.sc.rhat_v;
        const double tol = dot_tolerance<T>(abs_dot(got.r_hat, got.v), rv);
        expect_close(got.sc.rhat_v, rv, tol, "rhat_v");
        expect_close(got.sc.alpha, ref.sc.alpha,
                     std::abs(double(ref.sc.alpha)) * (tol / std::abs(rv) + 2 * eps), "alpha");
        expect_fields_equal_except(got.sc, ref.sc, {"rhat_v", "alpha"});
        EXPECT_EQ(got.sc.status, status_of(DeviceStatus::ok));
    }
}

TYPED_TEST(BicgstabKernelsGpu, SUpdateMatchesReference)
{
    KBENCH_REQUIRE_GPU();
    using T = TypeParam;
    for (std::int64_t n : sizes) {
        SCOPED_TRACE(testing::Message() << "n=" << n);
        HostState<T> ref = random_state<T>(n, 30), got = ref;
        run_reference(Op::s_update, ref);
        run_gpu(Op::s_update, got);
        expect_same_values(got.s, ref.s, "s");
        expect_fields_equal_except(got.sc, ref.sc, {});
    }
}

TYPED_TEST(BicgstabKernelsGpu, OmegaDotMatchesReference)
{
    KBENCH_REQUIRE_GPU();
    using T = TypeParam;
    const double eps = std::numeric_limits<T>::epsilon();
    for (std::int64_t n : sizes) {
        SCOPED_TRACE(testing::Message() << "n=" << n);
        HostState<T> ref = random_state<T>(n, 40), got = ref;
        run_reference(Op::omega_dot, ref);
        run_gpu(Op::omega_dot, got);
        const double tol_ts = dot_tolerance<T>(abs_dot(got.t, got.s), ref.sc.ts);
        const double tol_tt = dot_tolerance<T>(abs_dot(got.t, got.t), ref.sc.tt);
        const double tol_ss = dot_tolerance<T>(abs_dot(got.s, got.s), ref.sc.ss);
        expect_close(got.sc.ts, ref.sc.ts, tol_ts, "ts");
        expect_close(got.sc.tt, ref.sc.tt, tol_tt, "tt");
        expect_close(got.sc.ss, ref.sc.ss, tol_ss, "ss");
        const double rel = tol_ts / std::abs(double(ref.sc.ts)) +
                           tol_tt / std::abs(double(ref.sc.tt)) + 2 * eps;
        expect_close(got.sc.omega, ref.sc.omega, std::abs(double(ref.sc.omega)) * rel, "omega");
        expect_fields_equal_except(got.sc, ref.sc, {"ts", "tt", "ss", "omega"});
        EXPECT_EQ(got.sc.status, status_of(DeviceStatus::ok));
    }
}

TYPED_TEST(BicgstabKernelsGpu, XrUpdateMatchesReference)
{
    KBENCH_REQUIRE_GPU();
    using T = TypeParam;
    for (std::int64_t n : sizes) {
        SCOPED_TRACE(testing::Message() << "n=" << n);
        HostState<T> ref = random_state<T>(n, 50), got = ref;
        run_reference(Op::xr_update, ref);
        run_gpu(Op::xr_update, got);
        expect_same_values(got.x, ref.x, "x");
        expect_same_values(got.r, ref.r, "r");
        expect_close(got.sc.rho, ref.sc.rho,
                     dot_tolerance<T>(abs_dot(ref.r_hat, ref.r), ref.sc.rho), "rho");
        expect_close(got.sc.rr, ref.sc.rr, dot_tolerance<T>(abs_dot(ref.r, ref.r), ref.sc.rr),
                     "rr");
        EXPECT_EQ(got.sc.rho_old, T(0.8));  // the previous rho, moved
        expect_fields_equal_except(got.sc, ref.sc, {"rho", "rr"});
        EXPECT_EQ(got.sc.status, status_of(DeviceStatus::ok));
    }
}

// ------------------------------------------------------------------------------------------
// Sequences, determinism, workspace reuse, graph capture, n = 0, breakdowns on the GPU.

/// Tolerance of the GPU scalars against the reference ones after iteration k of the merged
/// sequence. The two sides differ only in the order of the dot sums (O(eps) relative at
/// first); the iteration amplifies such differences roughly like ||r_0|| / ||r_k||, the
/// cancellation that forms the small residual from large vectors. Simulating this matrix with
/// two summation orders (n = 31, 1000, 100003, 8 seeds, 10 iterations) gave differences of at
/// most 0.8 eps sqrt(rr0 / rr_k); 64 times that leaves a margin of 80 and is still far below
/// what any wrong formula gives (differences of order 1).
double iteration_tolerance(double rr0, double rr_k)
{
    return 64.0 * dbl_eps * std::sqrt(rr0 / rr_k);
}

TEST(BicgstabKernelsGpuSequence, MergedIterationMatchesReference)
{
    KBENCH_REQUIRE_GPU();
    for (std::int64_t n : {std::int64_t{31}, std::int64_t{1000}, std::int64_t{100003}}) {
        SCOPED_TRACE(testing::Message() << "n=" << n);
        HostState<double> ref(n);
        ref.r = test::random_vector<double>(ref.size(), 60);  // b, with x0 = 0
        const std::vector<double> b = ref.r;
        DeviceState<double> d(n);
        d.upload(ref);
        run_reference(Op::init, ref);
        d.run(Op::init);
        const double rr0 = ref.sc.rr;
        for (int k = 0; k < 8; ++k) {
            SCOPED_TRACE(testing::Message() << "iteration " << k);
            reference_iteration(ref);
            gpu_iteration(d);
            const DeviceScalars<double> got = d.scalars();
            const DeviceScalars<double>& e = ref.sc;
            const double tol = iteration_tolerance(rr0, e.rr);
            ASSERT_EQ(e.status, status_of(DeviceStatus::ok));
            ASSERT_EQ(got.status, status_of(DeviceStatus::ok));
            expect_close(got.alpha, e.alpha, tol * std::abs(e.alpha), "alpha");
            expect_close(got.omega, e.omega, tol * std::abs(e.omega), "omega");
            expect_close(got.rr, e.rr, tol * e.rr, "rr");
            // rho = r_hat . r_k may be small next to ||r_hat|| ||r_k||: scale by that product.
            expect_close(got.rho, e.rho, tol * std::sqrt(rr0 * e.rr), "rho");
        }
        // BiCGSTAB converges fast on this matrix (simulated: rr_8 / rr0 < 1e-10), and the
        // recursive residual of the GPU iterate matches the true one.
        const DeviceScalars<double> got = d.scalars();
        EXPECT_LT(got.rr, 1e-8 * rr0);
        std::vector<double> ax;
        const std::vector<double> x = d.x.to_host();
        apply_tridiagonal(x, ax);
        double true_rr = 0.0, dx = 0.0, xmax = 0.0;
        for (std::size_t i = 0; i < x.size(); ++i) {
            true_rr += (b[i] - ax[i]) * (b[i] - ax[i]);
            dx = std::max(dx, std::abs(x[i] - ref.x[i]));
            xmax = std::max(xmax, std::abs(ref.x[i]));
        }
        EXPECT_NEAR(std::sqrt(true_rr), std::sqrt(got.rr), 1e-6 * std::sqrt(got.rr));
        EXPECT_LE(dx, iteration_tolerance(rr0, ref.sc.rr) * xmax);
    }
}

TEST(BicgstabKernelsGpuSequence, RepeatedSequenceIsBitwiseIdentical)
{
    KBENCH_REQUIRE_GPU();
    for (std::int64_t n : {std::int64_t{100003}, std::int64_t{1} << 20}) {
        SCOPED_TRACE(testing::Message() << "n=" << n);
        HostState<double> start(n);
        start.r = test::random_vector<double>(start.size(), 70);
        DeviceState<double> d(n);
        std::vector<HostState<double>> results;
        for (int repeat = 0; repeat < 2; ++repeat) {
            d.upload(start);
            d.run(Op::init);
            for (int k = 0; k < 3; ++k) gpu_iteration(d);
            results.emplace_back(n);
            d.download(results.back());
        }
        expect_bitwise_equal(results[0].sc, results[1].sc);
        expect_bitwise_equal(results[0].x, results[1].x, "x");
        expect_bitwise_equal(results[0].r, results[1].r, "r");
        EXPECT_EQ(results[0].sc.status, status_of(DeviceStatus::ok));
    }
}

TEST(BicgstabKernelsGpuSequence, WorkspaceCounterIsResetByEveryLaunch)
{
    KBENCH_REQUIRE_GPU();
    // One zero-filled workspace, no init: each reducing launch must find the counter at 0 (or
    // the finishing block is not the last one and *sc is wrong or unchanged) and leave it at 0.
    const std::int64_t n = 100003;
    DeviceState<double> d(n);
    for (std::uint32_t round = 0; round < 3; ++round) {
        for (Op op : {Op::alpha_dot, Op::omega_dot, Op::xr_update}) {
            SCOPED_TRACE(testing::Message() << "round " << round << " op " << int(op));
            HostState<double> ref = random_state<double>(n, 80 + 10 * round);
            d.upload(ref);
            d.run(op);
            run_reference(op, ref);
            const DeviceScalars<double> got = d.scalars();
            expect_close(got.rhat_v, ref.sc.rhat_v, 1e-9 * std::abs(ref.sc.rhat_v), "rhat_v");
            expect_close(got.ts, ref.sc.ts, 1e-9 * std::abs(ref.sc.ts), "ts");
            expect_close(got.rr, ref.sc.rr, 1e-9 * std::abs(ref.sc.rr), "rr");
            unsigned int counter = 1;
            const std::vector<unsigned char> ws = d.ws.to_host();
            std::memcpy(&counter, ws.data(), sizeof(counter));
            EXPECT_EQ(counter, 0u);
        }
    }
}

/// Runs `ops` twice from `start` by direct launches, then captures them once into a CUDA graph
/// and launches it twice from `start`: the two end states must be the same bits.
void expect_graph_matches_direct(const HostState<double>& start, const std::vector<Op>& ops)
{
    DeviceState<double> d(start.n);
    d.upload(start);
    for (int repeat = 0; repeat < 2; ++repeat)
        for (Op op : ops) d.run(op);
    HostState<double> direct(start.n);
    d.download(direct);

    d.upload(start);
    cudaGraph_t graph = nullptr;
    KBENCH_CUDA_CHECK(cudaStreamBeginCapture(d.stream, cudaStreamCaptureModeGlobal));
    for (Op op : ops) d.enqueue(op);  // no host synchronization, no allocation: capturable
    KBENCH_CUDA_CHECK(cudaStreamEndCapture(d.stream, &graph));
    cudaGraphExec_t exec = nullptr;
    KBENCH_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    KBENCH_CUDA_CHECK(cudaGraphLaunch(exec, d.stream));
    KBENCH_CUDA_CHECK(cudaGraphLaunch(exec, d.stream));
    d.stream.synchronize();
    KBENCH_CUDA_CHECK(cudaGraphExecDestroy(exec));
    KBENCH_CUDA_CHECK(cudaGraphDestroy(graph));
    HostState<double> captured(start.n);
    d.download(captured);

    EXPECT_EQ(direct.sc.status, status_of(DeviceStatus::ok));
    expect_bitwise_equal(captured.sc, direct.sc);
    expect_bitwise_equal(captured.x, direct.x, "x");
    expect_bitwise_equal(captured.r, direct.r, "r");
    expect_bitwise_equal(captured.p, direct.p, "p");
    expect_bitwise_equal(captured.s, direct.s, "s");
    expect_bitwise_equal(captured.r_hat, direct.r_hat, "r_hat");
}

TEST(BicgstabKernelsGpuSequence, CapturedGraphMatchesDirectLaunches)
{
    KBENCH_REQUIRE_GPU();
    const std::int64_t n = 100003;  // several blocks: counter and partials in use
    const HostState<double> start = random_state<double>(n, 90);
    // The iteration's five kernels (v and t stay the random ones: no SpMV in the graph).
    expect_graph_matches_direct(
        start, {Op::p_update, Op::alpha_dot, Op::s_update, Op::omega_dot, Op::xr_update});
    // init: its counter memset is captured too.
    expect_graph_matches_direct(start, {Op::init});
}

TEST(BicgstabKernelsGpuSequence, ZeroLengthDoesNotCrash)
{
    KBENCH_REQUIRE_GPU();
    const cuda_stream stream;
    device_buffer<DeviceScalars<double>> sc(std::vector<DeviceScalars<double>>(1));
    ASSERT_EQ(workspace_bytes(0), 0u);
    init<double>(0, nullptr, nullptr, nullptr, nullptr, sc.data(), nullptr, 0, stream);
    p_update<double>(0, nullptr, nullptr, nullptr, sc.data(), stream);
    s_update<double>(0, nullptr, nullptr, nullptr, sc.data(), stream);
    omega_dot<double>(0, nullptr, nullptr, sc.data(), nullptr, 0, stream);
    xr_update<double>(0, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, sc.data(), nullptr,
                      0, stream);
    stream.synchronize();
    DeviceScalars<double> got = sc.to_host()[0];
    EXPECT_EQ(got.rr, 0.0);
    EXPECT_EQ(got.tt, 0.0);
    EXPECT_EQ(got.omega, 0.0);
    EXPECT_EQ(got.status, status_of(DeviceStatus::ok));  // empty system: converged
    alpha_dot<double>(0, nullptr, nullptr, sc.data(), nullptr, 0, stream);
    stream.synchronize();
    got = sc.to_host()[0];
    EXPECT_EQ(got.rhat_v, 0.0);
    EXPECT_EQ(got.status, status_of(DeviceStatus::rhat_v_zero));
}

TEST(BicgstabKernelsGpuSequence, BreakdownStatuses)
{
    KBENCH_REQUIRE_GPU();
    // One device state (and workspace) per scenario, kept across the scenario's launches.
    const auto gpu = [](std::int64_t n) -> Runner {
        auto d = std::make_shared<DeviceState<double>>(n);
        return [d](Op op, HostState<double>& h) {
            d->upload(h);
            d->run(op);
            d->download(h);
        };
    };
    for (std::int64_t n : {2, 64, 100000}) run_all_scenarios(gpu, n);  // 100000: multi-block
}

}  // namespace
}  // namespace kbench::bicgstab
