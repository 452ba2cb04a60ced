// Machine profile measurements (see machine.hpp).
#include "harness/core/machine.hpp"

#include "harness/core/timing.hpp"

#include "kernels/base/cuda_handles.hpp"
#include "kernels/base/device.hpp"
#include "kernels/base/device_buffer.hpp"
#include "kernels/dot.hpp"
#include "kernels/idle_kernels.hpp"
#include "kernels/machine_probe.hpp"
#include "kernels/stream.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <chrono>
#include <ostream>
#include <vector>

namespace kbench::harness {
namespace {

template <typename T>
__global__ void fill_kernel(T* a, std::size_t n, T v)
{
    for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
         i += std::size_t{gridDim.x} * blockDim.x) {
        a[i] = v;
    }
}

template <typename T>
void fill(T* a, std::size_t n, T v, cudaStream_t stream)
{
    fill_kernel<T><<<1024, 256, 0, stream>>>(a, n, v);
    KBENCH_CUDA_CHECK_LAUNCH();
}

void bandwidth(MachineProfile& m, const device_info& dev, cudaStream_t stream)
{
    const std::size_t n = std::max<std::size_t>(std::size_t{1} << 28, dev.l2_cache_bytes);
    m.bandwidth_bytes = n * sizeof(double);
    device_buffer<double> a(n), b(n), c(n), sum(1), work(stream::read_workspace_size(n));
    fill(a.data(), n, 1.0, stream);
    fill(b.data(), n, 2.0, stream);
    fill(c.data(), n, 0.0, stream);
    const double bytes = static_cast<double>(m.bandwidth_bytes);
    m.read_gbps = bytes / time_events([&](cudaStream_t s) {
        stream::read_sum(a.data(), n, sum.data(), work.data(), s);
    }, stream) * 1e-9;
    m.copy_gbps = 2 * bytes / time_events([&](cudaStream_t s) {
        stream::copy(a.data(), c.data(), n, s);
    }, stream) * 1e-9;
    m.triad_gbps = 3 * bytes / time_events([&](cudaStream_t s) {
        stream::triad(a.data(), b.data(), c.data(), 3.0, n, s);
    }, stream) * 1e-9;
}

/// Seconds per call of `calls` calls of call(k, stream) (k = 0 .. calls - 1) captured in sequence
/// into a CUDA graph and replayed (CUDA events, time_events): the device-side time per call,
/// without host launches.
template <typename Call>
double graph_seconds_per_call(int calls, Call&& call, cudaStream_t stream)
{
    cuda_graph graph;
    cudaGraph_t captured = graph.get();
    KBENCH_CUDA_CHECK(cudaStreamBeginCaptureToGraph(stream, captured, nullptr, nullptr, 0,
                                                    cudaStreamCaptureModeThreadLocal));
    for (int k = 0; k < calls; ++k) call(k, stream);
    KBENCH_CUDA_CHECK(cudaStreamEndCapture(stream, &captured));
    cuda_graph_exec exec(graph.get());
    return time_events([&](cudaStream_t s) { exec.launch(s); }, stream) / calls;
}

void latencies(MachineProfile& m, cudaStream_t stream)
{
    constexpr int launches = 1000;
    m.launch_latency_us = 1e6 / launches * time_wall([&] {
        for (int i = 0; i < launches; ++i) launch_empty_kernel(stream);
        KBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
    }, 2, 20);
    m.launch_sync_roundtrip_us = 1e6 * time_wall([&] {
        launch_empty_kernel(stream);
        KBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
    }, 100, 1000);
    constexpr std::size_t n = 1024;
    device_buffer<double> a(n), sum(1), work(stream::read_workspace_size(n));
    fill(a.data(), n, 1.0, stream);
    double host = 0.0;
    m.reduction_roundtrip_latency_us = 1e6 * time_wall([&] {
        stream::read_sum(a.data(), n, sum.data(), work.data(), stream);
        KBENCH_CUDA_CHECK(cudaMemcpyAsync(&host, sum.data(), sizeof(double),
                                          cudaMemcpyDeviceToHost, stream));
        KBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
    }, 20, 500);
    // A graph of `nodes` empty kernels in a chain, replayed: the device-side cost of one node,
    // what a captured solver iteration pays per kernel instead of a launch.
    m.graph_node_us = 1e6 * graph_seconds_per_call(
        200, [](int, cudaStream_t s) { launch_empty_kernel(s); }, stream);
}

/// Device time a kernel (or a few in sequence) adds to its bytes over the triad bandwidth: per
/// size n = 2^18 .. 2^21 doubles, a replayed CUDA graph of 64 calls of node(x, n, stream) on
/// `arrays` arrays of n doubles that rotate through a pool of >= 4x the L2 size (so every call
/// streams from DRAM), time per call less arrays * 8n bytes at the triad bandwidth; the median
/// over the sizes, in microseconds, and 0 if that is negative (a kernel faster than triad).
/// Needs m.triad_gbps.
template <typename Node>
double fixed_cost_us(const MachineProfile& m, const device_info& dev, int arrays, Node&& node,
                     cudaStream_t stream)
{
    const std::size_t pool = std::max<std::size_t>(std::size_t{4} * dev.l2_cache_bytes / 8,
                                                   std::size_t{4} << 22);
    device_buffer<double> a(pool);
    fill(a.data(), pool, 1.0, stream);
    std::vector<double> fixed;
    for (std::size_t n = std::size_t{1} << 18; n <= std::size_t{1} << 21; n *= 2) {
        const std::size_t slots = pool / (arrays * n);
        const double per_call = graph_seconds_per_call(64, [&](int k, cudaStream_t s) {
            node(a.data() + (static_cast<std::size_t>(k) % slots) * arrays * n, n, s);
        }, stream);
        fixed.push_back(per_call - arrays * 8.0 * static_cast<double>(n) / (m.triad_gbps * 1e9));
    }
    return std::max(0.0, 1e6 * median(fixed));
}

/// The fixed costs of models/launch_pipeline.hpp: a streaming kernel (stream::triad, the ramp-up
/// and drain of its grid) and kbench's dot product (blas::dot: one launch since issue 30, whose
/// last block sums the partials; it used to be two kernels, the second a one-block sum).
void kernel_fixed_costs(MachineProfile& m, const device_info& dev, cudaStream_t stream)
{
    m.kernel_fixed_us = fixed_cost_us(m, dev, 3, [](double* x, std::size_t n, cudaStream_t s) {
        stream::triad(x, x + n, x + 2 * n, 0.5, n, s);
    }, stream);
    const auto len = static_cast<std::int64_t>(std::size_t{1} << 21);
    // The dots' own workspace (counters zeroed here, outside the capture; each captured dot
    // leaves them zero for the next node and the next replay; nothing else writes it).
    blas::DotWorkspace work(len, 1);
    device_buffer<double> result(1);
    m.reduction_fixed_us = fixed_cost_us(m, dev, 2, [&](double* x, std::size_t n, cudaStream_t s) {
        blas::dot(static_cast<std::int64_t>(n), x, x + n, result.data(), work.data(),
                  work.bytes(), s);
    }, stream);
}

/// `steps` steps of a block-synchronous chain in shared memory, the shape of a step of the
/// sequential SPIKE kernels (a substitution row): each of 32 threads reads the value its
/// neighbour wrote in the previous step, applies an FMA and writes its own into the other
/// buffer, then the block barrier. One block per SM; out[block] keeps the chain alive.
__global__ void block_step_kernel(int steps, double* out)
{
    __shared__ double buf[2][32];
    const int t = static_cast<int>(threadIdx.x);
    buf[0][t] = t;
    __syncthreads();
    int cur = 0;
    for (int s = 0; s < steps; ++s) {
        buf[cur ^ 1][t] = fma(buf[cur][(t + 1) & 31], 0.5, 1.0);
        cur ^= 1;
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = buf[cur][0];
}

/// MachineProfile::block_step_us: (time of 9216 steps - time of 1024 steps) / 8192, CUDA events.
void block_step(MachineProfile& m, const device_info& dev, cudaStream_t stream)
{
    device_buffer<double> out(static_cast<std::size_t>(dev.sm_count));
    const auto run = [&](int steps) {
        return time_events([&](cudaStream_t s) {
            block_step_kernel<<<dev.sm_count, 32, 0, s>>>(steps, out.data());
            KBENCH_CUDA_CHECK_LAUNCH();
        }, stream);
    };
    constexpr int short_steps = 1024, long_steps = short_steps + 8192;
    m.block_step_us = std::max(0.0, 1e6 * (run(long_steps) - run(short_steps)) / 8192.0);
}

/// The body of graph_while's loop: counts *left down and ends the loop when it reaches 0.
__global__ void countdown_kernel(unsigned* left, cudaGraphConditionalHandle handle)
{
    const unsigned l = --*left;
    cudaGraphSetConditional(handle, l > 0 ? 1u : 0u);
}

__global__ void set_kernel(unsigned* left, unsigned value) { *left = value; }

/// MachineProfile::graph_while_iteration_us: a graph of one conditional WHILE node (the CUDA
/// graph form of a solver's loop) whose body is one kernel counting down, launched for 100 and
/// 1100 iterations (CUDA events, medians): (t(1100) - t(100)) / 1000, less graph_node_us (the
/// body's kernel as a node). Needs m.graph_node_us.
void graph_while(MachineProfile& m, cudaStream_t stream)
{
    device_buffer<unsigned> left(1);
    cuda_graph graph;
    cudaGraphConditionalHandle handle{};
    cudaGraph_t body = add_while_node(graph.get(), handle);
    KBENCH_CUDA_CHECK(cudaStreamBeginCaptureToGraph(stream, body, nullptr, nullptr, 0,
                                                    cudaStreamCaptureModeThreadLocal));
    countdown_kernel<<<1, 1, 0, stream>>>(left.data(), handle);
    const cudaError_t launched = cudaGetLastError();
    KBENCH_CUDA_CHECK(cudaStreamEndCapture(stream, &body));
    KBENCH_CUDA_CHECK(launched);
    cuda_graph_exec exec(graph.get());
    const auto run = [&](unsigned iterations) {
        return time_events([&](cudaStream_t s) {
            set_kernel<<<1, 1, 0, s>>>(left.data(), iterations);
            KBENCH_CUDA_CHECK_LAUNCH();
            exec.launch(s);
        }, stream);
    };
    constexpr unsigned few = 100, many = few + 1000;
    m.graph_while_iteration_us =
        std::max(0.0, 1e6 * (run(many) - run(few)) / (many - few) - m.graph_node_us);
}

/// C = A B of n x n column-major matrices with cuBLAS (dgemm / sgemm; FP32 in cuBLAS's default
/// math mode: FP32 arithmetic, no TF32).
cublasStatus_t gemm(cublasHandle_t h, int n, const double* a, const double* b, double* c)
{
    const double one = 1.0, zero = 0.0;
    return cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, b, n, &zero, c, n);
}
cublasStatus_t gemm(cublasHandle_t h, int n, const float* a, const float* b, float* c)
{
    const float one = 1.0f, zero = 0.0f;
    return cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, b, n, &zero, c, n);
}

