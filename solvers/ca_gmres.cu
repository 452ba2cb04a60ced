// CA-GMRES(s, m) on one GPU (declarations in solvers/ca_gmres.hpp): the matrix powers kernel on
// the shared SpMV operator, and the iteration of ca_gmres_cycle.hpp over a device backend built
// from it, ortho::borth, ortho::tsqr and the kernels of kernels/dot.hpp and tall_skinny.hpp.
#include "solvers/ca_gmres.hpp"
#include "solvers/ca_gmres_cycle.hpp"

#include "kernels/base/cuda_check.hpp"
#include "kernels/base/nvtx.hpp"
#include "kernels/base/cuda_handles.hpp"
#include "kernels/base/device_buffer.hpp"
#include "kernels/dot.hpp"
#include "kernels/tall_skinny.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace kbench::solvers {
namespace {

constexpr int block_size = 256;
constexpr int max_grid = 2048;
/// ortho::borth takes at most this many basis columns per call.
constexpr int borth_chunk = 4 * blas::max_block_columns;
constexpr int chunk = blas::max_block_columns;  // columns per gemm_rowwise call

unsigned grid_for(std::int64_t n)
{
    return static_cast<unsigned>(std::max<std::int64_t>(
        1, std::min<std::int64_t>((n + block_size - 1) / block_size, max_grid)));
}

/// mpk_scale on the device: sqrt(q) for q positive and finite, else 1.
template <typename T>
__device__ T device_scale(T q)
{
    return q > T(0) && q < std::numeric_limits<T>::infinity() ? sqrt(q) : T(1);
}

/// y := y - alpha w + (b2 / sigma_t) w_prev, sigma_t = device_scale(*norm2_t) (1 when norm2_t
/// is null); w_prev is not read when null.
template <typename T>
__global__ void __launch_bounds__(block_size)
    mpk_combine(std::int64_t n, T* __restrict__ y, const T* __restrict__ w,
                const T* __restrict__ w_prev, T alpha, T b2, const T* __restrict__ norm2_t)
{
    const T coupling =
        w_prev == nullptr ? T(0) : (norm2_t == nullptr ? b2 : b2 / device_scale(*norm2_t));
    for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
         i += std::int64_t(gridDim.x) * blockDim.x) {
        T v = y[i] - alpha * w[i];
        if (w_prev != nullptr) v += coupling * w_prev[i];
        y[i] = v;
    }
}

/// y *= 1 / sqrt(*norm2) when *norm2 is positive and finite (else y is left as it is).
template <typename T>
__global__ void __launch_bounds__(block_size)
    scale_by_norm(std::int64_t n, T* __restrict__ y, const T* __restrict__ norm2)
{
    const T q = *norm2;
    if (!(q > T(0)) || !(q < std::numeric_limits<T>::infinity())) return;
    const T f = T(1) / sqrt(q);
    for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
         i += std::int64_t(gridDim.x) * blockDim.x)
        y[i] *= f;
}

[[noreturn]] void invalid(const std::string& who, const std::string& what)
{
    throw std::invalid_argument(who + ": " + what);
}

/// The GPU backend of detail::run_ca_gmres (see ca_gmres_cycle.hpp). kmax: the most columns
/// one BOrth or TSQR call takes (s; two_stage: also the panel's columns). Device layout: the
/// basis Q (n x (m + 1), ld n); the fallback copy of a block or panel (n x kmax); coef: the
/// BOrth coefficients C ((j + 1) x k, ld j + 1) or stage 1's fused product ((j + 1 + k) x k,
/// ld j + 1 + k) at 0 (cregion values), the MPK's squared norms (kmax + 1) at cregion, then y
/// or the block's column norms (m), then one scalar; stage 1's R (s x s). Pinned host staging
/// for the coefficients and the norms. Three workspaces: `dots`, the dot kernels' own (the norms,
/// the block's finiteness check and the MPK's dots; ticket counters zeroed once by
/// blas::DotWorkspace, left zero by every call, written by nothing else); `grams`, blas::gram's
/// own for the two-stage projection (project; its ticket counters likewise zeroed once by
/// blas::GramWorkspace, left zero by every gram, written by nothing else; empty unless
/// two_stage); and `ws` for borth and tsqr, which carve and overwrite all of it on every call
/// (each zeroes the ticket counters of the dot or gram piece it carves before using it).
template <typename T>
struct GpuBackend {
    spmv::SpmvOperator<T>& a;
    const T* b;
    T* x;
    std::int64_t n;
    int m, s, kmax;
    std::size_t cregion;
    ortho::BorthMethod borth_method;
    bool normalize;
    ortho::GpuHandles hd;
    device_buffer<T> v, saved, coef, rdev;
    blas::DotWorkspace dots;
    blas::GramWorkspace grams;
    device_buffer<unsigned char> ws;
    pinned_array<T> staged;
    std::vector<T> host;
    std::vector<const T*> ptrs;
    detail::PhaseLog log;

