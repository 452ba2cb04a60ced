// Matrix sets: loading and checking JSON manifests, building their matrices.
#include "matrices/matrix_set.hpp"

#include "matrices/generators.hpp"
#include "matrices/graph_matrices.hpp"
#include "matrices/matrix_set_quick.hpp"
#include "matrices/mm_io.hpp"
#include "matrices/suitesparse_index.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>

#ifndef KBENCH_SETS_DIR
#error "KBENCH_SETS_DIR must name the directory of the shipped matrix sets"
#endif

namespace kbench {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

enum class Kind {
    positive_int,     // integer in [1, index max]
    nonnegative_int,  // integer in [0, index max]
    number,
    positive_number,  // number > 0
    seed,             // integer in [0, 2^64 - 1]
    string,
    layout,           // replicate layout
    distribution,     // random_rows row-length distribution
    signs,            // banded off-diagonal signs
    ordering,         // mesh_2d vertex order
    probability,      // number in [0, 1]
};

struct Param {
    const char* name;
    Kind kind;
    bool required;
};

/// Parameters of every generator (matrices/generators.hpp).
const std::map<std::string, std::vector<Param>>& generator_params()
{
    static const std::map<std::string, std::vector<Param>> params{
        {"laplacian_2d_5pt", {{"nx", Kind::positive_int, true}, {"ny", Kind::positive_int, true}}},
        {"laplacian_3d_7pt",
         {{"nx", Kind::positive_int, true},
          {"ny", Kind::positive_int, true},
          {"nz", Kind::positive_int, true}}},
        {"laplacian_3d_27pt",
         {{"nx", Kind::positive_int, true},
          {"ny", Kind::positive_int, true},
          {"nz", Kind::positive_int, true}}},
        {"convection_diffusion",
         {{"nx", Kind::positive_int, true},
          {"ny", Kind::positive_int, true},
          {"nz", Kind::positive_int, true},
          {"wx", Kind::number, true},
          {"wy", Kind::number, true},
          {"wz", Kind::number, true}}},
        {"trefethen", {{"n", Kind::positive_int, true}}},
        {"replicate",
         {{"file", Kind::string, true},
          {"target_rows", Kind::positive_int, true},
          {"layout", Kind::layout, false}}},
        // mean: geometric only, exponent: power_law only (check_combination); seed default 1.
        {"random_rows",
         {{"n", Kind::positive_int, true},
          {"distribution", Kind::distribution, true},
          {"row_min", Kind::positive_int, true},
          {"row_max", Kind::positive_int, true},
          {"mean", Kind::positive_number, false},
          {"exponent", Kind::positive_number, false},
          {"bandwidth", Kind::nonnegative_int, true},
          {"seed", Kind::seed, false}}},
        // a + b + c <= 1 (check_combination); seed default 1.
        {"rmat",
         {{"scale", Kind::positive_int, true},
          {"edge_factor", Kind::positive_int, true},
          {"a", Kind::probability, true},
          {"b", Kind::probability, true},
          {"c", Kind::probability, true},
          {"seed", Kind::seed, false}}},
        {"mesh_2d",
         {{"nx", Kind::positive_int, true},
          {"ny", Kind::positive_int, true},
          {"ordering", Kind::ordering, true},
          {"seed", Kind::seed, false}}},
        {"banded",
         {{"n", Kind::positive_int, true},
          {"K", Kind::positive_int, true},
          {"d", Kind::positive_number, true},
          {"seed", Kind::seed, false},
          {"signs", Kind::signs, false}}},
    };
    return params;
}

std::string generator_names()
{
    std::string out;
    for (const auto& [name, params] : generator_params()) {
        out += (out.empty() ? "" : ", ") + name;
    }
    return out;
}

const char* kind_text(Kind k)
{
    switch (k) {
    case Kind::positive_int: return "an integer in [1, 2147483647]";
    case Kind::nonnegative_int: return "an integer in [0, 2147483647]";
    case Kind::number: return "a number";
    case Kind::positive_number: return "a number > 0";
    case Kind::seed: return "an integer in [0, 18446744073709551615]";
    case Kind::string: return "a string";
    case Kind::layout: return "\"diagonal\" or \"five_band\"";
    case Kind::distribution: return "\"uniform\", \"geometric\" or \"power_law\"";
    case Kind::signs: return "\"random\" or \"negative\"";
    case Kind::ordering: return "\"grid\", \"random\" or \"rcm\"";
    case Kind::probability: return "a number in [0, 1]";
    }
    return "";
}

bool has_kind(const json& v, Kind k)
{
    switch (k) {
    case Kind::positive_int:
    case Kind::nonnegative_int:
        // (an unsigned above 2^63 reads as a negative int64 and is rejected)
        return v.is_number_integer() &&
               v.get<std::int64_t>() >= (k == Kind::positive_int ? 1 : 0) &&
               v.get<std::int64_t>() <= std::numeric_limits<index_type>::max();
    case Kind::number: return v.is_number();
    case Kind::positive_number: return v.is_number() && v.get<double>() > 0.0;
    case Kind::seed:
        return v.is_number_unsigned() || (v.is_number_integer() && v.get<std::int64_t>() >= 0);
    case Kind::string: return v.is_string();
    case Kind::layout:
        return v.is_string() && (v == "diagonal" || v == "five_band");
    case Kind::distribution:
        return v.is_string() && (v == "uniform" || v == "geometric" || v == "power_law");
    case Kind::signs: return v.is_string() && (v == "random" || v == "negative");
    case Kind::ordering: return v.is_string() && (v == "grid" || v == "random" || v == "rcm");
    case Kind::probability:
        return v.is_number() && v.get<double>() >= 0.0 && v.get<double>() <= 1.0;
    }
    return false;
}

constexpr std::uint64_t default_seed = 1;

std::uint64_t seed_of(const json& params)
{
    return params.contains("seed") ? params["seed"].get<std::uint64_t>() : default_seed;
}

/// rmat parameters of a manifest entry whose parameters have the right kinds.
RmatParams rmat_params(const json& p)
{
    RmatParams r;
    r.scale = p.at("scale").get<int>();
    r.edge_factor = p.at("edge_factor").get<index_type>();
    r.a = p.at("a").get<double>();
    r.b = p.at("b").get<double>();
    r.c = p.at("c").get<double>();
    r.seed = seed_of(p);
    return r;
}

/// random_rows parameters of a manifest entry whose parameters have the right kinds.
RandomRowsParams random_rows_params(const json& p)
{
    RandomRowsParams r;
    r.n = p.at("n").get<index_type>();
    const std::string dist = p.at("distribution");
    r.distribution = dist == "geometric"   ? RowLengthDistribution::geometric
                     : dist == "power_law" ? RowLengthDistribution::power_law
                                           : RowLengthDistribution::uniform;
    r.row_min = p.at("row_min").get<index_type>();
    r.row_max = p.at("row_max").get<index_type>();
    r.mean = p.value("mean", 0.0);
    r.exponent = p.value("exponent", 0.0);
    r.bandwidth = p.at("bandwidth").get<index_type>();
    r.seed = seed_of(p);
    return r;
}

/// Checks of a generator entry that involve several parameters (each already has its kind):
/// random_rows takes "mean" with and only with distribution "geometric", "exponent" with and
/// only with "power_law", and the value checks of check_random_rows; banded those of
/// check_banded. `bad` throws, naming the manifest and the entry.
template <typename Bad>
void check_combination(const std::string& generator, const json& params, const Bad& bad)
{
    if (generator == "random_rows") {
        const std::string dist = params["distribution"];
        const std::string needs = dist == "geometric"   ? "mean"
                                  : dist == "power_law" ? "exponent"
                                                        : "";
        for (const char* opt : {"mean", "exponent"}) {
            if (params.contains(opt) && needs != opt) {
                bad(fmt::format("parameter \"{}\" is not used by distribution \"{}\" "
                                "(mean: geometric only, exponent: power_law only)",
                                opt, dist));
            }
        }
        if (!needs.empty() && !params.contains(needs)) {
            bad(fmt::format("distribution \"{}\" needs parameter \"{}\" (a number > 0)", dist,
                            needs));
        }
    }
    std::string error;  // the generator's message, which names the parameter
    try {
        if (generator == "random_rows") check_random_rows(random_rows_params(params));
        if (generator == "rmat") check_rmat(rmat_params(params));
        if (generator == "mesh_2d")
            check_mesh_2d(params.at("nx").get<index_type>(), params.at("ny").get<index_type>());
        if (generator == "banded") {
            check_banded(params["n"].get<index_type>(), params["K"].get<index_type>(),
                         params["d"].get<double>());
        }
    } catch (const std::invalid_argument& e) {
        error = e.what();
    }
    if (!error.empty()) bad(error);
}

/// Checks the parameters of a known generator: no unknown ones, the required ones present, each
/// of its kind, then check_combination. `bad` throws.
template <typename Bad>
void check_generator_params(const std::string& generator, const json& params, const Bad& bad)
{
    const std::vector<Param>& list = generator_params().at(generator);
    for (const auto& item : params.items()) {
        const std::string key = item.key();
        if (std::none_of(list.begin(), list.end(),
                         [&](const Param& p) { return key == p.name; })) {
            bad(fmt::format("generator '{}' has no parameter \"{}\"", generator, key));
        }
    }
    for (const Param& p : list) {
        if (!params.contains(p.name)) {
            if (p.required) {
                bad(fmt::format("generator '{}' needs parameter \"{}\" ({})", generator, p.name,
                                kind_text(p.kind)));
            }
            continue;
        }
        if (!has_kind(params[p.name], p.kind)) {
            bad(fmt::format("parameter \"{}\" = {}, expected {}", p.name, params[p.name].dump(),
                            kind_text(p.kind)));
        }
    }
    check_combination(generator, params, bad);
}

/// Resolves `file` against the matrix directory, or throws saying how to give one.
std::string resolve_file(const std::string& file, const std::string& matrix_dir,
                         const std::string& where)
{
    fs::path p(file);
    if (p.is_relative()) {
        if (matrix_dir.empty()) {
            throw std::invalid_argument(fmt::format(
                "{}: file '{}' needs a matrix directory: pass --matrix-dir or set "
                "KBENCH_MATRIX_DIR",
                where, file));
        }
        p = fs::path(matrix_dir) / p;
    }
    if (!fs::is_regular_file(p)) {
        throw std::invalid_argument(
            fmt::format("{}: matrix file '{}' does not exist", where, fs::absolute(p).string()));
    }
    return p.string();
}

std::string manifest_path(const std::string& path_or_name)
{
    if (fs::is_regular_file(path_or_name)) return path_or_name;
    const bool looks_like_path = path_or_name.find('/') != std::string::npos ||
                                 fs::path(path_or_name).extension() == ".json";
    if (!looks_like_path) {
        const fs::path shipped = fs::path(KBENCH_SETS_DIR) / (path_or_name + ".json");
        if (fs::is_regular_file(shipped)) return shipped.string();
    }
    std::string names;
    for (const auto& s : shipped_matrix_sets()) names += (names.empty() ? "" : ", ") + s;
    throw std::invalid_argument(fmt::format(
        "matrix set '{}' is neither a manifest file nor a shipped set (shipped: {})",
        path_or_name, names));
}

json read_manifest(const std::string& path)
{
    std::ifstream in(path);
    if (!in) throw std::invalid_argument(fmt::format("{}: cannot open manifest", path));
    try {
        return json::parse(in);
    } catch (const json::parse_error& e) {
        throw std::invalid_argument(fmt::format("{}: invalid JSON: {}", path, e.what()));
    }
}

}  // namespace

