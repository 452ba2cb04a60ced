// Dense products of the CPU solvers (declarations in cpu_gemm.hpp).
#include "solvers/cpu_gemm.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#ifdef KBENCH_HAVE_BLAS
extern "C" {
void dgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k,
            const double* alpha, const double* a, const int* lda, const double* b,
            const int* ldb, const double* beta, double* c, const int* ldc);
void sgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k,
            const float* alpha, const float* a, const int* lda, const float* b, const int* ldb,
            const float* beta, float* c, const int* ldc);
}
#endif

namespace kbench::solvers::cpu {
namespace {

#ifdef KBENCH_HAVE_BLAS
void blas_gemm(const char* ta, const char* tb, const int* m, const int* n, const int* k,
               const double* alpha, const double* a, const int* lda, const double* b,
               const int* ldb, const double* beta, double* c, const int* ldc)
{
    dgemm_(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
void blas_gemm(const char* ta, const char* tb, const int* m, const int* n, const int* k,
               const float* alpha, const float* a, const int* lda, const float* b,
               const int* ldb, const float* beta, float* c, const int* ldc)
{
    sgemm_(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

int blas_int(Eigen::Index v, const char* what)
{
    if (v > Eigen::Index{2147483647})
        throw std::invalid_argument(std::string("solvers::cpu::gemm: ") + what + " = " +
                                    std::to_string(v) + ", expected < 2^31 (32-bit BLAS)");
    return static_cast<int>(v);
}
#endif

}  // namespace

template <typename T>
void gemm(bool trans_a, bool trans_b, T alpha, const ConstRef<T>& a, const ConstRef<T>& b,
          T beta, Ref<T> c)
{
    const Eigen::Index m = trans_a ? a.cols() : a.rows();
    const Eigen::Index k = trans_a ? a.rows() : a.cols();
    const Eigen::Index kb = trans_b ? b.cols() : b.rows();
    const Eigen::Index n = trans_b ? b.rows() : b.cols();
    if (k != kb || c.rows() != m || c.cols() != n)
        throw std::invalid_argument(
            "solvers::cpu::gemm: op(A) is " + std::to_string(m) + " x " + std::to_string(k) +
            ", op(B) " + std::to_string(kb) + " x " + std::to_string(n) + ", C " +
            std::to_string(c.rows()) + " x " + std::to_string(c.cols()) +
            ", expected op(A) m x k, op(B) k x n and C m x n");
    if (m == 0 || n == 0) return;
#ifdef KBENCH_HAVE_BLAS
    const int mi = blas_int(m, "m"), ni = blas_int(n, "n"), ki = blas_int(k, "k");
    // Leading dimensions >= 1 even for empty operands (the BLAS checks them).
    const int lda = blas_int(std::max<Eigen::Index>(a.outerStride(), 1), "lda");
    const int ldb = blas_int(std::max<Eigen::Index>(b.outerStride(), 1), "ldb");
    const int ldc = blas_int(std::max<Eigen::Index>(c.outerStride(), 1), "ldc");
    blas_gemm(trans_a ? "T" : "N", trans_b ? "T" : "N", &mi, &ni, &ki, &alpha, a.data(), &lda,
              b.data(), &ldb, &beta, c.data(), &ldc);
#else
    Matrix<T> product = trans_a ? (trans_b ? Matrix<T>(a.transpose() * b.transpose())
                                           : Matrix<T>(a.transpose() * b))
                                : (trans_b ? Matrix<T>(a * b.transpose()) : Matrix<T>(a * b));
    if (beta == T(0)) c = alpha * product;
    else c = alpha * product + beta * c;
#endif
}

bool gemm_uses_blas()
{
#ifdef KBENCH_HAVE_BLAS
    return true;
#else
    return false;
#endif
}

template void gemm<float>(bool, bool, float, const ConstRef<float>&, const ConstRef<float>&,
                          float, Ref<float>);
template void gemm<double>(bool, bool, double, const ConstRef<double>&,
                           const ConstRef<double>&, double, Ref<double>);

}  // namespace kbench::solvers::cpu
