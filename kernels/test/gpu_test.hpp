// Helpers shared by the GPU tests (label `gpu`).
#pragma once

#include "kernels/base/device.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

/// Skips the current test, with the reason, when no CUDA device can be used. ctest reports such
/// a test as skipped (SKIP_REGULAR_EXPRESSION), never as passed.
#define KBENCH_REQUIRE_GPU()                                                        \
    do {                                                                            \
        const std::string kbench_reason = ::kbench::gpu_unavailable_reason();       \
        if (!kbench_reason.empty()) {                                               \
            GTEST_SKIP() << "GPU test skipped: " << kbench_reason;                  \
        }                                                                           \
    } while (0)

namespace kbench::test {

/// The SuiteSparse matrix directory for tests ($KBENCH_MATRIX_DIR, set by ctest), or "".
inline std::string matrix_dir()
{
    const char* dir = std::getenv("KBENCH_MATRIX_DIR");
    return dir == nullptr ? std::string{} : std::string{dir};
}

}  // namespace kbench::test
