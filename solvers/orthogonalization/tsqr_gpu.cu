// GPU TSQR and BOrth (yamazaki2014 Sec. V); declarations and conventions in tsqr_gpu.hpp.
//
// Device workspace, carved in this order (each piece 256-byte aligned):
//   Gram methods: G (k x k), the factor U or M (k x k), blas::gram's workspace;
//   Gram-Schmidt: R on the device (k x k; MGS keeps R^T so that a row of R is contiguous),
//                 h (k), the column scalars (4), the failure record (int), blas::dot/mdgm's
//                 workspace;
//   CAQR:         tau (blocks x k), the stacked Q factor (blocks k x k), cuSOLVER's buffer,
//                 its info (int).
// The dot kernels' workspace (Gram-Schmidt) and blas::gram's (Gram methods) are pieces of the
// caller's workspace, which the caller also lends to other methods, other shapes and other
// kernels between calls (block GMRES and CA-GMRES do): their ticket counters (kernels/dot.hpp,
// kernels/tall_skinny.hpp) cannot be trusted to be zero on entry, so every call zeroes them
// first, one memset on the stream (none when the piece is empty): reset_gs
// (blas::dot_workspace_init) at the start of every Gram-Schmidt call, before its first dot, and
// gram_family (blas::gram_workspace_init) before its first gram; the dots and grams of the call
// leave them zero. The contract of tsqr_gpu.hpp (the workspace holds nothing between calls)
// stays true.
#include "solvers/orthogonalization/tsqr_gpu.hpp"