    GpuBackend(spmv::SpmvOperator<T>& op, const T* b_, T* x_, int restart,
               const CaGmresOptions& o, const ortho::GpuHandles& handles)
        : a(op), b(b_), x(x_), n(op.num_rows()), m(restart), s(std::min(o.s, restart)),
          kmax(o.borth == CaBorth::two_stage ? std::max(s, detail::panel_limit(o, restart)) : s),
          cregion(std::max(static_cast<std::size_t>(restart + 1) * kmax,
                           static_cast<std::size_t>(restart + 1 + s) * s)),
          borth_method(o.borth_passes == 2 ? ortho::BorthMethod::cgs2 : ortho::BorthMethod::cgs),
          normalize(o.normalize_basis), hd(handles),
          v(static_cast<std::size_t>(n) * (restart + 1)),
          saved(static_cast<std::size_t>(n) * kmax),
          coef(cregion + kmax + 1 + restart + 1), rdev(static_cast<std::size_t>(s) * s),
          dots(n, kmax),
          grams(n, o.borth == CaBorth::two_stage ? std::min(restart + 1, chunk) : 0, s,
                static_cast<int>(sizeof(T))),
          staged(cregion + kmax + 1), host(static_cast<std::size_t>(restart) + 1)
    {
        std::size_t bytes = ortho::borth_workspace_bytes(
            borth_method, n, std::min(restart, borth_chunk), kmax, sizeof(T));
        for (int k = 1; k <= kmax; ++k)
            for (const ortho::TsqrMethod method : {o.tsqr, o.fallback_tsqr})
                bytes = std::max(bytes, ortho::tsqr_workspace_bytes(method, hd, n, k, sizeof(T)));
        // borth and tsqr reject a null workspace even when they need none: keep one allocation.
        ws = device_buffer<unsigned char>(std::max<std::size_t>(bytes, 256));
    }

    std::int64_t rows() const { return n; }
    T* col(int j) { return v.data() + static_cast<std::int64_t>(j) * n; }
    T* norm2() { return coef.data() + cregion; }
    T* tail() { return norm2() + kmax + 1; }  // m values: y, or a block's column norms
    T* scalar() { return tail() + m; }
    void sync() { KBENCH_CUDA_CHECK(cudaStreamSynchronize(hd.stream)); }
    void d2d(T* dst, const T* src, std::int64_t count)
    {
        KBENCH_CUDA_CHECK(cudaMemcpyAsync(dst, src, sizeof(T) * count, cudaMemcpyDeviceToDevice,
                                          hd.stream));
    }
    void d2h(T* dst, const T* src, std::size_t count)
    {
        KBENCH_CUDA_CHECK(cudaMemcpyAsync(dst, src, sizeof(T) * count, cudaMemcpyDeviceToHost,
                                          hd.stream));
    }