std::string resolve_matrix_dir(const std::string& cli_value)
{
    if (!cli_value.empty()) return cli_value;
    const char* env = std::getenv("KBENCH_MATRIX_DIR");
    return env == nullptr ? std::string{} : std::string{env};
}

std::string find_real_matrix(const std::string& suitesparse_id,
                             const std::vector<std::string>& dirs)
{
    const std::string name = split_suitesparse_id(suitesparse_id).second;
    for (const std::string& dir : dirs) {
        if (dir.empty()) continue;
        const fs::path p = fs::path(dir) / (name + ".mtx");
        if (fs::is_regular_file(p)) return p.string();
    }
    return {};
}

std::vector<std::string> suitesparse_ids_of_set(const std::string& path_or_name)
{
    const std::string path = manifest_path(path_or_name);
    const json doc = read_manifest(path);
    std::vector<std::string> ids;
    if (!doc.is_object() || !doc.contains("matrices") || !doc["matrices"].is_array()) return ids;
    for (const json& e : doc["matrices"]) {
        if (!e.is_object() || !e.contains("suitesparse")) continue;
        const json& id = e["suitesparse"];
        if (!id.is_string()) {
            throw std::invalid_argument(
                fmt::format("{}: \"suitesparse\" must be a string GROUP/NAME, got {}", path,
                            id.dump()));
        }
        try {
            split_suitesparse_id(id);
        } catch (const std::invalid_argument& err) {
            throw std::invalid_argument(fmt::format("{}: {}", path, err.what()));
        }
        if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
    }
    return ids;
}

