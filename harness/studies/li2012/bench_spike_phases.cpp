// li2012/fig6 (run_spike_phases_study, bench_spike.hpp): the phases of a detailed
// SPIKE+BiCGStab solve against the model's time per phase.
#include "harness/studies/li2012/bench_spike.hpp"
#include "harness/studies/li2012/bench_spike_common.hpp"

#include "harness/core/progress.hpp"
#include "kernels/base/cuda_check.hpp"

#include <fmt/format.h>

#include <cstddef>
#include <string>

namespace kbench::harness {

using namespace spike_bench;

namespace {
constexpr index_type fig6_n = 800000;
constexpr index_type fig6_psize = 2048;  // li2012 Fig. 6
}  // namespace

json run_spike_phases_study(const StudyRun& run)
{
    const index_type n = run.options.quick ? quick_max_n : fig6_n;
    Study s = new_study(run, {{"n", n}, {"K", default_k}, {"psizes", {fig6_psize, 0}}});
    s.ctx()["notes"].push_back(
        "fig6: phases from a detailed solve (CUDA events between phases, NVTX ranges of the same "
        "names, so Nsight Systems shows them too); model groups: LU/UL = lu + ul_top, spikes = "
        "spike_tips, reduced system = reduced_factor, BiCGStab SpMV = the iterations' SpMVs, "
        "preconditioner = every apply (solve pairs, reduced solves, coupling), other = the "
        "iterations' vector operations; the start (r0 = b - A x0) is in the solve's time, not in "
        "a phase");
    const Problem p = make_problem(n, default_k, default_d, matrix_seed, false);
    Gpu g(p);
    Progress progress;
    std::size_t k = 0;
    for (index_type psize : {fig6_psize, index_type{0}}) {
        const std::string label = psize > 0 ? std::to_string(psize) : "auto";
        progress.report(++k, 2, fmt::format("fig6 N = {}, psize {}", n, label));
        const SpikeTimed plain = time_spike(p, g, spike_options(psize, false), s.reps_cap);
        sp::SpikeBicgstabOptions o = spike_options(psize, false);
        o.detailed = true;
        SpikeTimed detailed;
        double wall = 0.0;
        reset_x(g);
        const auto t0 = clock_type::now();
        detailed.result = sp::spike_bicgstab(p.band, g.op, g.b.data(), g.x.data(), o, g.stream.get());
        KBENCH_CUDA_CHECK(cudaStreamSynchronize(g.stream.get()));
        wall = seconds_since(t0);
        detailed.seconds = detailed.result.total_seconds;
        detailed.factor_seconds = detailed.result.factor_seconds;
        detailed.wall_seconds = wall;
        detailed.repetitions = 1;
        json e = {{"name", "fig6/psize=" + label}, {"figure", "fig6"}};
        e.update(point_fields(p));
        e.update(spike_fields(p, detailed, psize, false, s.figures));
        e["undetailed_seconds"] = finite_or_null(plain.seconds);
        const ModelOut m = model_spike(p.n, p.K, detailed.result.psize,
                                       detailed.result.solve.iterations, false, s.figures);
        json phases = json::array();
        for (const solvers::PhaseTime& ph : detailed.result.phases) {
            const auto it = m.groups.find(ph.name);
            phases.push_back({{"name", ph.name}, {"group", ph.group}, {"seconds", ph.seconds},
                              {"calls", ph.calls},
                              {"model_seconds", it != m.groups.end() ? json(it->second)
                                                                     : json(nullptr)}});
        }
        e["phases"] = phases;
        s.doc["benchmarks"].push_back(e);
    }
    return s.doc;
}

}  // namespace kbench::harness