    double norm_of(const T* w)
    {
        blas::dot(n, w, w, scalar(), dots.data(), dots.bytes(), hd.stream);
        d2h(host.data(), scalar(), 1);
        sync();
        return std::sqrt(std::max(0.0, static_cast<double>(host[0])));
    }
    double norm_b() { return norm_of(b); }
    double residual()
    {
        d2d(col(0), b, n);
        a.apply(T(-1), x, T(1), col(0), hd.stream);
        return norm_of(col(0));
    }
    void scale_first(double inv)
    {
        blas::gemm_rowwise<T>(n, 0, 1, T(0), nullptr, n, nullptr, 1, static_cast<T>(inv), col(0),
                              n, hd.stream);
    }
    void mpk(int j, int k, const std::vector<MpkStep>& steps)
    {
        matrix_powers(a, steps, k, normalize, col(j), n, norm2(), dots.data(), dots.bytes(),
                      hd.stream);
    }
    void borth(int j, int k)
    {
        for (int c0 = 0; c0 <= j; c0 += borth_chunk) {
            const int kc = std::min(borth_chunk, j + 1 - c0);
            ortho::borth(borth_method, hd, n, kc, col(c0), n, k, col(j + 1), n, coef.data() + c0,
                         j + 1, ws.data(), ws.bytes());
        }
        // Start the coefficients' way to the host; the TSQR's synchronization completes it.
        d2h(staged.data(), coef.data(), static_cast<std::size_t>(j + 1) * k);
        d2h(staged.data() + cregion, norm2(), static_cast<std::size_t>(k) + 1);
    }
    void project(int j, int k)
    {
        const int kv = j + 1 + k;
        detail::block_products(n, kv, col(0), n, k, col(j + 1), n, coef.data(), kv, grams.data(),
                               grams.bytes(), hd.stream);
        d2h(staged.data(), coef.data(), static_cast<std::size_t>(kv) * k);
        d2h(staged.data() + cregion, norm2(), static_cast<std::size_t>(k) + 1);
    }
    void fetch_projection(int j, int k, T* G, T* n2)
    {
        sync();
        std::memcpy(G, staged.data(), sizeof(T) * static_cast<std::size_t>(j + 1 + k) * k);
        std::memcpy(n2, staged.data() + cregion, sizeof(T) * (static_cast<std::size_t>(k) + 1));
    }
    void stage1(int j, int k, const T* R)
    {
        detail::block_subtract(n, j + 1, col(0), n, k, coef.data(), j + 1 + k, col(j + 1), n,
                               hd.stream);
        if (R == nullptr) return;
        KBENCH_CUDA_CHECK(cudaMemcpyAsync(rdev.data(), R, sizeof(T) * k * k,
                                          cudaMemcpyHostToDevice, hd.stream));
        blas::trsm_right_upper<T>(n, k, col(j + 1), n, rdev.data(), k, hd.stream);
    }
    void save(int j, int k) { d2d(saved.data(), col(j + 1), n * k); }
    void restore(int j, int k) { d2d(col(j + 1), saved.data(), n * k); }
    ortho::TsqrOutcome tsqr(ortho::TsqrMethod method, int j, int k, T* R)
    {
        return ortho::tsqr(method, hd, n, k, col(j + 1), n, R, k, ws.data(), ws.bytes());
    }
    void fetch(int j, int k, T* C, T* n2)
    {
        sync();
        std::memcpy(C, staged.data(), sizeof(T) * static_cast<std::size_t>(j + 1) * k);
        std::memcpy(n2, staged.data() + cregion, sizeof(T) * (static_cast<std::size_t>(k) + 1));
    }
    bool block_finite(int j, int k)
    {
        ptrs.resize(static_cast<std::size_t>(k));
        for (int c = 0; c < k; ++c) ptrs[c] = col(j + 1 + c);
        blas::mdot(n, k, ptrs.data(), ptrs.data(), tail(), dots.data(), dots.bytes(), hd.stream);
        d2h(host.data(), tail(), static_cast<std::size_t>(k));
        sync();
        for (int c = 0; c < k; ++c)
            if (!std::isfinite(static_cast<double>(host[c]))) return false;
        return true;
    }
    ortho::TsqrQuality quality(int j, int k, const T* R)
    {
        std::vector<T> before(static_cast<std::size_t>(n) * k), q(before.size());
        d2h(before.data(), saved.data(), before.size());
        d2h(q.data(), col(j + 1), q.size());
        sync();
        return ortho::tsqr_quality<T>(n, k, before.data(), n, q.data(), n, R, k);
    }
    void update(const std::vector<T>& y)
    {
        const int k = static_cast<int>(y.size());
        KBENCH_CUDA_CHECK(cudaMemcpyAsync(tail(), y.data(), sizeof(T) * k,
                                          cudaMemcpyHostToDevice, hd.stream));
        detail::basis_update(n, k, col(0), n, tail(), x, hd.stream);
        sync();  // y is host memory of the caller
    }
    void basis(int cols, std::vector<T>& out)
    {
        out.resize(static_cast<std::size_t>(n) * (cols + 1));
        d2h(out.data(), v.data(), out.size());
        sync();
    }
};

template <typename T>
CaGmresResult run_gpu(spmv::SpmvOperator<T>& a, const T* b, T* x, const CaGmresOptions& o,
                      const ortho::GpuHandles& handles, const detail::CaCycleObserver<T>* observer)
{
    KBENCH_NVTX_RANGE("solvers::ca_gmres");
    detail::check_ca_gmres_options("ca_gmres", a.num_rows(), a.num_cols(), o);
    if (b == nullptr || x == nullptr)
        invalid("ca_gmres", std::string{b == nullptr ? "b" : "x"} +
                                " is null, expected a device vector of n entries");
    if (handles.blas == nullptr || handles.solver == nullptr)
        invalid("ca_gmres", std::string{"handles."} +
                                (handles.blas == nullptr ? "blas" : "solver") +
                                " is null, expected handles bound to handles.stream");
    GpuBackend<T> be(a, b, x, detail::restart_length(o), o, handles);
    return detail::run_ca_gmres<T>(be, o, observer);
}

}  // namespace

std::size_t matrix_powers_workspace_bytes(std::int64_t n)
{
    return blas::dot_workspace_bytes(n, 1);
}

