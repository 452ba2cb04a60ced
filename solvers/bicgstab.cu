// BiCGSTAB on the GPU: the cuBLAS reference (anzt2015 Fig. 1 right), the merged form (Fig. 2)
// and the merged form as a CUDA graph with the stopping test on the device. Declarations in
// solvers/bicgstab.hpp.
#include "solvers/bicgstab.hpp"

#include "kernels/base/cuda_check.hpp"
#include "kernels/base/cublas_level1.hpp"
#include "kernels/base/cuda_handles.hpp"
#include "kernels/base/device_buffer.hpp"
#include "kernels/bicgstab_kernels.hpp"
#include "solvers/stagnation.hpp"

#include <nvtx3/nvToolsExt.h>

#include <cmath>
#include <deque>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace kbench::solvers {
namespace {

using bicgstab::DeviceScalars;
using bicgstab::DeviceStatus;

/// Why a loop stops; 0 = go on.
enum StopCode : int { go_on = 0, stop_converged, stop_max_iterations, stop_status, stop_stagnation };

/// The stopping test's state, on the device for the merged and graph forms (on the host for the
/// reference), updated once per iteration by advance().
struct LoopState {
    int iteration = 0;       // iterations completed
    int stop = go_on;        // StopCode
    int status = 0;          // DeviceStatus seen when stop == stop_status
    StagnationState stagnation;  // best residual so far and the rule's reference point
    double relative = 0.0;   // relative residual after the last iteration
};

static_assert(sizeof(LoopState) == 48, "the merged form copies LoopState to the host per iteration");

struct StopRule {
    double inv_bnorm = 1.0;  // 1 / ||b|| (1 when b = 0: absolute residual)
    double tolerance = 0.0;
    int max_iterations = 0;
    StagnationRule stagnation;  // min_window = stagnation_window (0: off)
    bool timing_mode = false;
};

/// Records iteration `state.iteration + 1`'s residual (rr = ||r||^2, status as DeviceStatus)
/// and decides whether to stop: breakdown/non-finite first, then convergence (not in timing
/// mode), the iteration limit and stagnation (not in timing mode; solvers/stagnation.hpp).
/// history[0 .. state.iteration] holds the earlier relative residuals (the caller stores the
/// new one at history[state.iteration] afterwards): the same code on the host (reference
/// form) and on the device (merged and graph forms), so every form decides alike.
__host__ __device__ inline void advance(LoopState& state, double rr, int status,
                                        const StopRule& rule, const double* history)
{
    const double rel = sqrt(rr) * rule.inv_bnorm;
    ++state.iteration;
    state.relative = rel;
    const bool stagnated =
        stagnation_update(rule.stagnation, state.stagnation, history, state.iteration, rel);
    if (status == 0 && !isfinite(rel)) status = static_cast<int>(DeviceStatus::non_finite);
    if (!rule.timing_mode && rel <= rule.tolerance) {
        state.stop = stop_converged;  // a status raised by this iteration's scalars is moot
    } else if (status != 0) {
        state.stop = stop_status;
        state.status = status;
    } else if (state.iteration >= rule.max_iterations) {
        state.stop = stop_max_iterations;
    } else if (!rule.timing_mode && stagnated) {
        state.stop = stop_stagnation;
    }
}

/// Starts the state from the initial residual (iteration 0).
__host__ __device__ inline void start(LoopState& state, double rr, int status, const StopRule& rule)
{
    const double rel = sqrt(rr) * rule.inv_bnorm;
    state = LoopState{};
    stagnation_start(state.stagnation, rel);
    state.relative = rel;
    if (rel <= rule.tolerance && !rule.timing_mode) state.stop = stop_converged;
    else if (status != 0 || !isfinite(rel)) {
        state.stop = stop_status;
        state.status = status != 0 ? status : static_cast<int>(DeviceStatus::non_finite);
    } else if (rule.max_iterations == 0) state.stop = stop_max_iterations;
}

/// One thread: the device side of the stopping test after an iteration (or, with Start, at
/// iteration 0). history[i] = relative residual after iteration i. In a graph (Graph = true) it
/// also sets the WHILE node's condition to "go on".
template <typename T, bool Start, bool Graph>
__global__ void check_kernel(const DeviceScalars<T>* __restrict__ sc, LoopState* __restrict__ state,
                             double* __restrict__ history, StopRule rule,
                             cudaGraphConditionalHandle handle)
{
    LoopState s = *state;
    if constexpr (Start) start(s, static_cast<double>(sc->rr), sc->status, rule);
    else advance(s, static_cast<double>(sc->rr), sc->status, rule, history);
    history[s.iteration] = s.relative;
    *state = s;
    if constexpr (Graph) cudaGraphSetConditional(handle, s.stop == go_on ? 1u : 0u);
    (void)handle;
}

/// Fills status and detail of `result` from the final loop state.
void finish(SolveResult& result, const LoopState& state, const StopRule& rule)
{
    result.iterations = state.iteration;
    switch (state.stop) {
    case stop_converged: result.status = SolveStatus::converged; break;
    case stop_max_iterations: result.status = SolveStatus::max_iterations; break;
    case stop_stagnation:
        result.status = SolveStatus::stagnation;
        result.detail = stagnation_detail(rule.stagnation, state.stagnation, state.iteration,
                                          "iteration");
        break;
    case stop_status:
        result.status = state.status == static_cast<int>(DeviceStatus::non_finite)
                            ? SolveStatus::non_finite
                            : SolveStatus::breakdown;
        result.detail = std::string{bicgstab::status_text(state.status)} + " in iteration " +
                        std::to_string(state.iteration);
        break;
    default: result.detail = "loop ended without a stop code"; break;
    }
}

/// The detailed run's clock: CUDA events between the phases of an iteration and an NVTX range
/// around each (Nsight tools then name the kernels after the phase). Off, it only runs the work.
/// Phases must come in the same order every iteration.
class PhaseTimer {
public:
    PhaseTimer(bool on, cudaStream_t stream) : on_(on), stream_(stream) {}

