// anzt2015 Figs. 7 and 8 (run_dot_vectors_study, run_dot_length_study): dot products, alone, in
// pairs and k sharing y, kbench's mdot and mdgm against cuBLAS; see
// harness/studies/anzt2015/bench_vector_kernels.hpp.
#include "harness/studies/anzt2015/bench_vector_kernels.hpp"
#include "harness/studies/anzt2015/bench_vector_kernels_common.hpp"

#include "kernels/dot.hpp"

#include <cublas_v2.h>

#include <algorithm>
#include <cstdint>
#include <tuple>
#include <utility>
#include <vector>

namespace kbench::harness {

using namespace vector_kernels_bench;

namespace {

// ---- Fig. 7 and Fig. 8: k dot products sharing y ---------------------------------------------
//
// Every point is measured by measure_dot_point (harness/bench/bench_dot.hpp), the measurement of
// `kbench bench dot`, on its SharedYData: an n x k_max V (column j pattern j + 1), y pattern 0.

enum SharedYVariant : unsigned {
    cublas_dots = 1u,  // k cublasDdot calls
    mdot_call = 2u,    // one mdot call with k pairs
    mdgm_call = 4u,    // mdgm on V
    gemv_call = 8u,    // cublasDgemv CUBLAS_OP_T on V
};

/// The entry of one point named `variant` (the study's name of `v` at this k), measured on
/// `data`; reports progress as "[index/total] <fig>/<variant>/double/n=<n>/k=<k>".
nlohmann::json shared_y_point(const char* figure, const char* panel, const char* variant,
                              DotVariant v, int k, SharedYData<double>& data,
                              const BlasOnStream& b, const RunOptions& o,
                              const Progress& progress, std::size_t index, std::size_t total)
{
    progress.report(index, total,
                    fmt::format("{}/{}/double/n={}/k={}", figure, variant, data.n, k));
    const DotMeasurement m = measure_dot_point(v, k, data, b.blas, b.stream, o);
    const Point p{figure, panel, variant, data.n, k, m.traffic.flops, m.traffic.bytes_read,
                  m.traffic.bytes_written};
    return make_entry(p, m.timing, o.repetitions, m.max_rel_error);
}

/// Times V^T y for an n x k_max column-major V (lda = n; column j is pattern j + 1, y is
/// pattern 0) for each k of `ks` and each variant of `variants`, appending entries to `doc`.
/// `b` is in device pointer mode.
void time_shared_y(nlohmann::json& doc, const char* figure, const char* panel, std::int64_t n,
                   const std::vector<int>& ks, unsigned variants, const BlasOnStream& b,
                   const RunOptions& o, const Progress& progress, std::size_t& index,
                   std::size_t total)
{
    const int k_max = *std::max_element(ks.begin(), ks.end());
    SharedYData<double> data(n, k_max, figure);
    const std::pair<unsigned, DotVariant> order[] = {{cublas_dots, DotVariant::cublas_dot},
                                                     {mdot_call, DotVariant::mdot},
                                                     {mdgm_call, DotVariant::mdgm},
                                                     {gemv_call, DotVariant::cublas_gemv}};
    for (const int k : ks)
        for (const auto& [bit, v] : order)
            if (variants & bit)
                doc["benchmarks"].push_back(shared_y_point(figure, panel, to_string(v), v, k,
                                                           data, b, o, progress, ++index, total));
}

}  // namespace

nlohmann::json run_dot_vectors_study(const StudyRun& run)
{
    nlohmann::json doc = new_document(run, {
        {"figure", "anzt2015 Fig. 7: k dot products x_j . y sharing y"},
        {"flops", "2 n k for every variant"},
        {"bytes", "cublas_dot: k x (2n reads + 1 write); mdot: distinct vectors of each chunk "
                  "of 4 pairs read once (n k + n ceil(k/4) reads) + k writes; mdgm and "
                  "cublas_gemv: n k + n reads + k writes (the least V^T y moves); partial sums "
                  "of the two-stage reductions not counted; 8 bytes per double"},
        {"pointer_mode", "device (cublasDdot and cublasDgemv write their results to device "
                         "memory, as mdot and mdgm do)"},
        {"timing", "CUDA events around the loop"}});
    std::vector<int> ks;
    for (int k = 1; k <= 16; ++k) ks.push_back(k);
    for (int k = 20; k <= 32; k += 4) ks.push_back(k);
    ks = sweep(run, ks, 32, 8);  // quick: 8 of the 20 counts
    const std::vector<std::pair<std::int64_t, const char*>> ns{{100000, "left"},
                                                               {1000000, "right"}};
    const Progress progress;
    const std::size_t total = ns.size() * ks.size() * 4;
    std::size_t index = 0;
    const BlasOnStream b(CUBLAS_POINTER_MODE_DEVICE);
    for (const auto& [n, panel] : ns)
        time_shared_y(doc, "fig7", panel, n, ks, cublas_dots | mdot_call | mdgm_call | gemv_call,
                      b, run.options, progress, index, total);
    return doc;
}

nlohmann::json run_dot_length_study(const StudyRun& run)
{
    nlohmann::json doc = new_document(run, {
        {"figure", "anzt2015 Fig. 8: left, one dot product and two sharing y vs n; right, "
                   "mdgm vs cublasDgemv (CUBLAS_OP_T, lda = n) over (n, k)"},
        {"flops", "2 n k"},
        {"bytes", "cublas_dot: 2n reads + 1 write per call; mdot: distinct vectors read once "
                  "(k = 2 sharing y: 3n) + k writes; mdgm and cublas_gemv: n k + n reads + k "
                  "writes; partial sums not counted; 8 bytes per double"},
        {"pointer_mode", "device"},
        {"timing", "CUDA events around the loop"}});
    const RunOptions& o = run.options;
    const std::vector<std::int64_t> left_ns =
        sweep(run, log_spaced(3.0, 8.0, 11), quick_max_length, 4);
    const std::vector<std::int64_t> right_ns =
        sweep(run, log_spaced(3.0, 7.0, 9), quick_max_length, 4);
    const std::vector<int> right_ks{1, 2, 4, 8, 16, 32};
    const Progress progress;
    const std::size_t total = left_ns.size() * 4 + right_ns.size() * right_ks.size() * 2;
    std::size_t index = 0;

    const BlasOnStream b(CUBLAS_POINTER_MODE_DEVICE);
    for (const std::int64_t n : left_ns) {
        // x1, x2 = the two columns of V (patterns 1, 2), y = pattern 0.
        SharedYData<double> data(n, 2, "fig8");
        const std::tuple<const char*, DotVariant, int> points[] = {
            {"cublas_dot", DotVariant::cublas_dot, 1},
            {"mdot", DotVariant::mdot, 1},
            {"cublas_dot_pair", DotVariant::cublas_dot, 2},
            {"mdot_pair", DotVariant::mdot, 2}};
        for (const auto& [variant, v, k] : points)
            doc["benchmarks"].push_back(shared_y_point("fig8", "left", variant, v, k, data, b, o,
                                                       progress, ++index, total));
    }
    for (const std::int64_t n : right_ns)
        time_shared_y(doc, "fig8", "right", n, right_ks, mdgm_call | gemv_call, b, o, progress,
                      index, total);
    return doc;
}

}  // namespace kbench::harness
