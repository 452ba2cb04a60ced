// Performance models of one BiCGSTAB iteration (anzt2015, Sec. 3.3 and Sec. 4.5):
//  1. device-memory traffic of the vector operations, per kernel and per iteration, for the
//     cuBLAS-based reference (Fig. 1 right) and for the merged kernels (Fig. 2), Table 1;
//  2. the traffic saving eta_memory and the fit F(n) of the runtime saved by the merged dot
//     products (eq. 3, Fig. 10), with a least-squares refit for the GPU at hand;
//  3. the predicted improvements P_memory, P_memory+dot and P_memory+dot+SpMV (eqs. 2, 4, 5) from
//     the reference's time profile (Table 4) and the SpMV improvement zeta_M (Table 3);
//  4. kbench extension: an absolute time per iteration of the cuBLAS reference, the merged
//     kernels and a CUDA graph of them, through the launch pipeline of
//     models/launch_pipeline.hpp from a measured bandwidth and measured host and device costs.
//
// Units: bytes, seconds, and fractions in [0, 1] (never percent); n is a vector length (entries).
// Bad input throws std::invalid_argument naming the parameter, its value and what was expected.
// Only the standard library and models/launch_pipeline.hpp are used; SpMV bytes and times come
// from the caller (models/spmv_traffic.hpp, models/spmv_time.hpp or a measurement).
#pragma once

#include "models/launch_pipeline.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kbench::models {

// ------------------------------------------------------------------------------------------------
// 1. Memory traffic per iteration (anzt2015 Table 1)
// ------------------------------------------------------------------------------------------------

/// The two implementations Table 1 compares: the cuBLAS-based reference (Fig. 1 right) and the
/// merged kernels (Fig. 2 right). A CUDA graph of the merged kernels moves the merged traffic.
enum class BicgstabVariant { reference, merged };

/// What a kernel does with its result: a vector update, or a reduction (dot product / norm) that
/// produces scalars. The merged xr_update+reduce3 counts as an update (Table 4's "x + r update").
enum class KernelRole { update, reduction };

/// Traffic of one kernel (one cuBLAS call or one merged kernel) of one iteration. Vector traffic
/// is `reads_n * n` and `writes_n * n` entries, counted as the kernel moves them: a vector it
/// reads twice in one pass (t . t, the nrm2 of r) is read once. Table 1 counts such a call as
/// 2n reads; `paper_reads_n` keeps the paper's count beside kbench's. The scalar terms are the O(1) entries of Table 1,
/// counted as one entry per O(1) term where the paper gives no number. The [O(log_bs(n))] partial
/// sums of a multi-stage reduction (Table 1, brackets) are not counted. SpMVs are not listed
/// (2 C_SpMV per iteration; the caller adds them, see iteration_bytes).
struct KernelTraffic {
    std::string_view name;         // the cuBLAS call and its vectors, or the merged kernel
    KernelRole role;               // update or reduction
    int line;                      // reference: Fig. 1 right line as Table 1 numbers it; merged: 0
    std::string_view merged_into;  // reference: the merged kernel that absorbs it; merged: itself
    double reads_n;                // vector entries read, in multiples of n (distinct vectors)
    double writes_n;               // vector entries written, in multiples of n
    double scalar_reads;           // scalar entries read (O(1) term)
    double scalar_writes;          // scalar entries written (O(1) term)
    double paper_reads_n = -1.0;   // Table 1's count where it differs from reads_n; else < 0

    /// The vector reads anzt2015 Table 1 counts for this call, in multiples of n.
    constexpr double table1_reads_n() const { return paper_reads_n >= 0.0 ? paper_reads_n : reads_n; }
};

/// A read-only view of a kernel table (C++17 has no std::span).
struct KernelSpan {
    const KernelTraffic* first = nullptr;
    std::size_t count = 0;
    constexpr const KernelTraffic* begin() const { return first; }
    constexpr const KernelTraffic* end() const { return first + count; }
    constexpr std::size_t size() const { return count; }
    constexpr const KernelTraffic& operator[](std::size_t i) const { return first[i]; }
};

