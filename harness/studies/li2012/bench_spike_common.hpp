// What the li2012 SPIKE::GPU runners share (harness/studies/li2012/bench_spike*.cpp; the runners
// and the results schema are declared in bench_spike.hpp): the study's settings, li2012's
// random banded problem and its residual, the performance model of a SPIKE+BiCGStab solve, the
// timing of a solve on the GPU and its entry fields, and the results document with its context.
// Defined in bench_spike.cpp.
#pragma once

#include "harness/core/quick.hpp"
#include "harness/core/study.hpp"
#include "kernels/base/cuda_handles.hpp"
#include "kernels/base/device_buffer.hpp"
#include "kernels/machine_probe.hpp"
#include "kernels/spmv_operator.hpp"
#include "matrices/banded.hpp"
#include "matrices/csr.hpp"
#include "matrices/generators.hpp"
#include "models/spike_model.hpp"
#include "solvers/spike/spike_bicgstab.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kbench::harness::spike_bench {

using json = nlohmann::json;
namespace sp = solvers::spike;
namespace ms = models::spike;

constexpr double tolerance = 1e-8;         // li2012 Sec. 1.4
constexpr int max_iterations = 1000;
constexpr unsigned rhs_seed = 2012;
constexpr std::uint64_t matrix_seed = 1;
constexpr double default_d = 1.0;          // li2012 Sec. 2.5: degree of diagonal dominance 1.0
constexpr index_type default_k = 32;       // li2012 Table 3, Figs. 4 and 6
constexpr double point_budget_s = 2.0;     // GPU: timed repetitions of one point
constexpr double cpu_point_budget_s = 20.0;   // a dgbsv or cuDSS point predicted above: skipped
constexpr double cpu_series_budget_s = 45.0;  // per baseline series (method) of an id
constexpr double baseline_repetition_budget_s = 1.0;  // repetitions of a cheap baseline point
constexpr index_type quick_max_n = 100000;  // a quick run (`kbench reproduce --quick`): N <= 1e5
constexpr index_type quick_max_k = 64;      // and K <= 64

using clock_type = std::chrono::steady_clock;
/// Seconds on clock_type since t0.
double seconds_since(clock_type::time_point t0);

/// A finite number as JSON, null otherwise (NaN and inf are not JSON).
json finite_or_null(double v);

// ------------------------------------------------------------------------------ the problem
/// li2012's random banded system: the matrix in band storage (and CSR when a baseline needs
/// it) and a right-hand side uniform in [-1, 1) (seed rhs_seed). signs: the off-diagonal signs
/// of banded() (random: li2012's setting as kbench reads it; negative: an M-matrix).
struct Problem {
    index_type n = 0, K = 0;
    double d = default_d;
    std::uint64_t seed = matrix_seed;
    BandedSigns signs = BandedSigns::random;
    std::optional<Csr<double>> csr;
    BandMatrix<double> band;
    std::vector<double> b;
    double nnz() const { return ms::band_entries(n, K); }
};

Problem make_problem(index_type n, index_type K, double d, std::uint64_t seed, bool keep_csr,
                     BandedSigns signs = BandedSigns::random);

/// The point's "n", "K", "d", "seed" and "signs" fields.
json point_fields(const Problem& p);

struct Residual {
    double inf = std::numeric_limits<double>::quiet_NaN();
    double two = std::numeric_limits<double>::quiet_NaN();
};

/// ||b - A x|| / ||b|| in the inf-norm (li2012 footnote 2) and the 2-norm, on the host.
Residual relative_residual(const Problem& p, const std::vector<double>& x);

// ------------------------------------------------------------------------------ the model
/// What models/spike_model.hpp divides by: the measured machine figures and the thread-block
/// slots of the SPIKE kernels.
struct ModelFigures {
    ms::MachineRates fp64, fp32;
    int sm_count = 0;
    json to_json() const
    {
        return {{"bandwidth_gbs", fp64.bandwidth_gbs}, {"fp64_gflops", fp64.gflops},
                {"fp32_gflops", fp32.gflops}, {"launch_seconds", fp64.launch_s},
                {"step_seconds", fp64.step_s},
                {"sm_count", sm_count},
                {"how",
                 "models::spike phases (setup, 2 x iterations preconditioner applies in the "
                 "preconditioner's precision, 2 SpMVs and the vector operations of BiCGStab per "
                 "iteration in double, the measured iteration count) under a roofline per phase: "
                 "bandwidth = the measured copy GB/s (bytes read + written), fp64 = the measured "
                 "cuBLAS dgemm GFLOP/s, fp32 = the measured cuBLAS sgemm GFLOP/s (FP32 math), launch = the measured launch latency; a phase of one thread block per "
                 "partition that walks its rows in order takes at least waves x its longest "
                 "block's steps x the step measured on that kernel with every slot busy "
                 "(SpikeSolver<T>::step_seconds: a pivot of the LU/UL kernel, a row of a "
                 "substitution sweep; per point: model_lu_pivot_seconds, "
                 "model_solve_row_seconds) or, for the reduced blocks' substitutions, kbench "
                 "machine's block_step_us per row; the spike tips and the reduced blocks' LU "
                 "(one block per tip or interface, fixed size) take at least ceil(blocks / "
                 "model_*_wave_blocks) waves of model_*_wave_seconds each, measured on those "
                 "kernels (two waves minus one); thread-block slots = SMs x "
                 "SpikeSolver<T>::resident_blocks_per_sm(K); the LU/UL phase is the blocked "
                 "LU's (models::spike::blocked_lu) where SpikeSolver<T>::blocked_lu(K), at "
                 "least its longest partition's block-row steps, each "
                 "model_blocked_step_fixed_seconds + the blocks in its batched calls x "
                 "model_blocked_step_per_block_seconds (measured on the blocked LU at two "
                 "batch sizes)"}};
    }
};

