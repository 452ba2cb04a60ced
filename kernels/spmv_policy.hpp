// The SpMV kernels kbench can run and the `auto` policy that chooses one for a matrix: every
// configuration of our kernels is costed by the time model of models/spmv_time.hpp from the
// matrix's row lengths and column pattern (traffic with the padding and permutation of each
// SELL-P layout, x-gather sectors, chains of dependent loads) and measured machine figures, and
// the fastest predicted one is chosen. Host code only (no GPU needed); the operator that runs
// the choice is kernels/spmv_operator.hpp.
#pragma once

#include "matrices/csr.hpp"
#include "matrices/sellp.hpp"
#include "models/spmv_time.hpp"
#include "models/spmv_traffic.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace kbench::spmv {

/// SpMV kernels: ours (kernels/spmv.hpp) and the cuSPARSE baselines (kernels/spmv_cusparse.hpp).
/// New kernels are appended, so earlier ones keep their index.
enum class Kernel {
    csr_scalar,
    csr_vector,
    csr_adaptive,
    sellp,
    cusparse_csr,
    cusparse_sell,
    csr_merge,
    cusparse_csr_alg2,
};

/// Kernel names in enum order: csr_scalar, csr_vector, csr_adaptive, sellp, cusparse_csr,
/// cusparse_sell, csr_merge, cusparse_csr_alg2.
const std::vector<std::string>& kernel_names();

/// The name of a kernel ("sellp").
const std::string& kernel_name(Kernel kernel);

/// The kernel of a name. Throws std::invalid_argument "unknown SpMV kernel '<name>' (valid
/// kernels: ...)".
Kernel parse_kernel(const std::string& name);

/// One configuration of one of our kernels with its modeled cost (beta = 0, one product).
struct Candidate {
    Kernel kernel = Kernel::csr_vector;
    SellpParams sellp{0, 0, 0, 0};  // sellp only: b, t, sigma, long_row_threshold
    int subwarp = 0;                // csr_vector only
    std::int64_t stored_entries = 0;  // matrix entries read, SELL-P padding included
    std::int64_t long_rows = 0;       // rows handed to the long-row kernel (sellp, csr_adaptive);
                                      // csr_merge: rows split across tiles (fix-up kernel)
    models::Traffic traffic;          // device-memory traffic (models/spmv_traffic.hpp)
    double l2_bytes = 0.0;            // bytes through L2: matrix, x-gather sectors, y
    double gather_bytes = 0.0;        // x-gather sectors that L1 does not serve, x 32 bytes
    double sectors_per_gather = 0.0;  // mean distinct 32-byte sectors per warp gather of x
    int launches = 1;
    models::LaunchShape shapes[2];
    models::SpmvTime time;

    double predicted_us() const { return time.total() * 1e6; }
    double padding_ratio() const;  // stored_entries / nnz (1 for an empty matrix)
    /// "sellp b=64 t=1 sigma=1", "csr_vector subwarp=8", "csr_adaptive".
    std::string label() const;
};

/// Row-length statistics of a matrix, which decide whether `auto` considers the merge-based
/// kernel.
struct RowLengthStats {
    std::int64_t num_rows = 0;
    std::int64_t nnz = 0;
    std::int64_t max_len = 0;  // longest row
    double cv = 0.0;           // coefficient of variation: standard deviation / mean (0 if empty)
    double mean() const { return num_rows > 0 ? double(nnz) / double(num_rows) : 0.0; }
    double max_over_mean() const { return nnz > 0 ? double(max_len) / mean() : 0.0; }
};

/// The statistics of `a` (host arrays), O(num_rows).
template <typename T>
RowLengthStats row_length_stats(const CsrView<T>& a);

/// Skew thresholds of merge_is_candidate.
inline constexpr double merge_min_cv = 1.0;
inline constexpr double merge_min_max_over_mean = 16.0;

/// Whether `auto` ranks csr_merge for a matrix of these statistics: its rows are skewed, the
/// row lengths' coefficient of variation >= merge_min_cv (power-law and graph degree
/// distributions) or the longest row >= merge_min_max_over_mean times the mean (a few very long
/// rows, the long-row threshold of choose_sellp_params). On such rows the row-based kernels
/// leave some threads or warps far more work than others, which the time model charges as a
/// long dependent-load chain; the merge kernel gives every warp the same share. On regular rows
/// the merge kernel only adds its plan's traffic and shared-memory staging, which the model does
/// not see, so it is not ranked there. A matrix without nonzeros is not skewed.
bool merge_is_candidate(const RowLengthStats& s);

/// The cuSPARSE kernels `auto` times against its own pick (issue 29): the time model has no
/// figure for a vendor kernel, so the operator measures each once on the matrix and keeps the
/// fastest. cusparse_csr (CSR ALG1, cuSPARSE's default) always; cusparse_csr_alg2 (its
/// merge-based CSR) too where merge_is_candidate(s), the rows it is made for; none for a matrix
/// without nonzeros. cusparse_sell is not timed: its slices of 32 rows pad like an unsorted
/// SELL-P of b = 32, one of the configurations the model already ranks.
std::vector<Kernel> vendor_candidates(const RowLengthStats& s);

/// Models one configuration of `a` (host arrays; T = float or double). kernel must be
/// csr_vector (subwarp in {2, 4, 8, 16, 32}), csr_adaptive, csr_merge or sellp (params as
/// to_sellp takes them). Throws std::invalid_argument for another kernel (csr_scalar's
/// uncoalesced loads and cuSPARSE's internals are not modeled) or bad parameters.
template <typename T>
Candidate model_candidate(const CsrView<T>& a, Kernel kernel, const SellpParams& sellp,
                          int subwarp, const models::SpmvMachine& machine);

/// Every configuration `auto` considers, fastest predicted first (predictions within 1 % are
/// ranked by fewer L2 bytes, then fewer threads, then the order below):
/// csr_adaptive; csr_vector with subwarp 2..32, those of at least mean row length / 4 lanes
/// (narrower ones loop over partly used sectors, see spmv_policy.cpp); sellp with b in {32, 64}, t in {1, 2, ..., 32}
/// (b*t <= 1024), sigma in {1, sorting window} and the default long-row threshold; csr_merge when
/// merge_is_candidate(row_length_stats(a)). The sorting
/// window is the rows in flight at once, sm_count * max_threads_per_sm rounded down to a
/// multiple of 64 (all rows when fewer): sorting within it leaves the set of rows processed
/// together, and so the L2 footprint of x, unchanged. Throws std::invalid_argument for a machine
/// with non-positive figures.
template <typename T>
std::vector<Candidate> rank_candidates(const CsrView<T>& a, const models::SpmvMachine& machine);

}  // namespace kbench::spmv
