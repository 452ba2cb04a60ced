#include "harness/core/study.hpp"

#include "harness/core/catalogue.hpp"
#include "harness/core/registry.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

namespace kbench::harness {

nlohmann::json derived_results(const StudyRun& run)
{
    nlohmann::json doc = *run.derive_from_results;
    doc["context"]["kbench"]["id"] = run.id;
    return doc;
}

namespace {

struct Registry {
    std::vector<Reproduction> entries;
    bool ordered = true;
};

Registry& registry()
{
    static Registry r;
    return r;
}

const Reproduction* lookup(const std::vector<Reproduction>& registry, const std::string& id)
{
    for (const auto& r : registry) {
        if (r.id == id) return &r;
    }
    return nullptr;
}

/// The derive_from chain from `id` returns to an id already on it.
bool derives_in_cycle(const std::vector<Reproduction>& registry, const std::string& id)
{
    std::set<std::string> seen{id};
    for (const Reproduction* r = lookup(registry, id); r != nullptr && !r->derive_from.empty();
         r = lookup(registry, r->derive_from)) {
        if (!seen.insert(r->derive_from).second) return r->derive_from == id;
    }
    return false;
}

}  // namespace

StudyRegistrar::StudyRegistrar(std::initializer_list<Reproduction> reproductions)
{
    for (const auto& r : reproductions) register_reproduction(r);
}

void register_reproduction(Reproduction reproduction)
{
    registry().entries.push_back(std::move(reproduction));
    registry().ordered = false;
}

const std::vector<Reproduction>& reproductions()
{
    Registry& r = registry();
    if (!r.ordered) {
        std::stable_sort(r.entries.begin(), r.entries.end(),
                         [](const Reproduction& a, const Reproduction& b) {
                             const auto ia = catalogue_index(a.id), ib = catalogue_index(b.id);
                             return ia != ib ? ia < ib : a.id < b.id;
                         });
        r.ordered = true;
    }
    return r.entries;
}

const Reproduction& find_reproduction(const std::string& id)
{
    if (const Reproduction* r = lookup(reproductions(), id)) return *r;
    std::vector<std::string> ids;
    for (const auto& r : reproductions()) ids.push_back(r.id);
    ids.push_back("all");
    const std::string what = catalogue_index(id) < catalogue().size()
                                 ? "reproduction id '" + id + "' is catalogued but not implemented yet"
                                 : "unknown reproduction id '" + id + "'";
    throw std::invalid_argument(fmt::format(
        "{} (valid ids: {}). 'kbench list --ids' shows the whole catalogue", what, join(ids)));
}

std::vector<std::string> registry_problems(const std::vector<Reproduction>& registry,
                                           const std::vector<std::string>& catalogue_ids)
{
    std::vector<std::string> problems;
    std::map<std::string, int> count;
    for (const auto& r : registry) {
        const std::string name = "reproduction '" + r.id + "'";
        try {
            split_id(r.id);
        } catch (const std::invalid_argument& e) {
            problems.push_back(e.what());
        }
        if (++count[r.id] == 2) problems.push_back(name + " is registered more than once");
        if (std::find(catalogue_ids.begin(), catalogue_ids.end(), r.id) == catalogue_ids.end()) {
            problems.push_back(name + " is not in harness/studies/catalogue.json");
        }
        if (r.description.empty()) problems.push_back(name + " has no description");
        if (r.default_set.empty()) problems.push_back(name + " has no default matrix set");
        if (!r.run) problems.push_back(name + " has no runner");
        if (r.needs.gpus < 0) problems.push_back(name + " needs a negative number of GPUs");
        if (!r.derive_from.empty() && lookup(registry, r.derive_from) == nullptr) {
            problems.push_back(name + " derives from '" + r.derive_from +
                               "', which is not registered");
        } else if (derives_in_cycle(registry, r.id)) {
            problems.push_back(name + " is on a derive_from cycle");
        }
    }
    return problems;
}

std::vector<std::string> run_order(const std::vector<std::string>& ids,
                                   const std::vector<Reproduction>& registry)
{
    std::vector<std::string> order;
    std::set<std::string> placed, visiting;
    const std::set<std::string> selected(ids.begin(), ids.end());
    std::function<void(const std::string&)> place = [&](const std::string& id) {
        if (placed.count(id) != 0) return;
        const Reproduction* r = lookup(registry, id);
        if (r == nullptr) throw std::invalid_argument("unknown reproduction id '" + id + "'");
        if (!visiting.insert(id).second) {
            throw std::logic_error("derive_from cycle through reproduction '" + id + "'");
        }
        if (!r->derive_from.empty() && selected.count(r->derive_from) != 0) place(r->derive_from);
        visiting.erase(id);
        placed.insert(id);
        order.push_back(id);
    };
    for (const auto& id : ids) place(id);
    return order;
}

std::string unmet_need(const StudyNeeds& needs, const MachineFacts& facts)
{
    if (needs.gpus > 0 && !facts.gpu_unavailable.empty()) return facts.gpu_unavailable;
    if (needs.gpus > facts.gpus) {
        return fmt::format("needs {} GPUs, {} present", needs.gpus, facts.gpus);
    }
    if (needs.nsight_compute && !facts.nsight_compute) {
        return "needs Nsight Compute, no 'ncu' on PATH";
    }
    if (needs.mpi && !facts.mpi) return "needs MPI, kbench was built without it (install libopenmpi-dev and re-run CMake)";
    return {};
}

std::string describe_needs(const StudyNeeds& needs)
{
    std::vector<std::string> parts;
    if (needs.gpus == 1) parts.push_back("a GPU");
    if (needs.gpus > 1) parts.push_back(fmt::format("{} GPUs", needs.gpus));
    if (needs.nsight_compute) parts.push_back("Nsight Compute (ncu)");
    if (needs.mpi) parts.push_back("MPI");
    if (parts.empty()) return "no GPU";
    const std::string last = parts.back();
    parts.pop_back();
    return parts.empty() ? last : join(parts) + " and " + last;
}

}  // namespace kbench::harness
