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
