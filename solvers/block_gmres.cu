// Block GMRES and pseudo-block GMRES on the GPU (declarations in solvers/block_gmres.hpp): the
// iterations of block_gmres_cycle.hpp over a device backend built from the SpMV operator's SpMM,
// ortho::tsqr, kernels/dot.hpp's MDOT and cuBLAS (GEMM for the block CGS2 against the whole
// basis: with ortho::borth, whose W != V Gram kernel takes 256 basis columns per call, BGMRES
// took 26 ms per block step at s = 64, restart 30, n = 103,823 on an H100, about 2 TFlop/s).
#include "solvers/block_gmres.hpp"
#include "solvers/block_gmres_cycle.hpp"

#include "kernels/base/cuda_check.hpp"
#include "kernels/base/nvtx.hpp"
#include "kernels/base/device_buffer.hpp"
#include "kernels/dot.hpp"
#include "kernels/tall_skinny.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace kbench::solvers {
namespace {

cublasStatus_t gemm(cublasHandle_t h, cublasOperation_t ta, int m, int n, int k, double alpha,
                    const double* A, std::int64_t lda, const double* B, int ldb, double beta,
                    double* C, std::int64_t ldc)
{
    return cublasDgemm_64(h, ta, CUBLAS_OP_N, m, n, k, &alpha, A, lda, B, ldb, &beta, C, ldc);
}
cublasStatus_t gemm(cublasHandle_t h, cublasOperation_t ta, int m, int n, int k, float alpha,
                    const float* A, std::int64_t lda, const float* B, int ldb, float beta,
                    float* C, std::int64_t ldc)
{
    return cublasSgemm_64(h, ta, CUBLAS_OP_N, m, n, k, &alpha, A, lda, B, ldb, &beta, C, ldc);
}
/// y_c = alpha op(A_c) x_c + beta y_c for c < batch, A_c = A + c sa (strideA), x_c, y_c strided.
cublasStatus_t gemv_batched(cublasHandle_t h, cublasOperation_t t, std::int64_t rows, int cols,
                            double alpha, const double* A, std::int64_t lda, std::int64_t sa,
                            const double* x, std::int64_t sx, double beta, double* y,
                            std::int64_t sy, int batch)
{
    return cublasDgemvStridedBatched_64(h, t, rows, cols, &alpha, A, lda, sa, x, 1, sx, &beta, y,
                                        1, sy, batch);
}
cublasStatus_t gemv_batched(cublasHandle_t h, cublasOperation_t t, std::int64_t rows, int cols,
                            float alpha, const float* A, std::int64_t lda, std::int64_t sa,
                            const float* x, std::int64_t sx, float beta, float* y,
                            std::int64_t sy, int batch)
{
    return cublasSgemvStridedBatched_64(h, t, rows, cols, &alpha, A, lda, sa, x, 1, sx, &beta, y,
                                        1, sy, batch);
}
cublasStatus_t axpy(cublasHandle_t h, std::int64_t n, double a, const double* x, double* y)
{
    return cublasDaxpy_64(h, n, &a, x, 1, y, 1);
}
cublasStatus_t axpy(cublasHandle_t h, std::int64_t n, float a, const float* x, float* y)
{
    return cublasSaxpy_64(h, n, &a, x, 1, y, 1);
}

/// V(:, c) *= 1 / sqrt(norm2[c]) for the k columns of V (n x k, ld) whose squared norm is
/// positive and finite (the others are left as they are, as the CPU solver does).
template <typename T>
__global__ void scale_by_inverse_norm(std::int64_t n, int k, T* V, std::int64_t ld,
                                      const T* norm2)
{
    const int c = blockIdx.y;
    const T q = norm2[c];
    if (!(q > T(0)) || !(q < std::numeric_limits<T>::infinity())) return;
    const T f = T(1) / sqrt(q);
    T* col = V + static_cast<std::int64_t>(c) * ld;
    for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
         i += std::int64_t(gridDim.x) * blockDim.x)
        col[i] *= f;
}

template <typename T>
struct GpuBackend {
    spmv::SpmvOperator<T>& a;
    const T* b;
    T* x;
    std::int64_t n;
    int s, m;
    ortho::TsqrMethod method;
    ortho::GpuHandles hd;
    device_buffer<T> r, v, scratch, coef;
    device_buffer<unsigned char> ws;  // the TSQRs' (they carve it their own way on every call)
    // The norms' MDOT workspace, apart from ws: tsqr writes all of ws, so the dot's ticket
    // counters (zeroed once here, left zero by every mdot) must not live there.
    blas::DotWorkspace dot_ws;
    std::vector<T> host;
    std::vector<const T*> dot_ptrs;
    detail::PhaseLog log;

