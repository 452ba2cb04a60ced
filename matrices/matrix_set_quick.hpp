// The quick view of a matrix-set manifest (`kbench reproduce --quick`): which entries a quick
// run keeps (the top-level "quick" array, else the first entry) and the parameters it builds
// them with ("quick_params" over "params"). Used by load_matrix_set (matrix_set.cpp); the
// format is described in matrix_set.hpp.
#pragma once

#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <vector>

namespace kbench::quick_set {

/// The manifest entry `e` as a quick run builds it: "params" updated key by key with
/// "quick_params" (absent: `e` as it is), "quick_params" removed. `bad(message)` throws; it is
/// called when "quick_params" is not a JSON object or the entry is a file entry (which has no
/// "params"). The merged parameters are checked by the caller as "params" are.
nlohmann::json quick_entry(const nlohmann::json& e,
                           const std::function<void(const std::string&)>& bad);

/// The names of the entries a quick run keeps, in manifest order: those the manifest's
/// top-level "quick" array names, or the first of `names` (the entries' names in manifest
/// order) when the manifest has no "quick". Throws std::invalid_argument naming the manifest
/// `path` and the offending entry when "quick" is not a non-empty array of strings, names an
/// entry twice, or names one that is not in `names`.
std::vector<std::string> quick_names(const nlohmann::json& manifest,
                                     const std::vector<std::string>& names,
                                     const std::string& path);

}  // namespace kbench::quick_set
