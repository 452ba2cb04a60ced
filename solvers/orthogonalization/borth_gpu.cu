// GPU block orthogonalization BOrth (yamazaki2014 Sec. V-A); declarations in tsqr_gpu.hpp.
//
// Device workspace, in this order (256-byte aligned pieces): the second pass's coefficients
// (kq x kv, cgs2 only), the MGS row (kv), blas::gram's workspace (cgs, cgs2) or blas::mdgm's
// (mgs). Both kernels keep ticket counters at the start of their piece that must be zero when
// they run (kernels/dot.hpp, kernels/tall_skinny.hpp) and that each of their calls leaves zero.
// The caller lends the workspace to other kernels between calls (CA-GMRES: tsqr, whose pieces
// fall elsewhere and whose cuSOLVER buffers overwrite anything), so every call zeroes the
// counters of its reduce piece first (blas::dot_workspace_init for mgs, blas::gram_workspace_init
// for cgs and cgs2: one memset on the stream, none when the piece is empty); its own mdgm or
// gram calls, chunk after chunk and pass after pass, then find them zero.
#include "solvers/orthogonalization/tsqr_gpu.hpp"

#include "kernels/base/cuda_check.hpp"
#include "kernels/dot.hpp"
#include "kernels/tall_skinny.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace kbench::ortho {
namespace {

constexpr int max_basis_columns = 4 * blas::max_block_columns;
constexpr std::size_t align_bytes = 256;

std::size_t round_up(std::size_t b) { return (b + align_bytes - 1) / align_bytes * align_bytes; }

[[noreturn]] void invalid(const char* who, const std::string& what)
{
    throw std::invalid_argument(std::string{who} + ": " + what);
}

void check_shapes(const char* who, std::int64_t n, int kq, int kv)
{
    if (kq < 1 || kq > max_basis_columns)
        invalid(who, "kq = " + std::to_string(kq) + ", expected 1 <= kq <= " +
                         std::to_string(max_basis_columns));
    if (kv < 1 || kv > blas::max_block_columns)
        invalid(who, "kv = " + std::to_string(kv) + ", expected 1 <= kv <= " +
                         std::to_string(blas::max_block_columns));
    if (n < 1) invalid(who, "n = " + std::to_string(n) + ", expected n >= 1");
}

struct Pieces {
    std::size_t second = 0, row = 0, reduce = 0;  // bytes of each piece
    std::size_t total() const { return round_up(second) + round_up(row) + round_up(reduce); }
};

Pieces pieces(BorthMethod method, std::int64_t n, int kq, int kv, int value_bytes)
{
    Pieces p;
    if (method == BorthMethod::cgs2)
        p.second = static_cast<std::size_t>(kq) * kv * value_bytes;
    if (method == BorthMethod::mgs) {
        p.row = static_cast<std::size_t>(kv) * value_bytes;
        p.reduce = blas::dot_workspace_bytes(n, kv);
    } else {
        p.reduce = blas::gram_workspace_bytes(n, std::min(kq, blas::max_block_columns), kv,
                                              value_bytes);
    }
    return p;
}

/// C(kq x kv) := Q^T V chunk by chunk of at most max_block_columns basis columns.
template <typename T>
void project(std::int64_t n, int kq, const T* Q, std::int64_t ldq, int kv, const T* V,
             std::int64_t ldv, T* C, int ldc, void* reduce, std::size_t reduce_bytes,
             cudaStream_t stream)
{
    for (int c0 = 0; c0 < kq; c0 += blas::max_block_columns) {
        const int kc = std::min(blas::max_block_columns, kq - c0);
        blas::gram(n, kc, Q + c0 * ldq, ldq, kv, V, ldv, C + c0, ldc, reduce, reduce_bytes,
                   stream);
    }
}

/// V := V - Q C, chunk by chunk.
template <typename T>
void subtract(std::int64_t n, int kq, const T* Q, std::int64_t ldq, int kv, T* V,
              std::int64_t ldv, const T* C, int ldc, cudaStream_t stream)
{
    for (int c0 = 0; c0 < kq; c0 += blas::max_block_columns) {
        const int kc = std::min(blas::max_block_columns, kq - c0);
        blas::gemm_rowwise(n, kc, kv, T(-1), Q + c0 * ldq, ldq, C + c0, ldc, T(1), V, ldv,
                           stream);
    }
}

/// C += D for kq x kv matrices (C with leading dimension ldc, D packed).
template <typename T>
__global__ void add_coefficients(int kq, int kv, T* __restrict__ C, int ldc,
                                 const T* __restrict__ D)
{
    const int e = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    if (e < kq * kv) C[e % kq + (e / kq) * ldc] += D[e];
}

}  // namespace