#include "kernels/base/cuda_check.hpp"
#include "kernels/dot.hpp"
#include "kernels/tall_skinny.hpp"
#include "solvers/orthogonalization/small_factor.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace kbench::ortho {
namespace {

// ---- Workspace carving ----------------------------------------------------------------------

constexpr std::size_t align_bytes = 256;

std::size_t round_up(std::size_t b) { return (b + align_bytes - 1) / align_bytes * align_bytes; }

/// Hands out consecutive 256-byte-aligned pieces of the caller's workspace (or, with a null
/// base, only counts their size).
class Carver {
public:
    explicit Carver(void* base = nullptr) : base_{static_cast<char*>(base)} {}
    template <typename U>
    U* take(std::size_t count)
    {
        char* p = base_ == nullptr ? nullptr : base_ + used_;
        used_ += round_up(count * sizeof(U));
        return reinterpret_cast<U*>(p);
    }
    void* take_bytes(std::size_t bytes) { return take<char>(bytes); }
    std::size_t used() const { return used_; }

private:
    char* base_;
    std::size_t used_ = 0;
};

[[noreturn]] void invalid(const char* who, const std::string& what)
{
    throw std::invalid_argument(std::string{who} + ": " + what);
}

void check_block(const char* who, std::int64_t n, int k, std::int64_t ld, const char* ld_name)
{
    if (k < 1 || k > blas::max_block_columns)
        invalid(who, "k = " + std::to_string(k) + ", expected 1 <= k <= " +
                         std::to_string(blas::max_block_columns));
    if (n < k) invalid(who, "n = " + std::to_string(n) + ", expected n >= k (a tall-skinny block)");
    if (ld < n)
        invalid(who, std::string{ld_name} + " = " + std::to_string(ld) + ", expected >= n = " +
                         std::to_string(n));
}

std::string number(double v)
{
    std::ostringstream os;
    os.precision(3);
    os << v;
    return os.str();
}

/// R (k x k, ldr) := the upper triangle of r (k x k, ld k; of r^T when `transposed`), zeros
/// below the diagonal.
template <typename T>
void write_upper(int k, const std::vector<T>& r, bool transposed, T* R, int ldr)
{
    for (int j = 0; j < k; ++j)
        for (int i = 0; i < k; ++i)
            R[i + j * ldr] = i > j ? T(0) : (transposed ? r[j + i * k] : r[i + j * k]);
}

// ---- CAQR blocks and cuSOLVER -----------------------------------------------------------------

struct RowBlock {
    std::int64_t first, rows;
};

/// Row blocks of h rows; a remainder of fewer than k rows joins the last block.
std::vector<RowBlock> row_blocks(std::int64_t n, int k, std::int64_t h)
{
    std::vector<RowBlock> blocks;
    for (std::int64_t first = 0; first < n;) {
        std::int64_t rows = std::min(h, n - first);
        if (n - (first + rows) < k) rows = n - first;
        blocks.push_back({first, rows});
        first += rows;
    }
    return blocks;
}

int as_int(const char* who, std::int64_t v, const char* what)
{
    if (v > std::numeric_limits<int>::max())
        invalid(who, std::string{what} + " = " + std::to_string(v) +
                         " exceeds cuSOLVER's int range; use smaller CAQR blocks (block_rows)");
    return static_cast<int>(v);
}

int geqrf_buffer(cusolverDnHandle_t h, int m, int k, float* a, int lda)
{
    int lwork = 0;
    KBENCH_CUSOLVER_CHECK(cusolverDnSgeqrf_bufferSize(h, m, k, a, lda, &lwork));
    return lwork;
}
int geqrf_buffer(cusolverDnHandle_t h, int m, int k, double* a, int lda)
{
    int lwork = 0;
    KBENCH_CUSOLVER_CHECK(cusolverDnDgeqrf_bufferSize(h, m, k, a, lda, &lwork));
    return lwork;
}
int orgqr_buffer(cusolverDnHandle_t h, int m, int k, const float* a, int lda, const float* tau)
{
    int lwork = 0;
    KBENCH_CUSOLVER_CHECK(cusolverDnSorgqr_bufferSize(h, m, k, k, a, lda, tau, &lwork));
    return lwork;
}
int orgqr_buffer(cusolverDnHandle_t h, int m, int k, const double* a, int lda, const double* tau)
{
    int lwork = 0;
    KBENCH_CUSOLVER_CHECK(cusolverDnDorgqr_bufferSize(h, m, k, k, a, lda, tau, &lwork));
    return lwork;
}
void geqrf(cusolverDnHandle_t h, int m, int k, float* a, int lda, float* tau, float* work,
           int lwork, int* info)
{
    KBENCH_CUSOLVER_CHECK(cusolverDnSgeqrf(h, m, k, a, lda, tau, work, lwork, info));
}
void geqrf(cusolverDnHandle_t h, int m, int k, double* a, int lda, double* tau, double* work,
           int lwork, int* info)
{
    KBENCH_CUSOLVER_CHECK(cusolverDnDgeqrf(h, m, k, a, lda, tau, work, lwork, info));
}
void orgqr(cusolverDnHandle_t h, int m, int k, float* a, int lda, const float* tau, float* work,
           int lwork, int* info)
{
    KBENCH_CUSOLVER_CHECK(cusolverDnSorgqr(h, m, k, k, a, lda, tau, work, lwork, info));
}
void orgqr(cusolverDnHandle_t h, int m, int k, double* a, int lda, const double* tau,
           double* work, int lwork, int* info)
{
    KBENCH_CUSOLVER_CHECK(cusolverDnDorgqr(h, m, k, k, a, lda, tau, work, lwork, info));
}

/// Largest cuSOLVER buffer (elements) over the distinct block heights, queried with lda = the
/// block's rows (the buffer depends on the shape, not on the leading dimension), so that the
/// size query needs no ld.
template <typename T>
int caqr_lwork(cusolverDnHandle_t h, const std::vector<RowBlock>& blocks, int k)
{
    int lwork = 0;
    std::int64_t done[2] = {-1, -1};
    for (const RowBlock& b : blocks) {
        if (b.rows == done[0] || b.rows == done[1]) continue;
        done[done[0] < 0 ? 0 : 1] = b.rows;
        const int m = as_int("kbench::ortho::tsqr", b.rows, "CAQR block rows");
        const int lda = m;
        lwork = std::max(lwork, geqrf_buffer(h, m, k, static_cast<T*>(nullptr), lda));
        lwork = std::max(lwork, orgqr_buffer(h, m, k, static_cast<const T*>(nullptr), lda,
                                             static_cast<const T*>(nullptr)));
    }
    return lwork;
}

// ---- Gram-Schmidt column kernels ------------------------------------------------------------

/// Device scalars of a Gram-Schmidt column: [0] squared norm after the projections, [1] the
/// scale 1 / R(j, j), [2] and [3] the norm and the norm before of the first failing column.
constexpr int scalar_count = 4;

/// Adds h[0..j) to R(0..j, j) (CGS: column j of R, contiguous).
template <typename T>
__global__ void accumulate_column(int j, const T* __restrict__ h, T* __restrict__ rcol)
{
    const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    if (i < j) rcol[i] += h[i];
}

/// Finishes column j (one thread): R(j, j) = ||v_j||, scale = 1 / R(j, j); the column is
/// rank deficient when ||v_j|| <= k eps ||v_j before the projections||, that norm being
/// sqrt(||R(0..j, j)||^2 + ||v_j||^2). R(i, j) is at rcol[i * stride]. On the first failure
/// records the column and the norms, and sets the scale to 0 so that later columns stay finite.
template <typename T>
__global__ void finish_column(int j, int k, T* __restrict__ rcol, int stride,
                              T* __restrict__ scalars, int* __restrict__ failed)
{
    const T norm2 = scalars[0];
    T before2 = norm2;
    for (int i = 0; i < j; ++i) before2 += rcol[i * stride] * rcol[i * stride];
    const T norm = sqrt(norm2);
    const T limit = static_cast<T>(k) * std::numeric_limits<T>::epsilon() * sqrt(before2);
    if (norm > limit && isfinite(norm)) {
        rcol[j * stride] = norm;
        scalars[1] = T(1) / norm;
    } else {
        scalars[1] = T(0);
        if (*failed < 0) {
            *failed = j;
            scalars[2] = norm;
            scalars[3] = sqrt(before2);
        }
    }
}

template <typename T>
struct GsWork {
    T* r;        // k x k (CGS: R; MGS: R^T)
    T* h;        // k
    T* scalars;  // scalar_count
    int* failed;
    void* reduce;
    std::size_t reduce_bytes;
};

template <typename T>
GsWork<T> carve_gs(Carver& c, std::int64_t n, int k)
{
    GsWork<T> w{};
    w.r = c.take<T>(static_cast<std::size_t>(k) * k);
    w.h = c.take<T>(k);
    w.scalars = c.take<T>(scalar_count);
    w.failed = c.take<int>(1);
    w.reduce_bytes = blas::dot_workspace_bytes(n, k);
    w.reduce = c.take_bytes(w.reduce_bytes);
    return w;
}

/// Norm, failure test and scaling of column j (shared by CGS and MGS).
template <typename T>
void normalize_column(const GpuHandles& hd, std::int64_t n, int k, T* vj, std::int64_t ld,
                      int j, T* rcol, int stride, const GsWork<T>& w)
{
    blas::dot(n, vj, vj, w.scalars, w.reduce, w.reduce_bytes, hd.stream);
    finish_column<<<1, 1, 0, hd.stream>>>(j, k, rcol, stride, w.scalars, w.failed);
    KBENCH_CUDA_CHECK_LAUNCH();
    blas::gemm_rowwise(n, 1, 1, T(1), vj, ld, w.scalars + 1, 1, T(0), vj, ld, hd.stream);
}

/// Copies R (or R^T) to the host, and turns the failure record into an outcome.
template <typename T>
TsqrOutcome finish_gs(const GpuHandles& hd, int k, const GsWork<T>& w, bool transposed, T* R,
                      int ldr)
{
    std::vector<T> r(static_cast<std::size_t>(k) * k);
    T scalars[scalar_count];
    int failed = -1;
    KBENCH_CUDA_CHECK(cudaMemcpyAsync(r.data(), w.r, r.size() * sizeof(T), cudaMemcpyDeviceToHost,
                                      hd.stream));
    KBENCH_CUDA_CHECK(cudaMemcpyAsync(scalars, w.scalars, sizeof(scalars), cudaMemcpyDeviceToHost,
                                      hd.stream));
    KBENCH_CUDA_CHECK(cudaMemcpyAsync(&failed, w.failed, sizeof(int), cudaMemcpyDeviceToHost,
                                      hd.stream));
    KBENCH_CUDA_CHECK(cudaStreamSynchronize(hd.stream));
    write_upper(k, r, transposed, R, ldr);
    if (failed < 0) return {};
    return {TsqrStatus::rank_deficient, failed,
            "column " + std::to_string(failed) + " has norm " + number(double(scalars[2])) +
                " after projection, " + number(double(scalars[3])) + " before"};
}

/// Zeroes R, sets the failure record to -1 and makes the dot workspace ready (its counters
/// zeroed: see the file comment), on the stream.
template <typename T>
void reset_gs(const GpuHandles& hd, int k, const GsWork<T>& w)
{
    KBENCH_CUDA_CHECK(cudaMemsetAsync(w.r, 0, sizeof(T) * k * k, hd.stream));
    KBENCH_CUDA_CHECK(cudaMemsetAsync(w.failed, 0xff, sizeof(int), hd.stream));  // -1
    blas::dot_workspace_init(w.reduce, w.reduce_bytes, hd.stream);
}

/// CGS (passes = 1) or CGS2 (passes = 2): column j is projected against columns 0..j-1.
template <typename T>
TsqrOutcome cgs(const GpuHandles& hd, std::int64_t n, int k, T* V, std::int64_t ld, T* R,
                int ldr, int passes, const GsWork<T>& w)
{
    reset_gs(hd, k, w);
    for (int j = 0; j < k; ++j) {
        T* vj = V + j * ld;
        T* rcol = w.r + j * k;
        for (int pass = 0; j > 0 && pass < passes; ++pass) {
            blas::mdgm(n, j, V, ld, vj, w.h, w.reduce, w.reduce_bytes, hd.stream);
            blas::gemm_rowwise(n, j, 1, T(-1), V, ld, w.h, j, T(1), vj, ld, hd.stream);
            accumulate_column<<<(j + 63) / 64, 64, 0, hd.stream>>>(j, w.h, rcol);
            KBENCH_CUDA_CHECK_LAUNCH();
        }
        normalize_column(hd, n, k, vj, ld, j, rcol, 1, w);
    }
    return finish_gs(hd, k, w, false, R, ldr);
}

/// Right-looking MGS: column j is normalized, then removed from columns j+1..k-1 at once. The
/// device keeps R^T, so that row j of R (the coefficients of the update) is contiguous.
template <typename T>
TsqrOutcome mgs(const GpuHandles& hd, std::int64_t n, int k, T* V, std::int64_t ld, T* R,
                int ldr, const GsWork<T>& w)
{
    reset_gs(hd, k, w);
    for (int j = 0; j < k; ++j) {
        T* vj = V + j * ld;
        T* rrow = w.r + j * k;  // R(j, :) = R^T(:, j)
        normalize_column(hd, n, k, vj, ld, j, w.r + j, k, w);
        const int rest = k - j - 1;
        if (rest == 0) continue;
        T* next = V + (j + 1) * ld;
        blas::mdgm(n, rest, next, ld, vj, rrow + j + 1, w.reduce, w.reduce_bytes, hd.stream);
        blas::gemm_rowwise(n, 1, rest, T(-1), vj, ld, rrow + j + 1, 1, T(1), next, ld, hd.stream);
    }
    return finish_gs(hd, k, w, true, R, ldr);
}

// ---- Gram-matrix methods --------------------------------------------------------------------

template <typename T>
struct GramWork {
    T* g;  // k x k
    T* f;  // k x k: U or M
    void* reduce;
    std::size_t reduce_bytes;
};

template <typename T>
GramWork<T> carve_gram(Carver& c, std::int64_t n, int k)
{
    GramWork<T> w{};
    w.g = c.take<T>(static_cast<std::size_t>(k) * k);
    w.f = c.take<T>(static_cast<std::size_t>(k) * k);
    w.reduce_bytes = blas::gram_workspace_bytes(n, k, k, sizeof(T));
    w.reduce = c.take_bytes(w.reduce_bytes);
    return w;
}

/// The Gram-based methods (detail::gram_tsqr): per pass the Gram matrix (blas::gram) copied to
/// the host, the factor copied back, V := V U^-1 (blas::trsm_right_upper) or V := V M
/// (blas::gemm_rowwise); the stream is idle when each step returns (the host arrays are reused).
/// First the gram workspace's counters are zeroed (see the file comment).
template <typename T>
TsqrOutcome gram_family(TsqrMethod method, const GpuHandles& hd, std::int64_t n, int k, T* V,
                        std::int64_t ld, T* R, int ldr, const GramWork<T>& w)
{
    const std::size_t kk = static_cast<std::size_t>(k) * k;
    blas::gram_workspace_init(w.reduce, w.reduce_bytes, hd.stream);
    return detail::gram_tsqr<T>(
        method, n, k, R, ldr,
        [&](T* G) {
            blas::gram(n, k, V, ld, k, V, ld, w.g, k, w.reduce, w.reduce_bytes, hd.stream);
            KBENCH_CUDA_CHECK(cudaMemcpyAsync(G, w.g, kk * sizeof(T), cudaMemcpyDeviceToHost,
                                              hd.stream));
            KBENCH_CUDA_CHECK(cudaStreamSynchronize(hd.stream));
        },
        [&](const T* U) {
            KBENCH_CUDA_CHECK(cudaMemcpyAsync(w.f, U, kk * sizeof(T), cudaMemcpyHostToDevice,
                                              hd.stream));
            blas::trsm_right_upper(n, k, V, ld, w.f, k, hd.stream);
            KBENCH_CUDA_CHECK(cudaStreamSynchronize(hd.stream));
        },
        [&](const T* M) {
            KBENCH_CUDA_CHECK(cudaMemcpyAsync(w.f, M, kk * sizeof(T), cudaMemcpyHostToDevice,
                                              hd.stream));
            blas::gemm_rowwise(n, k, k, T(1), V, ld, w.f, k, T(0), V, ld, hd.stream);
            KBENCH_CUDA_CHECK(cudaStreamSynchronize(hd.stream));
        });
}

// ---- CAQR -----------------------------------------------------------------------------------

template <typename T>
struct CaqrWork {
    T* tau;      // blocks x k
    T* qs;       // (blocks k) x k
    T* staging;  // (largest block rows) x k: a block copied out when ld is beyond int indexing
    T* buffer;   // cuSOLVER
    int lwork;
    int* info;
};

std::int64_t largest_rows(const std::vector<RowBlock>& blocks)
{
    std::int64_t m = 0;
    for (const RowBlock& b : blocks) m = std::max(m, b.rows);
    return m;
}

template <typename T>
CaqrWork<T> carve_caqr(Carver& c, const GpuHandles& hd, const std::vector<RowBlock>& blocks,
                       int k)
{
    CaqrWork<T> w{};
    const std::size_t nb = blocks.size();
    w.tau = c.take<T>(nb * k);
    w.qs = c.take<T>(nb * k * k);
    const std::int64_t staged = largest_rows(blocks) * k;
    as_int("kbench::ortho::tsqr", staged, "CAQR block rows x k");
    w.staging = c.take<T>(static_cast<std::size_t>(staged));
    w.lwork = caqr_lwork<T>(hd.solver, blocks, k);
    w.buffer = c.take<T>(static_cast<std::size_t>(w.lwork));
    w.info = c.take<int>(1);
    return w;
}

template <typename T>
TsqrOutcome caqr(const GpuHandles& hd, const std::vector<RowBlock>& blocks, int k, T* V,
                 std::int64_t ld, T* R, int ldr, const CaqrWork<T>& w)
{
    constexpr const char* who = "kbench::ortho::tsqr";
    const std::int64_t nb = static_cast<std::int64_t>(blocks.size());
    const std::int64_t rows = nb * k;
    // cuSOLVER's QR indexes with int: when column offsets of V overflow it, each block is
    // factored in the staging area (lda = its rows) and copied back.
    const bool staged = ld * k > std::numeric_limits<int>::max();
    std::vector<T> stacked(static_cast<std::size_t>(rows) * k, T(0));
    for (std::int64_t b = 0; b < nb; ++b) {
        T* vb = V + blocks[b].first;
        const int m = as_int(who, blocks[b].rows, "CAQR block rows");
        T* a = staged ? w.staging : vb;
        const int lda = staged ? m : static_cast<int>(ld);
        if (staged)
            KBENCH_CUDA_CHECK(cudaMemcpy2DAsync(a, lda * sizeof(T), vb, ld * sizeof(T),
                                                m * sizeof(T), k, cudaMemcpyDeviceToDevice,
                                                hd.stream));
        geqrf(hd.solver, m, k, a, lda, w.tau + b * k, w.buffer, w.lwork, w.info);
        // The block's R: the upper k x k corner of the factored block, into rows b k .. b k + k.
        KBENCH_CUDA_CHECK(cudaMemcpy2DAsync(stacked.data() + b * k, rows * sizeof(T), a,
                                            lda * sizeof(T), k * sizeof(T), k,
                                            cudaMemcpyDeviceToHost, hd.stream));
        orgqr(hd.solver, m, k, a, lda, w.tau + b * k, w.buffer, w.lwork, w.info);
        if (staged)
            KBENCH_CUDA_CHECK(cudaMemcpy2DAsync(vb, ld * sizeof(T), a, lda * sizeof(T),
                                                m * sizeof(T), k, cudaMemcpyDeviceToDevice,
                                                hd.stream));
    }
    int info = 0;
    KBENCH_CUDA_CHECK(cudaMemcpyAsync(&info, w.info, sizeof(int), cudaMemcpyDeviceToHost,
                                      hd.stream));
    KBENCH_CUDA_CHECK(cudaStreamSynchronize(hd.stream));
    if (info != 0)
        throw std::runtime_error(std::string{who} + ": cuSOLVER geqrf/orgqr reported info = " +
                                 std::to_string(info) + " (invalid parameter)");
    for (std::int64_t b = 0; b < nb; ++b)  // the copies took the Householder vectors below
        for (int j = 0; j < k; ++j)
            for (int i = j + 1; i < k; ++i) stacked[b * k + i + j * rows] = T(0);
    std::vector<T> qs(stacked.size()), r(static_cast<std::size_t>(k) * k);
    const TsqrOutcome o =
        detail::stacked_qr(rows, k, stacked.data(), rows, qs.data(), rows, r.data(), k);
    write_upper(k, r, false, R, ldr);
    if (o.status != TsqrStatus::ok) return o;
    KBENCH_CUDA_CHECK(cudaMemcpyAsync(w.qs, qs.data(), qs.size() * sizeof(T),
                                      cudaMemcpyHostToDevice, hd.stream));
    for (std::int64_t b = 0; b < nb; ++b) {
        T* vb = V + blocks[b].first;
        blas::gemm_rowwise(blocks[b].rows, k, k, T(1), vb, ld, w.qs + b * k,
                           static_cast<int>(rows), T(0), vb, ld, hd.stream);
    }
    KBENCH_CUDA_CHECK(cudaStreamSynchronize(hd.stream));
    return {};
}

std::int64_t caqr_rows(std::int64_t n, int k, std::int64_t block_rows)
{
    return block_rows > 0 ? block_rows : caqr_default_block_rows(n, k);
}

void check_tsqr(const char* who, TsqrMethod method, const GpuHandles& handles, std::int64_t n,
                int k, std::int64_t ld, std::int64_t block_rows)
{
    check_block(who, n, k, ld, "ld");
    if (block_rows < 0 || (block_rows > 0 && block_rows < k))
        invalid(who, "block_rows = " + std::to_string(block_rows) + ", expected 0 (default) or >= k");
    if (method == TsqrMethod::caqr && handles.solver == nullptr)
        invalid(who, "handles.solver is null, expected a cuSOLVER handle for CAQR");
}

/// Workspace layout of one method (counts only when base is null).
template <typename T>
std::size_t layout(TsqrMethod method, const GpuHandles& hd, std::int64_t n, int k,
                   std::int64_t block_rows, void* base)
{
    Carver c(base);
    switch (method) {
    case TsqrMethod::mgs:
    case TsqrMethod::cgs:
    case TsqrMethod::cgs2: carve_gs<T>(c, n, k); break;
    case TsqrMethod::cholqr:
    case TsqrMethod::cholqr2:
    case TsqrMethod::shifted_cholqr3:
    case TsqrMethod::svqr: carve_gram<T>(c, n, k); break;
    case TsqrMethod::caqr:
        carve_caqr<T>(c, hd, row_blocks(n, k, caqr_rows(n, k, block_rows)), k);
        break;
    }
    return c.used();
}

}  // namespace

