// CA-GMRES(s, m) on the distributed layer: the CPU and GPU backends of the shared iteration
// (solvers/ca_gmres_cycle.hpp); see distributed_ca_gmres.hpp. Host code only: the GPU backend
// calls the launchers of kernels/tall_skinny.hpp and kernels/dot.hpp, and needs no kernel of its
// own.
#include "solvers/distributed/distributed_ca_gmres.hpp"

#include "kernels/base/cuda_check.hpp"
#include "kernels/base/cuda_handles.hpp"
#include "kernels/base/device_buffer.hpp"
#include "kernels/dot.hpp"
#include "kernels/tall_skinny.hpp"
#include "solvers/ca_gmres_cycle.hpp"
#include "solvers/orthogonalization/small_factor.hpp"
#include "solvers/orthogonalization/tsqr_gpu.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace kbench::dist {

using solvers::CaGmresOptions;
using solvers::CaGmresResult;
using solvers::MpkStep;

void check_distributed_ca_gmres_options(const char* who, long long n, int ranks, int mpk_steps,
                                        const CaGmresOptions& o)
{
    solvers::detail::check_ca_gmres_options(who, n, n, o);
    const std::string w{who};
    if (o.s > mpk_steps)
        throw std::invalid_argument(w + ": s = " + std::to_string(o.s) +
                                    ", expected s <= the MPK's steps = " +
                                    std::to_string(mpk_steps) +
                                    " (mpk: distribute_mpk with s >= options.s)");
    if (o.measure_orthogonality)
        throw std::invalid_argument(w + ": measure_orthogonality = true, expected false (the "
                                        "per-block TSQR errors are not measured on the ranks)");
    if (ranks > 1) {
        for (const auto& [name, method] : {std::pair{"tsqr", o.tsqr},
                                           std::pair{"fallback_tsqr", o.fallback_tsqr}})
            if (!ortho::detail::is_gram_tsqr(method))
                throw std::invalid_argument(
                    w + ": " + name + " = " + ortho::to_string(method) +
                    " is not a Gram-based TSQR, expected cholqr, cholqr2, svqr or "
                    "shifted_cholqr3 on " +
                    std::to_string(ranks) + " ranks (one all-reduce per pass)");
    }
}

namespace {

/// The MPK's squared norms as the serial matrix_powers reports them (n2[t] = ||w~_t||^2 of the
/// scaled recurrence, t = 1..k) from the squared norms u2[t] of the unscaled vectors u_t
/// (u2[0] = 1: the start vector is orthonormal): n2[t] = u2[t] / u2[t-1]. scale[t] receives
/// 1 / ||u_t|| (1 when ||u_t|| is 0 or not finite: that vector and the ratios after it are
/// left unscaled, as the serial mpk_scale leaves a vector it cannot scale).
template <typename T>
void unscaled_norms(int k, const T* u2, T* n2, std::vector<T>& scale)
{
    scale.assign(static_cast<std::size_t>(k) + 1, T(1));
    double previous = 1.0;
    for (int t = 1; t <= k; ++t) {
        const double q = static_cast<double>(u2[t]);
        n2[t] = static_cast<T>(q / previous);
        if (q > 0.0 && std::isfinite(q)) {
            scale[t] = static_cast<T>(1.0 / std::sqrt(q));
            previous = q;
        } else {
            previous = 1.0;
        }
    }
}

std::string vector_size_error(const char* who, const char* name, std::size_t size,
                              index_type num_owned, int rank)
{
    if (size == static_cast<std::size_t>(num_owned)) return {};
    return std::string(who) + ": " + name + " has " + std::to_string(size) + " entries on rank " +
           std::to_string(rank) + ", expected num_owned = " + std::to_string(num_owned);
}

/// The checks shared by both entry points (collective); returns the global rows.
long long check_entry(const Communicator& comm, const char* who, index_type owned, int mpk_steps,
                      const CaGmresOptions& o, const std::string& local_error)
{
    const long long n = comm.allreduce_sum(static_cast<std::int64_t>(owned));
    check_distributed_ca_gmres_options(who, n, comm.size(), mpk_steps, o);
    agree_or_throw(comm, local_error);
    return n;
}

// ---- CPU -----------------------------------------------------------------------------------

template <typename T>
using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;

/// The CPU backend of solvers::detail::run_ca_gmres on one rank: the basis Q (num_owned x
/// (m + 1)) as an Eigen matrix, reductions through Communicator::allreduce_sum.
template <typename T>
struct CpuBackend {
    const Communicator& comm;
    DistributedMpkCpu<T>& a;
    Eigen::Map<const Matrix<T>> b;
    Eigen::Map<Matrix<T>> x;
    std::int64_t global_n;
    int passes;
    bool normalize;
    Matrix<T> v, c, saved, g, work;
    std::vector<T> n2, scale;
    solvers::detail::PhaseLog log;

