// `kbench matrix fetch`: the papers' own matrices from the SuiteSparse Matrix Collection.
#include "harness/cli/cli.hpp"
#include "harness/core/study_context.hpp"
#include "matrices/matrix_set.hpp"
#include "matrices/suitesparse_fetch.hpp"

#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace kbench::harness {

namespace {

/// Where fetched matrices go: the matrix directory, else <cache>/matrices.
std::string fetch_dir(const std::string& matrix_dir)
{
    const std::vector<std::string> dirs = real_matrix_dirs(matrix_dir);
    if (dirs.empty()) {
        throw std::runtime_error(
            "no directory to put matrices in: pass --matrix-dir, or set KBENCH_MATRIX_DIR or "
            "KBENCH_CACHE_DIR (or HOME, for ~/.cache/kbench)");
    }
    return dirs.front();
}

}  // namespace

void add_matrix_fetch_subcommand(CLI::App* matrix)
{
    struct Args {
        std::vector<std::string> ids, sets;
        std::string matrix_dir, base_url, index;
    };
    auto a = std::make_shared<Args>();
    auto* sub = matrix->add_subcommand(
        "fetch", "Download SuiteSparse collection matrices (Matrix Market archives) into the "
                 "matrix directory, checked against the collection index");
    sub->add_option("matrices", a->ids, "GROUP/NAME of the collection, e.g. AMD/G3_circuit");
    sub->add_option("--set", a->sets, "also every \"suitesparse\" matrix this matrix set names "
                                      "(repeatable)");
    sub->add_option("--matrix-dir", a->matrix_dir,
                    "where NAME.mtx goes (default $KBENCH_MATRIX_DIR, else "
                    "<cache>/matrices: $KBENCH_CACHE_DIR, $XDG_CACHE_HOME/kbench or "
                    "~/.cache/kbench)");
    sub->add_option("--base-url", a->base_url,
                    "the collection's address; archives are <base>/MM/GROUP/NAME.tar.gz "
                    "(default $KBENCH_SUITESPARSE_URL, else https://sparse.tamu.edu; the "
                    "collection is also at https://suitesparse-collection-website.herokuapp.com)");
    sub->add_option("--index", a->index,
                    "collection index CSV with columns group, name, num_rows, num_cols, "
                    "nonzeros, num_explicit_zeros (default: matrices/suitesparse_index.csv)");
    sub->callback([a] {
        std::vector<std::string> ids = a->ids;
        for (const std::string& set : a->sets) {
            const std::vector<std::string> named = suitesparse_ids_of_set(set);
            if (named.empty()) {
                fmt::print(stderr, "kbench: matrix set '{}' names no SuiteSparse matrix\n", set);
            }
            ids.insert(ids.end(), named.begin(), named.end());
        }
        if (ids.empty()) {
            throw std::invalid_argument("matrix fetch: name matrices (GROUP/NAME) or --set");
        }
        FetchOptions options;
        options.base_url = a->base_url;
        options.index_path = a->index;
        options.dest_dir = fetch_dir(a->matrix_dir);
        options.progress = &std::cerr;
        std::vector<std::string> failed;
        for (const std::string& id : ids) {
            try {
                const FetchResult r = fetch_suitesparse(id, options);
                fmt::print("{} {} ({})\n", id, r.path, r.downloaded ? "downloaded" : "present");
            } catch (const std::exception& e) {
                if (ids.size() == 1) throw;
                fmt::print(stderr, "kbench: error: {}\n", e.what());
                failed.push_back(id);
            }
        }
        if (!failed.empty()) {
            std::string list;
            for (const auto& id : failed) list += (list.empty() ? "" : ", ") + id;
            throw std::runtime_error(fmt::format("{} of {} matrices not fetched: {}",
                                                 failed.size(), ids.size(), list));
        }
    });
}

}  // namespace kbench::harness
