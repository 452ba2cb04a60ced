// Givens least squares of GMRES (declarations in solvers/hessenberg.hpp).
#include "solvers/hessenberg.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace kbench::solvers {

template <typename T>
HessenbergLsq<T>::HessenbergLsq(int m) : m_(m)
{
    if (m < 1)
        throw std::invalid_argument("HessenbergLsq: restart length m = " + std::to_string(m) +
                                    ", expected >= 1");
    const auto size = static_cast<std::size_t>(m);
    r_.assign((size + 1) * size, T(0));
    c_.assign(size, T(1));
    s_.assign(size, T(0));
    g_.assign(size + 1, T(0));
}

template <typename T>
void HessenbergLsq<T>::reset(T beta)
{
    j_ = 0;
    g_.assign(g_.size(), T(0));
    g_[0] = beta;
}

template <typename T>
HessenbergStatus HessenbergLsq<T>::add_column(const T* h)
{
    if (j_ >= m_)
        throw std::logic_error("HessenbergLsq::add_column: all " + std::to_string(m_) +
                               " columns are in; call reset() first");
    const int j = j_;
    for (int i = 0; i <= j + 1; ++i)
        if (!std::isfinite(static_cast<double>(h[i]))) return HessenbergStatus::non_finite;
    T* col = r_.data() + static_cast<std::size_t>(j) * (m_ + 1);
    for (int i = 0; i <= j; ++i) col[i] = h[i];
    for (int i = 0; i < j; ++i) {  // the previous rotations
        const T a = col[i], b = col[i + 1];
        col[i] = c_[i] * a + s_[i] * b;
        col[i + 1] = -s_[i] * a + c_[i] * b;
    }
    const T a = col[j], b = h[j + 1];
    const T rho = std::hypot(a, b);
    if (!(rho > T(0))) return HessenbergStatus::singular;
    c_[j] = a / rho;
    s_[j] = b / rho;
    col[j] = rho;
    g_[j + 1] = -s_[j] * g_[j];
    g_[j] = c_[j] * g_[j];
    j_ = j + 1;
    return HessenbergStatus::ok;
}

template <typename T>
T HessenbergLsq<T>::residual() const
{
    return std::abs(g_[j_]);
}

template <typename T>
std::vector<T> HessenbergLsq<T>::solve() const
{
    std::vector<T> y(static_cast<std::size_t>(j_));
    for (int i = j_ - 1; i >= 0; --i) {
        T s = g_[i];
        for (int c = i + 1; c < j_; ++c) s -= r_[static_cast<std::size_t>(c) * (m_ + 1) + i] * y[c];
        y[i] = s / r_[static_cast<std::size_t>(i) * (m_ + 1) + i];
    }
    return y;
}

template class HessenbergLsq<float>;
template class HessenbergLsq<double>;

}  // namespace kbench::solvers
