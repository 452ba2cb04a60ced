// cuDSS baseline (li2012 study); see cudss_baseline.hpp.
#include "solvers/spike/cudss_baseline.hpp"

#include "kernels/base/cuda_handles.hpp"
#include "kernels/base/device_buffer.hpp"

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <utility>

namespace kbench::spike {

namespace detail {
std::string cudss_status_name(cudssStatus_t status)
{
    switch (status) {
    case CUDSS_STATUS_SUCCESS: return "CUDSS_STATUS_SUCCESS";
    case CUDSS_STATUS_NOT_INITIALIZED: return "CUDSS_STATUS_NOT_INITIALIZED";
    case CUDSS_STATUS_ALLOC_FAILED: return "CUDSS_STATUS_ALLOC_FAILED";
    case CUDSS_STATUS_INVALID_VALUE: return "CUDSS_STATUS_INVALID_VALUE";
    case CUDSS_STATUS_NOT_SUPPORTED: return "CUDSS_STATUS_NOT_SUPPORTED";
    case CUDSS_STATUS_EXECUTION_FAILED: return "CUDSS_STATUS_EXECUTION_FAILED";
    case CUDSS_STATUS_INTERNAL_ERROR: return "CUDSS_STATUS_INTERNAL_ERROR";
    default: return "cudssStatus_t " + std::to_string(static_cast<int>(status));
    }
}
}  // namespace detail

namespace {

// Reports a failed destroy call to stderr (destructors never throw).
void report(cudssStatus_t status, const char* call) noexcept
{
    if (status != CUDSS_STATUS_SUCCESS)
        std::fprintf(stderr, "kbench: %s failed: %d\n", call, static_cast<int>(status));
}

// Move-only owner of a cuDSS matrix wrapper (CSR or dense).
class cudss_matrix {
public:
    cudss_matrix() = default;
    ~cudss_matrix()
    {
        if (m_ != nullptr) report(cudssMatrixDestroy(m_), "cudssMatrixDestroy");
    }
    cudss_matrix(const cudss_matrix&) = delete;
    cudss_matrix& operator=(const cudss_matrix&) = delete;
    cudssMatrix_t* out() noexcept { return &m_; }
    cudssMatrix_t get() const noexcept { return m_; }

private:
    cudssMatrix_t m_ = nullptr;
};

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

}  // namespace

cudss_context::cudss_context(cudaStream_t stream)
{
    try {
        KBENCH_CUDSS_CHECK(cudssCreate(&handle_));
        KBENCH_CUDSS_CHECK(cudssSetStream(handle_, stream));
        KBENCH_CUDSS_CHECK(cudssConfigCreate(&config_));
        KBENCH_CUDSS_CHECK(cudssDataCreate(handle_, &data_));
    } catch (...) {
        reset();
        throw;
    }
}

cudss_context::~cudss_context() { reset(); }

cudss_context::cudss_context(cudss_context&& other) noexcept
    : handle_{std::exchange(other.handle_, nullptr)},
      config_{std::exchange(other.config_, nullptr)},
      data_{std::exchange(other.data_, nullptr)}
{
}

cudss_context& cudss_context::operator=(cudss_context&& other) noexcept
{
    if (this != &other) {
        reset();
        handle_ = std::exchange(other.handle_, nullptr);
        config_ = std::exchange(other.config_, nullptr);
        data_ = std::exchange(other.data_, nullptr);
    }
    return *this;
}

void cudss_context::reset() noexcept
{
    if (data_ != nullptr) report(cudssDataDestroy(handle_, data_), "cudssDataDestroy");
    if (config_ != nullptr) report(cudssConfigDestroy(config_), "cudssConfigDestroy");
    if (handle_ != nullptr) report(cudssDestroy(handle_), "cudssDestroy");
    data_ = nullptr;
    config_ = nullptr;
    handle_ = nullptr;
}

CudssResult cudss_solve(const Csr<double>& a, const std::vector<double>& b,
                        const CudssOptions& options)
{
    validate(a, "kbench::spike::cudss_solve: A");
    if (a.num_rows != a.num_cols)
        throw std::invalid_argument("kbench::spike::cudss_solve: A must be square, got " +
                                    std::to_string(a.num_rows) + " x " +
                                    std::to_string(a.num_cols));
    if (b.size() != static_cast<std::size_t>(a.num_rows))
        throw std::invalid_argument("kbench::spike::cudss_solve: b has " +
                                    std::to_string(b.size()) + " entries, expected " +
                                    std::to_string(a.num_rows));
    if (options.repetitions < 1)
        throw std::invalid_argument("kbench::spike::cudss_solve: repetitions = " +
                                    std::to_string(options.repetitions) + ", expected >= 1");

    const cuda_stream stream;
    const cudss_context ctx(stream);
    device_buffer<index_type> row_ptr(a.row_ptr), col_idx(a.col_idx);
    device_buffer<double> values(a.values), db(b), dx(b.size());
    const std::int64_t n = a.num_rows;

    cudss_matrix ma, mb, mx;
#if CUDSS_VERSION_MAJOR >= 1  // 1.0 added the row-offset type
    KBENCH_CUDSS_CHECK(cudssMatrixCreateCsr(ma.out(), n, n, a.nnz(), row_ptr.data(), nullptr,
                                            col_idx.data(), values.data(), CUDA_R_32I, CUDA_R_32I,
                                            CUDA_R_64F, CUDSS_MTYPE_GENERAL, CUDSS_MVIEW_FULL,
                                            CUDSS_BASE_ZERO));
#else
    KBENCH_CUDSS_CHECK(cudssMatrixCreateCsr(ma.out(), n, n, a.nnz(), row_ptr.data(), nullptr,
                                            col_idx.data(), values.data(), CUDA_R_32I,
                                            CUDA_R_64F, CUDSS_MTYPE_GENERAL, CUDSS_MVIEW_FULL,
                                            CUDSS_BASE_ZERO));
#endif
    KBENCH_CUDSS_CHECK(
        cudssMatrixCreateDn(mb.out(), n, 1, n, db.data(), CUDA_R_64F, CUDSS_LAYOUT_COL_MAJOR));
    KBENCH_CUDSS_CHECK(
        cudssMatrixCreateDn(mx.out(), n, 1, n, dx.data(), CUDA_R_64F, CUDSS_LAYOUT_COL_MAJOR));

    const cuda_event start, stop;
    auto timed = [&](int phase) {
        KBENCH_CUDA_CHECK(cudaEventRecord(start, stream));
        KBENCH_CUDSS_CHECK(
            cudssExecute(ctx.handle(), phase, ctx.config(), ctx.data(), ma.get(), mx.get(), mb.get()));
        KBENCH_CUDA_CHECK(cudaEventRecord(stop, stream));
        KBENCH_CUDA_CHECK(cudaEventSynchronize(stop));
        float ms = 0.0f;
        KBENCH_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
        return 1e-3 * ms;
    };

    CudssResult result;
    result.analysis_s = timed(CUDSS_PHASE_ANALYSIS);
    std::vector<double> factor_s, solve_s;
    for (int rep = 0; rep < options.repetitions; ++rep) {
        factor_s.push_back(timed(CUDSS_PHASE_FACTORIZATION));
        std::size_t written = 0;
        KBENCH_CUDSS_CHECK(cudssDataGet(ctx.handle(), ctx.data(), CUDSS_DATA_INFO, &result.info,
                                        sizeof(result.info), &written));
        if (result.info != 0) break;
        solve_s.push_back(timed(CUDSS_PHASE_SOLVE));
    }
    std::size_t written = 0;
    KBENCH_CUDSS_CHECK(cudssDataGet(ctx.handle(), ctx.data(), CUDSS_DATA_LU_NNZ, &result.lu_nnz,
                                    sizeof(result.lu_nnz), &written));
    result.factorization_s = median(factor_s);
    if (result.info == 0) {
        result.solve_s = median(solve_s);
        result.x = dx.to_host();
    }
    return result;
}

}  // namespace kbench::spike
