// `kbench reproduce <id>|all`: run a registered study and render its table and figure, or,
// without a GPU, re-render the results stored in the results tree.
#pragma once

#include "harness/study_context.hpp"

#include <string>
#include <vector>

namespace kbench::harness {

struct ReproduceOptions {
    std::string id;                 // a registered id or "all"
    MatrixSource source;            // source.set empty = each reproduction's default set
    std::string results_root;       // default <source>/results
    bool cold = false;
    int repetitions = 10;
    double min_time = 0.05;         // seconds of GPU time per repetition
};

/// Python interpreter for the analysis: $KBENCH_PYTHON, else the configure-time KBENCH_PYTHON.
std::string python_interpreter();

/// Runs `<python> <source>/analysis/render.py <results_json> --id <id> --out-dir <out_dir>`;
/// returns its exit code (127 when it cannot start).
int render_results(const std::string& results_json, const std::string& id,
                   const std::string& out_dir);

/// Stored results files results_root/*/<study>/<item>/results.json of an id, sorted.
std::vector<std::string> stored_results(const std::string& results_root, const std::string& id);

/// Runs the reproduction(s) and returns the process exit code. Throws std::invalid_argument for
/// an unknown id (listing the valid ones).
int run_reproduce(const ReproduceOptions& options);

}  // namespace kbench::harness
