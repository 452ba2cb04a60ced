// `kbench reproduce <id>|all`: run registered reproductions (study.hpp) and render their tables
// and figures; an id whose needs this machine does not meet (no GPU, too few GPUs, no ncu, no
// MPI) is not run: its results stored in the results tree are re-rendered instead. Results go
// to results/<gpu>/<study>/<item>/, those of the ids that need no GPU (models, counts: the same
// on every machine) to results/model/<study>/<item>/, where a stored file that differs from a
// new run only in its run context (results_json.hpp) is kept as it is. With --resume, an id whose
// results were done at this commit (done_at, results_json.hpp) is kept and only re-rendered.
#pragma once

#include "harness/core/study.hpp"
#include "harness/core/study_context.hpp"

#include <string>
#include <vector>

namespace kbench::harness {

struct ReproduceOptions {
    std::vector<std::string> ids;   // registered ids and/or "all" (run once each, derive_from
                                    // ids first; ids that derive from one another share a run)
    MatrixSource source;            // source.set empty = each reproduction's default set
    std::string results_root;       // default <source>/results (--quick: quick_results_root())
    RunOptions run;                 // passed to every runner (run.quick: source.quick too)
    bool resume = false;            // --resume: keep the ids done_at this commit, render only
    double budget_seconds = 0;      // --budget: start no id that would end past it (0: none)
};


/// Python interpreter for the analysis: $KBENCH_PYTHON, else the configure-time KBENCH_PYTHON.
std::string python_interpreter();

/// What one render did: render.py's exit code (127 when it cannot start) and the files it
/// wrote (files whose content was already right are left alone and not counted).
struct RenderOutcome {
    int exit_code = 0;
    int files_written = 0;
};

/// Runs `<python> <source>/analysis/render.py <results_json> --id <id> --out-dir <out_dir>`
/// and prints "kbench: wrote <path>" for each file it wrote.
RenderOutcome render_results(const std::string& results_json, const std::string& id,
                             const std::string& out_dir);

/// Stored results files results_root/*/<study>/<item>/results.json of an id (the GPU folders
/// and model_results_name), sorted.
std::vector<std::string> stored_results(const std::string& results_root, const std::string& id);

/// Stored results files results_root/*/<study>/<item>-<variant>/results.json of an id: the same
/// table over other inputs (e.g. anzt2015/table3-graphs, table3 over the graphs matrix set),
/// which a render of stored results renders in place with the id's renderer; sorted.
std::vector<std::string> stored_variant_results(const std::string& results_root,
                                               const std::string& id);

/// The <gpu> folder names of stored_results(results_root, id), sorted (e.g. {"NVIDIA_H200"};
/// {"model"} for an id that needs no GPU).
std::vector<std::string> stored_result_gpus(const std::string& results_root, const std::string& id);

/// Folder under results_root of the results of reproductions with needs.gpus == 0, whichever
/// machine ran them: results_root/model/<study>/<item>/.
inline const char* const model_results_name = "model";

/// This machine's facts for StudyNeeds: GPU availability and count (cudaGetDeviceCount), `ncu`
/// on PATH, MPI (never yet). Never throws.
MachineFacts probe_machine_facts();

/// Runs the reproduction(s) in run_order (derive_from first) and returns the process exit code.
/// Ids whose needs are unmet are rendered from stored results, with the reason said once per
/// reason; in a quick run (options.run.quick) they are skipped instead, and every results
/// document gets context.kbench.quick = true. An id whose run throws is reported failed (with
/// the message) and the others still run; the exit code is then 1. Throws
/// std::invalid_argument for an unknown id (listing the valid ones), and std::runtime_error for
/// a bad KBENCH_RANK_TIMEOUT_S (before any run).
int run_reproduce(const ReproduceOptions& options);

}  // namespace kbench::harness
