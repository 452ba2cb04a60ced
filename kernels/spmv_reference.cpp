// CPU reference SpMV (twins of kernels/spmv.cu). Products are accumulated in double, so the
// reference is at least as accurate as the kernels, which accumulate in T.
#include "kernels/spmv.hpp"

#include "kernels/merge_path.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace kbench::spmv::reference {
namespace {

template <typename T>
void store(T* y, index_type row, T alpha, double sum, T beta)
{
    const double out = double(alpha) * sum + (beta == T{0} ? 0.0 : double(beta) * double(y[row]));
    y[row] = static_cast<T>(out);
}

}  // namespace

template <typename T>
void csr(const CsrView<T>& a, T alpha, const T* x, T beta, T* y)
{
    if (a.num_rows < 0 || a.num_cols < 0)
        throw std::invalid_argument("spmv::reference::csr: negative dimension " +
                                    std::to_string(a.num_rows) + " x " +
                                    std::to_string(a.num_cols));
    for (index_type i = 0; i < a.num_rows; ++i) {
        double sum = 0.0;
        for (index_type k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k)
            sum += double(a.values[k]) * double(x[a.col_idx[k]]);
        store(y, i, alpha, sum, beta);
    }
}

template <typename T>
void sellp(const SellpView<T>& a, T alpha, const T* x, T beta, T* y)
{
    validate_view(a, "spmv::reference::sellp");
    const index_type b = a.slice_height;
    // Sum of a row's long-part entries (0 for a row that is not long; long_rows is increasing).
    const index_type* long_end = a.long_rows == nullptr ? nullptr : a.long_rows + a.num_long_rows;
    const auto long_sum = [&](index_type orig) {
        const index_type* it = std::lower_bound(a.long_rows, long_end, orig);
        if (it == long_end || *it != orig) return 0.0;
        const std::ptrdiff_t k = it - a.long_rows;
        double sum = 0.0;
        for (index_type e = a.long_row_ptr[k]; e < a.long_row_ptr[k + 1]; ++e)
            sum += double(a.long_values[e]) * double(x[a.long_col_idx[e]]);
        return sum;
    };
    for (index_type s = 0; s < a.num_slices; ++s) {
        const index_type len = (a.slice_ptr[s + 1] - a.slice_ptr[s]) / b;
        for (index_type r = 0; r < b; ++r) {
            const index_type row = s * b + r;
            if (row >= a.num_rows) break;
            double sum = 0.0;
            for (index_type j = 0; j < len; ++j) {
                const std::size_t k = std::size_t(a.slice_ptr[s]) + std::size_t(j) * b + r;
                sum += double(a.values[k]) * double(x[a.col_idx[k]]);
            }
            const index_type orig = a.row_perm == nullptr ? row : a.row_perm[row];
            store(y, orig, alpha, sum + long_sum(orig), beta);
        }
    }
}

template <typename T>
void csr_adaptive(const CsrAdaptiveView<T>& a, T alpha, const T* x, T beta, T* y)
{
    const CsrView<T>& m = a.csr;
    const auto row_sum = [&](index_type i) {
        double sum = 0.0;
        for (index_type k = m.row_ptr[i]; k < m.row_ptr[i + 1]; ++k)
            sum += double(m.values[k]) * double(x[m.col_idx[k]]);
        return sum;
    };
    for (index_type b = 0; b < a.num_blocks; ++b) {
        const CsrRowBlock& blk = a.blocks[b];
        if (blk.row_begin < 0 || blk.row_end > m.num_rows || blk.row_begin >= blk.row_end ||
            blk.nnz_begin != m.row_ptr[blk.row_begin] || blk.nnz_end != m.row_ptr[blk.row_end])
            throw std::invalid_argument("spmv::reference::csr_adaptive: row block " +
                                        std::to_string(b) + " does not match the matrix");
        for (index_type i = blk.row_begin; i < blk.row_end; ++i) store(y, i, alpha, row_sum(i), beta);
    }
    for (index_type k = 0; k < a.num_long_rows; ++k) {
        const index_type i = a.long_rows[k];
        if (i < 0 || i >= m.num_rows)
            throw std::invalid_argument("spmv::reference::csr_adaptive: long row " +
                                        std::to_string(i) + " out of range");
        store(y, i, alpha, row_sum(i), beta);
    }
}

