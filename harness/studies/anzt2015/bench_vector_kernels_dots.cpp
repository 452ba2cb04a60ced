// anzt2015 Figs. 7 and 8 (run_dot_vectors_study, run_dot_length_study): dot products, alone, in
// pairs and k sharing y, kbench's mdot and mdgm against cuBLAS; see
// harness/studies/anzt2015/bench_vector_kernels.hpp.
#include "harness/studies/anzt2015/bench_vector_kernels.hpp"
#include "harness/studies/anzt2015/bench_vector_kernels_common.hpp"

#include "kernels/dot.hpp"

#include <cublas_v2.h>

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace kbench::harness {

using namespace vector_kernels_bench;

namespace {

// ---- Fig. 7 and Fig. 8 right: k dot products sharing y --------------------------------------

enum SharedYVariant : unsigned {
    cublas_dots = 1u,  // k cublasDdot calls
    mdot_call = 2u,    // one mdot call with k pairs
    mdgm_call = 4u,    // mdgm on V
    gemv_call = 8u,    // cublasDgemv CUBLAS_OP_T on V
};

/// Times V^T y for an n x k_max column-major V (lda = n; column j is pattern j + 1, y is
/// pattern 0) for each k of `ks` and each variant of `variants`, appending entries to `doc`.
/// `b` is in device pointer mode; `one_zero` holds the device scalars 1 and 0 (gemv's alpha, beta).
void time_shared_y(nlohmann::json& doc, const char* figure, const char* panel, std::int64_t n,
                   const std::vector<int>& ks, unsigned variants, const BlasOnStream& b,
                   const device_buffer<double>& one_zero, const RunOptions& o,
                   const Progress& progress, std::size_t& index, std::size_t total)
{
    const int k_max = *std::max_element(ks.begin(), ks.end());
    const int n_int = cublas_int(n, figure);
    device_buffer<double> V(static_cast<std::size_t>(n) * k_max), y(static_cast<std::size_t>(n));
    device_buffer<double> result(static_cast<std::size_t>(k_max));
    device_buffer<double> ws = dot_workspace(n, k_max);
    {
        std::vector<double> staging;
        for (int j = 0; j < k_max; ++j) fill_pattern(V.data() + j * n, n, j + 1, staging);
        fill_pattern(y.data(), n, 0, staging);
        KBENCH_CUDA_CHECK(cudaDeviceSynchronize());
    }
    std::vector<long double> ref(static_cast<std::size_t>(k_max));
    for (int j = 0; j < k_max; ++j) ref[j] = pattern_dot(j + 1, 0, n);
    std::vector<const double*> xs(static_cast<std::size_t>(k_max)), ys(xs.size(), y.data());
    for (int j = 0; j < k_max; ++j) xs[j] = V.data() + j * n;

    for (const int k : ks) {
        const auto check = [&] { return max_relative_error(results_to_host(result, k), ref, k); };
        const double flops = 2.0 * static_cast<double>(n) * k;
        if (variants & cublas_dots) {
            const models::Traffic t = blas::dot_traffic(n, value_bytes);  // per call
            const Point p{figure, panel, "cublas_dot", n, k, flops, k * t.bytes_read,
                          k * t.bytes_written};
            doc["benchmarks"].push_back(measure_point(p, [&] {
                for (int j = 0; j < k; ++j)
                    KBENCH_CUBLAS_CHECK(cublasDdot(b.blas, n_int, xs[j], 1, y.data(), 1,
                                                   result.data() + j));
            }, check, b.stream, Clock::events, o, progress, ++index, total));
        }
        if (variants & mdot_call) {
            const int read = blas::mdot_vectors_read(k, xs.data(), ys.data());
            const models::Traffic t = blas::mdot_traffic(n, k, read, value_bytes);
            const Point p{figure, panel, "mdot", n, k, flops, t.bytes_read, t.bytes_written};
            doc["benchmarks"].push_back(measure_point(p, [&] {
                blas::mdot(n, k, xs.data(), ys.data(), result.data(), ws.data(), ws.bytes(),
                           b.stream);
            }, check, b.stream, Clock::events, o, progress, ++index, total));
        }
        if (variants & mdgm_call) {
            const models::Traffic t = blas::mdgm_traffic(n, k, value_bytes);
            const Point p{figure, panel, "mdgm", n, k, flops, t.bytes_read, t.bytes_written};
            doc["benchmarks"].push_back(measure_point(p, [&] {
                blas::mdgm(n, k, V.data(), n, y.data(), result.data(), ws.data(), ws.bytes(),
                           b.stream);
            }, check, b.stream, Clock::events, o, progress, ++index, total));
        }
        if (variants & gemv_call) {
            // Model bytes: the least V^T y must move, as for mdgm (V and y once, k results).
            const models::Traffic t = blas::mdgm_traffic(n, k, value_bytes);
            const Point p{figure, panel, "cublas_gemv", n, k, flops, t.bytes_read,
                          t.bytes_written};
            doc["benchmarks"].push_back(measure_point(p, [&] {
                KBENCH_CUBLAS_CHECK(cublasDgemv(b.blas, CUBLAS_OP_T, n_int, k, one_zero.data(),
                                                V.data(), n_int, y.data(), 1,
                                                one_zero.data() + 1, result.data(), 1));
            }, check, b.stream, Clock::events, o, progress, ++index, total));
        }
    }
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
    const device_buffer<double> one_zero(std::vector<double>{1.0, 0.0});
    for (const auto& [n, panel] : ns)
        time_shared_y(doc, "fig7", panel, n, ks, cublas_dots | mdot_call | mdgm_call | gemv_call,
                      b, one_zero, run.options, progress, index, total);
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
    const device_buffer<double> one_zero(std::vector<double>{1.0, 0.0});
    for (const std::int64_t n : left_ns) {
        const int n_int = cublas_int(n, "fig8");
        device_buffer<double> x1(static_cast<std::size_t>(n)), x2(x1.size()), y(x1.size());
        device_buffer<double> result(2);
        device_buffer<double> ws = dot_workspace(n, 2);
        {
            std::vector<double> staging;
            fill_pattern(x1.data(), n, 1, staging);
            fill_pattern(x2.data(), n, 2, staging);
            fill_pattern(y.data(), n, 0, staging);
            KBENCH_CUDA_CHECK(cudaDeviceSynchronize());
        }
        const std::vector<long double> ref{pattern_dot(1, 0, n), pattern_dot(2, 0, n)};
        const auto check1 = [&] { return max_relative_error(results_to_host(result, 1), ref, 1); };
        const auto check2 = [&] { return max_relative_error(results_to_host(result, 2), ref, 2); };
        const double* xs[2] = {x1.data(), x2.data()};
        const double* ys[2] = {y.data(), y.data()};
        const models::Traffic dot1 = blas::dot_traffic(n, value_bytes);
        const models::Traffic mdot1 = blas::mdot_traffic(n, 1, 2, value_bytes);
        const models::Traffic mdot2 =
            blas::mdot_traffic(n, 2, blas::mdot_vectors_read(2, xs, ys), value_bytes);
        const double f1 = 2.0 * static_cast<double>(n);

        doc["benchmarks"].push_back(measure_point(
            {"fig8", "left", "cublas_dot", n, 1, f1, dot1.bytes_read, dot1.bytes_written}, [&] {
                KBENCH_CUBLAS_CHECK(cublasDdot(b.blas, n_int, x1.data(), 1, y.data(), 1,
                                               result.data()));
            }, check1, b.stream, Clock::events, o, progress, ++index, total));
        doc["benchmarks"].push_back(measure_point(
            {"fig8", "left", "mdot", n, 1, f1, mdot1.bytes_read, mdot1.bytes_written}, [&] {
                blas::mdot(n, 1, xs, ys, result.data(), ws.data(), ws.bytes(), b.stream);
            }, check1, b.stream, Clock::events, o, progress, ++index, total));
        doc["benchmarks"].push_back(measure_point(
            {"fig8", "left", "cublas_dot_pair", n, 2, 2 * f1, 2 * dot1.bytes_read,
             2 * dot1.bytes_written}, [&] {
                KBENCH_CUBLAS_CHECK(cublasDdot(b.blas, n_int, x1.data(), 1, y.data(), 1,
                                               result.data()));
                KBENCH_CUBLAS_CHECK(cublasDdot(b.blas, n_int, x2.data(), 1, y.data(), 1,
                                               result.data() + 1));
            }, check2, b.stream, Clock::events, o, progress, ++index, total));
        doc["benchmarks"].push_back(measure_point(
            {"fig8", "left", "mdot_pair", n, 2, 2 * f1, mdot2.bytes_read, mdot2.bytes_written},
            [&] { blas::mdot(n, 2, xs, ys, result.data(), ws.data(), ws.bytes(), b.stream); },
            check2, b.stream, Clock::events, o, progress, ++index, total));
    }
    for (const std::int64_t n : right_ns)
        time_shared_y(doc, "fig8", "right", n, right_ks, mdgm_call | gemv_call, b, one_zero, o,
                      progress, index, total);
    return doc;
}

}  // namespace kbench::harness
