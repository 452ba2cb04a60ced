// The device half of GMRES(m)'s Arnoldi process, shared by GMRES on one GPU (gmres.cu) and on
// several (distributed/distributed_gmres_gpu.cpp): the basis V and the Gram-Schmidt coefficients
// in device memory, and the steps on them (CGS twice through blas::mdgm and blas::gemm_rowwise in
// chunks of 64 columns, MGS through blas::dot and a one-column gemm_rowwise, or the one-reduce
// CGS2 through blas::gram and one two-column gemm_rowwise; norms; x += V y).
//
// Every reduction over the rows (a dot product, V^T w) computes this process's share and then
// calls reduce(d_values, count), which turns the `count` device values at d_values into the
// global ones in place, on the same stream: NoReduce on one GPU (all rows are here), an
// all-reduce over the ranks on several. CGS2 reduces the j + 1 coefficients of a pass at once
// (one call per pass), MGS each coefficient on its own, and every norm is one call; the
// one-reduce CGS2 makes one call per step (two in a cycle's first step).
// Internal header: include only from the solver sources.
#pragma once

#include "kernels/base/cuda_check.hpp"
#include "kernels/base/cuda_handles.hpp"
#include "kernels/base/device_buffer.hpp"
#include "kernels/base/nvtx.hpp"
#include "kernels/dot.hpp"
#include "kernels/tall_skinny.hpp"
#include "solvers/gmres.hpp"
#include "solvers/gmres_lowsync.hpp"
#include "solvers/gmres_lowsync_step.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <vector>

namespace kbench::solvers::detail {

/// The reduce hook of a solve whose rows are all on one GPU: nothing to add. Every reduce hook
/// of orthogonalize_lowsync says in `stream_ordered` whether it only enqueues its sums on the
/// stream, with nothing for the host to wait for (here; an NCCL all-reduce), or returns once the
/// sum is on the host (an MPI all-reduce through host memory).
struct NoReduce {
    static constexpr bool stream_ordered = true;
    template <typename T>
    void operator()(T*, int) const
    {}
};

/// Basis and coefficients of GMRES(m) on the device, for the n rows this process owns.
/// Device layout: V, m + 1 columns of n rows with leading dimension ld >= n (rows n..ld-1 of a
/// column are never read or written here: room for the ghost entries a distributed SpMV fills);
/// c, 2m + 4 values: c[0..m] the first Gram-Schmidt pass (or MGS's coefficients), c[m + 1 ..
/// 2m + 1] the second, c[2m + 2] = w . w, c[2m + 3] the first coefficient of a one-reduce cycle;
/// the one-reduce step's fused product G ((j + 2) x 2) at c[0 ..]; also the y of an update. All
/// work is enqueued on `stream`; the members that return host values synchronize it.
template <typename T>
class DeviceArnoldi {
public:
    static constexpr int chunk = blas::max_block_columns;  // columns per mdgm / gemm_rowwise

