// `kbench matrix stats|generate|convert`: Matrix Market utilities (`fetch`: matrix_fetch.cpp).
#include "harness/cli/cli.hpp"
#include "harness/core/study_context.hpp"
#include "kernels/spmv_operator.hpp"
#include "matrices/matrix_set.hpp"
#include "matrices/mm_io.hpp"
#include "matrices/stats.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <memory>
#include <stdexcept>

namespace kbench::harness {

namespace {

/// "k=v" -> (k, v as a JSON number/bool when it parses as one, else a string).
std::pair<std::string, nlohmann::json> parse_param(const std::string& kv)
{
    const auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) {
        throw std::invalid_argument("--param '" + kv + "' is not of the form key=value");
    }
    const std::string value = kv.substr(eq + 1);
    nlohmann::json v = nlohmann::json::parse(value, nullptr, false);
    if (v.is_discarded() || !(v.is_number() || v.is_boolean())) v = value;
    return {kv.substr(0, eq), v};
}

void add_stats(CLI::App* matrix)
{
    struct Args {
        std::string file;
        SellpParams sellp{0, 0, 0, 0};  // 0: spmv::choose_sellp_params
        bool json = false;
    };
    auto a = std::make_shared<Args>();
    auto* sub = matrix->add_subcommand("stats", "Statistics of a Matrix Market file (anzt2015 "
                                                "Table 2 columns, SELL-P padding)");
    sub->add_option("file", a->file, "Matrix Market file (.mtx or .mtx.gz)")->required();
    add_sellp_options(sub, a->sellp);
    sub->add_flag("--json", a->json, "print JSON instead of a table");
    sub->callback([a] {
        const Csr<double> m = read_matrix_market<double>(a->file);
        const SellpParams p = spmv::resolve_sellp_params(m.view(), a->sellp);
        const nlohmann::json j = compute_stats(m, p);
        if (a->json) {
            fmt::print("{}\n", j.dump(2));
            return;
        }
        fmt::print("{}\n", a->file);
        for (const auto& [key, value] : j.items()) fmt::print("  {:<24} {}\n", key, value.dump());
    });
}

void add_generate(CLI::App* matrix)
{
    struct Args {
        std::string generator, out;
        std::vector<std::string> params;
    };
    auto a = std::make_shared<Args>();
    auto* sub = matrix->add_subcommand("generate", "Generate a matrix (generators of "
                                                   "matrices/matrix_set.hpp) into a Matrix Market file");
    sub->add_option("generator", a->generator, "one of the generators below")->required();
    sub->footer("Generators and their parameters (--param name=value):\n" + generator_help());
    sub->add_option("--param", a->params, "generator parameter key=value (repeatable)");
    sub->add_option("-o,--output", a->out, "output file (.mtx, or .mtx.gz for gzip)")->required();
    sub->callback([a] {
        nlohmann::json params = nlohmann::json::object();
        for (const auto& kv : a->params) {
            auto [k, v] = parse_param(kv);
            params[k] = v;
        }
        MatrixEntry entry;
        entry.name = std::filesystem::path(a->out).stem().string();
        entry.source = a->generator;
        if (params.contains("file") && params["file"].is_string()) {
            entry.file = params["file"].get<std::string>();
        }
        entry.spec = nlohmann::json{{"name", entry.name}, {"generator", a->generator},
                                    {"params", params}}.dump();
        const Csr<double> m = build_matrix(entry);
        write_matrix_market(m, a->out);
        fmt::print(stderr, "kbench: wrote {} (n={}, nnz={})\n", a->out, m.num_rows, m.nnz());
    });
}

void add_convert(CLI::App* matrix)
{
    auto files = std::make_shared<std::pair<std::string, std::string>>();
    auto* sub = matrix->add_subcommand("convert", "Rewrite a Matrix Market file as general "
                                                  "real coordinate (symmetric expanded; .gz output gzipped)");
    sub->add_option("input", files->first, "input Matrix Market file")->required();
    sub->add_option("output", files->second, "output file (.mtx or .mtx.gz)")->required();
    sub->callback([files] {
        const Csr<double> m = read_matrix_market<double>(files->first);
        write_matrix_market(m, files->second);
        fmt::print(stderr, "kbench: wrote {} (n={}, nnz={})\n", files->second, m.num_rows, m.nnz());
    });
}

}  // namespace

void add_matrix_command(CLI::App& app)
{
    auto* matrix = app.add_subcommand("matrix", "Matrix utilities (subcommands: stats, generate, "
                                                "convert, fetch)");
    matrix->require_subcommand(1);
    add_stats(matrix);
    add_generate(matrix);
    add_convert(matrix);
    add_matrix_fetch_subcommand(matrix);
}

}  // namespace kbench::harness