namespace detail {

inline constexpr KernelRole upd = KernelRole::update;
inline constexpr KernelRole red = KernelRole::reduction;

// The cuBLAS reference, one call per row, in Table 1's order and numbering (Fig. 1 right):
// lines 4..18, then line 2, the dot at the loop head that starts each iteration.
// Columns: name, role, line, merged into, reads_n, writes_n, scalar_reads, scalar_writes, and
// Table 1's reads where the call reads one vector twice (the kernel moves it once).
inline constexpr std::array<KernelTraffic, 14> reference_kernels{{
    {"scal p = beta p",         upd, 4,  "p_update",          1.0, 1.0, 1.0, 0.0},
    {"axpy p += -omega beta v", upd, 5,  "p_update",          2.0, 1.0, 1.0, 0.0},
    {"axpy p += r",             upd, 6,  "p_update",          2.0, 1.0, 1.0, 0.0},
    {"dot r_hat . v (alpha)",   red, 8,  "reduce1",           2.0, 0.0, 1.0, 1.0},
    {"copy s = r",              upd, 9,  "s_update",          1.0, 1.0, 0.0, 0.0},
    {"axpy s += -alpha v",      upd, 10, "s_update",          2.0, 1.0, 1.0, 0.0},
    {"dot t . s (omega)",       red, 12, "reduce2",           2.0, 0.0, 1.0, 1.0},
    {"dot t . t (omega)",       red, 13, "reduce2",           1.0, 0.0, 1.0, 1.0, 2.0},
    {"axpy x += alpha p",       upd, 14, "xr_update+reduce3", 2.0, 1.0, 1.0, 0.0},
    {"axpy x += omega s",       upd, 15, "xr_update+reduce3", 2.0, 1.0, 1.0, 0.0},
    {"copy r = s",              upd, 16, "xr_update+reduce3", 1.0, 1.0, 0.0, 0.0},
    {"axpy r += -omega t",      upd, 17, "xr_update+reduce3", 2.0, 1.0, 1.0, 0.0},
    // nrm2 reads r once; Table 1 counts 2n, as for res = r . r (Fig. 1 left, line 19).
    {"nrm2 r (res)",            red, 18, "xr_update+reduce3", 1.0, 0.0, 1.0, 1.0, 2.0},
    // rho = r_hat . r of the next iteration; the merged reduce3 computes it with r . r.
    {"dot r_hat . r (rho)",     red, 2,  "xr_update+reduce3", 2.0, 0.0, 1.0, 1.0},
}};

// The merged kernels of Fig. 2 right, in execution order (the two SpMVs follow p_update and
// s_update). p_update's 4 scalars are stated in Sec. 4.4 (3n + 4 reads, n writes); the
// reductions write one scalar each as Table 1 gives it. Columns as above; line is 0.
inline constexpr std::array<KernelTraffic, 5> merged_kernels{{
    // p = r + beta (p - omega v): reads r, p, v
    {"p_update",          upd, 0, "p_update",          3.0, 1.0, 4.0, 0.0},
    // r_hat . v
    {"reduce1",           red, 0, "reduce1",           2.0, 0.0, 0.0, 1.0},
    // s = r - alpha v: reads r, v
    {"s_update",          upd, 0, "s_update",          2.0, 1.0, 1.0, 0.0},
    // t . s and t . t: reads t, s
    {"reduce2",           red, 0, "reduce2",           2.0, 0.0, 0.0, 1.0},
    // x += alpha p + omega s, r = s - omega t, then r . r and r_hat . r:
    // reads x, p, s, t, r_hat; writes x, r
    {"xr_update+reduce3", upd, 0, "xr_update+reduce3", 5.0, 2.0, 0.0, 0.0},
}};

[[noreturn]] inline void throw_invalid(std::string_view function, std::string_view parameter,
                                       double value, std::string_view expected)
{
    std::ostringstream os;
    os.precision(17);
    os << "kbench::models::" << function << ": " << parameter << " = " << value << ", expected "
       << expected;
    throw std::invalid_argument(os.str());
}

inline void check_finite(std::string_view function, std::string_view parameter, double value)
{
    if (!std::isfinite(value)) throw_invalid(function, parameter, value, "a finite number");
}

inline void check_fraction(std::string_view function, std::string_view parameter, double value)
{
    if (!(value >= 0.0 && value <= 1.0))  // also rejects NaN
        throw_invalid(function, parameter, value, "a fraction in [0, 1]");
}

inline void check_traffic_args(std::string_view function, std::int64_t n, int value_bytes)
{
    if (n < 0) throw_invalid(function, "n", static_cast<double>(n), "n >= 0");
    if (value_bytes <= 0)
        throw_invalid(function, "value_bytes", value_bytes, "value_bytes > 0");
}

}  // namespace detail

/// The 14 cuBLAS calls of the reference's vector operations (anzt2015 Table 1 left, Fig. 1
/// right): 9 updates (1 scal, 6 axpy, 2 copy) and 5 reductions (4 dot, 1 nrm2). Per n they sum
/// to 25n reads (Table 1's count; 23n as the calls move them) and 9n writes.
constexpr KernelSpan reference_kernels()
{
    return {detail::reference_kernels.data(), detail::reference_kernels.size()};
}

/// The 5 merged kernels (anzt2015 Table 1 right, Fig. 2): p_update, reduce1, s_update, reduce2,
/// xr_update+reduce3. Per n they sum to 14n reads and 4n writes.
constexpr KernelSpan merged_kernels()
{
    return {detail::merged_kernels.data(), detail::merged_kernels.size()};
}

/// The kernel table of `variant`.
constexpr KernelSpan kernels(BicgstabVariant variant)
{
    return variant == BicgstabVariant::reference ? reference_kernels() : merged_kernels();
}

/// Sums of a kernel table's columns (entries; vector terms in multiples of n).
struct TrafficTotals {
    double reads_n = 0.0;         // as the kernels move them
    double table1_reads_n = 0.0;  // as anzt2015 Table 1 counts them
    double writes_n = 0.0;
    double scalar_reads = 0.0;
    double scalar_writes = 0.0;
};

