// Block GMRES on the CPU (declaration in solvers/block_gmres.hpp).
#include "solvers/block_gmres.hpp"

#include "solvers/gmres.hpp"
#include "solvers/hessenberg.hpp"

#include <Eigen/Dense>
#include <Eigen/SparseCore>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace kbench::solvers {
namespace {

template <typename T>
using SparseRowMajor = Eigen::SparseMatrix<T, Eigen::RowMajor, index_type>;
template <typename T>
using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;

/// TSQR of the n x k block W in place (W := Q), R (k x k) returned; the options' method, CAQR
/// when it fails. Returns false when the block has lost rank: a diagonal entry of R at or
/// below 10 eps k times the largest (or CAQR failed too).
template <typename T>
bool orthonormalize(Matrix<T>& w, Matrix<T>& r, ortho::TsqrMethod method)
{
    const auto n = static_cast<std::int64_t>(w.rows());
    const int k = static_cast<int>(w.cols());
    r.setZero(k, k);
    const Matrix<T> copy = w;
    ortho::TsqrOutcome o = ortho::reference::tsqr(method, n, k, w.data(), n, r.data(), k);
    if (o.status != ortho::TsqrStatus::ok && method != ortho::TsqrMethod::caqr) {
        w = copy;
        r.setZero(k, k);
        o = ortho::reference::tsqr(ortho::TsqrMethod::caqr, n, k, w.data(), n, r.data(), k);
    }
    if (o.status != ortho::TsqrStatus::ok) return false;
    const T largest = r.diagonal().cwiseAbs().maxCoeff();
    const T floor = T(10) * std::numeric_limits<T>::epsilon() * T(k) * largest;
    return largest > T(0) && (r.diagonal().cwiseAbs().array() > floor).all();
}

}  // namespace