    /// Throws kbench::cuda_error when allocating fails.
    DeviceArnoldi(std::int64_t n, std::int64_t ld, int restart, ArnoldiOrth orth,
                  cudaStream_t stream)
        : n_(n), ld_(ld), m_(restart), orth_(orth), stream_(stream),
          v_(static_cast<std::size_t>(ld) * (restart + 1)), c_(2 * restart + 4),
          dot_ws_(n, std::min(restart + 1, chunk)),
          gram_ws_(n, orth == ArnoldiOrth::cgs2_lowsync ? std::min(restart + 1, chunk) : 0, 2,
                   static_cast<int>(sizeof(T))),
          host_(2 * static_cast<std::size_t>(restart) + 4),
          lowsync_(restart), coef_(2 * static_cast<std::size_t>(restart) + 4)
    {
        if (orth != ArnoldiOrth::cgs2_lowsync) return;
        const std::size_t m = static_cast<std::size_t>(restart);
        lstate_ = device_buffer<T>(lowsync_.state_size());
        ghist_ = device_buffer<T>(m * gstride());
        dC_ = device_buffer<T>(2 * (m + 3));
        dflag_ = device_buffer<int>(1);
        hh_.emplace(m * (m + 2));
        KBENCH_CUDA_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&hh_device_),
                                                   hh_->data(), 0));
        done_.resize(m);
    }

    /// Column j of V (device, n entries used, ld reserved).
    T* col(int j) { return v_.data() + static_cast<std::int64_t>(j) * ld_; }

    /// ||w|| for a device vector w of n entries: w . w, reduced, copied to the host.
    template <typename Reduce>
    double norm(const T* w, Reduce&& reduce)
    {
        dot_self(w, reduce);
        fetch(0, 0);
        return norm_on_host();
    }

    /// w := factor * w (n entries).
    void scale(T* w, double factor)
    {
        blas::gemm_rowwise<T>(n_, 0, 1, T(0), nullptr, n_, nullptr, 1, static_cast<T>(factor), w,
                              n_, stream_);
    }

    /// Column j + 1 holds the new Krylov vector (A v_j, or M^-1 A v_j): orthogonalizes it
    /// against columns 0..j, sets h[0..j] to the coefficients and h[j + 1] to the norm of what
    /// is left, and divides the column by that norm when it is positive and finite.
    /// One synchronization (the coefficients and the norm come to the host together).
    /// Throws std::logic_error for cgs2_lowsync, whose step multiplies by A itself
    /// (orthogonalize_lowsync).
    template <typename Reduce>
    void orthogonalize(int j, std::vector<T>& h, Reduce&& reduce)
    {
        KBENCH_NVTX_RANGE("gmres::arnoldi_step");
        if (orth_ == ArnoldiOrth::cgs2_lowsync)
            throw std::logic_error("DeviceArnoldi::orthogonalize: cgs2_lowsync multiplies one "
                                   "vector ahead, call orthogonalize_lowsync");
        T* w = col(j + 1);
        if (orth_ == ArnoldiOrth::cgs2) {
            cgs_pass(j, w, 0, reduce);
            cgs_pass(j, w, m_ + 1, reduce);
            dot_self(w, reduce);
            fetch(0, 2 * m_ + 2);
            for (int i = 0; i <= j; ++i) h[i] = host_[i] + host_[m_ + 1 + i];
        } else {
            for (int i = 0; i <= j; ++i) {
                blas::dot(n_, col(i), w, c_.data() + i, dot_ws_.data(), dot_ws_.bytes(),
                          stream_);
                reduce(c_.data() + i, 1);
                blas::gemm_rowwise<T>(n_, 1, 1, T(-1), col(i), ld_, c_.data() + i, 1, T(1), w,
                                      n_, stream_);
            }
            dot_self(w, reduce);
            fetch(0, j + 1);
            for (int i = 0; i <= j; ++i) h[i] = host_[i];
        }
        const double norm = norm_on_host();
        h[j + 1] = static_cast<T>(norm);
        if (norm > 0.0 && std::isfinite(norm)) scale(w, 1.0 / norm);
    }

    /// Step j of the one-reduce CGS2 (ArnoldiOrth::cgs2_lowsync, solvers/gmres.hpp): on entry
    /// columns 0..j hold v_0..v_j and, for j > 0, column j + 1 holds u_{j+1} = A v_j - V_j c_j
    /// (left there by step j - 1); step 0 first makes it: column 1 := A v_0 (apply), c_0 =
    /// v_0^T A v_0 (mdgm, reduced), column 1 -= v_0 c_0. Then: column j + 2 := A u_{j+1}
    /// (apply; not in the cycle's last step j = m - 1), G = [V_j, u_{j+1}]^T [u_{j+1}, A u_{j+1}]
    /// by blas::gram in chunks of 64 basis columns, reduced once, copied to the host (one
    /// synchronization); h[0..j + 1] = column j of H (final), column j + 1 := v_{j+1} =
    /// (u_{j+1} - V_j a) / nu, and column j + 2 := u_{j+2} = (A u_{j+1} - V_{j+1} d) / nu (not
    /// when nu is 0 or not finite), both in one pass over the basis (fused_update). When the
    /// Pythagorean norm is inaccurate (LowSyncArnoldi::second_pass) nu is a dot product of the
    /// updated column: one more reduction and synchronization. apply(x, y): y := A x (or M^-1 A
    /// x) for device vectors of this process, enqueued on the stream. Where the reduction is
    /// stream-ordered too (reduce.stream_ordered: one GPU, NCCL) and apply never waits for the
    /// device, the step goes without the copy and the synchronization: pipelined_lowsync below.
    template <typename Apply, typename Reduce>
    void orthogonalize_lowsync(int j, std::vector<T>& h, Apply&& apply, Reduce&& reduce)
    {
        KBENCH_NVTX_RANGE("gmres::arnoldi_step_lowsync");
        if (reduce.stream_ordered) {
            pipelined_lowsync(j, h, apply, reduce);
        } else {
            T* g = c_.data();
            lowsync_product(j, g, apply, reduce);
            lowsync_finish(j, h, g, reduce);
        }
    }

    /// The synchronized first half of step j: (step 0: the first pass of A v_0), A u_{j+1}, G
    /// into device memory at g (ld j + 2), reduced, copied to host_; one synchronization.
    template <typename Apply, typename Reduce>
    void lowsync_product(int j, T* g, Apply& apply, Reduce& reduce)
    {
        if (j == 0) {  // the first CGS pass of A v_0
            apply(col(0), col(1));
            blas::mdgm(n_, 1, col(0), ld_, col(1), first(), dot_ws_.data(), dot_ws_.bytes(),
                       stream_);
            reduce(first(), 1);
            blas::gemm_rowwise<T>(n_, 1, 1, T(-1), col(0), ld_, first(), 1, T(1), col(1), n_,
                                  stream_);
        }
        const bool ahead = j + 2 <= m_;
        const int kw = ahead ? 2 : 1;
        const int kv = j + 2;
        if (ahead) apply(col(j + 1), col(j + 2));
        for (int c0 = 0; c0 < kv; c0 += chunk)
            blas::gram(n_, std::min(chunk, kv - c0), col(c0), ld_, kw, col(j + 1), ld_, g + c0,
                       kv, gram_ws_.data(), gram_ws_.bytes(), stream_);
        reduce(g, kv * kw);
        KBENCH_CUDA_CHECK(cudaMemcpyAsync(host_.data(), g, sizeof(T) * kv * kw,
                                          cudaMemcpyDeviceToHost, stream_));
        if (j == 0)
            KBENCH_CUDA_CHECK(cudaMemcpyAsync(host_.data() + 2 * m_ + 3, first(), sizeof(T),
                                              cudaMemcpyDeviceToHost, stream_));
        KBENCH_CUDA_CHECK(cudaStreamSynchronize(stream_));
        if (j == 0) lowsync_.start(host_[2 * m_ + 3]);
    }

    /// The second half of step j from G (host_, and on the device at g): the Hessenberg column
    /// into h, the new basis vector and the look-ahead vector (see orthogonalize_lowsync).
    template <typename Reduce>
    void lowsync_finish(int j, std::vector<T>& h, T* g, Reduce& reduce)
    {
        const bool ahead = j + 2 <= m_;
        const int kv = j + 2;
        T* u = col(j + 1);
        double nu = lowsync_.second_pass(j, host_.data(), h);
        if (ahead && nu > 0.0 && std::isfinite(nu)) {  // the usual step: one fused update
            lowsync_.finish_column(j, nu, h);
            const T d_last = lowsync_.next_first_pass(j, host_.data(), nu);
            fused_update(j, nu, d_last);
            return;
        }
        if (nu >= 0.0) {  // u := (u - V_j a) / nu
            if (nu > 0.0 && std::isfinite(nu)) subtract_scaled(j + 1, g, 1.0 / nu, u);
        } else if (!std::isnan(nu)) {  // the Pythagorean norm cancelled: measure it
            subtract_scaled(j + 1, g, 1.0, u);
            dot_self(u, reduce);
            fetch(0, 0);
            nu = norm_on_host();
            if (nu > 0.0 && std::isfinite(nu)) scale(u, 1.0 / nu);
        }
        lowsync_.finish_column(j, nu, h);
        if (!ahead || !(nu > 0.0) || !std::isfinite(nu)) return;
        // Pinned: the copy runs in stream order, no synchronization; the next step's
        // synchronization comes before the value is written again.
        coef_[0] = lowsync_.next_first_pass(j, host_.data(), nu);
        KBENCH_CUDA_CHECK(cudaMemcpyAsync(g + kv + j + 1, coef_.data(), sizeof(T),
                                          cudaMemcpyHostToDevice, stream_));
        subtract_scaled(j + 2, g + kv, 1.0 / nu, col(j + 2));
    }

    /// x += [v_0 .. v_{k-1}] y, k = y.size() <= m; x: device vector of n entries. Returns once
    /// the copy of y (host memory the caller may free) is done.
    void update(const std::vector<T>& y, T* x)
    {
        const int k = static_cast<int>(y.size());
        KBENCH_CUDA_CHECK(cudaMemcpyAsync(c_.data(), y.data(), sizeof(T) * k,
                                          cudaMemcpyHostToDevice, stream_));
        for (int c0 = 0; c0 < k; c0 += chunk) {
            const int kk = std::min(chunk, k - c0);
            blas::gemm_rowwise<T>(n_, kk, 1, T(1), col(c0), ld_, c_.data() + c0, kk, T(1), x, n_,
                                  stream_);
        }
        KBENCH_CUDA_CHECK(cudaStreamSynchronize(stream_));
    }