/// Column sums of `variant`'s table (anzt2015 Table 1, "sum" rows): reference 25n + 9n as
/// Table 1 counts them (23n + 9n as the kernels move them: t . t and nrm2 read one vector
/// each), merged 14n + 4n; scalar terms as counted in KernelTraffic.
constexpr TrafficTotals traffic_totals(BicgstabVariant variant)
{
    TrafficTotals t;
    for (const KernelTraffic& k : kernels(variant)) {
        t.reads_n += k.reads_n;
        t.table1_reads_n += k.table1_reads_n();
        t.writes_n += k.writes_n;
        t.scalar_reads += k.scalar_reads;
        t.scalar_writes += k.scalar_writes;
    }
    return t;
}

/// Bytes one call of `kernel` moves for vectors of length n with values of `value_bytes` bytes:
/// (reads_n + writes_n) * n + scalar_reads + scalar_writes entries. Reads and writes are summed
/// (the paper's assumption that both cost alike, Sec. 3.3). Throws std::invalid_argument for
/// n < 0 or value_bytes <= 0.
inline double kernel_bytes(const KernelTraffic& kernel, std::int64_t n, int value_bytes)
{
    detail::check_traffic_args("kernel_bytes", n, value_bytes);
    const double nn = static_cast<double>(n);
    return (kernel.reads_n * nn + kernel.scalar_reads          // entries read
            + kernel.writes_n * nn + kernel.scalar_writes)     // entries written
           * value_bytes;
}

/// Bytes of the vector operations of one iteration of `variant` (SpMVs excluded; anzt2015
/// Table 1, counted as the kernels move them): reference (32n + 17) * value_bytes (Table 1:
/// 34n + 17), merged (18n + 7) * value_bytes. Throws
/// std::invalid_argument for n < 0 or value_bytes <= 0.
inline double vector_bytes_per_iteration(BicgstabVariant variant, std::int64_t n, int value_bytes)
{
    detail::check_traffic_args("vector_bytes_per_iteration", n, value_bytes);
    double bytes = 0.0;
    for (const KernelTraffic& k : kernels(variant)) bytes += kernel_bytes(k, n, value_bytes);
    return bytes;
}

/// Bytes of one whole iteration: the vector operations plus the two SpMVs (2 C_SpMV, Table 1),
/// `spmv_bytes` being the bytes of one SpMV (e.g. csr_spmv(...).bytes() of
/// models/spmv_traffic.hpp). Throws std::invalid_argument for n < 0, value_bytes <= 0, or a
/// negative or non-finite spmv_bytes.
inline double iteration_bytes(BicgstabVariant variant, std::int64_t n, int value_bytes,
                              double spmv_bytes)
{
    if (!(spmv_bytes >= 0.0) || !std::isfinite(spmv_bytes))
        detail::throw_invalid("iteration_bytes", "spmv_bytes", spmv_bytes, "finite bytes >= 0");
    return vector_bytes_per_iteration(variant, n, value_bytes) + 2.0 * spmv_bytes;
}

// ------------------------------------------------------------------------------------------------
// 2. eta_memory and the dot-savings fit F(n) (anzt2015 Sec. 4.5, eq. 3, Fig. 10)
// ------------------------------------------------------------------------------------------------

/// eta_memory = 1 - (14 + 4) / (25 + 9) = 8/17 ~ 0.4706: the fraction of the vector traffic (per
/// n, scalar terms ignored) that the merged kernels save (anzt2015 Sec. 3.3 "up to 47 %",
/// Sec. 4.5; the paper prints the ratio of the two sums, the value it uses is this saving).
/// Table 1's counts; as the kernels move the bytes, 1 - 18 / 32 = 7/16 (eta_memory_moved).
constexpr double eta_memory()
{
    constexpr TrafficTotals ref = traffic_totals(BicgstabVariant::reference);
    constexpr TrafficTotals mrg = traffic_totals(BicgstabVariant::merged);
    return 1.0 - (mrg.table1_reads_n + mrg.writes_n) / (ref.table1_reads_n + ref.writes_n);
}

/// eta_memory over the bytes as the kernels move them (kbench's count: t . t and the nrm2 of r
/// read one vector each): 1 - (14 + 4) / (23 + 9) = 7/16 = 0.4375.
constexpr double eta_memory_moved()
{
    constexpr TrafficTotals ref = traffic_totals(BicgstabVariant::reference);
    constexpr TrafficTotals mrg = traffic_totals(BicgstabVariant::merged);
    return 1.0 - (mrg.reads_n + mrg.writes_n) / (ref.reads_n + ref.writes_n);
}

/// Parameters of F(n) = (1 / (a n + b) + c) / 100 (anzt2015 eq. 3; the paper's regression on a
/// K40: a = 1e-7, b = 0.018, c = 8.0, F in percent before the division by 100).
struct DotSavingsFit {
    double a = 1e-7;
    double b = 0.018;
    double c = 8.0;
};

/// F(n): the fraction of the reference's dot-product time that the merged dot products save for
/// vectors of length n (anzt2015 eq. 3, Fig. 10 right). Returns a fraction (0.6356 at n = 0,
/// 0.08 for n -> infinity with the paper's fit). Throws std::invalid_argument for a negative or
/// non-finite n, or a fit whose a n + b is 0 or whose value is not finite.
inline double dot_savings(double n, const DotSavingsFit& fit = {})
{
    if (!(n >= 0.0) || !std::isfinite(n))
        detail::throw_invalid("dot_savings", "n", n, "a finite n >= 0");
    const double denominator = fit.a * n + fit.b;
    if (denominator == 0.0 || !std::isfinite(denominator))
        detail::throw_invalid("dot_savings", "fit.a * n + fit.b", denominator,
                              "a finite nonzero value");
    const double f = (1.0 / denominator + fit.c) / 100.0;
    if (!std::isfinite(f)) detail::throw_invalid("dot_savings", "F(n)", f, "a finite value");
    return f;
}

