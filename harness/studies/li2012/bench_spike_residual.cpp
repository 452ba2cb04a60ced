// li2012/table1 (run_spike_residual_study, bench_spike.hpp): truncated SPIKE's residual after
// one apply vs the degree of diagonal dominance, and the SPIKE+BiCGStab iterations.
#include "harness/studies/li2012/bench_spike.hpp"
#include "harness/studies/li2012/bench_spike_common.hpp"

#include "harness/core/progress.hpp"
#include "kernels/base/cuda_check.hpp"
#include "solvers/spike/spike.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace kbench::harness {

using namespace spike_bench;

namespace {

const std::vector<double> table1_d{1.0, 10.0, 100.0, 1000.0, 10000.0};
const std::vector<std::uint64_t> table1_seeds{1, 2, 3};
constexpr index_type table1_n = 100000;
/// Both value distributions: random signs (the spikes decay fast even at d = 1) and negative
/// off-diagonals (an M-matrix: slow decay at d = 1, as for tridiag(-1, 2, -1)).
const std::vector<BandedSigns> table1_signs{BandedSigns::random, BandedSigns::negative};

/// z = M^-1 b on the GPU with a SpikeSolver<T> of `tips` at `psize` (float: inside double
/// vectors, apply_mixed); the residual of z, NaN on a zero pivot.
template <typename T>
Residual one_apply_residual(const Problem& p, Gpu& g, index_type psize, sp::SpikeTips tips)
{
    sp::SpikeSolver<T> solver;
    const BandMatrix<T> a = band_cast<T>(p.band);
    if (!solver.factor(a, psize, g.stream.get(), tips).ok()) return {};
    device_buffer<double> z(p.b.size());
    if constexpr (std::is_same_v<T, double>)
        solver.apply(g.b.data(), z.data(), g.stream.get());
    else
        solver.apply_mixed(g.b.data(), z.data(), g.stream.get());
    KBENCH_CUDA_CHECK(cudaStreamSynchronize(g.stream.get()));
    return relative_residual(p, z.to_host());
}

}  // namespace

json run_spike_residual_study(const StudyRun& run)
{
    json signs_values = json::array();
    for (BandedSigns v : table1_signs) signs_values.push_back(to_string(v));
    const std::vector<std::uint64_t> seeds =  // a quick run: the first seed
        run.options.quick ? quick_cap(table1_seeds, table1_seeds.front()) : table1_seeds;
    Study s = new_study(run, {{"n", table1_n}, {"K", default_k}, {"d_values", table1_d},
                              {"seeds", seeds}, {"signs_values", signs_values}});
    s.ctx()["notes"].push_back(
        "table1: li2012 states neither N nor K for Table 1: N = 1e5, K = 32 here (K of its other "
        "experiments); two value distributions (li2012 states none): random signs and negative "
        "off-diagonals (an M-matrix); psize = the automatic choice of the double solve for each "
        "matrix, used for every residual; residual_inf: exact tips (kbench's default), "
        "residual_inf_corner_ul: li2012 Sec. 2.2's tips from the UL of the top 2K x 2K corner, "
        "the method of li2012's table");
    Progress progress;
    const std::size_t total = table1_signs.size() * table1_d.size() * seeds.size();
    std::size_t k = 0;
    for (BandedSigns signs : table1_signs) {
        for (double d : table1_d) {
            for (std::uint64_t seed : seeds) {
                progress.report(++k, total, fmt::format("table1 signs {}, d = {:g}, seed {}",
                                                        to_string(signs), d, seed));
                const Problem p = make_problem(table1_n, default_k, d, seed, false, signs);
                Gpu g(p);
                const SpikeTimed t = time_spike(p, g, spike_options(0, false), 1);
                // Random signs keep their former names (results before the signs were added).
                const std::string prefix = signs == BandedSigns::random
                                               ? std::string("table1")
                                               : fmt::format("table1/{}", to_string(signs));
                json e = {{"name", fmt::format("{}/d={:g}/seed={}", prefix, d, seed)},
                          {"figure", "table1"}};
                e.update(point_fields(p));
                e.update(spike_fields(p, t, 0, false, s.figures));
                const index_type psize = t.result.psize;
                // What the chooser saw, as the solver reports it (psize 0: always chosen).
                if (!t.result.psize_decay)
                    throw std::logic_error("li2012/table1: the solve chose no psize");
                const ms::SpikeDecay decay = *t.result.psize_decay;
                e["decay_d_min"] = finite_or_null(decay.d_min);
                e["decay_rho"] = finite_or_null(ms::effective_rho(decay));
                e["truncation_estimate"] =
                    psize > 0 ? finite_or_null(ms::truncation_error(psize, p.K, decay))
                              : json(nullptr);
                double corner_iterations = std::numeric_limits<double>::quiet_NaN();
                if (psize > 0) {
                    const Residual exact =
                        one_apply_residual<double>(p, g, psize, sp::SpikeTips::exact);
                    e["residual_inf"] = finite_or_null(exact.inf);
                    e["residual_2"] = finite_or_null(exact.two);
                    e["residual_inf_corner_ul"] = finite_or_null(
                        one_apply_residual<double>(p, g, psize, sp::SpikeTips::corner_ul).inf);
                    e["residual_inf_mixed"] = finite_or_null(
                        one_apply_residual<float>(p, g, psize, sp::SpikeTips::exact).inf);
                    sp::SpikeReference<double> ref;
                    std::vector<double> z(p.b.size());
                    if (ref.factor(p.band, psize).ok()) {
                        ref.apply(p.b.data(), z.data());
                        e["residual_inf_cpu"] = finite_or_null(relative_residual(p, z).inf);
                    }
                    sp::SpikeBicgstabOptions o = spike_options(psize, false);
                    o.tips = sp::SpikeTips::corner_ul;
                    reset_x(g);
                    const sp::SpikeBicgstabResult rc =
                        sp::spike_bicgstab(p.band, g.op, g.b.data(), g.x.data(), o, g.stream.get());
                    e["status_corner_ul"] = status_of(rc);
                    if (rc.factor_status.ok()) corner_iterations = rc.solve.iterations;
                }
                e["iterations_corner_ul"] = finite_or_null(corner_iterations);
                for (const char* key :
                     {"residual_inf", "residual_inf_corner_ul", "residual_inf_mixed",
                      "residual_inf_cpu", "residual_2", "status_corner_ul"})
                    if (!e.contains(key)) e[key] = nullptr;
                s.doc["benchmarks"].push_back(e);
            }
        }
    }
    return s.doc;
}

}  // namespace kbench::harness
