// anzt2015, SpMV part: Table 3 (CSR scalar/vector/adaptive, SELL-P, the operator's auto choice
// and the cuSPARSE baselines timed over a matrix set, double precision) and Table 2 (the
// statistics of the matrices used).
#include "harness/bench/bench_spmv.hpp"
#include "harness/core/registry.hpp"
#include "harness/core/study.hpp"

namespace kbench::harness {
namespace {

nlohmann::json run_table3(const StudyRun& run)
{
    SpmvOptions spmv;
    spmv.source = run.source;
    spmv.kernels = spmv_kernels();
    spmv.precisions = {"double"};
    spmv.run = run.options;
    return run_spmv_study(spmv, run.id, run.machine);
}

/// Table 2 needs only the matrix statistics, which every Table 3 document carries: reuse
/// them when Table 3 ran in this invocation instead of building every matrix again.
nlohmann::json run_table2(const StudyRun& run)
{
    if (run.derive_from_results == nullptr) return run_stats_study(run.source, run.id, run.machine);
    nlohmann::json doc = *run.derive_from_results;
    doc["benchmarks"] = nlohmann::json::array();
    doc["context"]["kbench"]["id"] = run.id;
    return doc;
}

const StudyRegistrar registrar{
    {"anzt2015/table2",
     "anzt2015 Table 2: test matrices (size, nonzeros, row lengths, SELL-P padding)", "anzt2015",
     StudyNeeds{1, false, false}, "anzt2015/table3", run_table2},
    {"anzt2015/table3",
     "anzt2015 Table 3: SpMV (CSR scalar/vector/adaptive, SELL-P, auto, cuSPARSE) run time, "
     "GB/s and GFlop/s, double precision",
     "anzt2015", StudyNeeds{1, false, false}, "", run_table3},
};

}  // namespace
}  // namespace kbench::harness
