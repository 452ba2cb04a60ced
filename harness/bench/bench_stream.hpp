// The STREAM-style bandwidth kernels (kernels/stream.hpp: copy, triad and the read-only
// reduction read_sum) at lengths of the user's choosing: `kbench bench stream`. No study runner
// measures these kernels point by point (the machine profile, harness/core/machine.cu, measures
// its bandwidths its own way), so the measurement lives here alone. STREAM's scale has no
// launcher in kernels/stream.hpp and is not a variant.
//
// A point is one variant at a length n, on a = pattern 1 and b = pattern 2 (harness/bench/
// bench_dot.hpp's patterns, rounded to T), c the output:
//   copy   c = a                (stream::copy)      n reads + n writes, 0 flops
//   triad  c = a + 3 b          (stream::triad)     2n reads + n writes, 2n flops
//   read   *s = sum_i a_i       (stream::read_sum)  n reads + 1 write, n flops (the partial sums
//                                                   of its two stages not counted)
// One warm-up call, compared with the CPU reference twin (stream::reference::copy, triad,
// read_sum): max_rel_error = max_i |out_i - ref_i| / max_i |ref_i|; then time_point
// (harness/bench/kernel_bench.hpp), CUDA events. Names "stream/<variant>/<precision>/n=<n>".
#pragma once

#include "harness/bench/kernel_bench.hpp"
#include "harness/core/machine.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace kbench::harness {

enum class StreamVariant { copy, triad, read };

/// Every variant, in run order.
const std::vector<StreamVariant>& stream_variants();

/// "copy", "triad", "read".
const char* to_string(StreamVariant v);

/// Model bytes and flops of one call on n elements (see the file comment).
models::Traffic stream_traffic(StreamVariant v, std::int64_t n, int value_bytes);

/// Most n of the family (2^40: far beyond any device memory; the buffers fail first).
std::int64_t stream_bench_max_n();

/// The names "stream/<variant>/<precision>/n=<n>" that a run of `o` measures (o.ks empty: the
/// family has no k), in run order, the filter applied. Throws as validate does.
std::vector<std::string> stream_benchmark_names(const KernelBenchOptions& o);

/// Runs every selected point of `o` (validated first: std::invalid_argument naming the option)
/// and returns the results document with id "bench/stream" (kernel_bench_entry;
/// kernel_bench_error_entry when max_rel_error exceeds bench_tolerance). `machine` (may be null)
/// gives bw_frac_*. Progress on stderr.
nlohmann::json run_stream_bench(const KernelBenchOptions& o, const MachineProfile* machine);

}  // namespace kbench::harness
