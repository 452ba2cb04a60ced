// BiCGSTAB on the CPU with Eigen (declaration in solvers/bicgstab.hpp): the correctness
// reference for the GPU forms and the CPU baseline.
#include "solvers/bicgstab.hpp"

#include <Eigen/IterativeLinearSolvers>
#include <Eigen/SparseCore>

#include <chrono>
#include <cmath>
#include <stdexcept>
#include <string>

namespace kbench::solvers {
namespace {

template <typename T>
using SparseRowMajor = Eigen::SparseMatrix<T, Eigen::RowMajor, index_type>;

/// An Eigen view of the CSR arrays, no copy.
template <typename T>
Eigen::Map<const SparseRowMajor<T>> eigen_view(const Csr<T>& a)
{
    return {a.num_rows, a.num_cols, a.nnz(), a.row_ptr.data(), a.col_idx.data(),
            a.values.data()};
}

}  // namespace

template <typename T>
SolveResult bicgstab_cpu(const Csr<T>& a, const std::vector<T>& b, std::vector<T>& x,
                         const BicgstabOptions& options)
{
    using Vector = Eigen::Matrix<T, Eigen::Dynamic, 1>;
    const auto n = static_cast<std::size_t>(a.num_rows);
    if (a.num_rows != a.num_cols)
        throw std::invalid_argument("bicgstab_cpu: the matrix is " + std::to_string(a.num_rows) +
                                    " x " + std::to_string(a.num_cols) + ", expected square");
    if (b.size() != n || x.size() != n)
        throw std::invalid_argument("bicgstab_cpu: b has " + std::to_string(b.size()) +
                                    " and x " + std::to_string(x.size()) + " entries, expected " +
                                    std::to_string(n));
    check_stopping_options("bicgstab_cpu", options.tolerance, options.max_iterations, 0);
    const auto view = eigen_view(a);
    const Eigen::Map<const Vector> bv(b.data(), static_cast<Eigen::Index>(n));
    Eigen::Map<Vector> xv(x.data(), static_cast<Eigen::Index>(n));
    const double bnorm = static_cast<double>(bv.norm());
    const double scale = bnorm > 0.0 ? 1.0 / bnorm : 1.0;

    SolveResult result;
    result.residual_history.push_back(static_cast<double>((bv - view * xv).norm()) * scale);
    Eigen::BiCGSTAB<SparseRowMajor<T>, Eigen::IdentityPreconditioner> solver;
    solver.setTolerance(static_cast<typename SparseRowMajor<T>::RealScalar>(options.tolerance));
    solver.setMaxIterations(options.max_iterations);
    const auto t0 = std::chrono::steady_clock::now();
    solver.compute(view);
    xv = solver.solveWithGuess(bv, Vector(xv));
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    result.iterations = static_cast<int>(solver.iterations());
    const double true_res = static_cast<double>((bv - view * xv).norm()) * scale;
    result.residual_history.push_back(true_res);
    result.true_residual = true_res;
    if (!std::isfinite(true_res)) {
        result.status = SolveStatus::non_finite;
        result.detail = "Eigen's solution has a non-finite residual";
    } else if (solver.info() == Eigen::Success) {
        result.status = SolveStatus::converged;
    } else if (solver.info() == Eigen::NumericalIssue) {
        result.status = SolveStatus::breakdown;
        result.detail = "Eigen::BiCGSTAB reported NumericalIssue";
    } else {
        result.status = SolveStatus::max_iterations;
    }
    return result;
}

template SolveResult bicgstab_cpu<float>(const Csr<float>&, const std::vector<float>&,
                                         std::vector<float>&, const BicgstabOptions&);
template SolveResult bicgstab_cpu<double>(const Csr<double>&, const std::vector<double>&,
                                          std::vector<double>&, const BicgstabOptions&);

}  // namespace kbench::solvers
