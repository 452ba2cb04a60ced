// `kbench list [--ids|--sets|--kernels] [--results-dir DIR]`.
#include "harness/bench/bench_bicgstab_kernels.hpp"
#include "harness/bench/bench_dot.hpp"
#include "harness/bench/bench_spmm.hpp"
#include "harness/bench/bench_stream.hpp"
#include "harness/bench/bench_tall_skinny.hpp"
#include "harness/bench/bench_tsqr.hpp"
#include "harness/core/catalogue.hpp"
#include "harness/cli/cli.hpp"
#include "harness/core/registry.hpp"
#include "harness/cli/reproduce.hpp"
#include "harness/core/study.hpp"
#include "matrices/matrix_set.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <memory>
#include <vector>

namespace kbench::harness {

namespace {

/// Every catalogued id (then any registered id the catalogue lacks): implemented or not, the
/// GPUs with stored results under results_root (for an id rendered from another's results,
/// those of the other), the description; columns as wide as their widest cell.
void print_ids(const std::string& results_root)
{
    std::vector<std::array<std::string, 4>> rows = {
        {"id", "implemented", "stored results", "description"}};
    const auto add = [&](const std::string& id, const Reproduction* r, const std::string& text) {
        auto gpus = stored_result_gpus(results_root, id);
        std::string stored = join(gpus, ",");
        if (gpus.empty() && r != nullptr && !r->derive_from.empty()) {
            gpus = stored_result_gpus(results_root, r->derive_from);
            if (!gpus.empty()) stored = join(gpus, ",") + " (from " + r->derive_from + ")";
        }
        rows.push_back({id, r != nullptr ? "yes" : "no", stored.empty() ? "-" : stored, text});
    };
    for (const auto& entry : catalogue()) {
        const Reproduction* r = nullptr;
        for (const auto& candidate : reproductions()) {
            if (candidate.id == entry.id) r = &candidate;
        }
        add(entry.id, r, r != nullptr ? r->description : entry.title);
    }
    for (const auto& r : reproductions()) {
        if (catalogue_index(r.id) == catalogue().size())
            add(r.id, &r, r.description + " (not in the catalogue)");
    }
    std::size_t width[3] = {0, 0, 0};
    for (const auto& row : rows)
        for (int c = 0; c < 3; ++c) width[c] = std::max(width[c], row[c].size());
    for (const auto& row : rows)
        fmt::print("  {:<{}}  {:<{}}  {:<{}}  {}\n", row[0], width[0], row[1], width[1], row[2],
                   width[2], row[3]);
}

}  // namespace

void add_list_command(CLI::App& app)
{
    struct Flags {
        bool ids = false, sets = false, kernels = false;
        std::string results_root = std::string(KBENCH_SOURCE_DIR) + "/results";
    };
    auto f = std::make_shared<Flags>();
    auto* sub = app.add_subcommand("list", "List reproduction ids, shipped matrix sets and the "
                                           "kernels of each benchmark family (all three without "
                                           "a flag)");
    sub->add_flag("--ids", f->ids, "reproduction ids of the catalogue (for `kbench reproduce`): "
                                   "implemented or not, GPUs with stored results");
    sub->add_flag("--sets", f->sets, "matrix sets shipped in matrices/sets/");
    sub->add_flag("--kernels", f->kernels, "the benchmark families of `kbench bench <family>`, "
                                           "their kernels and benchmark name patterns");
    sub->add_option("--results-dir", f->results_root, "results tree root searched for stored "
                                                      "results")
        ->capture_default_str();
    sub->callback([f] {
        const bool all = !f->ids && !f->sets && !f->kernels;
        if (all || f->ids) {
            if (all) fmt::print("reproduction ids:\n");
            print_ids(f->results_root);
        }
        if (all || f->sets) {
            if (all) fmt::print("matrix sets:\n");
            for (const auto& s : shipped_matrix_sets()) fmt::print("  {}\n", s);
        }
        if (all || f->kernels) {
            if (all) fmt::print("benchmark families (kbench bench <family>):\n");
            fmt::print("spmv: SpMV kernels (--kernels), names "
                       "spmv/<kernel>/<precision>/<matrix>\n");
            for (const auto& k : spmv_kernels()) fmt::print("  {}\n", k);
            fmt::print("dot: dot products, names dot/<variant>/<precision>/n=<n>/k=<k>\n");
            for (const DotVariant v : dot_variants()) fmt::print("  {}\n", to_string(v));
            fmt::print("tall-skinny: tall-skinny kernels, names "
                       "tall-skinny/<variant>/<precision>/n=<n>/k=<k>\n");
            for (const TallSkinnyVariant v : tall_skinny_variants())
                fmt::print("  {:<18} ({})\n", to_string(v), tall_skinny_kernel(v));
            fmt::print("stream: bandwidth kernels, names stream/<variant>/<precision>/n=<n>\n");
            for (const StreamVariant v : stream_variants()) fmt::print("  {}\n", to_string(v));
            fmt::print("tsqr: TSQR methods, names tsqr/<variant>/<precision>/n=<n>/k=<k>\n");
            for (const TsqrVariant& v : tsqr_variants()) fmt::print("  {}\n", v.name);
            fmt::print("bicgstab-kernels: fused BiCGSTAB kernels and their cuBLAS calls, names "
                       "bicgstab-kernels/<variant>/<precision>/n=<n>\n");
            for (const BicgstabKernelVariant v : bicgstab_kernel_variants())
                fmt::print("  {:<18} ({})\n", to_string(v), bicgstab_model_kernel(v));
            fmt::print("spmm: sparse times dense block over a matrix set, names "
                       "spmm/<kernel>/<precision>/<matrix>/k=<k>\n");
            for (const auto& k : spmm_kernels()) fmt::print("  {}\n", k);
        }
    });
}

}  // namespace kbench::harness