private:
    T* norm2() { return c_.data() + 2 * m_ + 2; }
    T* first() { return c_.data() + 2 * m_ + 3; }

    /// w := factor (w - [v_0 .. v_{k-1}] b) for a device vector b of k entries, chunk by chunk.
    void subtract_scaled(int k, const T* b, double factor, T* w)
    {
        const T f = static_cast<T>(factor);
        for (int c0 = 0; c0 < k; c0 += chunk)
            blas::gemm_rowwise<T>(n_, std::min(chunk, k - c0), 1, -f, col(c0), ld_, b + c0,
                                  std::min(chunk, k - c0), c0 == 0 ? f : T(1), w, n_, stream_);
    }

    /// The two vector updates of a one-reduce step j with nu > 0 and a look-ahead vector, in one
    /// pass over the basis: with f = 1 / nu, a = G(0:j, 0), d = G(0:j, 1) and d' = d_{j+1},
    ///   v_{j+1} = f (u - V_j a),  u_{j+2} = f (w - V_j d - d' v_{j+1})
    ///          = f w - f^2 d' u - V_j (f d - f^2 d' a),
    /// so [u, w] := [V_j, u, w] C for the (j + 3) x 2 matrix C formed on the host (pinned, copied
    /// in stream order; the next step's synchronization comes before it is written again) into
    /// c[0 ..), which G no longer needs. blas::gemm_rowwise writes columns j + 1, j + 2 of V while
    /// it reads columns 0..j + 2 (each row is read whole before it is written). More than 64
    /// columns go in chunks, the last 64 (those holding u and w) first, so no chunk reads a column
    /// that an earlier chunk wrote. Reads the basis once instead of twice (j + 5 vectors of
    /// traffic instead of 2j + 7).
    void fused_update(int j, double nu, T d_last)
    {
        const int kc = j + 3;
        const double f = 1.0 / nu;
        const double fd = f * f * static_cast<double>(d_last);
        const T* a = host_.data();
        const T* d = host_.data() + (j + 2);
        T* C = coef_.data();
        for (int i = 0; i <= j; ++i) {
            C[i] = static_cast<T>(-f * static_cast<double>(a[i]));
            C[kc + i] = static_cast<T>(fd * static_cast<double>(a[i]) -
                                       f * static_cast<double>(d[i]));
        }
        C[j + 1] = static_cast<T>(f);
        C[j + 2] = T(0);
        C[kc + j + 1] = static_cast<T>(-fd);
        C[kc + j + 2] = static_cast<T>(f);
        T* dc = c_.data();
        KBENCH_CUDA_CHECK(cudaMemcpyAsync(dc, C, sizeof(T) * 2 * kc, cudaMemcpyHostToDevice,
                                          stream_));
        update_from_basis(kc, 2, dc);
    }

    /// Columns j + 1 .. j + kw of V := V's columns 0..kc - 1 times the device matrix C (kc x kw,
    /// ld kc), kc = j + 1 + kw. More than 64 columns go in chunks, the last 64 (those holding
    /// the written columns) first, so no chunk reads a column that an earlier chunk wrote.
    void update_from_basis(int kc, int kw, const T* C)
    {
        T* out = col(kc - kw);
        const int first = std::max(0, kc - chunk);
        blas::gemm_rowwise<T>(n_, kc - first, kw, T(1), col(first), ld_, C + first, kc, T(0),
                              out, ld_, stream_);
        for (int c0 = 0; c0 < first; c0 += chunk)
            blas::gemm_rowwise<T>(n_, std::min(chunk, first - c0), kw, T(1), col(c0), ld_,
                                  C + c0, kc, T(1), out, ld_, stream_);
    }

    // ---- One-reduce steps without a host round trip (stream-ordered reduction) --------------
    // Step j is enqueued whole: (step 0: the first pass of A v_0, reduced, c_0 to the device
    // state), A u_{j+1}, G into its slot of ghist_, reduced, lowsync_step_coefficients (the
    // Hessenberg column, the next first pass and C, in the host's arithmetic, on the device state
    // lstate_; it writes the Hessenberg column and the flag straight into mapped pinned memory,
    // hh_, so no copy engine sits between the step's kernels), the update of columns j + 1 (and
    // j + 2) from C, then the event done_[j]. arnoldi(j) enqueues step j (unless it already
    // is) and step j + 1 before it waits for done_[j], so the GPU never waits for the host.
    // Where a step stops (the cycle's end, convergence, a breakdown) the enqueued step after it
    // only wrote columns past those the solution update reads and state the next cycle resets.
    // A step whose Pythagorean norm is not positive and finite raises the device flag, which
    // turns every later update into the identity; the host then drains the stream, loads the
    // device state into lowsync_ and takes that step by the synchronized path (lowsync_finish
    // on G's slot), stores the state back, clears the flag and enqueues the next step anew.
    // Over several ranks every rank enqueues the same collectives in the same order: each takes
    // the same decisions from the same reduced values (a stale step included).

    std::size_t gstride() const { return 2 * static_cast<std::size_t>(m_ + 2); }

    template <typename Apply, typename Reduce>
    void pipelined_lowsync(int j, std::vector<T>& h, Apply& apply, Reduce& reduce)
    {
        if (j == 0) next_ = 0;  // a new cycle: an enqueued step of the last one is stale
        if (next_ == j) enqueue_lowsync_step(j, apply, reduce);
        if (j + 2 <= m_ && next_ == j + 1) enqueue_lowsync_step(j + 1, apply, reduce);
        done_[j].synchronize();
        const std::size_t at = static_cast<std::size_t>(j) * (m_ + 2);
        if ((*hh_)[at + m_ + 1] == T(0)) {  // the flag after step j
            for (int i = 0; i <= j + 1; ++i) h[i] = (*hh_)[at + i];
            return;
        }
        KBENCH_CUDA_CHECK(cudaStreamSynchronize(stream_));  // the later, identity steps
        std::vector<T> state(lowsync_.state_size());
        KBENCH_CUDA_CHECK(cudaMemcpy(state.data(), lstate_.data(), sizeof(T) * state.size(),
                                     cudaMemcpyDeviceToHost));
        lowsync_.load_state(state.data());
        T* g = ghist_.data() + j * gstride();
        const int kw = j + 2 <= m_ ? 2 : 1;
        KBENCH_CUDA_CHECK(cudaMemcpy(host_.data(), g, sizeof(T) * (j + 2) * kw,
                                     cudaMemcpyDeviceToHost));
        lowsync_finish(j, h, g, reduce);
        lowsync_.save_state(state.data());
        KBENCH_CUDA_CHECK(cudaMemcpyAsync(lstate_.data(), state.data(), sizeof(T) * state.size(),
                                          cudaMemcpyHostToDevice, stream_));
        KBENCH_CUDA_CHECK(cudaMemsetAsync(dflag_.data(), 0, sizeof(int), stream_));
        KBENCH_CUDA_CHECK(cudaStreamSynchronize(stream_));  // `state` is pageable host memory
        next_ = j + 1;
    }

    template <typename Apply, typename Reduce>
    void enqueue_lowsync_step(int j, Apply& apply, Reduce& reduce)
    {
        T* g = ghist_.data() + j * gstride();
        if (j == 0) {  // the first CGS pass of A v_0; c_0 into the device state
            KBENCH_CUDA_CHECK(cudaMemsetAsync(dflag_.data(), 0, sizeof(int), stream_));
            apply(col(0), col(1));
            blas::mdgm(n_, 1, col(0), ld_, col(1), first(), dot_ws_.data(), dot_ws_.bytes(),
                       stream_);
            reduce(first(), 1);
            blas::gemm_rowwise<T>(n_, 1, 1, T(-1), col(0), ld_, first(), 1, T(1), col(1), n_,
                                  stream_);
            KBENCH_CUDA_CHECK(cudaMemcpyAsync(lstate_.data(), first(), sizeof(T),
                                              cudaMemcpyDeviceToDevice, stream_));
        }
        const bool ahead = j + 2 <= m_;
        const int kw = ahead ? 2 : 1;
        const int kv = j + 2;
        if (ahead) apply(col(j + 1), col(j + 2));
        for (int c0 = 0; c0 < kv; c0 += chunk)
            blas::gram(n_, std::min(chunk, kv - c0), col(c0), ld_, kw, col(j + 1), ld_, g + c0,
                       kv, gram_ws_.data(), gram_ws_.bytes(), stream_);
        reduce(g, kv * kw);
        const std::size_t at = static_cast<std::size_t>(j) * (m_ + 2);
        lowsync_step_coefficients<T>(j, m_, ahead, g, lstate_.data(), dflag_.data(),
                                     hh_device_ + at, dC_.data(), stream_);
        update_from_basis(kv + kw - 1, kw, dC_.data());
        done_[j].record(stream_);
        next_ = j + 1;
    }

    template <typename Reduce>
    void dot_self(const T* w, Reduce& reduce)
    {
        blas::dot(n_, w, w, norm2(), dot_ws_.data(), dot_ws_.bytes(), stream_);
        reduce(norm2(), 1);
    }

    /// Copies c[first .. first + count) and c[2m + 2] to the host (one synchronization).
    void fetch(int first, int count)
    {
        if (count > 0)
            KBENCH_CUDA_CHECK(cudaMemcpyAsync(host_.data() + first, c_.data() + first,
                                              sizeof(T) * count, cudaMemcpyDeviceToHost,
                                              stream_));
        KBENCH_CUDA_CHECK(cudaMemcpyAsync(host_.data() + 2 * m_ + 2, norm2(), sizeof(T),
                                          cudaMemcpyDeviceToHost, stream_));
        KBENCH_CUDA_CHECK(cudaStreamSynchronize(stream_));
    }
    /// sqrt(w . w) from the host copy; a NaN stays NaN (so run_gmres reports non_finite).
    double norm_on_host() const
    {
        const double s = static_cast<double>(host_[2 * m_ + 2]);
        return std::isnan(s) ? s : std::sqrt(std::max(0.0, s));
    }

    /// One Gram-Schmidt pass of w against v_0..v_j: h = V^T w into c + offset (reduced once for
    /// all j + 1 values), w -= V h.
    template <typename Reduce>
    void cgs_pass(int j, T* w, int offset, Reduce& reduce)
    {
        T* h = c_.data() + offset;
        for (int c0 = 0; c0 <= j; c0 += chunk) {
            const int k = std::min(chunk, j + 1 - c0);
            blas::mdgm(n_, k, col(c0), ld_, w, h + c0, dot_ws_.data(), dot_ws_.bytes(), stream_);
        }
        reduce(h, j + 1);
        for (int c0 = 0; c0 <= j; c0 += chunk) {
            const int k = std::min(chunk, j + 1 - c0);
            blas::gemm_rowwise<T>(n_, k, 1, T(-1), col(c0), ld_, h + c0, k, T(1), w, n_,
                                  stream_);
        }
    }

    std::int64_t n_;
    std::int64_t ld_;
    int m_;
    ArnoldiOrth orth_;
    cudaStream_t stream_;
    device_buffer<T> v_;
    device_buffer<T> c_;
    // Two workspaces, each with ticket counters zeroed once by its owner and left zero by every
    // call: the dot kernels' own (DotWorkspace; no other kernel writes it) and blas::gram's
    // (GramWorkspace, the one-reduce step's products: the basis chunks' [V, u]^T [u, A u], kv <=
    // min(m + 1, 64), kw <= 2; empty unless cgs2_lowsync; no other kernel writes it).
    blas::DotWorkspace dot_ws_;
    blas::GramWorkspace gram_ws_;
    std::vector<T> host_;  // copy of c
    LowSyncArnoldi<T> lowsync_;
    pinned_array<T> coef_;  // cgs2_lowsync: C of fused_update, or d's last entry, for the device
    // cgs2_lowsync without a host round trip (pipelined_lowsync; allocated for it only).
    device_buffer<T> lstate_;          // lowsync_'s state on the device (c, then H)
    device_buffer<T> ghist_;           // G of step j at j * gstride()
    device_buffer<T> dC_;              // the update's coefficients, 2 (m + 3)
    device_buffer<int> dflag_;         // 0, or 1 + the first step the host must take
    std::optional<pinned_array<T>> hh_;       // column j of H at j * (m + 2), the flag at its end
    T* hh_device_ = nullptr;                  // hh_ as the coefficient kernel writes it (mapped)
    std::vector<cuda_event> done_;            // step j's copies are done
    int next_ = 0;                            // first step of the cycle not yet enqueued
};

}  // namespace kbench::solvers::detail
