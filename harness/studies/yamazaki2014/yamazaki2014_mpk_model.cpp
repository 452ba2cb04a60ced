// yamazaki2014, matrix powers kernel (Sec. IV-B): the surface-to-volume ratio and extra flops
// W^(d,s) of MPK (Fig. 6) and its communication volume against s SpMVs (Fig. 7), counted on
// the CPU from row partitions of the stand-ins of matrices/sets/yamazaki2014-mpk.json under the
// natural, RCM and METIS k-way orderings, for 2..4 parts and s = 1..20, and priced by
// models/mpk_model.hpp. Needs no GPU: results under results/model/ (reproduce.hpp). Both ids
// share one run (fig7 derives from fig6).
//
// Document: context.kbench.mpk_model (parameters, orderings and whether each is built, the
// paper's matrices, the half-bandwidth of each matrix in the natural and RCM orders, notes),
// context.kbench.matrices (stats of the stand-ins), context.kbench.run_seconds
// (run context); one "benchmarks" entry per (matrix, ordering, parts): status "ok", "not built"
// (library absent) or "error" with detail, the partition, and per s (lists indexed [s-1]) a
// "fig6" object {surface_to_volume {max, mean, per_part}, surface_nnz, extra_flops {max,
// per_part}, extra_flops_fraction_max} and a "fig7" object {mpk_words, gather_words,
// scatter_words, spmv_words, *_per_restart, mpk_messages, spmv_messages}.
#include "harness/studies/yamazaki2014/mpk_sweep.hpp"
#include "harness/core/progress.hpp"
#include "harness/core/results_json.hpp"
#include "harness/core/study.hpp"
#include "kernels/spmv_operator.hpp"
#include "matrices/banded.hpp"
#include "matrices/reorder.hpp"
#include "models/mpk_model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <iterator>
#include <string>
#include <vector>

