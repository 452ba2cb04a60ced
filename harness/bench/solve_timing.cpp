// Timing of whole GPU solves (declarations in solve_timing.hpp).
#include "harness/bench/solve_timing.hpp"

#include "harness/core/timing.hpp"
#include "kernels/base/cuda_check.hpp"
#include "kernels/base/cuda_handles.hpp"
#include "kernels/base/device_buffer.hpp"
#include "kernels/spmv.hpp"

#include <chrono>
#include <cmath>
#include <stdexcept>
#include <string>

namespace kbench::harness {

std::vector<double> rhs_of_ones(const Csr<double>& a)
{
    std::vector<double> b(static_cast<std::size_t>(a.num_rows));
    const std::vector<double> ones(static_cast<std::size_t>(a.num_cols), 1.0);
    spmv::reference::csr(a.view(), 1.0, ones.data(), 0.0, b.data());
    return b;
}

double relative_residual(const Csr<double>& a, const std::vector<double>& b,
                         const std::vector<double>& x)
{
    std::vector<double> r(b);
    spmv::reference::csr(a.view(), -1.0, x.data(), 1.0, r.data());
    double rr = 0.0, bb = 0.0;
    for (std::size_t i = 0; i < r.size(); ++i) {
        rr += r[i] * r[i];
        bb += b[i] * b[i];
    }
    return bb > 0.0 ? std::sqrt(rr / bb) : std::sqrt(rr);
}

TimedSolve time_gpu_solve(const Csr<double>& a, const std::vector<double>& b, int reps,
                          const GpuSolve& solve)
{
    if (reps < 1)
        throw std::invalid_argument("time_gpu_solve: repetitions = " + std::to_string(reps) +
                                    ", expected >= 1");
    const auto n = static_cast<std::size_t>(a.num_rows);
    if (b.size() != n)
        throw std::invalid_argument("time_gpu_solve: b has " + std::to_string(b.size()) +
                                    " entries, expected " + std::to_string(n));
    cuda_stream stream;
    device_buffer<double> db(b), dx(n);
    TimedSolve t;
    std::vector<double> seconds;
    for (int r = 0; r <= reps; ++r) {
        KBENCH_CUDA_CHECK(cudaMemsetAsync(dx.data(), 0, sizeof(double) * n, stream));
        KBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
        const auto t0 = std::chrono::steady_clock::now();
        t.last = solve(db.data(), dx.data(), stream);
        const double s =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (r > 0) seconds.push_back(s);
    }
    t.seconds = median(seconds);
    t.true_residual = relative_residual(a, b, dx.to_host());
    t.repetitions = reps;
    return t;
}

}  // namespace kbench::harness
