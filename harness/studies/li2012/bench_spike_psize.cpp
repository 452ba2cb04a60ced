// li2012/table3 (run_spike_psize_study, bench_spike.hpp): SPIKE+BiCGStab at the hand-tuned,
// automatic and ill-tuned partition sizes, and li2012 Fig. 3's remainder pair.
#include "harness/studies/li2012/bench_spike.hpp"
#include "harness/studies/li2012/bench_spike_common.hpp"

#include "harness/core/progress.hpp"

#include <fmt/format.h>

#include <cstddef>
#include <string>
#include <vector>

namespace kbench::harness {

using namespace spike_bench;

namespace {
const std::vector<index_type> table3_n{2000, 4000, 8000, 10000, 20000, 40000, 80000, 100000};
constexpr double table3_point_budget_s = 0.3;
}  // namespace

json run_spike_psize_study(const StudyRun& run)
{
    // A quick run: 3 of the N (the first, the middle and the last).
    const std::vector<index_type> n_values =
        run.options.quick ? quick_cap(table3_n, quick_max_n, 3) : table3_n;
    json grids = json::object();
    for (index_type n : n_values) grids[std::to_string(n)] = li2012::psize_grid(n, default_k);
    Study s = new_study(run, {{"K", default_k}, {"n_values", n_values}, {"psize_grids", grids},
                              {"remainder", {{"n_values", {8192, 8191}}, {"psize", 2048}}}});
    s.ctx()["notes"].push_back(
        "table3: hand-tuned = the fastest psize of the grid (powers of 2 and 1.5 x powers of 2, "
        "2K and N/2); ill-tuned = li2012's min(2048, N), capped at N/2 (li2012 Sec. 1.2: "
        "psize <= N/2); auto = psize 0 (models::spike::choose_psize)");
    Progress progress;
    std::size_t k = 0;
    const std::size_t total = n_values.size() + 1;
    const auto point = [&](const Problem& p, Gpu& g, const char* kind, index_type psize) {
        const SpikeTimed t = time_spike(p, g, spike_options(psize, false), s.reps_cap,
                                        table3_point_budget_s);
        json e = {{"name", fmt::format("table3/{}/N={}/psize={}", kind, p.n,
                                       psize > 0 ? std::to_string(psize) : "auto")},
                  {"figure", "table3"}, {"kind", kind}};
        e.update(point_fields(p));
        e.update(spike_fields(p, t, psize, false, s.figures));
        s.doc["benchmarks"].push_back(e);
        return t.seconds;
    };
    for (index_type n : n_values) {
        progress.report(++k, total, fmt::format("table3 N = {}", n));
        const Problem p = make_problem(n, default_k, default_d, matrix_seed, false);
        Gpu g(p);
        point(p, g, "auto", 0);
        point(p, g, "ill_tuned", li2012::ill_tuned_psize(n, default_k));
        for (index_type psize : li2012::psize_grid(n, default_k)) point(p, g, "sweep", psize);
    }
    progress.report(++k, total, "table3 li2012 Fig. 3: N = 8192 and 8191 at psize 2048");
    for (index_type n : {8192, 8191}) {
        const Problem p = make_problem(n, default_k, default_d, matrix_seed, false);
        Gpu g(p);
        point(p, g, "remainder", 2048);
    }
    return s.doc;
}

}  // namespace kbench::harness