    CpuBackend(const Communicator& comm_, DistributedMpkCpu<T>& mpk, const std::vector<T>& b_,
               std::vector<T>& x_, std::int64_t n, int m, const CaGmresOptions& o)
        : comm(comm_), a(mpk), b(b_.data(), mpk.local().num_owned(), 1),
          x(x_.data(), mpk.local().num_owned(), 1), global_n(n), passes(o.borth_passes),
          normalize(o.normalize_basis),
          v(Matrix<T>::Zero(std::max<index_type>(mpk.local().num_owned(), 1), m + 1)),
          work(Matrix<T>::Zero(v.rows(), 2))
    {
    }
    Eigen::Index n() const { return b.rows(); }
    std::int64_t rows() const { return global_n; }
    void sync() const {}
    auto block(int j, int k) { return v.middleCols(j + 1, k).topRows(n()); }
    auto basis_rows(int c0, int c) { return v.middleCols(c0, c).topRows(n()); }
    void reduce(T* values, int count) { comm.allreduce_sum(values, count); }
    double global_norm(T local_sum)
    {
        reduce(&local_sum, 1);
        const double s = static_cast<double>(local_sum);
        return std::isnan(s) ? s : std::sqrt(std::max(0.0, s));
    }

    double norm_b() { return global_norm(b.squaredNorm()); }
    double residual()
    {
        work.col(0).head(n()) = x;
        a.apply({MpkStep{}}, work.data(), work.rows());  // column 1 := A x
        v.col(0).head(n()) = b - work.col(1).head(n());
        return global_norm(v.col(0).head(n()).squaredNorm());
    }
    void scale_first(double inv) { v.col(0) *= static_cast<T>(inv); }
    void mpk(int j, int k, const std::vector<MpkStep>& steps)
    {
        a.apply(steps, v.col(j).data(), v.rows());
        n2.assign(static_cast<std::size_t>(k) + 1, T(0));
        if (!normalize) return;
        std::vector<T> u2(static_cast<std::size_t>(k) + 1, T(1));
        for (int t = 1; t <= k; ++t) u2[t] = v.col(j + t).head(n()).squaredNorm();
        reduce(u2.data() + 1, k);
        unscaled_norms(k, u2.data(), n2.data(), scale);
        for (int t = 1; t <= k; ++t) v.col(j + t) *= scale[t];
    }
    void borth(int j, int k)
    {
        const auto q = basis_rows(0, j + 1);
        auto w = block(j, k);
        c = Matrix<T>::Zero(j + 1, k);
        for (int pass = 0; pass < passes; ++pass) {
            Matrix<T> cp = q.transpose() * w;
            reduce(cp.data(), static_cast<int>(cp.size()));  // one all-reduce per pass
            w.noalias() -= q * cp;
            c += cp;
        }
    }
    void save(int j, int k) { saved = block(j, k); }
    void restore(int j, int k) { block(j, k) = saved; }
    ortho::TsqrOutcome tsqr(ortho::TsqrMethod method, int j, int k, T* R)
    {
        if (!ortho::detail::is_gram_tsqr(method))  // one rank only (checked)
            return ortho::reference::tsqr(method, n(), k, v.col(j + 1).data(), v.rows(), R, k);
        auto w = block(j, k);
        return ortho::detail::gram_tsqr<T>(
            method, global_n, k, R, k,
            [&](T* G) {
                Eigen::Map<Matrix<T>>(G, k, k) = w.transpose() * w;
                reduce(G, k * k);
            },
            [&](const T* U) {
                const Eigen::Map<const Matrix<T>> u(U, k, k);
                u.template triangularView<Eigen::Upper>().template solveInPlace<Eigen::OnTheRight>(
                    w);
            },
            [&](const T* M) { w = (Matrix<T>(w) * Eigen::Map<const Matrix<T>>(M, k, k)).eval(); });
    }
    void fetch(int j, int k, T* C, T* norm2)
    {
        Eigen::Map<Matrix<T>>(C, j + 1, k) = c;
        std::copy_n(n2.begin(), std::min(n2.size(), static_cast<std::size_t>(k) + 1), norm2);
    }
    void project(int j, int k)
    {
        g = basis_rows(0, j + 1 + k).transpose() * block(j, k);
        reduce(g.data(), static_cast<int>(g.size()));
    }
    void fetch_projection(int j, int k, T* G, T* norm2)
    {
        Eigen::Map<Matrix<T>>(G, j + 1 + k, k) = g;
        std::copy_n(n2.begin(), std::min(n2.size(), static_cast<std::size_t>(k) + 1), norm2);
    }
    void stage1(int j, int k, const T* R)
    {
        auto w = block(j, k);
        w.noalias() -= basis_rows(0, j + 1) * g.topRows(j + 1);
        if (R == nullptr) return;
        const Eigen::Map<const Matrix<T>> r(R, k, k);
        r.template triangularView<Eigen::Upper>().template solveInPlace<Eigen::OnTheRight>(w);
    }
    bool block_finite(int j, int k)
    {
        return comm.allreduce_sum(block(j, k).allFinite() ? 0 : 1) == 0;
    }
    ortho::TsqrQuality quality(int, int, const T*)
    {
        throw std::logic_error("distributed CA-GMRES: measure_orthogonality is rejected");
    }
    void update(const std::vector<T>& y)
    {
        const Eigen::Map<const Matrix<T>> yv(y.data(), static_cast<Eigen::Index>(y.size()), 1);
        x += basis_rows(0, static_cast<int>(yv.rows())) * yv;
    }
    void basis(int cols, std::vector<T>& out)
    {
        out.assign(v.data(), v.data() + v.rows() * (cols + 1));
    }
};

// ---- GPU -----------------------------------------------------------------------------------

constexpr int chunk = blas::max_block_columns;  // columns per gram / gemm_rowwise call

/// The GPU backend of solvers::detail::run_ca_gmres on one rank. Device layout: the basis Q
/// (ld x (m + 1), ld = max(1, num_owned)); the fallback copy of a block or panel (ld x kmax);
/// two work columns (the residual's A x); coef: the BOrth coefficients ((j + 1) x k, ld j + 1)
/// or stage 1's fused product ((j + 1 + k) x k) at 0 (cregion values), then the squared norms
/// (kmax + 1), then m + 1 values (y, a block's column norms), the Gram matrix and its factor
/// (kmax x kmax each), the constant 1. Every sum over the rows is reduced in place on the device
/// by mpk.exchange().allreduce_sum and then copied to the host. Three workspaces: `dots`, the
/// column norms' MDOT workspace (ticket counters zeroed once by blas::DotWorkspace, left zero by
/// every call, written by nothing else); `grams`, blas::gram's (the block products and the Gram
/// TSQRs; ticket counters likewise zeroed once by blas::GramWorkspace, left zero by every gram,
/// written by nothing else); and `ws` for the serial TSQRs, which overwrite all of it (so it
/// cannot hold gram's counters: a CAQR there would leave them non-zero).
template <typename T>
struct GpuBackend {
    DistributedMpk<T>& a;
    const T* b;
    T* x;
    std::int64_t n, ld, global_n;
    int m, s, kmax;
    std::size_t cregion;
    int passes;
    bool normalize;
    ortho::GpuHandles hd;
    device_buffer<T> v, saved, work, coef;
    blas::DotWorkspace dots;
    blas::GramWorkspace grams;
    device_buffer<unsigned char> ws;
    std::vector<T> host, n2, scale, c, g;
    std::vector<const T*> ptrs;
    solvers::detail::PhaseLog log;

