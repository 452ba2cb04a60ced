// Runners of the yamazaki2014 CA-GMRES ids (declarations and result schema in
// harness/studies/yamazaki2014/bench_ca_gmres.hpp).
#include "harness/studies/yamazaki2014/bench_ca_gmres.hpp"

#include "harness/studies/yamazaki2014/ca_gmres_rows.hpp"
#include "harness/mpi/mpi_launch.hpp"

#include "harness/core/progress.hpp"
#include "harness/core/quick.hpp"
#include "harness/core/results_json.hpp"
#include "harness/core/study_context.hpp"
#include "harness/core/timing.hpp"
#include "kernels/base/cuda_check.hpp"
#include "kernels/base/cuda_handles.hpp"
#include "kernels/base/device_buffer.hpp"
#include "kernels/machine_probe.hpp"
#include "kernels/spmv_operator.hpp"
#include "matrices/matrix_set.hpp"
#include "solvers/ca_gmres.hpp"
#include "solvers/gmres.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace kbench::harness {
namespace {

using json = nlohmann::json;
namespace sv = kbench::solvers;
using ortho::TsqrMethod;

using fig14::CaConfig;
using fig14::PaperSetup;
using fig14::finite_or_null;

constexpr int error_restart_cap = 2;    // cycles per fig13 solve (host error computations)

/// The balanced system on the device: its SpMV operator, b and x.
struct System {
    cuda_stream stream;
    spmv::SpmvOperator<double> op;
    device_buffer<double> b, x;
    System(const Csr<double>& balanced, const std::vector<double>& rhs)
        : op(balanced, spmv::Policy{"auto"}, spmv::machine_figures()), b(rhs), x(rhs.size())
    {}
    void reset()
    {
        KBENCH_CUDA_CHECK(
            cudaMemsetAsync(x.data(), 0, x.size() * sizeof(double), stream.get()));
        stream.synchronize();
    }
};

/// One untimed solve(0) to the tolerance (returned: status, iterations, restarts), then the
/// median `seconds` of fig14::timed_repetitions timed calls of solve(fixed), fixed =
/// fig14::timed_iterations (0, or at least three full cycles in timing mode), x reset before
/// each; `fixed_out` is that value and `iterations` the timed solves' iterations.
template <typename R, typename F>
R timed(System& sys, int max_reps, int m, F&& solve, double& seconds, int& fixed_out,
        int& iterations)
{
    sys.reset();
    const R converged = solve(0);
    const int fixed = fig14::timed_iterations(converged.iterations, m);
    const double scale = fixed > 0 && converged.iterations > 0
                             ? double(fixed) / converged.iterations : 1.0;
    const int reps = fig14::timed_repetitions(converged.seconds * scale, max_reps);
    std::vector<double> t;
    R r{};
    for (int i = 0; i < reps; ++i) {
        sys.reset();
        r = solve(fixed);
        t.push_back(r.seconds);
    }
    seconds = median(t);
    fixed_out = fixed;
    iterations = r.iterations;
    return converged;
}

/// The fields every fig14 entry has besides its row's: name (prefixed "fig14/<matrix>/" and,
/// on several GPUs, "P=<gpus>/<transport>/"), figure, matrix, paper matrix, n, nnz, gpus.
void add_base(json& row, const std::string& matrix, const PaperSetup& p, const Csr<double>& a,
              int gpus = 1, const std::string& transport = "")
{
    const std::string where = gpus > 1 ? fmt::format("P={}/{}/", gpus, transport) : "";
    row["name"] = fmt::format("fig14/{}/{}{}", matrix, where, row.value("name", std::string()));
    row.update({{"figure", "fig14"},
                {"matrix", matrix},
                {"paper_matrix", p.matrix.empty() ? json(nullptr) : json(p.matrix)},
                {"n", a.num_rows},
                {"nnz", a.nnz()},
                {"gpus", gpus}});
    if (gpus > 1) row["transport"] = transport;
}

/// Runs CA-GMRES(c.s, m) with `borth` on the system, appends its fig14 entry to doc and returns
/// its time per restart (infinity when it did not converge).
double run_ca(System& sys, const MatrixEntry& entry, const PaperSetup& p, const Csr<double>& a,
              const CaConfig& c, sv::CaBorth borth, int reps, double gmres_cycle, json& doc)
{
    double seconds = 0.0;
    int fixed = 0, iterations = 0;
    const sv::CaGmresResult r = timed<sv::CaGmresResult>(sys, reps, p.m, [&](int fixed_its) {
        const sv::CaGmresOptions o = fig14::ca_options(c, p.m, borth, fixed_its);
        return sv::ca_gmres(sys.op, sys.b.data(), sys.x.data(), o, sys.stream.get());
    }, seconds, fixed, iterations);
    sv::CaGmresOptions o = fig14::ca_options(c, p.m, borth, fixed);
    o.detailed = true;
    sys.reset();
    const sv::CaGmresResult d =
        sv::ca_gmres(sys.op, sys.b.data(), sys.x.data(), o, sys.stream.get());
    json e = fig14::ca_row(p.m, c, borth, r, seconds, iterations, d);
    add_base(e, entry.name, p, a);
    const double cycle = fig14::per_cycle(seconds, iterations, p.m);
    e["speedup"] = finite_or_null(gmres_cycle / cycle);
    doc["benchmarks"].push_back(std::move(e));
    return r.status == sv::SolveStatus::converged && std::isfinite(cycle)
               ? cycle
               : std::numeric_limits<double>::infinity();
}

void run_matrix(const MatrixEntry& entry, const PaperSetup& p, const Csr<double>& a,
                const RunOptions& options, json& doc)
{
    const int m = p.m;
    const sv::Balanced<double> bal = sv::balance(a);
    System sys(bal.matrix, fig14::balanced_rhs(bal.row_scale));
    const int reps = options.repetitions;
    const double spmv_seconds = time_events(
        [&](cudaStream_t s) { sys.op.apply(1.0, sys.b.data(), 0.0, sys.x.data(), s); },
        sys.stream.get(), 3, 20);

    double gmres_cycle = std::numeric_limits<double>::quiet_NaN();
    for (sv::ArnoldiOrth orth :
         {sv::ArnoldiOrth::cgs2, sv::ArnoldiOrth::mgs, sv::ArnoldiOrth::cgs2_lowsync}) {
        double seconds = 0.0;
        int fixed = 0, iterations = 0;
        const sv::SolveResult r = timed<sv::SolveResult>(sys, reps, m, [&](int fixed_its) {
            const sv::GmresOptions o = fig14::gmres_options(m, orth, fixed_its);
            return sv::gmres(sys.op, sys.b.data(), sys.x.data(), o, sys.stream.get());
        }, seconds, fixed, iterations);
        json e = fig14::gmres_row(m, orth, r, seconds, iterations, m * spmv_seconds);
        add_base(e, entry.name, p, a);
        const double cycle = fig14::per_cycle(seconds, iterations, m);
        if (orth == sv::ArnoldiOrth::cgs2) gmres_cycle = cycle;
        e["speedup"] = finite_or_null(gmres_cycle / cycle);
        doc["benchmarks"].push_back(std::move(e));
    }

    const std::vector<CaConfig> configs = fig14::ca_configs(p.s, false);
    // The two-stage row (Yamazaki et al. 2024) takes the basis and TSQR of the fastest
    // converged per-block row of s > 1 (kbench's Newton row when none converged).
    CaConfig best = configs.back();
    double best_cycle = std::numeric_limits<double>::infinity();
    for (const CaConfig& c : configs) {
        const double cycle =
            run_ca(sys, entry, p, a, c, sv::CaBorth::block, reps, gmres_cycle, doc);
        if (c.s > 1 && cycle < best_cycle) {
            best_cycle = cycle;
            best = c;
        }
    }
    run_ca(sys, entry, p, a, best, sv::CaBorth::two_stage, reps, gmres_cycle, doc);
}

/// fig14 on P = 2, 4, ... GPUs (gpu_rank_counts beyond 1), both transports: one
/// `kbench dist ca-gmres` worker per P and transport
/// (harness/studies/yamazaki2014/dist_ca_gmres_worker.cpp), its rows appended with the base
/// fields, gpus = P and the transport; a failed worker leaves one entry with its "error".
void run_matrix_on_ranks(const StudyRun& run, const MatrixEntry& entry, const PaperSetup& p,
                         const Csr<double>& a, ScratchDir& dir, json& doc)
{
    const int reps = run.options.repetitions;
    for (const int np : run_gpu_rank_counts(run.options)) {
        if (np == 1) continue;
        for (const std::string transport : {"host_staged", "nccl"}) {
            const std::string name = fmt::format("fig14/{}/P={}/{}", entry.name, np, transport);
            const std::string file = dir.file_for(name);
            std::vector<std::string> argv = {
                mpi_launcher(), "-n", std::to_string(np), self_executable(), "dist", "ca-gmres",
                "--set", run.source.set, "--matrix", entry.name, "--device", "gpu",
                "--transport", transport, "--restart", std::to_string(p.m), "--steps",
                std::to_string(p.s), "--repetitions", std::to_string(reps), "--json", file};
            if (!run.source.matrix_dir.empty())
                argv.insert(argv.end(), {"--matrix-dir", run.source.matrix_dir});
            if (run.source.real) argv.push_back("--real");
            if (run.source.quick) argv.push_back("--quick");
            std::cerr << "kbench: " << name << "\n";
            const json worker = run_mpi_worker(argv, file);
            if (worker.contains("error")) {
                json e = {{"error", worker.at("error")}};
                add_base(e, entry.name, p, a, np, transport);
                doc["benchmarks"].push_back(std::move(e));
                continue;
            }
            for (json row : worker.at("rows")) {
                add_base(row, entry.name, p, a, np, transport);
                row["partition"] = worker.at("partition");
                doc["benchmarks"].push_back(std::move(row));
            }
        }
    }
}

/// Mean, min and max of the finite values of `in` (null when there are none).
json stats(const std::vector<double>& in)
{
    std::vector<double> v;
    for (double x : in)
        if (std::isfinite(x)) v.push_back(x);
    if (v.empty()) return nullptr;
    double sum = 0.0;
    for (double x : v) sum += x;
    return {{"mean", sum / double(v.size())},
            {"min", *std::min_element(v.begin(), v.end())},
            {"max", *std::max_element(v.begin(), v.end())}};
}

}  // namespace

