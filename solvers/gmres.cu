// GMRES(m) on the GPU (declaration in solvers/gmres.hpp): the shared iteration of
// gmres_cycle.hpp over a device backend built from the SpMV operator and the kernels of
// kernels/dot.hpp and kernels/tall_skinny.hpp.
#include "solvers/gmres.hpp"
#include "solvers/gmres_cycle.hpp"

#include "kernels/base/cuda_check.hpp"
#include "kernels/base/device_buffer.hpp"
#include "kernels/dot.hpp"
#include "kernels/tall_skinny.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace kbench::solvers {
namespace {

constexpr int chunk = blas::max_block_columns;  // columns per mdgm / gemm_rowwise call

/// The GPU backend of detail::run_gmres. Device layout: the basis V (n x (m + 1), ld n); the
/// coefficient array c: c[0..m] the first Gram-Schmidt pass (or MGS's coefficients), c[m + 1
/// .. 2m + 1] the second, c[2m + 2] = w . w; y (m entries) for the update of x.
template <typename T>
struct GpuBackend {
    spmv::SpmvOperator<T>& a;
    const T* b;
    T* x;
    std::int64_t n;
    int m;
    ArnoldiOrth orth;
    cudaStream_t stream;
    device_buffer<T> v;
    device_buffer<T> c;
    device_buffer<unsigned char> ws;
    std::vector<T> host;  // copy of c

    GpuBackend(spmv::SpmvOperator<T>& op, const T* b_, T* x_, int restart, ArnoldiOrth o,
               cudaStream_t s)
        : a(op), b(b_), x(x_), n(op.num_rows()), m(restart), orth(o), stream(s),
          v(static_cast<std::size_t>(n) * (restart + 1)), c(2 * restart + 3),
          ws(blas::dot_workspace_bytes(n, std::min(restart + 1, chunk))),
          host(2 * static_cast<std::size_t>(restart) + 3)
    {
    }

    T* col(int j) { return v.data() + static_cast<std::int64_t>(j) * n; }
    T* norm2() { return c.data() + 2 * m + 2; }

    /// Copies c[first .. first + count) and c[2m + 2] to the host (one synchronization).
    void fetch(int first, int count)
    {
        if (count > 0)
            KBENCH_CUDA_CHECK(cudaMemcpyAsync(host.data() + first, c.data() + first,
                                              sizeof(T) * count, cudaMemcpyDeviceToHost, stream));
        KBENCH_CUDA_CHECK(cudaMemcpyAsync(host.data() + 2 * m + 2, norm2(), sizeof(T),
                                          cudaMemcpyDeviceToHost, stream));
        KBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
    }
    double fetch_norm()
    {
        fetch(0, 0);
        return std::sqrt(std::max(0.0, static_cast<double>(host[2 * m + 2])));
    }
    void dot_self(const T* w) { blas::dot(n, w, w, norm2(), ws.data(), ws.bytes(), stream); }

    double norm_b()
    {
        dot_self(b);
        return fetch_norm();
    }
    double residual()
    {
        KBENCH_CUDA_CHECK(cudaMemcpyAsync(col(0), b, sizeof(T) * n, cudaMemcpyDeviceToDevice,
                                          stream));
        a.apply(T(-1), x, T(1), col(0), stream);
        dot_self(col(0));
        return fetch_norm();
    }
    void scale(T* w, double factor)
    {
        blas::gemm_rowwise<T>(n, 0, 1, T(0), nullptr, n, nullptr, 1, static_cast<T>(factor), w,
                              n, stream);
    }
    void scale_first(double inv) { scale(col(0), inv); }

    /// One Gram-Schmidt pass of w against v_0..v_j: h = V^T w into c + offset, w -= V h.
    void cgs_pass(int j, T* w, int offset)
    {
        for (int c0 = 0; c0 <= j; c0 += chunk) {
            const int k = std::min(chunk, j + 1 - c0);
            blas::mdgm(n, k, col(c0), n, w, c.data() + offset + c0, ws.data(), ws.bytes(),
                       stream);
        }
        for (int c0 = 0; c0 <= j; c0 += chunk) {
            const int k = std::min(chunk, j + 1 - c0);
            blas::gemm_rowwise<T>(n, k, 1, T(-1), col(c0), n, c.data() + offset + c0, k, T(1),
                                  w, n, stream);
        }
    }
    void arnoldi(int j, std::vector<T>& h)
    {
        T* w = col(j + 1);
        a.apply(T(1), col(j), T(0), w, stream);
        if (orth == ArnoldiOrth::cgs2) {
            cgs_pass(j, w, 0);
            cgs_pass(j, w, m + 1);
            dot_self(w);
            fetch(0, 2 * m + 2);
            for (int i = 0; i <= j; ++i) h[i] = host[i] + host[m + 1 + i];
        } else {
            for (int i = 0; i <= j; ++i) {
                blas::dot(n, col(i), w, c.data() + i, ws.data(), ws.bytes(), stream);
                blas::gemm_rowwise<T>(n, 1, 1, T(-1), col(i), n, c.data() + i, 1, T(1), w, n,
                                      stream);
            }
            dot_self(w);
            fetch(0, j + 1);
            for (int i = 0; i <= j; ++i) h[i] = host[i];
        }
        const double norm = std::sqrt(std::max(0.0, static_cast<double>(host[2 * m + 2])));
        h[j + 1] = static_cast<T>(norm);
        if (norm > 0.0 && std::isfinite(norm)) scale(w, 1.0 / norm);
    }
    void update(const std::vector<T>& y)
    {
        const int k = static_cast<int>(y.size());
        KBENCH_CUDA_CHECK(cudaMemcpyAsync(c.data(), y.data(), sizeof(T) * k,
                                          cudaMemcpyHostToDevice, stream));
        for (int c0 = 0; c0 < k; c0 += chunk) {
            const int kk = std::min(chunk, k - c0);
            blas::gemm_rowwise<T>(n, kk, 1, T(1), col(c0), n, c.data() + c0, kk, T(1), x, n,
                                  stream);
        }
        // y lives on the host until the copy ran: wait before run_gmres frees it.
        KBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
    }
};

}  // namespace

template <typename T>
SolveResult gmres(spmv::SpmvOperator<T>& a, const T* b, T* x, const GmresOptions& options,
                  cudaStream_t stream)
{
    detail::check_gmres_options("gmres", a.num_rows(), a.num_cols(), options);
    GpuBackend<T> be(a, b, x, detail::restart_length(options), options.orth, stream);
    return detail::run_gmres<T>(be, options);
}

template SolveResult gmres<float>(spmv::SpmvOperator<float>&, const float*, float*,
                                  const GmresOptions&, cudaStream_t);
template SolveResult gmres<double>(spmv::SpmvOperator<double>&, const double*, double*,
                                   const GmresOptions&, cudaStream_t);

}  // namespace kbench::solvers