    GpuBackend(spmv::SpmvOperator<T>& op, int rhs, const T* B, T* X, int restart,
               ortho::TsqrMethod tsqr, const ortho::GpuHandles& handles)
        : a(op), b(B), x(X), n(op.num_rows()), s(rhs), m(restart), method(tsqr), hd(handles),
          r(static_cast<std::size_t>(n) * rhs),
          v(static_cast<std::size_t>(n) * (restart + 1) * rhs),
          scratch(static_cast<std::size_t>(n) * rhs),
          // the block Hessenberg columns of both CGS passes (2 (m + 1) s x s), Y (m s x s), or
          // the pseudo-block coefficients (2 (m + 1) s) and norms (s)
          coef(static_cast<std::size_t>(restart + 1) * rhs * (2 * rhs + 2) + rhs),
          host(coef.size())
    {
        if (rhs > blas::max_block_columns)
            throw std::invalid_argument("block GMRES on the GPU: s = " + std::to_string(rhs) +
                                        ", expected <= " +
                                        std::to_string(blas::max_block_columns));
        dot_ws = blas::DotWorkspace(n, rhs);
        std::size_t bytes = 0;
        for (int k = 1; k <= rhs; ++k) {  // deflation shrinks the block: every width may come
            bytes = std::max(bytes, ortho::tsqr_workspace_bytes(tsqr, hd, n, k, sizeof(T)));
            if (tsqr != ortho::TsqrMethod::caqr)
                bytes = std::max(bytes, ortho::tsqr_workspace_bytes(ortho::TsqrMethod::caqr, hd,
                                                                    n, k, sizeof(T)));
        }
        ws = device_buffer<unsigned char>(bytes);
    }
    int rhs() const { return s; }
    T* col(const device_buffer<T>& buf, std::int64_t c) const
    {
        return const_cast<T*>(buf.data()) + c * n;
    }
    void copy_d2d(T* dst, const T* src, std::int64_t count)
    {
        KBENCH_CUDA_CHECK(cudaMemcpyAsync(dst, src, sizeof(T) * count, cudaMemcpyDeviceToDevice,
                                          hd.stream));
    }
    void to_host(T* dst, const T* src, std::size_t count)
    {
        KBENCH_CUDA_CHECK(cudaMemcpyAsync(dst, src, sizeof(T) * count, cudaMemcpyDeviceToHost,
                                          hd.stream));
    }
    void sync() { KBENCH_CUDA_CHECK(cudaStreamSynchronize(hd.stream)); }

    /// Squared norms of the k columns of W (ld n) into dst (device), one MDOT.
    void norms2(const T* W, int k, T* dst)
    {
        dot_ptrs.resize(static_cast<std::size_t>(k));
        for (int c = 0; c < k; ++c) dot_ptrs[c] = W + static_cast<std::int64_t>(c) * n;
        blas::mdot(n, k, dot_ptrs.data(), dot_ptrs.data(), dst, dot_ws.data(), dot_ws.bytes(),
                   hd.stream);
    }
    void norms(const T* W, double* out)
    {
        norms2(W, s, coef.data());
        to_host(host.data(), coef.data(), static_cast<std::size_t>(s));
        sync();
        for (int k = 0; k < s; ++k) out[k] = std::sqrt(std::max(0.0, double(host[k])));
    }
    void norms_b(double* out) { norms(b, out); }
    void residual(double* out)
    {
        copy_d2d(r.data(), b, n * s);
        a.apply_block(T(-1), x, n, T(1), r.data(), n, s, hd.stream);
        norms(r.data(), out);
    }