struct ModelOut {
    double seconds = std::numeric_limits<double>::quiet_NaN();
    double bytes = std::numeric_limits<double>::quiet_NaN();
    double flops = std::numeric_limits<double>::quiet_NaN();
    std::map<std::string, double> groups;  // seconds per li2012 Fig. 6 phase, and "start"
                                           // (r0 = b - A x0: in no timed phase)
    // The measured steps and waves the chains used (SpikeSolver<T>::step_seconds; 0: none)
    sp::StepSeconds steps;
};

/// The predicted SPIKE+BiCGStab solve: setup and the 2 x iterations preconditioner applies
/// (spike_bicgstab.hpp: right preconditioning, x0 as given) in the preconditioner's precision,
/// the start (r0 = b - A x0) and the iterations' SpMVs and vector ops in double. NaN when psize is
/// not a valid partition size (e.g. 0: the solve did not run).
ModelOut model_spike(index_type n, index_type K, index_type psize, double iterations, bool mixed,
                     const ModelFigures& f);

// ------------------------------------------------------------------------------ SPIKE timing
/// The device side of a problem: b, x, the stream and the SpMV operator of A (built once: its
/// host-side CSR conversion and format choice would otherwise repeat in every timed solve).
struct Gpu {
    cuda_stream stream;
    device_buffer<double> b, x;
    spmv::SpmvOperator<double> op;
    explicit Gpu(const Problem& p)
        : b(p.b), x(p.b.size()),
          op(band_to_csr(p.band), spmv::Policy{"auto"}, spmv::machine_figures())
    {}
};

/// Sets x to 0 and synchronizes the stream.
void reset_x(Gpu& g);

/// One point of SPIKE+BiCGStab: the first (warm-up) solve's result and the medians of the
/// timed solves.
struct SpikeTimed {
    sp::SpikeBicgstabResult result;
    double seconds = std::numeric_limits<double>::quiet_NaN();
    double factor_seconds = std::numeric_limits<double>::quiet_NaN();
    double transfer_seconds = std::numeric_limits<double>::quiet_NaN();
    double wall_seconds = std::numeric_limits<double>::quiet_NaN();
    int repetitions = 0;
    bool warm_up = true;  // a separate warm-up solve ran before the timed ones
    bool ran() const { return result.factor_status.ok(); }
};

/// Solves once as warm-up, then min(reps_cap, budget / warm-up time) (at least 1) timed
/// solves, x reset to 0 before each. A warm-up that took the budget or more (N = 5e6, 1e7:
/// seconds of host-side setup per call) is the one timed solve: every call allocates and
/// copies alike, and smaller points have loaded the kernels before.
SpikeTimed time_spike(const Problem& p, Gpu& g, const sp::SpikeBicgstabOptions& o, int reps_cap,
                      double budget_s = point_budget_s);

/// The solve's SolveStatus as text, "zero_pivot" when the factorization failed.
std::string status_of(const sp::SpikeBicgstabResult& r);

/// The spike fields of bench_spike.hpp for a timed point, with the model.
json spike_fields(const Problem& p, const SpikeTimed& t, index_type psize_requested, bool mixed,
                  const ModelFigures& f);

/// SPIKE+BiCGStab options at `psize` (0: automatic), double or mixed precision, the study's
/// tolerance and iteration limit.
sp::SpikeBicgstabOptions spike_options(index_type psize, bool mixed);

// ------------------------------------------------------------------------------ the document
/// The study's shared state: the results document, the machine figures and the repetitions.
struct Study {
    json doc;
    ModelFigures figures;
    int reps_cap = 10;
    json& ctx() { return doc["context"]["kbench"]["li2012"]; }
};

/// A new study for run.id: validates run.options, measures the machine unless run.machine gives
/// it, and writes context.kbench.li2012 (settings, baselines, model figures, li2012's numbers,
/// notes) updated with `grid`.
Study new_study(const StudyRun& run, json grid);

}  // namespace kbench::harness::spike_bench
