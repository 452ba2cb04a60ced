// Left-preconditioned GMRES(m) on the distributed layer, CPU and GPU backends of the shared
// iteration (solvers/gmres_cycle.hpp); see distributed_gmres.hpp. Host code only: the GPU
// backend calls the launchers of kernels/ through solvers/gmres_device.hpp, and the Jacobi
// kernel is in diagonal_scale.cu.
#include "solvers/distributed/distributed_gmres.hpp"

#include "kernels/base/cuda_check.hpp"
#include "kernels/base/device_buffer.hpp"
#include "kernels/spmv.hpp"
#include "solvers/distributed/diagonal_scale.hpp"
#include "solvers/gmres_cycle.hpp"
#include "solvers/gmres_device.hpp"
#include "solvers/gmres_lowsync.hpp"

#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <functional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

namespace kbench::dist {

using solvers::ArnoldiOrth;
using solvers::GmresOptions;
using solvers::PhaseTime;
using solvers::SolveResult;

const char* to_string(Preconditioner p)
{
    return p == Preconditioner::jacobi ? "jacobi" : "none";
}

Preconditioner parse_preconditioner(const std::string& name)
{
    if (name == "none") return Preconditioner::none;
    if (name == "jacobi") return Preconditioner::jacobi;
    throw std::invalid_argument("preconditioner '" + name + "': expected 'none' or 'jacobi'");
}

namespace {

/// The phases of a detailed run (distributed_gmres.hpp), in their reporting order.
namespace phase {
enum Id : int { spmv, halo, precond, orth, reductions, update, count };
}
using phase::Id;
constexpr int phase_count = phase::count;
constexpr std::array<const char*, phase_count> phase_names{"spmv",  "halo",       "precond",
                                                           "orth",  "reductions", "update"};
constexpr std::array<const char*, phase_count> phase_groups{
    "computation", "communication", "computation", "computation", "communication", "computation"};

/// Host timers of a detailed run; does nothing but call the timed work when off. `sync` waits for
/// the device before and after each timed piece (GPU; empty on the CPU).
class PhaseLog {
public:
    PhaseLog(bool on, std::function<void()> sync) : on_{on}, sync_{std::move(sync)} {}

    bool on() const { return on_; }
    void sync() const
    {
        if (on_ && sync_) sync_();
    }
    static double now()
    {
        return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
            .count();
    }
    void add(Id p, double seconds)
    {
        totals_[p].first += seconds;
        totals_[p].second += 1;
    }
    /// Runs f and adds its time to p.
    template <typename F>
    void time(Id p, F&& f)
    {
        if (!on_) return f();
        sync();
        const double t0 = now();
        f();
        sync();
        add(p, now() - t0);
    }
    /// Runs f and adds its time, less what the phases timed inside it took (its reductions;
    /// the one-reduce Arnoldi step's SpMV, halo exchange and preconditioner), to p.
    template <typename F>
    void time_exclusive(Id p, F&& f)
    {
        if (!on_) return f();
        const double inside = timed_seconds();
        sync();
        const double t0 = now();
        f();
        sync();
        add(p, now() - t0 - (timed_seconds() - inside));
    }
    /// The solve's phases: norm_b (before run_gmres starts its clock) is dropped by reset(), the
    /// final true-residual check (after it stops) by taking the totals marked at the start of
    /// the last residual.
    void reset() { totals_ = {}; }
    void mark() { marked_ = totals_; }
    std::vector<PhaseTime> phases() const
    {
        std::vector<PhaseTime> out;
        if (!on_) return out;
        for (int p = 0; p < phase_count; ++p)
            if (marked_[p].second > 0)
                out.push_back({phase_names[p], phase_groups[p], marked_[p].first,
                               marked_[p].second});
        return out;
    }

private:
    double timed_seconds() const
    {
        double sum = 0.0;
        for (const auto& t : totals_) sum += t.first;
        return sum;
    }