std::int64_t caqr_default_block_rows(std::int64_t n, int k)
{
    constexpr std::int64_t max_blocks = 8;
    return std::max<std::int64_t>(k, (n + max_blocks - 1) / max_blocks);
}

std::size_t tsqr_workspace_bytes(TsqrMethod method, const GpuHandles& handles, std::int64_t n,
                                 int k, int value_bytes, std::int64_t block_rows)
{
    constexpr const char* who = "kbench::ortho::tsqr_workspace_bytes";
    check_tsqr(who, method, handles, n, k, n, block_rows);
    if (value_bytes == 4) return layout<float>(method, handles, n, k, block_rows, nullptr);
    if (value_bytes == 8) return layout<double>(method, handles, n, k, block_rows, nullptr);
    invalid(who, "value_bytes = " + std::to_string(value_bytes) + ", expected 4 or 8");
}

template <typename T>
TsqrOutcome tsqr(TsqrMethod method, const GpuHandles& handles, std::int64_t n, int k, T* V,
                 std::int64_t ld, T* R, int ldr, void* workspace, std::size_t workspace_bytes,
                 std::int64_t block_rows)
{
    constexpr const char* who = "kbench::ortho::tsqr";
    check_tsqr(who, method, handles, n, k, ld, block_rows);
    if (ldr < k) invalid(who, "ldr = " + std::to_string(ldr) + ", expected >= k");
    if (V == nullptr) invalid(who, "V is null, expected a device array of n x k elements");
    if (R == nullptr) invalid(who, "R is null, expected a host array of k x k elements");
    const std::size_t needed = layout<T>(method, handles, n, k, block_rows, nullptr);
    if (workspace == nullptr || workspace_bytes < needed)
        invalid(who, "workspace of " + std::to_string(workspace_bytes) + " bytes" +
                         (workspace == nullptr ? " (null)" : "") + ", expected >= " +
                         std::to_string(needed) + " bytes (tsqr_workspace_bytes)");
    Carver c(workspace);
    switch (method) {
    case TsqrMethod::mgs: return mgs(handles, n, k, V, ld, R, ldr, carve_gs<T>(c, n, k));
    case TsqrMethod::cgs: return cgs(handles, n, k, V, ld, R, ldr, 1, carve_gs<T>(c, n, k));
    case TsqrMethod::cgs2: return cgs(handles, n, k, V, ld, R, ldr, 2, carve_gs<T>(c, n, k));
    case TsqrMethod::cholqr:
    case TsqrMethod::cholqr2:
    case TsqrMethod::shifted_cholqr3:
    case TsqrMethod::svqr:
        return gram_family(method, handles, n, k, V, ld, R, ldr, carve_gram<T>(c, n, k));
    case TsqrMethod::caqr: {
        const auto blocks = row_blocks(n, k, caqr_rows(n, k, block_rows));
        return caqr(handles, blocks, k, V, ld, R, ldr, carve_caqr<T>(c, handles, blocks, k));
    }
    }
    invalid(who, "unknown method");
}

template TsqrOutcome tsqr<float>(TsqrMethod, const GpuHandles&, std::int64_t, int, float*,
                                 std::int64_t, float*, int, void*, std::size_t, std::int64_t);
template TsqrOutcome tsqr<double>(TsqrMethod, const GpuHandles&, std::int64_t, int, double*,
                                  std::int64_t, double*, int, void*, std::size_t, std::int64_t);

}  // namespace kbench::ortho
