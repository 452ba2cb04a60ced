// anzt2015 Fig. 10 (measure_dot_sequence, run_dot_savings_study): the dot products of one
// BiCGSTAB iteration, five cuBLAS calls against three mdot calls, and the fit of the savings;
// see harness/studies/anzt2015/bench_vector_kernels.hpp.
#include "harness/studies/anzt2015/bench_vector_kernels.hpp"
#include "harness/studies/anzt2015/bench_vector_kernels_common.hpp"

#include "kernels/dot.hpp"
#include "models/bicgstab_model.hpp"

#include <cublas_v2.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <stdexcept>
#include <utility>
#include <vector>

namespace kbench::harness {

using namespace vector_kernels_bench;

namespace {

// ---- Fig. 10: the dot sequence of one BiCGSTAB iteration ------------------------------------

/// One Fig. 10 point with its bookkeeping (measure_dot_sequence keeps the first four fields).
struct SequencePoint {
    DotSequenceTiming timing;
    PointTiming cublas, merged;
    double cublas_error = 0.0, merged_error = 0.0;
};

/// The checks of measure_dot_sequence's arguments (before any CUDA call).
void check_sequence_args(const std::vector<std::int64_t>& ns, int repetitions, double min_time)
{
    constexpr const char* who = "kbench::harness::measure_dot_sequence";
    for (const std::int64_t n : ns) {
        if (n < 1)
            throw std::invalid_argument(fmt::format("{}: n = {} in ns, expected n >= 1", who, n));
        cublas_int(n, who);
    }
    if (repetitions < 1)
        throw std::invalid_argument(
            fmt::format("{}: repetitions = {}, expected >= 1", who, repetitions));
    if (!(min_time >= 0.0))
        throw std::invalid_argument(
            fmt::format("{}: min_time = {} seconds, expected >= 0", who, min_time));
}

// The five vectors of the sequence and their patterns.
enum SequenceVector : int { r_hat = 0, vv = 1, tt = 2, ss = 3, rr = 4 };
// The five dot products in the order of the reference solver (Fig. 1 right: lines 8, 12, 13,
// then 2 of the next iteration and the residual norm): r_hat.v, t.s, t.t, r_hat.r, r.r.
constexpr std::array<std::pair<int, int>, 5> sequence_dots{
    {{r_hat, vv}, {tt, ss}, {tt, tt}, {r_hat, rr}, {rr, rr}}};

/// Byte and flop models of the cuBLAS sequence for vectors of n doubles, the bytes as the calls
/// move them: a dot of a vector with itself (t.t, r.r) reads it once, so 8n reads in all (a
/// count of 2n per dot, 10n, put a hot-cache run above the read bandwidth).
models::Traffic cublas_sequence_traffic(std::int64_t n)
{
    const models::Traffic one = blas::dot_traffic(n, value_bytes);
    models::Traffic all{0.0, 0.0, 0.0};
    for (const auto& [x, y] : sequence_dots) {
        all.bytes_read += x == y ? one.bytes_read / 2 : one.bytes_read;
        all.bytes_written += one.bytes_written;
        all.flops += one.flops;
    }
    return all;
}

std::vector<SequencePoint> run_sequences(const std::vector<std::int64_t>& ns, int repetitions,
                                         double min_time, const Progress* progress)
{
    check_sequence_args(ns, repetitions, min_time);
    std::vector<SequencePoint> out;
    if (ns.empty()) return out;
    BlasOnStream b(CUBLAS_POINTER_MODE_HOST);
    pinned_value<std::array<double, 5>> host_results;
    std::size_t index = 0;
    for (const std::int64_t n : ns) {
        const int n_int = static_cast<int>(n);
        std::array<device_buffer<double>, 5> vec;
        {
            std::vector<double> staging;
            for (int j = 0; j < 5; ++j) {
                vec[j] = device_buffer<double>(static_cast<std::size_t>(n));
                fill_pattern(vec[j].data(), n, j, staging);
            }
            KBENCH_CUDA_CHECK(cudaDeviceSynchronize());
        }
        std::array<long double, 5> ref{};
        for (std::size_t d = 0; d < sequence_dots.size(); ++d)
            ref[d] = pattern_dot(sequence_dots[d].first, sequence_dots[d].second, n);
        const auto error_of = [&](const std::array<double, 5>& got) {
            double worst = 0.0;
            for (std::size_t d = 0; d < 5; ++d)
                worst = std::max(worst, relative_error(got[d], ref[d]));
            return worst;
        };
        const double* p[5] = {vec[0].data(), vec[1].data(), vec[2].data(), vec[3].data(),
                              vec[4].data()};
        SequencePoint point;
        point.timing.n = n;

        // cuBLAS: 5 dots, each result returned to the host (host pointer mode synchronizes).
        std::array<double, 5> cublas_results{};
        const auto cublas_sequence = [&] {
            for (std::size_t d = 0; d < 5; ++d)
                KBENCH_CUBLAS_CHECK(cublasDdot(b.blas, n_int, p[sequence_dots[d].first], 1,
                                               p[sequence_dots[d].second], 1, &cublas_results[d]));
        };
        const auto report = [&](const char* variant) {
            if (progress != nullptr)
                progress->report(++index, 2 * ns.size(),
                                 fmt::format("fig10/{}/double/n={}/k=5", variant, n));
        };
        report("cublas_sequence");
        cublas_sequence();
        point.cublas_error = error_of(cublas_results);
        point.cublas = time_point(cublas_sequence, b.stream, Clock::host, repetitions, min_time);

        // Merged: r_hat.v; t.s, t.t (sharing t); r_hat.r, r.r (sharing r); one copy to the host.
        device_buffer<double> result(5);
        blas::DotWorkspace ws = dot_workspace(n, 2);  // the three mdot calls' own workspace
        const double* x1[1] = {p[r_hat]};
        const double* y1[1] = {p[vv]};
        const double* x2[2] = {p[tt], p[tt]};
        const double* y2[2] = {p[ss], p[tt]};
        const double* x3[2] = {p[r_hat], p[rr]};
        const double* y3[2] = {p[rr], p[rr]};
        const auto merged_sequence = [&] {
            blas::mdot(n, 1, x1, y1, result.data(), ws.data(), ws.bytes(), b.stream);
            blas::mdot(n, 2, x2, y2, result.data() + 1, ws.data(), ws.bytes(), b.stream);
            blas::mdot(n, 2, x3, y3, result.data() + 3, ws.data(), ws.bytes(), b.stream);
            KBENCH_CUDA_CHECK(cudaMemcpyAsync(host_results.get(), result.data(),
                                              5 * sizeof(double), cudaMemcpyDeviceToHost,
                                              b.stream));
            KBENCH_CUDA_CHECK(cudaStreamSynchronize(b.stream));
        };
        report("merged_sequence");
        merged_sequence();
        point.merged_error = error_of(*host_results);
        point.merged = time_point(merged_sequence, b.stream, Clock::host, repetitions, min_time);

        point.timing.cublas_seconds = point.cublas.seconds;
        point.timing.merged_seconds = point.merged.seconds;
        point.timing.savings = 1.0 - point.merged.seconds / point.cublas.seconds;
        out.push_back(point);
    }
    return out;
}

}  // namespace

std::vector<DotSequenceTiming> measure_dot_sequence(const std::vector<std::int64_t>& ns,
                                                    int repetitions, double min_time)
{
    std::vector<DotSequenceTiming> out;
    for (const SequencePoint& p : run_sequences(ns, repetitions, min_time, nullptr))
        out.push_back(p.timing);
    return out;
}

nlohmann::json run_dot_savings_study(const StudyRun& run)
{
    nlohmann::json doc = new_document(run, {
        {"figure", "anzt2015 Fig. 10: the dot products of one BiCGSTAB iteration, r_hat.v, t.s, "
                   "t.t, r_hat.r, r.r"},
        {"cublas_sequence", "5 cublasDdot calls in host pointer mode (each returns its value to "
                            "the host)"},
        {"merged_sequence", "3 mdot calls (r_hat.v; t.s, t.t sharing t; r_hat.r, r.r sharing r), "
                            "results in device memory, then one cudaMemcpyAsync of the 5 values "
                            "to pinned host memory and a stream synchronization"},
        {"flops", "10 n for both (5 dot products of 2n)"},
        {"bytes", "cublas_sequence: 8n reads (t.t and r.r read one vector) + 5 writes; merged_sequence: 6n reads (each mdot "
                  "call reads its distinct vectors once) + 5 writes; 8 bytes per double"},
        {"savings", "1 - merged_sequence seconds / cublas_sequence seconds (fraction)"},
        {"timing", "host steady clock around the loop (both sequences end on the host)"}});
    const RunOptions& o = run.options;
    const std::vector<std::int64_t> ns = sweep(run, log_spaced(3.0, 8.0, 16), quick_max_length, 6);
    const Progress progress;
    const std::vector<SequencePoint> points =
        run_sequences(ns, o.repetitions, o.min_time, &progress);

    std::vector<std::pair<double, double>> n_and_savings;
    for (const SequencePoint& sp : points) {
        const std::int64_t n = sp.timing.n;
        const models::Traffic cub = cublas_sequence_traffic(n);
        // Each mdot call reads its distinct vectors once: 2 + 2 + 2 vectors of n.
        const double merged_read = 6.0 * static_cast<double>(n) * value_bytes;
        const double merged_written = 5.0 * value_bytes;
        doc["benchmarks"].push_back(make_entry(
            {"fig10", "", "cublas_sequence", n, 5, cub.flops, cub.bytes_read, cub.bytes_written},
            sp.cublas, o.repetitions, sp.cublas_error));
        nlohmann::json merged = make_entry(
            {"fig10", "", "merged_sequence", n, 5, cub.flops, merged_read, merged_written},
            sp.merged, o.repetitions, sp.merged_error);
        merged["savings"] = sp.timing.savings;
        doc["benchmarks"].push_back(std::move(merged));
        n_and_savings.emplace_back(static_cast<double>(n), sp.timing.savings);
    }

    const models::DotSavingsFit paper{};
    nlohmann::json fit = {{"paper", {{"a", paper.a}, {"b", paper.b}, {"c", paper.c}}},
                          {"units", "F(n) = (1 / (a n + b) + c) / 100, a fraction; n in "
                                    "elements"}};
    try {
        const models::DotSavingsFit refit = models::fit_dot_savings(n_and_savings);
        fit["refit"] = {{"a", refit.a}, {"b", refit.b}, {"c", refit.c}};
    } catch (const std::invalid_argument& e) {
        fit["refit"] = {{"error", e.what()}};
    }
    doc["context"]["kbench"]["dot_savings_fit"] = std::move(fit);
    return doc;
}

}  // namespace kbench::harness
