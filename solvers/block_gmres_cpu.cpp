// Block GMRES on the CPU (declaration in solvers/block_gmres.hpp).
#include "solvers/block_gmres.hpp"

#include "solvers/block_gmres_cycle.hpp"
#include "solvers/cpu_gemm.hpp"
#include "solvers/gmres.hpp"

#include <Eigen/Dense>
#include <Eigen/SparseCore>

#include <algorithm>
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

/// The CPU backend of detail::run_block_gmres and detail::run_pseudo_block_gmres (see
/// block_gmres_cycle.hpp). Basis layout: block j is columns j sa .. j sa + sa - 1 of v; for
/// pseudo-block GMRES column c of block j is v_j of right-hand side c.
template <typename T>
struct CpuBackend {
    Eigen::Map<const SparseRowMajor<T>> A;
    Eigen::Map<const Matrix<T>> b;
    Eigen::Map<Matrix<T>> x;
    int m;
    ortho::TsqrMethod tsqr;
    Matrix<T> r, v, w, rr, coef;
    detail::PhaseLog log;  // the cycle's phases; the CPU splits a step no further

    CpuBackend(const Csr<T>& a, int s, const std::vector<T>& B, std::vector<T>& X, int restart,
               ortho::TsqrMethod method)
        : A(a.num_rows, a.num_cols, a.nnz(), a.row_ptr.data(), a.col_idx.data(),
            a.values.data()),
          b(B.data(), a.num_rows, s), x(X.data(), a.num_rows, s), m(restart), tsqr(method)
    {
    }
    int rhs() const { return static_cast<int>(b.cols()); }
    void sync() const {}
    Eigen::Index n() const { return b.rows(); }
    void norms_b(double* out) const
    {
        for (int k = 0; k < rhs(); ++k) out[k] = static_cast<double>(b.col(k).norm());
    }
    void residual(double* out)
    {
        r = b - A * x;
        for (int k = 0; k < rhs(); ++k) out[k] = static_cast<double>(r.col(k).norm());
    }
    auto block(int j, int sa) { return v.middleCols(static_cast<Eigen::Index>(j) * sa, sa); }

    bool block_start(const std::vector<int>& active, T* S)
    {
        const int sa = static_cast<int>(active.size());
        v.resize(n(), static_cast<Eigen::Index>(m + 1) * sa);
        w.resize(n(), sa);
        for (int c = 0; c < sa; ++c) w.col(c) = r.col(active[c]);
        if (!orthonormalize(w, rr, tsqr)) return false;
        block(0, sa) = w;
        Eigen::Map<Matrix<T>>(S, sa, sa) = rr;
        return true;
    }
    bool block_step(int j, int sa, T* C, T* Rn)
    {
        const auto basis = v.leftCols(static_cast<Eigen::Index>(j + 1) * sa);
        w.noalias() = A * block(j, sa);  // SpMM
        // Block CGS2: C = V^T W, W -= V C, twice, the products on the BLAS (cpu_gemm.hpp).
        Eigen::Map<Matrix<T>> c(C, basis.cols(), sa);
        coef.resize(basis.cols(), sa);
        cpu::gemm<T>(true, false, T(1), basis, w, T(0), c);
        cpu::gemm<T>(false, false, T(-1), basis, c, T(1), w);
        cpu::gemm<T>(true, false, T(1), basis, w, T(0), coef);
        cpu::gemm<T>(false, false, T(-1), basis, coef, T(1), w);
        c += coef;
        const bool full_rank = orthonormalize(w, rr, tsqr);
        block(j + 1, sa) = w;
        Eigen::Map<Matrix<T>>(Rn, sa, sa) = rr;
        return full_rank;
    }
    void block_update(const std::vector<int>& active, int cols, const std::vector<T>& y)
    {
        const int sa = static_cast<int>(active.size());
        Matrix<T> dx(n(), sa);
        cpu::gemm<T>(false, false, T(1), v.leftCols(cols),
                     Eigen::Map<const Matrix<T>>(y.data(), cols, sa), T(0), dx);
        for (int c = 0; c < sa; ++c) x.col(active[c]) += dx.col(c);
    }

