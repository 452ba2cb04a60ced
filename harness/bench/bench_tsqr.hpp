// The TSQR methods of solvers/orthogonalization (and cuSOLVER geqrf + orgqr, the one-block
// CAQR) on a tall-skinny block: ONE measurement of each point, used by `kbench bench tsqr` and
// by the yamazaki2014/fig11 runner's tsqr points (harness/studies/yamazaki2014/
// bench_tall_skinny.cpp), so that the study id and a hand-run benchmark of the same point
// measure the same thing the same way.
//
// A point is one variant at n rows and k columns: ortho::tsqr (V := Q in place, R on the host)
// of an n x k block, each call on a fresh copy: V is restored from its saved copy V0 with
// cudaMemcpyAsync and the stream synchronized OUTSIDE the timed region, then the call is timed by
// the host steady clock (seconds; the Gram-based methods synchronize with the host once per
// pass) and by CUDA events on the stream (event_seconds). One untimed warm-up call, whose
// outcome (status, detail) is reported and whose time sets the repetitions: min(repetitions,
// point_seconds / warm-up time), at least min_repetitions; medians over them.
// Model: flops the effective ones of DGEQRF + DORGQR (tsqr_effective_flops), bytes the columns
// its kernels read and write (tsqr_pass_columns) times n values.
#pragma once

#include "harness/bench/kernel_bench.hpp"
#include "harness/core/machine.hpp"
#include "solvers/orthogonalization/tsqr.hpp"
#include "solvers/orthogonalization/tsqr_gpu.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace kbench::harness {

/// The "effective" flops of a TSQR of an n x k block (yamazaki2014 Sec. V-F, Fig. 11c): those
/// of LAPACK's DGEQRF plus DORGQR, 2 n k^2 - 2 k^3 / 3 each, whatever the method does.
double tsqr_effective_flops(std::int64_t n, int k);

/// Columns of n values that a TSQR method's kernels read and write through device memory.
struct TsqrColumns {
    double read = 0.0;
    double written = 0.0;
    double total() const { return read + written; }
};

/// The columns of n values a method's kernels read and write (each kernel reading and writing
/// its operands once): the bandwidth bound of its passes over V; bytes = columns * n * value
/// bytes. See the definition for the count of each method; CAQR's count also serves the
/// one-block cuSOLVER QR (variant cusolver_qr). k >= 1; NaN fields for an unknown method.
TsqrColumns tsqr_pass_columns(ortho::TsqrMethod method, int k);

/// A TSQR variant: a method, or cusolver_qr (CAQR with one block of n rows).
struct TsqrVariant {
    std::string name;
    ortho::TsqrMethod method;
    bool one_block;
};

/// Every method of ortho::tsqr_methods(), then cusolver_qr.
std::vector<TsqrVariant> tsqr_variants();

/// Model bytes (read and written) and effective flops of one TSQR of n x k values of value_bytes.
models::Traffic tsqr_traffic(const TsqrVariant& v, std::int64_t n, int k, int value_bytes);

/// What one TSQR point measured.
struct TsqrTiming {
    double seconds = 0.0;        // median host time per call
    double event_seconds = 0.0;  // median CUDA-event time per call
    int repetitions = 0;         // timed calls
    ortho::TsqrOutcome first;    // the warm-up call's outcome
};

/// Measures variant `v` at n x k (see the file comment): V (ld = n) is restored from V0 before
/// every call; R is a host array of k x k (ldr = k); `workspace` holds at least
/// ortho::tsqr_workspace_bytes(v.method, h, n, k, sizeof(T), v.one_block ? n : 0) bytes.
/// Leaves V holding the Q of the last call. Throws what ortho::tsqr throws (std::invalid_argument
/// for bad arguments, kbench::cuda_error on CUDA failures).
template <typename T>
TsqrTiming measure_tsqr_point(const TsqrVariant& v, const ortho::GpuHandles& h, std::int64_t n,
                              int k, T* V, const T* V0, T* R, void* workspace,
                              std::size_t workspace_bytes, int repetitions, double point_seconds,
                              int min_repetitions);

// ---- `kbench bench tsqr` ----------------------------------------------------------------------

/// Most k of the family: blas::max_block_columns.
int tsqr_bench_max_k();

/// The names "tsqr/<variant>/<precision>/n=<n>/k=<k>" that a run of `o` measures, in run order,
/// the filter applied. Throws as validate does.
std::vector<std::string> tsqr_benchmark_names(const KernelBenchOptions& o);

/// Runs every selected point of `o` (validated first: std::invalid_argument naming the option)
/// on the random block of bench_tall_skinny.hpp (V, seed 11) and returns the results document
/// with id "bench/tsqr": kernel_bench_entry with real_time the host seconds, plus the counters
/// event_seconds, orthogonality = ||I - Q^T Q||_2 and max_rel_error = ||V - Q R||_F / ||V||_F
/// (ortho::tsqr_quality of the last call, on the host) and kbench.params status/detail;
/// kernel_bench_error_entry when the warm-up call did not end ok or the residual exceeds
/// bench_tolerance. The timing: o.run.repetitions (>= 3 timed calls, fewer beyond 1 s a point);
/// min_time and --cold are not used (each call is timed on its own). Progress on stderr.
nlohmann::json run_tsqr_bench(const KernelBenchOptions& o, const MachineProfile* machine);

}  // namespace kbench::harness
