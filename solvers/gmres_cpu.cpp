// GMRES(m) on the CPU with Eigen (declarations in solvers/gmres.hpp): the reference for the
// GPU solver, and the option checks and names both share.
#include "solvers/gmres.hpp"
#include "solvers/gmres_cycle.hpp"

#include <Eigen/Dense>
#include <Eigen/SparseCore>

#include <cmath>
#include <stdexcept>
#include <string>

namespace kbench::solvers {

const char* to_string(ArnoldiOrth orth)
{
    return orth == ArnoldiOrth::cgs2 ? "cgs2" : "mgs";
}

ArnoldiOrth parse_arnoldi_orth(const std::string& name)
{
    if (name == "cgs2") return ArnoldiOrth::cgs2;
    if (name == "mgs") return ArnoldiOrth::mgs;
    throw std::invalid_argument("Arnoldi orthogonalization '" + name +
                                "': expected 'cgs2' or 'mgs'");
}

namespace detail {

void check_krylov_options(const char* who, long long rows, long long cols, int restart,
                          double tolerance, int max_iterations, int stagnation_cycles)
{
    const std::string w{who};
    if (rows != cols)
        throw std::invalid_argument(w + ": the matrix is " + std::to_string(rows) + " x " +
                                    std::to_string(cols) + ", expected square");
    if (restart < 1)
        throw std::invalid_argument(w + ": restart = " + std::to_string(restart) +
                                    ", expected a restart length >= 1");
    if (max_iterations < 0)
        throw std::invalid_argument(w + ": max_iterations = " + std::to_string(max_iterations) +
                                    ", expected >= 0");
    if (!(tolerance >= 0.0) || !std::isfinite(tolerance))
        throw std::invalid_argument(w + ": tolerance = " + std::to_string(tolerance) +
                                    ", expected finite and >= 0");
    if (stagnation_cycles < 0)
        throw std::invalid_argument(w + ": stagnation_cycles = " +
                                    std::to_string(stagnation_cycles) + ", expected >= 0");
}

}  // namespace detail

namespace {

template <typename T>
using SparseRowMajor = Eigen::SparseMatrix<T, Eigen::RowMajor, index_type>;
template <typename T>
using Vector = Eigen::Matrix<T, Eigen::Dynamic, 1>;

/// The CPU backend of detail::run_gmres: basis V (n x (m + 1)) as an Eigen matrix.
template <typename T>
struct CpuBackend {
    Eigen::Map<const SparseRowMajor<T>> a;
    Eigen::Map<const Vector<T>> b;
    Eigen::Map<Vector<T>> x;
    ArnoldiOrth orth;
    Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic> v;

    double norm_b() { return static_cast<double>(b.norm()); }
    double residual()
    {
        v.col(0) = b - a * x;
        return static_cast<double>(v.col(0).norm());
    }
    void scale_first(double inv) { v.col(0) *= static_cast<T>(inv); }
    void arnoldi(int j, std::vector<T>& h)
    {
        Vector<T> w = a * v.col(j);
        const auto basis = v.leftCols(j + 1);
        if (orth == ArnoldiOrth::cgs2) {
            Vector<T> c = basis.transpose() * w;
            w -= basis * c;
            const Vector<T> c2 = basis.transpose() * w;
            w -= basis * c2;
            c += c2;
            for (int i = 0; i <= j; ++i) h[i] = c(i);
        } else {
            for (int i = 0; i <= j; ++i) {
                h[i] = v.col(i).dot(w);
                w -= h[i] * v.col(i);
            }
        }
        h[j + 1] = w.norm();
        v.col(j + 1) = h[j + 1] > T(0) ? Vector<T>(w / h[j + 1]) : w;
    }
    void update(const std::vector<T>& y)
    {
        const Eigen::Map<const Vector<T>> yv(y.data(), static_cast<Eigen::Index>(y.size()));
        x += v.leftCols(yv.size()) * yv;
    }
};

}  // namespace

template <typename T>
SolveResult gmres_cpu(const Csr<T>& a, const std::vector<T>& b, std::vector<T>& x,
                      const GmresOptions& options)
{
    detail::check_gmres_options("gmres_cpu", a.num_rows, a.num_cols, options);
    const auto n = static_cast<Eigen::Index>(a.num_rows);
    if (b.size() != static_cast<std::size_t>(n) || x.size() != static_cast<std::size_t>(n))
        throw std::invalid_argument("gmres_cpu: b has " + std::to_string(b.size()) + " and x " +
                                    std::to_string(x.size()) + " entries, expected " +
                                    std::to_string(n));
    const int m = detail::restart_length(options);
    CpuBackend<T> be{{a.num_rows, a.num_cols, a.nnz(), a.row_ptr.data(), a.col_idx.data(),
                      a.values.data()},
                     {b.data(), n},
                     {x.data(), n},
                     options.orth,
                     Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>::Zero(n, m + 1)};
    return detail::run_gmres<T>(be, options);
}

template SolveResult gmres_cpu<float>(const Csr<float>&, const std::vector<float>&,
                                      std::vector<float>&, const GmresOptions&);
template SolveResult gmres_cpu<double>(const Csr<double>&, const std::vector<double>&,
                                       std::vector<double>&, const GmresOptions&);

}  // namespace kbench::solvers
