// anzt2015 Fig. 9 (run_p_update_study): the BiCGSTAB p update as three cuBLAS calls against the
// fused kbench::bicgstab::p_update, each point measured by measure_bicgstab_kernel_point
// (harness/bench/bench_bicgstab_kernels.hpp, the measurement of `kbench bench bicgstab-kernels`);
// see harness/studies/anzt2015/bench_vector_kernels.hpp.
#include "harness/studies/anzt2015/bench_vector_kernels.hpp"
#include "harness/studies/anzt2015/bench_vector_kernels_common.hpp"

#include "harness/bench/bench_bicgstab_kernels.hpp"

#include <cublas_v2.h>

#include <cstdint>
#include <vector>

namespace kbench::harness {

using namespace vector_kernels_bench;

nlohmann::json run_p_update_study(const StudyRun& run)
{
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
        {"measurement", "harness/bench/bench_bicgstab_kernels.hpp, measure_bicgstab_kernel_point: "
                        "the points bicgstab-kernels/<variant>/double/n=<n> of `kbench bench "
                        "bicgstab-kernels`; max_rel_error against bicgstab::reference::p_update"},
        {"timing", "CUDA events around the loop; p keeps being updated across the loop "
                   "(p tends to 2 r - v, bounded)"}});
    const RunOptions& o = run.options;
    const std::vector<std::int64_t> ns = sweep(run, log_spaced(3.0, 8.0, 11), quick_max_length, 4);
    const Progress progress;
    const std::size_t total = ns.size() * 2;
    std::size_t index = 0;
    BlasOnStream b(CUBLAS_POINTER_MODE_HOST);
    for (const std::int64_t n : ns) {
        BicgstabKernelData<double> data(n, "fig9");
        for (const BicgstabKernelVariant v :
             {BicgstabKernelVariant::cublas_p_update, BicgstabKernelVariant::p_update}) {
            progress.report(++index, total,
                            fmt::format("fig9/{}/double/n={}/k=1", to_string(v), n));
            const PointMeasurement m = measure_bicgstab_kernel_point(v, data, b.blas, b.stream, o);
            doc["benchmarks"].push_back(make_entry({"fig9", "", to_string(v), n, 1,
                                                    m.traffic.flops, m.traffic.bytes_read,
                                                    m.traffic.bytes_written},
                                                   m.timing, o.repetitions, m.max_rel_error));
        }
    }
    return doc;
}

}  // namespace kbench::harness
