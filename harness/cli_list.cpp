// `kbench list [--ids|--sets|--kernels]`.
#include "harness/cli.hpp"
#include "harness/registry.hpp"
#include "matrices/matrix_set.hpp"

#include <fmt/format.h>

#include <memory>

namespace kbench::harness {

void add_list_command(CLI::App& app)
{
    struct Flags {
        bool ids = false, sets = false, kernels = false;
    };
    auto f = std::make_shared<Flags>();
    auto* sub = app.add_subcommand("list", "List reproduction ids, shipped matrix sets and SpMV "
                                           "kernels (all three without a flag)");
    sub->add_flag("--ids", f->ids, "reproduction ids (for `kbench reproduce`)");
    sub->add_flag("--sets", f->sets, "matrix sets shipped in matrices/sets/");
    sub->add_flag("--kernels", f->kernels, "SpMV kernels (for `kbench bench spmv --kernels`)");
    sub->callback([f] {
        const bool all = !f->ids && !f->sets && !f->kernels;
        if (all || f->ids) {
            if (all) fmt::print("reproduction ids:\n");
            for (const auto& r : reproductions()) fmt::print("  {:<20} {}\n", r.id, r.description);
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