    GpuBackend(DistributedMpk<T>& mpk, const T* b_, T* x_, std::int64_t global, int restart,
               const CaGmresOptions& o, const ortho::GpuHandles& handles)
        : a(mpk), b(b_), x(x_), n(mpk.num_owned()), ld(std::max<std::int64_t>(n, 1)),
          global_n(global), m(restart), s(std::min(o.s, restart)),
          kmax(o.borth == solvers::CaBorth::two_stage
                   ? std::max(s, solvers::detail::panel_limit(o, restart))
                   : s),
          cregion(std::max(static_cast<std::size_t>(restart + 1) * kmax,
                           static_cast<std::size_t>(restart + 1 + s) * s)),
          passes(o.borth_passes), normalize(o.normalize_basis), hd(handles),
          v(static_cast<std::size_t>(ld) * (restart + 1)),
          saved(static_cast<std::size_t>(ld) * kmax), work(static_cast<std::size_t>(ld) * 2),
          coef(cregion + kmax + 1 + restart + 1 + 2 * static_cast<std::size_t>(kmax) * kmax + 1),
          dots(n, kmax), grams(n, chunk, kmax, static_cast<int>(sizeof(T))),
          host(cregion + kmax + 1)
    {
        std::size_t bytes = 0;
        // The serial TSQRs that one rank may run (its n is the global n there).
        for (int k = 1; k <= std::min<std::int64_t>(kmax, n); ++k)
            for (const ortho::TsqrMethod method : {o.tsqr, o.fallback_tsqr})
                if (!ortho::detail::is_gram_tsqr(method))
                    bytes = std::max(bytes,
                                     ortho::tsqr_workspace_bytes(method, hd, n, k, sizeof(T)));
        ws = device_buffer<unsigned char>(std::max<std::size_t>(bytes, 256));
        const T one(1);
        KBENCH_CUDA_CHECK(cudaMemcpyAsync(one_value(), &one, sizeof(T), cudaMemcpyHostToDevice,
                                          hd.stream));
    }