    void begin_iteration()
    {
        if (!on_) return;
        next_ = 0;
        event(0).record(stream_);
    }

    /// Runs work() (which enqueues on the stream, and may synchronize) as phase `name`.
    template <typename F>
    void operator()(const char* name, const char* group, F&& work)
    {
        if (!on_) {
            work();
            return;
        }
        if (next_ == phases_.size()) phases_.push_back(PhaseTime{name, group, 0.0, 0});
        else if (phases_[next_].name != name)
            throw std::logic_error(std::string{"bicgstab: phase '"} + name + "' where '" +
                                   phases_[next_].name + "' ran in the first iteration");
        nvtxRangePushA(name);
        work();
        nvtxRangePop();
        event(++next_).record(stream_);
    }

    /// Waits for the iteration's last phase and adds the phases' times.
    void end_iteration()
    {
        if (!on_) return;
        events_[next_].synchronize();
        for (std::size_t i = 0; i < next_; ++i) {
            phases_[i].seconds += events_[i + 1].seconds_since(events_[i]);
            ++phases_[i].calls;
        }
    }

    std::vector<PhaseTime> take() { return std::move(phases_); }

private:
    const cuda_event& event(std::size_t i)
    {
        while (events_.size() <= i) events_.emplace_back();
        return events_[i];
    }

