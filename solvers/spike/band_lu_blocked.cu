// Blocked banded LU on batched cuBLAS (band_lu_blocked.hpp).
//
// Layout of the dense workspace, per block e with nb = ceil(n_e / K) block rows, K x K blocks
// column-major (leading dimension K), from e's offset: D_0 .. D_{nb-1}, then B_0 .. B_{nb-2},
// then C_0 .. C_{nb-2}. Blocks are sorted by nb, largest first, so that the blocks still
// factoring at step j are a prefix of the list and one pointer array per step serves them.
#include "solvers/spike/band_lu_blocked.hpp"

#include "kernels/base/cuda_check.hpp"
#include "solvers/spike/bad_pivot.cuh"

#include <cublas_v2.h>

#include <algorithm>
#include <climits>
#include <numeric>
#include <stdexcept>
#include <string>

namespace kbench::solvers::spike::detail {
namespace {

constexpr int threads = 256;

template <typename T>
struct Entry {
    BandBlock<T> block;
    std::size_t dense = 0;  // offset of D_0 in the dense workspace (values)
    int nb = 0;             // block rows
};

/// A(row, col) of block e's n x n matrix, extended by the identity past row/column n - 1.
template <typename T>
__device__ T band_value(const BandBlock<T>& b, int K, int row, int col)
{
    if (row >= b.rows || col >= b.rows) return row == col ? T(1) : T(0);
    const int d = row - col;
    if (d > K || d < -K) return T(0);
    return b.a[(K + d) + static_cast<std::size_t>(col) * (2 * K + 1)];
}

/// The three blocks of block row j: which = 0 (D_j), 1 (B_j), 2 (C_j); the (row, col) of their
/// entry (r, c) in the block's matrix and the pointer to it in the workspace.
template <typename T>
struct BlockEntry {
    int row, col;
    T* dense;
};

template <typename T>
__device__ BlockEntry<T> block_entry(const Entry<T>& e, T* dense, int K, int j, int which,
                                     int r, int c)
{
    const std::size_t KK = static_cast<std::size_t>(K) * K, rc = r + static_cast<std::size_t>(c) * K;
    T* base = dense + e.dense;
    switch (which) {
    case 0: return {j * K + r, j * K + c, base + j * KK + rc};
    case 1: return {j * K + r, (j + 1) * K + c, base + (e.nb + j) * KK + rc};
    default: return {(j + 1) * K + r, j * K + c, base + (2 * e.nb - 1 + j) * KK + rc};
    }
}

/// Grid (blocks, min(max nb, 65535)): the dense blocks of block rows blockIdx.y, blockIdx.y +
/// gridDim.y, ... of block blockIdx.x from the band (Gather), or the band entries within the
/// block back from the dense factors (!Gather).
template <typename T, bool Gather>
__global__ void __launch_bounds__(threads)
    copy_blocks_kernel(const Entry<T>* __restrict__ entries, T* __restrict__ dense, int K)
{
    const Entry<T> e = entries[blockIdx.x];
    const std::size_t KK = static_cast<std::size_t>(K) * K;
    for (int j = blockIdx.y; j < e.nb; j += gridDim.y) {
        const int kinds = j + 1 < e.nb ? 3 : 1;  // the last block row has no B_j, C_j
        for (std::size_t idx = threadIdx.x; idx < kinds * KK; idx += blockDim.x) {
            const int which = static_cast<int>(idx / KK);
            const int r = static_cast<int>(idx % KK % K), c = static_cast<int>(idx % KK / K);
            const BlockEntry<T> x = block_entry(e, dense, K, j, which, r, c);
            if (Gather) {
                *x.dense = band_value(e.block, K, x.row, x.col);
            } else if (x.row < e.block.rows && x.col < e.block.rows) {
                const int d = x.row - x.col;
                if (d <= K && d >= -K)
                    e.block.a[(K + d) + static_cast<std::size_t>(x.col) * (2 * K + 1)] =
                        *x.dense;
            }
        }
    }
}

/// One thread block per block e: the first pivot u_kk (k < n_e) that fails bad_pivot against
/// its row's scale, written to status[slot] as status_base + k.
template <typename T>
__global__ void __launch_bounds__(threads)
    first_bad_pivot_kernel(const Entry<T>* __restrict__ entries, const T* __restrict__ dense,
                           int K, int* __restrict__ status)
{
    __shared__ int least[threads];
    const Entry<T> e = entries[blockIdx.x];
    const std::size_t KK = static_cast<std::size_t>(K) * K;
    const int first = first_bad_pivot<threads>(
        e.block.rows,
        [&](int k) {
            const int q = k % K;
            return dense[e.dense + (k / K) * KK + q + static_cast<std::size_t>(q) * K];
        },
        [&](int k) { return e.block.scale[static_cast<std::ptrdiff_t>(k) * e.block.scale_stride]; },
        least);
    if (threadIdx.x == 0 && first != INT_MAX)
        status[e.block.status_slot] = e.block.status_base + first;
}

// ---- cuBLAS by precision ------------------------------------------------------------------

cublasStatus_t getrf_batched(cublasHandle_t h, int n, float* const a[], int lda, int* info,
                             int batch)
{
    return cublasSgetrfBatched(h, n, a, lda, nullptr, info, batch);
}
cublasStatus_t getrf_batched(cublasHandle_t h, int n, double* const a[], int lda, int* info,
                             int batch)
{
    return cublasDgetrfBatched(h, n, a, lda, nullptr, info, batch);
}
cublasStatus_t getrf_batched(cublasHandle_t h, int n, float* const a[], int* piv, int* info,
                             int batch)
{
    return cublasSgetrfBatched(h, n, a, n, piv, info, batch);
}
cublasStatus_t getrf_batched(cublasHandle_t h, int n, double* const a[], int* piv, int* info,
                             int batch)
{
    return cublasDgetrfBatched(h, n, a, n, piv, info, batch);
}
/// B := op(A)^{-1} B or B op(A)^{-1} for n x n A (leading dimension lda) and B (ld n).
cublasStatus_t trsm_batched(cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo,
                            cublasDiagType_t diag, int n, int lda, const float* const a[],
                            float* const b[], int batch)
{
    const float one = 1.0f;
    return cublasStrsmBatched(h, side, uplo, CUBLAS_OP_N, diag, n, n, &one, a, lda, b, n, batch);
}
cublasStatus_t trsm_batched(cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo,
                            cublasDiagType_t diag, int n, int lda, const double* const a[],
                            double* const b[], int batch)
{
    const double one = 1.0;
    return cublasDtrsmBatched(h, side, uplo, CUBLAS_OP_N, diag, n, n, &one, a, lda, b, n, batch);
}
cublasStatus_t minus_gemm_batched(cublasHandle_t h, int n, const float* const a[],
                                  const float* const b[], float* const c[], int batch)
{
    const float minus_one = -1.0f, one = 1.0f;
    return cublasSgemmBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &minus_one, a, n, b, n, &one,
                              c, n, batch);
}
cublasStatus_t minus_gemm_batched(cublasHandle_t h, int n, const double* const a[],
                                  const double* const b[], double* const c[], int batch)
{
    const double minus_one = -1.0, one = 1.0;
    return cublasDgemmBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &minus_one, a, n, b, n, &one,
                              c, n, batch);
}

