// The merged ("fused") vector kernels of BiCGSTAB (anzt2015 Sec. 3.3, Fig. 2 right, Table 1
// right): one BiCGSTAB iteration as five kernels around the caller's two SpMVs,
//
//   p_update; v = A p (caller); alpha_dot; s_update; t = A s (caller); omega_dot; xr_update
//
// with init once before the first iteration. All scalars (rho, alpha, omega, the dot products
// and a breakdown status) stay in device memory in a DeviceScalars<T>: no launcher reads a scalar
// back to the host, so an iteration can be captured into a CUDA graph and the host only copies
// `rr` and `status` when it wants to test convergence (anzt2015 Fig. 2, last line).
//
// Conventions for every function here:
// * n is the length of every vector (elements, n >= 0); vectors and `sc` live in device memory
//   for the GPU launchers and in host memory for the references (namespace `reference`, same
//   arguments minus workspace and stream). Vectors may be null when n == 0; `sc` never.
// * Traffic is counted in vector elements of T (a scalar read from `sc` counts 1; the per-block
//   partial sums of the reductions, O(number of blocks) = O(SM count), are not counted, as the
//   [O(log_bs n)] term of anzt2015 Table 1). One iteration moves 14n reads + 4n writes = 18n, the
//   lower bound of anzt2015 Theorem 1.
// * Reducing launchers (init, alpha_dot, omega_dot, xr_update) take a device workspace `ws` of
//   `ws_bytes` >= workspace_bytes(n) bytes, 16-byte aligned (cudaMalloc memory is). It holds a
//   launch counter that init zeroes (cudaMemsetAsync) and every reducing kernel leaves at zero:
//   a workspace must pass through init, or be zero-filled, before alpha_dot, omega_dot or
//   xr_update first use it, and must not be used by two launches that may run concurrently.
//   workspace_bytes(n) is 0 when one block covers n (ws may then be null).
// * Each launcher is one kernel launch on `s` (init: one memset + one kernel), with no host
//   synchronization and no allocation: it can be captured into a CUDA graph. Dot products are
//   accumulated in double (also for T = float) in an order fixed by n and the device's SM count,
//   so a repeated call on the same input gives the same bits.
// * Vectors are distinct, non-overlapping arrays.
// * Errors: std::invalid_argument (message: function, parameter, what was expected) for n < 0, a
//   null vector when n > 0, a null `sc`, a workspace too small, null or misaligned; checked
//   before any CUDA call. kbench::cuda_error on a launch failure.
// * Breakdowns are not errors: they set sc->status (DeviceStatus), which is sticky: once
//   non-zero no kernel but init changes it. The kernels never skip work on a non-ok status (the
//   traffic of a timed iteration does not depend on the data); the caller tests `status` with
//   `rr` and stops.
// T is float or double.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <type_traits>

#if defined(__CUDACC__)
#define KBENCH_BICGSTAB_HD __host__ __device__
#else
#define KBENCH_BICGSTAB_HD
#endif