    bool on_;
    std::function<void()> sync_;
    std::array<std::pair<double, int>, phase_count> totals_{};  // seconds, calls
    std::array<std::pair<double, int>, phase_count> marked_{};
};

/// n, the rows of the global matrix: the owned rows summed over the ranks (for the option
/// checks, which then agree on every rank).
long long global_rows(const Communicator& comm, index_type num_owned)
{
    return comm.allreduce_sum(static_cast<std::int64_t>(num_owned));
}

std::string vector_size_error(const char* who, const char* name, std::size_t size,
                              index_type num_owned, int rank)
{
    if (size == static_cast<std::size_t>(num_owned)) return {};
    return std::string(who) + ": " + name + " has " + std::to_string(size) + " entries on rank " +
           std::to_string(rank) + ", expected num_owned = " + std::to_string(num_owned);
}

// ---- CPU -----------------------------------------------------------------------------------

/// The CPU backend of solvers::detail::run_gmres on one rank: the basis V as one host array of
/// m + 1 columns of local_size() entries (owned rows first, so the halo exchange of a column
/// fills its ghost rows in place), x copied into a local-size work vector for each residual.
template <typename T>
class CpuBackend {
public:
    // Implements ArnoldiOrth::cgs2_lowsync: arnoldi(j) applies M^-1 A one vector ahead itself.
    static constexpr bool one_reduce_arnoldi = true;

    CpuBackend(const Communicator& comm, DistributedSpmvCpu<T>& a, const std::vector<T>& b,
               std::vector<T>& x, Preconditioner p, std::vector<T> inv_diag, int m,
               ArnoldiOrth orth, PhaseLog& log)
        : comm_{comm}, a_{a}, b_{b}, x_{x}, jacobi_{p == Preconditioner::jacobi},
          d_{std::move(inv_diag)},
          n_{static_cast<std::size_t>(a.matrix().num_rows)},
          ld_{static_cast<std::size_t>(a.matrix().num_cols)}, orth_{orth}, log_{log},
          v_(ld_ * (static_cast<std::size_t>(m) + 1), T(0)), xl_(ld_, T(0)),
          h_(static_cast<std::size_t>(m) + 1), lowsync_(m)
    {}

    double norm_b()
    {
        const T* w = b_.data();
        if (jacobi_) {
            zb_.resize(n_);
            precondition(b_.data(), zb_.data());
            w = zb_.data();
        }
        double norm = 0.0;
        log_.time_exclusive(phase::orth, [&] { norm = norm2(w); });
        log_.reset();
        return norm;
    }
    double residual()
    {
        log_.mark();
        T* r = col(0);
        log_.time(phase::update, [&] {
            std::copy(x_.begin(), x_.end(), xl_.begin());
            std::copy(b_.begin(), b_.end(), r);
        });
        multiply(T(-1), xl_.data(), T(1), r);
        precondition(r, r);
        double norm = 0.0;
        log_.time_exclusive(phase::orth, [&] { norm = norm2(r); });
        return norm;
    }
    void scale_first(double inv)
    {
        log_.time(phase::orth, [&] { scale(col(0), static_cast<T>(inv)); });
    }
    void arnoldi(int j, std::vector<T>& h)
    {
        if (orth_ == ArnoldiOrth::cgs2_lowsync)
            return log_.time_exclusive(phase::orth, [&] { arnoldi_lowsync(j, h); });
        T* w = col(j + 1);
        multiply(T(1), col(j), T(0), w);
        precondition(w, w);
        log_.time_exclusive(phase::orth, [&] { orthogonalize(j, w, h); });
    }
    void update(const std::vector<T>& y)
    {
        log_.time(phase::update, [&] {
            for (std::size_t i = 0; i < y.size(); ++i) {
                const T* vi = col(static_cast<int>(i));
                for (std::size_t r = 0; r < n_; ++r) x_[r] += y[i] * vi[r];
            }
        });
    }

private:
    T* col(int j) { return v_.data() + static_cast<std::size_t>(j) * ld_; }

