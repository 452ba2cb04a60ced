// GPU sparse direct baseline of the li2012 study: cuDSS (NVIDIA's sparse direct solver) on a
// CSR double matrix, its analysis (reordering + symbolic factorization), numerical
// factorization and solve timed separately. Built only when CMake found cuDSS
// (KBENCH_HAVE_CUDSS; cmake/FindCUDSS.cmake: pip install nvidia-cudss-cu13 or -DCUDSS_ROOT=...).
//
// KBENCH_CUDSS_CHECK(call) throws kbench::cuda_error with file:line, the call's text and the
// status name, as the KBENCH_*_CHECK macros of kernels/base/cuda_check.hpp.
#pragma once

#include "kernels/base/cuda_check.hpp"
#include "matrices/csr.hpp"

#include <cudss.h>

#include <cstdint>
#include <string>
#include <vector>

namespace kbench::spike {

namespace detail {
/// "CUDSS_STATUS_INVALID_VALUE" etc., or "cudssStatus_t <n>" for an unknown value.
std::string cudss_status_name(cudssStatus_t status);
}  // namespace detail

/// Move-only owner of a cuDSS library handle bound to a stream, a solver configuration and a
/// solver data object (destroyed data first, then config and handle). Destruction never throws.
class cudss_context {
public:
    /// Creates the three objects; throws kbench::cuda_error on failure.
    explicit cudss_context(cudaStream_t stream = nullptr);
    ~cudss_context();
    cudss_context(const cudss_context&) = delete;
    cudss_context& operator=(const cudss_context&) = delete;
    cudss_context(cudss_context&& other) noexcept;
    cudss_context& operator=(cudss_context&& other) noexcept;

    cudssHandle_t handle() const noexcept { return handle_; }
    cudssConfig_t config() const noexcept { return config_; }
    cudssData_t data() const noexcept { return data_; }

private:
    void reset() noexcept;
    cudssHandle_t handle_ = nullptr;
    cudssConfig_t config_ = nullptr;
    cudssData_t data_ = nullptr;
};

/// Options: `repetitions` >= 1 timed factorization + solve pairs after one analysis (the
/// factorization is redone on the same values, CUDSS_PHASE_FACTORIZATION).
struct CudssOptions {
    int repetitions = 1;
};

/// Seconds of each phase (CUDA events on the solver's stream around cudssExecute; the analysis
/// includes cuDSS's host-side reordering), medians over the repetitions; the solution, the
/// factors' non-zeros (CUDSS_DATA_LU_NNZ) and cuDSS's error indicator (CUDSS_DATA_INFO after
/// the factorization; non-zero: numerical failure such as a zero pivot, x is then empty).
struct CudssResult {
    double analysis_s = 0.0;
    double factorization_s = 0.0;
    double solve_s = 0.0;
    std::int64_t lu_nnz = 0;
    int info = 0;
    std::vector<double> x;
};

/// Solves A x = b for a square CSR matrix (general, no symmetry assumed) on the current
/// device. Throws std::invalid_argument for a non-square or invalid A, b.size() != n or
/// repetitions < 1; kbench::cuda_error for CUDA or cuDSS failures.
CudssResult cudss_solve(const Csr<double>& a, const std::vector<double>& b,
                        const CudssOptions& options = {});

}  // namespace kbench::spike

#define KBENCH_CUDSS_CHECK(call)                                                           \
    do {                                                                                   \
        const cudssStatus_t kbench_cudss_status = (call);                                  \
        if (kbench_cudss_status != CUDSS_STATUS_SUCCESS)                                   \
            ::kbench::detail::throw_cuda_error(                                            \
                ::kbench::spike::detail::cudss_status_name(kbench_cudss_status), #call,    \
                __FILE__, __LINE__);                                                       \
    } while (0)
