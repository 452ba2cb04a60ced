#include "harness/core/study_context.hpp"

#include <filesystem>
#include <stdexcept>

#include "harness/core/git_info.hpp"
#include "harness/core/resources.hpp"
#include "harness/core/results_json.hpp"
#include "kernels/base/device.hpp"
#include "kernels/spmv_operator.hpp"
#include "matrices/stats.hpp"


namespace kbench::harness {

std::optional<std::regex> compile_filter(const std::string& text)
{
    if (text.empty()) return std::nullopt;
    try {
        return std::regex(text);
    } catch (const std::regex_error& e) {
        throw std::invalid_argument("invalid --filter regex '" + text + "': " + e.what());
    }
}

void validate(const RunOptions& o)
{
    if (o.repetitions < 1)
        throw std::invalid_argument("--repetitions must be >= 1, got " + std::to_string(o.repetitions));
    if (!(o.min_time >= 0.0))
        throw std::invalid_argument("--min-time must be >= 0 seconds, got " + std::to_string(o.min_time));
    if (o.spmv_tune != "model" && o.spmv_tune != "trial")
        throw std::invalid_argument("--spmv-tune '" + o.spmv_tune + "' is not one of: model, trial");
    if (o.spmv_trials < 1)
        throw std::invalid_argument("--spmv-trials must be >= 1, got " + std::to_string(o.spmv_trials));
}

std::vector<std::string> real_matrix_dirs(const std::string& matrix_dir)
{
    std::vector<std::string> dirs;
    const std::string dir = resolve_matrix_dir(matrix_dir);
    if (!dir.empty()) dirs.push_back(dir);
    const std::filesystem::path cache = cache_dir();
    if (!cache.empty()) dirs.push_back((cache / "matrices").string());
    return dirs;
}

MatrixSet load_source_set(const MatrixSource& source)
{
    MatrixSetOptions options;
    options.real = source.real;
    options.quick = source.quick;
    if (source.real) options.real_dirs = real_matrix_dirs(source.matrix_dir);
    return load_matrix_set(source.set, resolve_matrix_dir(source.matrix_dir), options);
}

std::vector<std::string>& command_argv()
{
    static std::vector<std::string> argv;
    return argv;
}

nlohmann::json kbench_context(const std::string& id, const MatrixSource& source,
                              const MatrixSet& set, const MachineProfile* machine, bool cold)
{
    nlohmann::json k;
    k["argv"] = command_argv();
    k["id"] = id;
    k["git"] = git_info(KBENCH_SOURCE_DIR);
    if (has_gpu()) k["gpu"] = query_device();
    if (machine != nullptr) k["machine"] = *machine;
    k["cache_mode"] = cold ? "cold" : "hot";
    k["matrix_set"] = {{"name", set.name},
                       {"manifest", set.manifest},
                       {"matrix_dir", resolve_matrix_dir(source.matrix_dir)},
                       {"real", source.real}};
    if (source.quick) k["quick"] = true;
    k["matrices"] = nlohmann::json::object();
    return k;
}

nlohmann::json matrix_context(const MatrixEntry& entry, const Csr<double>& a,
                              const SellpParams& sellp)
{
    nlohmann::json spec;
    try {
        spec = nlohmann::json::parse(entry.spec);
    } catch (const nlohmann::json::exception&) {
        spec = entry.spec;
    }
    nlohmann::json m{{"stats", compute_stats(a, sellp)},
                     {"source", entry.source},
                     {"stands_for", entry.stands_for},
                     {"spec", spec}};
    if (!entry.suitesparse.empty()) {
        m["suitesparse"] = entry.suitesparse;
        m["matrix_used"] = entry.real ? "suitesparse" : "stand-in";
    }
    return m;
}

nlohmann::json matrix_context(const MatrixEntry& entry, const Csr<double>& a)
{
    return matrix_context(entry, a, spmv::resolve_sellp_params(a.view(), SellpParams{0, 0, 0, 0}));
}

void for_each_matrix(const MatrixSet& set,
                     const std::function<void(const MatrixEntry&, const Csr<double>&, std::size_t,
                                              std::size_t)>& fn)
{
    const std::size_t total = set.matrices.size();
    for (std::size_t k = 0; k < total; ++k) {
        const Csr<double> a = build_matrix(set.matrices[k]);
        fn(set.matrices[k], a, k + 1, total);
    }
}

}  // namespace kbench::harness