    std::int64_t rows() const { return global_n; }
    T* col(int j) { return v.data() + static_cast<std::int64_t>(j) * ld; }
    T* norm2() { return coef.data() + cregion; }
    T* tail() { return norm2() + kmax + 1; }
    T* gram_dev() { return tail() + m + 1; }
    T* factor_dev() { return gram_dev() + static_cast<std::size_t>(kmax) * kmax; }
    T* one_value() { return factor_dev() + static_cast<std::size_t>(kmax) * kmax; }
    void sync() { KBENCH_CUDA_CHECK(cudaStreamSynchronize(hd.stream)); }
    void d2d(T* dst, const T* src, std::int64_t count)
    {
        if (count > 0)
            KBENCH_CUDA_CHECK(cudaMemcpyAsync(dst, src, sizeof(T) * count,
                                              cudaMemcpyDeviceToDevice, hd.stream));
    }
    void h2d(T* dst, const T* src, std::size_t count)
    {
        KBENCH_CUDA_CHECK(
            cudaMemcpyAsync(dst, src, sizeof(T) * count, cudaMemcpyHostToDevice, hd.stream));
    }
    /// d_values summed over the ranks, then copied to host_values (synchronizes).
    void reduce_to_host(T* d_values, int count, T* host_values)
    {
        a.exchange().allreduce_sum(d_values, count, hd.stream);
        KBENCH_CUDA_CHECK(cudaMemcpyAsync(host_values, d_values, sizeof(T) * count,
                                          cudaMemcpyDeviceToHost, hd.stream));
        sync();
    }
    /// Squared column norms of the k columns from `first` into tail(), summed over the ranks,
    /// to host[0 .. k).
    void column_norms(const T* first, int k)
    {
        ptrs.resize(static_cast<std::size_t>(k));
        for (int t = 0; t < k; ++t) ptrs[t] = first + t * ld;
        blas::mdot(n, k, ptrs.data(), ptrs.data(), tail(), dots.data(), dots.bytes(), hd.stream);
        reduce_to_host(tail(), k, host.data());
    }
    double norm_of(const T* w)
    {
        column_norms(w, 1);
        const double q = static_cast<double>(host[0]);
        return std::isnan(q) ? q : std::sqrt(std::max(0.0, q));
    }
    void scale_column(T* w, T factor)
    {
        blas::gemm_rowwise<T>(n, 0, 1, T(0), nullptr, ld, nullptr, 1, factor, w, ld, hd.stream);
    }

