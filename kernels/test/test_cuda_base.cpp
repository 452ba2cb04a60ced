#include "kernels/base/cuda_check.hpp"
#include "kernels/base/cuda_handles.hpp"
#include "kernels/base/device_buffer.hpp"

#include <gtest/gtest.h>

#include <type_traits>

static_assert(std::is_nothrow_move_constructible_v<kbench::device_buffer<double>>);
static_assert(std::is_nothrow_move_assignable_v<kbench::device_buffer<double>>);
static_assert(std::is_nothrow_move_constructible_v<kbench::cuda_stream>);
static_assert(std::is_nothrow_move_constructible_v<kbench::cuda_event>);
static_assert(!std::is_copy_constructible_v<kbench::device_buffer<double>>);
static_assert(!std::is_copy_constructible_v<kbench::cuda_stream>);

TEST(CudaCheck, ThrowsWithFileLineAndStatusName)
{
    try {
        KBENCH_CUDA_CHECK(cudaErrorInvalidValue);
        FAIL() << "expected kbench::cuda_error";
    } catch (const kbench::cuda_error& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("test_cuda_base.cpp:"), std::string::npos) << msg;
        EXPECT_NE(msg.find("cudaErrorInvalidValue"), std::string::npos) << msg;
    }
}

TEST(CudaCheck, NamesCusparseAndCublasStatus)
{
    EXPECT_THROW(KBENCH_CUSPARSE_CHECK(CUSPARSE_STATUS_INVALID_VALUE), kbench::cuda_error);
    try {
        KBENCH_CUBLAS_CHECK(CUBLAS_STATUS_NOT_INITIALIZED);
    } catch (const kbench::cuda_error& e) {
        EXPECT_NE(std::string(e.what()).find("CUBLAS_STATUS_NOT_INITIALIZED"), std::string::npos);
    }
}

TEST(DeviceBuffer, EmptyBufferNeedsNoDevice)
{
    kbench::device_buffer<double> b;
    EXPECT_TRUE(b.empty());
    EXPECT_EQ(b.data(), nullptr);
    EXPECT_TRUE(b.to_host().empty());
}
