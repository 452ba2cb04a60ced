// solvers::cpu::gemm (solvers/cpu_gemm.hpp) against Eigen's product: every transpose pair, blocks
// of bigger matrices (leading dimension > rows), alpha/beta, float and double; bad shapes throw.
#include "solvers/cpu_gemm.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <limits>
#include <stdexcept>

namespace kbench::solvers::cpu {
namespace {

template <typename T>
void check_all_transposes()
{
    // op(A) 37 x 5 and op(B) 5 x 3 inside bigger matrices (leading dimensions 50 and 60).
    Matrix<T> a_store = Matrix<T>::Random(50, 40), b_store = Matrix<T>::Random(60, 40);
    Matrix<T> c_store = Matrix<T>::Random(45, 10);
    const int m = 37, k = 5, n = 3;
    for (const bool ta : {false, true})
        for (const bool tb : {false, true}) {
            auto a = ta ? a_store.block(2, 1, k, m) : a_store.block(2, 1, m, k);
            auto b = tb ? b_store.block(3, 4, n, k) : b_store.block(3, 4, k, n);
            const Matrix<T> opa = ta ? Matrix<T>(a.transpose()) : Matrix<T>(a);
            const Matrix<T> opb = tb ? Matrix<T>(b.transpose()) : Matrix<T>(b);
            const Matrix<T> c0 = c_store.block(1, 2, m, n);
            const Matrix<T> want = T(0.5) * opa * opb + T(-2) * c0;
            gemm<T>(ta, tb, T(0.5), a, b, T(-2), c_store.block(1, 2, m, n));
            // k = 5 products and one scaled add per entry, entries of size <= 1: 16 eps bound.
            const double tol = 16.0 * std::numeric_limits<T>::epsilon() * (k + 2);
            EXPECT_LE(double((c_store.block(1, 2, m, n) - want).cwiseAbs().maxCoeff()), tol)
                << "trans_a " << ta << " trans_b " << tb;
            c_store.block(1, 2, m, n) = c0;
        }
}

TEST(CpuGemm, EveryTransposePairMatchesEigenInDoubleAndFloat)
{
    std::printf("cpu::gemm runs on %s\n", gemm_uses_blas() ? "the BLAS" : "Eigen's product");
    check_all_transposes<double>();
    check_all_transposes<float>();
}

TEST(CpuGemm, BetaZeroIgnoresNaNInC)
{
    Matrix<double> a = Matrix<double>::Random(6, 4), b = Matrix<double>::Random(4, 2);
    Matrix<double> c = Matrix<double>::Constant(6, 2, std::numeric_limits<double>::quiet_NaN());
    gemm<double>(false, false, 1.0, a, b, 0.0, c);
    EXPECT_LE((c - a * b).cwiseAbs().maxCoeff(), 1e-14);
}

TEST(CpuGemm, ShapesThatDisagreeThrowNamingThem)
{
    Matrix<double> a(6, 4), b(5, 2), c(6, 2);
    try {
        gemm<double>(false, false, 1.0, a, b, 0.0, c);
        FAIL() << "no exception";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("op(A) is 6 x 4, op(B) 5 x 2"), std::string::npos)
            << e.what();
    }
    Matrix<double> b2(4, 2), c2(6, 3);
    EXPECT_THROW(gemm<double>(false, false, 1.0, a, b2, 0.0, c2), std::invalid_argument);
}

}  // namespace
}  // namespace kbench::solvers::cpu
