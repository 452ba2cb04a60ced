// Givens least squares of GMRES and block GMRES (declarations in solvers/hessenberg.hpp).
#include "solvers/hessenberg.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace kbench::solvers {

template <typename T>
HessenbergLsq<T>::HessenbergLsq(int m, int s) : m_(m), s_(s)
{
    if (m < 1 || s < 1)
        throw std::invalid_argument("HessenbergLsq: restart length m = " + std::to_string(m) +
                                    ", block size s = " + std::to_string(s) +
                                    ", expected both >= 1");
    const auto rows = static_cast<std::size_t>(m + 1) * s;
    const auto cols = static_cast<std::size_t>(m) * s;
    // R grows a column at a time (add_column): a non-restarted solve sizes m for the most steps
    // it may take, and zero-filling (m + 1) s x m s values up front cost more than short solves.
    cos_.assign(cols * s, T(1));
    sin_.assign(cols * s, T(0));
    g_.assign(rows * s, T(0));
}

template <typename T>
void HessenbergLsq<T>::reset(const T* S, int lds)
{
    cols_ = 0;
    g_.assign(g_.size(), T(0));
    const std::size_t rows = rows_capacity();
    for (int k = 0; k < s_; ++k)
        for (int i = 0; i <= k; ++i) g_[k * rows + i] = S[i + static_cast<std::size_t>(k) * lds];
}

template <typename T>
void HessenbergLsq<T>::reset(T beta)
{
    const T S[1] = {beta};
    reset(S, 1);
}

template <typename T>
void HessenbergLsq<T>::rotate(T* x, std::size_t stride, int count, int top, T c, T s) const
{
    for (int k = 0; k < count; ++k) {
        T& u = x[k * stride + top];
        T& v = x[k * stride + top + 1];
        const T a = u, b = v;
        u = c * a + s * b;
        v = -s * a + c * b;
    }
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
    const int c0 = cols_;
    // Columns up to the first non-finite one are added.
    int usable = count;
    for (int k = 0; k < count && usable == count; ++k)
        for (int i = 0; i <= c0 + k + s_; ++i)
            if (!std::isfinite(static_cast<double>(h[k * ldh + i]))) {
                usable = k;
                break;
            }
    const std::size_t rows = rows_capacity();
    const std::size_t needed = static_cast<std::size_t>(c0 + usable) * rows;
    if (r_.size() < needed)
        r_.resize(std::min(std::max(r_.size() * 2, needed),
                           rows * static_cast<std::size_t>(m_) * s_),
                  T(0));
    // The rotations of the columns before c0, in the order they were made, on every new
    // column: independent chains, one per column.
    const long long work = static_cast<long long>(c0) * s_ * usable;
#pragma omp parallel for schedule(static) if (work > 200000)
    for (int k = 0; k < usable; ++k) {
        T* col = r_.data() + static_cast<std::size_t>(c0 + k) * rows;
        for (int i = 0; i <= c0 + k + s_; ++i) col[i] = h[k * ldh + i];
        for (int p = 0; p < c0; ++p)
            for (int l = 0; l < s_; ++l) {
                const std::size_t q = static_cast<std::size_t>(p) * s_ + l;
                rotate(col, rows, 1, p + s_ - 1 - l, cos_[q], sin_[q]);
            }
    }
    for (int k = 0; k < usable; ++k) {
        const int c = c0 + k;
        T* col = r_.data() + static_cast<std::size_t>(c) * rows;
        for (int p = c0; p < c; ++p)  // the rotations of this call's earlier columns
            for (int l = 0; l < s_; ++l) {
                const std::size_t q = static_cast<std::size_t>(p) * s_ + l;
                rotate(col, rows, 1, p + s_ - 1 - l, cos_[q], sin_[q]);
            }
        // Zero the s entries below the diagonal, bottom up; each rotation acts on g too.
        for (int l = 0; l < s_; ++l) {
            const int top = c + s_ - 1 - l;
            const T a = col[top], b = col[top + 1];
            const T rho = std::hypot(a, b);
            const std::size_t q = static_cast<std::size_t>(c) * s_ + l;
            cos_[q] = rho > T(0) ? a / rho : T(1);
            sin_[q] = rho > T(0) ? b / rho : T(0);
            col[top] = rho;
            col[top + 1] = T(0);
            rotate(g_.data(), rows, s_, top, cos_[q], sin_[q]);
        }
        if (!(std::abs(col[c]) > T(0))) return HessenbergStatus::singular;
        cols_ = c + 1;
    }
    return usable < count ? HessenbergStatus::non_finite : HessenbergStatus::ok;
}

template <typename T>
T HessenbergLsq<T>::residual(int k) const
{
    const std::size_t rows = rows_capacity();
    double sum = 0.0;
    for (int i = cols_; i < cols_ + s_; ++i) {
        const double v = g_[static_cast<std::size_t>(k) * rows + i];
        sum += v * v;
    }
    return static_cast<T>(std::sqrt(sum));
}

template <typename T>
std::vector<T> HessenbergLsq<T>::solve() const
{
    using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;
    using Strided = Eigen::Map<const Matrix, 0, Eigen::OuterStride<>>;
    const auto rows = static_cast<Eigen::Index>(rows_capacity());
    std::vector<T> y(static_cast<std::size_t>(cols_) * s_);
    if (cols_ == 0) return y;
    const Strided r(r_.data(), cols_, cols_, Eigen::OuterStride<>(rows));
    Eigen::Map<Matrix> out(y.data(), cols_, s_);
    out = Strided(g_.data(), cols_, s_, Eigen::OuterStride<>(rows));
    r.template triangularView<Eigen::Upper>().solveInPlace(out);
    return y;
}

template class HessenbergLsq<float>;
template class HessenbergLsq<double>;

}  // namespace kbench::solvers