namespace detail {

// Separable least squares for F. Writing b = 1/p and a = 1/(p k) (k = b/a, the knee of the
// curve), 100 F(n) = p h(n) + c with h(n) = 1 / (1 + n/k): for a fixed knee the model is linear
// in (p, c). SavingsProblem solves that linear problem for one k and returns its residual sum
// of squares (variable projection, Golub & Pereyra 1973).
struct SavingsProblem {
    std::vector<double> n;
    std::vector<double> y;  // savings in percent

    struct Linear {
        double p = 0.0;
        double c = 0.0;
        double rss = 0.0;
    };

    Linear solve(double log_k) const
    {
        const double inv_k = std::exp(-log_k);
        double shh = 0.0, sh = 0.0, shy = 0.0, sy = 0.0;
        const double m = static_cast<double>(n.size());
        for (std::size_t i = 0; i < n.size(); ++i) {
            const double h = 1.0 / (1.0 + n[i] * inv_k);
            shh += h * h;
            sh += h;
            shy += h * y[i];
            sy += y[i];
        }
        Linear l;
        const double det = shh * m - sh * sh;
        if (det > 1e-14 * shh * m) {
            l.p = (shy * m - sh * sy) / det;
            l.c = (shh * sy - sh * shy) / det;
        } else {  // h is constant over the data: only the mean is determined
            l.p = 0.0;
            l.c = sy / m;
        }
        l.rss = rss(log_k, l.p, l.c);
        return l;
    }

    double rss(double log_k, double p, double c) const
    {
        const double inv_k = std::exp(-log_k);
        double s = 0.0;
        for (std::size_t i = 0; i < n.size(); ++i) {
            const double r = y[i] - (p / (1.0 + n[i] * inv_k) + c);
            s += r * r;
        }
        return s;
    }
};

// Solves the 3x3 symmetric system m x = g by Gaussian elimination with partial pivoting;
// returns false when it is singular.
inline bool solve3(std::array<std::array<double, 3>, 3> m, std::array<double, 3> g,
                   std::array<double, 3>& x)
{
    for (std::size_t col = 0; col < 3; ++col) {
        std::size_t piv = col;
        for (std::size_t r = col + 1; r < 3; ++r)
            if (std::abs(m[r][col]) > std::abs(m[piv][col])) piv = r;
        if (!(std::abs(m[piv][col]) > 0.0)) return false;
        std::swap(m[col], m[piv]);
        std::swap(g[col], g[piv]);
        for (std::size_t r = col + 1; r < 3; ++r) {
            const double f = m[r][col] / m[col][col];
            for (std::size_t k = col; k < 3; ++k) m[r][k] -= f * m[col][k];
            g[r] -= f * g[col];
        }
    }
    for (std::size_t r = 3; r-- > 0;) {
        double s = g[r];
        for (std::size_t k = r + 1; k < 3; ++k) s -= m[r][k] * x[k];
        x[r] = s / m[r][r];
    }
    return std::isfinite(x[0]) && std::isfinite(x[1]) && std::isfinite(x[2]);
}

}  // namespace detail