    /// v_0 .. v_j of right-hand side c: every sa-th column of v from column c.
    auto krylov(int c, int j, int sa)
    {
        using Strided = Eigen::Map<Matrix<T>, 0, Eigen::OuterStride<>>;
        return Strided(v.data() + static_cast<Eigen::Index>(c) * n(), n(), j + 1,
                       Eigen::OuterStride<>(n() * sa));
    }
    void pseudo_start(const std::vector<int>& active, const std::vector<double>& inv)
    {
        const int sa = static_cast<int>(active.size());
        v.resize(n(), static_cast<Eigen::Index>(m + 1) * sa);
        for (int c = 0; c < sa; ++c) v.col(c) = r.col(active[c]) * static_cast<T>(inv[c]);
    }
    void pseudo_step(int j, int sa, T* h)
    {
        w = A * block(j, sa);  // SpMM
        for (int c = 0; c < sa; ++c) {
            const auto basis = krylov(c, j, sa);
            Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, 1>> hc(h + static_cast<std::size_t>(c) *
                                                                       (j + 2),
                                                               j + 1);
            hc = basis.transpose() * w.col(c);  // CGS2
            w.col(c).noalias() -= basis * hc;
            const Eigen::Matrix<T, Eigen::Dynamic, 1> h2 = basis.transpose() * w.col(c);
            w.col(c).noalias() -= basis * h2;
            hc += h2;
            const T norm = w.col(c).norm();
            h[static_cast<std::size_t>(c) * (j + 2) + j + 1] = norm;
            if (norm > T(0) && std::isfinite(static_cast<double>(norm))) w.col(c) /= norm;
        }
        block(j + 1, sa) = w;
    }
    void pseudo_update(const std::vector<int>& active, const std::vector<int>& cols,
                       const std::vector<T>& y)
    {
        std::size_t offset = 0;
        for (std::size_t c = 0; c < active.size(); ++c) {
            if (cols[c] == 0) continue;
            const int sa = static_cast<int>(active.size());
            x.col(active[c]) +=
                krylov(static_cast<int>(c), cols[c] - 1, sa) *
                Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, 1>>(y.data() + offset, cols[c]);
            offset += static_cast<std::size_t>(cols[c]);
        }
    }
};

template <typename T>
void check_block_input(const char* who, const Csr<T>& a, int s, const std::vector<T>& B,
                       const std::vector<T>& X, const BlockGmresOptions& o)
{
    detail::check_block_gmres_options(who, a.num_rows, a.num_cols, s, o);
    const auto expected = static_cast<std::size_t>(a.num_rows) * static_cast<std::size_t>(s);
    if (B.size() != expected || X.size() != expected)
        throw std::invalid_argument(std::string(who) + ": B has " + std::to_string(B.size()) +
                                    " and X " + std::to_string(X.size()) +
                                    " entries, expected n s = " + std::to_string(expected));
}

}  // namespace

template <typename T>
SolveResult block_gmres_cpu(const Csr<T>& a, int s, const std::vector<T>& B, std::vector<T>& X,
                            const BlockGmresOptions& o)
{
    check_block_input("block_gmres_cpu", a, s, B, X, o);
    CpuBackend<T> be(a, s, B, X, detail::restart_length(o), o.tsqr);
    return detail::run_block_gmres<T>(be, o);
}

template <typename T>
SolveResult pseudo_block_gmres_cpu(const Csr<T>& a, int s, const std::vector<T>& B,
                                   std::vector<T>& X, const BlockGmresOptions& o)
{
    check_block_input("pseudo_block_gmres_cpu", a, s, B, X, o);
    CpuBackend<T> be(a, s, B, X, detail::restart_length(o), o.tsqr);
    return detail::run_pseudo_block_gmres<T>(be, o);
}

template SolveResult block_gmres_cpu<float>(const Csr<float>&, int, const std::vector<float>&,
                                            std::vector<float>&, const BlockGmresOptions&);
template SolveResult block_gmres_cpu<double>(const Csr<double>&, int,
                                             const std::vector<double>&, std::vector<double>&,
                                             const BlockGmresOptions&);
template SolveResult pseudo_block_gmres_cpu<float>(const Csr<float>&, int,
                                                   const std::vector<float>&, std::vector<float>&,
                                                   const BlockGmresOptions&);
template SolveResult pseudo_block_gmres_cpu<double>(const Csr<double>&, int,
                                                    const std::vector<double>&,
                                                    std::vector<double>&,
                                                    const BlockGmresOptions&);

}  // namespace kbench::solvers
