// SPIKE-preconditioned BiCGStab on the GPU (spike_bicgstab.hpp): truncated SPIKE (spike.cu) as
// right preconditioner, the shared SpMV operator, the fused vector kernels of
// kernels/bicgstab_kernels.hpp and one fused kernel of its own for the preconditioned x/r update
// with the dots and the infinity norm of r.
#include "solvers/spike/spike_bicgstab.hpp"

#include "kernels/base/cuda_check.hpp"
#include "kernels/base/cuda_handles.hpp"
#include "kernels/base/device_buffer.hpp"
#include "kernels/bicgstab_kernels.hpp"
#include "kernels/block_reduce.cuh"
#include "kernels/machine_probe.hpp"
#include "kernels/spmv_operator.hpp"

#include <nvtx3/nvToolsExt.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace kbench::solvers::spike {
namespace {

using bicgstab::DeviceScalars;

constexpr int block_size = 256;
constexpr int max_blocks = 1024;  // grid bound of the x/r update (and its partials)

/// The iteration's scalars plus ||r||_inf, in device memory; copied to the host once per
/// iteration. DeviceScalars first, so a pointer to the state is one to its scalars.
struct IterState {
    DeviceScalars<double> sc;
    double rinf;
};
static_assert(std::is_standard_layout_v<IterState>, "IterState is cast to DeviceScalars*");

__device__ __forceinline__ double warp_max(double v)
{
    for (int m = 16; m > 0; m /= 2) v = fmax(v, __shfl_xor_sync(0xffffffffu, v, m));
    return v;
}

/// Block-wide max of v (every thread calling); thread 0 gets it.
__device__ __forceinline__ double block_max(double v, double* smem)
{
    v = warp_max(v);
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane == 0) smem[warp] = v;
    __syncthreads();
    if (warp == 0) v = warp_max(lane < block_size / 32 ? smem[lane] : 0.0);
    __syncthreads();
    return v;
}

/// x += alpha p_hat + omega s_hat; r = s - omega t (the same fused multiply-adds as the CPU
/// twin); per block the partial sums of r_hat . r and r . r and the max |r_i| into
/// partials[3 b .. 3 b + 2]. alpha and omega are read from the state (finish_xr, later, does not
/// change them).
__global__ void __launch_bounds__(block_size)
    xr_partial_kernel(std::int64_t n, const double* __restrict__ r_hat,
                      const double* __restrict__ p_hat, const double* __restrict__ s_hat,
                      const double* __restrict__ s, const double* __restrict__ t,
                      double* __restrict__ x, double* __restrict__ r,
                      const IterState* __restrict__ state, double* __restrict__ partials)
{
    __shared__ double smem[2 * block_size / 32];
    const double alpha = state->sc.alpha, omega = state->sc.omega;
    double acc[2] = {0.0, 0.0}, m = 0.0;
    const std::int64_t stride = std::int64_t{gridDim.x} * block_size;
    for (std::int64_t i = std::int64_t{blockIdx.x} * block_size + threadIdx.x; i < n; i += stride) {
        x[i] = __fma_rn(omega, s_hat[i], __fma_rn(alpha, p_hat[i], x[i]));
        const double ri = __fma_rn(-omega, t[i], s[i]);
        r[i] = ri;
        acc[0] = __fma_rn(r_hat[i], ri, acc[0]);
        acc[1] = __fma_rn(ri, ri, acc[1]);
        m = fmax(m, fabs(ri));
    }
    reduce::block_sum<double, 2, block_size>(acc, smem);
    m = block_max(m, smem);
    if (threadIdx.x == 0) {
        partials[3 * blockIdx.x] = acc[0];
        partials[3 * blockIdx.x + 1] = acc[1];
        partials[3 * blockIdx.x + 2] = m;
    }
}

/// One block: sums the partials in a fixed order, then rho, rr and the status (finish_xr, the
/// rules of the fused kernels) and rinf (NaN when r . r is not finite: fmax drops NaNs).
__global__ void __launch_bounds__(block_size)
    xr_finish_kernel(const double* __restrict__ partials, int blocks, IterState* __restrict__ state)
{
    __shared__ double smem[2 * block_size / 32];
    double acc[2] = {0.0, 0.0}, m = 0.0;
    for (int b = threadIdx.x; b < blocks; b += block_size) {
        acc[0] += partials[3 * b];
        acc[1] += partials[3 * b + 1];
        m = fmax(m, partials[3 * b + 2]);
    }
    reduce::block_sum<double, 2, block_size>(acc, smem);
    m = block_max(m, smem);
    if (threadIdx.x == 0) {
        bicgstab::detail::finish_xr(state->sc, acc[0], acc[1]);
        state->rinf = isfinite(acc[1]) ? m : acc[1];
    }
}

int grid_for(std::int64_t n, int sms)
{
    const std::int64_t blocks = (n + block_size - 1) / block_size;
    return static_cast<int>(std::clamp<std::int64_t>(blocks, 1, std::min(max_blocks, 8 * sms)));
}

