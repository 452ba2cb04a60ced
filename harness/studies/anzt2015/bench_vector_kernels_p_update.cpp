// anzt2015 Fig. 9 (run_p_update_study): the BiCGSTAB p update as three cuBLAS calls against the
// fused kbench::bicgstab::p_update; see harness/studies/anzt2015/bench_vector_kernels.hpp.
#include "harness/studies/anzt2015/bench_vector_kernels.hpp"
#include "harness/studies/anzt2015/bench_vector_kernels_common.hpp"

#include "kernels/bicgstab_kernels.hpp"
#include "models/bicgstab_model.hpp"
#include "models/spmv_traffic.hpp"

#include <cublas_v2.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace kbench::harness {

using namespace vector_kernels_bench;

nlohmann::json run_p_update_study(const StudyRun& run)
{
    // Bytes per anzt2015 Table 1 (models/bicgstab_model.hpp): the three reference calls that the
    // merged p_update absorbs (lines 4-6), and the merged kernel itself.
    const auto table_bytes = [](models::BicgstabVariant variant, std::int64_t n) {
        models::Traffic t;
        for (const models::KernelTraffic& k : models::kernels(variant)) {
            if (k.merged_into != "p_update") continue;
            const double nn = static_cast<double>(n);
            t.bytes_read += (k.reads_n * nn + k.scalar_reads) * value_bytes;
            t.bytes_written += (k.writes_n * nn + k.scalar_writes) * value_bytes;
        }
        return t;
    };
    nlohmann::json doc = new_document(run, {
        {"figure", "anzt2015 Fig. 9: p = r + beta (p - omega v), three cuBLAS calls vs the fused "
                   "kbench::bicgstab::p_update"},
        {"flops", "4 n for both variants (the algorithm's: p - omega v, times beta, plus r)"},
        {"bytes", "anzt2015 Table 1 via models::kernels: cublas_p_update (scal p = beta p; axpy "
                  "p += -beta omega v; axpy p += r) (5n + 3) reads + 3n writes, p_update "
                  "(3n + 4) reads + n writes; 8 bytes per double"},
        {"scalars", "beta = 0.5 (rho = 1, rho_old = 2, alpha = omega = 1), omega = 1; cuBLAS "
                    "takes them from the host (host pointer mode), p_update from DeviceScalars "
                    "in device memory"},
        {"timing", "CUDA events around the loop; p keeps being updated across the loop "
                   "(p tends to 2 r - v, bounded)"}});
    const RunOptions& o = run.options;
    const std::vector<std::int64_t> ns = sweep(run, log_spaced(3.0, 8.0, 11), quick_max_length, 4);
    const Progress progress;
    const std::size_t total = ns.size() * 2;
    std::size_t index = 0;

    bicgstab::DeviceScalars<double> host_sc;
    host_sc.rho = 1.0;
    host_sc.rho_old = 2.0;
    host_sc.alpha = 1.0;
    host_sc.omega = 1.0;
    const double beta = (host_sc.rho / host_sc.rho_old) * (host_sc.alpha / host_sc.omega);
    const double omega = host_sc.omega;
    const double minus_beta_omega = -beta * omega, one = 1.0;
    device_buffer<bicgstab::DeviceScalars<double>> sc(1);
    sc.copy_from_host(&host_sc, 1);
    BlasOnStream b(CUBLAS_POINTER_MODE_HOST);

    constexpr int r_pattern = 0, v_pattern = 1, p_pattern = 2;
    for (const std::int64_t n : ns) {
        const int n_int = cublas_int(n, "fig9");
        device_buffer<double> r(static_cast<std::size_t>(n)), v(r.size()), p(r.size());
        std::vector<double> p0;
        {
            std::vector<double> staging;
            fill_pattern(r.data(), n, r_pattern, staging);
            fill_pattern(v.data(), n, v_pattern, staging);
            fill_pattern(p.data(), n, p_pattern, p0);
            KBENCH_CUDA_CHECK(cudaDeviceSynchronize());
        }
        // Check of one update from p0: max_i |p_i - ref_i| / max_i |ref_i|, ref in long double.
        // Leaves p = p0 for the next variant's warm-up.
        const auto check = [&] {
            const std::vector<double> got = p.to_host();
            long double worst = 0.0L, scale = 0.0L;
            for (std::int64_t i = 0; i < n; ++i) {
                const long double ref =
                    pattern_value(r_pattern, i) +
                    static_cast<long double>(beta) *
                        (static_cast<long double>(p0[i]) - static_cast<long double>(omega) *
                                                               pattern_value(v_pattern, i));
                worst = std::max(worst, std::fabs(got[i] - ref));
                scale = std::max(scale, std::fabs(ref));
            }
            p.copy_from_host(p0.data(), p0.size());
            return static_cast<double>(scale > 0.0L ? worst / scale : worst);
        };
        const double flops = 4.0 * static_cast<double>(n);
        const models::Traffic t_ref = table_bytes(models::BicgstabVariant::reference, n);
        const models::Traffic t_fused = table_bytes(models::BicgstabVariant::merged, n);
        doc["benchmarks"].push_back(measure_point(
            {"fig9", "", "cublas_p_update", n, 1, flops, t_ref.bytes_read, t_ref.bytes_written},
            [&] {
                KBENCH_CUBLAS_CHECK(cublasDscal(b.blas, n_int, &beta, p.data(), 1));
                KBENCH_CUBLAS_CHECK(
                    cublasDaxpy(b.blas, n_int, &minus_beta_omega, v.data(), 1, p.data(), 1));
                KBENCH_CUBLAS_CHECK(cublasDaxpy(b.blas, n_int, &one, r.data(), 1, p.data(), 1));
            }, check, b.stream, Clock::events, o, progress, ++index, total));
        p.copy_from_host(p0.data(), p0.size());
        doc["benchmarks"].push_back(measure_point(
            {"fig9", "", "p_update", n, 1, flops, t_fused.bytes_read, t_fused.bytes_written},
            [&] { bicgstab::p_update(n, r.data(), v.data(), p.data(), sc.data(), b.stream); },
            check, b.stream, Clock::events, o, progress, ++index, total));
    }
    return doc;
}

}  // namespace kbench::harness