/// Refits F(n) = (1 / (a n + b) + c) / 100 (anzt2015 eq. 3) to measured savings by least squares
/// on the fractions: minimizes sum_i (F(n_i) - s_i)^2 over a, b, c. Input: pairs (n_i, s_i) with
/// s_i the fraction of dot time saved (not percent), as measured for Fig. 10.
///
/// Method (separable least squares): with p = 1/b and the knee k = b/a, 100 F(n) = p/(1 + n/k) + c
/// is linear in (p, c) for a fixed k, so the best (p, c) of each k is a 2x2 linear solve and the
/// search is one-dimensional in log k: a grid of 601 points over [n_min / 1e4, n_max * 1e4]
/// (n_min the smallest positive n) finds the basin, golden-section search refines it between the
/// grid neighbours, and Gauss-Newton steps on (log k, p, c), each kept only if it lowers the
/// residual, polish the result. The grid makes it robust to the flat valleys
/// of the original (a, b) parameterization; a knee outside the grid's range is reported at its
/// edge.
///
/// Throws std::invalid_argument for fewer than 3 points, fewer than 3 distinct n, a negative or
/// non-finite n or non-finite saving, or savings that do not vary with n along the curve (p = 0,
/// no finite b).
inline DotSavingsFit fit_dot_savings(const std::vector<std::pair<double, double>>& n_and_savings)
{
    constexpr std::string_view fn = "fit_dot_savings";
    if (n_and_savings.size() < 3)
        detail::throw_invalid(fn, "n_and_savings.size()", static_cast<double>(n_and_savings.size()),
                              "at least 3 points");
    detail::SavingsProblem prob;
    for (const auto& [n, s] : n_and_savings) {
        if (!(n >= 0.0) || !std::isfinite(n)) detail::throw_invalid(fn, "n", n, "a finite n >= 0");
        detail::check_finite(fn, "saving", s);
        prob.n.push_back(n);
        prob.y.push_back(100.0 * s);
    }
    std::vector<double> distinct = prob.n;
    std::sort(distinct.begin(), distinct.end());
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
    if (distinct.size() < 3)
        detail::throw_invalid(fn, "number of distinct n", static_cast<double>(distinct.size()),
                              "at least 3 distinct vector lengths");
    const double n_min = distinct[0] > 0.0 ? distinct[0] : distinct[1];
    const double n_max = distinct.back();

    // Grid over log k.
    constexpr int grid = 601;
    const double lo = std::log(n_min) - 4.0 * std::log(10.0);
    const double hi = std::log(n_max) + 4.0 * std::log(10.0);
    const double step = (hi - lo) / (grid - 1);
    int best = 0;
    double best_rss = std::numeric_limits<double>::infinity();
    for (int i = 0; i < grid; ++i) {
        const double r = prob.solve(lo + i * step).rss;
        if (r < best_rss) {
            best_rss = r;
            best = i;
        }
    }

    // Golden section between the grid neighbours of the best point.
    double x0 = lo + std::max(best - 1, 0) * step;
    double x3 = lo + std::min(best + 1, grid - 1) * step;
    const double g = 0.5 * (std::sqrt(5.0) - 1.0);
    double x1 = x3 - g * (x3 - x0);
    double x2 = x0 + g * (x3 - x0);
    double f1 = prob.solve(x1).rss;
    double f2 = prob.solve(x2).rss;
    for (int it = 0; it < 200 && x3 - x0 > 1e-13 * (1.0 + std::abs(x0)); ++it) {
        if (f1 < f2) {
            x3 = x2;
            x2 = x1;
            f2 = f1;
            x1 = x3 - g * (x3 - x0);
            f1 = prob.solve(x1).rss;
        } else {
            x0 = x1;
            x1 = x2;
            f1 = f2;
            x2 = x0 + g * (x3 - x0);
            f2 = prob.solve(x2).rss;
        }
    }
    double theta = f1 < f2 ? x1 : x2;
    detail::SavingsProblem::Linear lin = prob.solve(theta);
    if (best_rss < lin.rss) {  // the grid point beat the refinement (edge of the grid)
        theta = lo + best * step;
        lin = prob.solve(theta);
    }
    double p = lin.p;
    double c = lin.c;
    double rss = lin.rss;

    // Gauss-Newton polish on (theta = log k, p, c): model p h + c, h = 1/(1 + n e^-theta),
    // dh/dtheta = h^2 n e^-theta.
    for (int it = 0; it < 50; ++it) {
        std::array<std::array<double, 3>, 3> jtj{};
        std::array<double, 3> jtr{};
        const double inv_k = std::exp(-theta);
        for (std::size_t i = 0; i < prob.n.size(); ++i) {
            const double h = 1.0 / (1.0 + prob.n[i] * inv_k);
            const std::array<double, 3> j{p * h * h * prob.n[i] * inv_k, h, 1.0};
            const double r = prob.y[i] - (p * h + c);
            for (std::size_t u = 0; u < 3; ++u) {
                jtr[u] += j[u] * r;
                for (std::size_t v = 0; v < 3; ++v) jtj[u][v] += j[u] * j[v];
            }
        }
        std::array<double, 3> delta{};
        if (!detail::solve3(jtj, jtr, delta)) break;
        bool improved = false;
        for (double scale = 1.0; scale > 1e-4; scale *= 0.5) {
            const double t = theta + scale * delta[0];
            const double pp = p + scale * delta[1];
            const double cc = c + scale * delta[2];
            const double r = prob.rss(t, pp, cc);
            if (r < rss) {
                improved = rss - r > 1e-15 * rss;
                theta = t;
                p = pp;
                c = cc;
                rss = r;
                break;
            }
        }
        if (!improved) break;
    }

    if (p == 0.0 || !std::isfinite(p))
        detail::throw_invalid(fn, "p = 1/b", p, "savings that vary with n (a finite nonzero 1/b)");
    DotSavingsFit fit;
    fit.b = 1.0 / p;
    fit.a = fit.b * std::exp(-theta);
    fit.c = c;
    return fit;
}

// ------------------------------------------------------------------------------------------------
// 3. Predicted improvements (anzt2015 Sec. 4.5, eqs. 2, 4, 5)
// ------------------------------------------------------------------------------------------------
// Inputs are the reference's time fractions of one matrix (anzt2015 Table 4): spmv_fraction =
// T_SpMV / T_total and dot_fraction = T_dot / T_total; the remainder 1 - SpMV - dot is the
// vector updates. Each P is the predicted saving 1 - T_merged / T_cuBLAS as a fraction.

namespace detail {

inline void check_profile(std::string_view function, double spmv_fraction, double dot_fraction,
                          double eta)
{
    check_fraction(function, "spmv_fraction", spmv_fraction);
    check_fraction(function, "dot_fraction", dot_fraction);
    if (spmv_fraction + dot_fraction > 1.0 + 1e-12)
        throw_invalid(function, "spmv_fraction + dot_fraction", spmv_fraction + dot_fraction,
                      "a sum <= 1");
    check_fraction(function, "eta", eta);
}

// 1 - SpMV - dot, the vector-update share; clamped at 0 where a sum accepted as 1 rounds above it.
inline double update_fraction(double spmv_fraction, double dot_fraction)
{
    return std::max(0.0, 1.0 - spmv_fraction - dot_fraction);
}

}  // namespace detail

