// `kbench bench <family>` for the kernel families of the zoo beside SpMV (run.cpp's `bench
// spmv`): dot, tall-skinny, stream, tsqr, bicgstab-kernels, and spmm (over a matrix set, as
// bench spmv). Each family's options, names and runner are in harness/bench/ (kernel_bench.hpp
// and bench_<family>.hpp), shared with the studies that sweep the same kernels.
#include "harness/bench/bench_bicgstab_kernels.hpp"
#include "harness/bench/bench_dot.hpp"
#include "harness/bench/bench_spmm.hpp"
#include "harness/bench/bench_spmv.hpp"  // print_spmv_summary: the same entry shape
#include "harness/bench/bench_stream.hpp"
#include "harness/bench/bench_tall_skinny.hpp"
#include "harness/bench/bench_tsqr.hpp"
#include "harness/bench/kernel_bench.hpp"
#include "harness/cli/cli.hpp"
#include "harness/core/machine.hpp"
#include "harness/core/registry.hpp"
#include "harness/core/results_json.hpp"

#include <fmt/format.h>

#include <functional>
#include <iostream>
#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace kbench::harness {

namespace {

/// What a family's subcommand needs besides the common options.
struct FamilySpec {
    std::string name;         // "dot"
    std::string description;  // one line for --help
    std::string n_help, k_help;  // k_help empty: the family has no k (no --k)
    std::vector<std::string> default_ns, default_ks;
    std::int64_t n_max;
    int k_max;  // 0: no k
    std::function<nlohmann::json(const KernelBenchOptions&, const MachineProfile*)> run;
};

/// The options every family takes besides its sizes, bound to `args`.
struct CommonArgs {
    std::string precision = "double", json;
    KernelBenchOptions options;
    bool no_machine = false;
};

/// --precision, --cold, --repetitions, --min-time, --filter (`names`: the family's name
/// pattern), --json, --no-machine.
void add_common_options(CLI::App* sub, CommonArgs& a, const std::string& names)
{
    sub->add_option("--precision", a.precision, "double, float or both")->capture_default_str();
    sub->add_flag("--cold", a.options.run.cold,
                  "flush the L2 cache before each timed call (one call per repetition)");
    sub->add_option("--repetitions", a.options.run.repetitions, "repetitions (median reported)")
        ->capture_default_str();
    sub->add_option("--min-time", a.options.run.min_time,
                    "seconds of back-to-back calls per repetition (0: one call)")
        ->capture_default_str();
    sub->add_option("--filter", a.options.filter, "regex on benchmark names " + names);
    sub->add_option("--json", a.json, "write the results JSON to FILE");
    sub->add_flag("--no-machine", a.no_machine,
                  "skip the machine profile (bw_frac_* counters are then left out)");
}

/// Measures the machine profile unless --no-machine, runs, writes --json, prints the summary.
void run_and_report(const std::string& family, const CommonArgs& a,
                    const std::function<nlohmann::json(const MachineProfile*)>& run)
{
    require_gpu(("kbench bench " + family).c_str());
    MachineProfile machine;
    if (!a.no_machine) machine = measure_machine(&std::cerr);
    const nlohmann::json doc = run(a.no_machine ? nullptr : &machine);
    if (!a.json.empty()) write_json_file(doc, a.json);
    print_spmv_summary(doc);
}

void add_family(CLI::App* bench, FamilySpec spec)
{
    struct Args : CommonArgs {
        FamilySpec spec;
        std::vector<std::string> ns, ks;
    };
    auto a = std::make_shared<Args>();
    a->spec = std::move(spec);
    a->ns = a->spec.default_ns;
    a->ks = a->spec.default_ks;
    const FamilySpec& s = a->spec;
    auto* sub = bench->add_subcommand(s.name, s.description);
    sub->add_option("--n", a->ns, s.n_help + " (one or more, e.g. --n 1000 1e6; integers in [1, " +
                                      std::to_string(s.n_max) + "])")
        ->delimiter(',')
        ->capture_default_str();
    if (s.k_max > 0) {
        sub->add_option("--k", a->ks, s.k_help + " (one or more; integers in [1, " +
                                          std::to_string(s.k_max) + "])")
            ->delimiter(',')
            ->capture_default_str();
    }
    add_common_options(sub, *a, s.name + "/<variant>/<precision>/n=<n>" +
                                    (s.k_max > 0 ? "/k=<k>" : ""));
    sub->callback([a] {
        const FamilySpec& spec = a->spec;
        KernelBenchOptions o = a->options;
        o.ns = parse_sizes(a->ns, "--n", 1, spec.n_max);
        if (spec.k_max > 0)
            for (const std::int64_t k : parse_sizes(a->ks, "--k", 1, spec.k_max))
                o.ks.push_back(static_cast<int>(k));
        o.precisions = parse_bench_precision(a->precision);
        validate(o, spec.n_max, spec.k_max);
        run_and_report(spec.name, *a, [&](const MachineProfile* m) { return spec.run(o, m); });
    });
}

/// `kbench bench spmm`: matrices of a set (as bench spmv) instead of --n.
void add_spmm_family(CLI::App* bench)
{
    struct Args : CommonArgs {
        SpmmBenchOptions spmm;
        std::string kernels;
        std::vector<std::string> ks{"1", "4", "8"};
    };
    auto a = std::make_shared<Args>();
    auto* sub = bench->add_subcommand(
        "spmm", "SpMM Y = A X of block GMRES and the matrix powers kernel (kernels/spmm.hpp) vs "
                "cuSPARSE SpMM, over a matrix set at block widths k");
    add_source_options(sub, a->spmm.source);
    sub->add_option("--kernels", a->kernels,
                    "comma-separated kernels (default: all): " + join(spmm_kernels()));
    sub->add_option("--k", a->ks, "block widths k (one or more; integers in [1, " +
                                      std::to_string(spmm_bench_max_k()) + "])")
        ->delimiter(',')
        ->capture_default_str();
    add_common_options(sub, *a, "spmm/<kernel>/<precision>/<matrix>/k=<k>");
    sub->callback([a] {
        SpmmBenchOptions o = a->spmm;
        o.kernels = parse_spmm_kernels(a->kernels);
        o.kernel = a->options;
        for (const std::int64_t k : parse_sizes(a->ks, "--k", 1, spmm_bench_max_k()))
            o.kernel.ks.push_back(static_cast<int>(k));
        o.kernel.precisions = parse_bench_precision(a->precision);
        spmm_benchmark_names(o);  // validates, loads the set: before any GPU work
        run_and_report("spmm", *a, [&](const MachineProfile* m) { return run_spmm_bench(o, m); });
    });
}

}  // namespace

