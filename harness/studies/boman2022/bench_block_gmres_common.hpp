// What the files of the boman2022 block GMRES study share (bench_block_gmres.cpp: the sweep and
// the runners; bench_block_gmres_calibration.cpp: the costs of the model; the runners and the
// results schema are declared in bench_block_gmres.hpp): the solver settings, the devices, the
// fixed right-hand sides, the timed solvers of one device and matrix, and the calibrated costs.
#pragma once

#include "harness/core/timing.hpp"
#include "kernels/base/cuda_check.hpp"
#include "kernels/base/device_buffer.hpp"
#include "kernels/spmv_operator.hpp"
#include "matrices/csr.hpp"
#include "models/block_gmres_model.hpp"
#include "solvers/block_gmres.hpp"
#include "solvers/gmres.hpp"
#include "solvers/orthogonalization/gpu_context.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kbench::harness::block_gmres_bench {

using json = nlohmann::json;
using solvers::SolveResult;
using solvers::SolveStatus;

constexpr double tolerance = 1e-8;
constexpr unsigned rhs_seed = 2022;
constexpr int iteration_cap = 2000;  // steps per single solve, block steps per block solve
constexpr int basis_cap = 4096;      // basis vectors of a non-restarted block solve

enum class Device { gpu, cpu };
inline const char* name(Device d) { return d == Device::gpu ? "gpu" : "cpu"; }
inline json restart_json(int r) { return r > 0 ? json(r) : json(nullptr); }

/// n x s uniform [-1, 1) values, column-major, fixed seed.
std::vector<double> random_block(std::int64_t n, int s);

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
/// alpha: seconds per GMRES step (timing mode, restart 30, 30 steps) on latency_matrix().
double calibrate_alpha(Device device, const models::SpmvMachine& figures);

/// alpha of the block methods: seconds per block step at s = 1 (restart 30, 30 steps, tolerance
/// 0) on latency_matrix(): the fixed costs of a step of that method (its launches and host round
/// trips: BGMRES's TSQR has two, its Hessenberg copy one), which differ from GMRES's.
double calibrate_block_alpha(Device device, bool pseudo, const models::SpmvMachine& figures);

/// beta: seconds per non-zero of one SpMV of `a` (the operator's kernel on the GPU, Eigen's
/// row-major product on the CPU threads), so that beta nz is the measured SpMV time.
double calibrate_beta(Device device, const Csr<double>& a, spmv::SpmvOperator<double>* op);

/// gamma(s): seconds per flop of one block CGS pass of an n x s block against a basis of
/// gamma_basis_columns columns (C = Q^T W and W -= Q C: 4 n kq s flops), measured on the solver's
/// own kernels (two cuBLAS DGEMMs on the GPU, as BGMRES's block CGS; Eigen on the CPU). s = 1 is
/// GMRES's shape.
std::map<int, double> calibrate_gamma(Device device, std::int64_t n,
                                      const std::vector<int>& s_values);

/// gamma_lsq(s): seconds per flop of the host least squares of block GMRES with block size s
/// (GMRES's at s = 1), which the CPU and the GPU solvers both run on the host
/// (solvers/hessenberg.hpp, on the solvers' OpenMP threads): one cycle of lsq_block_steps block
/// steps (reset, then add_columns of s random, diagonally dominant band Hessenberg columns per
/// step), its median time over 5 runs divided by models::lsq_flops(s, lsq_block_steps), the
/// count the model prices. Small s repeat the cycle up to about 1e6 flops per run.
std::map<int, double> calibrate_gamma_lsq(const std::vector<int>& s_values);

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

}  // namespace kbench::harness::block_gmres_bench