/// P_memory = (1 - SpMV - dot) * eta (anzt2015 eq. 2): the saving from the merged vector updates
/// alone, dot products and SpMVs unchanged. Fractions in, fraction out. Throws
/// std::invalid_argument naming the parameter when spmv_fraction, dot_fraction or eta is not in
/// [0, 1] or spmv_fraction + dot_fraction > 1.
inline double p_memory(double spmv_fraction, double dot_fraction, double eta = eta_memory())
{
    detail::check_profile("p_memory", spmv_fraction, dot_fraction, eta);
    return detail::update_fraction(spmv_fraction, dot_fraction) * eta;
}

/// P_memory+dot = eta (1 - SpMV - dot) + F(n) dot (anzt2015 eq. 4): adds the saving of the merged
/// dot products, F(n) of eq. 3 for vectors of length n (see dot_savings). Fractions in, fraction
/// out. Throws std::invalid_argument as p_memory does, and for an n that dot_savings rejects.
inline double p_memory_dot(double spmv_fraction, double dot_fraction, double n,
                           double eta = eta_memory(), const DotSavingsFit& fit = {})
{
    detail::check_profile("p_memory_dot", spmv_fraction, dot_fraction, eta);
    return eta * detail::update_fraction(spmv_fraction, dot_fraction)
           + dot_savings(n, fit) * dot_fraction;
}

/// P_memory+dot+SpMV = eta (1 - SpMV - dot) + F(n) dot + SpMV zeta_M (anzt2015 eq. 5): adds the
/// saving of the faster SpMV kernel, zeta_M = 1 - T_SELL-P / T_CSR of anzt2015 Table 3 (0 where
/// CSR is kept; a negative zeta_M models a slower kernel used anyway). Fractions in, fraction
/// out. Throws std::invalid_argument as p_memory_dot does, and for zeta_m > 1 or not finite.
inline double p_memory_dot_spmv(double spmv_fraction, double dot_fraction, double n,
                                double zeta_m, double eta = eta_memory(),
                                const DotSavingsFit& fit = {})
{
    constexpr std::string_view fn = "p_memory_dot_spmv";
    detail::check_profile(fn, spmv_fraction, dot_fraction, eta);
    if (!(zeta_m <= 1.0) || !std::isfinite(zeta_m))
        detail::throw_invalid(fn, "zeta_m", zeta_m, "a finite improvement <= 1");
    return eta * detail::update_fraction(spmv_fraction, dot_fraction)
           + dot_savings(n, fit) * dot_fraction + spmv_fraction * zeta_m;
}

// ------------------------------------------------------------------------------------------------
// 4. Absolute time per iteration (kbench extension, not in anzt2015)
// ------------------------------------------------------------------------------------------------
// Solver forms:
//  (a) cublas_reference: the 16 calls of Fig. 1 right per iteration, scalars on the host:
//        line 4  scal p = beta p     line 10 axpy s += -alpha v     line 15 axpy x += omega s
//        line 5  axpy p += -ob v     line 11 SpMV t = A s           line 16 copy r = s
//        line 6  axpy p += r         line 12 dot  t . s             line 17 axpy r += -omega t
//        line 7  SpMV v = A p        line 13 dot  t . t             line 18 nrm2 r
//        line 8  dot  r_hat . v      line 14 axpy x += alpha p      line 2  dot  r_hat . r
//        line 9  copy s = r
//      = 9 updates + 5 reductions + 2 SpMV = 16 launches; each of the 5 reductions returns its
//      result to the host (host pointer mode): the host waits for it before the next call.
//  (b), (c) merged: the 5 merged kernels + 2 SpMV + 1 one-thread stopping-test kernel (kbench's
//      solver evaluates the test on the device and copies its state) = 8 launches (b: CSR SpMV,
//      c: SELL-P SpMV; the forms differ only in the SpMV times the caller passes); the scalars
//      stay on the device and the state is copied to the host once per iteration.
//  (d) merged_graph: the same 8 kernels as nodes of a CUDA graph with the stopping test on the
//      device (the body of a conditional WHILE node): no host launch, no round trip; the
//      conditional node's own time per iteration (measured, kbench machine) adds to the nodes'.
//
// The iteration runs through the launch pipeline of models/launch_pipeline.hpp, op by op in the
// solver's order: the host pays each op's enqueue time and the device runs the ops back to back
// once they have arrived, so a small system is as slow as its host and a large one as its
// device; a value returned to the host drains the queue. Device time of a vector kernel: its
// bytes (KernelTraffic, anzt2015 Table 1) over the streaming bandwidth plus the measured fixed
// cost of a streaming kernel or, for a kernel that ends in a reduction, of a reduction; the
// SpMVs take the caller's device times, and so do (a)'s cuBLAS calls where the run measured them
// (ReferenceCallTimes: cuBLAS's kernels are not kbench's; priced as kbench's, the reference's
// iteration came out 3-15 % short of the measured one on an H200, table5 at 5232231). The
// paper's model (eqs. 2, 4, 5) prices the kernels by their bytes alone, the reads and writes at
// one bandwidth (Sec. 3.3); kbench adds the fixed costs and the host, which decide the small
// systems.

