// `kbench bench spmm`; see harness/bench/bench_spmm.hpp.
#include "harness/bench/bench_spmm.hpp"

#include "harness/core/progress.hpp"
#include "harness/core/registry.hpp"
#include "kernels/base/cuda_check.hpp"
#include "kernels/base/device_buffer.hpp"
#include "kernels/machine_probe.hpp"
#include "kernels/spmm.hpp"
#include "kernels/spmv_operator.hpp"
#include "matrices/matrix_set.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <type_traits>

namespace kbench::harness {

namespace {

const char* const family = "spmm";

/// x_ij = 1 + ((i + 7 j) mod 13) / 16 for an m x k column-major block.
template <typename T>
std::vector<T> make_block(index_type m, int k)
{
    std::vector<T> x(static_cast<std::size_t>(m) * static_cast<std::size_t>(k));
    for (int j = 0; j < k; ++j)
        for (index_type i = 0; i < m; ++i)
            x[static_cast<std::size_t>(j) * m + i] =
                T(1) + static_cast<T>((i + 7 * j) % 13) / T(16);
    return x;
}

/// Whether the filter selects any k of (kernel, precision, matrix); the largest such k (0: none).
int largest_selected_k(const SpmmBenchOptions& o, const std::optional<std::regex>& filter,
                       const std::string& kernel, const std::string& precision,
                       const std::string& matrix)
{
    int k_max = 0;
    for (const int k : o.kernel.ks)
        if (selected(filter, spmm_benchmark_name(kernel, precision, matrix, k)))
            k_max = std::max(k_max, k);
    return k_max;
}

/// What one (matrix, precision) of the run shares.
struct MatrixRun {
    const SpmmBenchOptions& o;
    const MachineProfile* machine;
    const std::optional<std::regex>& filter;
    const models::SpmvMachine& figures;  // of the auto policy (the operator's model)
    L2Flush* flush;
    nlohmann::json& doc;
    const Progress& progress;
    std::size_t& index;
    std::size_t total;
};

template <typename T>
void run_matrix(MatrixRun& run, const MatrixEntry& entry, const Csr<double>& a64,
                const std::string& precision)
{
    const SpmmBenchOptions& o = run.o;
    std::vector<std::string> kernels;
    int k_max = 0;
    for (const std::string& kernel : o.kernels) {
        const int k = largest_selected_k(o, run.filter, kernel, precision, entry.name);
        if (k > 0) kernels.push_back(kernel);
        k_max = std::max(k_max, k);
    }
    if (kernels.empty()) return;
    std::optional<Csr<T>> cast;
    if constexpr (!std::is_same_v<T, double>) cast = a64.template cast<T>();
    const Csr<T>& a = [&]() -> const Csr<T>& {
        if constexpr (std::is_same_v<T, double>) return a64;
        else return *cast;
    }();
    const index_type n = a.num_rows, m = a.num_cols;
    const std::vector<T> x = make_block<T>(m, k_max);
    std::vector<T> ref(static_cast<std::size_t>(n) * k_max);
    spmm::reference::csr(a.view(), T(1), x.data(), m, T(0), ref.data(), n, k_max);
    device_buffer<T> dx(x), dy(ref.size());
    cuda_stream stream;
    const double tolerance = bench_tolerance(precision);
    for (const std::string& kernel : kernels) {
        spmv::Policy policy;
        policy.kernel = kernel;
        spmv::SpmvOperator<T> op(a, policy, run.figures);
        for (const int k : o.kernel.ks) {
            KernelPoint p{family, kernel, precision, n, k, {}, nlohmann::json::object(),
                          entry.name};
            const std::string name = point_name(p);
            if (!selected(run.filter, name)) continue;
            run.progress.report(++run.index, run.total, name);
            const std::int64_t passes = spmm_matrix_passes(op.choice().kernel, k);
            p.traffic = models::spmm_traffic(op.traffic(false), n, m, k, passes,
                                             static_cast<int>(sizeof(T)));
            p.params = spmv::choice_params(op.choice());
            p.params["spmv_kernel"] = spmv::kernel_name(op.choice().kernel);
            p.params["passes"] = passes;
            p.params["nnz"] = a.nnz();
            const auto call = [&] {
                op.apply_block(T(1), dx.data(), m, T(0), dy.data(), n, k, stream);
            };
            const std::size_t count = static_cast<std::size_t>(n) * k;
            KBENCH_CUDA_CHECK(cudaMemsetAsync(dy.data(), 0xff, count * sizeof(T), stream));
            profiled_warm_up(name, call);
            KBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
            std::vector<T> got(count);
            KBENCH_CUDA_CHECK(
                cudaMemcpy(got.data(), dy.data(), count * sizeof(T), cudaMemcpyDeviceToHost));
            PointMeasurement pm;
            pm.traffic = p.traffic;
            pm.max_rel_error =
                relative_max_error(got, ref, [count](std::size_t i) { return i < count; });
            if (pm.max_rel_error <= tolerance) {
                pm.timing = time_point(call, stream, Clock::events, o.kernel.run.repetitions,
                                       o.kernel.run.min_time, run.flush);
                pm.timed = true;
            }
            run.doc["benchmarks"].push_back(
                measurement_entry(p, pm, o.kernel.run.repetitions, tolerance, run.machine));
        }
    }
}

}  // namespace

const std::vector<std::string>& spmm_kernels()
{
    static const std::vector<std::string> k{"csr_vector", "sellp", "cusparse_csr",
                                            "cusparse_sell", "auto"};
    return k;
}

std::vector<std::string> parse_spmm_kernels(const std::string& list)
{
    if (list.empty()) return spmm_kernels();
    std::vector<std::string> out;
    std::stringstream in(list);
    for (std::string k; std::getline(in, k, ',');) {
        if (std::find(spmm_kernels().begin(), spmm_kernels().end(), k) == spmm_kernels().end())
            throw std::invalid_argument(fmt::format(
                "--kernels: unknown SpMM kernel '{}', expected a comma-separated list of {}", k,
                join(spmm_kernels())));
        if (std::find(out.begin(), out.end(), k) == out.end()) out.push_back(k);
    }
    return out;
}

int spmm_bench_max_k() { return 64; }

std::int64_t spmm_matrix_passes(spmv::Kernel kernel, int k)
{
    switch (kernel) {
    case spmv::Kernel::cusparse_csr:
    case spmv::Kernel::cusparse_csr_alg2: return 1;
    case spmv::Kernel::cusparse_sell: return k;
    default: return models::spmm_passes(k);
    }
}

std::string spmm_benchmark_name(const std::string& kernel, const std::string& precision,
                                const std::string& matrix, int k)
{
    return fmt::format("{}/{}/{}/{}/k={}", family, kernel, precision, matrix, k);
}

std::vector<std::string> spmm_benchmark_names(const SpmmBenchOptions& o)
{
    validate(o.kernel, 0, spmm_bench_max_k());
    for (const std::string& k : o.kernels) parse_spmm_kernels(k);
    const MatrixSet set = load_source_set(o.source);
    const std::optional<std::regex> filter = compile_filter(o.kernel.filter);
    const std::vector<std::string> kernels = o.kernels.empty() ? spmm_kernels() : o.kernels;
    std::vector<std::string> names;
    for (const MatrixEntry& e : set.matrices)
        for (const std::string& precision : o.kernel.precisions)
            for (const std::string& kernel : kernels)
                for (const int k : o.kernel.ks) {
                    std::string name = spmm_benchmark_name(kernel, precision, e.name, k);
                    if (selected(filter, name)) names.push_back(std::move(name));
                }
    return names;
}

nlohmann::json run_spmm_bench(const SpmmBenchOptions& options, const MachineProfile* machine)
{
    const std::size_t total = spmm_benchmark_names(options).size();  // validates
    SpmmBenchOptions o = options;
    if (o.kernels.empty()) o.kernels = spmm_kernels();
    const std::optional<std::regex> filter = compile_filter(o.kernel.filter);
    const MatrixSet set = load_source_set(o.source);
    nlohmann::json doc = kernel_bench_document(
        "bench/spmm", family, o.kernel, machine,
        {{"family", "SpMM Y = A X (kernels/spmm.hpp) through spmv::SpmvOperator::apply_block, "
                    "the block product of block GMRES (boman2022) and the matrix powers kernel "
                    "(yamazaki2014), vs cuSPARSE SpMM (CSR ALG1) and per-column cuSPARSE SpMV "
                    "(sliced ELL)"},
         {"kernels", o.kernels},
         {"bytes", "models::spmm_traffic: the matrix once per pass (spmm_passes(k) = k/4 + "
                   "[k mod 4 >= 2] + k mod 2 for csr_vector and sellp, 1 for cusparse_csr, k "
                   "for cusparse_sell), X and Y once per column"},
         {"flops", "2 nnz k"},
         {"values", "x_ij = 1 + ((i + 7 j) mod 13) / 16, alpha = 1, beta = 0"},
         {"max_rel_error", "max |Y - ref| / max |ref| over the k columns, ref by "
                           "spmm::reference::csr"},
         {"timing", "CUDA events"},
         {"cache", o.kernel.run.cold ? "cold: L2 flushed before every timed call" : "hot"}},
        o.source, set);
    std::unique_ptr<L2Flush> flush;
    if (o.kernel.run.cold) flush = std::make_unique<L2Flush>();
    const Progress progress;
    std::size_t index = 0;
    const models::SpmvMachine figures = spmv_figures(machine);
    MatrixRun run{o, machine, filter, figures, flush.get(), doc, progress, index, total};
    for (const MatrixEntry& entry : set.matrices) {
        bool any = false;
        for (const std::string& precision : o.kernel.precisions)
            for (const std::string& kernel : o.kernels)
                any = any || largest_selected_k(o, filter, kernel, precision, entry.name) > 0;
        if (!any) continue;
        const Csr<double> a = build_matrix(entry);
        doc["context"]["kbench"]["matrices"][entry.name] =
            matrix_context(entry, a);
        for_each_precision(o.kernel, [&](auto zero, const std::string& precision) {
            run_matrix<decltype(zero)>(run, entry, a, precision);
        });
    }
    return doc;
}

}  // namespace kbench::harness