/// ||v||_inf of a device vector (cuBLAS idamax, then the entry; host result).
double inf_norm(cublasHandle_t h, std::int64_t n, const double* v, cudaStream_t stream)
{
    int index = 0;
    KBENCH_CUBLAS_CHECK(cublasIdamax(h, static_cast<int>(n), v, 1, &index));
    if (index < 1) return 0.0;
    double value = 0.0;
    KBENCH_CUDA_CHECK(cudaMemcpyAsync(&value, v + (index - 1), sizeof(double),
                                      cudaMemcpyDeviceToHost, stream));
    KBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
    return std::abs(value);
}

/// r = b - A x on `stream`.
void residual(spmv::SpmvOperator<double>& a, cublasHandle_t h, const double* b, const double* x,
              double* r, cudaStream_t stream)
{
    KBENCH_CUBLAS_CHECK(cublasDcopy(h, static_cast<int>(a.num_rows()), b, 1, r, 1));
    a.apply(-1.0, x, 1.0, r, stream);
}

/// The detailed run's iteration clock: CUDA events between the phases of an iteration and an
/// NVTX range around each; times are added to the phase of the same name once the iteration's
/// last event completed. Off, it only runs the work.
class IterationClock {
public:
    IterationClock(std::vector<PhaseTime>* phases, cudaStream_t stream)
        : phases_(phases), stream_(stream)
    {}
    void begin_iteration()
    {
        if (phases_ == nullptr) return;
        names_.clear();
        event(0).record(stream_);
    }
    template <typename F>
    void operator()(const char* name, F&& work)
    {
        if (phases_ == nullptr) return work();
        nvtxRangePushA(name);
        work();
        nvtxRangePop();
        names_.push_back(name);
        event(names_.size()).record(stream_);
    }
    void end_iteration()
    {
        if (phases_ == nullptr) return;
        events_[names_.size()].synchronize();
        for (std::size_t i = 0; i < names_.size(); ++i)
            detail::add_phase(*phases_, names_[i], "iteration",
                              events_[i + 1].seconds_since(events_[i]));
    }

private:
    const cuda_event& event(std::size_t i)
    {
        while (events_.size() <= i) events_.emplace_back();
        return events_[i];
    }
    std::vector<PhaseTime>* phases_;
    cudaStream_t stream_;
    std::vector<const char*> names_;
    std::deque<cuda_event> events_;  // event i: after phase i - 1 (0: iteration start)
};

/// The preconditioner in the precision asked for.
class Preconditioner {
public:
    explicit Preconditioner(SpikePrecision precision) : mixed_(precision == SpikePrecision::mixed)
    {}
    SpikeStatus factor(const BandMatrix<double>& a, const BandMatrix<float>& af, index_type psize,
                       cudaStream_t stream, SpikeTips tips, std::vector<PhaseTime>* phases)
    {
        return mixed_ ? single_.factor(af, psize, stream, tips, phases)
                      : double_.factor(a, psize, stream, tips, phases);
    }
    void apply(const double* r, double* z, cudaStream_t stream)
    {
        if (mixed_) single_.apply_mixed(r, z, stream);
        else double_.apply(r, z, stream);
    }
    double upload_seconds() const
    {
        return mixed_ ? single_.upload_seconds() : double_.upload_seconds();
    }

private:
    bool mixed_;
    SpikeSolver<double> double_;
    SpikeSolver<float> single_;
};

struct NvtxRange {
    explicit NvtxRange(const char* name) { nvtxRangePushA(name); }
    ~NvtxRange() { nvtxRangePop(); }
    NvtxRange(const NvtxRange&) = delete;
    NvtxRange& operator=(const NvtxRange&) = delete;
};

}  // namespace

SpikeBicgstabResult spike_bicgstab(const BandMatrix<double>& a, const double* b, double* x,
                                   const SpikeBicgstabOptions& options, cudaStream_t stream)
{
    detail::check_options(options);
    spmv::SpmvOperator<double> op(band_to_csr(a), spmv::Policy{"auto"}, spmv::machine_figures());
    return spike_bicgstab(a, op, b, x, options, stream);
}

