#include "harness/core/catalogue.hpp"

#include "harness/core/registry.hpp"

#include <nlohmann/json.hpp>

#include <set>
#include <stdexcept>

namespace kbench::harness {

std::vector<CatalogueEntry> parse_catalogue(const std::string& json_text)
{
    std::vector<CatalogueEntry> entries;
    std::set<std::string> seen;
    try {
        const auto doc = nlohmann::json::parse(json_text);
        for (const auto& item : doc.at("items")) {
            CatalogueEntry e{item.at("id").get<std::string>(), item.at("title").get<std::string>()};
            split_id(e.id);
            if (!seen.insert(e.id).second) {
                throw std::invalid_argument("catalogue: duplicate id '" + e.id + "'");
            }
            if (e.title.empty()) throw std::invalid_argument("catalogue: empty title for " + e.id);
            entries.push_back(std::move(e));
        }
    } catch (const nlohmann::json::exception& e) {
        throw std::invalid_argument(std::string("catalogue: ") + e.what());
    }
    return entries;
}

const std::vector<CatalogueEntry>& catalogue()
{
    static const std::vector<CatalogueEntry> entries = parse_catalogue(catalogue_json());
    return entries;
}

std::vector<std::string> catalogue_ids()
{
    std::vector<std::string> ids;
    for (const auto& e : catalogue()) ids.push_back(e.id);
    return ids;
}

std::size_t catalogue_index(const std::string& id)
{
    const auto& entries = catalogue();
    std::size_t i = 0;
    while (i < entries.size() && entries[i].id != id) ++i;
    return i;
}

}  // namespace kbench::harness
