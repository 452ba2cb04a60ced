// Dense products of the CPU solvers through the BLAS when kbench is built with OpenBLAS.
//
// Eigen's own GEMM is compiled for the build's baseline ISA (SSE2 here: no -march) and packs
// the tall operand of a tall-skinny product; block GMRES's block CGS2 (an n x (j+1)s basis times
// an n x s block, boman2022 BOrth) ran 2-7x slower than one read of the basis. OpenBLAS picks
// its kernels for the CPU at run time and streams the basis once. Without OpenBLAS the same
// calls use Eigen's product.
#pragma once

#include <Eigen/Dense>

namespace kbench::solvers::cpu {

template <typename T>
using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;
/// A column-major host matrix with any leading dimension (a block of columns or rows of a
/// bigger one).
template <typename T>
using Ref = Eigen::Ref<Matrix<T>, 0, Eigen::OuterStride<>>;
template <typename T>
using ConstRef = Eigen::Ref<const Matrix<T>, 0, Eigen::OuterStride<>>;

/// C := alpha op(A) op(B) + beta C, op(X) = X^T when trans_X, all column-major. Shapes: op(A)
/// m x k, op(B) k x n, C m x n (C must not alias A or B). Through dgemm_/sgemm_ when built
/// with OpenBLAS (KBENCH_HAVE_BLAS), else Eigen. Throws std::invalid_argument when the shapes
/// disagree.
template <typename T>
void gemm(bool trans_a, bool trans_b, T alpha, const ConstRef<T>& a, const ConstRef<T>& b,
          T beta, Ref<T> c);

/// True when gemm runs on the BLAS (OpenBLAS), false when on Eigen's product.
bool gemm_uses_blas();

}  // namespace kbench::solvers::cpu