const char* to_string(BorthMethod method)
{
    switch (method) {
    case BorthMethod::cgs: return "cgs";
    case BorthMethod::cgs2: return "cgs2";
    case BorthMethod::mgs: return "mgs";
    }
    return "unknown";
}

BorthMethod parse_borth_method(const std::string& name)
{
    for (const BorthMethod m : {BorthMethod::cgs, BorthMethod::cgs2, BorthMethod::mgs})
        if (name == to_string(m)) return m;
    throw std::invalid_argument("BOrth method '" + name + "': expected one of cgs, cgs2, mgs");
}

std::size_t borth_workspace_bytes(BorthMethod method, std::int64_t n, int kq, int kv,
                                  int value_bytes)
{
    constexpr const char* who = "kbench::ortho::borth_workspace_bytes";
    check_shapes(who, n, kq, kv);
    if (value_bytes != 4 && value_bytes != 8)
        invalid(who, "value_bytes = " + std::to_string(value_bytes) + ", expected 4 or 8");
    return pieces(method, n, kq, kv, value_bytes).total();
}

template <typename T>
void borth(BorthMethod method, const GpuHandles& handles, std::int64_t n, int kq, const T* Q,
           std::int64_t ldq, int kv, T* V, std::int64_t ldv, T* C, int ldc, void* workspace,
           std::size_t workspace_bytes)
{
    constexpr const char* who = "kbench::ortho::borth";
    check_shapes(who, n, kq, kv);
    if (ldq < n) invalid(who, "ldq = " + std::to_string(ldq) + ", expected >= n");
    if (ldv < n) invalid(who, "ldv = " + std::to_string(ldv) + ", expected >= n");
    if (ldc < kq) invalid(who, "ldc = " + std::to_string(ldc) + ", expected >= kq");
    if (Q == nullptr || V == nullptr || C == nullptr)
        invalid(who, std::string{Q == nullptr ? "Q" : V == nullptr ? "V" : "C"} +
                         " is null, expected a device array");
    const Pieces p = pieces(method, n, kq, kv, sizeof(T));
    if (workspace == nullptr || workspace_bytes < p.total())
        invalid(who, "workspace of " + std::to_string(workspace_bytes) + " bytes" +
                         (workspace == nullptr ? " (null)" : "") + ", expected >= " +
                         std::to_string(p.total()) + " bytes (borth_workspace_bytes)");
    char* base = static_cast<char*>(workspace);
    T* second = reinterpret_cast<T*>(base);
    T* row = reinterpret_cast<T*>(base + round_up(p.second));
    void* reduce = base + round_up(p.second) + round_up(p.row);
    const cudaStream_t s = handles.stream;

    if (method == BorthMethod::mgs) {
        blas::dot_workspace_init(reduce, p.reduce, s);  // see the file comment
        for (int i = 0; i < kq; ++i) {
            const T* qi = Q + i * ldq;
            blas::mdgm(n, kv, V, ldv, qi, row, reduce, p.reduce, s);  // row = q_i^T V
            blas::gemm_rowwise(n, 1, kv, T(-1), qi, ldq, row, 1, T(1), V, ldv, s);
            KBENCH_CUDA_CHECK(cudaMemcpy2DAsync(C + i, ldc * sizeof(T), row, sizeof(T), sizeof(T),
                                                kv, cudaMemcpyDeviceToDevice, s));
        }
        return;
    }
    blas::gram_workspace_init(reduce, p.reduce, s);  // see the file comment
    project(n, kq, Q, ldq, kv, V, ldv, C, ldc, reduce, p.reduce, s);
    subtract(n, kq, Q, ldq, kv, V, ldv, C, ldc, s);
    if (method == BorthMethod::cgs2) {
        project(n, kq, Q, ldq, kv, V, ldv, second, kq, reduce, p.reduce, s);
        subtract(n, kq, Q, ldq, kv, V, ldv, second, kq, s);
        const int entries = kq * kv;
        add_coefficients<<<(entries + 255) / 256, 256, 0, s>>>(kq, kv, C, ldc, second);
        KBENCH_CUDA_CHECK_LAUNCH();
    }
}

template void borth<float>(BorthMethod, const GpuHandles&, std::int64_t, int, const float*,
                           std::int64_t, int, float*, std::int64_t, float*, int, void*,
                           std::size_t);
template void borth<double>(BorthMethod, const GpuHandles&, std::int64_t, int, const double*,
                            std::int64_t, int, double*, std::int64_t, double*, int, void*,
                            std::size_t);

}  // namespace kbench::ortho