    bool on_;
    cudaStream_t stream_;
    std::size_t next_ = 0;
    std::deque<cuda_event> events_;  // event i: after phase i - 1 (0: iteration start)
    std::vector<PhaseTime> phases_;
};

/// Device vectors and state of one solve.
template <typename T>
struct Workspace {
    explicit Workspace(std::int64_t n, int max_iterations)
        : r(n), r_hat(n), p(n), v(n), s(n), t(n), ws(bicgstab::workspace_bytes(n)), sc(1),
          state(1), history(static_cast<std::size_t>(max_iterations) + 1)
    {}
    pinned_value<LoopState> host_state;  // per-iteration copy target of the merged form
    device_buffer<T> r, r_hat, p, v, s, t;
    device_buffer<unsigned char> ws;
    device_buffer<DeviceScalars<T>> sc;
    device_buffer<LoopState> state;
    device_buffer<double> history;
};

/// ||v||_2 of a device vector (cuBLAS nrm2, host result).
template <typename T>
double norm2(cublasHandle_t h, std::int64_t n, const T* v)
{
    T result{};
    KBENCH_CUBLAS_CHECK(cublas::nrm2(h, static_cast<int>(n), v, &result));
    return static_cast<double>(result);
}

/// r = b - A x on `stream`.
template <typename T>
void residual(spmv::SpmvOperator<T>& a, cublasHandle_t h, const T* b, const T* x, T* r,
              cudaStream_t stream)
{
    KBENCH_CUBLAS_CHECK(cublas::copy(h, static_cast<int>(a.num_rows()), b, r));
    a.apply(T{-1}, x, T{1}, r, stream);
}

/// The merged iteration (anzt2015 Fig. 2) enqueued on `stream`; phase names are those of
/// models::kernels(BicgstabVariant::merged).
template <typename T>
void merged_iteration(spmv::SpmvOperator<T>& a, Workspace<T>& w, T* x, cudaStream_t stream,
                      PhaseTimer& phase)
{
    const std::int64_t n = a.num_rows();
    DeviceScalars<T>* sc = w.sc.data();
    void* ws = w.ws.data();
    const std::size_t wb = w.ws.bytes();
    T *r = w.r.data(), *r_hat = w.r_hat.data(), *p = w.p.data(), *v = w.v.data(),
      *s = w.s.data(), *t = w.t.data();
    phase("p_update", "p_update", [&] { bicgstab::p_update(n, r, v, p, sc, stream); });
    phase("SpMV v = A p", "spmv", [&] { a.apply(T{1}, p, T{0}, v, stream); });
    phase("reduce1", "dot", [&] { bicgstab::alpha_dot(n, r_hat, v, sc, ws, wb, stream); });
    phase("s_update", "s_update", [&] { bicgstab::s_update(n, r, v, s, sc, stream); });
    phase("SpMV t = A s", "spmv", [&] { a.apply(T{1}, s, T{0}, t, stream); });
    phase("reduce2", "dot", [&] { bicgstab::omega_dot(n, t, s, sc, ws, wb, stream); });
    phase("xr_update+reduce3", "xr_update",
          [&] { bicgstab::xr_update(n, r_hat, p, s, t, x, r, sc, ws, wb, stream); });
}

/// Reference form, anzt2015 Fig. 1 right (line numbers of Table 1), scalars on the host.
/// `begin` is recorded after the initialization (r_hat, p, v, rho), as the other forms do.
template <typename T>
LoopState reference_loop(spmv::SpmvOperator<T>& a, cublasHandle_t h, Workspace<T>& w, T* x,
                         const StopRule& rule, std::vector<double>& history,
                         const cuda_event& begin, PhaseTimer& phase)
{
    const int n = static_cast<int>(a.num_rows());
    cudaStream_t stream{};
    KBENCH_CUBLAS_CHECK(cublasGetStream(h, &stream));
    T *r = w.r.data(), *r_hat = w.r_hat.data(), *p = w.p.data(), *v = w.v.data(),
      *s = w.s.data(), *t = w.t.data();
    KBENCH_CUBLAS_CHECK(cublas::copy(h, n, r, r_hat));
    KBENCH_CUDA_CHECK(cudaMemsetAsync(p, 0, w.p.bytes(), stream));
    KBENCH_CUDA_CHECK(cudaMemsetAsync(v, 0, w.v.bytes(), stream));
    T rr{};
    KBENCH_CUBLAS_CHECK(cublas::dot(h, n, r, r, &rr));  // ||r_0||^2 = rho_0
    T rho = rr, rho_old = 1, alpha = 1, omega = 1;
    LoopState state;
    start(state, static_cast<double>(rr), 0, rule);
    history.assign(1, state.relative);
    begin.record(stream);
    while (state.stop == go_on) {
        int status = 0;
        const T beta = (rho / rho_old) * (alpha / omega);
        phase.begin_iteration();
        // Phase names: models::kernels(BicgstabVariant::reference), Table 1's rows.
        phase("scal p = beta p", "p_update",
              [&] { KBENCH_CUBLAS_CHECK(cublas::scal(h, n, beta, p)); });  // 4
        phase("axpy p += -omega beta v", "p_update",
              [&] { KBENCH_CUBLAS_CHECK(cublas::axpy(h, n, -beta * omega, v, p)); });  // 5
        phase("axpy p += r", "p_update",
              [&] { KBENCH_CUBLAS_CHECK(cublas::axpy(h, n, T{1}, r, p)); });  // 6
        phase("SpMV v = A p", "spmv", [&] { a.apply(T{1}, p, T{0}, v, stream); });  // 7
        T rhat_v{};
        phase("dot r_hat . v (alpha)", "dot",
              [&] { KBENCH_CUBLAS_CHECK(cublas::dot(h, n, r_hat, v, &rhat_v)); });  // 8
        if (rhat_v == T{0}) status = static_cast<int>(DeviceStatus::rhat_v_zero);
        else alpha = rho / rhat_v;
        phase("copy s = r", "s_update", [&] { KBENCH_CUBLAS_CHECK(cublas::copy(h, n, r, s)); });  // 9
        phase("axpy s += -alpha v", "s_update",
              [&] { KBENCH_CUBLAS_CHECK(cublas::axpy(h, n, -alpha, v, s)); });  // 10
        phase("SpMV t = A s", "spmv", [&] { a.apply(T{1}, s, T{0}, t, stream); });  // 11
        T ts{}, tt{};
        phase("dot t . s (omega)", "dot",
              [&] { KBENCH_CUBLAS_CHECK(cublas::dot(h, n, t, s, &ts)); });  // 12
        phase("dot t . t (omega)", "dot",
              [&] { KBENCH_CUBLAS_CHECK(cublas::dot(h, n, t, t, &tt)); });  // 13
        omega = tt != T{0} ? ts / tt : T{0};  // t = 0: s = 0 or breakdown, below
        phase("axpy x += alpha p", "xr_update",
              [&] { KBENCH_CUBLAS_CHECK(cublas::axpy(h, n, alpha, p, x)); });  // 14
        phase("axpy x += omega s", "xr_update",
              [&] { KBENCH_CUBLAS_CHECK(cublas::axpy(h, n, omega, s, x)); });  // 15
        phase("copy r = s", "xr_update", [&] { KBENCH_CUBLAS_CHECK(cublas::copy(h, n, s, r)); });  // 16
        phase("axpy r += -omega t", "xr_update",
              [&] { KBENCH_CUBLAS_CHECK(cublas::axpy(h, n, -omega, t, r)); });  // 17
        T res{};
        phase("nrm2 r (res)", "dot", [&] { KBENCH_CUBLAS_CHECK(cublas::nrm2(h, n, r, &res)); });  // 18
        rr = res * res;
        rho_old = rho;
        phase("dot r_hat . r (rho)", "dot",
              [&] { KBENCH_CUBLAS_CHECK(cublas::dot(h, n, r_hat, r, &rho)); });  // 2, next iteration
        phase.end_iteration();
        const bool r_nonzero = rr != T{0};
        if (status == 0 && !(std::isfinite(static_cast<double>(rho)) &&
                             std::isfinite(static_cast<double>(alpha)) &&
                             std::isfinite(static_cast<double>(omega))))
            status = static_cast<int>(DeviceStatus::non_finite);
        if (status == 0 && omega == T{0} && r_nonzero)
            status = static_cast<int>(DeviceStatus::omega_zero);
        if (status == 0 && rho == T{0} && r_nonzero)
            status = static_cast<int>(DeviceStatus::rho_zero);
        advance(state, static_cast<double>(rr), status, rule, history.data());
        history.push_back(state.relative);
    }
    return state;
}

/// Merged form: one 48-byte state copy to the host per iteration. Precondition: w.host_state
/// holds the state at iteration 0.
template <typename T>
LoopState merged_loop(spmv::SpmvOperator<T>& a, Workspace<T>& w, T* x, const StopRule& rule,
                      cudaStream_t stream, PhaseTimer& phase)
{
    pinned_value<LoopState>& host = w.host_state;
    while ((*host).stop == go_on) {
        phase.begin_iteration();
        merged_iteration(a, w, x, stream, phase);
        phase("stopping test", "check", [&] {
            check_kernel<T, false, false><<<1, 1, 0, stream>>>(w.sc.data(), w.state.data(),
                                                                w.history.data(), rule, 0);
            KBENCH_CUDA_CHECK_LAUNCH();
            KBENCH_CUDA_CHECK(cudaMemcpyAsync(host.get(), w.state.data(), sizeof(LoopState),
                                              cudaMemcpyDeviceToHost, stream));
            KBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
        });
        phase.end_iteration();
    }
    return *host;
}

/// Graph form: the merged iteration and the device-side stopping test as the body of a
/// conditional WHILE node, launched once. Precondition: the state at iteration 0 says go on (the
/// WHILE body runs at least once: the handle's default value is 1).
template <typename T>
void graph_loop(spmv::SpmvOperator<T>& a, Workspace<T>& w, T* x, const StopRule& rule,
                cudaStream_t stream, cuda_event& begin, cuda_event& end)
{
    cuda_graph graph;
    cudaGraphConditionalHandle handle{};
    cudaGraph_t body = add_while_node(graph.get(), handle);  // owned by `graph`
    KBENCH_CUDA_CHECK(cudaStreamBeginCaptureToGraph(stream, body, nullptr, nullptr, 0,
                                                    cudaStreamCaptureModeThreadLocal));
    try {
        PhaseTimer untimed(false, stream);
        merged_iteration(a, w, x, stream, untimed);
        check_kernel<T, false, true><<<1, 1, 0, stream>>>(w.sc.data(), w.state.data(),
                                                           w.history.data(), rule, handle);
        KBENCH_CUDA_CHECK_LAUNCH();
    } catch (...) {
        cudaGraph_t discarded{};
        cudaStreamEndCapture(stream, &discarded);
        throw;
    }
    KBENCH_CUDA_CHECK(cudaStreamEndCapture(stream, &body));
    cuda_graph_exec exec(graph.get());
    begin.record(stream);
    exec.launch(stream);
    end.record(stream);
    KBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
}

}  // namespace