template <typename U>
void ensure_size(device_buffer<U>& buf, std::size_t size)
{
    if (buf.size() < size) buf = device_buffer<U>(size);
}

}  // namespace

template <typename T>
void BlockedBandLu<T>::factor(const std::vector<BandBlock<T>>& blocks, int K, int* status,
                              cublasHandle_t blas, cudaStream_t stream)
{
    if (K < 1)
        throw std::invalid_argument("BlockedBandLu::factor: K = " + std::to_string(K) +
                                    ", expected K >= 1");
    if (blocks.empty()) return;
    const std::size_t KK = static_cast<std::size_t>(K) * K;
    // Blocks by block rows, most first (stable: ties keep the caller's order).
    std::vector<Entry<T>> entries(blocks.size());
    for (std::size_t i = 0; i < blocks.size(); ++i) {
        if (blocks[i].rows < 1)
            throw std::invalid_argument("BlockedBandLu::factor: block " + std::to_string(i) +
                                        " has rows = " + std::to_string(blocks[i].rows) +
                                        ", expected rows >= 1");
        entries[i].block = blocks[i];
        entries[i].nb = (blocks[i].rows + K - 1) / K;
    }
    std::stable_sort(entries.begin(), entries.end(),
                     [](const Entry<T>& a, const Entry<T>& b) { return a.nb > b.nb; });
    std::size_t values = 0;
    for (Entry<T>& e : entries) {
        e.dense = values;
        values += (3 * static_cast<std::size_t>(e.nb) - 2) * KK;
    }
    const int steps = entries.front().nb, count = static_cast<int>(entries.size());
    ensure_size(dense_, values);
    ensure_size(info_, entries.size());

    // Pointer arrays of step j, each over the blocks still factoring: D_j (batch_j = blocks with
    // nb > j), then C_j, B_j and D_{j+1} (batch2_j = blocks with nb > j + 1).
    std::vector<int> batch(steps + 1, 0);
    for (const Entry<T>& e : entries)
        for (int j = 0; j < e.nb; ++j) ++batch[j];
    std::vector<std::size_t> first(steps);
    std::vector<T*> host;
    for (int j = 0; j < steps; ++j) {
        first[j] = host.size();
        T* const base = dense_.data();
        for (int i = 0; i < batch[j]; ++i) host.push_back(base + entries[i].dense + j * KK);
        for (int i = 0; i < batch[j + 1]; ++i)  // C_j
            host.push_back(base + entries[i].dense + (2 * entries[i].nb - 1 + j) * KK);
        for (int i = 0; i < batch[j + 1]; ++i)  // B_j
            host.push_back(base + entries[i].dense + (entries[i].nb + j) * KK);
        for (int i = 0; i < batch[j + 1]; ++i)  // D_{j+1}
            host.push_back(base + entries[i].dense + (j + 1) * KK);
    }
    ensure_size(pointers_, host.size());
    pointers_.copy_from_host(host.data(), host.size());
    const std::size_t entry_bytes = entries.size() * sizeof(Entry<T>);
    ensure_size(entries_, entry_bytes);
    entries_.copy_from_host(reinterpret_cast<const unsigned char*>(entries.data()), entry_bytes);
    const auto* dev_entries = reinterpret_cast<const Entry<T>*>(entries_.data());

    KBENCH_CUBLAS_CHECK(cublasSetStream(blas, stream));
    KBENCH_CUBLAS_CHECK(cublasSetPointerMode(blas, CUBLAS_POINTER_MODE_HOST));
    const dim3 grid(static_cast<unsigned>(count), static_cast<unsigned>(std::min(steps, 65535)));
    copy_blocks_kernel<T, true><<<grid, threads, 0, stream>>>(dev_entries, dense_.data(), K);
    KBENCH_CUDA_CHECK_LAUNCH();
    for (int j = 0; j < steps; ++j) {
        T* const* d = pointers_.data() + first[j];
        KBENCH_CUBLAS_CHECK(getrf_batched(blas, K, d, K, info_.data(), batch[j]));
        const int b2 = batch[j + 1];
        if (b2 == 0) continue;
        T* const* c = d + batch[j];
        T* const* b = c + b2;
        T* const* next = b + b2;
        // C_j := C_j U_j^{-1} (right, upper, non-unit); B_j := L_j^{-1} B_j (left, unit lower).
        KBENCH_CUBLAS_CHECK(trsm_batched(blas, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_UPPER,
                                         CUBLAS_DIAG_NON_UNIT, K, K, d, c, b2));
        KBENCH_CUBLAS_CHECK(trsm_batched(blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER,
                                         CUBLAS_DIAG_UNIT, K, K, d, b, b2));
        // D_{j+1} -= C_j B_j.
        KBENCH_CUBLAS_CHECK(minus_gemm_batched(blas, K, c, b, next, b2));
    }
    copy_blocks_kernel<T, false><<<grid, threads, 0, stream>>>(dev_entries, dense_.data(), K);
    KBENCH_CUDA_CHECK_LAUNCH();
    first_bad_pivot_kernel<T><<<count, threads, 0, stream>>>(dev_entries, dense_.data(), K,
                                                             status);
    KBENCH_CUDA_CHECK_LAUNCH();
}

