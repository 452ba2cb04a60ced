// Building the context.kbench object of a results file and walking a matrix set one matrix at
// a time (so that matrices with 2.7e8 nonzeros fit: only one is in memory).
#pragma once

#include "harness/core/machine.hpp"
#include "matrices/csr.hpp"
#include "matrices/matrix_set.hpp"
#include "matrices/sellp.hpp"

#include <nlohmann/json.hpp>

#include <functional>
#include <optional>
#include <regex>
#include <string>
#include <vector>

namespace kbench::harness {

/// Where the matrices of a run come from.
struct MatrixSource {
    std::string set = "default";  // shipped set name or manifest path
    std::string matrix_dir;        // --matrix-dir; empty = $KBENCH_MATRIX_DIR
    bool real = false;             // --real: SuiteSparse matrices the set names, where present
    bool quick = false;            // the set's quick entries and quick_params (matrix_set.hpp);
                                   // reproduce sets it from RunOptions::quick
};

/// Where real SuiteSparse matrices are looked for (and `kbench matrix fetch` puts them): the
/// matrix directory (resolve_matrix_dir(matrix_dir)) when there is one, then
/// <cache_dir()>/matrices when there is a cache directory.
std::vector<std::string> real_matrix_dirs(const std::string& matrix_dir);

/// load_matrix_set of `source`: its set, resolved matrix directory and, with source.real, the
/// real matrices of real_matrix_dirs; with source.quick, the set's quick entries. Throws as
/// load_matrix_set does.
MatrixSet load_source_set(const MatrixSource& source);

/// Options of every timed run: `kbench bench spmv`, `kbench reproduce` and the studies' runners.
struct RunOptions {
    bool cold = false;        // flush the L2 cache before every timed launch
    int repetitions = 10;     // timed repetitions (median reported)
    double min_time = 0.05;   // seconds of GPU time per repetition; 0 = exactly one iteration
    std::string spmv_tune = "model";  // how SpMV operators of policy auto choose: "model" (the
                                      // time model's ranking) or "trial" (also time the
    int spmv_trials = 3;              // spmv_trials best modeled configurations once)
    bool quick = false;       // --quick: reduced sizes and repetitions (harness/core/quick.hpp)
};

/// Throws std::invalid_argument naming the option when `o` is out of range (repetitions < 1,
/// min_time < 0, spmv_tune not model/trial, spmv_trials < 1).
void validate(const RunOptions& o);

/// The --filter regex of a benchmark run: empty text gives no filter (everything selected).
/// Throws std::invalid_argument quoting the text for an invalid ECMAScript regex.
std::optional<std::regex> compile_filter(const std::string& text);

/// The command line of this run (set once by main).
std::vector<std::string>& command_argv();

/// context.kbench without "matrices": argv, id, git, gpu (when a device is present), machine
/// (when given), cache_mode, matrix_set, and "quick": true when source.quick.
nlohmann::json kbench_context(const std::string& id, const MatrixSource& source,
                              const MatrixSet& set, const MachineProfile* machine, bool cold);

/// The context.kbench.matrices entry of a matrix: {stats, source, stands_for, spec}, and for an
/// entry that names a SuiteSparse matrix, "suitesparse" (its GROUP/NAME) and "matrix_used":
/// "suitesparse" (the real matrix, at spec.file) or "stand-in".
nlohmann::json matrix_context(const MatrixEntry& entry, const Csr<double>& a,
                              const SellpParams& sellp);

/// matrix_context with the SELL-P layout an operator would choose for `a` unasked
/// (spmv::resolve_sellp_params without overrides): what every runner but `bench spmv` records.
nlohmann::json matrix_context(const MatrixEntry& entry, const Csr<double>& a);

/// Calls fn(entry, matrix, k, total) for each matrix of the set (k 1-based), building each one
/// just before its call and freeing it after.
void for_each_matrix(const MatrixSet& set,
                     const std::function<void(const MatrixEntry&, const Csr<double>&, std::size_t,
                                              std::size_t)>& fn);

}  // namespace kbench::harness
