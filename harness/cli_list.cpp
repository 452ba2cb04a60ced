// `kbench list [--ids|--sets|--kernels] [--results-dir DIR]`.
#include "harness/catalogue.hpp"
#include "harness/cli.hpp"
#include "harness/registry.hpp"
#include "harness/reproduce.hpp"
#include "harness/study.hpp"
#include "matrices/matrix_set.hpp"

#include <fmt/format.h>

#include <memory>

namespace kbench::harness {

namespace {

void print_id(const std::string& id, bool implemented, const std::string& results_root,
              const std::string& description)
{
    const auto gpus = stored_result_gpus(results_root, id);
    fmt::print("  {:<24} {:<12} {:<16} {}\n", id, implemented ? "yes" : "no",
               gpus.empty() ? "-" : join(gpus, ","), description);
}

/// Every catalogued id (then any registered id the catalogue lacks): implemented or not, the
/// GPUs with stored results under results_root, the description.
void print_ids(const std::string& results_root)
{
    fmt::print("  {:<24} {:<12} {:<16} {}\n", "id", "implemented", "stored results", "description");
    for (const auto& entry : catalogue()) {
        const Reproduction* r = nullptr;
        for (const auto& candidate : reproductions()) {
            if (candidate.id == entry.id) r = &candidate;
        }
        print_id(entry.id, r != nullptr, results_root, r != nullptr ? r->description : entry.title);
    }
    for (const auto& r : reproductions()) {
        if (catalogue_index(r.id) == catalogue().size()) {
            print_id(r.id, true, results_root, r.description + " (not in the catalogue)");
        }
    }
}

}  // namespace

void add_list_command(CLI::App& app)
{
    struct Flags {
        bool ids = false, sets = false, kernels = false;
        std::string results_root = std::string(KBENCH_SOURCE_DIR) + "/results";
    };
    auto f = std::make_shared<Flags>();
    auto* sub = app.add_subcommand("list", "List reproduction ids, shipped matrix sets and SpMV "
                                           "kernels (all three without a flag)");
    sub->add_flag("--ids", f->ids, "reproduction ids of the catalogue (for `kbench reproduce`): "
                                   "implemented or not, GPUs with stored results");
    sub->add_flag("--sets", f->sets, "matrix sets shipped in matrices/sets/");
    sub->add_flag("--kernels", f->kernels, "SpMV kernels (for `kbench bench spmv --kernels`)");
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
            if (all) fmt::print("SpMV kernels:\n");
            for (const auto& k : spmv_kernels()) fmt::print("  {}\n", k);
        }
    });
}

}  // namespace kbench::harness