    /// y := alpha A_local x + beta y, the halo of x (local_size() entries) exchanged first.
    void multiply(T alpha, T* x, T beta, T* y)
    {
        log_.time(phase::halo, [&] { a_.exchange().exchange(x); });
        log_.time(phase::spmv, [&] {
            spmv::reference::csr(a_.matrix().view(), alpha, static_cast<const T*>(x), beta, y);
        });
    }
    void precondition(const T* x, T* y)
    {
        if (!jacobi_) return;
        log_.time(phase::precond, [&] {
            for (std::size_t r = 0; r < n_; ++r) y[r] = d_[r] * x[r];
        });
    }
    void reduce(T* values, int count)
    {
        log_.time(phase::reductions, [&] { comm_.allreduce_sum(values, count); });
    }
    T local_dot(const T* u, const T* w) const
    {
        T s = T(0);
        for (std::size_t r = 0; r < n_; ++r) s += u[r] * w[r];
        return s;
    }
    /// w -= sum_i c[i] v_i over the k columns from v_0.
    void subtract(const T* c, int k, T* w)
    {
        for (int i = 0; i < k; ++i) {
            const T* vi = col(i);
            for (std::size_t r = 0; r < n_; ++r) w[r] -= c[i] * vi[r];
        }
    }
    void scale(T* w, T factor)
    {
        for (std::size_t r = 0; r < n_; ++r) w[r] *= factor;
    }
    double norm2(const T* w)
    {
        T s = local_dot(w, w);
        reduce(&s, 1);
        const double sum = static_cast<double>(s);  // a NaN stays NaN: run_gmres's non_finite
        return std::isnan(sum) ? sum : std::sqrt(std::max(0.0, sum));
    }
    /// w := M^-1 A v for basis columns (local_size() entries: the exchange fills v's ghosts).
    void apply(T* v, T* w)
    {
        multiply(T(1), v, T(0), w);
        precondition(w, w);
    }
    /// As solvers::detail::DeviceArnoldi::orthogonalize_lowsync (and gmres_cpu's), on this
    /// rank's rows: the products over the owned rows, then ONE all-reduce of the Gram block
    /// G = [V_j, u]^T [u, M^-1 A u] per step (one more in the first step, for c_0, and where the
    /// Pythagorean norm cancels).
    void arnoldi_lowsync(int j, std::vector<T>& h)
    {
        const int m = static_cast<int>(h_.size()) - 1;
        if (j == 0) {  // the first CGS pass of M^-1 A v_0
            apply(col(0), col(1));
            T c0 = local_dot(col(0), col(1));
            reduce(&c0, 1);
            subtract(&c0, 1, col(1));
            lowsync_.start(c0);
        }
        const bool ahead = j + 2 <= m;
        if (ahead) apply(col(j + 1), col(j + 2));
        const int kv = j + 2, kw = ahead ? 2 : 1;
        g_.resize(static_cast<std::size_t>(kv) * kw);
        for (int c = 0; c < kw; ++c)
            for (int i = 0; i < kv; ++i) g_[i + c * kv] = local_dot(col(i), col(j + 1 + c));
        reduce(g_.data(), kv * kw);
        T* u = col(j + 1);
        double nu = lowsync_.second_pass(j, g_.data(), h);
        if (nu >= 0.0) {  // u := (u - V_j a) / nu
            if (nu > 0.0 && std::isfinite(nu)) {
                subtract(g_.data(), j + 1, u);
                scale(u, static_cast<T>(1.0 / nu));
            }
        } else if (!std::isnan(nu)) {  // the Pythagorean norm cancelled: measure it
            subtract(g_.data(), j + 1, u);
            nu = norm2(u);
            if (nu > 0.0 && std::isfinite(nu)) scale(u, static_cast<T>(1.0 / nu));
        }
        lowsync_.finish_column(j, nu, h);
        if (!ahead || !(nu > 0.0) || !std::isfinite(nu)) return;
        T* d = g_.data() + kv;  // G's second column: V_{j+1}^T M^-1 A u, corrected for the lag
        d[j + 1] = lowsync_.next_first_pass(j, g_.data(), nu);
        subtract(d, j + 2, col(j + 2));
        scale(col(j + 2), static_cast<T>(1.0 / nu));
    }
    /// As solvers::detail::DeviceArnoldi::orthogonalize, on the host.
    void orthogonalize(int j, T* w, std::vector<T>& h)
    {
        if (orth_ == ArnoldiOrth::cgs2) {
            for (int i = 0; i <= j; ++i) h[i] = T(0);
            for (int pass = 0; pass < 2; ++pass) {
                for (int i = 0; i <= j; ++i) h_[i] = local_dot(col(i), w);
                reduce(h_.data(), j + 1);  // one all-reduce per pass
                subtract(h_.data(), j + 1, w);
                for (int i = 0; i <= j; ++i) h[i] += h_[i];
            }
        } else {
            for (int i = 0; i <= j; ++i) {
                h[i] = local_dot(col(i), w);
                reduce(&h[i], 1);  // one all-reduce per coefficient (the paper's MGS)
                const T* vi = col(i);
                for (std::size_t r = 0; r < n_; ++r) w[r] -= h[i] * vi[r];
            }
        }
        const double norm = norm2(w);
        h[j + 1] = static_cast<T>(norm);
        if (norm > 0.0 && std::isfinite(norm)) scale(w, static_cast<T>(1.0 / norm));
    }