/// GFLOP/s of cuBLAS gemm in T at n = 8192 (2 n^3 flops over the median time, CUDA events).
template <typename T>
double gemm_gflops(cublasHandle_t handle, cudaStream_t stream)
{
    constexpr int n = 8192;
    const std::size_t nn = std::size_t{n} * n;
    device_buffer<T> a(nn), b(nn), c(nn);
    fill(a.data(), nn, T(1), stream);
    fill(b.data(), nn, T(0.5), stream);
    fill(c.data(), nn, T(0), stream);
    const double seconds = time_events([&](cudaStream_t) {
        KBENCH_CUBLAS_CHECK(gemm(handle, n, a.data(), b.data(), c.data()));
    }, stream, 2, 5);
    return 2.0 * n * static_cast<double>(nn) / seconds * 1e-9;
}

/// The FP64 and FP32 rates of cuBLAS gemm (MachineProfile::dgemm_gflops, sgemm_gflops).
void gemm_rates(MachineProfile& m, cudaStream_t stream)
{
    cublas_handle handle;
    KBENCH_CUBLAS_CHECK(cublasSetStream(handle, stream));
    m.dgemm_gflops = gemm_gflops<double>(handle, stream);
    m.sgemm_gflops = gemm_gflops<float>(handle, stream);
}

}  // namespace

