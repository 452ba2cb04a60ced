// Microbenchmark of li2012's CPU baselines on the machine at hand, without a GPU (the study,
// harness/studies/li2012/bench_spike_scaling.cpp, needs one for its SPIKE::GPU series). Not a
// test; run by hand:
//   build/harness/microbench_spike_cpu [--benchmark_filter=...] [--benchmark_repetitions=...]
// The study's problem: li2012's random banded matrix banded(N, K, d = 1, seed 1) and b uniform
// in [-1, 1) (seed 2012), N in {1e5, 4e5} (4e5: li2012 Fig. 5), K = 32. Series, each timed as the
// study records it (manual time):
//   dgbsv/N/K                LAPACKE_dgbsv on one OpenBLAS thread (gbsv_solve: the call; the
//                            copy of the band is not timed), when built with LAPACKE;
//   spike_omp/N/K/threads    spike_bicgstab_omp in double, tolerance 1e-8, one partition per
//                            thread (cpu_partition_count): the result's total_seconds
//                            (factorization and iterations).
// Counters: threads (those the partitions ran on), partitions, iterations.
#include "matrices/banded.hpp"
#include "matrices/generators.hpp"
#include "solvers/spike/spike.hpp"
#include "solvers/spike/spike_bicgstab.hpp"
#ifdef KBENCH_HAVE_LAPACKE
#include "solvers/spike/gbsv_baseline.hpp"
#endif

#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <vector>

namespace {

namespace sp = kbench::solvers::spike;
using kbench::index_type;

struct Problem {
    kbench::Csr<double> csr;
    kbench::BandMatrix<double> band;
    std::vector<double> b;
};

/// The li2012 study's problem (harness/studies/li2012/bench_spike.cpp: make_problem), cached.
const Problem& problem(index_type n, index_type K)
{
    static std::vector<std::pair<std::pair<index_type, index_type>, Problem>> cache;
    for (const auto& [key, p] : cache)
        if (key.first == n && key.second == K) return p;
    Problem p;
    p.csr = kbench::banded(n, K, 1.0, 1);
    p.band = kbench::band_from_csr(p.csr, K);
    std::mt19937_64 gen(2012);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    p.b.resize(static_cast<std::size_t>(n));
    for (double& v : p.b) v = u(gen);
    cache.emplace_back(std::pair{n, K}, std::move(p));
    return cache.back().second;
}

void spike_omp(benchmark::State& state)
{
    const auto n = static_cast<index_type>(state.range(0));
    const auto K = static_cast<index_type>(state.range(1));
    const Problem& p = problem(n, K);
    sp::SpikeBicgstabOptions o;
    o.tolerance = 1e-8;
    sp::SpikeOmpOptions omp;
    omp.threads = static_cast<int>(state.range(2));
    sp::SpikeBicgstabResult r;
    for (auto _ : state) {
        std::vector<double> x(p.b.size(), 0.0);
        r = sp::spike_bicgstab_omp(p.band, p.b, x, o, omp);
        state.SetIterationTime(r.total_seconds);
    }
    if (r.solve.status != kbench::solvers::SolveStatus::converged)
        state.SkipWithError("SPIKE+BiCGStab did not converge");
    state.counters["threads"] = r.threads;
    state.counters["partitions"] = static_cast<double>(r.partitions);
    state.counters["iterations"] = r.solve.iterations;
}
BENCHMARK(spike_omp)
    ->ArgsProduct({{100000, 400000}, {32}, {1, 2}})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

#ifdef KBENCH_HAVE_LAPACKE
void dgbsv(benchmark::State& state)
{
    const auto n = static_cast<index_type>(state.range(0));
    const auto K = static_cast<index_type>(state.range(1));
    const kbench::spike::LapackBand band = kbench::spike::to_lapack_band(problem(n, K).csr, K);
    kbench::spike::GbsvOptions o;
    o.threads = 1;
    kbench::spike::GbsvResult r;
    for (auto _ : state) {
        r = kbench::spike::gbsv_solve(band, problem(n, K).b, o);
        state.SetIterationTime(r.seconds);
    }
    if (r.status != kbench::spike::GbsvStatus::ok) state.SkipWithError(r.message.c_str());
    state.counters["threads"] = r.threads;
}
BENCHMARK(dgbsv)
    ->ArgsProduct({{100000, 400000}, {32}})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
#endif

}  // namespace

BENCHMARK_MAIN();