    double norm_b() { return norm_of(b); }
    double residual()
    {
        d2d(work.data(), x, n);
        a.apply({MpkStep{}}, work.data(), ld, hd.stream);  // work column 1 := A x
        d2d(col(0), b, n);
        blas::gemm_rowwise<T>(n, 1, 1, T(-1), work.data() + ld, ld, one_value(), 1, T(1), col(0),
                              ld, hd.stream);
        return norm_of(col(0));
    }
    void scale_first(double inv) { scale_column(col(0), static_cast<T>(inv)); }
    void mpk(int j, int k, const std::vector<MpkStep>& steps)
    {
        a.apply(steps, col(j), ld, hd.stream);
        n2.assign(static_cast<std::size_t>(k) + 1, T(0));
        if (!normalize) return;
        column_norms(col(j + 1), k);
        std::vector<T> u2(static_cast<std::size_t>(k) + 1, T(1));
        std::copy_n(host.begin(), k, u2.begin() + 1);
        unscaled_norms(k, u2.data(), n2.data(), scale);
        for (int t = 1; t <= k; ++t)
            if (scale[t] != T(1)) scale_column(col(j + t), scale[t]);
    }
    /// coef(0 : kv, 0 : k) (ld kv) := Q_{0:kv-1}^T W, W = columns j + 1 .. j + k, local part.
    void local_products(int kv, int j, int k)
    {
        solvers::detail::block_products(n, kv, col(0), ld, k, col(j + 1), ld, coef.data(), kv,
                                        grams.data(), grams.bytes(), hd.stream);
    }
    /// W -= Q_{0:j} C, C = coef (ld ldc).
    void subtract(int j, int k, int ldc)
    {
        solvers::detail::block_subtract(n, j + 1, col(0), ld, k, coef.data(), ldc, col(j + 1), ld,
                                        hd.stream);
    }
    void borth(int j, int k)
    {
        const std::size_t count = static_cast<std::size_t>(j + 1) * k;
        c.assign(count, T(0));
        for (int pass = 0; pass < passes; ++pass) {
            local_products(j + 1, j, k);
            reduce_to_host(coef.data(), static_cast<int>(count), host.data());  // one per pass
            subtract(j, k, j + 1);
            for (std::size_t i = 0; i < count; ++i) c[i] += host[i];
        }
    }
    void save(int j, int k) { d2d(saved.data(), col(j + 1), ld * k); }
    void restore(int j, int k) { d2d(col(j + 1), saved.data(), ld * k); }
    ortho::TsqrOutcome tsqr(ortho::TsqrMethod method, int j, int k, T* R)
    {
        T* w = col(j + 1);
        if (!ortho::detail::is_gram_tsqr(method))  // one rank only (checked)
            return ortho::tsqr(method, hd, n, k, w, ld, R, k, ws.data(), ws.bytes());
        const std::size_t kk = static_cast<std::size_t>(k) * k;
        return ortho::detail::gram_tsqr<T>(
            method, global_n, k, R, k,
            [&](T* G) {
                blas::gram(n, k, w, ld, k, w, ld, gram_dev(), k, grams.data(), grams.bytes(),
                           hd.stream);
                reduce_to_host(gram_dev(), k * k, G);
            },
            [&](const T* U) {
                h2d(factor_dev(), U, kk);
                blas::trsm_right_upper<T>(n, k, w, ld, factor_dev(), k, hd.stream);
                sync();  // U is the caller's host memory
            },
            [&](const T* M) {
                h2d(factor_dev(), M, kk);
                blas::gemm_rowwise<T>(n, k, k, T(1), w, ld, factor_dev(), k, T(0), w, ld,
                                      hd.stream);
                sync();
            });
    }
    void fetch(int j, int k, T* C, T* norm2_out)
    {
        std::copy_n(c.begin(), static_cast<std::size_t>(j + 1) * k, C);
        std::copy_n(n2.begin(), std::min(n2.size(), static_cast<std::size_t>(k) + 1), norm2_out);
    }
    void project(int j, int k)
    {
        const int kv = j + 1 + k;
        local_products(kv, j, k);
        g.resize(static_cast<std::size_t>(kv) * k);
        reduce_to_host(coef.data(), static_cast<int>(g.size()), g.data());
    }
    void fetch_projection(int j, int k, T* G, T* norm2_out)
    {
        std::copy_n(g.begin(), static_cast<std::size_t>(j + 1 + k) * k, G);
        std::copy_n(n2.begin(), std::min(n2.size(), static_cast<std::size_t>(k) + 1), norm2_out);
    }
    void stage1(int j, int k, const T* R)
    {
        subtract(j, k, j + 1 + k);  // coef still holds the reduced fused product
        if (R == nullptr) return;
        h2d(factor_dev(), R, static_cast<std::size_t>(k) * k);
        blas::trsm_right_upper<T>(n, k, col(j + 1), ld, factor_dev(), k, hd.stream);
        sync();
    }
    bool block_finite(int j, int k)
    {
        column_norms(col(j + 1), k);
        for (int t = 0; t < k; ++t)
            if (!std::isfinite(static_cast<double>(host[t]))) return false;
        return true;
    }
    ortho::TsqrQuality quality(int, int, const T*)
    {
        throw std::logic_error("distributed CA-GMRES: measure_orthogonality is rejected");
    }
    void update(const std::vector<T>& y)
    {
        const int k = static_cast<int>(y.size());
        h2d(tail(), y.data(), static_cast<std::size_t>(k));
        solvers::detail::basis_update(n, k, col(0), ld, tail(), x, hd.stream);
        sync();  // y is host memory of the caller
    }
    void basis(int cols, std::vector<T>& out)
    {
        out.resize(static_cast<std::size_t>(ld) * (cols + 1));
        KBENCH_CUDA_CHECK(cudaMemcpyAsync(out.data(), v.data(), sizeof(T) * out.size(),
                                          cudaMemcpyDeviceToHost, hd.stream));
        sync();
    }
};

}  // namespace

