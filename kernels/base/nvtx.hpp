// NVTX ranges of kbench's own domain ("kbench"): every host launcher in kernels/ opens one named
// after its kernel ("<family>::<launcher>", e.g. "spmv::csr_merge", "blas::gram"), so Nsight
// Systems shows a solver's phases by name on the kbench row and Nsight Compute can pick one
// kernel family with `--nvtx --nvtx-include "kbench@spmv::csr_merge/"`. A separate domain leaves
// the default-domain ranges of the benchmarks (`kbench profile`, anzt2015/table1) as they are.
// Without a tool attached an NVTX call returns at once.
#pragma once

#include <nvtx3/nvtx3.hpp>

namespace kbench {

/// The NVTX domain of kbench's kernel ranges.
struct nvtx_domain {
    static constexpr const char* name{"kbench"};
};

/// A scoped NVTX range in kbench's domain: pushed on construction, popped at scope exit.
using nvtx_range = nvtx3::scoped_range_in<nvtx_domain>;

}  // namespace kbench

/// Opens an NVTX range named `name` (a string literal) in kbench's domain until the end of the
/// enclosing scope.
#define KBENCH_NVTX_RANGE(name) const ::kbench::nvtx_range kbench_nvtx_range_(name)