const char* to_string(SolveStatus status)
{
    switch (status) {
    case SolveStatus::converged: return "converged";
    case SolveStatus::max_iterations: return "max_iterations";
    case SolveStatus::breakdown: return "breakdown";
    case SolveStatus::non_finite: return "non_finite";
    case SolveStatus::stagnation: return "stagnation";
    }
    return "unknown";
}

const char* to_string(BicgstabForm form)
{
    switch (form) {
    case BicgstabForm::reference: return "reference";
    case BicgstabForm::merged: return "merged";
    case BicgstabForm::graph: return "graph";
    }
    return "unknown";
}

BicgstabForm parse_bicgstab_form(const std::string& name)
{
    for (auto f : {BicgstabForm::reference, BicgstabForm::merged, BicgstabForm::graph})
        if (name == to_string(f)) return f;
    throw std::invalid_argument("BiCGSTAB form '" + name +
                                "': expected reference, merged or graph");
}

template <typename T>
SolveResult bicgstab(spmv::SpmvOperator<T>& a, const T* b, T* x, const BicgstabOptions& options,
                     cudaStream_t stream)
{
    if (a.num_rows() != a.num_cols())
        throw std::invalid_argument("bicgstab: the matrix is " + std::to_string(a.num_rows()) +
                                    " x " + std::to_string(a.num_cols()) + ", expected square");
    check_stopping_options("bicgstab", options.tolerance, options.max_iterations,
                           options.stagnation_window);
    if (options.detailed && options.form == BicgstabForm::graph)
        throw std::invalid_argument(
            "bicgstab: detailed = true with the graph form: its kernels run inside one graph "
            "launch and cannot be timed one by one; use the merged form (same kernels)");
    const std::int64_t n = a.num_rows();
    nvtxRangePushA("bicgstab");
    const cublasHandle_t blas = thread_cublas(stream);
    Workspace<T> w(n, options.max_iterations);

    StopRule rule;
    const double bnorm = n > 0 ? norm2(blas, n, b) : 0.0;
    rule.inv_bnorm = bnorm > 0.0 ? 1.0 / bnorm : 1.0;
    rule.tolerance = options.tolerance;
    rule.max_iterations = options.max_iterations;
    rule.stagnation = StagnationRule{options.stagnation_window, stagnation_window_fraction,
                                     iteration_stagnation_reduction};
    rule.timing_mode = options.timing_mode;

    SolveResult result;
    result.timing_mode = options.timing_mode;
    residual(a, blas, b, x, w.r.data(), stream);
    cuda_event begin, end;
    PhaseTimer phase(options.detailed, stream);
    LoopState state;
    if (options.form == BicgstabForm::reference) {
        state = reference_loop(a, blas, w, x, rule, result.residual_history, begin,
                               phase);
        end.record(stream);
        end.synchronize();
    } else {
        bicgstab::init(n, w.r.data(), w.r_hat.data(), w.p.data(), w.v.data(), w.sc.data(),
                       w.ws.data(), w.ws.bytes(), stream);
        check_kernel<T, true, false><<<1, 1, 0, stream>>>(w.sc.data(), w.state.data(),
                                                           w.history.data(), rule, 0);
        KBENCH_CUDA_CHECK_LAUNCH();
        if (options.form == BicgstabForm::merged) {
            KBENCH_CUDA_CHECK(cudaMemcpyAsync(w.host_state.get(), w.state.data(),
                                              sizeof(LoopState), cudaMemcpyDeviceToHost, stream));
            KBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
            begin.record(stream);
            state = merged_loop(a, w, x, rule, stream, phase);
            end.record(stream);
            end.synchronize();
        } else {
            KBENCH_CUDA_CHECK(cudaMemcpyAsync(&state, w.state.data(), sizeof(LoopState),
                                              cudaMemcpyDeviceToHost, stream));
            KBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
            if (state.stop == go_on) {
                graph_loop(a, w, x, rule, stream, begin, end);
                KBENCH_CUDA_CHECK(cudaMemcpyAsync(&state, w.state.data(), sizeof(LoopState),
                                                  cudaMemcpyDeviceToHost, stream));
                KBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
            } else {
                begin.record(stream);
                end.record(stream);
                end.synchronize();
            }
        }
        result.residual_history.resize(static_cast<std::size_t>(state.iteration) + 1);
        KBENCH_CUDA_CHECK(cudaMemcpy(result.residual_history.data(), w.history.data(),
                                     result.residual_history.size() * sizeof(double),
                                     cudaMemcpyDeviceToHost));
    }
    result.seconds = end.seconds_since(begin);
    result.phases = phase.take();
    finish(result, state, rule);

    residual(a, blas, b, x, w.r.data(), stream);
    result.true_residual = (n > 0 ? norm2(blas, n, w.r.data()) : 0.0) * rule.inv_bnorm;
    nvtxRangePop();
    return result;
}

template SolveResult bicgstab<float>(spmv::SpmvOperator<float>&, const float*, float*,
                                     const BicgstabOptions&, cudaStream_t);
template SolveResult bicgstab<double>(spmv::SpmvOperator<double>&, const double*, double*,
                                      const BicgstabOptions&, cudaStream_t);

}  // namespace kbench::solvers