    const Communicator& comm_;
    DistributedSpmvCpu<T>& a_;
    const std::vector<T>& b_;
    std::vector<T>& x_;
    bool jacobi_;
    std::vector<T> d_;   // M^-1 (jacobi) or empty
    std::vector<T> zb_;  // M^-1 b (jacobi)
    std::size_t n_;      // owned rows
    std::size_t ld_;     // local_size(): rows of a basis column
    ArnoldiOrth orth_;
    PhaseLog& log_;
    std::vector<T> v_;   // basis, column-major, ld_ x (m + 1)
    std::vector<T> xl_;  // x with room for its ghosts
    std::vector<T> h_;   // one CGS pass's coefficients
    std::vector<T> g_;   // cgs2_lowsync: the step's Gram block, column-major
    solvers::detail::LowSyncArnoldi<T> lowsync_;
};

// ---- GPU -----------------------------------------------------------------------------------

/// The GPU backend of solvers::detail::run_gmres on one rank: the basis and its Gram-Schmidt
/// steps of solvers::detail::DeviceArnoldi (num_owned rows, leading dimension local_size()),
/// reductions through a.exchange().allreduce_sum, x copied into a local-size device work vector
/// for each residual.
template <typename T>
class GpuBackend {
public:
    // Implements ArnoldiOrth::cgs2_lowsync: arnoldi(j) applies M^-1 A one vector ahead itself.
    static constexpr bool one_reduce_arnoldi = true;

    GpuBackend(DistributedSpmv<T>& a, const T* b, T* x, Preconditioner p,
               const std::vector<T>& inv_diag, int m, ArnoldiOrth orth, cudaStream_t stream,
               PhaseLog& log)
        : a_{a}, b_{b}, x_{x}, n_{a.num_owned()}, stream_{stream}, log_{log},
          jacobi_{p == Preconditioner::jacobi}, orth_{orth},
          basis_(a.num_owned(), a.local_size(), m, orth, stream),
          xl_(static_cast<std::size_t>(a.local_size())), d_(inv_diag), zb_(inv_diag.size())
    {}