namespace kbench::bicgstab {

/// Breakdown status of the merged iteration (DeviceScalars::status).
enum class DeviceStatus : int {
    ok = 0,
    rho_zero = 1,     // r_hat . r == 0 with r != 0: alpha stalls at 0, then beta divides by 0
    rhat_v_zero = 2,  // r_hat . v == 0: alpha = rho / 0
    omega_zero = 3,   // omega == 0 with r != 0: the next beta divides by omega
    non_finite = 4,   // a dot product or a scalar derived from one is Inf or NaN
};

/// What a breakdown status means, for a solver's message ("unknown status" for another value).
/// One text for every solver that runs these kernels (BiCGSTAB, SPIKE + BiCGStab).
inline const char* status_text(int status)
{
    switch (static_cast<DeviceStatus>(status)) {
    case DeviceStatus::rho_zero: return "rho = r_hat . r = 0 with r != 0";
    case DeviceStatus::rhat_v_zero: return "r_hat . v = 0 (alpha = rho / 0)";
    case DeviceStatus::omega_zero: return "omega = t.s / t.t = 0 with r != 0";
    case DeviceStatus::non_finite: return "a scalar or the residual is not finite";
    default: return "unknown status";
    }
}

/// State of the merged iteration, kept in DEVICE memory (plain struct, same layout on host for
/// copies). Scalars of iteration i as in anzt2015 Fig. 1 (left).
template <typename T>
struct DeviceScalars {
    T rho = 0;                 // rho_i = r_hat . r_i
    T rho_old = 1;             // rho_{i-1}
    T alpha = 1;
    T omega = 1;
    T rhat_v = 0;              // r_hat . v of this iteration
    T ts = 0, tt = 0, ss = 0;  // t.s, t.t, s.s of this iteration (ss comes free: s is read anyway)
    T rr = 0;                  // r . r after the last xr_update (or init): residual norm squared
    int status = 0;  // DeviceStatus, sticky: once non-zero it is never reset by a later kernel
};
static_assert(std::is_trivially_copyable_v<DeviceScalars<double>> &&
                  std::is_standard_layout_v<DeviceScalars<double>>,
              "DeviceScalars is copied bytewise between host and device");

/// Bytes of device workspace every reducing launcher (init, alpha_dot, omega_dot, xr_update)
/// needs for vectors of n elements (CUB-style size query): a launch counter plus 3 double partial
/// sums per block. 0 when one block covers n (n <= 256); bounded for large n (the grid is). Does
/// not depend on T or on the device. Throws std::invalid_argument for n < 0.
std::size_t workspace_bytes(std::int64_t n);

/// Starts the iteration from r = b - A x0 (computed by the caller): r_hat = r; p = 0; v = 0;
/// rho = rr = r . r; rho_old = alpha = omega = 1; rhat_v = ts = tt = ss = 0; status = ok, or
/// non_finite when r . r is not finite. With p = v = 0 the first p_update gives p = r.
/// Shapes: r, r_hat, p, v of n elements. Traffic: n reads, 3n writes. Also zeroes the workspace's
/// launch counter (so a fresh workspace is ready after init). Source: anzt2015 Fig. 1 (left), the
/// set-up before the loop.
template <typename T>
void init(std::int64_t n, const T* r, T* r_hat, T* p, T* v, DeviceScalars<T>* sc, void* ws,
          std::size_t ws_bytes, cudaStream_t s);

/// p = r + beta (p - omega v), beta = (rho / rho_old) (alpha / omega) computed from *sc by each
/// thread. Shapes: r, v, p of n elements (p read and written). Traffic: 3n + 4 reads, n writes
/// (anzt2015 Table 1, lines 4-6 merged into p_update; Fig. 1 line 11). Does not set a status: it
/// must follow an ok iteration with rr != 0 (after omega == 0 or rho_old == 0 beta is not finite,
/// and alpha_dot then reports non_finite).
template <typename T>
void p_update(std::int64_t n, const T* r, const T* v, T* p, const DeviceScalars<T>* sc,
              cudaStream_t s);

/// rhat_v = r_hat . v; alpha = rho / rhat_v. Status rhat_v_zero when rhat_v == 0, non_finite
/// when rhat_v, rho or the quotient is not finite; alpha is then left unchanged.
/// Shapes: r_hat, v of n elements. Traffic: 2n + 1 reads (anzt2015 Table 1 line 8, reduce1;
/// Fig. 1 line 13).
template <typename T>
void alpha_dot(std::int64_t n, const T* r_hat, const T* v, DeviceScalars<T>* sc, void* ws,
               std::size_t ws_bytes, cudaStream_t s);

/// s = r - alpha v. Shapes: r, v, s_vec of n elements. Traffic: 2n + 1 reads, n writes
/// (anzt2015 Table 1 lines 9-10, s_update; Fig. 1 line 14).
template <typename T>
void s_update(std::int64_t n, const T* r, const T* v, T* s_vec, const DeviceScalars<T>* sc,
              cudaStream_t s);

/// ts = t . s, tt = t . t, ss = s . s in one pass; omega = ts / tt. When tt == 0, omega = 0: if
/// ss == 0 too this is convergence in half a step (s = 0, not a breakdown: xr_update then gives
/// x += alpha p and r = s = 0, rr = 0); if ss != 0 the status is omega_zero. Status non_finite
/// (omega left unchanged) when a dot or the quotient is not finite.
/// Shapes: t, s_vec of n elements. Traffic: 2n reads (anzt2015 Table 1 lines 12-13, reduce2;
/// Fig. 1 line 16).
template <typename T>
void omega_dot(std::int64_t n, const T* t, const T* s_vec, DeviceScalars<T>* sc, void* ws,
               std::size_t ws_bytes, cudaStream_t s);

/// x += alpha p + omega s; r = s - omega t; then rho_old = rho, rho = r_hat . r, rr = r . r, in
/// one pass. Status (first that applies): non_finite if rho, rr, alpha or omega is not finite;
/// omega_zero if omega == 0 and rr != 0 (the next p_update would divide by 0); rho_zero if
/// rho == 0 and rr != 0. Shapes: r_hat, p, s_vec, t, x, r of n elements (x read and written).
/// Traffic: 5n + 2 reads, 2n writes (anzt2015 Table 1: lines 14-18 and the residual norm merged
/// into xr_update + reduce3; Fig. 1 lines 17-19, and line 8's rho of the next iteration).
template <typename T>
void xr_update(std::int64_t n, const T* r_hat, const T* p, const T* s_vec, const T* t, T* x, T* r,
               DeviceScalars<T>* sc, void* ws, std::size_t ws_bytes, cudaStream_t s);

/// CPU reference twins: same arguments minus workspace and stream, host pointers, host *sc.
/// Same element arithmetic as the GPU kernels (the same fused multiply-adds, so the updated
/// vectors agree to the bit); dot products are pairwise sums in double (their order differs from
/// the GPU's, the results agree to rounding). Same validation (std::invalid_argument).
namespace reference {
template <typename T>
void init(std::int64_t n, const T* r, T* r_hat, T* p, T* v, DeviceScalars<T>* sc);
template <typename T>
void p_update(std::int64_t n, const T* r, const T* v, T* p, const DeviceScalars<T>* sc);
template <typename T>
void alpha_dot(std::int64_t n, const T* r_hat, const T* v, DeviceScalars<T>* sc);
template <typename T>
void s_update(std::int64_t n, const T* r, const T* v, T* s_vec, const DeviceScalars<T>* sc);
template <typename T>
void omega_dot(std::int64_t n, const T* t, const T* s_vec, DeviceScalars<T>* sc);
template <typename T>
void xr_update(std::int64_t n, const T* r_hat, const T* p, const T* s_vec, const T* t, T* x, T* r,
               DeviceScalars<T>* sc);
/// sum_i a[i] b[i] over n >= 0 elements (host arrays) as the references above sum their dot
/// products: pairwise in double, leaves of at most 8 fused products; 0 for n = 0. For callers
/// that split a dot over row ranges (solvers/spike/spike_bicgstab.cpp's OpenMP solve). Throws
/// std::invalid_argument for n < 0 or a null a or b when n > 0.
template <typename T>
double dot(std::int64_t n, const T* a, const T* b);
}  // namespace reference

/// Shared by the GPU kernels and the references: how the finished dot products (double sums)
/// update *sc. One definition, so both sides apply the same rules and roundings.
namespace detail {

/// A vector argument and its parameter name, for check_arguments.
struct NamedPointer {
    const char* name;
    const void* ptr;
};

/// Argument checks shared by the launchers and the references: throws std::invalid_argument
/// "<function>: parameter '<name>' is <value>, expected <what>" for n < 0, a null vector when
/// n > 0, or a null sc.
void check_arguments(const char* function, std::int64_t n,
                     std::initializer_list<NamedPointer> vectors, const void* sc);

/// True unless v is Inf or NaN (v - v is NaN exactly then; no <cmath>, usable on the device).
template <typename T>
KBENCH_BICGSTAB_HD inline bool is_finite(T v)
{
    return v - v == T(0);
}

/// Sets the status unless one is already set (sticky).
template <typename T>
KBENCH_BICGSTAB_HD inline void raise_status(DeviceScalars<T>& sc, DeviceStatus status)
{
    if (sc.status == static_cast<int>(DeviceStatus::ok)) sc.status = static_cast<int>(status);
}

template <typename T>
KBENCH_BICGSTAB_HD inline void finish_init(DeviceScalars<T>& sc, double rr)
{
    const T v = static_cast<T>(rr);
    sc.rho = v;
    sc.rr = v;
    sc.rho_old = T(1);
    sc.alpha = T(1);
    sc.omega = T(1);
    sc.rhat_v = sc.ts = sc.tt = sc.ss = T(0);
    sc.status = static_cast<int>(is_finite(v) ? DeviceStatus::ok : DeviceStatus::non_finite);
}

template <typename T>
KBENCH_BICGSTAB_HD inline void finish_alpha(DeviceScalars<T>& sc, double rhat_v)
{
    const T rv = static_cast<T>(rhat_v);
    sc.rhat_v = rv;
    if (!is_finite(rv) || !is_finite(sc.rho)) return raise_status(sc, DeviceStatus::non_finite);
    if (rv == T(0)) return raise_status(sc, DeviceStatus::rhat_v_zero);
    const T alpha = sc.rho / rv;
    if (!is_finite(alpha)) return raise_status(sc, DeviceStatus::non_finite);
    sc.alpha = alpha;
}

template <typename T>
KBENCH_BICGSTAB_HD inline void finish_omega(DeviceScalars<T>& sc, double ts, double tt, double ss)
{
    sc.ts = static_cast<T>(ts);
    sc.tt = static_cast<T>(tt);
    sc.ss = static_cast<T>(ss);
    if (!is_finite(sc.ts) || !is_finite(sc.tt) || !is_finite(sc.ss))
        return raise_status(sc, DeviceStatus::non_finite);
    if (sc.tt == T(0)) {
        sc.omega = T(0);  // s == 0: half-step convergence; otherwise A s == 0 for s != 0
        if (sc.ss != T(0)) raise_status(sc, DeviceStatus::omega_zero);
        return;
    }
    const T omega = sc.ts / sc.tt;
    if (!is_finite(omega)) return raise_status(sc, DeviceStatus::non_finite);
    sc.omega = omega;
}

template <typename T>
KBENCH_BICGSTAB_HD inline void finish_xr(DeviceScalars<T>& sc, double rho, double rr)
{
    sc.rho_old = sc.rho;
    sc.rho = static_cast<T>(rho);
    sc.rr = static_cast<T>(rr);
    if (!is_finite(sc.rho) || !is_finite(sc.rr) || !is_finite(sc.alpha) || !is_finite(sc.omega))
        return raise_status(sc, DeviceStatus::non_finite);
    if (sc.rr != T(0) && sc.omega == T(0)) return raise_status(sc, DeviceStatus::omega_zero);
    if (sc.rr != T(0) && sc.rho == T(0)) raise_status(sc, DeviceStatus::rho_zero);
}

}  // namespace detail
}  // namespace kbench::bicgstab

#undef KBENCH_BICGSTAB_HD
