// The study interface: a reproduction ("<study>/<item>", one table or figure of a paper) is a
// record registered by its study's own source file (harness/studies/*.cpp), holding what it
// needs from the machine and a runner that returns its results document. `kbench reproduce`
// and `kbench list` only walk this registry; they name no study.
#pragma once

#include "harness/core/machine.hpp"
#include "harness/core/study_context.hpp"

#include <nlohmann/json.hpp>

#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

namespace kbench::harness {

/// What a reproduction needs from the machine it runs on.
struct StudyNeeds {
    int gpus = 1;                 // CUDA devices (>= 0; 0: runs on the CPU alone)
    bool nsight_compute = false;  // `ncu` on PATH
    bool mpi = false;             // MPI launches of `kbench dist` workers (mpiexec)
};

/// What a runner gets for one run of its reproduction.
struct StudyRun {
    std::string id;                    // the reproduction's id
    MatrixSource source;               // set resolved: --set, else the default set
    RunOptions options;                // cold, repetitions, min_time, spmv_tune, spmv_trials
    const MachineProfile* machine = nullptr;  // measured at the start; null without a GPU
    /// Results document of the reproduction's derive_from id when that id ran earlier in this
    /// invocation; null otherwise.
    const nlohmann::json* derive_from_results = nullptr;
};

/// The results document of a reproduction that reuses the run of its derive_from id (e.g. a
/// model id after the measurements it models): a copy of *run.derive_from_results with
/// context.kbench.id = run.id. Precondition: run.derive_from_results is not null.
nlohmann::json derived_results(const StudyRun& run);

/// Runs a reproduction and returns its results document (results_json.hpp schema, with
/// context.kbench.id == run.id). Throws on failure (the error ends the `kbench` run).
using StudyRunner = std::function<nlohmann::json(const StudyRun&)>;

/// One reproducible table or figure.
struct Reproduction {
    std::string id;                    // "<study>/<item>", e.g. "<paper>/table3"
    std::string description;           // one line for `kbench list --ids`
    std::string default_set = "default";  // matrix set used when --set is not given
    StudyNeeds needs;
    /// An id whose results this one can be derived or rendered from (empty: none). It runs
    /// first when both are selected; without a run, render.py renders this id from that id's
    /// stored results.json when this id has none of its own.
    std::string derive_from;
    StudyRunner run;
};

/// Registers reproductions at static initialization: one `const StudyRegistrar registrar{...};`
/// in a study's source file (compiled into the kbench_studies OBJECT library, so it is kept).
struct StudyRegistrar {
    StudyRegistrar(std::initializer_list<Reproduction> reproductions);
};

/// Adds a reproduction to the registry. Call only during static initialization (not
/// thread-safe); duplicates and other mistakes are reported by registry_problems().
void register_reproduction(Reproduction reproduction);

/// Every registered reproduction, in catalogue order (ids not in the catalogue last, by id).
const std::vector<Reproduction>& reproductions();

/// The reproduction with this id. Throws std::invalid_argument naming the id (and whether the
/// catalogue has it, not implemented yet) and listing the valid ids.
const Reproduction& find_reproduction(const std::string& id);

/// Mistakes in `registry` against `catalogue_ids`, one message each (empty: none): a malformed
/// or duplicate id, an id missing from the catalogue, an empty description or default set, no
/// runner, gpus < 0, a derive_from that is not registered or that forms a cycle.
std::vector<std::string> registry_problems(const std::vector<Reproduction>& registry,
                                           const std::vector<std::string>& catalogue_ids);

/// `ids` in the order to run them: each id after the derive_from id it names when that one is
/// in `ids` too, otherwise in the given order; duplicates dropped. Throws std::invalid_argument
/// for an id not in `registry`, std::logic_error for a derive_from cycle.
std::vector<std::string> run_order(const std::vector<std::string>& ids,
                                   const std::vector<Reproduction>& registry);

/// What this machine offers, as far as StudyNeeds asks.
struct MachineFacts {
    std::string gpu_unavailable;  // gpu_unavailable_reason(): empty when a GPU can be used
    int gpus = 0;                 // cudaGetDeviceCount (0 without a usable GPU)
    bool nsight_compute = false;  // `ncu` found on PATH
    bool mpi = false;             // kbench built with MPI and a launcher (mpi_launcher())
};

/// Why `facts` do not meet `needs`, as one line ("" when they do). Without a usable GPU the
/// line is facts.gpu_unavailable itself.
std::string unmet_need(const StudyNeeds& needs, const MachineFacts& facts);

/// What `needs` asks for in words, e.g. "a GPU", "2 GPUs and Nsight Compute (ncu)", "no GPU".
std::string describe_needs(const StudyNeeds& needs);

}  // namespace kbench::harness