MachineProfile measure_machine(std::ostream* log)
{
    const device_info dev = query_device();
    cuda_stream stream;
    MachineProfile m;
    if (log) fmt::print(*log, "kbench machine: bandwidth (3 arrays of 2^28+ doubles) ...\n");
    bandwidth(m, dev, stream);
    if (log) fmt::print(*log, "kbench machine: launch and reduction latency ...\n");
    latencies(m, stream);
    graph_while(m, stream);
    if (log) fmt::print(*log, "kbench machine: fixed costs of a streaming kernel and a dot ...\n");
    kernel_fixed_costs(m, dev, stream);
    if (log) fmt::print(*log, "kbench machine: block-synchronous step in shared memory ...\n");
    block_step(m, dev, stream);
    if (log) fmt::print(*log, "kbench machine: cuBLAS dgemm and sgemm n = 8192 ...\n");
    gemm_rates(m, stream);
    if (log) fmt::print(*log, "kbench machine: SpMV model figures (L2 bandwidth, load latency) ...\n");
    m.spmv = spmv::measure_machine_figures();
    return m;
}

models::SpmvMachine spmv_figures(const MachineProfile* machine)
{
    if (machine != nullptr && machine->spmv.sm_count > 0) return machine->spmv;
    return spmv::machine_figures();
}