json run_ca_gmres_study(const StudyRun& run)
{
    if (run.derive_from_results != nullptr) {  // fig12 and fig15 after fig14
        return derived_results(run);
    }
    validate(run.options);
    const MatrixSet set = load_source_set(run.source);
    json doc = make_results_document(kbench_context(run.id, run.source, set, run.machine, false));
    doc["context"]["kbench"]["yamazaki2014_ca_gmres"] = {
        {"tolerance", fig14::tolerance},
        {"restart_cap", fig14::restart_cap},
        {"seed", fig14::rhs_seed},
        {"notes",
         {"A balanced (rows, then columns, to unit 2-norm; yamazaki2014 Sec. VI); b uniform in "
          "[-1, 1) times the row scales, x0 = 0; converged at ||b - A x|| / ||b|| <= 1e-4",
          "m and s per paper matrix as yamazaki2014 Fig. 14 (cant 60, G3_circuit 30, "
          "dielFilterV2real 180; s = 15), from each matrix-set entry's \"study\"",
          "per-restart times: the median of up to --repetitions timed solves (about 0.5 s of "
          "them, at least 2, after an untimed solve to the tolerance that gives the status, "
          "iterations and restarts) scaled to m steps; where that solve took fewer than 3 full "
          "cycles, the timed solves run 3 m iterations in timing mode (convergence test off; "
          "timing_mode and timed_iterations in the row), so no time per restart comes from a "
          "partial cycle; CA-GMRES phases from a separate detailed solve run like the timed "
          "ones (Orth = BOrth + TSQR, SpMV = MPK); GMRES: SpMV = m "
          "times the measured SpMV time, Orth = the rest (its phases are not timed separately)",
          "GMRES orthogonalizes by CGS2 or MGS, BOrth by block CGS with 2 passes (yamazaki2014: "
          "CGS and MGS, BOrth by CGS); the paper's CA-GMRES runs the monomial basis on the "
          "balanced matrix (no scaling of the MPK vectors); the Newton rows (shifts: Leja-"
          "ordered Ritz values of a first GMRES cycle, vectors scaled) are kbench's",
          "a block whose TSQR fails (a Cholesky factor that does not exist) is redone by "
          "shifted CholQR3 (tsqr_fallbacks counts them; on one GPU and on the ranks alike)",
          "speedup: GMRES(m) CGS2 time per restart over the method's",
          "successors of the paper's methods (kbench): GMRES(m) CGS2 low-sync, classical "
          "Gram-Schmidt twice with one reduction per step (Swirydowicz et al. 2020; Bielich et "
          "al. 2022, Alg. 4), and CA-GMRES two-stage (Yamazaki, Higgins, Boman, Szyld, IPDPS "
          "2024): per block one fused Gram product and a Pythagorean CholQR, per panel of up to "
          "min(m, 64) columns BCGS2 and the TSQR, with the basis and TSQR of the fastest "
          "converged per-block CA-GMRES row of s > 1",
          "on P = 2, 4, ... GPUs (one MPI rank per GPU, natural row blocks, host-staged and NCCL "
          "transports; harness/studies/yamazaki2014/dist_ca_gmres_worker.cpp): the same system and rows on the "
          "distributed layer, with the TSQRs that run on several ranks (the Gram-based: "
          "CholQR, CholQR2, SVQR, shifted CholQR3); GMRES SpMV = its "
          "SpMV and halo phases; times are the slowest rank's"}}};
    doc["context"]["kbench"]["gpu_counts"] = run_gpu_rank_counts(run.options);
    // Every entry's m and s before any matrix is built: a set without them fails at once.
    std::map<std::string, PaperSetup> setups;
    for (const MatrixEntry& entry : set.matrices)
        setups.emplace(entry.name, fig14::paper_setup(entry, set.manifest));
    ScratchDir dir{resume_key(run)};
    Progress progress;
    for_each_matrix(set, [&](const MatrixEntry& entry, const Csr<double>& a, std::size_t k,
                             std::size_t total) {
        const PaperSetup& p = setups.at(entry.name);
        doc["context"]["kbench"]["matrices"][entry.name] =
            matrix_context(entry, a);
        progress.report(k, total, entry.name);
        run_matrix(entry, p, a, run.options, doc);
        if (!mpi_launcher().empty()) run_matrix_on_ranks(run, entry, p, a, dir, doc);
    });
    return doc;
}

