// cuBLAS level-1 calls by precision: one overload for float and one for double of each call the
// solvers and benchmarks make (unit strides, the handle's stream and pointer mode). Each returns
// cuBLAS's status unchecked: wrap it in KBENCH_CUBLAS_CHECK. n is cuBLAS's int length.
#pragma once

#include <cublas_v2.h>

namespace kbench::cublas {

/// *r = x . y (r: host or device memory, as the handle's pointer mode says).
inline cublasStatus_t dot(cublasHandle_t h, int n, const double* x, const double* y, double* r)
{
    return cublasDdot(h, n, x, 1, y, 1, r);
}
inline cublasStatus_t dot(cublasHandle_t h, int n, const float* x, const float* y, float* r)
{
    return cublasSdot(h, n, x, 1, y, 1, r);
}
/// y += a x (a on the host).
inline cublasStatus_t axpy(cublasHandle_t h, int n, double a, const double* x, double* y)
{
    return cublasDaxpy(h, n, &a, x, 1, y, 1);
}
inline cublasStatus_t axpy(cublasHandle_t h, int n, float a, const float* x, float* y)
{
    return cublasSaxpy(h, n, &a, x, 1, y, 1);
}
/// x *= a (a on the host).
inline cublasStatus_t scal(cublasHandle_t h, int n, double a, double* x)
{
    return cublasDscal(h, n, &a, x, 1);
}
inline cublasStatus_t scal(cublasHandle_t h, int n, float a, float* x)
{
    return cublasSscal(h, n, &a, x, 1);
}
/// *r = ||x||_2 (r: host or device memory, as the handle's pointer mode says).
inline cublasStatus_t nrm2(cublasHandle_t h, int n, const double* x, double* r)
{
    return cublasDnrm2(h, n, x, 1, r);
}
inline cublasStatus_t nrm2(cublasHandle_t h, int n, const float* x, float* r)
{
    return cublasSnrm2(h, n, x, 1, r);
}
/// y = x.
inline cublasStatus_t copy(cublasHandle_t h, int n, const double* x, double* y)
{
    return cublasDcopy(h, n, x, 1, y, 1);
}
inline cublasStatus_t copy(cublasHandle_t h, int n, const float* x, float* y)
{
    return cublasScopy(h, n, x, 1, y, 1);
}

}  // namespace kbench::cublas
