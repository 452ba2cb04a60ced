// The quick view of a matrix-set manifest; see matrix_set_quick.hpp.
#include "matrices/matrix_set_quick.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <stdexcept>

namespace kbench::quick_set {

using nlohmann::json;

json quick_entry(const json& e, const std::function<void(const std::string&)>& bad)
{
    if (!e.contains("quick_params")) return e;
    const json& quick = e["quick_params"];
    if (!quick.is_object()) bad("\"quick_params\" must be a JSON object (it overrides \"params\")");
    if (!e.contains("generator"))
        bad("a file entry takes no \"quick_params\" (only generator entries have \"params\")");
    json out = e;
    out.erase("quick_params");
    if (!out.contains("params") || !out["params"].is_object()) return out;  // caller reports it
    out["params"].update(quick);
    return out;
}

std::vector<std::string> quick_names(const json& manifest, const std::vector<std::string>& names,
                                     const std::string& path)
{
    if (!manifest.contains("quick")) {
        if (names.empty()) return {};
        return {names.front()};
    }
    const json& quick = manifest["quick"];
    const auto fail = [&](const std::string& msg) {
        throw std::invalid_argument(fmt::format("{}: \"quick\": {}", path, msg));
    };
    if (!quick.is_array() || quick.empty())
        fail("expected a non-empty array of entry names (the entries a quick run keeps)");
    std::set<std::string> named;
    for (const json& n : quick) {
        if (!n.is_string()) fail(fmt::format("{} is not an entry name (a string)", n.dump()));
        const std::string name = n;
        if (std::find(names.begin(), names.end(), name) == names.end())
            fail(fmt::format("'{}' is not an entry of the set", name));
        if (!named.insert(name).second) fail(fmt::format("'{}' is named twice", name));
    }
    std::vector<std::string> kept;
    for (const std::string& name : names)
        if (named.count(name) != 0) kept.push_back(name);
    return kept;
}

}  // namespace kbench::quick_set
