#include "harness/reproduce.hpp"

#include "harness/bench_spmv.hpp"
#include "harness/process.hpp"
#include "harness/registry.hpp"
#include "harness/results_json.hpp"
#include "kernels/base/device.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>

namespace kbench::harness {

namespace fs = std::filesystem;

std::string python_interpreter()
{
    const char* env = std::getenv("KBENCH_PYTHON");
    return env != nullptr && *env != '\0' ? env : KBENCH_PYTHON;
}

int render_results(const std::string& results_json, const std::string& id,
                   const std::string& out_dir)
{
    const std::string script = (fs::path(KBENCH_SOURCE_DIR) / "analysis" / "render.py").string();
    fmt::print(stderr, "kbench: rendering {} ({})\n", results_json, id);
    return run_process({python_interpreter(), script, results_json, "--id", id, "--out-dir",
                        out_dir})
        .exit_code;
}

std::vector<std::string> stored_results(const std::string& results_root, const std::string& id)
{
    const auto [study, item] = split_id(id);
    std::vector<std::string> found;
    std::error_code ec;
    if (!fs::is_directory(results_root, ec)) return found;
    for (const auto& gpu : fs::directory_iterator(results_root, ec)) {
        const fs::path file = gpu.path() / study / item / "results.json";
        if (gpu.is_directory(ec) && fs::is_regular_file(file, ec)) found.push_back(file.string());
    }
    std::sort(found.begin(), found.end());
    return found;
}

namespace {

std::vector<std::string> selected_ids(const std::string& id)
{
    std::vector<std::string> ids;
    if (id == "all") {
        for (const auto& r : reproductions()) ids.push_back(r.id);
    } else {
        ids.push_back(find_reproduction(id).id);
    }
    return ids;
}

int render_stored(const ReproduceOptions& options, const std::vector<std::string>& ids,
                  const std::string& reason)
{
    fmt::print(stderr, "kbench: {}: rendering stored results from {}\n", reason,
               options.results_root);
    int rendered = 0, failed = 0;
    for (const auto& id : ids) {
        auto files = stored_results(options.results_root, id);
        std::vector<std::string> out_dirs;
        for (const auto& f : files) out_dirs.push_back(fs::path(f).parent_path().string());
        const std::string& from = find_reproduction(id).render_from;
        if (files.empty() && !from.empty()) {
            const auto [study, item] = split_id(id);
            for (const auto& f : stored_results(options.results_root, from)) {
                files.push_back(f);  // <root>/<gpu>/<study>/<item>/results.json of `from`
                const fs::path gpu_dir = fs::path(f).parent_path().parent_path().parent_path();
                out_dirs.push_back((gpu_dir / study / item).string());
            }
        }
        if (files.empty()) {
            fmt::print(stderr, "kbench: no stored results for {} (looked for {}/*/{}/results.json)\n",
                       id, options.results_root, id);
        }
        for (std::size_t i = 0; i < files.size(); ++i) {
            const std::string& file = files[i];
            const int rc = render_results(file, id, out_dirs[i]);
            if (rc == 0) ++rendered;
            else {
                ++failed;
                fmt::print(stderr, "kbench: error: render.py failed (exit {}) for {}\n", rc, file);
            }
        }
    }
    if (failed > 0) return 1;
    if (rendered == 0) {
        if (options.id == "all") {
            fmt::print(stderr, "kbench: nothing to render: no stored results for any id under {}\n",
                       options.results_root);
            return 0;
        }
        fmt::print(stderr, "kbench: error: nothing stored for {}: run it on a machine with a GPU\n",
                   options.id);
        return 1;
    }
    return 0;
}

}  // namespace

int run_reproduce(const ReproduceOptions& options)
{
    const std::vector<std::string> ids = selected_ids(options.id);
    const std::string reason = gpu_unavailable_reason();
    if (!reason.empty()) return render_stored(options, ids, reason);

    const std::string gpu = query_device().name;
    const MachineProfile machine = measure_machine(&std::cerr);
    // Timing studies first, so that a statistics-only id whose render_from study ran in this
    // invocation reuses that study's matrix statistics instead of building every matrix again.
    std::vector<std::string> order = ids;
    std::stable_partition(order.begin(), order.end(), [](const std::string& id) {
        return find_reproduction(id).kind == StudyKind::spmv_timing;
    });
    std::map<std::string, nlohmann::json> done;
    int status = 0;
    for (const auto& id : order) {
        const Reproduction& r = find_reproduction(id);
        MatrixSource source = options.source;
        if (source.set.empty()) source.set = r.default_set;
        nlohmann::json doc;
        if (r.kind == StudyKind::spmv_timing) {
            SpmvOptions spmv;
            spmv.source = source;
            spmv.kernels = spmv_kernels();
            spmv.precisions = {"double"};
            spmv.cold = options.cold;
            spmv.repetitions = options.repetitions;
            spmv.min_time = options.min_time;
            doc = run_spmv_study(spmv, id, &machine);
        } else if (!r.render_from.empty() && done.count(r.render_from) != 0) {
            doc = done.at(r.render_from);
            doc["benchmarks"] = nlohmann::json::array();
            doc["context"]["kbench"]["id"] = id;
        } else {
            doc = run_stats_study(source, id, &machine);
        }
        done[id] = doc;
        const std::string dir = results_dir(options.results_root, gpu, id);
        const std::string file = (fs::path(dir) / "results.json").string();
        write_json_file(doc, file);
        fmt::print(stderr, "kbench: wrote {}\n", file);
        const int rc = render_results(file, id, dir);
        if (rc != 0) {
            fmt::print(stderr, "kbench: error: render.py failed (exit {}) for {}\n", rc, file);
            status = 1;
        }
    }
    return status;
}

}  // namespace kbench::harness
