// anzt2015 Table 1: device-memory traffic of one BiCGSTAB iteration, cuBLAS reference (25n reads
// + 9n writes besides the SpMVs as Table 1 counts them; 23n reads as the calls move them) vs
// merged kernels (14n + 4n), measured with Nsight Compute next
// to the model (models/bicgstab_model.hpp). kbench re-runs itself as `kbench solve bicgstab
// --detailed` under ncu, once per form: the detailed run wraps every phase in an NVTX range named
// after its row of the model's kernel table, and ncu's --print-nvtx-rename kernel prefixes each
// profiled kernel's name with its innermost range ("<range>/<kernel>"), so the DRAM bytes of all
// kernels one cuBLAS call or one fused kernel launched add up under that row's name.
//
// Entries (kind "traffic"), one per model row of each form and one per SpMV: form, kernel, role
// (update, reduction, spmv), line (anzt2015 Fig. 1 right; 0 for merged), merged_into,
// model_bytes_read / model_bytes_written (per iteration; for the SpMVs the CSR lower bound of
// models::csr_spmv), table1_bytes_read (the reads anzt2015 Table 1 counts, where they differ
// from the model's), measured_bytes_read / measured_bytes_written (DRAM, per iteration, averaged over the
// profiled iterations) and launches (kernels per iteration under that name).
#include "harness/core/ncu_profile.hpp"
#include "harness/core/registry.hpp"
#include "harness/core/results_json.hpp"
#include "harness/core/study.hpp"
#include "kernels/machine_probe.hpp"
#include "kernels/spmv_operator.hpp"
#include "matrices/matrix_set.hpp"
#include "models/bicgstab_model.hpp"
#include "models/spmv_traffic.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <map>
#include <stdexcept>
#include <unistd.h>

