// GMRES(m) on the GPU (declaration in solvers/gmres.hpp): the shared iteration of
// gmres_cycle.hpp over a device backend built from the SpMV operator and the device Arnoldi
// steps of gmres_device.hpp (kernels of kernels/dot.hpp and kernels/tall_skinny.hpp).
#include "solvers/gmres.hpp"
#include "solvers/gmres_cycle.hpp"
#include "solvers/gmres_device.hpp"

#include "kernels/base/cuda_check.hpp"
#include "kernels/base/nvtx.hpp"

#include <cstdint>
#include <vector>

namespace kbench::solvers {
namespace {

/// The GPU backend of detail::run_gmres: the SpMV operator, b and x (device, n entries), and the
/// basis with its Gram-Schmidt steps (detail::DeviceArnoldi, ld n, nothing to reduce).
template <typename T>
struct GpuBackend {
    static constexpr bool one_reduce_arnoldi = true;  // implements ArnoldiOrth::cgs2_lowsync

    spmv::SpmvOperator<T>& a;
    const T* b;
    T* x;
    std::int64_t n;
    cudaStream_t stream;
    ArnoldiOrth orth;
    detail::DeviceArnoldi<T> basis;

    GpuBackend(spmv::SpmvOperator<T>& op, const T* b_, T* x_, int restart, ArnoldiOrth o,
               cudaStream_t s)
        : a(op), b(b_), x(x_), n(op.num_rows()), stream(s), orth(o), basis(n, n, restart, o, s)
    {
    }

    double norm_b() { return basis.norm(b, detail::NoReduce{}); }
    double residual()
    {
        KBENCH_CUDA_CHECK(cudaMemcpyAsync(basis.col(0), b, sizeof(T) * n,
                                          cudaMemcpyDeviceToDevice, stream));
        a.apply(T(-1), x, T(1), basis.col(0), stream);
        return basis.norm(basis.col(0), detail::NoReduce{});
    }
    void scale_first(double inv) { basis.scale(basis.col(0), inv); }
    void arnoldi(int j, std::vector<T>& h)
    {
        if (orth == ArnoldiOrth::cgs2_lowsync) {
            basis.orthogonalize_lowsync(
                j, h, [this](const T* v, T* w) { a.apply(T(1), v, T(0), w, stream); },
                detail::NoReduce{});
            return;
        }
        a.apply(T(1), basis.col(j), T(0), basis.col(j + 1), stream);
        basis.orthogonalize(j, h, detail::NoReduce{});
    }
    void update(const std::vector<T>& y) { basis.update(y, x); }
};

}  // namespace

template <typename T>
SolveResult gmres(spmv::SpmvOperator<T>& a, const T* b, T* x, const GmresOptions& options,
                  cudaStream_t stream)
{
    KBENCH_NVTX_RANGE("solvers::gmres");
    detail::check_gmres_options("gmres", a.num_rows(), a.num_cols(), options);
    GpuBackend<T> be(a, b, x, detail::restart_length(options), options.orth, stream);
    return detail::run_gmres<T>(be, options);
}

namespace detail {
template <typename T>
SolveResult gmres_observed(spmv::SpmvOperator<T>& a, const T* b, T* x, const GmresOptions& options,
                           cudaStream_t stream, const GmresCycleObserver<T>& observer)
{
    KBENCH_NVTX_RANGE("solvers::gmres");
    check_gmres_options("gmres", a.num_rows(), a.num_cols(), options);
    GpuBackend<T> be(a, b, x, restart_length(options), options.orth, stream);
    std::vector<T> v;
    return run_gmres<T>(be, options, [&](GpuBackend<T>& g, int cycle, int cols) {
        v.resize(static_cast<std::size_t>(g.n) * (cols + 1));
        KBENCH_CUDA_CHECK(cudaMemcpyAsync(v.data(), g.basis.col(0), sizeof(T) * v.size(),
                                          cudaMemcpyDeviceToHost, g.stream));
        KBENCH_CUDA_CHECK(cudaStreamSynchronize(g.stream));
        observer(GmresCycleSnapshot<T>{cycle, cols, g.n, v.data()});
    });
}
}  // namespace detail

#define KBENCH_INSTANTIATE(T)                                                                    \
    template SolveResult gmres<T>(spmv::SpmvOperator<T>&, const T*, T*, const GmresOptions&,     \
                                  cudaStream_t);                                                 \
    template SolveResult detail::gmres_observed<T>(spmv::SpmvOperator<T>&, const T*, T*,         \
                                                   const GmresOptions&, cudaStream_t,            \
                                                   const detail::GmresCycleObserver<T>&);
KBENCH_INSTANTIATE(float)
KBENCH_INSTANTIATE(double)
#undef KBENCH_INSTANTIATE

}  // namespace kbench::solvers