/// The solver forms of the absolute time model; merged covers (b) and (c).
enum class SolverForm { cublas_reference, merged, merged_graph };

/// Device time per call of each kind of cuBLAS call the reference form (a) makes, measured back to
/// back in a stream at the system's size and precision (harness/core/op_cost.hpp), seconds: the
/// call's kernels and the gap to the next launch from the host. 0: not measured (the call is then
/// priced by its Table 1 bytes like kbench's kernels).
struct ReferenceCallTimes {
    double axpy_s = 0.0;      // y += a x
    double scal_s = 0.0;      // x = a x
    double copy_s = 0.0;      // y = x
    double dot_s = 0.0;       // x . y
    double dot_self_s = 0.0;  // x . x (t . t: one vector)
    double nrm2_s = 0.0;      // ||x||_2
};

/// Measured figures of iteration_time: the machine's (kbench machine) and the run's own.
struct BicgstabMachine {
    double bw_bytes_per_s = 0.0;  // bytes per second a streaming vector kernel moves (the
                                  // triad bandwidth: the one the fixed costs are measured against)
    LaunchCosts launch;  // the pipeline's costs; for (a) launch_s and reduction_launch_s are the
                         // enqueue times of a cuBLAS axpy and dot, sync_tail_s the tail of a
                         // cuBLAS dot that returns its value to the host; for (b)-(d) those of
                         // kbench's launchers (harness/core/op_cost.hpp)
    double spmv_launch_s = 0.0;  // host time to enqueue one SpMV (0: launch.launch_s)
    double graph_iteration_s = 0.0;  // (d): the conditional WHILE node's time per iteration
                                     // beyond its body's nodes
    ReferenceCallTimes reference_calls;  // (a): cuBLAS's own device times, where measured
};

/// The measured device time of reference kernel k's cuBLAS call (its name's first word: scal,
/// axpy, copy, dot, nrm2; a dot that reads one vector is x . x), seconds; 0 when not measured or
/// not a cuBLAS call.
constexpr double reference_call_seconds(const KernelTraffic& k, const ReferenceCallTimes& c)
{
    const std::string_view call = k.name.substr(0, k.name.find(' '));
    if (call == "axpy") return c.axpy_s;
    if (call == "scal") return c.scal_s;
    if (call == "copy") return c.copy_s;
    if (call == "nrm2") return c.nrm2_s;
    if (call == "dot") return k.reads_n == 1.0 ? c.dot_self_s : c.dot_s;
    return 0.0;
}

/// Time of one iteration, seconds: the device's time in each kind of op, and host_s, the time
/// the device waits for the host (launches that arrive late, round trips); total_s is their sum.
struct IterationTime {
    double spmv_s = 0.0;     // the two SpMVs
    double dots_s = 0.0;     // kernels that end in a reduction
    double updates_s = 0.0;  // vector-update kernels
    double check_s = 0.0;    // the merged forms' stopping-test kernel ((d): and the loop)
    double host_s = 0.0;     // device idle: waiting for the host
    double total_s = 0.0;
};

/// Stopping-test kernels per iteration: 0 for the cuBLAS reference (the test runs on the host),
/// 1 for the merged forms (a one-thread kernel; kbench's solver, not anzt2015 Fig. 2).
constexpr int stopping_test_launches(SolverForm form)
{
    return form == SolverForm::cublas_reference ? 0 : 1;
}

/// Kernel launches (or graph nodes) per iteration of `form`: 16 for the cuBLAS reference
/// (14 vector calls + 2 SpMV, anzt2015 Fig. 1 right), 8 for the merged forms (5 + 2, Fig. 2,
/// plus the stopping test).
constexpr int kernel_launches(SolverForm form)
{
    return (form == SolverForm::cublas_reference
                ? static_cast<int>(detail::reference_kernels.size())
                : static_cast<int>(detail::merged_kernels.size())) +
           2 + stopping_test_launches(form);
}

/// Device->host round trips per iteration of `form`: 5 for the cuBLAS reference (4 dot + 1 nrm2
/// results), 1 for merged (the stopping test's state), 0 for the graph (device-side test).
constexpr int host_roundtrips(SolverForm form)
{
    switch (form) {
    case SolverForm::cublas_reference: {
        int r = 0;
        for (const KernelTraffic& k : detail::reference_kernels)
            if (k.role == KernelRole::reduction) ++r;
        return r;
    }
    case SolverForm::merged: return 1;
    case SolverForm::merged_graph: return 0;
    }
    return 0;
}

/// Whether kernel k ends in a reduction (a dot product or norm): the reductions, and the merged
/// xr_update+reduce3, which Table 4 counts as an update.
constexpr bool ends_in_reduction(const KernelTraffic& k)
{
    return k.role == KernelRole::reduction || k.name.find("reduce") != std::string_view::npos;
}

