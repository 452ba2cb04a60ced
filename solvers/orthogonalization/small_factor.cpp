// Host k x k factorizations of the TSQR family (Eigen); declarations in small_factor.hpp.
#include "solvers/orthogonalization/small_factor.hpp"

#include <Eigen/Dense>

#include <cmath>
#include <limits>
#include <sstream>
#include <string>

namespace kbench::ortho::detail {
namespace {

template <typename T>
using Mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;
template <typename T>
using Map = Eigen::Map<Mat<T>, 0, Eigen::OuterStride<>>;
template <typename T>
using ConstMap = Eigen::Map<const Mat<T>, 0, Eigen::OuterStride<>>;

std::string number(double v)
{
    std::ostringstream os;
    os.precision(3);
    os << v;
    return os.str();
}

bool finite_positive(double v) { return v > 0.0 && std::isfinite(v); }

/// R := S R, Q := Q S with S = sign(diag(R)); a zero or non-finite diagonal is rank deficiency.
template <typename T>
TsqrOutcome positive_diagonal(Mat<T>& r, Mat<T>& q)
{
    for (Eigen::Index j = 0; j < r.rows(); ++j) {
        const double d = static_cast<double>(r(j, j));
        if (!(d != 0.0) || !std::isfinite(d))
            return {TsqrStatus::rank_deficient, static_cast<int>(j),
                    "R(" + std::to_string(j) + ", " + std::to_string(j) + ") is " + number(d)};
        if (d < 0.0) {
            r.row(j) *= T(-1);
            q.col(j) *= T(-1);
        }
    }
    return {};
}

}  // namespace

template <typename T>
TsqrOutcome cholesky_factor(int k, const T* G, int ldg, T shift, T* U, int ldu, const char* pass)
{
    const ConstMap<T> g(G, k, k, Eigen::OuterStride<>(ldg));
    Map<T> u(U, k, k, Eigen::OuterStride<>(ldu));
    u.setZero();
    for (int j = 0; j < k; ++j) {  // pivot by pivot, so that a failing pivot is named
        T d = g(j, j) + shift;
        for (int p = 0; p < j; ++p) d -= u(p, j) * u(p, j);
        if (!finite_positive(static_cast<double>(d)))
            return {TsqrStatus::not_positive_definite, j,
                    "Gram matrix pivot " + std::to_string(j) + " is " +
                        number(static_cast<double>(d)) + " (" + pass + ")"};
        u(j, j) = std::sqrt(d);
        for (int c = j + 1; c < k; ++c) {
            T s = g(j, c);
            for (int p = 0; p < j; ++p) s -= u(p, j) * u(p, c);
            u(j, c) = s / u(j, j);
        }
    }
    return {};
}

template <typename T>
TsqrOutcome svqr_factor(int k, const T* G, int ldg, T* M, int ldm, T* R, int ldr)
{
    const Mat<T> g = ConstMap<T>(G, k, k, Eigen::OuterStride<>(ldg))
                         .template selfadjointView<Eigen::Upper>();
    Eigen::Matrix<T, Eigen::Dynamic, 1> d(k);
    for (int j = 0; j < k; ++j) {
        if (!finite_positive(static_cast<double>(g(j, j))))
            return {TsqrStatus::rank_deficient, j,
                    "column " + std::to_string(j) + " has squared norm " +
                        number(static_cast<double>(g(j, j)))};
        d(j) = T(1) / std::sqrt(g(j, j));
    }
    const Mat<T> scaled = d.asDiagonal() * g * d.asDiagonal();
    const Eigen::SelfAdjointEigenSolver<Mat<T>> eig(scaled);
    if (eig.info() != Eigen::Success)
        return {TsqrStatus::rank_deficient, 0, "eigensolver of the Gram matrix failed"};
    const auto& s = eig.eigenvalues();  // ascending
    // Eigenvalues at the rounding level of the largest one (<= k eps s_max) carry no
    // information: the block is numerically rank deficient (an exactly dependent column gives
    // such an eigenvalue of either sign).
    const double floor = k * static_cast<double>(std::numeric_limits<T>::epsilon()) *
                         static_cast<double>(s(k - 1));
    for (int j = 0; j < k; ++j)
        if (!finite_positive(static_cast<double>(s(j))) || static_cast<double>(s(j)) <= floor)
            return {TsqrStatus::rank_deficient, j,
                    "eigenvalue " + std::to_string(j) + " of the scaled Gram matrix is " +
                        number(static_cast<double>(s(j)))};
    const Mat<T>& u = eig.eigenvectors();
    const Eigen::Matrix<T, Eigen::Dynamic, 1> sq = s.cwiseSqrt();
    const Mat<T> b = sq.asDiagonal() * u.transpose() * d.cwiseInverse().asDiagonal();
    const Eigen::HouseholderQR<Mat<T>> qr(b);
    Mat<T> qb = qr.householderQ() * Mat<T>::Identity(k, k);
    Mat<T> r = qr.matrixQR().template triangularView<Eigen::Upper>();
    const TsqrOutcome sign = positive_diagonal(r, qb);
    if (sign.status != TsqrStatus::ok) return sign;
    Map<T>(M, k, k, Eigen::OuterStride<>(ldm)) =
        d.asDiagonal() * u * sq.cwiseInverse().asDiagonal() * qb;
    Map<T>(R, k, k, Eigen::OuterStride<>(ldr)) = r;
    return {};
}

template <typename T>
TsqrOutcome stacked_qr(std::int64_t rows, int k, const T* S, std::int64_t lds, T* Qs,
                       std::int64_t ldq, T* R, int ldr)
{
    const Eigen::HouseholderQR<Mat<T>> qr(Mat<T>(ConstMap<T>(S, rows, k, Eigen::OuterStride<>(lds))));
    Mat<T> q = qr.householderQ() * Mat<T>::Identity(rows, k);
    Mat<T> r = qr.matrixQR().topRows(k).template triangularView<Eigen::Upper>();
    const TsqrOutcome sign = positive_diagonal(r, q);
    Map<T>(Qs, rows, k, Eigen::OuterStride<>(ldq)) = q;
    Map<T>(R, k, k, Eigen::OuterStride<>(ldr)) = r;
    return sign;
}

template <typename T>
T cholqr3_shift(std::int64_t n, int k, double frob2)
{
    const double u = std::numeric_limits<T>::epsilon() / 2;
    return static_cast<T>(11.0 * (static_cast<double>(n) * k + k * (k + 1.0)) * u * frob2);
}

#define KBENCH_SMALL_FACTOR(T)                                                                   \
    template TsqrOutcome cholesky_factor<T>(int, const T*, int, T, T*, int, const char*);        \
    template TsqrOutcome svqr_factor<T>(int, const T*, int, T*, int, T*, int);                  \
    template TsqrOutcome stacked_qr<T>(std::int64_t, int, const T*, std::int64_t, T*,            \
                                       std::int64_t, T*, int);                                   \
    template T cholqr3_shift<T>(std::int64_t, int, double);
KBENCH_SMALL_FACTOR(float)
KBENCH_SMALL_FACTOR(double)
#undef KBENCH_SMALL_FACTOR

}  // namespace kbench::ortho::detail