    /// TSQR of W (n x k) in place, R (k x k, ld k) on the host; the options' method, CAQR when
    /// it fails. False when the block lost rank (as block_gmres_cpu.cpp's orthonormalize).
    bool orthonormalize(T* W, int k, T* R)
    {
        copy_d2d(scratch.data(), W, n * k);
        ortho::TsqrOutcome o =
            ortho::tsqr(method, hd, n, k, W, n, R, k, ws.data(), ws.bytes());
        if (o.status != ortho::TsqrStatus::ok && method != ortho::TsqrMethod::caqr) {
            if (log.on) log.add("TSQR fallback (CAQR)", 0.0);
            copy_d2d(W, scratch.data(), n * k);
            o = ortho::tsqr(ortho::TsqrMethod::caqr, hd, n, k, W, n, R, k, ws.data(),
                            ws.bytes());
        }
        if (o.status != ortho::TsqrStatus::ok) return false;
        T largest = T(0);
        for (int i = 0; i < k; ++i) largest = std::max(largest, std::abs(R[i + i * k]));
        const T floor = T(10) * std::numeric_limits<T>::epsilon() * T(k) * largest;
        for (int i = 0; i < k; ++i)
            if (!(std::abs(R[i + i * k]) > floor)) return false;
        return largest > T(0);
    }
    bool block_start(const std::vector<int>& active, T* S)
    {
        const int sa = static_cast<int>(active.size());
        for (int c = 0; c < sa; ++c) copy_d2d(col(v, c), col(r, active[c]), n);
        return orthonormalize(v.data(), sa, S);
    }
    bool block_step(int j, int sa, T* C, T* Rn)
    {
        T* w = col(v, std::int64_t(j + 1) * sa);
        const auto sync_stream = [this] { sync(); };
        log.time("SpMM W = A V_j", sync_stream, [&] {
            a.apply_block(T(1), col(v, std::int64_t(j) * sa), n, T(0), w, n, sa, hd.stream);
        });
        // Block CGS2 against V_0..V_j by cuBLAS GEMM over the whole basis: C1 = V^T W,
        // W -= V C1, C2 = V^T W, W -= V C2 (C = C1 + C2, summed on the host).
        const int basis = (j + 1) * sa;
        const auto ncoef = static_cast<std::size_t>(basis) * sa;
        log.time("block CGS2", sync_stream, [&] {
        for (int pass = 0; pass < 2; ++pass) {
            T* c = coef.data() + pass * ncoef;
            KBENCH_CUBLAS_CHECK(gemm(hd.blas, CUBLAS_OP_T, basis, sa, static_cast<int>(n), T(1),
                                     v.data(), n, w, static_cast<int>(n), T(0), c, basis));
            KBENCH_CUBLAS_CHECK(gemm(hd.blas, CUBLAS_OP_N, static_cast<int>(n), sa, basis, T(-1),
                                     v.data(), n, c, basis, T(1), w, n));
        }
        to_host(host.data(), coef.data(), 2 * ncoef);
        });
        const bool full_rank =  // returns after the copy too
            log.time("TSQR", sync_stream, [&] { return orthonormalize(w, sa, Rn); });
        for (std::size_t i = 0; i < ncoef; ++i) C[i] = host[i] + host[ncoef + i];
        return full_rank;
    }
    void block_update(const std::vector<int>& active, int cols, const std::vector<T>& y)
    {
        const int sa = static_cast<int>(active.size());
        KBENCH_CUDA_CHECK(cudaMemcpyAsync(coef.data(), y.data(), sizeof(T) * y.size(),
                                          cudaMemcpyHostToDevice, hd.stream));
        // D = V(:, 0..cols) Y into scratch, then X(:, active[c]) += D(:, c).
        KBENCH_CUBLAS_CHECK(gemm(hd.blas, CUBLAS_OP_N, static_cast<int>(n), sa, cols, T(1),
                                 v.data(), n, coef.data(), cols, T(0), scratch.data(), n));
        for (int c = 0; c < sa; ++c)
            KBENCH_CUBLAS_CHECK(axpy(hd.blas, n, T(1), col(scratch, c), x + active[c] * n));
        sync();  // y is host memory of the caller
    }