SpikeBicgstabResult spike_bicgstab(const BandMatrix<double>& a, spmv::SpmvOperator<double>& op,
                                   const double* b, double* x,
                                   const SpikeBicgstabOptions& options, cudaStream_t stream)
{
    detail::check_options(options);
    if (op.num_rows() != a.n)
        throw std::invalid_argument("spike_bicgstab: the SpMV operator has " +
                                    std::to_string(op.num_rows()) + " rows, the band matrix n = " +
                                    std::to_string(a.n) + "; expected the operator of A");
    NvtxRange range("spike_bicgstab");
    const std::int64_t n = a.n;
    const bool mixed = options.precision == SpikePrecision::mixed;
    int device = 0, sms = 0;
    KBENCH_CUDA_CHECK(cudaGetDevice(&device));
    KBENCH_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    SpikeBicgstabResult result;
    const int resident = options.psize != 0 || a.K < 1 ? 1
                         : mixed ? SpikeSolver<float>::resident_blocks_per_sm(a.K)
                                 : SpikeSolver<double>::resident_blocks_per_sm(a.K);
    const bool blocked = a.K >= 1 && (mixed ? SpikeSolver<float>::blocked_lu(a.K)
                                            : SpikeSolver<double>::blocked_lu(a.K));
    result.psize =
        detail::resolve_psize(a, options, sms, resident, &result.psize_decay, blocked);
    result.partitions = make_partitioning(a.n, a.K, result.psize).count;

    const cublasHandle_t blas = thread_cublas(stream);
    std::vector<PhaseTime> phases = options.detailed ? detail::empty_phases()
                                                     : std::vector<PhaseTime>{};
    std::vector<PhaseTime>* timed = options.detailed ? &phases : nullptr;

    Preconditioner m(options.precision);
    const BandMatrix<float> af = mixed ? band_cast<float>(a) : BandMatrix<float>{};
    cuda_event f0, f1;
    f0.record(stream);
    result.factor_status = m.factor(a, af, result.psize, stream, options.tips, timed);
    f1.record(stream);
    f1.synchronize();
    result.factor_seconds = f1.seconds_since(f0);
    result.transfer_seconds = m.upload_seconds();

    SolveResult& solve = result.solve;
    device_buffer<double> r(n), r_hat(n), p(n), v(n), s(n), t(n), p_hat(n), s_hat(n);
    residual(op, blas, b, x, r.data(), stream);
    const double bnorm = inf_norm(blas, n, b, stream), r0 = inf_norm(blas, n, r.data(), stream);
    if (!result.factor_status.ok() || bnorm == 0.0) {
        if (result.factor_status.ok()) {  // b = 0: x = 0 solves it
            KBENCH_CUDA_CHECK(cudaMemsetAsync(x, 0, n * sizeof(double), stream));
            KBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
        }
        detail::finish_without_iterations(result, bnorm, r0, std::move(phases));
        return result;
    }

    device_buffer<unsigned char> ws(bicgstab::workspace_bytes(n));
    device_buffer<IterState> state(1);
    const int grid = grid_for(n, sms);
    device_buffer<double> partials(3 * static_cast<std::size_t>(grid));
    pinned_value<IterState> host;
    auto* sc = reinterpret_cast<DeviceScalars<double>*>(state.data());
    bicgstab::init(n, r.data(), r_hat.data(), p.data(), v.data(), sc, ws.data(), ws.bytes(),
                   stream);
    KBENCH_CUDA_CHECK(cudaMemcpyAsync(host.get(), state.data(), sizeof(IterState),
                                      cudaMemcpyDeviceToHost, stream));
    KBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
    StagnationState stagnation;
    int iteration = 0;
    solve.residual_history = {r0 / bnorm};
    bool stop = detail::stop_after(solve, 0, r0 / bnorm, (*host).sc.status, options, stagnation);

    IterationClock phase(timed, stream);
    cuda_event begin, end;
    begin.record(stream);
    while (!stop) {
        phase.begin_iteration();
        phase("other", [&] { bicgstab::p_update(n, r.data(), v.data(), p.data(), sc, stream); });
        phase("preconditioner", [&] { m.apply(p.data(), p_hat.data(), stream); });
        phase("BiCGStab SpMV", [&] { op.apply(1.0, p_hat.data(), 0.0, v.data(), stream); });
        phase("other", [&] {
            bicgstab::alpha_dot(n, r_hat.data(), v.data(), sc, ws.data(), ws.bytes(), stream);
            bicgstab::s_update(n, r.data(), v.data(), s.data(), sc, stream);
        });
        phase("preconditioner", [&] { m.apply(s.data(), s_hat.data(), stream); });
        phase("BiCGStab SpMV", [&] { op.apply(1.0, s_hat.data(), 0.0, t.data(), stream); });
        phase("other", [&] {
            bicgstab::omega_dot(n, t.data(), s.data(), sc, ws.data(), ws.bytes(), stream);
            xr_partial_kernel<<<grid, block_size, 0, stream>>>(
                n, r_hat.data(), p_hat.data(), s_hat.data(), s.data(), t.data(), x, r.data(),
                state.data(), partials.data());
            KBENCH_CUDA_CHECK_LAUNCH();
            xr_finish_kernel<<<1, block_size, 0, stream>>>(partials.data(), grid, state.data());
            KBENCH_CUDA_CHECK_LAUNCH();
            KBENCH_CUDA_CHECK(cudaMemcpyAsync(host.get(), state.data(), sizeof(IterState),
                                              cudaMemcpyDeviceToHost, stream));
            KBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
        });
        phase.end_iteration();
        ++iteration;
        const double rel = (*host).rinf / bnorm;
        solve.residual_history.push_back(rel);
        stop = detail::stop_after(solve, iteration, rel, (*host).sc.status, options, stagnation);
    }
    end.record(stream);
    end.synchronize();
    solve.seconds = end.seconds_since(begin);
    solve.iterations = iteration;
    residual(op, blas, b, x, r.data(), stream);
    solve.true_residual = inf_norm(blas, n, r.data(), stream) / bnorm;
    result.total_seconds = result.factor_seconds + solve.seconds;
    result.phases = std::move(phases);
    return result;
}

}  // namespace kbench::solvers::spike
