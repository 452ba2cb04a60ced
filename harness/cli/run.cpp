// `kbench machine`, `kbench bench spmv`, `kbench reproduce`, `kbench profile`.
#include "harness/bench/bench_spmv.hpp"
#include "harness/cli/cli.hpp"
#include "harness/cli/profile.hpp"
#include "harness/core/quick.hpp"
#include "harness/core/registry.hpp"
#include "harness/cli/reproduce.hpp"
#include "harness/core/results_json.hpp"
#include "kernels/base/device.hpp"

#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <stdexcept>

namespace kbench::harness {

int& exit_status()
{
    static int status = 0;
    return status;
}

void require_gpu(const char* command)
{
    const std::string reason = gpu_unavailable_reason();
    if (!reason.empty()) {
        throw std::runtime_error(fmt::format("{} needs a GPU; {}", command, reason));
    }
}

void add_source_options(CLI::App* sub, MatrixSource& source)
{
    sub->add_option("--set", source.set, "matrix set: shipped name (kbench list --sets) or "
                                         "manifest JSON path");
    sub->add_option("--matrix-dir", source.matrix_dir,
                    "directory of Matrix Market files (default $KBENCH_MATRIX_DIR)")
        ->check(CLI::ExistingDirectory);
    sub->add_flag("--real", source.real,
                  "use the SuiteSparse matrices the set names (\"suitesparse\") where present "
                  "in the matrix directory or <cache>/matrices (kbench matrix fetch --set), "
                  "the stand-ins otherwise");
}

namespace {
/// --cold, --repetitions, --min-time, --spmv-tune, --spmv-trials, --quick (defaults: those in
/// `o`). The subcommand's callback calls finish_run_options.
void add_run_options(CLI::App* sub, RunOptions& o)
{
    sub->add_flag("--quick", o.quick,
                  "reduced sizes and repetitions (a smoke run, not the study's figures): the "
                  "sets' quick entries, capped sweeps, at most 2 repetitions and 0.01 s each "
                  "unless given");
    sub->add_flag("--cold", o.cold, "flush the L2 cache before each timed launch");
    sub->add_option("--repetitions", o.repetitions, "repetitions (median reported)")
        ->capture_default_str()
        ->check(CLI::Range(1, 1000000));
    sub->add_option("--min-time", o.min_time, "seconds of GPU time per repetition (0: one "
                                             "iteration)")
        ->capture_default_str()
        ->check(CLI::NonNegativeNumber);
    sub->add_option("--spmv-tune", o.spmv_tune,
                    "SpMV kernel 'auto': 'model' (the time model's ranking) or 'trial' (also "
                    "time the --spmv-trials best modeled configurations once, keep the fastest)")
        ->capture_default_str()
        ->check(CLI::IsMember({"model", "trial"}));
    sub->add_option("--spmv-trials", o.spmv_trials,
                    "with --spmv-tune trial: configurations timed")
        ->capture_default_str()
        ->check(CLI::Range(1, 1000));
}

/// With --quick: the source's quick entries, and apply_quick for the options add_run_options
/// bound to `o` on `sub`, the ones given on the command line left as given.
void finish_run_options(const CLI::App* sub, RunOptions& o, MatrixSource& source)
{
    source.quick = o.quick;
    apply_quick(o, sub->get_option("--repetitions")->count() > 0,
                sub->get_option("--min-time")->count() > 0);
}

}  // namespace

void add_sellp_options(CLI::App* sub, SellpParams& p)
{
    sub->add_option("--sellp-b", p.slice_height,
                    "SELL-P slice height b (default: spmv::choose_sellp_params)")
        ->check(sellp_check(false, 1024));
    sub->add_option("--sellp-t", p.threads_per_row,
                    "SELL-P threads per row t, a power of two (default: "
                    "spmv::choose_sellp_params)")
        ->check(sellp_check(true, 32));
    sub->add_option("--sigma", p.sigma,
                    "SELL-C-sigma sorting window in rows, 1 (no sorting) or a multiple of b "
                    "(default: spmv::choose_sellp_params)")
        ->check(sellp_check(false, 2147483647));
    sub->add_option("--long-row-threshold", p.long_row_threshold,
                    "SELL-P long-row split: rows with more nonzeros go to a CSR part (default: "
                    "spmv::choose_sellp_params, max(256, 16*ceil(nnz/n)); to disable the split, "
                    "pass a value >= the longest row, e.g. 2147483647)")
        ->check(sellp_check(false, 2147483647));
}

void add_machine_command(CLI::App& app)
{
    auto json = std::make_shared<std::string>();
    auto* sub = app.add_subcommand("machine", "Measure the machine profile: read/copy/triad "
                                              "bandwidth, launch and reduction latency, dgemm rate");
    sub->add_option("--json", *json, "also write the profile (with the GPU facts) to FILE");
    sub->callback([json] {
        require_gpu("kbench machine");
        const MachineProfile m = measure_machine(&std::cerr);
        print_machine_profile(std::cout, m);
        if (!json->empty()) {
            write_json_file({{"gpu", query_device()}, {"machine", m}}, *json);
        }
    });
}

void add_bench_command(CLI::App& app)
{
    struct Args {
        SpmvOptions spmv;
        std::string kernels, precision = "double", json;
        bool no_machine = false;
    };
    auto a = std::make_shared<Args>();
    a->spmv.run.min_time = 0.2;
    auto* bench = app.add_subcommand("bench", "Run benchmarks (subcommands: spmv, and the kernel "
                                              "families: dot, tall-skinny, stream, tsqr, "
                                              "bicgstab-kernels, spmm)");
    bench->require_subcommand(1);
    auto* sub = bench->add_subcommand("spmv", "SpMV benchmarks over a matrix set (anzt2015 Table 3)");
    add_source_options(sub, a->spmv.source);
    sub->add_option("--kernels", a->kernels, "comma-separated kernels (default: all; kbench list "
                                             "--kernels)");
    sub->add_option("--precision", a->precision, "double, float or both")->capture_default_str();
    add_run_options(sub, a->spmv.run);
    sub->add_option("--filter", a->spmv.filter, "regex on benchmark names "
                                                "spmv/<kernel>/<precision>/<matrix>")
        ->check(regex_check());
    sub->add_option("--json", a->json, "write the results JSON to FILE");
    add_sellp_options(sub, a->spmv.sellp);
    sub->add_flag("--no-machine", a->no_machine,
                  "skip the machine profile (bw_frac_* counters are then left out)");
    sub->callback([a, sub] {
        finish_run_options(sub, a->spmv.run, a->spmv.source);
        a->spmv.kernels = parse_kernel_list(a->kernels);
        a->spmv.precisions = parse_precision(a->precision);
        check_matrix_source(a->spmv.source);
        require_gpu("kbench bench spmv");
        MachineProfile machine;
        if (!a->no_machine) machine = measure_machine(&std::cerr);
        const auto doc = run_spmv_study(a->spmv, "bench/spmv", a->no_machine ? nullptr : &machine);
        if (!a->json.empty()) write_json_file(doc, a->json);
        print_spmv_summary(doc);
    });
    add_bench_family_subcommands(bench);
}

void add_reproduce_command(CLI::App& app)
{
    auto o = std::make_shared<ReproduceOptions>();
    o->source.set.clear();
    o->results_root = std::string(KBENCH_SOURCE_DIR) + "/results";
    auto* sub = app.add_subcommand("reproduce", "Run a paper reproduction and render its table "
                                                "and figure (without a GPU: re-render stored results)");
    sub->add_option("ids", o->ids,
                    "reproduction ids (kbench list --ids) or 'all'; ids that derive from one "
                    "another (e.g. anzt2015/table5 anzt2015/table4 anzt2015/fig11) share one run")
        ->required()
        ->expected(1, -1);
    add_source_options(sub, o->source);
    auto* results_dir = sub->add_option("--results-dir", o->results_root,
                                        "results tree root (with --quick: <cache>/quick-results)")
                            ->capture_default_str();
    sub->add_flag("--resume", o->resume,
                  "continue a stopped run: skip (only re-render) each id whose results.json was "
                  "written at this commit, with a clean tree, on this GPU kind");
    sub->add_option("--budget", o->budget_seconds,
                    "seconds this call may take (0: no limit): an id whose last recorded run "
                    "would end past it is deferred (run again with --resume; an id without a "
                    "recorded duration runs only first), one longer than the whole budget is "
                    "skipped")
        ->check(CLI::NonNegativeNumber);
    add_run_options(sub, o->run);
    sub->callback([o, sub, results_dir] {
        finish_run_options(sub, o->run, o->source);
        if (o->run.quick && results_dir->count() == 0) o->results_root = quick_results_root();
        check_matrix_source(o->source);
        exit_status() = run_reproduce(*o);
    });
}

void add_profile_command(CLI::App& app)
{
    auto o = std::make_shared<ProfileOptions>();
    auto* sub = app.add_subcommand(
        "profile", "Measure one benchmark's DRAM traffic with Nsight Compute (every kernel of its "
                   "warm-up call) and compare it with the model");
    sub->add_option("benchmark", o->name,
                    "benchmark name of any family (kbench list --kernels), e.g. "
                    "spmv/<kernel>/<precision>/<matrix> or dot/<variant>/<precision>/n=<n>/k=<k>")
        ->required();
    add_source_options(sub, o->source);
    sub->add_option("--ncu", o->ncu, "Nsight Compute CLI")->capture_default_str();
    sub->add_option("--metrics", o->metrics,
                    "extra ncu sections (e.g. SpeedOfLight,MemoryWorkloadAnalysis) and metrics "
                    "(names with '__'), comma-separated, printed per kernel");
    sub->callback([o] {
        parse_benchmark_name(o->name);
        profile_request(*o);
        require_gpu("kbench profile");
        exit_status() = run_profile(*o);
    });
}

}  // namespace kbench::harness