    // Pseudo-block layout: column c of block j of v is v_j of right-hand side c, so the Krylov
    // basis of c is every sa-th column from column c (a strided batch for cuBLAS).
    void pseudo_start(const std::vector<int>& active, const std::vector<double>& inv)
    {
        const int sa = static_cast<int>(active.size());
        for (int c = 0; c < sa; ++c) copy_d2d(col(v, c), col(r, active[c]), n);
        for (int c = 0; c < sa; ++c) host[c] = static_cast<T>(1.0 / (inv[c] * inv[c]));
        KBENCH_CUDA_CHECK(cudaMemcpyAsync(coef.data(), host.data(), sizeof(T) * sa,
                                          cudaMemcpyHostToDevice, hd.stream));
        scale(v.data(), sa, coef.data());
        sync();  // host staging reused next
    }
    void scale(T* W, int k, const T* norm2)
    {
        const dim3 grid(static_cast<unsigned>(std::min<std::int64_t>((n + 255) / 256, 1024)),
                        static_cast<unsigned>(k));
        scale_by_inverse_norm<T><<<grid, 256, 0, hd.stream>>>(n, k, W, n, norm2);
        KBENCH_CUDA_CHECK_LAUNCH();
    }
    void pseudo_step(int j, int sa, T* h)
    {
        const std::int64_t ld = n * sa, stride = m + 1;
        T* w = col(v, std::int64_t(j + 1) * sa);
        const auto sync_stream = [this] { sync(); };
        log.time("SpMM", sync_stream, [&] {
            a.apply_block(T(1), col(v, std::int64_t(j) * sa), n, T(0), w, n, sa, hd.stream);
        });
        T* pass[2] = {coef.data(), coef.data() + stride * sa};
        T* norm2 = coef.data() + 2 * stride * sa;
        log.time("batched CGS2", sync_stream, [&] {
        for (T* p : pass) {  // CGS2, all right-hand sides at once
            KBENCH_CUBLAS_CHECK(gemv_batched(hd.blas, CUBLAS_OP_T, n, j + 1, T(1), v.data(), ld, n,
                                             w, n, T(0), p, stride, sa));
            KBENCH_CUBLAS_CHECK(gemv_batched(hd.blas, CUBLAS_OP_N, n, j + 1, T(-1), v.data(), ld,
                                             n, p, stride, T(1), w, n, sa));
        }
        });
        log.time("norms and scaling", sync_stream, [&] {
            norms2(w, sa, norm2);
            scale(w, sa, norm2);
            to_host(host.data(), coef.data(), static_cast<std::size_t>(2 * stride + 1) * sa);
        });
        sync();
        for (int c = 0; c < sa; ++c) {
            T* hc = h + static_cast<std::size_t>(c) * (j + 2);
            for (int i = 0; i <= j; ++i)
                hc[i] = host[c * stride + i] + host[(sa + c) * stride + i];
            hc[j + 1] = static_cast<T>(std::sqrt(std::max(0.0, double(host[2 * stride * sa + c]))));
        }
    }
    void pseudo_update(const std::vector<int>& active, const std::vector<int>& cols,
                       const std::vector<T>& y)
    {
        const int sa = static_cast<int>(active.size());
        KBENCH_CUDA_CHECK(cudaMemcpyAsync(coef.data(), y.data(), sizeof(T) * y.size(),
                                          cudaMemcpyHostToDevice, hd.stream));
        std::int64_t offset = 0;
        for (int c = 0; c < sa; ++c) {
            if (cols[c] == 0) continue;
            KBENCH_CUBLAS_CHECK(gemv_batched(hd.blas, CUBLAS_OP_N, n, cols[c], T(1), col(v, c),
                                             n * sa, 0, coef.data() + offset, 0, T(1),
                                             x + std::int64_t(active[c]) * n, 0, 1));
            offset += cols[c];
        }
        sync();  // y is host memory of the caller
    }
};

template <typename T>
void check_gpu_input(const char* who, spmv::SpmvOperator<T>& a, int s, const T* B, const T* X,
                     const BlockGmresOptions& o)
{
    detail::check_block_gmres_options(who, a.num_rows(), a.num_cols(), s, o);
    if (B == nullptr || X == nullptr)
        throw std::invalid_argument(std::string(who) + ": B or X is null, expected n x s device "
                                                       "blocks");
}

}  // namespace

template <typename T>
SolveResult block_gmres(spmv::SpmvOperator<T>& a, int s, const T* B, T* X,
                        const BlockGmresOptions& options, const ortho::GpuHandles& handles)
{
    KBENCH_NVTX_RANGE("solvers::block_gmres");
    check_gpu_input("block_gmres", a, s, B, X, options);
    GpuBackend<T> be(a, s, B, X, detail::restart_length(options), options.tsqr, handles);
    return detail::run_block_gmres<T>(be, options);
}

template <typename T>
SolveResult pseudo_block_gmres(spmv::SpmvOperator<T>& a, int s, const T* B, T* X,
                               const BlockGmresOptions& options,
                               const ortho::GpuHandles& handles)
{
    KBENCH_NVTX_RANGE("solvers::pseudo_block_gmres");
    check_gpu_input("pseudo_block_gmres", a, s, B, X, options);
    GpuBackend<T> be(a, s, B, X, detail::restart_length(options), options.tsqr, handles);
    return detail::run_pseudo_block_gmres<T>(be, options);
}

#define KBENCH_INSTANTIATE(T)                                                                   \
    template SolveResult block_gmres<T>(spmv::SpmvOperator<T>&, int, const T*, T*,              \
                                        const BlockGmresOptions&, const ortho::GpuHandles&);    \
    template SolveResult pseudo_block_gmres<T>(spmv::SpmvOperator<T>&, int, const T*, T*,       \
                                               const BlockGmresOptions&,                        \
                                               const ortho::GpuHandles&);
KBENCH_INSTANTIATE(float)
KBENCH_INSTANTIATE(double)
#undef KBENCH_INSTANTIATE

}  // namespace kbench::solvers