namespace kbench::harness {
namespace {

namespace fs = std::filesystem;

constexpr int profiled_iterations = 3;
constexpr int value_bytes = 8;  // double precision, as anzt2015 Table 1
/// Runs one form's detailed solve under ncu (harness/core/ncu_profile.hpp, the path of `kbench
/// profile`); DRAM bytes summed per NVTX-renamed kernel name.
std::map<std::string, NcuTotals> profile_form(const std::string& form, const StudyRun& run,
                                              const std::string& matrix)
{
    const std::string self = fs::read_symlink("/proc/self/exe").string();
    const std::string json_out =
        (fs::temp_directory_path() / fmt::format("kbench-table1-{}-{}.json", form, getpid()))
            .string();
    NcuRequest request;
    request.nvtx_exclude = {std::string{spmv::machine_probe_range} + "/"};
    request.rename_by_range = true;
    request.metrics = {ncu_dram_read, ncu_dram_write};
    std::vector<std::string> child{
        self, "solve", "bicgstab", "--set", run.source.set, "--forms", form, "--spmv",
        "cusparse_csr", "--precision", "double", "--timing", "--max-iterations",
        std::to_string(profiled_iterations), "--repetitions", "1", "--no-cpu", "--no-machine",
        "--detailed", "--filter", "/" + matrix + "$", "--json", json_out};
    if (!run.source.matrix_dir.empty())
        child.insert(child.end(), {"--matrix-dir", run.source.matrix_dir});
    if (run.source.real) child.push_back("--real");
    if (run.source.quick) child.push_back("--quick");
    const std::vector<NcuKernel> kernels = run_ncu(request, child, "anzt2015/table1");
    fs::remove(json_out);
    std::map<std::string, NcuTotals> by_name;
    // A renamed kernel reads "<innermost NVTX range>/<kernel name>"; phase names have no '/'.
    for (const NcuKernel& k : kernels) by_name[k.name.substr(0, k.name.find('/'))].add(k);
    return by_name;
}

nlohmann::json traffic_entry(const std::string& form, const std::string& kernel,
                             const std::string& role, int line, const std::string& merged_into,
                             nlohmann::json model_read, nlohmann::json model_write,
                             const std::map<std::string, NcuTotals>& measured)
{
    const auto it = measured.find(kernel);
    if (it == measured.end()) {
        std::vector<std::string> seen;
        for (const auto& [name, m] : measured) seen.push_back(name);
        throw std::runtime_error(fmt::format(
            "anzt2015/table1: no profiled kernel is named '{}' in the {} form (ncu named the "
            "kernels: {}); the NVTX rename did not apply or a phase name changed",
            kernel, form, join(seen)));
    }
    const NcuTotals& m = it->second;
    return {{"kind", "traffic"},
            {"name", "traffic/" + form + "/" + kernel},
            {"form", form},
            {"kernel", kernel},
            {"role", role},
            {"line", line},
            {"merged_into", merged_into},
            {"model_bytes_read", std::move(model_read)},
            {"model_bytes_written", std::move(model_write)},
            {"measured_bytes_read", m.bytes_read / profiled_iterations},
            {"measured_bytes_written", m.bytes_written / profiled_iterations},
            {"launches", static_cast<double>(m.kernels) / profiled_iterations}};
}

nlohmann::json run_table1(const StudyRun& run)
{
    const MatrixSet set = load_source_set(run.source);
    if (set.matrices.empty())
        throw std::invalid_argument("anzt2015/table1: matrix set '" + run.source.set +
                                    "' is empty, expected one matrix");
    const MatrixEntry& entry = set.matrices.front();
    nlohmann::json doc =
        make_results_document(kbench_context(run.id, run.source, set, run.machine, false));
    std::int64_t n = 0, nnz = 0;
    for_each_matrix(MatrixSet{set.name, set.description, set.manifest, {entry}},
                    [&](const MatrixEntry& e, const Csr<double>& a, std::size_t, std::size_t) {
                        n = a.num_rows;
                        nnz = a.nnz();
                        doc["context"]["kbench"]["matrices"][e.name] =
                            matrix_context(e, a, spmv::resolve_sellp_params(
                                                     a.view(), SellpParams{0, 0, 0, 0}));
                        doc["context"]["kbench"]["table1"] = {
                            {"matrix", e.name}, {"n", a.num_rows}, {"nnz", a.nnz()},
                            {"precision", "double"}, {"value_bytes", value_bytes},
                            {"iterations_profiled", profiled_iterations},
                            {"spmv", "cusparse_csr"},
                            {"ncu_metrics", {ncu_dram_read, ncu_dram_write}}};
                    });
    const std::pair<const char*, models::BicgstabVariant> forms[] = {
        {"reference", models::BicgstabVariant::reference},
        {"merged", models::BicgstabVariant::merged}};
    for (const auto& [form, variant] : forms) {
        const auto measured = profile_form(form, run, entry.name);
        for (const models::KernelTraffic& k : models::kernels(variant)) {
            const double read = (k.reads_n * double(n) + k.scalar_reads) * value_bytes;
            const double write = (k.writes_n * double(n) + k.scalar_writes) * value_bytes;
            const std::string role = k.role == models::KernelRole::update ? "update" : "reduction";
            nlohmann::json e = traffic_entry(form, std::string{k.name}, role, k.line,
                                             std::string{k.merged_into}, read, write, measured);
            if (k.table1_reads_n() != k.reads_n)
                e["table1_bytes_read"] =
                    (k.table1_reads_n() * double(n) + k.scalar_reads) * value_bytes;
            doc["benchmarks"].push_back(std::move(e));
        }
        // cuSPARSE CSR at its lower bound: values, column indices, row pointers, x once, y out.
        const models::Traffic csr = models::csr_spmv(n, n, nnz, value_bytes);
        for (const char* spmv : {"SpMV v = A p", "SpMV t = A s"})
            doc["benchmarks"].push_back(traffic_entry(form, spmv, "spmv", 0, "", csr.bytes_read,
                                                      csr.bytes_written, measured));
    }
    return doc;
}

const StudyRegistrar registrar{
    {"anzt2015/table1",
     "anzt2015 Table 1: DRAM bytes per BiCGSTAB iteration of every cuBLAS call and fused kernel, "
     "Nsight Compute vs the traffic model (first matrix of the set)",
     "anzt2015-traffic", StudyNeeds{1, true, false}, "", run_table1},
};

}  // namespace
}  // namespace kbench::harness
