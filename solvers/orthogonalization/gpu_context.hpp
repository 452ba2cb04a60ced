// An owner of what GpuHandles points to: a non-blocking stream with a cuBLAS handle (host
// pointer mode) and a cuSOLVER handle bound to it, for callers of tsqr and borth that have none
// of their own (benchmarks, tests).
#pragma once

#include "kernels/base/cuda_check.hpp"
#include "kernels/base/cuda_handles.hpp"
#include "solvers/orthogonalization/tsqr_gpu.hpp"

namespace kbench::ortho {

/// Creates the stream and both handles (kbench::cuda_error on failure); move-only.
struct GpuContext {
    cuda_stream stream;
    cublas_handle blas;
    cusolver_handle solver;
    GpuContext()
    {
        KBENCH_CUBLAS_CHECK(cublasSetStream(blas, stream));
        KBENCH_CUBLAS_CHECK(cublasSetPointerMode(blas, CUBLAS_POINTER_MODE_HOST));
        KBENCH_CUSOLVER_CHECK(cusolverDnSetStream(solver, stream));
    }
    GpuHandles handles() const { return {stream, blas, solver}; }
};

}  // namespace kbench::ortho
