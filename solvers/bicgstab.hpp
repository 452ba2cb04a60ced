// BiCGSTAB (van der Vorst 1992; anzt2015 Fig. 1) on the GPU in the forms anzt2015 compares, plus
// one beyond it, and on the CPU (Eigen) as the correctness reference and CPU baseline.
//
// Every GPU form takes the shared SpMV operator (kernels/spmv_operator.hpp): the paper's form
// (a)/(b) with CSR and (c) with SELL-P are (form, operator policy) pairs, e.g.
// {reference, cusparse_csr}, {merged, cusparse_csr}, {merged, auto}.
#pragma once

#include "kernels/spmv_operator.hpp"
#include "matrices/csr.hpp"
#include "solvers/solve_result.hpp"

#include <cuda_runtime_api.h>

#include <string>
#include <vector>

namespace kbench::solvers {

/// The iteration loop's implementation.
enum class BicgstabForm {
    /// anzt2015 Fig. 1 right: cuBLAS scal/axpy/copy/dot calls and the SpMV, scalars on the host
    /// (each dot returns its value to the host), 25n reads + 9n writes per iteration besides the
    /// SpMVs (anzt2015 Table 1 left).
    reference,
    /// anzt2015 Fig. 2: the fused kernels of kernels/bicgstab_kernels.hpp, scalars on the
    /// device, one copy of the residual norm (and status) to the host per iteration; 14n reads +
    /// 4n writes (Table 1 right).
    merged,
    /// kbench: the merged iteration captured once into a CUDA graph whose body repeats under a
    /// conditional WHILE node (CUDA >= 12.4); the stopping test runs on the device, so the host
    /// waits once per solve instead of once per iteration.
    graph,
};

/// "reference", "merged" or "graph"; parse_bicgstab_form throws std::invalid_argument naming
/// the accepted names for anything else.
const char* to_string(BicgstabForm form);
BicgstabForm parse_bicgstab_form(const std::string& name);

struct BicgstabOptions {
    BicgstabForm form = BicgstabForm::merged;
    double tolerance = 1e-8;   // stop when ||r_i|| / ||b|| <= tolerance (recurrence residual)
    int max_iterations = 1000;
    /// Fixed iteration count: run max_iterations iterations with the tolerance and stagnation
    /// tests off (anzt2015's 1000-iteration profiles); breakdowns still stop the run.
    bool timing_mode = false;
    /// Stagnation (solvers/stagnation.hpp): the smallest window, in iterations; stop after
    /// iteration k when the smallest residual of the last W(k) = max(stagnation_window, 3k/4)
    /// iterations is not 0.1 % below the smallest one before them (0: never). BiCGSTAB's residual
    /// is not monotone, hence best-so-far values over a window that grows with the run.
    int stagnation_window = 200;
    /// Detailed run (anzt2015 Table 4): every phase of an iteration (each cuBLAS call or fused
    /// kernel, each SpMV, the stopping test) is bracketed by CUDA events and an NVTX range named
    /// after it (the names of models/bicgstab_model.hpp's kernel tables, "SpMV v = A p",
    /// "SpMV t = A s", "stopping test"); SolveResult::phases gets the times. The events cost
    /// time, so time a form's iteration in a run without it. Not for the graph form (its kernels
    /// run inside one graph launch): bicgstab throws std::invalid_argument.
    bool detailed = false;
};

/// Solves A x = b with BiCGSTAB on the GPU; x holds x0 on entry and the solution on return.
/// A: the operator of an n x n matrix; b, x: device vectors of n entries; all work is enqueued on
/// `stream` and the call returns after it completed. Throws std::invalid_argument for a
/// non-square operator, tolerance < 0 or not finite, max_iterations < 0, stagnation_window < 0,
/// or `detailed` with the graph form; kbench::cuda_error on CUDA/cuBLAS failures. Breakdown
/// (rho = 0, r_hat . v = 0, omega = 0), non-finite scalars and stagnation are reported in the
/// result's status, never thrown.
/// Source: anzt2015 Sec. 2-3 (Figs. 1-2); the graph form is kbench's.
template <typename T>
SolveResult bicgstab(spmv::SpmvOperator<T>& a, const T* b, T* x, const BicgstabOptions& options,
                     cudaStream_t stream);

/// The same solve on the CPU with Eigen's BiCGSTAB (identity preconditioner, Eigen's own SpMV),
/// as the reference and the CPU baseline. a: host CSR, b, x: host vectors of n entries (x: x0
/// on entry). Eigen reports no per-iteration history: residual_history holds the initial and
/// the final relative residual. timing_mode and stagnation_window are ignored (Eigen has
/// neither); an Eigen NumericalIssue is reported as breakdown.
template <typename T>
SolveResult bicgstab_cpu(const Csr<T>& a, const std::vector<T>& b, std::vector<T>& x,
                         const BicgstabOptions& options);

}  // namespace kbench::solvers