template <typename T>
void csr_merge(const CsrMergeView<T>& a, T alpha, const T* x, T beta, T* y)
{
    const CsrView<T>& m = a.csr;
    if (m.num_rows < 0 || m.num_cols < 0 || m.nnz < 0 || a.num_tiles < 0 || a.num_runs < 0)
        throw std::invalid_argument("spmv::reference::csr_merge: negative size");
    const auto bad = [](const std::string& what) {
        throw std::invalid_argument("spmv::reference::csr_merge: " + what);
    };
    constexpr int lanes = csr_merge_tile_threads;
    constexpr int items = csr_merge_items_per_thread;
    const std::int64_t length = std::int64_t{m.num_rows} + m.nnz;
    if (a.num_tiles != (length + csr_merge_tile_items - 1) / csr_merge_tile_items)
        bad("plan of " + std::to_string(a.num_tiles) + " tiles for a merge path of " +
            std::to_string(length) + " items");
    const auto n = static_cast<std::size_t>(m.num_rows);
    std::vector<double> total(n, 0.0);  // the row's product, summed from its pieces
    std::vector<int> ended(n, 0);       // lanes that ended the row (must be 1)
    std::vector<double> carry(static_cast<std::size_t>(a.num_tiles), 0.0);
    std::vector<index_type> end;
    for (index_type t = 0; t < a.num_tiles; ++t) {
        const CsrMergeCoord c0 = a.coords[t], c1 = a.coords[t + 1];
        for (const auto& [c, d] : {std::pair{c0, std::int64_t{t} * csr_merge_tile_items},
                                   std::pair{c1, std::int64_t{t + 1} * csr_merge_tile_items}}) {
            const auto want = merge_path::search<std::int64_t>(
                std::min(d, length), m.num_rows > 0 ? m.row_ptr + 1 : m.row_ptr,
                std::int64_t{m.num_rows}, std::int64_t{m.nnz});
            if (c.row != want.row || c.nz != want.nz)
                bad("tile coordinate (" + std::to_string(c.row) + ", " + std::to_string(c.nz) +
                    ") of diagonal " + std::to_string(d) + " is not on the merge path");
        }
        const int rows = c1.row - c0.row, nnz = c1.nz - c0.nz;
        end.assign(static_cast<std::size_t>(rows) + 1, 0);
        for (int i = 0; i < rows; ++i) end[i] = m.row_ptr[c0.row + i + 1] - c0.nz;
        end[rows] = csr_merge_tile_items + 1;
        // Lanes as the kernel runs them: each lane's running sum, its first row end held back.
        double scan[lanes];
        int end_row[lanes];
        const int len = rows + nnz;
        for (int l = 0; l < lanes; ++l) {
            const int d0 = std::min(l * items, len), d1 = std::min(d0 + items, len);
            const auto start = merge_path::search<int>(d0, end.data(), rows, nnz);
            int row = start.row, j = start.nz;
            double sum = 0.0;
            bool first = true;
            for (int d = d0; d < d1; ++d) {
                if (j < end[row]) {
                    const index_type k = c0.nz + j++;
                    sum += double(m.values[k]) * double(x[m.col_idx[k]]);
                    continue;
                }
                const index_type r = c0.row + row++;
                total[r] += sum;
                ++ended[r];
                // The first row end also gets the lanes before it in the same row (the scan).
                if (first && l > 0 && end_row[l - 1] == start.row) total[r] += scan[l - 1];
                first = false;
                sum = 0.0;
            }
            end_row[l] = row;
            scan[l] = sum + (l > 0 && end_row[l - 1] == row ? scan[l - 1] : 0.0);
        }
        carry[t] = scan[lanes - 1];
    }
    // Runs: exactly the tiles that end inside a row after some of its nonzeros.
    std::vector<char> in_run(carry.size(), 0);
    for (index_type k = 0; k < a.num_runs; ++k) {
        const CsrMergeRun& run = a.runs[k];
        if (run.row < 0 || run.row >= m.num_rows || run.tile_begin < 0 ||
            run.tile_begin >= run.tile_end || run.tile_end > a.num_tiles)
            bad("run " + std::to_string(k) + " out of range");
        double sum = 0.0;
        for (index_type t = run.tile_begin; t < run.tile_end; ++t) {
            if (a.coords[t + 1].row != run.row || in_run[t]++)
                bad("run " + std::to_string(k) + " holds tile " + std::to_string(t) +
                    ", which does not end in row " + std::to_string(run.row) + " or is in two runs");
            sum += carry[t];
        }
        total[run.row] += sum;
    }
    for (index_type t = 0; t < a.num_tiles; ++t) {
        const CsrMergeCoord e = a.coords[t + 1];
        const bool splits = e.row < m.num_rows && e.nz > m.row_ptr[e.row];
        if (splits != bool(in_run[t]))
            bad("tile " + std::to_string(t) + (splits ? " ends inside row " : " is in a run but ends at row ") +
                std::to_string(e.row) + (splits ? " but is in no run" : "'s start"));
    }
    for (index_type i = 0; i < m.num_rows; ++i) {
        if (ended[i] != 1)
            bad("row " + std::to_string(i) + " ended by " + std::to_string(ended[i]) + " lanes");
        store(y, i, alpha, total[i], beta);
    }
}

template void csr<float>(const CsrView<float>&, float, const float*, float, float*);
template void csr<double>(const CsrView<double>&, double, const double*, double, double*);
template void sellp<float>(const SellpView<float>&, float, const float*, float, float*);
template void sellp<double>(const SellpView<double>&, double, const double*, double, double*);
template void csr_adaptive<float>(const CsrAdaptiveView<float>&, float, const float*, float,
                                  float*);
template void csr_merge<float>(const CsrMergeView<float>&, float, const float*, float, float*);
template void csr_merge<double>(const CsrMergeView<double>&, double, const double*, double,
                                double*);
template void csr_adaptive<double>(const CsrAdaptiveView<double>&, double, const double*, double,
                                   double*);

}  // namespace kbench::spmv::reference
