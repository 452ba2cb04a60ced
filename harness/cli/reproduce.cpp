#include "harness/cli/reproduce.hpp"
#include "harness/mpi/mpi_launch.hpp"

#include "harness/core/process.hpp"
#include "harness/core/progress.hpp"
#include "harness/core/registry.hpp"
#include "harness/core/results_json.hpp"
#include "kernels/base/device.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <utility>

namespace kbench::harness {

namespace fs = std::filesystem;

std::string python_interpreter()
{
    const char* env = std::getenv("KBENCH_PYTHON");
    return env != nullptr && *env != '\0' ? env : KBENCH_PYTHON;
}

namespace {

/// Runs <python> <source>/analysis/<script> args..., echoes each line it prints as
/// "kbench: <line>" and counts its "wrote <path>" lines; `failed`, when given, collects the
/// job indices of its "failed <index>: <reason>" lines (render.py --jobs).
RenderOutcome run_analysis_script(const std::string& script, std::vector<std::string> args,
                                  std::set<std::size_t>* failed = nullptr)
{
    args.insert(args.begin(), {python_interpreter(),
                               (fs::path(KBENCH_SOURCE_DIR) / "analysis" / script).string()});
    const ProcessResult p = run_process(args, true);
    RenderOutcome outcome{p.exit_code, 0};
    std::istringstream lines(p.out);
    for (std::string line; std::getline(lines, line);) {
        if (line.rfind("wrote ", 0) == 0) ++outcome.files_written;
        if (failed != nullptr && line.rfind("failed ", 0) == 0)
            failed->insert(std::strtoull(line.c_str() + 7, nullptr, 10));
        fmt::print(stderr, "kbench: {}\n", line);
    }
    return outcome;
}

/// Says that `results_json` (id `id`) is being rendered and removes the temporary files a killed
/// render left in `out_dir`.
void begin_render(const std::string& results_json, const std::string& id,
                  const std::string& out_dir)
{
    fmt::print(stderr, "kbench: rendering {} ({})\n", results_json, id);
    if (const int n = remove_stale_temp_files(out_dir); n > 0)
        fmt::print(stderr, "kbench: removed {} temporary file{} of a killed run from {}\n", n,
                   n == 1 ? "" : "s", out_dir);
}

}  // namespace

RenderOutcome render_results(const std::string& results_json, const std::string& id,
                             const std::string& out_dir)
{
    begin_render(results_json, id, out_dir);
    return run_analysis_script("render.py", {results_json, "--id", id, "--out-dir", out_dir});
}

namespace {

/// results_root/<gpu>/<study>/<folder>/results.json for every folder whose name `pick` accepts,
/// sorted.
template <typename Pick>
std::vector<std::string> stored_results_in(const std::string& results_root,
                                           const std::string& study, Pick pick)
{
    std::vector<std::string> found;
    std::error_code ec;
    if (!fs::is_directory(results_root, ec)) return found;
    for (const auto& gpu : fs::directory_iterator(results_root, ec)) {
        const fs::path dir = gpu.path() / study;
        if (!gpu.is_directory(ec) || !fs::is_directory(dir, ec)) continue;
        for (const auto& folder : fs::directory_iterator(dir, ec)) {
            const fs::path file = folder.path() / "results.json";
            if (pick(folder.path().filename().string()) && fs::is_regular_file(file, ec))
                found.push_back(file.string());
        }
    }
    std::sort(found.begin(), found.end());
    return found;
}

}  // namespace

std::vector<std::string> stored_results(const std::string& results_root, const std::string& id)
{
    const auto [study, item] = split_id(id);
    return stored_results_in(results_root, study,
                             [&item = item](const std::string& name) { return name == item; });
}

std::vector<std::string> stored_variant_results(const std::string& results_root,
                                               const std::string& id)
{
    const auto [study, item] = split_id(id);
    const std::string prefix = item + "-";
    return stored_results_in(results_root, study, [&prefix](const std::string& name) {
        return name.size() > prefix.size() && name.compare(0, prefix.size(), prefix) == 0;
    });
}

std::vector<std::string> stored_result_gpus(const std::string& results_root, const std::string& id)
{
    std::vector<std::string> gpus;
    for (const auto& f : stored_results(results_root, id)) {
        // <root>/<gpu>/<study>/<item>/results.json
        gpus.push_back(fs::path(f).parent_path().parent_path().parent_path().filename().string());
    }
    return gpus;
}

namespace {

bool on_path(const std::string& program)
{
    const char* path = std::getenv("PATH");
    std::stringstream dirs(path != nullptr ? path : "");
    std::string dir;
    std::error_code ec;
    while (std::getline(dirs, dir, ':')) {
        const fs::path file = fs::path(dir.empty() ? "." : dir) / program;
        if (fs::is_regular_file(file, ec) && ::access(file.c_str(), X_OK) == 0) return true;
    }
    return false;
}

}  // namespace

MachineFacts probe_machine_facts()
{
    MachineFacts facts;
    facts.gpu_unavailable = gpu_unavailable_reason();
    if (facts.gpu_unavailable.empty()) {
        facts.gpus = gpu_count();  // KBENCH_SHARE_GPUS counted
    }
    facts.nsight_compute = on_path("ncu");
    facts.mpi = !mpi_launcher().empty();  // built with MPI and a launcher
    return facts;
}

namespace {

/// What a reproduce did, id by id (printed at its end).
struct Summary {
    int ran = 0, rendered = 0, skipped = 0, failed = 0, files_written = 0;
    std::vector<std::string> ran_ids, kept_ids, deferred_ids;
    std::string kept_sha;  // the commit of the kept ids' results
    std::vector<std::pair<std::string, std::string>> skipped_ids, failed_ids;  // id, why
};

std::vector<std::string> selected_ids(const std::vector<std::string>& names)
{
    std::vector<std::string> ids;
    for (const auto& name : names) {
        if (name == "all") {
            for (const auto& r : reproductions()) ids.push_back(r.id);
        } else {
            ids.push_back(find_reproduction(name).id);
        }
    }
    return ids;
}

bool selects_all(const ReproduceOptions& options)
{
    return std::find(options.ids.begin(), options.ids.end(), "all") != options.ids.end();
}

/// One render of render_stored: a results file, its id and the folder for its outputs.
struct RenderJob {
    std::string file, id, out_dir;
};

/// Renders `jobs` with one `render.py --jobs` process (the jobs in a temporary JSON file);
/// per job 0 when it rendered, else non-zero (every job when render.py itself failed). Adds
/// the files written to `files_written`.
std::vector<int> render_jobs(const std::vector<RenderJob>& jobs, int& files_written)
{
    if (jobs.empty()) return {};
    nlohmann::json list = nlohmann::json::array();
    for (const auto& j : jobs) {
        begin_render(j.file, j.id, j.out_dir);
        list.push_back({{"results", j.file}, {"id", j.id}, {"out_dir", j.out_dir}});
    }
    const fs::path path =
        fs::temp_directory_path() / fmt::format("kbench-render-jobs-{}.json", ::getpid());
    {
        std::ofstream out(path);
        out << list.dump();
        if (!out) throw std::runtime_error("kbench reproduce: cannot write " + path.string());
    }
    std::set<std::size_t> failed;
    const RenderOutcome r = run_analysis_script("render.py", {"--jobs", path.string()}, &failed);
    std::error_code ec;
    fs::remove(path, ec);
    files_written += r.files_written;
    std::vector<int> codes(jobs.size(), 0);
    for (std::size_t j = 0; j < jobs.size(); ++j)
        if (failed.count(j) > 0 || (r.exit_code != 0 && failed.empty())) codes[j] = 1;
    return codes;
}

int render_stored(const ReproduceOptions& options, const std::vector<std::string>& ids,
                  const std::string& reason, Summary& summary)
{
    fmt::print(stderr, "kbench: {}: rendering stored results from {}\n", reason,
               options.results_root);
    int rendered = 0, failed = 0;
    std::vector<RenderJob> jobs;
    for (const auto& id : ids) {
        auto files = stored_results(options.results_root, id);
        std::vector<std::string> out_dirs;
        for (const auto& f : files) out_dirs.push_back(fs::path(f).parent_path().string());
        const std::string& from = find_reproduction(id).derive_from;
        if (files.empty() && !from.empty()) {
            const auto [study, item] = split_id(id);
            for (const auto& f : stored_results(options.results_root, from)) {
                files.push_back(f);  // <root>/<gpu>/<study>/<item>/results.json of `from`
                const fs::path gpu_dir = fs::path(f).parent_path().parent_path().parent_path();
                out_dirs.push_back((gpu_dir / study / item).string());
            }
        }
        for (const auto& f : stored_variant_results(options.results_root, id)) {
            files.push_back(f);  // the same table over another matrix set, rendered in place
            out_dirs.push_back(fs::path(f).parent_path().string());
        }
        if (files.empty()) {
            fmt::print(stderr, "kbench: no stored results for {} (looked for {}/*/{}/results.json)\n",
                       id, options.results_root, id);
            ++summary.skipped;
            summary.skipped_ids.emplace_back(id, "not run here (" + reason +
                                                     ") and no stored results");
        }
        for (std::size_t i = 0; i < files.size(); ++i) jobs.push_back({files[i], id, out_dirs[i]});
    }
    // One render.py for every file: most of a render whose outputs are unchanged is the
    // interpreter's start and imports.
    const std::vector<int> exit_codes = render_jobs(jobs, summary.files_written);
    std::set<std::string> failed_ids;
    for (std::size_t j = 0; j < jobs.size(); ++j) {
        if (exit_codes[j] == 0) {
            ++rendered;
            continue;
        }
        ++failed;
        failed_ids.insert(jobs[j].id);
        fmt::print(stderr, "kbench: error: render.py failed for {}\n", jobs[j].file);
        summary.failed_ids.emplace_back(jobs[j].id,
                                        fmt::format("render.py failed for {}", jobs[j].file));
    }
    for (const auto& id : ids)
        if (std::any_of(jobs.begin(), jobs.end(), [&](const RenderJob& j) { return j.id == id; }))
            ++(failed_ids.count(id) > 0 ? summary.failed : summary.rendered);
    if (failed > 0) return 1;
    if (rendered == 0) {
        if (selects_all(options)) {
            fmt::print(stderr, "kbench: nothing to render: no stored results for any id under {}\n",
                       options.results_root);
            return 0;
        }
        fmt::print(stderr, "kbench: error: nothing stored for {}: run {} on a machine with {}\n",
                   join(ids), ids.size() == 1 ? "it" : "them",
                   describe_needs(find_reproduction(ids.front()).needs));
        return 1;
    }
    return 0;
}

/// Writes `doc`, the results of `r`, to dir/results.json and says so; for a reproduction that
/// needs no GPU a stored file holding the same results is kept (keep_or_write_results).
void store(const Reproduction& r, const nlohmann::json& doc, const std::string& dir)
{
    const std::string file = (fs::path(dir) / "results.json").string();
    if (r.needs.gpus > 0) {
        write_json_file(doc, file);
    } else if (keep_or_write_results(doc, file) == StoreOutcome::kept) {
        fmt::print(stderr, "kbench: kept {}: the new run differs only in its run context\n", file);
        return;
    }
    fmt::print(stderr, "kbench: wrote {}\n", file);
}

/// The results document stored at `file`; null when it is missing or not JSON.
nlohmann::json read_stored(const std::string& file)
{
    std::ifstream in(file);
    if (!in) return nullptr;
    nlohmann::json doc = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
    return doc.is_discarded() ? nlohmann::json() : doc;
}

/// context.kbench.run_seconds.total of a stored results document (how long the run that wrote
/// it took); NaN when the document, or the field, is not there.
double stored_run_seconds(const nlohmann::json& doc)
{
    const auto p = nlohmann::json::json_pointer("/context/kbench/run_seconds/total");
    return doc.is_object() && doc.contains(p) && doc.at(p).is_number() ? doc.at(p).get<double>()
                                                                       : std::nan("");
}

/// Renders the results file `file` of `id` into `dir` and counts `id` in `summary` as ran,
/// kept or (render.py failing) failed. Returns 1 when render.py failed, else 0.
int render_and_count(const std::string& file, const std::string& id, const std::string& dir,
                     bool kept, Summary& summary)
{
    const RenderOutcome rendered = render_results(file, id, dir);
    summary.files_written += rendered.files_written;
    if (rendered.exit_code != 0) {
        fmt::print(stderr, "kbench: error: render.py failed (exit {}) for {}\n",
                   rendered.exit_code, file);
        ++summary.failed;
        summary.failed_ids.emplace_back(
            id, fmt::format("{}, but render.py failed (exit {}) for {}", kept ? "kept" : "ran",
                            rendered.exit_code, file));
        return 1;
    }
    if (kept) {
        summary.kept_ids.push_back(id);
    } else {
        ++summary.ran;
        summary.ran_ids.push_back(id);
    }
    return 0;
}

/// Runs the reproduction `r` (id `id`) with `run` and stores its results document in `dir`.
nlohmann::json run_and_store(const Reproduction& r, const std::string& id, StudyRun run,
                             const Progress& clock, const std::string& dir)
{
    const double started = clock.elapsed();
    nlohmann::json doc = r.run(run);
    if (run.options.quick) doc["context"]["kbench"]["quick"] = true;
    nlohmann::json& took = doc["context"]["kbench"]["run_seconds"];  // run context
    if (!took.is_object()) took = nlohmann::json::object();
    if (!took.contains("total")) took["total"] = clock.elapsed() - started;
    if (shared_gpus() > 0 && r.needs.gpus > 0) {  // not multi-GPU figures: say so
        doc["context"]["kbench"]["shared_gpus"] = shared_gpus();
        fmt::print(stderr, "kbench: warning: KBENCH_SHARE_GPUS={}: {} ran its ranks on the "
                           "visible GPUs shared round-robin (a dry run)\n",
                   shared_gpus(), id);
    }
    store(r, doc, dir);
    return doc;
}

/// Runs `ids` (in that order) on this machine, writes and renders each results document.
/// Before each id it prints its position, the time so far and an estimate of the time left from
/// the durations the stored results recorded; each new document records its own duration. An id
/// whose run throws (e.g. a launch of MPI workers that timed out) is counted failed, with the
/// message, and the next id runs. With options.resume, an id whose stored results were done at
/// this commit (done_at) is kept and only rendered. With a budget, an id is run only when
/// budget_verdict (harness/core/progress.hpp) says so, counting from the call's start (the
/// machine profile included); a deferred or too long id, and the ids derived from it, are
/// neither run nor rendered.
int run_studies(const ReproduceOptions& options, const std::vector<std::string>& ids,
                const MachineFacts& facts, Summary& summary)
{
    const Progress since_start;
    const bool gpu = facts.gpu_unavailable.empty();
    const std::string gpu_name = gpu ? query_device().name : "";
    const GitInfo head = options.resume ? git_info(KBENCH_SOURCE_DIR) : GitInfo{};
    if (options.resume && (head.dirty || head.sha == "unknown"))
        fmt::print(stderr, "kbench: --resume: the source tree has uncommitted changes or no "
                           "known commit, so no stored results count as done: every id runs\n");
    const auto dir_of = [&](const Reproduction& r, const std::string& id) {
        return results_dir(options.results_root, r.needs.gpus > 0 ? gpu_name : model_results_name,
                           id);
    };
    std::vector<double> last_seconds;  // the stored duration of each id (NaN: none; 0: kept)
    std::vector<bool> kept;            // done at this commit (--resume)
    for (const auto& id : ids) {
        const Reproduction& r = find_reproduction(id);
        const nlohmann::json stored =
            read_stored((fs::path(dir_of(r, id)) / "results.json").string());
        const bool on_gpu = r.needs.gpus > 0;
        kept.push_back(options.resume && done_at(stored, head, on_gpu ? gpu_name : "",
                                                 on_gpu ? shared_gpus() : 0));
        last_seconds.push_back(kept.back() ? 0.0 : stored_run_seconds(stored));
    }
    std::optional<MachineProfile> machine;  // measured only for ids that use the GPU and run
    for (std::size_t k = 0; k < ids.size() && gpu && !machine; ++k)
        if (!kept[k] && find_reproduction(ids[k]).needs.gpus > 0)
            machine = measure_machine(&std::cerr);
    std::map<std::string, nlohmann::json> done;  // results of the ids run (or kept) so far
    std::set<std::string> not_run;                // deferred or too long for the budget
    const Progress clock;
    int status = 0;
    for (std::size_t k = 0; k < ids.size(); ++k) {
        const std::string& id = ids[k];
        const Reproduction& r = find_reproduction(id);
        if (!kept[k]) {
            const BudgetVerdict verdict =
                not_run.count(r.derive_from) > 0
                    ? BudgetVerdict::defer
                    : budget_verdict(options.budget_seconds, since_start.elapsed(),
                                     last_seconds[k], summary.ran + summary.failed > 0);
            if (verdict == BudgetVerdict::too_long) {
                fmt::print(stderr, "kbench: [id {}/{}] {}: skipped: its last run took {}, more "
                                   "than the whole --budget of {}\n",
                           k + 1, ids.size(), id, format_duration(last_seconds[k]),
                           format_duration(options.budget_seconds));
                summary.skipped_ids.emplace_back(
                    id, fmt::format("its last run took {}, more than --budget {}",
                                    format_duration(last_seconds[k]),
                                    format_duration(options.budget_seconds)));
                ++summary.skipped;
                not_run.insert(id);
                continue;
            }
            if (verdict == BudgetVerdict::defer) {
                const std::string why =
                    not_run.count(r.derive_from) > 0
                        ? fmt::format("it derives from {}, not run", r.derive_from)
                    : std::isfinite(last_seconds[k])
                        ? fmt::format("its last run took {}", format_duration(last_seconds[k]))
                        : std::string("no recorded duration: it runs only first in a call");
                fmt::print(stderr, "kbench: [id {}/{}] {}: deferred: {} of the --budget of {} "
                                   "spent; {}\n",
                           k + 1, ids.size(), id, format_duration(since_start.elapsed()),
                           format_duration(options.budget_seconds), why);
                summary.deferred_ids.push_back(id);
                not_run.insert(id);
                continue;
            }
        }
        const std::string dir = dir_of(r, id);
        const std::string file = (fs::path(dir) / "results.json").string();
        const bool derived_later = std::any_of(ids.begin(), ids.end(), [&](const std::string& other) {
            return find_reproduction(other).derive_from == id;
        });
        nlohmann::json doc;
        if (kept[k]) {
            fmt::print(stderr, "kbench: [id {}/{}] {}: kept (done at {}): {}\n", k + 1,
                       ids.size(), id, head.sha.substr(0, 12), file);
            summary.kept_sha = head.sha.substr(0, 12);
            if (derived_later) doc = read_stored(file);
        } else {
            fmt::print(stderr, "kbench: {}\n",
                       id_progress_line(k + 1, ids.size(), id, clock.elapsed(),
                                        {last_seconds.begin() + static_cast<std::ptrdiff_t>(k),
                                         last_seconds.end()}));
            std::fflush(stderr);
            StudyRun run;
            run.id = id;
            run.source = options.source;
            if (run.source.set.empty()) run.source.set = r.default_set;
            run.options = options.run;
            run.source.quick = options.run.quick;
            run.machine = machine && r.needs.gpus > 0 ? &*machine : nullptr;
            const auto from = done.find(r.derive_from);
            if (!r.derive_from.empty() && from != done.end())
                run.derive_from_results = &from->second;
            try {
                doc = run_and_store(r, id, run, clock, dir);
            } catch (const std::exception& e) {
                fmt::print(stderr, "kbench: error: {} failed: {}\n", id, e.what());
                status = 1;
                ++summary.failed;
                summary.failed_ids.emplace_back(id, e.what());
                continue;
            }
        }
        status = std::max(status, render_and_count(file, id, dir, kept[k], summary));
        if (derived_later) done.emplace(id, std::move(doc));
    }
    return status;
}

/// Runs analysis/scoreboard.py over `results_root` (<root>/models.md: every model against its
/// measurements, written only when it changes); 1 when it fails.
int write_scoreboard(const std::string& results_root, Summary& summary)
{
    const RenderOutcome r = run_analysis_script("scoreboard.py", {"--results-root", results_root});
    summary.files_written += r.files_written;
    if (r.exit_code == 0) return 0;
    fmt::print(stderr, "kbench: error: scoreboard.py failed (exit {}) for {}\n", r.exit_code,
               results_root);
    return 1;
}

}  // namespace

int run_reproduce(const ReproduceOptions& options)
{
    const std::vector<std::string> order = run_order(selected_ids(options.ids), reproductions());
    const MachineFacts facts = probe_machine_facts();
    std::vector<std::pair<std::string, std::vector<std::string>>> unmet;  // reason -> its ids
    std::vector<std::string> runnable;
    for (const auto& id : order) {
        const std::string reason = unmet_need(find_reproduction(id).needs, facts);
        if (reason.empty()) {
            runnable.push_back(id);
            continue;
        }
        auto group = std::find_if(unmet.begin(), unmet.end(),
                                  [&](const auto& g) { return g.first == reason; });
        if (group == unmet.end()) group = unmet.insert(unmet.end(), {reason, {}});
        group->second.push_back(id);
    }
    if (facts.mpi) (void)rank_timeout_seconds();  // a bad value is refused before any run
    const Progress clock;
    int status = 0;
    Summary summary;
    if (options.run.quick)
        fmt::print(stderr, "kbench: quick run (reduced sizes and repetitions): results go to {}\n",
                   options.results_root);
    for (const auto& [reason, ids] : unmet) {
        if (options.run.quick) {  // nothing stored to render in a quick run's own results tree
            fmt::print(stderr, "kbench: quick run: not running {}: {}\n", join(ids), reason);
            for (const auto& id : ids) summary.skipped_ids.emplace_back(id, reason);
            summary.skipped += static_cast<int>(ids.size());
            continue;
        }
        status = std::max(status, render_stored(options, ids, reason, summary));
    }
    if (!runnable.empty())
        status = std::max(status, run_studies(options, runnable, facts, summary));
    status = std::max(status, write_scoreboard(options.results_root, summary));
    fmt::print(stderr,
               "kbench: summary: {} id{}: {} ran, {} rendered from stored results ({} file{} "
               "changed), {} skipped, {} failed{}{}\n",
               order.size(), order.size() == 1 ? "" : "s", summary.ran, summary.rendered,
               summary.files_written, summary.files_written == 1 ? "" : "s", summary.skipped,
               summary.failed,
               summary.kept_ids.empty() ? "" : fmt::format(", {} kept", summary.kept_ids.size()),
               summary.deferred_ids.empty()
                   ? ""
                   : fmt::format(", {} deferred", summary.deferred_ids.size()));
    if (!summary.ran_ids.empty())
        fmt::print(stderr, "kbench:   ran: {} (the whole command took {})\n",
                   join(summary.ran_ids), format_duration(clock.elapsed()));
    if (!summary.kept_ids.empty())
        fmt::print(stderr, "kbench:   kept (done at {}): {}\n", summary.kept_sha,
                   join(summary.kept_ids));
    if (!summary.deferred_ids.empty())
        fmt::print(stderr, "kbench:   deferred (over --budget; run again with --resume): {}\n",
                   join(summary.deferred_ids));
    for (const auto& [id, why] : summary.skipped_ids)
        fmt::print(stderr, "kbench:   skipped: {}: {}\n", id, why);
    for (const auto& [id, why] : summary.failed_ids)
        fmt::print(stderr, "kbench:   failed: {}: {}\n", id, why);
    if (options.run.quick)
        fmt::print(stderr, "kbench:   quick run: results in {}\n", options.results_root);
    return status;
}

}  // namespace kbench::harness
