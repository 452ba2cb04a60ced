// `kbench bench spmm`: the sparse times dense-block product Y = A X (kernels/spmm.hpp; the block
// SpMV of block GMRES, boman2022, and of the matrix powers kernel, yamazaki2014) through the
// SpMV operator's apply_block (kernels/spmv_operator.hpp), as the solvers call it, against
// cuSPARSE, over the matrices of a set (as `kbench bench spmv` takes them: --set, --matrix-dir,
// --real) at block widths k.
//
// Kernels (spmm_kernels()), each an spmv::SpmvOperator of that policy applied with apply_block:
//   csr_vector    spmm::csr_vector (one sub-warp per row, chunks of up to 4 columns)
//   sellp         spmm::sellp (SELL-P, chunks of up to 4 columns)
//   cusparse_csr  cusparseSpMM, CSR, CUSPARSE_SPMM_CSR_ALG1
//   cusparse_sell cuSPARSE sliced ELL has no SpMM: one cusparseSpMV per column
//   auto          the operator's own choice (its SpMM)
// Names "spmm/<kernel>/<precision>/<matrix>/k=<k>". Values: X (m x k, column-major, ld m) holds
// x_ij = 1 + ((i + 7 j) mod 13) / 16 (exact in float and double), alpha = 1, beta = 0; Y (n x k,
// ld n) starts as NaN before the warm-up call, so rows a kernel skips are caught. Check: the
// warm-up call's Y against spmm::reference::csr (column by column, double accumulation):
// max_rel_error = max |Y - ref| / max |ref| over the k columns. Timing: time_point (harness/
// bench/kernel_bench.hpp), CUDA events.
// Model (models/spmv_traffic.hpp, spmm_traffic from the operator's SpMV traffic): the matrix
// read once per pass over it (spmm_passes(k) for csr_vector and sellp, 1 for cusparse_csr, the
// least an SpMM moves, k for cusparse_sell), X and Y once per column; flops 2 nnz k.
#pragma once

#include "harness/bench/kernel_bench.hpp"
#include "harness/core/machine.hpp"
#include "harness/core/study_context.hpp"
#include "kernels/spmv_policy.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace kbench::harness {

/// What `kbench bench spmm` measures.
struct SpmmBenchOptions {
    MatrixSource source;               // the matrix set
    std::vector<std::string> kernels;  // subset of spmm_kernels(); empty: all of them
    KernelBenchOptions kernel;         // ks, precisions, run, filter (ns unused: empty)
};

/// csr_vector, sellp, cusparse_csr, cusparse_sell, auto.
const std::vector<std::string>& spmm_kernels();

/// Parses a comma-separated list of spmm_kernels() (empty: all). Throws std::invalid_argument
/// naming --kernels, the unknown kernel and the valid ones.
std::vector<std::string> parse_spmm_kernels(const std::string& list);

/// Most k of the family: 64 (blas::max_block_columns, the widest block of block GMRES here).
int spmm_bench_max_k();

/// Passes over the matrix that the SpMM of an operator running `kernel` makes for k columns:
/// models::spmm_passes(k) for kbench's kernels, 1 for the cuSPARSE CSR ones (cusparseSpMM), k
/// for cusparse_sell (one SpMV per column).
std::int64_t spmm_matrix_passes(spmv::Kernel kernel, int k);

/// "spmm/<kernel>/<precision>/<matrix>/k=<k>".
std::string spmm_benchmark_name(const std::string& kernel, const std::string& precision,
                                const std::string& matrix, int k);

/// The names a run of `o` measures, in run order (per matrix of the set, precision, kernel and
/// k), the filter applied. Validates first: std::invalid_argument naming the option (--k,
/// --precision, --kernels, --repetitions, --min-time, --filter; --n is refused) and the
/// set's loading errors (unknown set, missing matrix directory).
std::vector<std::string> spmm_benchmark_names(const SpmmBenchOptions& o);

/// Runs every selected point and returns the results document with id "bench/spmm" (matrix set
/// and matrices in the context, one entry per point: measurement_entry with the matrix in the
/// name and kbench.matrix, params passes, nnz and the operator's choice). `machine` (may be
/// null) gives bw_frac_* and the auto policy's figures (measured by spmv::machine_figures()
/// without it). Throws as spmm_benchmark_names, kbench::cuda_error on CUDA failures.
nlohmann::json run_spmm_bench(const SpmmBenchOptions& o, const MachineProfile* machine);

}  // namespace kbench::harness
