// lowsync_step_coefficients (solvers/gmres_lowsync_step.hpp): LowSyncArnoldi's second_pass,
// finish_column, next_first_pass and the coefficients of DeviceArnoldi::fused_update, on one
// thread block, G staged in shared memory. Thread 0 takes the serial sums (a^T a, a^T b) in index
// order; thread r the row sum (H a)_r of next_first_pass in index order. Every double operation is
// rounded as the host rounds it (__dmul_rn / __dadd_rn: nvcc would otherwise contract a * b + c
// into one FMA).
#include "solvers/gmres_lowsync_step.hpp"

#include "kernels/base/cuda_check.hpp"

namespace kbench::solvers::detail {
namespace {

constexpr int threads = 128;

template <typename T>
__global__ void __launch_bounds__(threads)
    lowsync_step_kernel(int j, int m, bool ahead, const T* __restrict__ G, T* __restrict__ state,
                        int* __restrict__ flag, T* __restrict__ h, T* __restrict__ C)
{
    const int t = static_cast<int>(threadIdx.x);
    const int kv = j + 2;  // rows of G
    const int kc = j + 3;  // rows of C (ahead)
    const int ldh = m + 1;
    T* c = state;
    T* H = state + (m + 1);
    // a = G's column 0 and b = its column 1 (ahead), staged in shared memory: the serial sums
    // below then wait on shared loads, not on one L2 round trip per term.
    extern __shared__ __align__(16) unsigned char s_raw[];
    T* a = reinterpret_cast<T*>(s_raw);
    T* b = a + kv;
    for (int i = t; i < (ahead ? 2 * kv : kv); i += threads) a[i] = G[i];
    __shared__ double s_nu, s_dlast;
    __shared__ bool s_fast;
    __syncthreads();
    if (t == 0) {
        double aa = 0.0;
        for (int i = 0; i <= j; ++i) {
            const double ai = static_cast<double>(a[i]);
            aa = __dadd_rn(aa, __dmul_rn(ai, ai));
        }
        const double uu = static_cast<double>(a[j + 1]);
        const double nu2 = __dadd_rn(uu, -aa);
        const double nu = nu2 > __dmul_rn(0.5, uu) ? sqrt(nu2) : -1.0;
        const bool fast = *flag == 0 && nu > 0.0 && isfinite(nu);
        if (!fast && *flag == 0) *flag = j + 1;
        s_fast = fast;
        s_nu = nu;
        s_dlast = 0.0;
        if (fast && ahead) {
            double ab = 0.0;
            for (int i = 0; i <= j; ++i)
                ab = __dadd_rn(ab, __dmul_rn(static_cast<double>(a[i]), static_cast<double>(b[i])));
            s_dlast = __dadd_rn(static_cast<double>(b[j + 1]), -ab) / nu;
        }
    }
    __syncthreads();
    if (t == 0) h[m + 1] = static_cast<T>(*flag);
    const int rows = ahead ? kc : kv;
    if (!s_fast) {  // the identity on the updated columns
        for (int i = t; i < rows; i += threads) {
            C[i] = T(i == j + 1 ? 1 : 0);
            if (ahead) C[kc + i] = T(i == j + 2 ? 1 : 0);
        }
        return;
    }
    const double nu = s_nu;
    // second_pass and finish_column: h[0..j] = c + a, h[j + 1] = nu; column j of H.
    for (int i = t; i <= j + 1; i += threads) {
        const T v = i <= j ? static_cast<T>(
                                 __dadd_rn(static_cast<double>(c[i]), static_cast<double>(a[i])))
                           : static_cast<T>(nu);
        h[i] = v;
        H[static_cast<long long>(j) * ldh + i] = v;
    }
    __syncthreads();  // column j of H before next_first_pass reads it; c read before it is written
    const double f = 1.0 / nu;
    if (!ahead) {  // u := (u - V_j a) / nu over columns 0..j + 1
        for (int i = t; i <= j + 1; i += threads)
            C[i] = static_cast<T>(i <= j ? __dmul_rn(-f, static_cast<double>(a[i])) : f);
        return;
    }
    // next_first_pass: c_r = (d_r - (H a)_r) / nu, d = b (r <= j) or d_last (r = j + 1).
    const T d_last = static_cast<T>(s_dlast);
    for (int r = t; r <= j + 1; r += threads) {
        double ha = 0.0;
#pragma unroll 8  // independent loads of H's row r in flight; the sum keeps its order
        for (int i = r > 0 ? r - 1 : 0; i <= j; ++i)
            ha = __dadd_rn(ha, __dmul_rn(static_cast<double>(H[static_cast<long long>(i) * ldh + r]),
                                         static_cast<double>(a[i])));
        const double d = r <= j ? static_cast<double>(b[r]) : s_dlast;
        c[r] = static_cast<T>(__dadd_rn(d, -ha) / nu);
    }
    // fused_update's C: v_{j+1} = f (u - V_j a), u_{j+2} = f w - f^2 d' u - V_j (f d - f^2 d' a).
    const double fd = __dmul_rn(__dmul_rn(f, f), static_cast<double>(d_last));
    for (int i = t; i <= j; i += threads) {
        const double ai = static_cast<double>(a[i]), di = static_cast<double>(b[i]);
        C[i] = static_cast<T>(__dmul_rn(-f, ai));
        C[kc + i] = static_cast<T>(__dadd_rn(__dmul_rn(fd, ai), -__dmul_rn(f, di)));
    }
    if (t == 0) {
        C[j + 1] = static_cast<T>(f);
        C[j + 2] = T(0);
        C[kc + j + 1] = static_cast<T>(-fd);
        C[kc + j + 2] = static_cast<T>(f);
    }
}

}  // namespace

template <typename T>
void lowsync_step_coefficients(int j, int m, bool ahead, const T* G, T* state, int* flag, T* h,
                               T* C, cudaStream_t stream)
{
    const std::size_t shared = sizeof(T) * 2 * static_cast<std::size_t>(j + 2);
    lowsync_step_kernel<T><<<1, threads, shared, stream>>>(j, m, ahead, G, state, flag, h, C);
    KBENCH_CUDA_CHECK_LAUNCH();
}

template void lowsync_step_coefficients<float>(int, int, bool, const float*, float*, int*, float*,
                                               float*, cudaStream_t);
template void lowsync_step_coefficients<double>(int, int, bool, const double*, double*, int*,
                                                double*, double*, cudaStream_t);

}  // namespace kbench::solvers::detail