void print_machine_profile(std::ostream& out, const MachineProfile& m)
{
    fmt::print(out, "{:<44} {:>12}\n", "quantity", "value");
    fmt::print(out, "{:<44} {:>12.1f}\n", "read bandwidth, read_sum (GB/s)", m.read_gbps);
    fmt::print(out, "{:<44} {:>12.1f}\n", "copy bandwidth (GB/s)", m.copy_gbps);
    fmt::print(out, "{:<44} {:>12.1f}\n", "triad bandwidth (GB/s)", m.triad_gbps);
    fmt::print(out, "{:<44} {:>12.2f}\n", "launch latency, back-to-back launches (us)",
               m.launch_latency_us);
    fmt::print(out, "{:<44} {:>12.2f}\n", "CUDA graph node, replayed (us)", m.graph_node_us);
    fmt::print(out, "{:<44} {:>12.2f}\n", "CUDA graph WHILE node, per iteration (us)",
               m.graph_while_iteration_us);
    fmt::print(out, "{:<44} {:>12.2f}\n", "streaming kernel, fixed cost (us)", m.kernel_fixed_us);
    fmt::print(out, "{:<44} {:>12.2f}\n", "dot (blas::dot), fixed cost (us)", m.reduction_fixed_us);
    fmt::print(out, "{:<44} {:>12.2f}\n", "launch + stream sync round trip (us)",
               m.launch_sync_roundtrip_us);
    fmt::print(out, "{:<44} {:>12.2f}\n", "reduction + copy to host round trip (us)",
               m.reduction_roundtrip_latency_us);
    fmt::print(out, "{:<44} {:>12.3f}\n", "block step, shared memory + barrier (us)",
               m.block_step_us);
    fmt::print(out, "{:<44} {:>12.1f}\n", "cuBLAS dgemm n=8192 (GFlop/s)", m.dgemm_gflops);
    fmt::print(out, "{:<44} {:>12.1f}\n", "cuBLAS sgemm n=8192 (GFlop/s)", m.sgemm_gflops);
    fmt::print(out, "{:<44} {:>12}\n", "bytes per bandwidth array", m.bandwidth_bytes);
    fmt::print(out, "{:<44} {:>12.1f}\n", "L2 read bandwidth (GB/s)", m.spmv.l2_gbps);
    fmt::print(out, "{:<44} {:>12.1f}\n", "L2 read-modify-write bandwidth (GB/s)",
               m.spmv.l2_rmw_gbps);
    fmt::print(out, "{:<44} {:>12.1f}\n", "random gathers, x of L2/4 (GB/s of sectors)",
               m.spmv.gather_gbps);
    fmt::print(out, "{:<44} {:>12.1f}\n", "random gathers, x of L2/2 (GB/s of sectors)",
               m.spmv.gather_far_gbps);
    fmt::print(out, "{:<44} {:>12.3f}\n", "dependent load latency, DRAM (us)", m.spmv.dram_latency_us);
    fmt::print(out, "{:<44} {:>12.3f}\n", "dependent load latency, L2 (us)", m.spmv.l2_latency_us);
    fmt::print(out, "{:<44} {:>12.2f}\n", "one empty launch, CUDA events (us)", m.spmv.launch_us);
    fmt::print(out, "{:<44} {:>12.3f}\n", "load factor of dependent steps", m.spmv.load_factor);
    fmt::print(out, "{:<44} {:>12.3f}\n", "SELL-P streaming efficiency", m.spmv.sellp_efficiency);
    fmt::print(out, "{:<44} {:>12.3f}\n", "CSR-Adaptive streaming efficiency", m.spmv.csr_efficiency);
}

}  // namespace kbench::harness