    double norm_b()
    {
        const T* w = b_;
        if (jacobi_) {
            precondition(b_, zb_.data());
            w = zb_.data();
        }
        double norm = 0.0;
        log_.time_exclusive(phase::orth, [&] { norm = basis_.norm(w, reducer()); });
        log_.reset();
        return norm;
    }
    double residual()
    {
        log_.mark();
        T* r = basis_.col(0);
        log_.time(phase::update, [&] {
            copy(x_, xl_.data());
            copy(b_, r);
        });
        multiply(T(-1), xl_.data(), T(1), r);
        precondition(r, r);
        double norm = 0.0;
        log_.time_exclusive(phase::orth, [&] { norm = basis_.norm(r, reducer()); });
        return norm;
    }
    void scale_first(double inv)
    {
        log_.time(phase::orth, [&] { basis_.scale(basis_.col(0), inv); });
    }
    void arnoldi(int j, std::vector<T>& h)
    {
        if (orth_ == ArnoldiOrth::cgs2_lowsync) {
            // w := M^-1 A v for basis columns (local_size() rows: the exchange fills their
            // ghost rows in place).
            const auto apply = [this](const T* v, T* w) {
                multiply(T(1), const_cast<T*>(v), T(0), w);
                precondition(w, w);
            };
            log_.time_exclusive(
                phase::orth, [&] { basis_.orthogonalize_lowsync(j, h, apply, reducer()); });
            return;
        }
        T* w = basis_.col(j + 1);
        multiply(T(1), basis_.col(j), T(0), w);
        precondition(w, w);
        log_.time_exclusive(phase::orth, [&] { basis_.orthogonalize(j, h, reducer()); });
    }
    void update(const std::vector<T>& y)
    {
        log_.time(phase::update, [&] { basis_.update(y, x_); });
    }

private:
    /// The all-reduce of a step's local dot products (in place, device memory). stream_ordered
    /// where the exchange only enqueues it (NCCL; one rank, nothing to sum) and the run is not
    /// detailed (whose phase timers synchronize around every piece): the one-reduce step is then
    /// enqueued whole, one step ahead (DeviceArnoldi::pipelined_lowsync).
    struct Reducer {
        GpuBackend* be;
        bool stream_ordered;
        void operator()(T* d_values, int count) const
        {
            be->log_.time(phase::reductions, [&] {
                be->a_.exchange().allreduce_sum(d_values, count, be->stream_);
            });
        }
    };
    Reducer reducer()
    {
        const auto& ex = a_.exchange();
        return {this, !log_.on() && (ex.transport() == Transport::nccl ||
                                     ex.layout().num_parts == 1)};
    }
    void copy(const T* from, T* to)
    {
        if (n_ > 0)
            KBENCH_CUDA_CHECK(cudaMemcpyAsync(to, from, sizeof(T) * static_cast<std::size_t>(n_),
                                              cudaMemcpyDeviceToDevice, stream_));
    }
    /// y := alpha A_local x + beta y (DistributedSpmv::apply: the halo exchange overlapped with
    /// the interior rows' product when `a` was built with overlap). Detailed runs take
    /// apply_serial, the exchange then the product on the stream, never overlapped, and split
    /// them where the exchange returns (see distributed_gmres.hpp).
    void multiply(T alpha, T* x, T beta, T* y)
    {
        if (!log_.on()) return a_.apply(alpha, x, beta, y, stream_);
        log_.sync();
        const double t0 = PhaseLog::now();
        a_.apply_serial(alpha, x, beta, y, stream_);
        const double t1 = PhaseLog::now();
        log_.sync();
        log_.add(phase::halo, t1 - t0);
        log_.add(phase::spmv, PhaseLog::now() - t1);
    }
    void precondition(const T* x, T* y)
    {
        if (!jacobi_) return;
        log_.time(phase::precond, [&] { detail::diagonal_scale(d_.data(), x, y, n_, stream_); });
    }

