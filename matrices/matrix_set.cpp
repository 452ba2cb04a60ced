// Matrix sets: loading and checking JSON manifests, building their matrices.
#include "matrices/matrix_set.hpp"

#include "matrices/generators.hpp"
#include "matrices/mm_io.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
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

enum class Kind { positive_int, number, string, layout };

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
    case Kind::number: return "a number";
    case Kind::string: return "a string";
    case Kind::layout: return "\"diagonal\" or \"five_band\"";
    }
    return "";
}

bool has_kind(const json& v, Kind k)
{
    switch (k) {
    case Kind::positive_int:
        return v.is_number_integer() && v.get<std::int64_t>() >= 1 &&
               v.get<std::int64_t>() <= std::numeric_limits<index_type>::max();
    case Kind::number: return v.is_number();
    case Kind::string: return v.is_string();
    case Kind::layout:
        return v.is_string() && (v == "diagonal" || v == "five_band");
    }
    return false;
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

}  // namespace

std::string resolve_matrix_dir(const std::string& cli_value)
{
    if (!cli_value.empty()) return cli_value;
    const char* env = std::getenv("KBENCH_MATRIX_DIR");
    return env == nullptr ? std::string{} : std::string{env};
}

MatrixSet load_matrix_set(const std::string& path_or_name, const std::string& matrix_dir)
{
    const std::string path = manifest_path(path_or_name);
    json doc;
    {
        std::ifstream in(path);
        if (!in) throw std::invalid_argument(fmt::format("{}: cannot open manifest", path));
        try {
            in >> doc;
        } catch (const json::parse_error& e) {
            throw std::invalid_argument(fmt::format("{}: invalid JSON: {}", path, e.what()));
        }
    }
    auto fail = [&](const std::string& msg) {
        throw std::invalid_argument(fmt::format("{}: {}", path, msg));
    };
    if (!doc.is_object()) fail("expected a JSON object at the top level");
    MatrixSet set;
    set.manifest = fs::absolute(path).string();
    if (!doc.contains("name") || !doc["name"].is_string()) fail("\"name\" must be a string");
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
            static const std::set<std::string> known{"name", "file", "generator", "params",
                                                     "stands_for"};
            if (known.count(key) == 0) {
                bad(fmt::format("unknown key \"{}\" (expected name, file, generator, params, "
                                "stands_for)",
                                key));
            }
        }
        MatrixEntry entry;
        entry.name = e["name"];
        if (!seen.insert(entry.name).second) bad("duplicate matrix name");
        if (e.contains("stands_for")) {
            if (!e["stands_for"].is_string()) bad("\"stands_for\" must be a string");
            entry.stands_for = e["stands_for"];
        }
        const bool is_file = e.contains("file"), is_gen = e.contains("generator");
        if (is_file == is_gen) bad("expected exactly one of \"file\" and \"generator\"");
        if (is_file) {
            if (!e["file"].is_string()) bad("\"file\" must be a string");
            if (e.contains("params")) bad("a file entry takes no \"params\"");
            entry.source = "file";
            entry.file = resolve_file(e["file"], matrix_dir, where);
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
            const json& params = e["params"];
            for (const auto& [key, value] : params.items()) {
                const auto& list = gen->second;
                if (std::none_of(list.begin(), list.end(),
                                 [&](const Param& p) { return key == p.name; })) {
                    bad(fmt::format("generator '{}' has no parameter \"{}\"", entry.source, key));
                }
            }
            for (const Param& p : gen->second) {
                if (!params.contains(p.name)) {
                    if (p.required) {
                        bad(fmt::format("generator '{}' needs parameter \"{}\" ({})",
                                        entry.source, p.name, kind_text(p.kind)));
                    }
                    continue;
                }
                if (!has_kind(params[p.name], p.kind)) {
                    bad(fmt::format("parameter \"{}\" = {}, expected {}", p.name,
                                    params[p.name].dump(), kind_text(p.kind)));
                }
            }
            if (entry.source == "replicate") {
                entry.file = resolve_file(params["file"], matrix_dir, where);
            }
        }
        entry.spec = e.dump();
        set.matrices.push_back(std::move(entry));
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
    const json spec = json::parse(entry.spec);
    const json& p = spec.at("params");
    auto i = [&](const char* key) { return p.at(key).get<index_type>(); };
    auto d = [&](const char* key) { return p.at(key).get<double>(); };
    const std::string& g = entry.source;
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
    throw std::invalid_argument(fmt::format("matrix '{}': unknown generator '{}' (valid: {})",
                                            entry.name, g, generator_names()));
}

}  // namespace kbench