template <typename T>
void batched_dense_lu(T* a, int m, int count, int* ipiv, int* info, device_buffer<T*>& pointers,
                      cublasHandle_t blas, cudaStream_t stream)
{
    if (count <= 0) return;
    std::vector<T*> host(static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i) host[i] = a + static_cast<std::size_t>(i) * m * m;
    ensure_size(pointers, host.size());
    pointers.copy_from_host(host.data(), host.size());
    KBENCH_CUBLAS_CHECK(cublasSetStream(blas, stream));
    KBENCH_CUBLAS_CHECK(getrf_batched(blas, m, pointers.data(), ipiv, info, count));
}

template <typename T>
void batched_corner_solves(const std::vector<const T*>& corners, const std::vector<T*>& rhs, int K,
                           device_buffer<T*>& pointers, cublasHandle_t blas, cudaStream_t stream)
{
    if (corners.size() != rhs.size())
        throw std::invalid_argument("batched_corner_solves: " + std::to_string(corners.size()) +
                                    " corners, " + std::to_string(rhs.size()) +
                                    " right-hand sides, expected as many");
    if (corners.empty()) return;
    std::vector<T*> host;
    for (const T* c : corners) host.push_back(const_cast<T*>(c));  // cuBLAS only reads them
    host.insert(host.end(), rhs.begin(), rhs.end());
    ensure_size(pointers, host.size());
    pointers.copy_from_host(host.data(), host.size());
    const int count = static_cast<int>(corners.size()), lda = 2 * K;
    T* const* a = pointers.data();
    T* const* y = a + count;
    KBENCH_CUBLAS_CHECK(cublasSetStream(blas, stream));
    KBENCH_CUBLAS_CHECK(cublasSetPointerMode(blas, CUBLAS_POINTER_MODE_HOST));
    KBENCH_CUBLAS_CHECK(trsm_batched(blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER,
                                     CUBLAS_DIAG_UNIT, K, lda, a, y, count));
    KBENCH_CUBLAS_CHECK(trsm_batched(blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER,
                                     CUBLAS_DIAG_NON_UNIT, K, lda, a, y, count));
}

template void batched_corner_solves<float>(const std::vector<const float*>&,
                                           const std::vector<float*>&, int,
                                           device_buffer<float*>&, cublasHandle_t, cudaStream_t);
template void batched_corner_solves<double>(const std::vector<const double*>&,
                                            const std::vector<double*>&, int,
                                            device_buffer<double*>&, cublasHandle_t, cudaStream_t);
template void batched_dense_lu<float>(float*, int, int, int*, int*, device_buffer<float*>&,
                                      cublasHandle_t, cudaStream_t);
template void batched_dense_lu<double>(double*, int, int, int*, int*, device_buffer<double*>&,
                                       cublasHandle_t, cudaStream_t);
template class BlockedBandLu<float>;
template class BlockedBandLu<double>;

}  // namespace kbench::solvers::spike::detail