    DistributedSpmv<T>& a_;
    const T* b_;
    T* x_;
    index_type n_;
    cudaStream_t stream_;
    PhaseLog& log_;
    bool jacobi_;
    ArnoldiOrth orth_;
    solvers::detail::DeviceArnoldi<T> basis_;
    device_buffer<T> xl_;  // x with room for its ghosts (local_size())
    device_buffer<T> d_;   // M^-1 (jacobi), or empty
    device_buffer<T> zb_;  // M^-1 b (jacobi)
};

}  // namespace

template <typename T>
std::vector<T> inverse_diagonal(const Communicator& comm, const Csr<T>& a_local,
                                const std::vector<index_type>& owned_global, Preconditioner p,
                                const char* who)
{
    std::string error;
    std::vector<T> inv;
    if (a_local.num_rows < 0 ||
        static_cast<std::size_t>(a_local.num_rows) != owned_global.size()) {
        error = std::string(who) + ": a_local has " + std::to_string(a_local.num_rows) +
                " rows on rank " + std::to_string(comm.rank()) + ", expected num_owned = " +
                std::to_string(owned_global.size());
    } else if (p == Preconditioner::jacobi) {
        inv.resize(owned_global.size());
        for (index_type i = 0; i < a_local.num_rows && error.empty(); ++i) {
            T diag = T(0);
            for (index_type k = a_local.row_ptr[i]; k < a_local.row_ptr[i + 1]; ++k)
                if (a_local.col_idx[k] == i) diag = a_local.values[k];
            if (diag == T(0) || !std::isfinite(diag)) {
                std::ostringstream msg;
                msg << who << ": jacobi: the diagonal entry of global row "
                    << owned_global[static_cast<std::size_t>(i)] << " is " << diag
                    << ", expected a finite nonzero value";
                error = msg.str();
            } else {
                inv[static_cast<std::size_t>(i)] = T(1) / diag;
            }
        }
    }
    agree_or_throw(comm, error);
    return inv;
}

template <typename T>
SolveResult distributed_gmres_cpu(const Communicator& comm, DistributedSpmvCpu<T>& a,
                                  const std::vector<T>& b_local, std::vector<T>& x_local,
                                  const GmresOptions& options, Preconditioner preconditioner,
                                  bool detailed)
{
    constexpr const char* who = "distributed_gmres_cpu";
    const index_type owned = a.matrix().num_rows;
    const long long n = global_rows(comm, owned);
    solvers::detail::check_gmres_options(who, n, n, options);
    std::string error = vector_size_error(who, "b_local", b_local.size(), owned, comm.rank());
    if (error.empty())
        error = vector_size_error(who, "x_local", x_local.size(), owned, comm.rank());
    agree_or_throw(comm, error);
    auto inv = inverse_diagonal(comm, a.matrix(), a.exchange().layout().owned_global,
                                preconditioner, who);
    PhaseLog log(detailed, {});
    CpuBackend<T> be(comm, a, b_local, x_local, preconditioner, std::move(inv),
                     solvers::detail::restart_length(options), options.orth, log);
    SolveResult result = solvers::detail::run_gmres<T>(be, options);
    result.phases = log.phases();
    return result;
}

template <typename T>
SolveResult distributed_gmres(const Communicator& comm, DistributedSpmv<T>& a,
                              const LocalMatrix<T>& local, const T* d_b, T* d_x,
                              const GmresOptions& options, Preconditioner preconditioner,
                              cudaStream_t stream, bool detailed)
{
    constexpr const char* who = "distributed_gmres";
    const index_type owned = a.num_owned();
    const long long n = global_rows(comm, owned);
    solvers::detail::check_gmres_options(who, n, n, options);
    std::string error;
    if (local.halo.num_owned != owned || local.halo.local_size() != a.local_size())
        error = std::string(who) + ": local has num_owned = " +
                std::to_string(local.halo.num_owned) + " and local_size = " +
                std::to_string(local.halo.local_size()) + " on rank " +
                std::to_string(comm.rank()) + ", expected those of a (" + std::to_string(owned) +
                ", " + std::to_string(a.local_size()) + ")";
    else if (owned > 0 && (d_b == nullptr || d_x == nullptr))
        error = std::string(who) + ": " + (d_b == nullptr ? "d_b" : "d_x") + " is null on rank " +
                std::to_string(comm.rank()) + ", expected " + std::to_string(owned) +
                " device entries";
    agree_or_throw(comm, error);
    const auto inv =
        inverse_diagonal(comm, local.a, local.halo.owned_global, preconditioner, who);
    PhaseLog log(detailed, [stream] { KBENCH_CUDA_CHECK(cudaStreamSynchronize(stream)); });
    GpuBackend<T> be(a, d_b, d_x, preconditioner, inv, solvers::detail::restart_length(options),
                     options.orth, stream, log);
    SolveResult result = solvers::detail::run_gmres<T>(be, options);
    result.phases = log.phases();
    return result;
}

#define KBENCH_DISTRIBUTED_GMRES(T)                                                             \
    template std::vector<T> inverse_diagonal<T>(const Communicator&, const Csr<T>&,             \
                                                const std::vector<index_type>&, Preconditioner, \
                                                const char*);                                   \
    template SolveResult distributed_gmres_cpu<T>(const Communicator&, DistributedSpmvCpu<T>&,  \
                                                  const std::vector<T>&, std::vector<T>&,       \
                                                  const GmresOptions&, Preconditioner, bool);   \
    template SolveResult distributed_gmres<T>(const Communicator&, DistributedSpmv<T>&,         \
                                              const LocalMatrix<T>&, const T*, T*,              \
                                              const GmresOptions&, Preconditioner,              \
                                              cudaStream_t, bool);
KBENCH_DISTRIBUTED_GMRES(float)
KBENCH_DISTRIBUTED_GMRES(double)
#undef KBENCH_DISTRIBUTED_GMRES

}  // namespace kbench::dist