void add_bench_family_subcommands(CLI::App* bench)
{
    add_family(bench, {"dot",
                       "Dot products (anzt2015 Figs. 7, 8): DDOT, MDOT (k products sharing y) and "
                       "MDGM (V^T y) vs cuBLAS dot and gemv",
                       "vector lengths n",
                       "products k per call (dot, cublas_dot: k calls)",
                       {"1000000"},
                       {"1", "8"},
                       std::numeric_limits<int>::max(),
                       dot_bench_max_k(),
                       run_dot_bench});
    add_family(bench, {"tall-skinny",
                       "Tall-skinny kernels (yamazaki2014 Fig. 11): V^T y, y -= V c, Gram V^T V "
                       "and V R^-1 vs cuBLAS gemv, gemm, syrk and trsm",
                       "rows n",
                       "columns k",
                       {"1000000"},
                       {"30"},
                       std::numeric_limits<int>::max(),
                       tall_skinny_bench_max_k(),
                       run_tall_skinny_bench});
    add_family(bench, {"stream",
                       "STREAM-style bandwidth kernels (kernels/stream.hpp): copy, triad and the "
                       "read-only reduction",
                       "vector lengths n",
                       "",
                       {"100000000"},
                       {},
                       stream_bench_max_n(),
                       0,
                       run_stream_bench});
    add_family(bench, {"tsqr",
                       "TSQR methods (yamazaki2014 Fig. 11): mgs, cgs, cgs2, cholqr, cholqr2, svqr, "
                       "caqr, shifted_cholqr3 and cusolver_qr (cuSOLVER geqrf + orgqr)",
                       "rows n",
                       "columns k",
                       {"1000000"},
                       {"30"},
                       std::numeric_limits<int>::max(),
                       tsqr_bench_max_k(),
                       run_tsqr_bench});
    add_family(bench, {"bicgstab-kernels",
                       "Fused BiCGSTAB vector kernels (anzt2015 Sec. 3.3, Table 1): p_update, "
                       "alpha_dot, s_update, omega_dot, xr_update vs the cuBLAS calls they merge",
                       "vector lengths n",
                       "",
                       {"1000000"},
                       {},
                       bicgstab_kernel_bench_max_n(),
                       0,
                       run_bicgstab_kernel_bench});
    add_spmm_family(bench);
}

}  // namespace kbench::harness
