// Givens least squares of GMRES and block GMRES (declarations in solvers/hessenberg.hpp).
#include "solvers/hessenberg.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#ifdef _OPENMP
#include <omp.h>
#endif

namespace kbench::solvers {
namespace {

/// add_columns' threads take multiples of 8 columns (a 64-byte line of doubles) each.
constexpr int chunk = 8;
/// Rotated pairs (earlier columns' rotations x new columns) above which add_columns applies
/// the earlier rotations on OpenMP threads: below it, a parallel region's start (a few
/// microseconds) costs more than it saves (microbench_hessenberg, 2-core host).
constexpr long long parallel_pairs = 64 * 1024;

#if defined(__GNUC__)
#define KBENCH_ALWAYS_INLINE inline __attribute__((always_inline))  // into each SIMD clone
#else
#define KBENCH_ALWAYS_INLINE inline
#endif

/// The s rotations of an earlier column p, in the order they were made (rotation l on rows
/// p + s - 1 - l, p + s - l; l = 0 .. s - 1), applied to W adjacent columns of the row-major x
/// (row stride ld). Rotation l's lower row is rotation l - 1's upper row: it stays in
/// registers (b) instead of making a round trip through memory. The arithmetic of each pair
/// is that of a scalar rotation [c s; -s c]: u = c a + s b, v = -s a + c b.
template <typename T, int W>
KBENCH_ALWAYS_INLINE void rotate_group(T* x, std::size_t ld, int p, int s, const T* cs, const T* sn)
{
    T b[W];
    T* low = x + static_cast<std::size_t>(p + s) * ld;
    for (int k = 0; k < W; ++k) b[k] = low[k];
    for (int l = 0; l < s; ++l) {
        T* up = low - ld;
        const T c = cs[l], sv = sn[l];
#pragma omp simd
        for (int k = 0; k < W; ++k) {
            const T a = up[k], v = b[k];
            low[k] = -sv * a + c * v;
            b[k] = c * a + sv * v;
        }
        low = up;
    }
    for (int k = 0; k < W; ++k) low[k] = b[k];
}

/// rotate_group for the earlier columns p0 .. p1 - 1, in order (cos and sin of column p at p s).
template <typename T, int W>
KBENCH_ALWAYS_INLINE void rotate_groups_of(T* x, std::size_t ld, int p0, int p1, int s,
                                           const T* cos, const T* sin)
{
    for (int p = p0; p < p1; ++p) {
        const std::size_t q = static_cast<std::size_t>(p) * s;
        rotate_group<T, W>(x, ld, p, s, cos + q, sin + q);
    }
}

/// The rotations of columns p0 .. p1 - 1 (s per column; cos and sin of column p at p s) on the
/// columns k0 .. k1 - 1 of the row-major x (row stride ld): chunks of 32 (enough independent
/// work per rotation to hide the latency of the carried row), then 16, 8, 4, 2, 1.
template <typename T>
KBENCH_ALWAYS_INLINE void rotate_groups(T* x, std::size_t ld, int k0, int k1, int p0, int p1,
                                        int s, const T* cos, const T* sin)
{
    int k = k0;
    for (; k + 32 <= k1; k += 32) rotate_groups_of<T, 32>(x + k, ld, p0, p1, s, cos, sin);
    if (k + 16 <= k1) rotate_groups_of<T, 16>(x + k, ld, p0, p1, s, cos, sin), k += 16;
    if (k + 8 <= k1) rotate_groups_of<T, 8>(x + k, ld, p0, p1, s, cos, sin), k += 8;
    if (k + 4 <= k1) rotate_groups_of<T, 4>(x + k, ld, p0, p1, s, cos, sin), k += 4;
    if (k + 2 <= k1) rotate_groups_of<T, 2>(x + k, ld, p0, p1, s, cos, sin), k += 2;
    if (k < k1) rotate_groups_of<T, 1>(x + k, ld, p0, p1, s, cos, sin);
}

/// rotate_groups compiled for AVX2 and AVX-512 too, picked at load time by the CPU (GCC's
/// target_clones). This file is compiled with -ffp-contract=off (solvers/CMakeLists.txt): no
/// variant contracts to FMA, so all round the same, as the scalar code before them.
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define KBENCH_SIMD_CLONES __attribute__((target_clones("default", "avx2", "avx512f")))
#else
#define KBENCH_SIMD_CLONES
#endif
KBENCH_SIMD_CLONES void rotate_groups_simd(double* x, std::size_t ld, int k0, int k1, int p0,
                                           int p1, int s, const double* cos, const double* sin)
{
    rotate_groups(x, ld, k0, k1, p0, p1, s, cos, sin);
}
KBENCH_SIMD_CLONES void rotate_groups_simd(float* x, std::size_t ld, int k0, int k1, int p0,
                                           int p1, int s, const float* cos, const float* sin)
{
    rotate_groups(x, ld, k0, k1, p0, p1, s, cos, sin);
}

int round_up(int v, int to) { return (v + to - 1) / to * to; }

}  // namespace

template <typename T>
HessenbergLsq<T>::HessenbergLsq(int m, int s) : m_(m), s_(s)
{
    if (m < 1 || s < 1)
        throw std::invalid_argument("HessenbergLsq: restart length m = " + std::to_string(m) +
                                    ", block size s = " + std::to_string(s) +
                                    ", expected both >= 1");
}

template <typename T>
HessenbergLsq<T>::HessenbergLsq(const HessenbergLsq& o)
    : m_(o.m_), s_(o.s_), cols_(o.cols_), g_rows_(o.g_rows_)
{
    if (!o.r_) return;
    allocate();
    const std::size_t rows = rows_capacity(), rotations = static_cast<std::size_t>(cols_) * s_;
    for (int c = 0; c < cols_; ++c)
        std::copy_n(o.r_.get() + c * rows, c + s_ + 1, r_.get() + c * rows);
    std::copy_n(o.cos_.get(), rotations, cos_.get());
    std::copy_n(o.sin_.get(), rotations, sin_.get());
    std::copy_n(o.g_.get(), static_cast<std::size_t>(g_rows_) * s_, g_.get());
}

template <typename T>
HessenbergLsq<T>& HessenbergLsq<T>::operator=(const HessenbergLsq& o)
{
    if (this != &o) *this = HessenbergLsq(o);
    return *this;
}

template <typename T>
void HessenbergLsq<T>::allocate()
{
    if (r_) return;
    const std::size_t rows = rows_capacity(), cols = static_cast<std::size_t>(m_) * s_;
    // new T[n]: default-initialized, i.e. not written; large blocks come from the OS as
    // untouched pages.
    r_.reset(new T[rows * cols]);
    cos_.reset(new T[cols * s_]);
    sin_.reset(new T[cols * s_]);
    g_.reset(new T[rows * s_]);
    work_.reset(new T[rows * round_up(s_, chunk) + 64 / sizeof(T)]);
}

template <typename T>
void HessenbergLsq<T>::touch_g(int row)
{
    if (row < g_rows_) return;
    std::fill(g_.get() + static_cast<std::size_t>(g_rows_) * s_,
              g_.get() + static_cast<std::size_t>(row + 1) * s_, T(0));
    g_rows_ = row + 1;
}

template <typename T>
void HessenbergLsq<T>::reset(const T* S, int lds)
{
    allocate();
    cols_ = 0;
    for (int i = 0; i < s_; ++i)
        for (int k = 0; k < s_; ++k)
            g_[static_cast<std::size_t>(i) * s_ + k] =
                i <= k ? S[i + static_cast<std::size_t>(k) * lds] : T(0);
    g_rows_ = s_;
}

template <typename T>
void HessenbergLsq<T>::reset(T beta)
{
    const T S[1] = {beta};
    reset(S, 1);
}

template <typename T>
HessenbergStatus HessenbergLsq<T>::add_column(const T* h)
{
    return add_columns(h, 0, 1);
}

template <typename T>
HessenbergStatus HessenbergLsq<T>::add_columns(const T* h, std::size_t ldh, int count)
{
    if (count < 0 || cols_ + count > m_ * s_)
        throw std::logic_error("HessenbergLsq::add_columns: " + std::to_string(count) +
                               " columns after " + std::to_string(cols_) + " of " +
                               std::to_string(m_ * s_) + "; call reset() first");
    if (count > s_) {  // the scratch holds s columns: pieces of s (the same arithmetic)
        for (int k = 0; k < count; k += s_) {
            const HessenbergStatus st = add_columns(h + k * ldh, ldh, std::min(s_, count - k));
            if (st != HessenbergStatus::ok) return st;
        }
        return HessenbergStatus::ok;
    }
    allocate();
    const int c0 = cols_, s = s_;
    // Columns up to the first non-finite one are added.
    int usable = count;
    for (int k = 0; k < count && usable == count; ++k)
        for (int i = 0; i <= c0 + k + s; ++i)
            if (!std::isfinite(static_cast<double>(h[k * ldh + i]))) {
                usable = k;
                break;
            }
    // x: the usable columns as a row-major block, row stride ld, 64-byte aligned; column k
    // holds rows 0 .. c0 + k + s (the rows below are never read).
    const std::size_t rows = rows_capacity(), ld = round_up(usable, chunk);
    T* x = work_.get();
    x += (64 - reinterpret_cast<std::uintptr_t>(x) % 64) % 64 / sizeof(T);
    for (int k = 0; k < usable; ++k)
        for (int i = 0; i <= c0 + k + s; ++i) x[i * ld + k] = h[k * ldh + i];
    // The rotations of the columns before c0, in the order they were made, on every new
    // column: the columns are independent; on threads when the work is large, each taking a
    // contiguous range of columns (wide ranges run faster: see rotate_groups).
    const T* cos = cos_.get();
    const T* sin = sin_.get();
    int parts = 1;
#ifdef _OPENMP
    if (static_cast<long long>(c0) * s * usable > parallel_pairs)
        parts = std::min(omp_get_max_threads(), (usable + chunk - 1) / chunk);
#endif
    const int per = round_up((usable + parts - 1) / parts, chunk);
#pragma omp parallel for num_threads(parts) schedule(static) if (parts > 1)
    for (int i = 0; i < parts; ++i)
        rotate_groups_simd(x, ld, std::min(usable, i * per), std::min(usable, (i + 1) * per), 0,
                           c0, s, cos, sin);
    for (int k = 0; k < usable; ++k) {
        const int c = c0 + k;
        T* cs = cos_.get() + static_cast<std::size_t>(c) * s;
        T* sn = sin_.get() + static_cast<std::size_t>(c) * s;
        // Zero the s entries below the diagonal, bottom up; the rotations act on G too.
        for (int l = 0; l < s; ++l) {
            T& u = x[(c + s - 1 - l) * ld + k];
            T& v = x[(c + s - l) * ld + k];
            const T a = u, b = v;
            const T rho = std::hypot(a, b);
            cs[l] = rho > T(0) ? a / rho : T(1);
            sn[l] = rho > T(0) ? b / rho : T(0);
            u = rho;
            v = T(0);
        }
        touch_g(c + s);
        rotate_groups_simd(g_.get(), s, 0, s, c, c + 1, s, cos, sin);
        if (!(std::abs(x[c * ld + k]) > T(0))) return HessenbergStatus::singular;
        T* col = r_.get() + c * rows;
        for (int i = 0; i <= c + s; ++i) col[i] = x[i * ld + k];
        cols_ = c + 1;
        // This column's rotations on the later new columns.
        rotate_groups_simd(x, ld, k + 1, usable, c, c + 1, s, cos, sin);
    }
    return usable < count ? HessenbergStatus::non_finite : HessenbergStatus::ok;
}

template <typename T>
T HessenbergLsq<T>::residual(int k) const
{
    double sum = 0.0;
    for (int i = cols_; i < std::min(cols_ + s_, g_rows_); ++i) {
        const double v = g_[static_cast<std::size_t>(i) * s_ + k];
        sum += v * v;
    }
    return static_cast<T>(std::sqrt(sum));
}

template <typename T>
std::vector<T> HessenbergLsq<T>::solve() const
{
    using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;
    using RowMajor = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    using Strided = Eigen::Map<const Matrix, 0, Eigen::OuterStride<>>;
    const auto rows = static_cast<Eigen::Index>(rows_capacity());
    std::vector<T> y(static_cast<std::size_t>(cols_) * s_);
    if (cols_ == 0) return y;
    // Only R's upper triangle is read (Eigen's triangularView): the rest is never written.
    const Strided r(r_.get(), cols_, cols_, Eigen::OuterStride<>(rows));
    Eigen::Map<Matrix> out(y.data(), cols_, s_);
    out = Eigen::Map<const RowMajor>(g_.get(), cols_, s_);
    r.template triangularView<Eigen::Upper>().solveInPlace(out);
    return y;
}

template class HessenbergLsq<float>;
template class HessenbergLsq<double>;

}  // namespace kbench::solvers
