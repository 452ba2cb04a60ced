// `kbench solve bicgstab`: BiCGSTAB solves over a matrix set, every form and SpMV kernel asked;
// `kbench solve gmres`: GMRES(m) solves over a matrix set, every orthogonalization asked.
#include "harness/bench/bench_bicgstab.hpp"
#include "harness/bench/bench_gmres.hpp"
#include "harness/cli/cli.hpp"
#include "harness/core/registry.hpp"
#include "harness/core/results_json.hpp"

#include <iostream>
#include <memory>
#include <sstream>

namespace kbench::harness {
namespace {

std::vector<std::string> split_commas(const std::string& list)
{
    std::vector<std::string> out;
    std::stringstream in(list);
    for (std::string item; std::getline(in, item, ',');)
        if (!item.empty()) out.push_back(item);
    return out;
}

/// --set (default smoke), --matrix-dir, --real (add_source_options) and --quick.
void add_solve_source_options(CLI::App* sub, MatrixSource& source)
{
    source.set = "smoke";
    add_source_options(sub, source);
    sub->add_flag("--quick", source.quick,
                  "the set's quick entries and quick_params (as kbench reproduce --quick)");
}

void add_gmres_subcommand(CLI::App* solve)
{
    struct Args {
        GmresRunOptions run;
        std::string orths = "cgs2,lowsync", json;
        bool no_machine = false;
    };
    auto a = std::make_shared<Args>();
    auto* sub = solve->add_subcommand(
        "gmres", "GMRES(m) on one GPU (solvers/gmres.hpp) with any Arnoldi orthogonalization and "
                 "SpMV kernel, b = A*ones, x0 = 0: Arnoldi steps, us per step, true residual");
    add_solve_source_options(sub, a->run.source);
    sub->add_option("--orth", a->orths, "comma-separated: cgs2, mgs, lowsync (one-reduce CGS2)")
        ->capture_default_str();
    sub->add_option("--spmv", a->run.spmv, "SpMV operator policy: auto or a kernel of kbench "
                                           "list --kernels")
        ->capture_default_str();
    sub->add_option("--restart", a->run.solve.restart, "restart length m")
        ->capture_default_str()
        ->check(CLI::Range(1, 100000));
    sub->add_option("--tolerance", a->run.solve.tolerance, "relative residual to stop at")
        ->capture_default_str()
        ->check(CLI::NonNegativeNumber);
    sub->add_option("--max-iterations", a->run.solve.max_iterations,
                    "Arnoldi steps over all cycles")
        ->capture_default_str()
        ->check(CLI::Range(0, 2147483647));
    sub->add_flag("--timing", a->run.solve.timing_mode,
                  "run exactly --max-iterations steps, tolerance and stagnation tests off; "
                  "breakdowns still stop");
    sub->add_option("--repetitions", a->run.repetitions, "timed solves after an untimed one "
                                                         "(median)")
        ->capture_default_str()
        ->check(CLI::Range(1, 1000000));
    sub->add_option("--filter", a->run.filter, "regex on names gmres/<orth>/<spmv>/<matrix>")
        ->check(regex_check());
    sub->add_flag("--no-machine", a->no_machine, "skip the machine profile");
    sub->add_option("--json", a->json, "write the results JSON to FILE");
    sub->callback([a] {
        a->run.orths.clear();
        for (const auto& o : split_commas(a->orths))
            a->run.orths.push_back(solvers::parse_arnoldi_orth(o));
        check_matrix_source(a->run.source);
        require_gpu("kbench solve gmres");
        MachineProfile machine;
        if (!a->no_machine) machine = measure_machine(&std::cerr);
        const auto doc =
            run_gmres_solves(a->run, "solve/gmres", a->no_machine ? nullptr : &machine);
        if (!a->json.empty()) write_json_file(doc, a->json);
        print_gmres_summary(doc);
    });
}

}  // namespace

void add_solve_command(CLI::App& app)
{
    struct Args {
        BicgstabRunOptions run;
        std::string forms = "reference,merged,graph", kernels = "cusparse_csr,auto",
                    precision = "double", json;
        bool no_cpu = false, no_machine = false, detailed = false;
    };
    auto a = std::make_shared<Args>();
    auto* solve =
        app.add_subcommand("solve", "Run solvers over a matrix set (subcommands: bicgstab, gmres)");
    solve->require_subcommand(1);
    auto* sub = solve->add_subcommand(
        "bicgstab", "BiCGSTAB (anzt2015): cuBLAS reference, merged and CUDA-graph forms with any "
                    "SpMV kernel, b = A*ones, x0 = 0");
    add_solve_source_options(sub, a->run.source);
    sub->add_option("--forms", a->forms, "comma-separated: reference, merged, graph")
        ->capture_default_str();
    sub->add_option("--spmv", a->kernels, "comma-separated SpMV operator policies (auto or a "
                                          "kernel of kbench list --kernels)")
        ->capture_default_str();
    sub->add_option("--precision", a->precision, "double, float or both")->capture_default_str();
    sub->add_option("--tolerance", a->run.solve.tolerance, "relative residual to stop at")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    sub->add_option("--max-iterations", a->run.solve.max_iterations, "iteration limit")
        ->capture_default_str()
        ->check(CLI::Range(1, 2147483647));
    sub->add_flag("--timing", a->run.solve.timing_mode,
                  "run exactly --max-iterations iterations, stopping test off (anzt2015's "
                  "1000-iteration profiles); breakdowns still stop");
    sub->add_option("--stagnation-window", a->run.solve.stagnation_window,
                    "smallest stagnation window: stop after iteration k when the best residual "
                    "of the last max(this, 3k/4) iterations is not 0.1% below the best before "
                    "them (0: never)")
        ->capture_default_str()
        ->check(CLI::NonNegativeNumber);
    sub->add_option("--repetitions", a->run.repetitions, "timed solves after a warm-up (median)")
        ->capture_default_str()
        ->check(CLI::Range(1, 1000000));
    sub->add_option("--filter", a->run.filter,
                    "regex on names bicgstab/<form>/<spmv>/<precision>/<matrix>")
        ->check(regex_check());
    sub->add_flag("--detailed", a->detailed,
                  "also one detailed solve per reference/merged configuration: each phase timed "
                  "with CUDA events and marked with an NVTX range (anzt2015 Table 4)");
    sub->add_flag("--no-cpu", a->no_cpu, "skip the Eigen CPU baseline");
    sub->add_flag("--no-machine", a->no_machine, "skip the machine profile");
    sub->add_option("--json", a->json, "write the results JSON to FILE");
    sub->callback([a] {
        std::vector<solvers::BicgstabForm> forms;
        for (const auto& f : split_commas(a->forms))
            forms.push_back(solvers::parse_bicgstab_form(f));
        a->run.configs = cross_configs(forms, parse_kernel_list(a->kernels), a->detailed);
        a->run.precisions = parse_precision(a->precision);
        a->run.cpu_baseline = !a->no_cpu;
        check_matrix_source(a->run.source);
        require_gpu("kbench solve bicgstab");
        MachineProfile machine;
        if (!a->no_machine) machine = measure_machine(&std::cerr);
        const auto doc =
            run_bicgstab_study(a->run, "solve/bicgstab", a->no_machine ? nullptr : &machine);
        if (!a->json.empty()) write_json_file(doc, a->json);
        print_bicgstab_summary(doc);
    });
    add_gmres_subcommand(solve);
}

}  // namespace kbench::harness
