// Memory-traffic and flop models of SpMV y = alpha*A*x + beta*y (anzt2015 Sec. 3.1 and Sec. 4.2:
// SpMV is bandwidth bound, so its time is modeled as bytes moved / bandwidth).
//
// Each model counts the fewest bytes the kernel must move through device memory: every matrix
// array read once, x read once (perfect reuse through the caches), y written once and read once
// when beta != 0. Padding entries of SELL-P are read like nonzeros. Flops count only the true
// nonzeros: 2 per nonzero (multiply + add); the alpha/beta scaling (<= 3 per row) is ignored,
// as in anzt2015 Table 3.
#pragma once

#include <cstddef>
#include <cstdint>

namespace kbench::models {

/// Bytes and flops of one kernel call.
struct Traffic {
    double bytes_read = 0.0;
    double bytes_written = 0.0;
    double flops = 0.0;
    constexpr double bytes() const { return bytes_read + bytes_written; }
};

/// CSR SpMV: n x m matrix with nnz nonzeros, values of `value_bytes`, indices of `index_bytes`.
constexpr Traffic csr_spmv(std::int64_t n, std::int64_t m, std::int64_t nnz,
                           int value_bytes, int index_bytes = 4, bool beta_nonzero = false)
{
    Traffic t;
    t.bytes_read = static_cast<double>(nnz) * value_bytes          // values
                   + static_cast<double>(nnz) * index_bytes        // column indices
                   + static_cast<double>(n + 1) * index_bytes      // row pointers
                   + static_cast<double>(m) * value_bytes          // x, once
                   + (beta_nonzero ? static_cast<double>(n) * value_bytes : 0.0);  // y in
    t.bytes_written = static_cast<double>(n) * value_bytes;        // y out
    t.flops = 2.0 * static_cast<double>(nnz);
    return t;
}

/// CSR-Adaptive SpMV (kernels/spmv.hpp): the CSR traffic plus its plan, `blocks` row blocks of
/// 4 indices each and `long_rows` row indices of the rows reduced by the long-row kernel.
constexpr Traffic csr_adaptive_spmv(std::int64_t n, std::int64_t m, std::int64_t nnz,
                                    std::int64_t blocks, std::int64_t long_rows, int value_bytes,
                                    int index_bytes = 4, bool beta_nonzero = false)
{
    Traffic t = csr_spmv(n, m, nnz, value_bytes, index_bytes, beta_nonzero);
    t.bytes_read += static_cast<double>(blocks) * 4 * index_bytes       // row blocks
                    + static_cast<double>(long_rows) * index_bytes;      // long row indices
    return t;
}

/// Merge-based CSR SpMV (Merrill & Garland, SC16; kernels/spmv.hpp csr_merge): the CSR traffic
/// plus its plan and carry-outs. `tiles` tiles read their start and end coordinates (tiles + 1
/// coordinates of 2 indices; neighbours share one) and each writes one carry-out value; when
/// rows are split across tiles, the fix-up kernel reads `runs` run descriptors (4 indices) and
/// the `carry_tiles` carry-outs they cover, and reads and rewrites y of the `runs` split rows.
/// The row pointers are read once as in CSR (a tile reads those of the rows it ends).
constexpr Traffic csr_merge_spmv(std::int64_t n, std::int64_t m, std::int64_t nnz,
                                 std::int64_t tiles, std::int64_t runs, std::int64_t carry_tiles,
                                 int value_bytes, int index_bytes = 4, bool beta_nonzero = false)
{
    Traffic t = csr_spmv(n, m, nnz, value_bytes, index_bytes, beta_nonzero);
    t.bytes_read += static_cast<double>(tiles + 1) * 2 * index_bytes           // coordinates
                    + static_cast<double>(runs) * 4 * index_bytes              // run descriptors
                    + static_cast<double>(carry_tiles) * value_bytes           // carry-outs in
                    + static_cast<double>(runs) * value_bytes;                 // y of split rows
    t.bytes_written += static_cast<double>(tiles) * value_bytes                // carry-outs out
                       + static_cast<double>(runs) * value_bytes;              // y of split rows
    return t;
}

/// SELL-P SpMV (anzt2015 Sec. 3.1): `stored` entries including padding in `slices` slices, the
/// long-row part's entries included; with SELL-C-sigma (`permuted`) the row permutation (n
/// indices) is read as well. With the long-row split (kbench extension, matrices/sellp.hpp),
/// `long_rows` rows are stored as CSR: their row pointers and row indices are read, and the
/// second kernel reads and rewrites y of those rows after the SELL-P pass wrote it.
constexpr Traffic sellp_spmv(std::int64_t n, std::int64_t m, std::int64_t nnz,
                             std::int64_t stored, std::int64_t slices, int value_bytes,
                             int index_bytes = 4, bool beta_nonzero = false,
                             bool permuted = false, std::int64_t long_rows = 0)
{
    const bool split = long_rows > 0;
    Traffic t;
    t.bytes_read = static_cast<double>(stored) * value_bytes          // values incl. padding
                   + static_cast<double>(stored) * index_bytes        // column indices
                   + static_cast<double>(slices + 1) * index_bytes    // slice pointers
                   + (permuted ? static_cast<double>(n) * index_bytes : 0.0)  // row permutation
                   + static_cast<double>(m) * value_bytes             // x, once
                   + (beta_nonzero ? static_cast<double>(n) * value_bytes : 0.0)  // y in
                   // long-part row pointers (none without a split)
                   + (split ? static_cast<double>(long_rows + 1) * index_bytes : 0.0)
                   + static_cast<double>(long_rows) * index_bytes     // long row indices
                   + static_cast<double>(long_rows) * value_bytes;    // y re-read (long rows)
    t.bytes_written = static_cast<double>(n) * value_bytes            // y out
                      + static_cast<double>(long_rows) * value_bytes;  // y re-written (long rows)
    t.flops = 2.0 * static_cast<double>(nnz);
    return t;
}

/// Passes over the matrix of the SpMM kernels of kernels/spmm.hpp for k columns: chunks of 4
/// columns, then one of 2, then one of 1 (k / 4 + [k mod 4 >= 2] + k mod 2).
constexpr std::int64_t spmm_passes(std::int64_t k)
{
    return k / 4 + (k % 4 >= 2 ? 1 : 0) + k % 2;
}

/// SpMM Y = alpha*A*X + beta*Y on k columns (kernels/spmm.hpp, X m x k, Y n x k) from the SpMV
/// traffic `spmv` of the same storage (one column, the models above): the matrix arrays are
/// read once per pass over the matrix (`passes`: spmm_passes(k) for kbench's kernels, 1 for the
/// least an SpMM moves, k for one SpMV per column), each column of X is read once and each
/// column of Y written once (and read when beta != 0):
///   bytes_read    = passes (spmv.bytes_read - m vb - [beta] n vb) + k m vb + [beta] k n vb
///   bytes_written = k spmv.bytes_written,  flops = k spmv.flops   (vb = value_bytes).
/// SELL-P's long-row re-read of y (sellp_spmv) is counted once per pass, its rewrite per column.
constexpr Traffic spmm_traffic(const Traffic& spmv, std::int64_t n, std::int64_t m,
                               std::int64_t k, std::int64_t passes, int value_bytes,
                               bool beta_nonzero = false)
{
    const double vb = value_bytes;
    const double y_in = beta_nonzero ? static_cast<double>(n) * vb : 0.0;
    const double matrix = spmv.bytes_read - static_cast<double>(m) * vb - y_in;
    Traffic t;
    t.bytes_read = static_cast<double>(passes) * matrix +
                   static_cast<double>(k) * (static_cast<double>(m) * vb + y_in);
    t.bytes_written = static_cast<double>(k) * spmv.bytes_written;
    t.flops = static_cast<double>(k) * spmv.flops;
    return t;
}

/// Achieved bandwidth in GB/s (1e9 bytes per second) of `traffic` moved in `seconds`.
constexpr double gb_per_s(const Traffic& traffic, double seconds)
{
    return traffic.bytes() / seconds * 1e-9;
}

/// Achieved GFlop/s (1e9 flops per second).
constexpr double gflop_per_s(const Traffic& traffic, double seconds)
{
    return traffic.flops / seconds * 1e-9;
}

/// Improvement zeta_M = 1 - T_new / T_ref (anzt2015 Table 3): the fraction of the reference
/// time saved by switching kernels; negative when the new kernel is slower.
constexpr double improvement(double t_ref, double t_new) { return 1.0 - t_new / t_ref; }

}  // namespace kbench::models