json run_ca_tsqr_error_study(const StudyRun& run)
{
    validate(run.options);
    const MatrixSet set = load_source_set(run.source);
    if (set.matrices.empty())
        throw std::invalid_argument("yamazaki2014/fig13: matrix set '" + run.source.set +
                                    "' is empty, expected the stand-in for G3_circuit first");
    MatrixSet first = set;
    first.matrices.resize(1);
    json doc = make_results_document(kbench_context(run.id, run.source, first, run.machine, false));
    doc["context"]["kbench"]["yamazaki2014_ca_gmres"] = {
        {"tolerance", fig14::tolerance},
        {"restart_cap", error_restart_cap},
        {"notes",
         {"every block's ||I - Q^T Q||_2 and ||V - Q R||_F / ||V||_F (V the block after BOrth) "
          "over the first restart cycles, computed in double on the host; monomial basis on the "
          "balanced matrix as yamazaki2014; the element-wise error of Fig. 13 is not computed",
          "CA-GMRES(20, 30) makes blocks of 20 and 10 vectors per cycle, (30, 30) one of 30"}}};
    Progress progress;
    for_each_matrix(first, [&](const MatrixEntry& entry, const Csr<double>& a, std::size_t,
                               std::size_t) {
        doc["context"]["kbench"]["matrices"][entry.name] =
            matrix_context(entry, a);
        const sv::Balanced<double> bal = sv::balance(a);
        System sys(bal.matrix, fig14::balanced_rhs(bal.row_scale));
        const std::vector<TsqrMethod> methods{TsqrMethod::mgs,     TsqrMethod::cgs,
                                              TsqrMethod::cgs2,    TsqrMethod::cholqr,
                                              TsqrMethod::cholqr2, TsqrMethod::svqr,
                                              TsqrMethod::caqr,    TsqrMethod::shifted_cholqr3};
        std::size_t k = 0;
        for (int s : {20, 30}) {
            for (TsqrMethod t : methods) {
                progress.report(++k, 2 * methods.size(),
                                fmt::format("{} CA-GMRES({}, 30) {}", entry.name, s, ortho::to_string(t)));
                sv::CaGmresOptions o;
                o.s = s;
                o.restart = 30;
                o.tolerance = fig14::tolerance;
                o.max_iterations = 30 * error_restart_cap;
                o.basis = sv::CaBasis::monomial;
                o.normalize_basis = false;
                o.tsqr = t;
                o.borth_passes = 2;
                o.measure_orthogonality = true;
                sys.reset();
                const sv::CaGmresResult r =
                    sv::ca_gmres(sys.op, sys.b.data(), sys.x.data(), o, sys.stream.get());
                std::vector<double> orth, res, gram;
                int fallbacks = 0;
                for (const sv::CaBlockRecord& blk : r.blocks) {
                    if (blk.fallback) {  // the errors are the fallback's, not this TSQR's
                        ++fallbacks;
                        continue;
                    }
                    orth.push_back(blk.orthogonality);
                    res.push_back(blk.residual);
                    gram.push_back(blk.gram_condition);
                }
                doc["benchmarks"].push_back(
                    {{"name", fmt::format("fig13/{}/s={}/{}", entry.name, s, ortho::to_string(t))},
                     {"figure", "fig13"},
                     {"matrix", entry.name},
                     {"s", s},
                     {"restart", 30},
                     {"tsqr", ortho::to_string(t)},
                     {"status", sv::to_string(r.status)},
                     {"restarts", r.restarts},
                     {"blocks", r.blocks.size()},
                     {"fallbacks", fallbacks},
                     {"orthogonality", stats(orth)},
                     {"residual", stats(res)},
                     {"gram_condition", stats(gram)}});
            }
        }
    });
    return doc;
}

}  // namespace kbench::harness
