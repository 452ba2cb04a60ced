// CPU reference TSQR (Eigen), quality measures and conditioned test blocks; declarations and
// conventions in solvers/orthogonalization/tsqr.hpp.
#include "solvers/orthogonalization/tsqr.hpp"

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

/// Upper Cholesky factor U (G = U^T U) of the symmetric k x k G, pivot by pivot so that a
/// failing pivot is named. Returns -1 on success, else the failing column.
template <typename T>
int cholesky_upper(const Mat<T>& g, Mat<T>& u, T& bad_pivot)
{
    const int k = static_cast<int>(g.rows());
    u.setZero(k, k);
    for (int j = 0; j < k; ++j) {
        T d = g(j, j);
        for (int p = 0; p < j; ++p) d -= u(p, j) * u(p, j);
        if (!(d > T(0)) || !std::isfinite(static_cast<double>(d))) {
            bad_pivot = d;
            return j;
        }
        u(j, j) = std::sqrt(d);
        for (int c = j + 1; c < k; ++c) {
            T s = g(j, c);
            for (int p = 0; p < j; ++p) s -= u(p, j) * u(p, c);
            u(j, c) = s / u(j, j);
        }
    }
    return -1;
}

/// One CholQR pass: V := V U^{-1} with U^T U = V^T V + shift I; R := U R.
template <typename T>
TsqrOutcome cholqr_pass(Block<T>& v, Mat<T>& r, T shift, const char* pass)
{
    Mat<T> g = v.transpose() * v;
    g.diagonal().array() += shift;
    Mat<T> u;
    T bad{};
    const int col = cholesky_upper(g, u, bad);
    if (col >= 0)
        return failure(TsqrStatus::not_positive_definite, col,
                       "Gram matrix pivot " + std::to_string(col) + " is " + number(double(bad)) +
                           " (" + pass + ")");
    v = u.template triangularView<Eigen::Upper>()
            .template solve<Eigen::OnTheRight>(Mat<T>(v));
    r = (u * r).eval();
    return {};
}

