// Error checking for CUDA runtime, cuBLAS, cuSPARSE and cuSOLVER calls.
//
// KBENCH_CUDA_CHECK(call), KBENCH_CUBLAS_CHECK(call), KBENCH_CUSPARSE_CHECK(call) and
// KBENCH_CUSOLVER_CHECK(call) throw
// kbench::cuda_error whose message carries file:line, the call's text and the status name,
// e.g. "kernels/spmv.cu:88: cudaMalloc(&p, n) failed: cudaErrorMemoryAllocation (out of memory)".
// KBENCH_CUDA_CHECK_NOTHROW is for destructors: it reports to stderr and never throws.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cusolver_common.h>
#include <cusparse.h>

#include <stdexcept>
#include <string>

namespace kbench {

/// Thrown by the KBENCH_*_CHECK macros when a CUDA, cuBLAS, cuSPARSE or cuSOLVER call fails.
class cuda_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

namespace detail {

std::string status_name(cudaError_t status);
std::string status_name(cublasStatus_t status);
std::string status_name(cusparseStatus_t status);
std::string status_name(cusolverStatus_t status);

[[noreturn]] void throw_cuda_error(const std::string& status, const char* call, const char* file,
                                   int line);
void report_cuda_error(cudaError_t status, const char* call, const char* file, int line) noexcept;

template <typename Status>
inline void check(Status status, Status success, const char* call, const char* file, int line)
{
    if (status != success) {
        throw_cuda_error(status_name(status), call, file, line);
    }
}

}  // namespace detail
}  // namespace kbench

#define KBENCH_CUDA_CHECK(call) \
    ::kbench::detail::check<cudaError_t>((call), cudaSuccess, #call, __FILE__, __LINE__)
#define KBENCH_CUBLAS_CHECK(call)                                                         \
    ::kbench::detail::check<cublasStatus_t>((call), CUBLAS_STATUS_SUCCESS, #call, __FILE__, \
                                            __LINE__)
#define KBENCH_CUSPARSE_CHECK(call)                                                            \
    ::kbench::detail::check<cusparseStatus_t>((call), CUSPARSE_STATUS_SUCCESS, #call, __FILE__, \
                                              __LINE__)
#define KBENCH_CUSOLVER_CHECK(call)                                                             \
    ::kbench::detail::check<cusolverStatus_t>((call), CUSOLVER_STATUS_SUCCESS, #call, __FILE__, \
                                              __LINE__)
/// Checks the last kernel launch (configuration errors) without synchronizing.
#define KBENCH_CUDA_CHECK_LAUNCH() KBENCH_CUDA_CHECK(cudaGetLastError())
#define KBENCH_CUDA_CHECK_NOTHROW(call) \
    ::kbench::detail::report_cuda_error((call), #call, __FILE__, __LINE__)
