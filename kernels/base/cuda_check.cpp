#include "kernels/base/cuda_check.hpp"

#include <fmt/format.h>

#include <cstdio>

namespace kbench::detail {

std::string status_name(cudaError_t status)
{
    return fmt::format("{} ({})", cudaGetErrorName(status), cudaGetErrorString(status));
}

std::string status_name(cublasStatus_t status)
{
    return fmt::format("{} ({})", cublasGetStatusName(status), cublasGetStatusString(status));
}

std::string status_name(cusparseStatus_t status)
{
    return fmt::format("{} ({})", cusparseGetErrorName(status), cusparseGetErrorString(status));
}

std::string status_name(cusolverStatus_t status)
{
    // cuSOLVER has no status-name function: the enumerators of cusolver_common.h.
    switch (status) {
    case CUSOLVER_STATUS_SUCCESS: return "CUSOLVER_STATUS_SUCCESS";
    case CUSOLVER_STATUS_NOT_INITIALIZED: return "CUSOLVER_STATUS_NOT_INITIALIZED";
    case CUSOLVER_STATUS_ALLOC_FAILED: return "CUSOLVER_STATUS_ALLOC_FAILED";
    case CUSOLVER_STATUS_INVALID_VALUE: return "CUSOLVER_STATUS_INVALID_VALUE";
    case CUSOLVER_STATUS_ARCH_MISMATCH: return "CUSOLVER_STATUS_ARCH_MISMATCH";
    case CUSOLVER_STATUS_EXECUTION_FAILED: return "CUSOLVER_STATUS_EXECUTION_FAILED";
    case CUSOLVER_STATUS_INTERNAL_ERROR: return "CUSOLVER_STATUS_INTERNAL_ERROR";
    case CUSOLVER_STATUS_NOT_SUPPORTED: return "CUSOLVER_STATUS_NOT_SUPPORTED";
    default: return fmt::format("cusolverStatus_t {}", static_cast<int>(status));
    }
}

void throw_cuda_error(const std::string& status, const char* call, const char* file, int line)
{
    throw cuda_error(fmt::format("{}:{}: {} failed: {}", file, line, call, status));
}

void report_cuda_error(cudaError_t status, const char* call, const char* file, int line) noexcept
{
    if (status != cudaSuccess) {
        std::fprintf(stderr, "%s:%d: %s failed: %s\n", file, line, call,
                     cudaGetErrorName(status));
    }
}

}  // namespace kbench::detail