template <typename T>
CaGmresResult distributed_ca_gmres_cpu(const Communicator& comm, DistributedMpkCpu<T>& mpk,
                                       const std::vector<T>& b_local, std::vector<T>& x_local,
                                       const CaGmresOptions& options)
{
    constexpr const char* who = "distributed_ca_gmres_cpu";
    const index_type owned = mpk.local().num_owned();
    std::string error = vector_size_error(who, "b_local", b_local.size(), owned, comm.rank());
    if (error.empty())
        error = vector_size_error(who, "x_local", x_local.size(), owned, comm.rank());
    const long long n = check_entry(comm, who, owned, mpk.steps(), options, error);
    CpuBackend<T> be(comm, mpk, b_local, x_local, n, solvers::detail::restart_length(options),
                     options);
    return solvers::detail::run_ca_gmres<T>(be, options);
}

template <typename T>
CaGmresResult distributed_ca_gmres(const Communicator& comm, DistributedMpk<T>& mpk,
                                   const T* d_b, T* d_x, const CaGmresOptions& options,
                                   cudaStream_t stream)
{
    constexpr const char* who = "distributed_ca_gmres";
    const index_type owned = mpk.num_owned();
    std::string error;
    if (owned > 0 && (d_b == nullptr || d_x == nullptr))
        error = std::string(who) + ": " + (d_b == nullptr ? "d_b" : "d_x") + " is null on rank " +
                std::to_string(comm.rank()) + ", expected " + std::to_string(owned) +
                " device entries";
    const long long n = check_entry(comm, who, owned, mpk.steps(), options, error);
    cublas_handle blas;
    cusolver_handle solver;
    KBENCH_CUBLAS_CHECK(cublasSetStream(blas, stream));
    KBENCH_CUBLAS_CHECK(cublasSetPointerMode(blas, CUBLAS_POINTER_MODE_HOST));
    KBENCH_CUSOLVER_CHECK(cusolverDnSetStream(solver, stream));
    GpuBackend<T> be(mpk, d_b, d_x, n, solvers::detail::restart_length(options), options,
                     ortho::GpuHandles{stream, blas, solver});
    CaGmresResult result = solvers::detail::run_ca_gmres<T>(be, options);
    KBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
    return result;
}

#define KBENCH_DISTRIBUTED_CA_GMRES(T)                                                         \
    template CaGmresResult distributed_ca_gmres_cpu<T>(const Communicator&,                    \
                                                       DistributedMpkCpu<T>&,                  \
                                                       const std::vector<T>&, std::vector<T>&, \
                                                       const CaGmresOptions&);                 \
    template CaGmresResult distributed_ca_gmres<T>(const Communicator&, DistributedMpk<T>&,    \
                                                   const T*, T*, const CaGmresOptions&,        \
                                                   cudaStream_t);
KBENCH_DISTRIBUTED_CA_GMRES(float)
KBENCH_DISTRIBUTED_CA_GMRES(double)
#undef KBENCH_DISTRIBUTED_CA_GMRES

}  // namespace kbench::dist
