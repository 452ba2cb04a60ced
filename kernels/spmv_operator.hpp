// The SpMV operator the solvers use: built once from a CSR matrix, it owns the device copy of A
// in the storage of the kernel its policy chose and applies y = alpha*A*x + beta*y (and
// Y = alpha*A*X + beta*Y on n x k blocks) on a caller's stream. The policy is `auto` (the time
// model of models/spmv_time.hpp ranks every configuration of our kernels, kernels/
// spmv_policy.hpp; optionally the best few are timed once and the fastest kept; then the pick is
// timed once against cuSPARSE's CSR kernels, spmv::vendor_candidates, and the fastest kept) or
// one named kernel (csr_scalar, csr_vector, csr_adaptive, csr_merge, sellp, cusparse_csr,
// cusparse_csr_alg2, cusparse_sell).
#pragma once

#include "kernels/spmv_policy.hpp"
#include "matrices/csr.hpp"
#include "models/spmv_time.hpp"
#include "models/spmv_traffic.hpp"

#include <nlohmann/json_fwd.hpp>

#include <cuda_runtime_api.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace kbench::spmv {

/// How an operator picks its kernel.
struct Policy {
    std::string kernel = "auto";  // "auto" or one of kernel_names()
    bool trial = false;           // auto only: time the trial_candidates best predicted
    int trial_candidates = 3;     // configurations once each and keep the fastest
    SellpParams sellp{0, 0, 0, 0};  // kernel "sellp": non-zero fields override
                                    // choose_sellp_params (b, t, sigma, long_row_threshold)
    int subwarp = 0;                // kernel "csr_vector": 0 = choose_csr_subwarp
};

/// What an operator runs and why.
struct Choice {
    std::string policy;  // "auto" or the kernel asked for
    Kernel kernel = Kernel::csr_vector;
    SellpParams sellp{0, 0, 0, 0};  // sellp: the layout's parameters
    int subwarp = 0;                // csr_vector: lanes per row
    std::string reason;
    double predicted_us = 0.0;  // the model's time of the configuration run (0: not modeled)
    std::vector<Candidate> candidates;  // auto: the ranked configurations, fastest predicted first
    // auto: median us of each configuration timed (trial candidates, our pick, cuSPARSE's)
    std::vector<std::pair<std::string, double>> trial_us;
};

/// JSON of a choice: {policy, kernel, params, reason, predicted_us, candidates: [the best
/// `max_candidates` of them, or every one trial timed if more: {kernel, label, params, bytes, l2_bytes, padding_ratio,
/// sectors_per_gather, bound, predicted_us}], trial_us: {label: us}}.
nlohmann::json choice_json(const Choice& choice, std::size_t max_candidates = 8);

/// The parameters of the configuration a choice runs, as in results files: sellp {slice_height,
/// threads_per_row, sigma, long_row_threshold}, csr_vector {subwarp}, cuSPARSE {format,
/// algorithm}, others {}.
nlohmann::json choice_params(const Choice& choice);

/// What a solver's results entry records of its operator: {policy, kernel (its name),
/// params (choice_params)}.
nlohmann::json choice_summary(const Choice& choice);

/// SELL-P parameters of the named `sellp` kernel: choose_sellp_params(a) with every non-zero
/// field of `overrides` taking its place (so a long_row_threshold of 0 there means the default,
/// not "no split"; to disable the split pass a threshold >= the longest row).
template <typename T>
SellpParams resolve_sellp_params(const CsrView<T>& a, const SellpParams& overrides);

/// y = alpha*A*x + beta*y with a chosen kernel (T = float or double). Move-only; not safe to
/// apply from two host threads at once (cuSPARSE's descriptors are updated per call).
template <typename T>
class SpmvOperator {
public:
    /// Builds the operator of `a` (square or not) on the current device. `machine` feeds the
    /// model (spmv::machine_figures() measures it). `auto` on a matrix with nonzeros times its
    /// pick and each of spmv::vendor_candidates once (11 launches each, 2 of them warm-up, on
    /// scratch vectors) and keeps the fastest: a cuSPARSE kernel kept has predicted_us 0. Throws std::invalid_argument for an unknown
    /// kernel name, parameters the kernel rejects, trial on a named kernel or trial_candidates
    /// < 1; kbench::cuda_error on CUDA/cuSPARSE failures.
    SpmvOperator(const Csr<T>& a, const Policy& policy, const models::SpmvMachine& machine);
    ~SpmvOperator();
    SpmvOperator(SpmvOperator&&) noexcept;
    SpmvOperator& operator=(SpmvOperator&&) noexcept;

    index_type num_rows() const;
    index_type num_cols() const;
    std::int64_t nnz() const;

    /// Enqueues y = alpha*A*x + beta*y on `stream` (x: num_cols, y: num_rows device entries; y is
    /// not read when beta == 0).
    void apply(T alpha, const T* x, T beta, T* y, cudaStream_t stream);

    /// Enqueues Y = alpha*A*X + beta*Y for X num_cols x k and Y num_rows x k, column-major with
    /// leading dimensions ldx >= num_cols, ldy >= num_rows (kernels/spmm.hpp; the CSR kernels
    /// share the CSR SpMM). Throws std::invalid_argument for k < 0 or short leading dimensions.
    void apply_block(T alpha, const T* x, index_type ldx, T beta, T* y, index_type ldy,
                     index_type k, cudaStream_t stream);

    const Choice& choice() const;
    /// Device-memory traffic and flops of one apply (models/spmv_traffic.hpp).
    models::Traffic traffic(bool beta_nonzero = false) const;
    /// Matrix entries stored and read per apply, padding included.
    std::size_t stored_entries() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace kbench::spmv