template <typename T>
SolveResult block_gmres_cpu(const Csr<T>& a, int s, const std::vector<T>& B, std::vector<T>& X,
                            const BlockGmresOptions& o)
{
    detail::check_krylov_options("block_gmres_cpu", a.num_rows, a.num_cols, o.restart,
                                 o.tolerance, o.max_iterations, o.stagnation_cycles);
    const auto n = static_cast<Eigen::Index>(a.num_rows);
    if (s < 1)
        throw std::invalid_argument("block_gmres_cpu: s = " + std::to_string(s) +
                                    ", expected >= 1 right-hand sides");
    const auto expected = static_cast<std::size_t>(n) * static_cast<std::size_t>(s);
    if (B.size() != expected || X.size() != expected)
        throw std::invalid_argument("block_gmres_cpu: B has " + std::to_string(B.size()) +
                                    " and X " + std::to_string(X.size()) +
                                    " entries, expected n s = " + std::to_string(expected));
    const Eigen::Map<const SparseRowMajor<T>> A(a.num_rows, a.num_cols, a.nnz(),
                                                a.row_ptr.data(), a.col_idx.data(),
                                                a.values.data());
    const Eigen::Map<const Matrix<T>> b(B.data(), n, s);
    Eigen::Map<Matrix<T>> x(X.data(), n, s);
    std::vector<double> scale(static_cast<std::size_t>(s));
    for (int k = 0; k < s; ++k) {
        const double norm = static_cast<double>(b.col(k).norm());
        scale[k] = norm > 0.0 ? 1.0 / norm : 1.0;
    }
    const int m = std::max(1, std::min(o.restart, std::max(o.max_iterations, 1)));

    SolveResult result;
    result.status = SolveStatus::max_iterations;
    auto stop = [&](SolveStatus st, std::string detail) {
        result.status = st;
        result.detail = std::move(detail);
    };
    const auto t0 = std::chrono::steady_clock::now();
    Matrix<T> r = b - A * x;
    std::vector<double> rel(static_cast<std::size_t>(s));
    auto measure = [&] {
        for (int k = 0; k < s; ++k) rel[k] = static_cast<double>(r.col(k).norm()) * scale[k];
        return *std::max_element(rel.begin(), rel.end());
    };
    double worst = measure();
    result.residual_history.push_back(worst);
    int unchanged = 0;
    while (true) {
        if (!std::isfinite(worst)) {
            stop(SolveStatus::non_finite, "a residual is not finite after block step " +
                                              std::to_string(result.iterations));
            break;
        }
        if (worst <= o.tolerance) {
            stop(SolveStatus::converged, "");
            break;
        }
        if (result.iterations >= o.max_iterations) break;
        // The columns still above the tolerance: the cycle works on them alone.
        std::vector<int> active;
        for (int k = 0; k < s; ++k)
            if (rel[k] > o.tolerance) active.push_back(k);
        const int sa = static_cast<int>(active.size());
        Matrix<T> v(n, static_cast<Eigen::Index>(m + 1) * sa);
        Matrix<T> w(n, sa), rr;
        for (int c = 0; c < sa; ++c) w.col(c) = r.col(active[c]);
        if (!orthonormalize(w, rr, o.tsqr)) {
            stop(SolveStatus::breakdown,
                 "rank loss of the residual block of " + std::to_string(sa) +
                     " columns after block step " + std::to_string(result.iterations) +
                     " (dependent residuals; BGMRES without deflation cannot go on)");
            break;
        }
        v.leftCols(sa) = w;
        HessenbergLsq<T> lsq(m, sa);
        lsq.reset(rr.data(), sa);
        bool invariant = false, failed = false;
        std::vector<T> h;
        for (int j = 0; j < m && result.iterations < o.max_iterations; ++j) {
            const auto basis = v.leftCols(static_cast<Eigen::Index>(j + 1) * sa);
            w = A * v.middleCols(static_cast<Eigen::Index>(j) * sa, sa);  // SpMM
            Matrix<T> coef = basis.transpose() * w;                          // block CGS2
            w -= basis * coef;
            const Matrix<T> coef2 = basis.transpose() * w;
            w -= basis * coef2;
            coef += coef2;
            invariant = !orthonormalize(w, rr, o.tsqr);
            v.middleCols(static_cast<Eigen::Index>(j + 1) * sa, sa) = w;
            // Column j sa + c of H: coef(:, c) over the basis, then R(0..c, c), zeros below.
            const int rows_above = (j + 1) * sa;
            for (int c = 0; c < sa; ++c) {
                h.assign(static_cast<std::size_t>(rows_above + sa), T(0));
                for (int i = 0; i < rows_above; ++i) h[i] = coef(i, c);
                for (int i = 0; i <= c; ++i) h[rows_above + i] = invariant ? T(0) : rr(i, c);
                const HessenbergStatus hs = lsq.add_column(h.data());
                if (hs != HessenbergStatus::ok) {
                    stop(hs == HessenbergStatus::non_finite ? SolveStatus::non_finite
                                                            : SolveStatus::breakdown,
                         std::string("block Hessenberg column ") +
                             std::to_string(j * sa + c) +
                             (hs == HessenbergStatus::non_finite ? " is not finite"
                                                                 : " makes the least squares singular") +
                             " in block step " + std::to_string(result.iterations + 1));
                    failed = true;
                    break;
                }
            }
            if (failed) break;
            ++result.iterations;
            // Converged columns keep their residual; the active ones take the estimates.
            for (int c = 0; c < sa; ++c)
                rel[active[c]] = static_cast<double>(lsq.residual(c)) * scale[active[c]];
            const double estimate = *std::max_element(rel.begin(), rel.end());
            result.residual_history.push_back(estimate);
            if (invariant || estimate <= o.tolerance) break;
        }
        const int cols = lsq.columns();
        if (cols > 0) {
            // x_active += V(:, 0..cols) Y, Y cols x sa.
            const std::vector<T> y = lsq.solve();
            const Eigen::Map<const Matrix<T>> ym(y.data(), cols, sa);
            const Matrix<T> dx = v.leftCols(cols) * ym;
            for (int c = 0; c < sa; ++c) x.col(active[c]) += dx.col(c);
        }
        const double previous = worst;
        r = b - A * x;
        worst = measure();
        if (failed) break;
        if (o.stagnation_cycles > 0 && std::isfinite(worst)) {
            unchanged = worst >= previous * (1.0 - 1e-12) ? unchanged + 1 : 0;
            if (unchanged >= o.stagnation_cycles) {
                stop(SolveStatus::stagnation,
                     std::to_string(unchanged) +
                         " restart cycles without reducing the largest relative residual "
                         "(last cycle ended at block step " +
                         std::to_string(result.iterations) + ")");
                break;
            }
        }
    }
    result.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    r = b - A * x;
    result.true_residual = measure();
    return result;
}

template SolveResult block_gmres_cpu<float>(const Csr<float>&, int, const std::vector<float>&,
                                            std::vector<float>&, const BlockGmresOptions&);
template SolveResult block_gmres_cpu<double>(const Csr<double>&, int,
                                             const std::vector<double>&, std::vector<double>&,
                                             const BlockGmresOptions&);

}  // namespace kbench::solvers
