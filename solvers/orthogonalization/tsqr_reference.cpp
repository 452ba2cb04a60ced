// CPU reference TSQR (Eigen), quality measures and conditioned test blocks; declarations and
// conventions in solvers/orthogonalization/tsqr.hpp.
#include "solvers/orthogonalization/tsqr.hpp"

#include "solvers/orthogonalization/small_factor.hpp"
#include "solvers/cpu_gemm.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <sstream>
#include <stdexcept>

namespace kbench::ortho {
namespace {

template <typename T>
using Mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;
template <typename T>
using Block = Eigen::Map<Mat<T>, 0, Eigen::OuterStride<>>;
template <typename T>
using ConstBlock = Eigen::Map<const Mat<T>, 0, Eigen::OuterStride<>>;

[[noreturn]] void invalid(const char* who, const char* parameter, const std::string& value,
                          const char* expected)
{
    throw std::invalid_argument(std::string{who} + ": " + parameter + " = " + value +
                                ", expected " + expected);
}

void check_shape(const char* who, std::int64_t n, int k, std::int64_t ld, const char* ld_name)
{
    if (k < 1) invalid(who, "k", std::to_string(k), ">= 1");
    if (n < k) invalid(who, "n", std::to_string(n), ">= k (a tall-skinny block)");
    if (ld < n) invalid(who, ld_name, std::to_string(ld), ">= n");
}

void check_pointer(const char* who, const char* name, const void* p)
{
    if (p == nullptr) invalid(who, name, "null", "a host array");
}

std::string number(double v)
{
    std::ostringstream os;
    os.precision(3);
    os << v;
    return os.str();
}

TsqrOutcome failure(TsqrStatus status, int column, std::string detail)
{
    return {status, column, std::move(detail)};
}

/// Gram-Schmidt: MGS (projections one at a time against the updated column) or CGS with
/// `passes` full passes (1: CGS, 2: CGS2).
template <typename T>
TsqrOutcome gram_schmidt(Block<T>& v, Mat<T>& r, bool modified, int passes)
{
    const int k = static_cast<int>(v.cols());
    r.setZero(k, k);
    for (int j = 0; j < k; ++j) {
        const T before = v.col(j).norm();
        for (int pass = 0; pass < passes; ++pass) {
            if (modified) {
                for (int i = 0; i < j; ++i) {
                    const T rij = v.col(i).dot(v.col(j));
                    v.col(j) -= rij * v.col(i);
                    r(i, j) += rij;
                }
            } else if (j > 0) {
                const Mat<T> h = v.leftCols(j).transpose() * v.col(j);
                v.col(j) -= v.leftCols(j) * h;
                r.col(j).head(j) += h;
            }
        }
        // Numerically dependent: what is left after the projections is at rounding level of
        // the column itself (k eps relative).
        const T norm = v.col(j).norm();
        const T limit = static_cast<T>(k) * std::numeric_limits<T>::epsilon() * before;
        if (!(norm > limit) || !std::isfinite(static_cast<double>(norm)))
            return failure(TsqrStatus::rank_deficient, j,
                           "column " + std::to_string(j) + " has norm " + number(double(norm)) +
                               " after projection, " + number(double(before)) + " before");
        r(j, j) = norm;
        v.col(j) /= norm;
    }
    return {};
}

/// The Gram-based methods (detail::gram_tsqr, shared with the GPU and the distributed TSQR):
/// G = V^T V on the BLAS (solvers/cpu_gemm.hpp), V := V U^-1 by a triangular solve in place,
/// V := V M by a product.
template <typename T>
TsqrOutcome gram_family(TsqrMethod method, Block<T>& v, Mat<T>& r)
{
    const int k = static_cast<int>(v.cols());
    r.resize(k, k);
    return detail::gram_tsqr<T>(
        method, v.rows(), k, r.data(), k,
        [&](T* G) {
            Eigen::Map<Mat<T>> g(G, k, k);
            solvers::cpu::gemm<T>(true, false, T(1), v, v, T(0), g);
        },
        [&](const T* U) {
            const Eigen::Map<const Mat<T>> u(U, k, k);
            u.template triangularView<Eigen::Upper>().template solveInPlace<Eigen::OnTheRight>(v);
        },
        [&](const T* M) { v = (Mat<T>(v) * Eigen::Map<const Mat<T>>(M, k, k)).eval(); });
}

/// CAQR (one level of the reduction tree): Householder QR of each row block, then of the
/// stacked R factors; Q block i = Q_i Q_stack(rows of block i).
template <typename T>
TsqrOutcome caqr(Block<T>& v, Mat<T>& r, std::int64_t block_rows)
{
    const std::int64_t n = v.rows();
    const int k = static_cast<int>(v.cols());
    const std::int64_t h = block_rows > 0 ? block_rows : std::max<std::int64_t>(k, 2048);
    std::vector<std::pair<std::int64_t, std::int64_t>> blocks;  // (first row, rows)
    for (std::int64_t first = 0; first < n;) {
        std::int64_t rows = std::min(h, n - first);
        if (n - (first + rows) < k) rows = n - first;  // the remainder joins the last block
        blocks.emplace_back(first, rows);
        first += rows;
    }
    Mat<T> stacked(static_cast<Eigen::Index>(blocks.size()) * k, k);
    std::vector<Mat<T>> local_q;
    for (std::size_t b = 0; b < blocks.size(); ++b) {
        const auto [first, rows] = blocks[b];
        const Eigen::HouseholderQR<Mat<T>> qr(Mat<T>(v.middleRows(first, rows)));
        local_q.push_back(qr.householderQ() * Mat<T>::Identity(rows, k));
        stacked.middleRows(static_cast<Eigen::Index>(b) * k, k) =
            qr.matrixQR().topRows(k).template triangularView<Eigen::Upper>();
    }
    Mat<T> qs(stacked.rows(), k);
    r.resize(k, k);
    const TsqrOutcome top = detail::stacked_qr(stacked.rows(), k, stacked.data(), stacked.rows(),
                                               qs.data(), qs.rows(), r.data(), k);
    if (top.status != TsqrStatus::ok) return top;
    for (std::size_t b = 0; b < blocks.size(); ++b) {
        const auto [first, rows] = blocks[b];
        v.middleRows(first, rows) = local_q[b] * qs.middleRows(static_cast<Eigen::Index>(b) * k, k);
    }
    return {};
}

template <typename T>
TsqrOutcome run(TsqrMethod method, Block<T>& v, Mat<T>& r, std::int64_t block_rows)
{
    switch (method) {
    case TsqrMethod::mgs: return gram_schmidt(v, r, true, 1);
    case TsqrMethod::cgs: return gram_schmidt(v, r, false, 1);
    case TsqrMethod::cgs2: return gram_schmidt(v, r, false, 2);
    case TsqrMethod::caqr: return caqr(v, r, block_rows);
    case TsqrMethod::cholqr:
    case TsqrMethod::cholqr2:
    case TsqrMethod::svqr:
    case TsqrMethod::shifted_cholqr3: return gram_family(method, v, r);
    }
    return failure(TsqrStatus::rank_deficient, -1, "unknown method");
}

}  // namespace

const std::vector<TsqrMethod>& tsqr_methods()
{
    static const std::vector<TsqrMethod> all{
        TsqrMethod::mgs,     TsqrMethod::cgs,  TsqrMethod::cgs2, TsqrMethod::cholqr,
        TsqrMethod::cholqr2, TsqrMethod::svqr, TsqrMethod::caqr, TsqrMethod::shifted_cholqr3};
    return all;
}

const char* to_string(TsqrMethod method)
{
    switch (method) {
    case TsqrMethod::mgs: return "mgs";
    case TsqrMethod::cgs: return "cgs";
    case TsqrMethod::cgs2: return "cgs2";
    case TsqrMethod::cholqr: return "cholqr";
    case TsqrMethod::cholqr2: return "cholqr2";
    case TsqrMethod::svqr: return "svqr";
    case TsqrMethod::caqr: return "caqr";
    case TsqrMethod::shifted_cholqr3: return "shifted_cholqr3";
    }
    return "unknown";
}

TsqrMethod parse_tsqr_method(const std::string& name)
{
    std::string names;
    for (const TsqrMethod m : tsqr_methods()) {
        if (name == to_string(m)) return m;
        names += names.empty() ? "" : ", ";
        names += to_string(m);
    }
    throw std::invalid_argument("TSQR method '" + name + "': expected one of " + names);
}

const char* to_string(TsqrStatus status)
{
    switch (status) {
    case TsqrStatus::ok: return "ok";
    case TsqrStatus::not_positive_definite: return "not_positive_definite";
    case TsqrStatus::rank_deficient: return "rank_deficient";
    }
    return "unknown";
}

namespace reference {

template <typename T>
TsqrOutcome tsqr(TsqrMethod method, std::int64_t n, int k, T* V, std::int64_t ld, T* R, int ldr,
                 std::int64_t block_rows)
{
    constexpr const char* who = "kbench::ortho::reference::tsqr";
    check_shape(who, n, k, ld, "ld");
    if (ldr < k) invalid(who, "ldr", std::to_string(ldr), ">= k");
    if (block_rows < 0 || (block_rows > 0 && block_rows < k))
        invalid(who, "block_rows", std::to_string(block_rows), "0 (default) or >= k");
    check_pointer(who, "V", V);
    check_pointer(who, "R", R);
    Block<T> v(V, n, k, Eigen::OuterStride<>(ld));
    Mat<T> r;
    const TsqrOutcome outcome = run(method, v, r, block_rows);
    Block<T> out(R, k, k, Eigen::OuterStride<>(ldr));
    out.setZero();
    if (r.rows() == k && r.cols() == k) out = r.template triangularView<Eigen::Upper>();
    return outcome;
}

template TsqrOutcome tsqr<float>(TsqrMethod, std::int64_t, int, float*, std::int64_t, float*, int,
                                 std::int64_t);
template TsqrOutcome tsqr<double>(TsqrMethod, std::int64_t, int, double*, std::int64_t, double*,
                                  int, std::int64_t);

}  // namespace reference

template <typename T>
TsqrQuality tsqr_quality(std::int64_t n, int k, const T* V, std::int64_t ldv, const T* Q,
                         std::int64_t ldq, const T* R, int ldr)
{
    constexpr const char* who = "kbench::ortho::tsqr_quality";
    check_shape(who, n, k, ldv, "ldv");
    if (ldq < n) invalid(who, "ldq", std::to_string(ldq), ">= n");
    if (ldr < k) invalid(who, "ldr", std::to_string(ldr), ">= k");
    check_pointer(who, "V", V);
    check_pointer(who, "Q", Q);
    check_pointer(who, "R", R);
    const Mat<double> v = ConstBlock<T>(V, n, k, Eigen::OuterStride<>(ldv)).template cast<double>();
    const Mat<double> q = ConstBlock<T>(Q, n, k, Eigen::OuterStride<>(ldq)).template cast<double>();
    const Mat<double> r = ConstBlock<T>(R, k, k, Eigen::OuterStride<>(ldr))
                              .template cast<double>()
                              .template triangularView<Eigen::Upper>();
    const Mat<double> e = Mat<double>::Identity(k, k) - q.transpose() * q;
    const Eigen::SelfAdjointEigenSolver<Mat<double>> eig(e, Eigen::EigenvaluesOnly);
    TsqrQuality quality;
    quality.orthogonality = eig.eigenvalues().cwiseAbs().maxCoeff();
    const double vnorm = v.norm();
    quality.residual = (v - q * r).norm() / (vnorm > 0.0 ? vnorm : 1.0);
    return quality;
}

template TsqrQuality tsqr_quality<float>(std::int64_t, int, const float*, std::int64_t,
                                         const float*, std::int64_t, const float*, int);
template TsqrQuality tsqr_quality<double>(std::int64_t, int, const double*, std::int64_t,
                                          const double*, std::int64_t, const double*, int);

std::vector<double> conditioned_block(std::int64_t n, int k, double kappa, std::uint64_t seed)
{
    constexpr const char* who = "kbench::ortho::conditioned_block";
    check_shape(who, n, k, n, "n");
    if (!(kappa >= 1.0) || !std::isfinite(kappa))
        invalid(who, "kappa", number(kappa), "a finite condition number >= 1");
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> normal;
    auto gaussian = [&](std::int64_t rows, int cols) {
        Mat<double> m(rows, cols);
        for (Eigen::Index c = 0; c < m.cols(); ++c)
            for (Eigen::Index i = 0; i < m.rows(); ++i) m(i, c) = normal(rng);
        return m;
    };
    const Mat<double> u =
        Eigen::HouseholderQR<Mat<double>>(gaussian(n, k)).householderQ() * Mat<double>::Identity(n, k);
    const Mat<double> w =
        Eigen::HouseholderQR<Mat<double>>(gaussian(k, k)).householderQ() * Mat<double>::Identity(k, k);
    Eigen::VectorXd s(k);
    for (int j = 0; j < k; ++j) s(j) = k == 1 ? 1.0 : std::pow(kappa, -double(j) / (k - 1));
    const Mat<double> v = u * s.asDiagonal() * w.transpose();
    return std::vector<double>(v.data(), v.data() + v.size());
}

}  // namespace kbench::ortho
