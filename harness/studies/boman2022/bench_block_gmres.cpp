// The boman2022 block GMRES study (declarations and results schema in bench_block_gmres.hpp).
#include "harness/studies/boman2022/bench_block_gmres.hpp"

#include "harness/core/progress.hpp"
#include "harness/core/results_json.hpp"
#include "harness/core/study_context.hpp"
#include "harness/core/timing.hpp"
#include "kernels/base/cuda_check.hpp"
#include "kernels/base/device_buffer.hpp"
#include "kernels/machine_probe.hpp"
#include "matrices/generators.hpp"
#include "matrices/matrix_set.hpp"
#include "models/block_gmres_model.hpp"
#include "solvers/block_gmres.hpp"
#include "solvers/gmres.hpp"
#include "solvers/hessenberg.hpp"
#include "solvers/orthogonalization/gpu_context.hpp"
#include "solvers/orthogonalization/tsqr_gpu.hpp"

#include <Eigen/Dense>
#include <Eigen/SparseCore>
#include <fmt/format.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace kbench::harness {
namespace {

using json = nlohmann::json;
using solvers::SolveResult;
using solvers::SolveStatus;

constexpr double tolerance = 1e-8;
constexpr unsigned rhs_seed = 2022;
constexpr int iteration_cap = 2000;  // steps per single solve, block steps per block solve
constexpr int basis_cap = 4096;      // basis vectors of a non-restarted block solve
constexpr double cpu_budget_seconds = 12.0;  // per matrix and restart on the CPU
const std::vector<int> gpu_s{1, 2, 4, 8, 16, 32, 64};
const std::vector<int> cpu_s{1, 2, 4, 8, 16, 32, 64};
const std::vector<int> gpu_restarts{0, 30, 50};  // 0: not restarted
const std::vector<int> cpu_restarts{0, 30};
constexpr int gamma_basis_columns = 128;
constexpr int lsq_block_steps = 30;  // one cycle of the gamma_lsq calibration (restart 30)
constexpr int vanbody_block_steps = 600;  // above every count of boman2022's vanbody table  // kq of the gamma calibration (a mid-cycle basis)

enum class Device { gpu, cpu };
const char* name(Device d) { return d == Device::gpu ? "gpu" : "cpu"; }
json restart_json(int r) { return r > 0 ? json(r) : json(nullptr); }

/// n x s uniform [-1, 1) values, column-major, fixed seed.
std::vector<double> random_block(std::int64_t n, int s)
{
    std::mt19937_64 gen(rhs_seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    std::vector<double> b(static_cast<std::size_t>(n) * s);
    for (double& v : b) v = u(gen);
    return b;
}

/// One timed solve: its result with `seconds` the median over the repetitions.
struct Timed {
    SolveResult result;
    double seconds = 0.0;
};

/// The solvers of one device on one matrix, with the right-hand sides in place.
class Solvers {
public:
    Solvers(Device device, const Csr<double>& a, const std::vector<double>& b, int s_max,
            const models::SpmvMachine& figures, int repetitions)
        : device_(device), a_(a), b_(b), n_(a.num_rows), reps_(repetitions)
    {
        if (device == Device::gpu) {
            op_.emplace(a, spmv::Policy{"auto"}, figures);
            db_ = device_buffer<double>(b);
            dx_ = device_buffer<double>(static_cast<std::size_t>(n_) * s_max);
        }
    }
    const spmv::SpmvOperator<double>* op() const { return op_ ? &*op_ : nullptr; }

    Timed gmres(int column, int restart)
    {
        solvers::GmresOptions o;
        o.restart = restart > 0 ? restart : iteration_cap;
        o.max_iterations = iteration_cap;
        o.tolerance = tolerance;
        return repeat(reps_, [&] {
            if (device_ == Device::gpu) {
                zero_x(1);
                return solvers::gmres(*op_, db_.data() + column * n_, dx_.data(), o, ctx_.stream);
            }
            std::vector<double> bk(b_.begin() + column * n_, b_.begin() + (column + 1) * n_);
            std::vector<double> x(static_cast<std::size_t>(n_), 0.0);
            return solvers::gmres_cpu(a_, bk, x, o);
        });
    }
    Timed block(bool pseudo, int s, int restart, int max_block_steps = iteration_cap,
                bool detailed = false)
    {
        solvers::BlockGmresOptions o;
        o.tolerance = tolerance;
        o.detailed = detailed;
        if (restart > 0) {
            o.restart = restart;
            o.max_iterations = max_block_steps;
        } else {  // not restarted: the basis limit bounds the block steps
            o.max_iterations = std::min(iteration_cap, basis_cap / s);
            o.restart = o.max_iterations;
        }
        return repeat(detailed ? 1 : reps_, [&] {
            if (device_ == Device::gpu) {
                zero_x(s);
                return pseudo ? solvers::pseudo_block_gmres(*op_, s, db_.data(), dx_.data(), o,
                                                            ctx_.handles())
                              : solvers::block_gmres(*op_, s, db_.data(), dx_.data(), o,
                                                     ctx_.handles());
            }
            const std::vector<double> bs(b_.begin(), b_.begin() + s * n_);
            std::vector<double> x(bs.size(), 0.0);
            return pseudo ? solvers::pseudo_block_gmres_cpu(a_, s, bs, x, o)
                          : solvers::block_gmres_cpu(a_, s, bs, x, o);
        });
    }

private:
    void zero_x(int s)
    {
        KBENCH_CUDA_CHECK(cudaMemsetAsync(dx_.data(), 0, sizeof(double) * n_ * s, ctx_.stream));
    }
    template <typename F>
    Timed repeat(int reps, F&& solve)
    {
        Timed t;
        std::vector<double> seconds;
        for (int r = 0; r < reps; ++r) {
            t.result = solve();
            seconds.push_back(t.result.seconds);
        }
        t.seconds = median(seconds);
        return t;
    }

    Device device_;
    const Csr<double>& a_;
    const std::vector<double>& b_;
    std::int64_t n_;
    int reps_;
    ortho::GpuContext ctx_;
    std::optional<spmv::SpmvOperator<double>> op_;
    device_buffer<double> db_, dx_;
};

// ------------------------------------------------------------------------------ calibration
/// The matrix whose GMRES steps measure alpha: 2D convection-diffusion on 16 x 16 (256 rows),
/// so a step's time is its fixed costs (launches, one host round trip), not its data.
const Csr<double>& latency_matrix()
{
    static const Csr<double> a = convection_diffusion(16, 16, 1, 10.0, 5.0, 0.0);
    return a;
}

/// alpha: seconds per GMRES step (timing mode, restart 30, 30 steps) on latency_matrix().
double calibrate_alpha(Device device, const models::SpmvMachine& figures)
{
    const Csr<double>& a = latency_matrix();
    solvers::GmresOptions o;
    o.restart = 30;
    o.max_iterations = 30;
    o.timing_mode = true;
    std::vector<double> b(static_cast<std::size_t>(a.num_rows), 1.0);
    std::vector<double> per_step;
    if (device == Device::gpu) {
        spmv::SpmvOperator<double> op(a, spmv::Policy{"auto"}, figures);
        ortho::GpuContext ctx;
        device_buffer<double> db(b), dx(b.size());
        for (int r = 0; r < 7; ++r) {
            KBENCH_CUDA_CHECK(cudaMemsetAsync(dx.data(), 0, sizeof(double) * b.size(), ctx.stream));
            const SolveResult res = solvers::gmres(op, db.data(), dx.data(), o, ctx.stream);
            if (r > 1) per_step.push_back(res.seconds / std::max(1, res.iterations));
        }
    } else {
        for (int r = 0; r < 7; ++r) {
            std::vector<double> x(b.size(), 0.0);
            const SolveResult res = solvers::gmres_cpu(a, b, x, o);
            if (r > 1) per_step.push_back(res.seconds / std::max(1, res.iterations));
        }
    }
    return median(per_step);
}

/// alpha of the block methods: seconds per block step at s = 1 (restart 30, 30 steps, tolerance
/// 0) on latency_matrix(): the fixed costs of a step of that method (its launches and host round
/// trips: BGMRES's TSQR has two, its Hessenberg copy one), which differ from GMRES's.
double calibrate_block_alpha(Device device, bool pseudo, const models::SpmvMachine& figures)
{
    const Csr<double>& a = latency_matrix();
    solvers::BlockGmresOptions o;
    o.restart = 30;
    o.max_iterations = 30;
    o.tolerance = 0.0;
    o.stagnation_cycles = 0;
    const std::vector<double> b(static_cast<std::size_t>(a.num_rows), 1.0);
    std::vector<double> per_step;
    std::optional<spmv::SpmvOperator<double>> op;
    ortho::GpuContext ctx;
    device_buffer<double> db, dx;
    if (device == Device::gpu) {
        op.emplace(a, spmv::Policy{"auto"}, figures);
        db = device_buffer<double>(b);
        dx = device_buffer<double>(b.size());
    }
    for (int r = 0; r < 7; ++r) {
        SolveResult res;
        if (device == Device::gpu) {
            KBENCH_CUDA_CHECK(cudaMemsetAsync(dx.data(), 0, sizeof(double) * b.size(), ctx.stream));
            res = pseudo ? solvers::pseudo_block_gmres(*op, 1, db.data(), dx.data(), o,
                                                       ctx.handles())
                         : solvers::block_gmres(*op, 1, db.data(), dx.data(), o, ctx.handles());
        } else {
            std::vector<double> x(b.size(), 0.0);
            res = pseudo ? solvers::pseudo_block_gmres_cpu(a, 1, b, x, o)
                         : solvers::block_gmres_cpu(a, 1, b, x, o);
        }
        if (r > 1) per_step.push_back(res.seconds / std::max(1, res.iterations));
    }
    return median(per_step);
}

using EigenCsr = Eigen::Map<const Eigen::SparseMatrix<double, Eigen::RowMajor, index_type>>;
EigenCsr eigen_view(const Csr<double>& a)
{
    return EigenCsr(a.num_rows, a.num_cols, a.nnz(), a.row_ptr.data(), a.col_idx.data(),
                    a.values.data());
}

/// beta: seconds per non-zero of one SpMV of `a` (the operator's kernel on the GPU, Eigen's
/// row-major product on the CPU threads), so that beta nz is the measured SpMV time.
double calibrate_beta(Device device, const Csr<double>& a, spmv::SpmvOperator<double>* op)
{
    const auto n = static_cast<std::size_t>(a.num_rows);
    double seconds = 0.0;
    if (device == Device::gpu) {
        ortho::GpuContext ctx;
        device_buffer<double> x(std::vector<double>(n, 1.0)), y(n);
        seconds = time_events(
            [&](cudaStream_t s) { op->apply(1.0, x.data(), 0.0, y.data(), s); }, ctx.stream, 3,
            20);
    } else {
        const EigenCsr A = eigen_view(a);
        const Eigen::VectorXd x = Eigen::VectorXd::Ones(a.num_cols);
        Eigen::VectorXd y(a.num_rows);
        seconds = time_wall([&] { y.noalias() = A * x; }, 3, 20);
    }
    return seconds / static_cast<double>(a.nnz());
}

/// gamma(s): seconds per flop of one block CGS pass of an n x s block against a basis of
/// gamma_basis_columns columns (C = Q^T W and W -= Q C: 4 n kq s flops), measured on the solver's
/// own kernels (two cuBLAS DGEMMs on the GPU, as BGMRES's block CGS; Eigen on the CPU). s = 1 is
/// GMRES's shape.
std::map<int, double> calibrate_gamma(Device device, std::int64_t n, const std::vector<int>& s_values)
{
    const int kq = gamma_basis_columns, s_max = s_values.back();
    std::map<int, double> gamma;
    const auto flops = [&](int s) { return 4.0 * static_cast<double>(n) * kq * s; };
    if (device == Device::gpu) {
        ortho::GpuContext ctx;
        const std::vector<double> q_host = random_block(n, kq), w_host = random_block(n, s_max);
        device_buffer<double> q(q_host), w(w_host), c(static_cast<std::size_t>(kq) * s_max);
        const int rows = static_cast<int>(n);
        for (int s : s_values) {
            const double one = 1.0, zero = 0.0, minus_one = -1.0;
            const double t = time_events(
                [&](cudaStream_t) {
                    KBENCH_CUBLAS_CHECK(cublasDgemm(ctx.blas, CUBLAS_OP_T, CUBLAS_OP_N, kq, s,
                                                    rows, &one, q.data(), rows, w.data(), rows,
                                                    &zero, c.data(), kq));
                    KBENCH_CUBLAS_CHECK(cublasDgemm(ctx.blas, CUBLAS_OP_N, CUBLAS_OP_N, rows, s,
                                                    kq, &minus_one, q.data(), rows, c.data(), kq,
                                                    &one, w.data(), rows));
                },
                ctx.stream, 2, 10);
            gamma[s] = t / flops(s);
        }
    } else {
        const Eigen::MatrixXd q = Eigen::MatrixXd::Random(n, kq);
        for (int s : s_values) {
            Eigen::MatrixXd w = Eigen::MatrixXd::Random(n, s), c(kq, s);
            const double t = time_wall(
                [&] {
                    c.noalias() = q.transpose() * w;
                    w.noalias() -= q * c;
                },
                1, 5);
            gamma[s] = t / flops(s);
        }
    }
    return gamma;
}

/// gamma_lsq(s): seconds per flop of the host least squares of block GMRES with block size s
/// (GMRES's at s = 1), which the CPU and the GPU solvers both run on the host
/// (solvers/hessenberg.hpp, on the solvers' OpenMP threads): one cycle of lsq_block_steps block
/// steps (reset, then add_columns of s random, diagonally dominant band Hessenberg columns per
/// step), its median time over 5 runs divided by models::lsq_flops(s, lsq_block_steps), the
/// count the model prices. Small s repeat the cycle up to about 1e6 flops per run.
std::map<int, double> calibrate_gamma_lsq(const std::vector<int>& s_values)
{
    std::map<int, double> gamma;
    for (int s : s_values) {
        const int m = lsq_block_steps, rows = (m + 1) * s;
        std::vector<double> h = random_block(rows, m * s);  // column c: rows 0 .. c + s
        for (int c = 0; c < m * s; ++c) {
            double* hc = h.data() + static_cast<std::size_t>(c) * rows;
            std::fill(hc + c + s + 1, hc + rows, 0.0);
            hc[c] += 4.0;
        }
        std::vector<double> S(static_cast<std::size_t>(s) * s, 0.0);
        for (int k = 0; k < s; ++k) S[static_cast<std::size_t>(k) * s + k] = 1.0;
        solvers::HessenbergLsq<double> lsq(m, s);
        const double flops = models::lsq_flops(s, m);
        const int cycles = std::max(1, static_cast<int>(1e6 / flops));
        const double t = time_wall(
            [&] {
                for (int r = 0; r < cycles; ++r) {
                    lsq.reset(S.data(), s);
                    for (int j = 0; j < m; ++j)
                        if (lsq.add_columns(h.data() + static_cast<std::size_t>(j) * s * rows,
                                            rows, s) != solvers::HessenbergStatus::ok)
                            throw std::runtime_error("calibrate_gamma_lsq: a column of the "
                                                     "test matrix is singular at s = " +
                                                     std::to_string(s));
                }
            },
            1, 5);
        gamma[s] = t / (cycles * flops);
    }
    return gamma;
}

/// The calibrated costs of one device and matrix. alpha is per method (kbench's refinement:
/// boman2022 has one alpha): alpha for a GMRES step, alpha_block for a BGMRES block step,
/// alpha_pseudo for a pseudo-block step. gamma_lsq (host least squares) is the same for both
/// devices.
struct Costs {
    double alpha = 0.0, alpha_block = 0.0, alpha_pseudo = 0.0, beta = 0.0;
    std::map<int, double> gamma, gamma_lsq;
    /// A step's costs: orthogonalization at gamma(s), least squares at gamma_lsq(lsq_s).
    models::LatencyBandwidthCosts at(double step_alpha, int s, int lsq_s) const
    {
        return {step_alpha, beta, gamma.at(s), gamma_lsq.at(lsq_s)};
    }
    json to_json() const
    {
        const auto by_s = [](const std::map<int, double>& values) {
            json out = json::object();
            for (const auto& [s, v] : values) out[std::to_string(s)] = v;
            return out;
        };
        return {{"alpha", alpha}, {"alpha_block", alpha_block}, {"alpha_pseudo", alpha_pseudo},
                {"beta", beta}, {"gamma", by_s(gamma)}, {"gamma_lsq", by_s(gamma_lsq)}};
    }
};

// ------------------------------------------------------------------------------ the sweep
bool converged(const SolveResult& r) { return r.status == SolveStatus::converged; }

/// A detailed solve's phases: {name: {"seconds", "calls"}} in execution order of first use.
json phases_json(const SolveResult& r)
{
    json out = json::array();
    for (const solvers::PhaseTime& p : r.phases)
        out.push_back({{"name", p.name}, {"seconds", p.seconds}, {"calls", p.calls}});
    return out;
}
json ratio_or_null(double num, double den, bool ok)
{
    return ok && den > 0.0 ? json(num / den) : json(nullptr);
}

/// The entries of one device, matrix and restart length, appended to doc.
void sweep(Solvers& solvers, Device device, const std::string& matrix, const Csr<double>& a,
           int restart, const std::vector<int>& s_values, const Costs& costs, json& doc)
{
    const auto t_start = std::chrono::steady_clock::now();
    const auto elapsed = [&] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
    };
    // Two Gram-Schmidt passes per step: every solver here runs CGS2.
    const models::KrylovProblem problem{static_cast<double>(a.num_rows),
                                        static_cast<double>(a.nnz()), 2.0};
    const double model_restart = restart > 0 ? restart : models::not_restarted;
    std::vector<Timed> singles;  // single solves of columns 0, 1, ... (as many as s needs)
    std::string skipped;
    for (int s : s_values) {
        json e = {{"name", fmt::format("speedup/{}/{}/restart={}/s={}", name(device), matrix,
                                       restart > 0 ? std::to_string(restart) : "none", s)},
                  {"figure", "speedup"}, {"device", name(device)}, {"matrix", matrix},
                  {"n", a.num_rows}, {"nnz", a.nnz()}, {"restart", restart_json(restart)},
                  {"s", s}};
        if (skipped.empty() && device == Device::cpu && elapsed() > cpu_budget_seconds)
            skipped = fmt::format("CPU time budget of {} s per matrix and restart used up",
                                  cpu_budget_seconds);
        if (!skipped.empty()) {
            e["skipped"] = skipped;
            doc["benchmarks"].push_back(e);
            continue;
        }
        while (static_cast<int>(singles.size()) < s)
            singles.push_back(solvers.gmres(static_cast<int>(singles.size()), restart));
        double t_gmres = 0.0, its = 0.0;
        std::string g_status = "converged";
        for (int k = 0; k < s; ++k) {
            t_gmres += singles[k].seconds;
            its += singles[k].result.iterations;
            if (!converged(singles[k].result) && g_status == "converged")
                g_status = solvers::to_string(singles[k].result.status);
        }
        its /= s;
        const Timed block = solvers.block(false, s, restart);
        const Timed pseudo = solvers.block(true, s, restart);
        fmt::print(stderr, "  {} {} restart {} s {}: {:.3f} s x GMRES, {:.3f} s BGMRES ({}), "
                   "{:.3f} s pseudo ({}), {:.0f} s\n", name(device), matrix, restart, s, t_gmres,
                   block.seconds, block.result.iterations, pseudo.seconds,
                   pseudo.result.iterations, elapsed());
        const bool g_ok = g_status == "converged";
        e["gmres_seconds"] = t_gmres;
        e["gmres_iterations"] = its;
        e["gmres_status"] = g_status;
        e["bgmres_seconds"] = block.seconds;
        e["bgmres_iterations"] = block.result.iterations;
        e["bgmres_status"] = solvers::to_string(block.result.status);
        e["pseudo_seconds"] = pseudo.seconds;
        e["pseudo_iterations"] = pseudo.result.iterations;
        e["pseudo_status"] = solvers::to_string(pseudo.result.status);
        if (device == Device::gpu) {  // where a block step's time goes (a separate, synced solve)
            e["bgmres_phases"] = phases_json(solvers.block(false, s, restart, iteration_cap,
                                                           true).result);
            e["pseudo_phases"] = phases_json(solvers.block(true, s, restart, iteration_cap,
                                                           true).result);
        }
        e["speedup_block"] = ratio_or_null(t_gmres, block.seconds, g_ok && converged(block.result));
        e["speedup_pseudo"] =
            ratio_or_null(t_gmres, pseudo.seconds, g_ok && converged(pseudo.result));
        // The model: s x GMRES and pseudo-block GMRES orthogonalize one vector at a time
        // (gamma(1)), BGMRES a block of s (gamma(s)); their host least squares are s GMRES
        // ones (gamma_lsq(1): pseudo-block GMRES keeps one s = 1 HessenbergLsq per system),
        // BGMRES's one of block size s (gamma_lsq(s)).
        const auto model = [&](double m_single, double m_block, double m_pseudo) {
            const double tg = models::model_time(
                models::counts_s_gmres(problem, s, m_single, model_restart),
                costs.at(costs.alpha, 1, 1));
            const double tb = models::model_time(
                models::counts_bgmres(problem, s, m_block, model_restart),
                costs.at(costs.alpha_block, s, s));
            const double tp = models::model_time(
                models::counts_pseudo_block_gmres(problem, s, m_pseudo, model_restart),
                costs.at(costs.alpha_pseudo, 1, 1));
            return std::pair{tg / tb, tg / tp};
        };
        const auto [mb, mp] = model(its, block.result.iterations, pseudo.result.iterations);
        const double m1 = singles[0].result.iterations;
        const auto [mb1, mp1] = model(m1, m1, m1);
        e["model_speedup_block"] = mb;
        e["model_speedup_pseudo"] = mp;
        e["model_speedup_block_s1"] = mb1;
        e["model_speedup_pseudo_s1"] = mp1;
        doc["benchmarks"].push_back(e);
    }
}

int cpu_threads()
{
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

}  // namespace

std::vector<double> boman2022_right_hand_sides(std::int64_t n, int s)
{
    if (n < 0 || s < 1)
        throw std::invalid_argument(fmt::format(
            "boman2022_right_hand_sides: n = {}, s = {}, expected n >= 0 and s >= 1", n, s));
    return random_block(n, s);
}

json run_block_speedup_study(const StudyRun& run)
{
    if (run.derive_from_results != nullptr) {  // boman2022/model after boman2022/speedup
        return derived_results(run);
    }
    validate(run.options);
    const MatrixSet set = load_source_set(run.source);
    json doc = make_results_document(kbench_context(run.id, run.source, set, run.machine, false));
    // Each point is whole solves (milliseconds to seconds each) after a warm-up; the study's
    // device time allows one timed solve per point.
    const int gpu_reps = 1;
    json& ctx = doc["context"]["kbench"]["boman2022"];
    ctx = {{"tolerance", tolerance},
           {"seed", rhs_seed},
           {"s_values", {{"gpu", gpu_s}, {"cpu", cpu_s}}},
           {"restarts", {{"gpu", json::array()}, {"cpu", json::array()}}},
           {"iteration_cap", iteration_cap},
           {"basis_cap", basis_cap},
           {"repetitions", {{"gpu", gpu_reps}, {"cpu", 1}}},
           {"cpu_budget_seconds", cpu_budget_seconds},
           {"cpu_threads", cpu_threads()},
           {"notes",
            {"restart m counts (block) steps per cycle for every method, as Belos' Num Blocks: "
             "a BGMRES cycle holds m s basis vectors",
             "T(s x GMRES) is the sum of the first s single-vector solves (columns 0..s-1), each "
             "the median of the repetitions; BGMRES and pseudo-block GMRES solve columns 0..s-1 "
             "together",
             "alpha: seconds per step on a 256-row matrix (the fixed costs of a step), measured "
             "per method (GMRES; BGMRES and pseudo-block GMRES at s = 1): kbench's refinement of "
             "boman2022's single alpha; beta: "
             "seconds per non-zero of one SpMV of the matrix; gamma(s): seconds per flop of one "
             "block CGS pass of n x s against 128 basis columns; the orthogonalization term "
             "counts two passes, as the solvers run CGS2 (boman2022 counts one)",
             "not restarted: at most 4096 basis vectors (block steps <= 4096 / s)",
             "gamma_lsq(s): seconds per flop of the host least squares (Givens QR of the "
             "band Hessenberg matrix), timed on one cycle of 30 block steps of s columns; the "
             "CPU and GPU solvers both run it on the host. The model adds gamma_lsq lsq_flops "
             "(6 j s^3 in block step j of a cycle; kbench's extension, boman2022 leaves it "
             "out): BGMRES at gamma_lsq(s), s x GMRES and pseudo-block GMRES (s GMRES least "
             "squares) at gamma_lsq(1)"}}};
    for (int r : gpu_restarts) ctx["restarts"]["gpu"].push_back(restart_json(r));
    for (int r : cpu_restarts) ctx["restarts"]["cpu"].push_back(restart_json(r));
    const models::SpmvMachine figures =
        run.machine != nullptr ? run.machine->spmv : spmv::machine_figures();
    Costs latency[2];  // per device: the three alphas and gamma_lsq, measured once
    std::vector<int> lsq_s = gpu_s;
    lsq_s.insert(lsq_s.end(), cpu_s.begin(), cpu_s.end());
    std::sort(lsq_s.begin(), lsq_s.end());
    lsq_s.erase(std::unique(lsq_s.begin(), lsq_s.end()), lsq_s.end());
    const std::map<int, double> gamma_lsq = calibrate_gamma_lsq(lsq_s);  // host: both devices
    for (Device device : {Device::gpu, Device::cpu}) {
        Costs& c = latency[device == Device::gpu ? 0 : 1];
        c.gamma_lsq = gamma_lsq;
        c.alpha = calibrate_alpha(device, figures);
        c.alpha_block = calibrate_block_alpha(device, false, figures);
        c.alpha_pseudo = calibrate_block_alpha(device, true, figures);
    }
    Progress progress;
    for_each_matrix(set, [&](const MatrixEntry& entry, const Csr<double>& a, std::size_t k,
                             std::size_t total) {
        doc["context"]["kbench"]["matrices"][entry.name] =
            matrix_context(entry, a, spmv::resolve_sellp_params(a.view(), SellpParams{0, 0, 0, 0}));
        const std::vector<double> b = random_block(a.num_rows, gpu_s.back());
        for (Device device : {Device::gpu, Device::cpu}) {
            const bool gpu = device == Device::gpu;
            const std::vector<int>& s_values = gpu ? gpu_s : cpu_s;
            Solvers solvers(device, a, b, s_values.back(), figures, gpu ? gpu_reps : 1);
            Costs costs = latency[gpu ? 0 : 1];
            costs.beta = calibrate_beta(
                device, a, const_cast<spmv::SpmvOperator<double>*>(solvers.op()));
            costs.gamma = calibrate_gamma(device, a.num_rows, s_values);
            ctx["costs"][name(device)][entry.name] = costs.to_json();
            if (gpu) ctx["spmv"][entry.name] = spmv::choice_json(solvers.op()->choice());
            if (gpu) {  // warm-up: library handles, kernels, the first allocations
                solvers.gmres(0, 30);
                solvers.block(false, 2, 30);
                solvers.block(true, 2, 30);
            }
            for (int restart : gpu ? gpu_restarts : cpu_restarts) {
                progress.report(k, total,
                                fmt::format("{} {} restart {}", entry.name, name(device),
                                            restart > 0 ? std::to_string(restart) : "none"));
                sweep(solvers, device, entry.name, a, restart, s_values, costs, doc);
            }
        }
    });
    return doc;
}

json run_vanbody_study(const StudyRun& run)
{
    validate(run.options);
    const MatrixSet set = load_source_set(run.source);
    if (set.matrices.size() != 1)
        throw std::invalid_argument(fmt::format(
            "boman2022/vanbody: matrix set '{}' has {} matrices, expected 1 (the stand-in for "
            "vanbody)",
            run.source.set, set.matrices.size()));
    json doc = make_results_document(kbench_context(run.id, run.source, set, run.machine, false));
    // boman2022's vanbody table: number of right-hand sides, restart length, total iterations.
    const std::map<int, std::pair<int, int>> paper{{5, {854, 493}},  {10, {427, 324}},
                                                   {20, {214, 198}}, {30, {142, 239}},
                                                   {40, {107, 291}}, {50, {85, 413}},
                                                   {60, {70, 215}},  {70, {61, 243}}};
    const std::vector<int> s_values{5, 10, 20, 30, 40, 50, 60, 64};
    const models::SpmvMachine figures =
        run.machine != nullptr ? run.machine->spmv : spmv::machine_figures();
    Progress progress;
    for_each_matrix(set, [&](const MatrixEntry& entry, const Csr<double>& a, std::size_t,
                             std::size_t) {
        doc["context"]["kbench"]["matrices"][entry.name] =
            matrix_context(entry, a, spmv::resolve_sellp_params(a.view(), SellpParams{0, 0, 0, 0}));
        doc["context"]["kbench"]["boman2022"] = {
            {"matrix", entry.name}, {"n", a.num_rows}, {"nnz", a.nnz()},
            {"stands_for", "vanbody (n = 47,072)"}, {"tolerance", tolerance}, {"seed", rhs_seed},
            {"notes",
             {"restart = round(4270 / s) block steps, the pairing of boman2022's table (a basis "
              "of about 4270 vectors); s = 64 replaces s = 70, beyond the GPU kernels' 64 "
              "columns",
              "boman2022's total iterations are block steps (Belos counts a block step as one "
              "iteration; its s = 70 row, 243 at restart 61, rules out block steps x s); "
              "basis_vectors = block steps x s",
              "at most 600 block steps per solve (boman2022's largest count is 493)"}}};
        const std::vector<double> b = random_block(a.num_rows, s_values.back());
        Solvers solvers(Device::gpu, a, b, s_values.back(), figures, 1);
        solvers.block(false, 2, 30);  // warm-up
        for (std::size_t i = 0; i < s_values.size(); ++i) {
            const int s = s_values[i];
            const int restart = static_cast<int>(std::lround(4270.0 / s));
            progress.report(i + 1, s_values.size(), fmt::format("{} s = {}", entry.name, s));
            const Timed t = solvers.block(false, s, restart, vanbody_block_steps);
            const auto p = paper.find(s);
            doc["benchmarks"].push_back(
                {{"name", fmt::format("vanbody/{}/s={}/restart={}", entry.name, s, restart)},
                 {"figure", "vanbody"}, {"device", "gpu"}, {"matrix", entry.name},
                 {"n", a.num_rows}, {"nnz", a.nnz()}, {"s", s}, {"restart", restart},
                 {"block_steps", t.result.iterations},
                 {"basis_vectors", t.result.iterations * s},
                 {"true_residual", t.result.true_residual},
                 {"status", solvers::to_string(t.result.status)}, {"seconds", t.seconds},
                 {"paper_total_iterations",
                  p != paper.end() ? json(p->second.second) : json(nullptr)}});
        }
    });
    return doc;
}

}  // namespace kbench::harness