/// Makes R's diagonal positive (R := S R, Q := Q S, S = sign(diag(R))); a zero or non-finite
/// diagonal entry is rank deficiency.
template <typename T>
TsqrOutcome positive_diagonal(Mat<T>& r, Mat<T>& q)
{
    for (Eigen::Index j = 0; j < r.rows(); ++j) {
        if (!(r(j, j) != T(0)) || !std::isfinite(static_cast<double>(r(j, j))))
            return failure(TsqrStatus::rank_deficient, static_cast<int>(j),
                           "R(" + std::to_string(j) + ", " + std::to_string(j) + ") is " +
                               number(double(r(j, j))));
        if (r(j, j) < T(0)) {
            r.row(j) *= T(-1);
            q.col(j) *= T(-1);
        }
    }
    return {};
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

/// SVQR: eigendecomposition of the unit-diagonal scaled Gram matrix D G D = U S U^T (the SVD of
/// a symmetric positive semi-definite matrix), then V D U S^{-1/2} has orthonormal columns and
/// the QR of S^{1/2} U^T D^{-1} = Qb Rb gives Q = V D U S^{-1/2} Qb, R = Rb.
template <typename T>
TsqrOutcome svqr(Block<T>& v, Mat<T>& r)
{
    const int k = static_cast<int>(v.cols());
    const Mat<T> g = v.transpose() * v;
    Eigen::Matrix<T, Eigen::Dynamic, 1> d(k);
    for (int j = 0; j < k; ++j) {
        if (!(g(j, j) > T(0)) || !std::isfinite(static_cast<double>(g(j, j))))
            return failure(TsqrStatus::rank_deficient, j,
                           "column " + std::to_string(j) + " has squared norm " +
                               number(double(g(j, j))));
        d(j) = T(1) / std::sqrt(g(j, j));
    }
    const Mat<T> scaled = d.asDiagonal() * g * d.asDiagonal();
    const Eigen::SelfAdjointEigenSolver<Mat<T>> eig(scaled);
    if (eig.info() != Eigen::Success)
        return failure(TsqrStatus::rank_deficient, 0, "eigensolver of the Gram matrix failed");
    const auto& s = eig.eigenvalues();  // ascending
    for (int j = 0; j < k; ++j)
        if (!(s(j) > T(0)) || !std::isfinite(static_cast<double>(s(j))))
            return failure(TsqrStatus::rank_deficient, j,
                           "eigenvalue " + std::to_string(j) + " of the scaled Gram matrix is " +
                               number(double(s(j))));
    const Mat<T>& u = eig.eigenvectors();
    const Eigen::Matrix<T, Eigen::Dynamic, 1> sq = s.cwiseSqrt();
    const Mat<T> b = sq.asDiagonal() * u.transpose() * d.cwiseInverse().asDiagonal();
    const Eigen::HouseholderQR<Mat<T>> qr(b);
    Mat<T> qb = qr.householderQ() * Mat<T>::Identity(k, k);
    r = qr.matrixQR().template triangularView<Eigen::Upper>();
    const TsqrOutcome sign = positive_diagonal(r, qb);
    if (sign.status != TsqrStatus::ok) return sign;
    const Mat<T> m = d.asDiagonal() * u * sq.cwiseInverse().asDiagonal() * qb;
    v = (Mat<T>(v) * m).eval();
    return {};
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
    const Eigen::HouseholderQR<Mat<T>> top(stacked);
    Mat<T> qs = top.householderQ() * Mat<T>::Identity(stacked.rows(), k);
    r = top.matrixQR().topRows(k).template triangularView<Eigen::Upper>();
    const TsqrOutcome sign = positive_diagonal(r, qs);
    if (sign.status != TsqrStatus::ok) return sign;
    for (std::size_t b = 0; b < blocks.size(); ++b) {
        const auto [first, rows] = blocks[b];
        v.middleRows(first, rows) = local_q[b] * qs.middleRows(static_cast<Eigen::Index>(b) * k, k);
    }
    return {};
}

template <typename T>
TsqrOutcome run(TsqrMethod method, Block<T>& v, Mat<T>& r, std::int64_t block_rows)
{
    const int k = static_cast<int>(v.cols());
    switch (method) {
    case TsqrMethod::mgs: return gram_schmidt(v, r, true, 1);
    case TsqrMethod::cgs: return gram_schmidt(v, r, false, 1);
    case TsqrMethod::cgs2: return gram_schmidt(v, r, false, 2);
    case TsqrMethod::svqr: return svqr(v, r);
    case TsqrMethod::caqr: return caqr(v, r, block_rows);
    case TsqrMethod::cholqr:
    case TsqrMethod::cholqr2:
    case TsqrMethod::shifted_cholqr3: {
        r = Mat<T>::Identity(k, k);
        if (method == TsqrMethod::shifted_cholqr3) {
            // Shift of Fukaya et al. 2020: 11 (n k + k (k + 1)) u ||V||_2^2, with the Frobenius
            // norm as the (cheap) upper bound of the 2-norm; u = unit roundoff of T.
            const double u = std::numeric_limits<T>::epsilon() / 2;
            const double nf = static_cast<double>(v.rows());
            const double norm2 = static_cast<double>(v.squaredNorm());
            const T shift = static_cast<T>(11.0 * (nf * k + k * (k + 1.0)) * u * norm2);
            const TsqrOutcome o = cholqr_pass(v, r, shift, "shifted pass");
            if (o.status != TsqrStatus::ok) return o;
        }
        const TsqrOutcome first = cholqr_pass(v, r, T(0), "pass 1");
        if (first.status != TsqrStatus::ok || method == TsqrMethod::cholqr) return first;
        return cholqr_pass(v, r, T(0), "pass 2");
    }
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
