// The catalogue of every table and figure kbench reproduces or will (../shared/FIGURES.md),
// kept as data in harness/studies/catalogue.json and compiled into the executable.
#pragma once

#include <string>
#include <vector>

namespace kbench::harness {

/// One catalogued table or figure.
struct CatalogueEntry {
    std::string id;     // "<study>/<item>", e.g. "<paper>/fig6"
    std::string title;  // short title
};

/// The text of harness/studies/catalogue.json as it was at configure time.
const char* catalogue_json();

/// Parses a catalogue document {"items": [{"id": ..., "title": ...}, ...]}. Throws
/// std::invalid_argument for malformed JSON, a missing field, a malformed ("<study>/<item>") or
/// duplicate id, or an empty title.
std::vector<CatalogueEntry> parse_catalogue(const std::string& json_text);

/// The catalogue, in FIGURES.md order (parsed from catalogue_json() once).
const std::vector<CatalogueEntry>& catalogue();

/// Ids of catalogue(), in order.
std::vector<std::string> catalogue_ids();

/// Position of `id` in catalogue(), or catalogue().size() when it is not there.
std::size_t catalogue_index(const std::string& id);

}  // namespace kbench::harness