namespace kbench::harness {
namespace {

using json = nlohmann::json;

constexpr int s_max = 20;                     // Figs. 6 and 7 go to s = 20
constexpr int part_counts[] = {2, 3, 4};      // FIGURES.md: 2-4 parts (the paper has 3 GPUs)
constexpr double restart_vectors = 100;       // m of the per-restart volume (Fig. 8's m = 100)
constexpr std::uint64_t metis_seed = 1;

struct Ordering {
    const char* name;
    const char* how;
    const char* library;  // what must be found at configuration ("" = none)
    bool (*built)();
};

bool always() { return true; }

const Ordering orderings[] = {
    {"natural", "block rows of the given numbering (block_partition: equal row counts)", "",
     always},
    {"rcm", "reverse Cuthill-McKee (Boost.Graph), then block rows of the new numbering",
     "Boost.Graph (Debian libboost-graph-dev)", reorder_has_rcm},
    {"kway", "METIS 5 k-way partition (METIS_PartGraphKway, default options, seed 1)",
     "METIS (Debian libmetis-dev)", reorder_has_metis},
};

/// The paper's matrices (yamazaki2014 Fig. 12), keyed by the first word of a stand-in's
/// stands_for.
json paper_matrices()
{
    return {{"cant", {{"kind", "FEM cantilever"}, {"rows", 62451}, {"nnz_per_row", 64.2}}},
            {"G3_circuit",
             {{"kind", "circuit simulation"}, {"rows", 1585478}, {"nnz_per_row", 4.8}}}};
}

double seconds_since(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// Per-s lists of one partition (indexed [s-1]; per part [d][s-1]).
struct Curves {
    std::vector<std::vector<double>> ratio, surface_nnz, extra_flops;  // [d][s-1]
    std::vector<double> ratio_max, ratio_mean, extra_max, extra_fraction_max;
    std::vector<double> mpk_words, gather_words, scatter_words, spmv_words;
    std::vector<double> mpk_per_restart, spmv_per_restart, mpk_messages, spmv_messages;
};

/// Prices the counts of a sweep with models/mpk_model.hpp, for every s.
Curves price(const MpkSweep& w)
{
    using namespace models;
    const auto parts = static_cast<std::size_t>(w.num_parts);
    Curves c;
    c.ratio.assign(parts, {});
    c.surface_nnz.assign(parts, {});
    c.extra_flops.assign(parts, {});
    double spmv_messages = 0;  // one SpMV: a message from each neighbour of each part
    for (const double m : w.halo_messages_s1) spmv_messages += m;
    for (int s = 1; s <= s_max; ++s) {
        const auto si = static_cast<std::size_t>(s - 1);
        double ratio_max = 0, ratio_sum = 0, extra_max = 0, fraction_max = 0, messages = 0;
        std::vector<double> ghosts;  // |delta^(d,1:s)|
        for (std::size_t d = 0; d < parts; ++d) {
            const auto boundary = mpk_boundary_for_steps(w.boundary_nnz[d], s);
            const double ratio = mpk_surface_to_volume(boundary.front(), w.own_nnz[d]);
            const double extra = mpk_extra_flops(boundary);  // W^(d,s)
            c.ratio[d].push_back(ratio);
            c.surface_nnz[d].push_back(boundary.front());
            c.extra_flops[d].push_back(extra);
            ratio_max = std::max(ratio_max, ratio);
            ratio_sum += ratio;
            extra_max = std::max(extra_max, extra);
            fraction_max = std::max(fraction_max, extra / spmvs_flops(w.own_nnz[d], s));
            ghosts.push_back(mpk_boundary_for_steps(w.boundary_rows[d], s).front());
            messages += w.mpk_messages[d][si];
        }
        c.ratio_max.push_back(ratio_max);
        c.ratio_mean.push_back(ratio_sum / static_cast<double>(parts));
        c.extra_max.push_back(extra_max);
        c.extra_fraction_max.push_back(fraction_max);
        c.gather_words.push_back(w.ghost_union[si]);
        double scatter = 0;
        for (const double g : ghosts) scatter += g;
        c.scatter_words.push_back(scatter);
        c.mpk_words.push_back(mpk_comm_volume(w.ghost_union[si], ghosts));
        c.spmv_words.push_back(spmvs_comm_volume(s, w.ghost_union[0], w.halo_words_s1));
        c.mpk_per_restart.push_back(per_restart(restart_vectors, s, c.mpk_words.back()));
        c.spmv_per_restart.push_back(per_restart(restart_vectors, s, c.spmv_words.back()));
        c.mpk_messages.push_back(messages);
        c.spmv_messages.push_back(s * spmv_messages);
    }
    return c;
}

/// The fig6 and fig7 objects of an entry.
void add_figures(json& e, const Curves& c)
{
    e["fig6"] = {{"surface_to_volume",
                  {{"max", c.ratio_max}, {"mean", c.ratio_mean}, {"per_part", c.ratio}}},
                 {"surface_nnz", c.surface_nnz},
                 {"extra_flops", {{"max", c.extra_max}, {"per_part", c.extra_flops}}},
                 {"extra_flops_fraction_max", c.extra_fraction_max}};
    e["fig7"] = {{"mpk_words", c.mpk_words},
                 {"gather_words", c.gather_words},
                 {"scatter_words", c.scatter_words},
                 {"spmv_words", c.spmv_words},
                 {"mpk_words_per_restart", c.mpk_per_restart},
                 {"spmv_words_per_restart", c.spmv_per_restart},
                 {"mpk_messages", c.mpk_messages},
                 {"spmv_messages", c.spmv_messages}};
}

json entry_head(const MatrixEntry& m, const Ordering& o, int parts)
{
    return {{"name", fmt::format("mpk/{}/{}/P={}", m.name, o.name, parts)},
            {"matrix", m.name},
            {"ordering", o.name},
            {"parts", parts},
            {"status", "ok"},
            {"detail", ""}};
}

/// The entry of one (matrix, ordering, parts) partition.
json partition_entry(const MatrixEntry& m, const Ordering& o, int parts, const Csr<double>& a,
                     const std::vector<int>& part)
{
    json e = entry_head(m, o, parts);
    try {
        const MpkSweep w = mpk_sweep(a, part, parts, s_max);
        e["partition"] = {
            {"rows", w.own_rows}, {"nnz", w.own_nnz}, {"edge_cut", edge_cut(a, part)}};
        std::vector<int> steps(s_max);
        for (int s = 1; s <= s_max; ++s) steps[static_cast<std::size_t>(s - 1)] = s;
        e["s"] = steps;
        add_figures(e, price(w));
    } catch (const std::exception& ex) {  // e.g. an empty METIS part: no surface-to-volume ratio
        e["status"] = "error";
        e["detail"] = ex.what();
    }
    return e;
}

/// The entries of one ordering of `a`, one per part count; records the half-bandwidth of the
/// ordered matrix (natural, rcm) in `bandwidth`.
void add_ordering(json& benchmarks, json& bandwidth_of, const MatrixEntry& m, const Ordering& o,
                  const Csr<double>& a)
{
    const std::string name = o.name;
    if (!o.built()) {
        for (const int p : part_counts) {
            json e = entry_head(m, o, p);
            e["status"] = "not built";
            e["detail"] = fmt::format("{} was not found when kbench was configured", o.library);
            benchmarks.push_back(std::move(e));
        }
        return;
    }
    const Csr<double> rcm =
        name == "rcm" ? permute_symmetric(a, rcm_permutation(a)) : Csr<double>{};
    const Csr<double>& b = name == "rcm" ? rcm : a;  // the numbering block rows are cut from
    if (name != "kway") bandwidth_of[name] = bandwidth(b);
    for (const int p : part_counts) {
        const std::vector<int> part =
            name == "kway" ? kway_partition(a, p, metis_seed) : block_partition(b.num_rows, p);
        benchmarks.push_back(partition_entry(m, o, p, b, part));
    }
}

json run_mpk_model(const StudyRun& run)
{
    if (run.derive_from_results != nullptr) {  // fig7 after fig6: the same run
        return derived_results(run);
    }
    const MatrixSet set =
        load_source_set(run.source);
    json doc = make_results_document(kbench_context(run.id, run.source, set, nullptr, false));
    json& k = doc["context"]["kbench"];
    json& section = k["mpk_model"];
    section = {{"figures",
                "yamazaki2014 Sec. IV-B: Fig. 6, surface-to-volume ratio "
                "nnz(A(delta^(d,1:s), :)) / nnz(A^(d)) and extra flops W^(d,s); Fig. 7, words "
                "of one MPK call (gather |union_d delta^(d,1:s)| + scatter sum_d "
                "|delta^(d,1:s)|) against s SpMVs"},
               {"s_max", s_max},
               {"parts", part_counts},
               {"restart_vectors", restart_vectors},
               {"metis_seed", metis_seed},
               {"paper_matrices", paper_matrices()},
               {"orderings", json::object()},
               {"bandwidth", json::object()},
               {"notes",
                {"Both stand-ins are meshes cut nearly straight: their ghost layers gain about "
                 "the same number of rows at every step, so the ratios grow about linearly in s "
                 "and one MPK call moves at most about the words of s SpMVs. yamazaki2014 "
                 "reports superlinear growth for G3_circuit and more words for MPK than for "
                 "SpMVs on both of its matrices, whose graphs are less regular than a mesh."}}};
    for (const Ordering& o : orderings)
        section["orderings"][o.name] = {{"how", o.how}, {"built", o.built()}};
    const auto t_run = std::chrono::steady_clock::now();
    json seconds = json::object();
    const Progress progress;
    const std::size_t total = set.matrices.size() * std::size(orderings);
    std::size_t step = 0;
    for_each_matrix(set, [&](const MatrixEntry& m, const Csr<double>& a, std::size_t,
                             std::size_t) {
        k["matrices"][m.name] = matrix_context(
            m, a, spmv::resolve_sellp_params(a.view(), SellpParams{0, 0, 0, 0}));
        for (const Ordering& o : orderings) {
            progress.report(++step, total, fmt::format("{} / {}", m.name, o.name));
            const auto t0 = std::chrono::steady_clock::now();
            add_ordering(doc["benchmarks"], section["bandwidth"][m.name], m, o, a);
            seconds[m.name + "/" + o.name] = seconds_since(t0);
        }
    });
    seconds["total"] = seconds_since(t_run);
    k["run_seconds"] = seconds;
    return doc;
}

const StudyRegistrar registrar{
    {"yamazaki2014/fig6",
     "yamazaki2014 Fig. 6 (model): MPK surface-to-volume ratio and extra flops W^(d,s) vs s = "
     "1..20 for natural, RCM and METIS k-way orderings on 2-4 parts, stand-ins of cant and "
     "G3_circuit (CPU only)",
     "yamazaki2014-mpk", StudyNeeds{0, false, false}, "", run_mpk_model},
    {"yamazaki2014/fig7",
     "yamazaki2014 Fig. 7 (model): words of one MPK of s steps (gather + scatter) vs s SpMV halo "
     "exchanges, s = 1..20, same partitions as fig6 (CPU only; shares fig6's run)",
     "yamazaki2014-mpk", StudyNeeds{0, false, false}, "yamazaki2014/fig6", run_mpk_model},
};

}  // namespace
}  // namespace kbench::harness