template <typename T>
void matrix_powers(spmv::SpmvOperator<T>& a, const std::vector<MpkStep>& steps, int k,
                   bool normalize, T* V, std::int64_t ld, T* norm2, void* workspace,
                   std::size_t workspace_bytes, cudaStream_t stream)
{
    const std::string who = "kbench::solvers::matrix_powers";
    const std::int64_t n = a.num_rows();
    if (a.num_cols() != n)
        invalid(who, "the operator is " + std::to_string(n) + " x " +
                         std::to_string(a.num_cols()) + ", expected square");
    if (k < 1) invalid(who, "k = " + std::to_string(k) + ", expected >= 1");
    if (steps.size() < static_cast<std::size_t>(k))
        invalid(who, "steps has " + std::to_string(steps.size()) + " entries, expected >= k = " +
                         std::to_string(k));
    if (steps[0].b2 != 0.0)
        invalid(who, "steps[0].b2 = " + std::to_string(steps[0].b2) + ", expected 0");
    if (ld < n) invalid(who, "ld = " + std::to_string(ld) + ", expected >= n");
    if (V == nullptr || (normalize && norm2 == nullptr))
        invalid(who, std::string{V == nullptr ? "V" : "norm2"} +
                         " is null, expected a device array");
    const std::size_t needed = matrix_powers_workspace_bytes(n);
    if (normalize && needed > 0 && (workspace == nullptr || workspace_bytes < needed))
        invalid(who, "workspace of " + std::to_string(workspace_bytes) + " bytes, expected >= " +
                         std::to_string(needed) + " (matrix_powers_workspace_bytes)");
    const unsigned grid = grid_for(n);
    for (int t = 0; t < k; ++t) {
        T* w = V + t * ld;
        T* y = w + ld;
        a.apply(T(1), w, T(0), y, stream);
        const MpkStep& st = steps[static_cast<std::size_t>(t)];
        if (st.alpha != 0.0 || st.b2 != 0.0) {
            const T* prev = st.b2 != 0.0 ? w - ld : nullptr;
            mpk_combine<T><<<grid, block_size, 0, stream>>>(
                n, y, w, prev, static_cast<T>(st.alpha), static_cast<T>(st.b2),
                normalize ? norm2 + t : nullptr);
            KBENCH_CUDA_CHECK_LAUNCH();
        }
        if (normalize) {
            blas::dot(n, y, y, norm2 + t + 1, workspace, workspace_bytes, stream);
            scale_by_norm<T><<<grid, block_size, 0, stream>>>(n, y, norm2 + t + 1);
            KBENCH_CUDA_CHECK_LAUNCH();
        }
    }
}

template <typename T>
CaGmresResult ca_gmres(spmv::SpmvOperator<T>& a, const T* b, T* x,
                       const CaGmresOptions& options, const ortho::GpuHandles& handles)
{
    return run_gpu<T>(a, b, x, options, handles, nullptr);
}

template <typename T>
CaGmresResult ca_gmres(spmv::SpmvOperator<T>& a, const T* b, T* x,
                       const CaGmresOptions& options, cudaStream_t stream)
{
    detail::check_ca_gmres_options("ca_gmres", a.num_rows(), a.num_cols(), options);
    const cublasHandle_t blas = thread_cublas(stream);
    cusolver_handle solver;
    KBENCH_CUSOLVER_CHECK(cusolverDnSetStream(solver, stream));
    return run_gpu<T>(a, b, x, options, ortho::GpuHandles{stream, blas, solver}, nullptr);
}

namespace detail {
template <typename T>
CaGmresResult ca_gmres_observed(spmv::SpmvOperator<T>& a, const T* b, T* x,
                                const CaGmresOptions& options, const ortho::GpuHandles& handles,
                                const CaCycleObserver<T>& observer)
{
    return run_gpu<T>(a, b, x, options, handles, &observer);
}
}  // namespace detail

#define KBENCH_INSTANTIATE(T)                                                                    \
    template void matrix_powers<T>(spmv::SpmvOperator<T>&, const std::vector<MpkStep>&, int,     \
                                   bool, T*, std::int64_t, T*, void*, std::size_t,               \
                                   cudaStream_t);                                                \
    template CaGmresResult ca_gmres<T>(spmv::SpmvOperator<T>&, const T*, T*,                     \
                                       const CaGmresOptions&, const ortho::GpuHandles&);         \
    template CaGmresResult ca_gmres<T>(spmv::SpmvOperator<T>&, const T*, T*,                     \
                                       const CaGmresOptions&, cudaStream_t);                     \
    template CaGmresResult detail::ca_gmres_observed<T>(                                         \
        spmv::SpmvOperator<T>&, const T*, T*, const CaGmresOptions&, const ortho::GpuHandles&,   \
        const detail::CaCycleObserver<T>&);
KBENCH_INSTANTIATE(float)
KBENCH_INSTANTIATE(double)
#undef KBENCH_INSTANTIATE

}  // namespace kbench::solvers
