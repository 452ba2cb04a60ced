// What the yamazaki2014 tall-skinny runners share (bench_tall_skinny.cpp: Fig. 11 throughput;
// bench_tsqr_quality.cpp: Fig. 10 TSQR quality; both declared in bench_tall_skinny.hpp): the
// value size, the GPU context, the results document and JSON for a number that may not be
// finite.
#pragma once

#include "harness/core/results_json.hpp"
#include "harness/core/study.hpp"
#include "harness/core/study_context.hpp"
#include "matrices/matrix_set.hpp"
#include "solvers/orthogonalization/gpu_context.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <utility>

namespace kbench::harness::tall_skinny_bench {

constexpr int value_bytes = static_cast<int>(sizeof(double));

using Gpu = ortho::GpuContext;

/// A results document with no matrix set; `section` goes to context.kbench[key].
inline nlohmann::json new_document(const StudyRun& run, const char* key, nlohmann::json section)
{
    validate(run.options);
    MatrixSet none;
    none.name = "none";
    none.description = "tall-skinny blocks only: no matrix is used";
    nlohmann::json doc =
        make_results_document(kbench_context(run.id, run.source, none, run.machine, false));
    section["precision"] = "double";
    section["read_gbps"] = run.machine != nullptr ? run.machine->read_gbps : 0.0;
    doc["context"]["kbench"][key] = std::move(section);
    return doc;
}

/// A finite number as JSON, null otherwise (NaN and inf are not JSON).
inline nlohmann::json finite_or_null(double v)
{
    return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}

}  // namespace kbench::harness::tall_skinny_bench
