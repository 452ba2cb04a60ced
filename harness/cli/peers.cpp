// `kbench peers belos`: kbench's CPU block and pseudo-block GMRES against Trilinos Belos'
// BlockGmres and PseudoBlockGmres on the same systems (issue 28; harness/studies/peers/peers_belos.hpp).
#include "harness/studies/boman2022/bench_block_gmres.hpp"
#include "harness/cli/cli.hpp"
#include "harness/studies/peers/peers_belos.hpp"
#include "harness/core/results_json.hpp"
#include "harness/core/study_context.hpp"
#include "solvers/block_gmres.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#ifdef _OPENMP
#include <omp.h>
#endif

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <fstream>
#include <memory>
#include <regex>
#include <stdexcept>

// OpenBLAS's thread count (weak: absent when the BLAS is another library). Belos's dense kernels
// (Epetra's multivector products) go through the system BLAS, which on Debian is OpenBLAS with
// one thread per core unless told otherwise.
extern "C" void openblas_set_num_threads(int) __attribute__((weak));

namespace kbench::harness {
namespace {

using json = nlohmann::json;

json solve_json(const solvers::SolveResult& r)
{
    return {{"iterations", r.iterations},
            {"seconds", r.seconds},
            {"status", solvers::to_string(r.status)},
            {"true_residual", r.true_residual}};
}

struct Args {
    MatrixSource source;
    std::string filter, json_out;
    std::vector<int> s_values{1, 2, 4, 8, 16};  // right-hand sides s
    std::vector<int> restarts{30};              // block steps per cycle; 0: not restarted
    double tolerance = 1e-8;
    int max_iterations = 2000;
    int basis_cap = 4096;  // basis vectors of a non-restarted solve, as boman2022/speedup
    int threads = 1;       // threads of kbench's CPU solvers (OpenMP) and of Belos's BLAS
};

void run_peers_belos(const Args& a)
{
    const auto filter = compile_filter(a.filter);
    if (!peers::belos_available())
        throw std::runtime_error(
            "kbench peers belos: this kbench was built without Trilinos Belos; install the "
            "Debian packages 'libtrilinos-belos-dev' and 'libtrilinos-epetra-dev' and re-run "
            "cmake");
#ifdef _OPENMP
    omp_set_num_threads(a.threads);
#endif
    // Belos's dense products run on the same number of threads as kbench's solvers.
    if (openblas_set_num_threads != nullptr) openblas_set_num_threads(a.threads);
    const MatrixSet set = load_source_set(a.source);
    json doc = make_results_document(kbench_context("peers/belos", a.source, set, nullptr, false));
    doc["context"]["kbench"]["peers"] = {
        {"tolerance", a.tolerance},
        {"max_iterations", a.max_iterations},
        {"basis_cap", a.basis_cap},
        {"kbench_threads", a.threads},
        {"belos_orthogonalization", peers::belos_orthogonalization},
        {"notes",
         {"right-hand sides: boman2022_right_hand_sides (uniform [-1, 1), seed 2022); x0 = 0",
          "kbench: block_gmres_cpu (block CGS2 + CholQR2 TSQR, deflation of converged columns "
          "at restart) and pseudo_block_gmres_cpu (CGS2), Eigen on kbench_threads OpenMP threads",
          "Belos: BlockGmresSolMgr and PseudoBlockGmresSolMgr on Epetra, one core, "
          "orthogonalization ICGS (two classical passes)",
          "iterations: block steps (pseudo-block: steps of the slowest system); restart: block "
          "steps per cycle (Belos' Num Blocks); 0: not restarted, at most basis_cap / s block "
          "steps"}}};
    fmt::print("{:<26} {:>7} {:>3} | {:>14} {:>14} {:>6} | {:>14} {:>14} {:>6}\n", "matrix",
               "restart", "s", "BGMRES kbench", "BlockGmres", "ratio", "pseudo kbench",
               "PseudoBlock", "ratio");
    for_each_matrix(set, [&](const MatrixEntry& entry, const Csr<double>& A, std::size_t,
                             std::size_t) {
        if (filter && !std::regex_search(entry.name, *filter)) return;
        int s_max = 1;
        for (int s : a.s_values) s_max = std::max(s_max, s);
        const std::vector<double> B_all = boman2022_right_hand_sides(A.num_rows, s_max);
        for (int restart : a.restarts) {
            for (int s : a.s_values) {
                solvers::BlockGmresOptions o;
                o.tolerance = a.tolerance;
                o.max_iterations = a.max_iterations;
                o.restart = restart;
                if (restart == 0) {  // not restarted: the basis limit bounds the block steps
                    o.max_iterations = std::max(1, std::min(a.max_iterations, a.basis_cap / s));
                    o.restart = o.max_iterations;
                }
                const std::vector<double> B(
                    B_all.begin(),
                    B_all.begin() + static_cast<std::ptrdiff_t>(s) * A.num_rows);
                json e = {{"name", fmt::format("belos/{}/restart={}/s={}", entry.name,
                                               restart > 0 ? std::to_string(restart) : "none", s)},
                          {"matrix", entry.name}, {"n", A.num_rows}, {"nnz", A.nnz()},
                          {"restart", restart > 0 ? json(restart) : json(nullptr)}, {"s", s}};
                const auto run = [&](const char* key, auto&& solve) {
                    std::vector<double> X(B.size(), 0.0);
                    const solvers::SolveResult r = solve(X);
                    e[key] = solve_json(r);
                    return r;
                };
                const auto kb = run("kbench_block", [&](std::vector<double>& X) {
                    return solvers::block_gmres_cpu(A, s, B, X, o);
                });
                const auto bb = run("belos_block", [&](std::vector<double>& X) {
                    return peers::belos_gmres(A, s, B, X, o, peers::BelosSolver::block_gmres);
                });
                const auto kp = run("kbench_pseudo", [&](std::vector<double>& X) {
                    return solvers::pseudo_block_gmres_cpu(A, s, B, X, o);
                });
                const auto bp = run("belos_pseudo", [&](std::vector<double>& X) {
                    return peers::belos_gmres(A, s, B, X, o, peers::BelosSolver::pseudo_block_gmres);
                });
                const auto ratio = [](const solvers::SolveResult& k, const solvers::SolveResult& b) {
                    return b.iterations > 0 ? static_cast<double>(k.iterations) / b.iterations : 0.0;
                };
                e["iteration_ratio_block"] = ratio(kb, bb);
                e["iteration_ratio_pseudo"] = ratio(kp, bp);
                const auto cell = [](const solvers::SolveResult& r) {
                    return fmt::format("{} {:.3f}s{}", r.iterations, r.seconds,
                                       r.status == solvers::SolveStatus::converged ? "" : "*");
                };
                fmt::print("{:<26} {:>7} {:>3} | {:>14} {:>14} {:>6.3f} | {:>14} {:>14} {:>6.3f}\n",
                           entry.name, restart > 0 ? std::to_string(restart) : "none", s, cell(kb),
                           cell(bb), ratio(kb, bb), cell(kp), cell(bp), ratio(kp, bp));
                std::fflush(stdout);
                doc["benchmarks"].push_back(e);
            }
        }
    });
    fmt::print("iterations and seconds per solve; ratio: kbench / Belos iterations; *: not "
               "converged\n");
    if (!a.json_out.empty()) {
        std::ofstream out(a.json_out);
        if (!out) throw std::runtime_error(fmt::format("--json {}: cannot write the file", a.json_out));
        out << doc.dump(1) << '\n';
    }
}

}  // namespace

void add_peers_command(CLI::App& app)
{
    auto a = std::make_shared<Args>();
    a->source.set = "boman2022";
    auto* peers = app.add_subcommand("peers", "kbench's solvers against other projects' "
                                              "(subcommand: belos)");
    peers->require_subcommand(1);
    auto* sub = peers->add_subcommand(
        "belos", "CPU block and pseudo-block GMRES against Trilinos Belos' BlockGmres and "
                 "PseudoBlockGmres: iterations, seconds and true residuals on the same systems "
                 "(boman2022's right-hand sides, x0 = 0)");
    sub->add_option("--set", a->source.set, "matrix set: shipped name or manifest JSON path")
        ->capture_default_str();
    sub->add_option("--matrix-dir", a->source.matrix_dir,
                    "directory of Matrix Market files (default $KBENCH_MATRIX_DIR)")
        ->check(CLI::ExistingDirectory);
    sub->add_flag("--real", a->source.real,
                  "the set's SuiteSparse matrices where present (as kbench reproduce --real)");
    sub->add_option("--filter", a->filter, "regex on the matrix names");
    sub->add_option("--block-sizes", a->s_values,
                    "comma-separated numbers of right-hand sides (>= 1)")
        ->delimiter(',')
        ->capture_default_str()
        ->check(CLI::Range(1, 1000000));
    sub->add_option("--restart", a->restarts,
                    "comma-separated restart lengths in block steps (0: not restarted)")
        ->delimiter(',')
        ->capture_default_str()
        ->check(CLI::Range(0, 1000000));
    sub->add_option("--tolerance", a->tolerance, "relative residual of every column to stop at")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    sub->add_option("--max-iterations", a->max_iterations, "block steps per solve")
        ->capture_default_str()
        ->check(CLI::Range(1, 1000000));
    sub->add_option("--basis-cap", a->basis_cap,
                    "not restarted: at most this many basis vectors (block steps <= it / s)")
        ->capture_default_str()
        ->check(CLI::Range(1, 1000000));
    sub->add_option("--threads", a->threads,
                    "threads of kbench's CPU solvers (OpenMP) and of the BLAS (OpenBLAS) that "
                    "Belos's dense products on Epetra use")
        ->capture_default_str()
        ->check(CLI::Range(1, 4096));
    sub->add_option("--json", a->json_out, "write the results JSON to FILE");
    sub->callback([a] { run_peers_belos(*a); });
}

}  // namespace kbench::harness
