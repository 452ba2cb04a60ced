// Microbenchmark of block GMRES's host least squares (solvers/hessenberg.hpp): the time of one
// HessenbergLsq::add_columns call, i.e. one block step j (0-based: j s columns already in) of
// block size s, for s in {8, 16, 32, 64} and j in {8, 32, 64}. Not a test; run by hand:
//   build/harness/microbench_hessenberg [--benchmark_filter=...]
// Counters: flops = 6 j s^3 (the previous j s columns' s rotations each, 6 flops per rotated
// pair, on s new columns; the new rotations are left out), GF/s = flops / time.
#include "solvers/hessenberg.hpp"

#include <benchmark/benchmark.h>

#include <chrono>
#include <random>
#include <vector>

namespace {

using kbench::solvers::HessenbergLsq;
using kbench::solvers::HessenbergStatus;

/// Block step j of block size s: a least squares holding j blocks (untimed), copied afresh for
/// every iteration (untimed), then the timed add_columns of block j's s columns.
void add_columns_step(benchmark::State& state)
{
    const int s = static_cast<int>(state.range(0)), j = static_cast<int>(state.range(1));
    const int m = j + 1, rows = (m + 1) * s;
    std::mt19937 gen(9);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    std::vector<double> h(static_cast<std::size_t>(rows) * m * s, 0.0);  // column-major, ld rows
    for (int c = 0; c < m * s; ++c)
        for (int i = 0; i <= c + s; ++i)
            h[static_cast<std::size_t>(c) * rows + i] = u(gen) + (i == c ? 4.0 : 0.0);
    std::vector<double> S(static_cast<std::size_t>(s) * s, 0.0);
    for (int k = 0; k < s; ++k) S[k * s + k] = 1.0;
    HessenbergLsq<double> base(m, s);
    base.reset(S.data(), s);
    for (int b = 0; b < j; ++b)
        if (base.add_columns(h.data() + static_cast<std::size_t>(b) * s * rows, rows, s) !=
            HessenbergStatus::ok) {
            state.SkipWithError("setup: a column was not ok");
            return;
        }
    const double* block = h.data() + static_cast<std::size_t>(j) * s * rows;
    for (auto _ : state) {
        HessenbergLsq<double> lsq(base);
        const auto t0 = std::chrono::steady_clock::now();
        const HessenbergStatus st = lsq.add_columns(block, rows, s);
        const auto t1 = std::chrono::steady_clock::now();
        benchmark::DoNotOptimize(st);
        state.SetIterationTime(std::chrono::duration<double>(t1 - t0).count());
    }
    const double flops = 6.0 * j * static_cast<double>(s) * s * s;
    state.counters["flops"] = flops;
    state.counters["GF/s"] =
        benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

}  // namespace

BENCHMARK(add_columns_step)
    ->ArgNames({"s", "j"})
    ->ArgsProduct({{8, 16, 32, 64}, {8, 32, 64}})
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond)
    ->MinTime(0.2);

BENCHMARK_MAIN();
