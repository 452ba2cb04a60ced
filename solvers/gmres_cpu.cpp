// GMRES(m) on the CPU with Eigen (declarations in solvers/gmres.hpp): the reference for the
// GPU solver, and the option checks and names both share.
#include "solvers/gmres.hpp"
#include "solvers/gmres_cycle.hpp"
#include "solvers/gmres_lowsync.hpp"

#include <Eigen/Dense>
#include <Eigen/SparseCore>

#include <cmath>
#include <stdexcept>
#include <string>

namespace kbench::solvers {

const char* to_string(ArnoldiOrth orth)
{
    switch (orth) {
    case ArnoldiOrth::cgs2: return "cgs2";
    case ArnoldiOrth::mgs: return "mgs";
    case ArnoldiOrth::cgs2_lowsync: return "lowsync";
    }
    return "unknown";
}

ArnoldiOrth parse_arnoldi_orth(const std::string& name)
{
    for (const ArnoldiOrth o : {ArnoldiOrth::cgs2, ArnoldiOrth::mgs, ArnoldiOrth::cgs2_lowsync})
        if (name == to_string(o)) return o;
    throw std::invalid_argument("Arnoldi orthogonalization '" + name +
                                "': expected 'cgs2', 'mgs' or 'lowsync'");
}

namespace detail {

void check_krylov_options(const char* who, long long rows, long long cols, int restart,
                          double tolerance, int max_iterations, int stagnation_cycles)
{
    const std::string w{who};
    if (rows != cols)
        throw std::invalid_argument(w + ": the matrix is " + std::to_string(rows) + " x " +
                                    std::to_string(cols) + ", expected square");
    if (restart < 1)
        throw std::invalid_argument(w + ": restart = " + std::to_string(restart) +
                                    ", expected a restart length >= 1");
    if (max_iterations < 0)
        throw std::invalid_argument(w + ": max_iterations = " + std::to_string(max_iterations) +
                                    ", expected >= 0");
    if (!(tolerance >= 0.0) || !std::isfinite(tolerance))
        throw std::invalid_argument(w + ": tolerance = " + std::to_string(tolerance) +
                                    ", expected finite and >= 0");
    if (stagnation_cycles < 0)
        throw std::invalid_argument(w + ": stagnation_cycles = " +
                                    std::to_string(stagnation_cycles) + ", expected >= 0");
}

}  // namespace detail

namespace {

template <typename T>
using SparseRowMajor = Eigen::SparseMatrix<T, Eigen::RowMajor, index_type>;
template <typename T>
using Vector = Eigen::Matrix<T, Eigen::Dynamic, 1>;

/// The CPU backend of detail::run_gmres: basis V (n x (m + 1)) as an Eigen matrix.
template <typename T>
struct CpuBackend {
    static constexpr bool one_reduce_arnoldi = true;  // implements ArnoldiOrth::cgs2_lowsync

    Eigen::Map<const SparseRowMajor<T>> a;
    Eigen::Map<const Vector<T>> b;
    Eigen::Map<Vector<T>> x;
    ArnoldiOrth orth;
    Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic> v;
    detail::LowSyncArnoldi<T> lowsync;