MatrixSet load_matrix_set(const std::string& path_or_name, const std::string& matrix_dir,
                          const MatrixSetOptions& options)
{
    const std::string path = manifest_path(path_or_name);
    const json doc = read_manifest(path);
    auto fail = [&](const std::string& msg) {
        throw std::invalid_argument(fmt::format("{}: {}", path, msg));
    };
    if (!doc.is_object()) fail("expected a JSON object at the top level");
    MatrixSet set;
    set.manifest = fs::absolute(path).string();
    if (!doc.contains("name"))
        fail("expected a top-level \"name\" (a string naming the set) beside \"matrices\"");
    if (!doc["name"].is_string()) fail("the top-level \"name\" must be a string");
    set.name = doc["name"];
    if (doc.contains("description")) {
        if (!doc["description"].is_string()) fail("\"description\" must be a string");
        set.description = doc["description"];
    }
    if (!doc.contains("matrices") || !doc["matrices"].is_array()) {
        fail("\"matrices\" must be an array of matrix entries");
    }
    std::set<std::string> seen;
    std::size_t index = 0;
    for (const json& e : doc["matrices"]) {
        const std::string label = e.is_object() && e.contains("name") && e["name"].is_string()
                                      ? fmt::format("entry {} ('{}')", index,
                                                    e["name"].get<std::string>())
                                      : fmt::format("entry {}", index);
        const std::string where = fmt::format("{}: {}", path, label);
        auto bad = [&](const std::string& msg) {
            throw std::invalid_argument(fmt::format("{}: {}", where, msg));
        };
        ++index;
        if (!e.is_object()) bad("expected a JSON object");
        if (!e.contains("name") || !e["name"].is_string() || e["name"] == "") {
            bad("\"name\" must be a non-empty string");
        }
        for (const auto& [key, value] : e.items()) {
            static const std::set<std::string> known{"name",       "file",  "generator",
                                                     "params",     "quick_params",
                                                     "stands_for", "study", "suitesparse"};
            if (known.count(key) == 0) {
                bad(fmt::format("unknown key \"{}\" (expected name, file, generator, params, "
                                "quick_params, stands_for, study, suitesparse)",
                                key));
            }
        }
        // The entry as a quick run builds it ("quick_params" over "params"), checked in every run.
        const json quick = quick_set::quick_entry(e, bad);
        const json& used = options.quick ? quick : e;
        MatrixEntry entry;
        entry.name = e["name"];
        std::string real_file;
        if (e.contains("suitesparse")) {
            if (!e["suitesparse"].is_string()) bad("\"suitesparse\" must be a string GROUP/NAME");
            entry.suitesparse = e["suitesparse"];
            try {
                split_suitesparse_id(entry.suitesparse);
            } catch (const std::invalid_argument& err) {
                bad(err.what());
            }
            if (options.real) real_file = find_real_matrix(entry.suitesparse, options.real_dirs);
        }
        // The stand-in's files need not exist when the real matrix replaces it.
        auto resolve = [&](const std::string& file) {
            return real_file.empty() ? resolve_file(file, matrix_dir, where) : std::string{};
        };
        if (!seen.insert(entry.name).second) bad("duplicate matrix name");
        if (e.contains("stands_for")) {
            if (!e["stands_for"].is_string()) bad("\"stands_for\" must be a string");
            entry.stands_for = e["stands_for"];
        }
        if (e.contains("study")) {
            if (!e["study"].is_object()) bad("\"study\" must be a JSON object");
            entry.study = e["study"].dump();
        }
        const bool is_file = e.contains("file"), is_gen = e.contains("generator");
        if (is_file == is_gen) bad("expected exactly one of \"file\" and \"generator\"");
        if (is_file) {
            if (!e["file"].is_string()) bad("\"file\" must be a string");
            if (e.contains("params")) bad("a file entry takes no \"params\"");
            entry.source = "file";
            entry.file = resolve(e["file"]);
        } else {
            if (!e["generator"].is_string()) bad("\"generator\" must be a string");
            entry.source = e["generator"];
            const auto gen = generator_params().find(entry.source);
            if (gen == generator_params().end()) {
                bad(fmt::format("unknown generator '{}' (valid: {})", entry.source,
                                generator_names()));
            }
            if (!e.contains("params") || !e["params"].is_object()) {
                bad(fmt::format("generator '{}' needs a \"params\" object", entry.source));
            }
            check_generator_params(entry.source, e["params"], bad);
            if (e.contains("quick_params")) {
                check_generator_params(entry.source, quick["params"], [&](const std::string& m) {
                    bad("with \"quick_params\": " + m);
                });
            }
            if (entry.source == "replicate") {
                entry.file = resolve(used["params"]["file"]);
            }
        }
        json spec = used;  // the entry as built (in a quick run: its quick_params merged in)
        spec.erase("suitesparse");
        spec.erase("quick_params");
        entry.spec = spec.dump();
        if (!real_file.empty()) {  // what is built: the real matrix, not the stand-in
            entry.source = "file";
            entry.file = real_file;
            entry.real = true;
            entry.spec = json{{"name", entry.name}, {"suitesparse", entry.suitesparse},
                              {"file", real_file}}.dump();
        }
        set.matrices.push_back(std::move(entry));
    }
    std::vector<std::string> names;
    for (const MatrixEntry& m : set.matrices) names.push_back(m.name);
    const std::vector<std::string> kept = quick_set::quick_names(doc, names, path);  // every run
    if (options.quick) {
        const auto dropped = [&](const MatrixEntry& m) {
            return std::find(kept.begin(), kept.end(), m.name) == kept.end();
        };
        set.matrices.erase(std::remove_if(set.matrices.begin(), set.matrices.end(), dropped),
                           set.matrices.end());
    }
    return set;
}

