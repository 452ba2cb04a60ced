// The helpers the anzt2015 vector-kernel runners share (declared in
// bench_vector_kernels_common.hpp): the deterministic vector values, the vector lengths, the
// entries and the results document. The runners: bench_vector_kernels_dots.cpp (Figs. 7 and 8),
// bench_vector_kernels_p_update.cpp (Fig. 9) and bench_vector_kernels_sequence.cpp (Fig. 10); see
// harness/studies/anzt2015/bench_vector_kernels.hpp.
#include "harness/studies/anzt2015/bench_vector_kernels_common.hpp"

#include "harness/core/results_json.hpp"
#include "harness/core/study_context.hpp"
#include "kernels/dot.hpp"
#include "matrices/matrix_set.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <utility>
#include <vector>

namespace kbench::harness::vector_kernels_bench {

// ---- Deterministic vector values: harness/bench/bench_dot.cpp ------------------------------

double relative_error(double got, long double expected)
{
    const long double diff = std::fabs(static_cast<long double>(got) - expected);
    return static_cast<double>(expected != 0.0L ? diff / std::fabs(expected) : diff);
}

// ---- Sizes ----------------------------------------------------------------------------------

std::vector<std::int64_t> log_spaced(double lo, double hi, int count)
{
    std::vector<std::int64_t> ns;
    for (int i = 0; i < count; ++i) {
        const double e = count == 1 ? lo : lo + (hi - lo) * i / (count - 1);
        const double x = std::pow(10.0, e);
        const double unit = std::pow(10.0, std::floor(std::log10(x)) - 2.0);
        ns.push_back(static_cast<std::int64_t>(std::llround(std::round(x / unit) * unit)));
    }
    return ns;
}

int cublas_int(std::int64_t n, const char* who)
{
    if (n > std::numeric_limits<int>::max())
        throw std::invalid_argument(fmt::format(
            "{}: n = {} exceeds the int range of the cuBLAS legacy API (<= {})", who, n,
            std::numeric_limits<int>::max()));
    return static_cast<int>(n);
}

// ---- Timing ---------------------------------------------------------------------------------

nlohmann::json make_entry(const Point& p, const PointTiming& t, int repetitions,
                          double max_rel_error)
{
    const double bytes = p.bytes_read + p.bytes_written;
    return {{"name", fmt::format("{}/{}/double/n={}/k={}", p.figure, p.variant, p.n, p.k)},
            {"figure", p.figure},
            {"panel", p.panel},
            {"variant", p.variant},
            {"precision", "double"},
            {"n", p.n},
            {"k", p.k},
            {"seconds", t.seconds},
            {"flops", p.flops},
            {"bytes", bytes},
            {"bytes_read", p.bytes_read},
            {"bytes_written", p.bytes_written},
            {"GFlops", p.flops / t.seconds * 1e-9},
            {"GBps", bytes / t.seconds * 1e-9},
            {"repetitions", repetitions},
            {"loops", t.loops},
            {"max_rel_error", max_rel_error}};
}

blas::DotWorkspace dot_workspace(std::int64_t n, int k) { return blas::DotWorkspace(n, k); }

// ---- The results document -------------------------------------------------------------------

nlohmann::json new_document(const StudyRun& run, nlohmann::json method)
{
    validate(run.options);
    MatrixSet none;
    none.name = "none";
    none.description = "vector kernels only: no matrix is used";
    nlohmann::json doc =
        make_results_document(kbench_context(run.id, run.source, none, run.machine, false));
    method["precision"] = "double";
    method["read_gbps"] = run.machine != nullptr ? run.machine->read_gbps : 0.0;
    method["repetitions"] = run.options.repetitions;
    method["min_time"] = run.options.min_time;
    method["values"] = "vector j, element i: 1 / (1 + (i + 131 j) mod 1009)";
    method["max_rel_error"] =
        "dot products: max over the results of |result - ref| / |ref|, ref summed in long double "
        "on the host; vector updates: max_i |p_i - ref_i| / max_i |ref_i|";
    method["cache"] = "hot: no L2 flush (vectors that fit the L2 cache are read from it)";
    method["seconds"] = "median over the repetitions of (elapsed time of `loops` back-to-back "
                        "calls) / loops";
    doc["context"]["kbench"]["vector_kernels"] = std::move(method);
    return doc;
}

}  // namespace kbench::harness::vector_kernels_bench