    double norm_b() { return static_cast<double>(b.norm()); }
    double residual()
    {
        v.col(0) = b - a * x;
        return static_cast<double>(v.col(0).norm());
    }
    void scale_first(double inv) { v.col(0) *= static_cast<T>(inv); }
    void arnoldi(int j, std::vector<T>& h)
    {
        if (orth == ArnoldiOrth::cgs2_lowsync) return arnoldi_lowsync(j, h);
        Vector<T> w = a * v.col(j);
        const auto basis = v.leftCols(j + 1);
        if (orth == ArnoldiOrth::cgs2) {
            Vector<T> c = basis.transpose() * w;
            w -= basis * c;
            const Vector<T> c2 = basis.transpose() * w;
            w -= basis * c2;
            c += c2;
            for (int i = 0; i <= j; ++i) h[i] = c(i);
        } else {
            for (int i = 0; i <= j; ++i) {
                h[i] = v.col(i).dot(w);
                w -= h[i] * v.col(i);
            }
        }
        h[j + 1] = w.norm();
        v.col(j + 1) = h[j + 1] > T(0) ? Vector<T>(w / h[j + 1]) : w;
    }
    /// DeviceArnoldi::orthogonalize_lowsync (gmres_device.hpp) on the host: the same steps and
    /// host arithmetic, Eigen's sums.
    void arnoldi_lowsync(int j, std::vector<T>& h)
    {
        const int m = static_cast<int>(v.cols()) - 1;
        if (j == 0) {  // the first CGS pass of A v_0
            v.col(1).noalias() = a * v.col(0);
            const T c0 = v.col(0).dot(v.col(1));
            v.col(1) -= c0 * v.col(0);
            lowsync.start(c0);
        }
        const bool ahead = j + 2 <= m;
        if (ahead) v.col(j + 2).noalias() = a * v.col(j + 1);
        const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic> g =
            v.leftCols(j + 2).transpose() * v.middleCols(j + 1, ahead ? 2 : 1);
        auto u = v.col(j + 1);
        double nu = lowsync.second_pass(j, g.data(), h);
        if (nu >= 0.0) {  // u := (u - V_j a) / nu
            if (nu > 0.0 && std::isfinite(nu))
                u = (u - v.leftCols(j + 1) * g.col(0).head(j + 1)) * static_cast<T>(1.0 / nu);
        } else if (!std::isnan(nu)) {  // the Pythagorean norm cancelled: measure it
            u -= v.leftCols(j + 1) * g.col(0).head(j + 1);
            nu = static_cast<double>(u.norm());
            if (nu > 0.0 && std::isfinite(nu)) u *= static_cast<T>(1.0 / nu);
        }
        lowsync.finish_column(j, nu, h);
        if (!ahead || !(nu > 0.0) || !std::isfinite(nu)) return;
        Vector<T> d = g.col(1);
        d(j + 1) = lowsync.next_first_pass(j, g.data(), nu);
        v.col(j + 2) = (v.col(j + 2) - v.leftCols(j + 2) * d) * static_cast<T>(1.0 / nu);
    }
    void update(const std::vector<T>& y)
    {
        const Eigen::Map<const Vector<T>> yv(y.data(), static_cast<Eigen::Index>(y.size()));
        x += v.leftCols(yv.size()) * yv;
    }
};

/// gmres_cpu with a cycle hook (detail::run_gmres).
template <typename T, typename Hook = detail::NoCycleHook>
SolveResult run_cpu(const Csr<T>& a, const std::vector<T>& b, std::vector<T>& x,
                    const GmresOptions& options, Hook hook = {})
{
    detail::check_gmres_options("gmres_cpu", a.num_rows, a.num_cols, options);
    const auto n = static_cast<Eigen::Index>(a.num_rows);
    if (b.size() != static_cast<std::size_t>(n) || x.size() != static_cast<std::size_t>(n))
        throw std::invalid_argument("gmres_cpu: b has " + std::to_string(b.size()) + " and x " +
                                    std::to_string(x.size()) + " entries, expected " +
                                    std::to_string(n));
    const int m = detail::restart_length(options);
    CpuBackend<T> be{{a.num_rows, a.num_cols, a.nnz(), a.row_ptr.data(), a.col_idx.data(),
                      a.values.data()},
                     {b.data(), n},
                     {x.data(), n},
                     options.orth,
                     Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>::Zero(n, m + 1),
                     detail::LowSyncArnoldi<T>(m)};
    return detail::run_gmres<T>(be, options, hook);
}

}  // namespace

template <typename T>
SolveResult gmres_cpu(const Csr<T>& a, const std::vector<T>& b, std::vector<T>& x,
                      const GmresOptions& options)
{
    return run_cpu(a, b, x, options);
}

namespace detail {
template <typename T>
SolveResult gmres_cpu_observed(const Csr<T>& a, const std::vector<T>& b, std::vector<T>& x,
                               const GmresOptions& options, const GmresCycleObserver<T>& observer)
{
    return run_cpu(a, b, x, options, [&](CpuBackend<T>& be, int cycle, int cols) {
        observer(GmresCycleSnapshot<T>{cycle, cols, be.v.rows(), be.v.data()});
    });
}
}  // namespace detail

#define KBENCH_INSTANTIATE(T)                                                                  \
    template SolveResult gmres_cpu<T>(const Csr<T>&, const std::vector<T>&, std::vector<T>&,  \
                                      const GmresOptions&);                                    \
    template SolveResult detail::gmres_cpu_observed<T>(const Csr<T>&, const std::vector<T>&,  \
                                                       std::vector<T>&, const GmresOptions&,   \
                                                       const detail::GmresCycleObserver<T>&);
KBENCH_INSTANTIATE(float)
KBENCH_INSTANTIATE(double)
#undef KBENCH_INSTANTIATE

}  // namespace kbench::solvers
