// Helpers shared by the test files of the merged BiCGSTAB kernels (kernels/bicgstab_kernels.hpp),
// one executable, test_bicgstab_kernels_gpu: test_bicgstab_kernels_hand_checked.cpp,
// test_bicgstab_kernels_breakdowns.cpp, test_bicgstab_kernels_validation.cpp and
// test_bicgstab_kernels_gpu.cpp. The state of one iteration in host and device memory, each kernel
// applied to it on the CPU (the references) or the GPU, comparisons of states and scalars (with
// the dot products' tolerance), and a tridiagonal test matrix with one merged iteration on either
// side, its SpMVs done on the host.
#pragma once

#include "kernels/base/cuda_handles.hpp"
#include "kernels/base/device_buffer.hpp"
#include "kernels/bicgstab_kernels.hpp"
#include "matrices/test/random_data.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <string>
#include <vector>

namespace kbench::bicgstab::test_util {

constexpr double dbl_eps = std::numeric_limits<double>::epsilon();

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

inline void expect_close(double got, double ref, double tol, const char* what)
{
    EXPECT_LE(std::abs(got - ref), tol) << what << ": got " << got << ", reference " << ref;
}

// ------------------------------------------------------------------------------------------
// A test matrix and merged iterations with the SpMV done on the host.

/// y = A x for the nonsymmetric, diagonally dominant tridiagonal matrix
/// A = tridiag(-1, 4 + 0.1 (i mod 7), -1.5).
inline void apply_tridiagonal(const std::vector<double>& x, std::vector<double>& y)
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
inline void reference_iteration(HostState<double>& h)
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
inline void gpu_iteration(DeviceState<double>& d)
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


/// The scalar types of the typed test suites.
using ScalarTypes = ::testing::Types<float, double>;

}  // namespace kbench::bicgstab::test_util