/// Modeled time of one BiCGSTAB iteration of `form` for vectors of length n with values of
/// `value_bytes` bytes, on `machine`, the two SpMVs taking spmv1_s (v = A p) and spmv2_s
/// (t = A s) seconds of device time, through the launch pipeline (see the block comment above;
/// kbench's model, not anzt2015's). Returns seconds.
/// Throws std::invalid_argument for n < 0, value_bytes <= 0, a bandwidth that is not finite and
/// > 0, or a cost or SpMV time that is negative or not finite.
inline IterationTime iteration_time(SolverForm form, std::int64_t n, int value_bytes,
                                    const BicgstabMachine& machine, double spmv1_s, double spmv2_s)
{
    constexpr std::string_view fn = "iteration_time";
    detail::check_traffic_args(fn, n, value_bytes);
    if (!(machine.bw_bytes_per_s > 0.0) || !std::isfinite(machine.bw_bytes_per_s))
        detail::throw_invalid(fn, "machine.bw_bytes_per_s", machine.bw_bytes_per_s,
                              "a finite bandwidth > 0 bytes/s");
    const ReferenceCallTimes& rc = machine.reference_calls;
    const std::pair<std::string_view, double> times[] = {
        {"machine.spmv_launch_s", machine.spmv_launch_s},
        {"machine.graph_iteration_s", machine.graph_iteration_s}, {"spmv1_s", spmv1_s},
        {"spmv2_s", spmv2_s}, {"machine.reference_calls.axpy_s", rc.axpy_s},
        {"machine.reference_calls.scal_s", rc.scal_s},
        {"machine.reference_calls.copy_s", rc.copy_s}, {"machine.reference_calls.dot_s", rc.dot_s},
        {"machine.reference_calls.dot_self_s", rc.dot_self_s},
        {"machine.reference_calls.nrm2_s", rc.nrm2_s}};
    for (const auto& [name, t] : times)
        if (!(t >= 0.0) || !std::isfinite(t))
            detail::throw_invalid(fn, name, t, "a finite time >= 0 seconds");

    LaunchCosts costs = machine.launch;
    if (form == SolverForm::merged_graph) {  // replayed nodes: no host launches, no stream gaps
        costs.launch_s = costs.reduction_launch_s = costs.copy_launch_s = 0.0;
        costs.stream_node_s = 0.0;
    }
    LaunchTimeline tl(costs);  // throws for a bad cost, naming it
    const double spmv_launch_s =
        form == SolverForm::merged_graph ? 0.0
        : machine.spmv_launch_s > 0.0    ? machine.spmv_launch_s
                                         : costs.launch_s;
    IterationTime t;
    // Runs op on the timeline and books the device time it added to `part`.
    const auto book = [&](double IterationTime::*part, auto&& op) {
        const double before = tl.busy_seconds();
        op();
        t.*part += tl.busy_seconds() - before;
    };
    const auto spmv = [&](double s) {
        book(&IterationTime::spmv_s, [&] { tl.op(spmv_launch_s, s); });
    };
    const bool reference = form == SolverForm::cublas_reference;
    const KernelSpan ks = kernels(reference ? BicgstabVariant::reference : BicgstabVariant::merged);
    // A measured cuBLAS call's device time includes the stream's gap, which the pipeline adds.
    const double gap_s = std::max(0.0, costs.stream_node_s - costs.node_s);
    for (std::size_t i = 0; i < ks.size(); ++i) {
        const KernelTraffic& k = ks[i];
        const double work_s = kernel_bytes(k, n, value_bytes) / machine.bw_bytes_per_s;
        const double call_s = reference ? reference_call_seconds(k, rc) : 0.0;
        double IterationTime::*part =
            ends_in_reduction(k) ? &IterationTime::dots_s : &IterationTime::updates_s;
        if (call_s > 0.0) {
            const double host_s = k.role == KernelRole::reduction && costs.reduction_launch_s > 0
                                      ? costs.reduction_launch_s
                                      : costs.launch_s;
            book(part, [&] { tl.op(host_s, std::max(0.0, call_s - gap_s)); });
        } else if (ends_in_reduction(k)) {
            book(part, [&] { tl.reduction(work_s); });
        } else {
            book(part, [&] { tl.kernel(work_s); });
        }
        // (a): a reduction's value goes to the host (inside the cuBLAS call: sync_tail_s).
        if (reference && k.role == KernelRole::reduction) tl.synchronize();
        // The SpMVs follow p = ... (v = A p) and s = ... (t = A s): (a) lines 6 and 10, the
        // merged p_update and s_update.
        const bool after_p = reference ? k.line == 6 : k.name == "p_update";
        const bool after_s = reference ? k.line == 10 : k.name == "s_update";
        if (after_p) spmv(spmv1_s);
        if (after_s) spmv(spmv2_s);
    }
    if (!reference) {
        book(&IterationTime::check_s, [&] { tl.kernel(0.0); });  // the stopping test
        if (form == SolverForm::merged) {
            tl.copy();  // its state to the host
            tl.synchronize();
        }
    }
    t.total_s = tl.seconds();
    if (form == SolverForm::merged_graph) {  // the loop itself, on the device alone
        t.check_s += machine.graph_iteration_s;
        t.total_s += machine.graph_iteration_s;
    }
    t.host_s = std::max(0.0, t.total_s - (t.spmv_s + t.dots_s + t.updates_s + t.check_s));
    return t;
}

}  // namespace kbench::models
