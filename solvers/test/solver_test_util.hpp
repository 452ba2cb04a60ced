// Helpers shared by the solver tests: a smooth and a random right-hand side and the distance of
// solutions.
#pragma once

#include "matrices/csr.hpp"

#include <cmath>
#include <random>
#include <vector>

namespace kbench::solvers::test {

/// n entries uniform in [-1, 1) from std::mt19937(seed).
inline std::vector<double> random_rhs(index_type n, unsigned seed)
{
    std::mt19937 gen(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    std::vector<double> b(static_cast<std::size_t>(n));
    for (double& v : b) v = u(gen);
    return b;
}

/// b_i = 1 + sin(i) / 2, n entries.
template <typename T>
std::vector<T> smooth_rhs(index_type n)
{
    std::vector<T> b(static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < b.size(); ++i)
        b[i] = static_cast<T>(1.0 + 0.5 * std::sin(double(i)));
    return b;
}

/// ||x - y||_2 / ||y||_2, in double.
template <typename T>
double relative_difference(const std::vector<T>& x, const std::vector<T>& y)
{
    double num = 0.0, den = 0.0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        num += std::pow(double(x[i]) - double(y[i]), 2);
        den += std::pow(double(y[i]), 2);
    }
    return std::sqrt(num / den);
}

}  // namespace kbench::solvers::test
