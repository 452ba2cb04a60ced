// yamazaki2014 Sec. V, Fig. 10: TSQR quality ||I - Q^T Q|| over kappa, each method on the GPU and
// the CPU, and its expected order; see harness/studies/yamazaki2014/bench_tall_skinny.hpp.
#include "harness/studies/yamazaki2014/bench_tall_skinny.hpp"
#include "harness/studies/yamazaki2014/bench_tall_skinny_common.hpp"

#include "harness/core/progress.hpp"
#include "kernels/base/cuda_check.hpp"
#include "kernels/base/device_buffer.hpp"
#include "solvers/orthogonalization/tsqr_gpu.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace kbench::harness {

using namespace tall_skinny_bench;

// ---- Public model ---------------------------------------------------------------------------

const char* tsqr_expected_order(ortho::TsqrMethod method)
{
    switch (method) {
    case ortho::TsqrMethod::mgs: return "eps kappa";
    case ortho::TsqrMethod::cgs:
    case ortho::TsqrMethod::cholqr:
    case ortho::TsqrMethod::svqr: return "eps kappa^2";
    case ortho::TsqrMethod::cgs2:
    case ortho::TsqrMethod::cholqr2:
    case ortho::TsqrMethod::caqr:
    case ortho::TsqrMethod::shifted_cholqr3: return "eps";
    }
    return "unknown";
}

namespace {

bool all_finite(const std::vector<double>& v)
{
    return std::all_of(v.begin(), v.end(), [](double x) { return std::isfinite(x); });
}

// ---- Fig. 10 ----------------------------------------------------------------------------------

const std::vector<double> quality_kappas{1e1, 1e3, 1e5, 1e7, 1e9, 1e11, 1e13, 1e15};
constexpr std::uint64_t quality_seed = 2014;  // the same U and W for every kappa

/// 1e7 -> "1e7" (kappa in names and progress lines).
std::string kappa_label(double kappa)
{
    const long e = std::lround(std::log10(kappa));
    return std::pow(10.0, static_cast<double>(e)) == kappa ? fmt::format("1e{}", e)
                                                           : fmt::format("{:g}", kappa);
}

/// One Fig. 10 entry; Q and R are the factors (host), V the input block.
nlohmann::json quality_entry(ortho::TsqrMethod method, const char* device, double kappa,
                             const ortho::TsqrOutcome& outcome, const std::vector<double>& V,
                             const std::vector<double>& Q, const std::vector<double>& R)
{
    const std::int64_t n = static_cast<std::int64_t>(V.size()) / tall_skinny_columns;
    const int k = tall_skinny_columns;
    nlohmann::json orthogonality = nullptr, residual = nullptr;
    if (all_finite(Q) && all_finite(R)) {
        const ortho::TsqrQuality q =
            ortho::tsqr_quality(n, k, V.data(), n, Q.data(), n, R.data(), k);
        orthogonality = finite_or_null(q.orthogonality);
        residual = finite_or_null(q.residual);
    }
    return {{"name", fmt::format("fig10/{}/{}/kappa={}", ortho::to_string(method), device,
                                 kappa_label(kappa))},
            {"figure", "fig10"},
            {"method", ortho::to_string(method)},
            {"device", device},
            {"kappa", kappa},
            {"n", n},
            {"k", k},
            {"status", ortho::to_string(outcome.status)},
            {"failed_column", outcome.column},
            {"detail", outcome.detail},
            {"orthogonality", orthogonality},
            {"residual", residual},
            {"expected_order", tsqr_expected_order(method)}};
}

}  // namespace

nlohmann::json run_tsqr_quality_study(const StudyRun& run)
{
    const std::int64_t n = run.options.quick ? tsqr_quality_rows_quick : tsqr_quality_rows;
    const int k = tall_skinny_columns;
    nlohmann::json orders = nlohmann::json::object();
    for (const ortho::TsqrMethod m : ortho::tsqr_methods())
        orders[ortho::to_string(m)] = tsqr_expected_order(m);
    nlohmann::json doc = new_document(run, "tsqr_quality", {
        {"figure", "yamazaki2014 Sec. V-B/E, Fig. 10: ||I - Q^T Q||_2 of each TSQR method vs the "
                   "condition number kappa of V"},
        {"n", n}, {"k", k}, {"kappas", quality_kappas}, {"seed", quality_seed},
        {"blocks", "ortho::conditioned_block: V = U diag(s) W^T, U and W from Householder QR of "
                   "Gaussian matrices (std::mt19937_64, one seed for every kappa), "
                   "s_j = kappa^(-j/(k-1))"},
        {"gpu", "ortho::tsqr on the device (CAQR: default block_rows, caqr_default_block_rows)"},
        {"cpu", "ortho::reference::tsqr (Eigen), the same block"},
        {"orthogonality", "||I - Q^T Q||_2, in double on the host (ortho::tsqr_quality)"},
        {"residual", "||V - Q R||_F / ||V||_F"},
        {"failures", "status != ok: the measures of the partial Q, R are still recorded when "
                     "finite, else null"},
        {"eps", std::numeric_limits<double>::epsilon()},
        {"expected_order", orders}});

    const Gpu gpu;
    const ortho::GpuHandles h = gpu.handles();
    std::size_t ws_bytes = 0;
    for (const ortho::TsqrMethod m : ortho::tsqr_methods())
        ws_bytes = std::max(ws_bytes, ortho::tsqr_workspace_bytes(m, h, n, k, value_bytes));
    device_buffer<double> ws(ws_bytes / sizeof(double) + 1);
    const std::size_t elements = static_cast<std::size_t>(n) * k;
    device_buffer<double> V0(elements), V(elements);
    std::vector<double> Q(elements), R(static_cast<std::size_t>(k) * k);

    const Progress progress;
    const std::size_t total = quality_kappas.size() * ortho::tsqr_methods().size() * 2;
    std::size_t index = 0;
    for (const double kappa : quality_kappas) {
        const std::vector<double> block = ortho::conditioned_block(n, k, kappa, quality_seed);
        V0.copy_from_host(block.data(), block.size());
        for (const ortho::TsqrMethod m : ortho::tsqr_methods()) {
            progress.report(++index, total, fmt::format("fig10/{}/gpu/kappa={}",
                                                        ortho::to_string(m), kappa_label(kappa)));
            KBENCH_CUDA_CHECK(cudaMemcpyAsync(V.data(), V0.data(), V.bytes(),
                                              cudaMemcpyDeviceToDevice, gpu.stream));
            std::fill(R.begin(), R.end(), 0.0);
            const ortho::TsqrOutcome on_gpu = ortho::tsqr<double>(
                m, h, n, k, V.data(), n, R.data(), k, ws.data(), ws.bytes());
            gpu.stream.synchronize();
            Q = V.to_host();
            doc["benchmarks"].push_back(quality_entry(m, "gpu", kappa, on_gpu, block, Q, R));

            progress.report(++index, total, fmt::format("fig10/{}/cpu/kappa={}",
                                                        ortho::to_string(m), kappa_label(kappa)));
            Q = block;
            std::fill(R.begin(), R.end(), 0.0);
            const ortho::TsqrOutcome on_cpu =
                ortho::reference::tsqr<double>(m, n, k, Q.data(), n, R.data(), k);
            doc["benchmarks"].push_back(quality_entry(m, "cpu", kappa, on_cpu, block, Q, R));
        }
    }
    return doc;
}

}  // namespace kbench::harness