std::vector<std::string> shipped_matrix_sets()
{
    std::vector<std::string> names;
    std::error_code ec;
    for (const auto& f : fs::directory_iterator(KBENCH_SETS_DIR, ec)) {
        if (f.is_regular_file() && f.path().extension() == ".json") {
            names.push_back(f.path().stem().string());
        }
    }
    std::sort(names.begin(), names.end());
    return names;
}

Csr<double> build_matrix(const MatrixEntry& entry)
{
    if (entry.source == "file") {
        return read_matrix_market<double>(entry.file, /*require_square=*/true);
    }
    const std::string& g = entry.source;
    if (generator_params().count(g) == 0) {
        throw std::invalid_argument(fmt::format("matrix '{}': unknown generator '{}' (valid: {})",
                                                entry.name, g, generator_names()));
    }
    const json spec = json::parse(entry.spec);
    if (!spec.contains("params") || !spec["params"].is_object()) {
        throw std::invalid_argument(
            fmt::format("matrix '{}': generator '{}' needs a \"params\" object", entry.name, g));
    }
    const json& p = spec["params"];
    // Entries of load_matrix_set passed these checks; others (kbench matrix generate) not yet.
    check_generator_params(g, p, [&](const std::string& msg) {
        throw std::invalid_argument(fmt::format("matrix '{}': {}", entry.name, msg));
    });
    auto i = [&](const char* key) { return p.at(key).get<index_type>(); };
    auto d = [&](const char* key) { return p.at(key).get<double>(); };
    if (g == "laplacian_2d_5pt") return laplacian_2d_5pt(i("nx"), i("ny"));
    if (g == "laplacian_3d_7pt") return laplacian_3d_7pt(i("nx"), i("ny"), i("nz"));
    if (g == "laplacian_3d_27pt") return laplacian_3d_27pt(i("nx"), i("ny"), i("nz"));
    if (g == "convection_diffusion") {
        return convection_diffusion(i("nx"), i("ny"), i("nz"), d("wx"), d("wy"), d("wz"));
    }
    if (g == "trefethen") return trefethen(i("n"));
    if (g == "replicate") {
        const std::string layout = p.value("layout", "diagonal");
        return replicate(read_matrix_market<double>(entry.file, /*require_square=*/true),
                         i("target_rows"),
                         layout == "five_band" ? ReplicationLayout::five_band
                                               : ReplicationLayout::diagonal);
    }
    if (g == "random_rows") return random_rows(random_rows_params(p));
    if (g == "rmat") return rmat(rmat_params(p));
    if (g == "mesh_2d")
        return mesh_2d(i("nx"), i("ny"), parse_mesh_ordering(p.at("ordering")), seed_of(p));
    if (g == "banded") {
        return banded(i("n"), i("K"), d("d"), seed_of(p),
                      parse_banded_signs(p.value("signs", "random")));
    }
    throw std::logic_error(fmt::format("build_matrix: generator '{}' is listed but not built", g));
}

std::string generator_help()
{
    std::string out;
    for (const auto& [name, params] : generator_params()) {
        out += "  " + name + ":\n";
        for (const Param& p : params)
            out += fmt::format("      {:<14} {}{}\n", p.name, kind_text(p.kind),
                               p.required ? "" : " (optional)");
    }
    return out;
}

}  // namespace kbench
