// CSR <-> SELL-P conversion (anzt2015 Sec. 3.1, Figs. 3-4; SELL-C-sigma sorting after
// Kreutzer et al. 2014; long-row split: kbench extension, in the spirit of ELL+COO hybrids).
// Layout documented in matrices/sellp.hpp (SellpView).
#include "matrices/sellp.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

namespace kbench {
namespace {

bool is_power_of_two(index_type v) { return v > 0 && (v & (v - 1)) == 0; }

void check_params(const SellpParams& p)
{
    const auto bad = [](const std::string& msg) {
        throw std::invalid_argument("to_sellp: " + msg);
    };
    if (p.slice_height < 1)
        bad("slice_height b = " + std::to_string(p.slice_height) + ", expected b >= 1");
    if (!is_power_of_two(p.threads_per_row))
        bad("threads_per_row t = " + std::to_string(p.threads_per_row) +
            ", expected a power of two >= 1");
    if (static_cast<std::int64_t>(p.slice_height) * p.threads_per_row > 1024)
        bad("b*t = " + std::to_string(std::int64_t{p.slice_height} * p.threads_per_row) +
            ", expected b*t <= 1024 (threads per block)");
    if (p.sigma != 1 && (p.sigma < 1 || p.sigma % p.slice_height != 0))
        bad("sigma = " + std::to_string(p.sigma) + ", expected 1 or a positive multiple of b = " +
            std::to_string(p.slice_height));
    if (p.long_row_threshold < 0)
        bad("long_row_threshold = " + std::to_string(p.long_row_threshold) +
            ", expected >= 0 (0 = no long-row split)");
}

/// Checks the long part of `a` (sizes, offsets, row indices increasing and in range).
template <typename T>
void check_long_part(const Sellp<T>& a)
{
    const auto bad = [](const std::string& msg) {
        throw std::invalid_argument("to_csr: long part: " + msg);
    };
    const std::size_t nl = a.long_rows.size();
    if (a.long_row_ptr.size() != nl + 1 || a.long_row_ptr[0] != 0)
        bad("long_row_ptr has " + std::to_string(a.long_row_ptr.size()) +
            " entries, expected long_rows.size() + 1 = " + std::to_string(nl + 1) +
            " starting with 0");
    for (std::size_t k = 0; k < nl; ++k) {
        if (a.long_rows[k] < 0 || a.long_rows[k] >= a.num_rows ||
            (k > 0 && a.long_rows[k] <= a.long_rows[k - 1]))
            bad("long_rows[" + std::to_string(k) + "] = " + std::to_string(a.long_rows[k]) +
                ", expected increasing row indices in [0, " + std::to_string(a.num_rows) + ")");
        if (a.long_row_ptr[k + 1] < a.long_row_ptr[k])
            bad("long_row_ptr decreases at " + std::to_string(k + 1));
    }
    const auto end = static_cast<std::size_t>(a.long_row_ptr[nl]);
    if (a.long_col_idx.size() != end || a.long_values.size() != end)
        bad(std::to_string(a.long_col_idx.size()) + " column indices and " +
            std::to_string(a.long_values.size()) + " values, expected long_row_ptr.back() = " +
            std::to_string(end));
}

}  // namespace

template <typename T>
Sellp<T> to_sellp(const Csr<T>& a, const SellpParams& params)
{
    check_params(params);
    validate(a, "to_sellp input");
    const index_type n = a.num_rows;
    const index_type b = params.slice_height;
    const index_type t = params.threads_per_row;
    const auto row_len = [&](index_type i) { return a.row_ptr[i + 1] - a.row_ptr[i]; };
    const index_type threshold = params.long_row_threshold;
    const auto is_long = [&](index_type i) { return threshold > 0 && row_len(i) > threshold; };
    // Length of row i in the slices: long rows are empty there.
    const auto slice_row_len = [&](index_type i) { return is_long(i) ? 0 : row_len(i); };

    Sellp<T> out;
    out.num_rows = n;
    out.num_cols = a.num_cols;
    out.nnz = a.nnz();
    out.params = params;

    // Storage row -> original row: rows sorted by decreasing length within each sigma window
    // (stable, so equal lengths keep their original order).
    std::vector<index_type> perm(static_cast<std::size_t>(n));
    std::iota(perm.begin(), perm.end(), index_type{0});
    if (params.sigma > 1) {
        for (std::int64_t w = 0; w < n; w += params.sigma) {
            const auto first = perm.begin() + w;
            const auto last = perm.begin() + std::min<std::int64_t>(w + params.sigma, n);
            std::stable_sort(first, last, [&](index_type r1, index_type r2) {
                return slice_row_len(r1) > slice_row_len(r2);
            });
        }
        out.row_perm = perm;
    }

    // Slice row lengths: longest row of the slice, rounded up to a multiple of t.
    const index_type num_slices = static_cast<index_type>((std::int64_t{n} + b - 1) / b);
    out.slice_ptr.assign(static_cast<std::size_t>(num_slices) + 1, 0);
    std::vector<index_type> slice_len(static_cast<std::size_t>(num_slices), 0);
    std::int64_t total = 0;
    for (index_type s = 0; s < num_slices; ++s) {
        index_type longest = 0;
        for (index_type r = 0; r < b && std::int64_t{s} * b + r < n; ++r)
            longest = std::max(longest, slice_row_len(perm[std::int64_t{s} * b + r]));
        slice_len[s] = (longest + t - 1) / t * t;
        total += std::int64_t{slice_len[s]} * b;
        if (total > std::numeric_limits<index_type>::max())
            throw std::invalid_argument("to_sellp: padded size " + std::to_string(total) +
                                        " exceeds the index_type range (2^31 - 1)");
        out.slice_ptr[s + 1] = static_cast<index_type>(total);
    }

    // Fill column-major within each slice: entry j of local row r at slice_ptr[s] + j*b + r.
    out.col_idx.assign(static_cast<std::size_t>(total), 0);
    out.values.assign(static_cast<std::size_t>(total), T{0});
    for (index_type s = 0; s < num_slices; ++s) {
        for (index_type r = 0; r < b && std::int64_t{s} * b + r < n; ++r) {
            const index_type orig = perm[std::int64_t{s} * b + r];
            for (index_type j = 0; j < slice_row_len(orig); ++j) {
                const std::size_t dst = std::size_t(out.slice_ptr[s]) + std::size_t(j) * b + r;
                out.col_idx[dst] = a.col_idx[a.row_ptr[orig] + j];
                out.values[dst] = a.values[a.row_ptr[orig] + j];
            }
        }
    }

    // Long part: the split-off rows in increasing original order, as CSR.
    for (index_type i = 0; i < n; ++i) {
        if (!is_long(i)) continue;
        out.long_rows.push_back(i);
        out.long_col_idx.insert(out.long_col_idx.end(), a.col_idx.begin() + a.row_ptr[i],
                                a.col_idx.begin() + a.row_ptr[i + 1]);
        out.long_values.insert(out.long_values.end(), a.values.begin() + a.row_ptr[i],
                               a.values.begin() + a.row_ptr[i + 1]);
        out.long_row_ptr.push_back(static_cast<index_type>(out.long_col_idx.size()));
    }
    return out;
}

/// Row length recovery: in a CSR row the column indices increase strictly, so column 0 can only
/// be the first entry. An entry at position j > 0 with column 0 is therefore padding (and so is
/// everything after it). An entry at j == 0 with column 0 and value 0 followed by padding (or by
/// nothing) is taken as padding of an empty row, so an explicitly stored zero at (i, 0) that is
/// the only entry of row i is dropped; all other explicit zeros are kept.
template <typename T>
Csr<T> to_csr(const Sellp<T>& a)
{
    const index_type n = a.num_rows;
    const index_type b = a.params.slice_height;
    if (b < 1 || a.num_slices() != (std::int64_t{n} + b - 1) / b)
        throw std::invalid_argument("to_csr: SELL-P has " + std::to_string(a.num_slices()) +
                                    " slices, expected ceil(num_rows / b) for b = " +
                                    std::to_string(b));
    if (!a.row_perm.empty() && a.row_perm.size() != static_cast<std::size_t>(n))
        throw std::invalid_argument("to_csr: row_perm has " + std::to_string(a.row_perm.size()) +
                                    " entries, expected num_rows = " + std::to_string(n));
    check_long_part(a);
    std::vector<std::vector<index_type>> cols(static_cast<std::size_t>(n));
    std::vector<std::vector<T>> vals(static_cast<std::size_t>(n));
    for (index_type s = 0; s < a.num_slices(); ++s) {
        const index_type len = (a.slice_ptr[s + 1] - a.slice_ptr[s]) / b;
        for (index_type r = 0; r < b && std::int64_t{s} * b + r < n; ++r) {
            const index_type storage_row = s * b + r;
            const index_type orig = a.row_perm.empty() ? storage_row : a.row_perm[storage_row];
            for (index_type j = 0; j < len; ++j) {
                const std::size_t k = std::size_t(a.slice_ptr[s]) + std::size_t(j) * b + r;
                const index_type c = a.col_idx[k];
                const bool next_is_padding = j + 1 == len || a.col_idx[k + b] == 0;
                if (c == 0 && (j > 0 || (a.values[k] == T{0} && next_is_padding))) break;
                cols[orig].push_back(c);
                vals[orig].push_back(a.values[k]);
            }
        }
    }
    // Long rows are empty in the slices (only padding there, dropped above).
    for (std::size_t k = 0; k < a.long_rows.size(); ++k) {
        const auto orig = static_cast<std::size_t>(a.long_rows[k]);
        cols[orig].assign(a.long_col_idx.begin() + a.long_row_ptr[k],
                          a.long_col_idx.begin() + a.long_row_ptr[k + 1]);
        vals[orig].assign(a.long_values.begin() + a.long_row_ptr[k],
                          a.long_values.begin() + a.long_row_ptr[k + 1]);
    }
    Csr<T> out;
    out.num_rows = n;
    out.num_cols = a.num_cols;
    out.row_ptr.assign(static_cast<std::size_t>(n) + 1, 0);
    for (index_type i = 0; i < n; ++i) {
        out.row_ptr[i + 1] = out.row_ptr[i] + static_cast<index_type>(cols[i].size());
        out.col_idx.insert(out.col_idx.end(), cols[i].begin(), cols[i].end());
        out.values.insert(out.values.end(), vals[i].begin(), vals[i].end());
    }
    return out;
}

template <typename T>
void validate_view(const SellpView<T>& a, const char* who)
{
    const index_type b = a.slice_height;
    if (b < 1 || a.threads_per_row < 1)
        throw std::invalid_argument(std::string{who} + ": b = " + std::to_string(b) + ", t = " +
                                    std::to_string(a.threads_per_row) + ", expected b, t >= 1");
    if (a.num_rows < 0 || a.num_slices != (std::int64_t{a.num_rows} + b - 1) / b)
        throw std::invalid_argument(std::string{who} + ": " + std::to_string(a.num_slices) +
                                    " slices for " + std::to_string(a.num_rows) +
                                    " rows, expected ceil(num_rows / b) with b = " +
                                    std::to_string(b));
    if (a.num_long_rows < 0 || a.num_long_rows > a.num_rows ||
        (a.num_long_rows > 0 && (a.long_rows == nullptr || a.long_row_ptr == nullptr)))
        throw std::invalid_argument(std::string{who} + ": num_long_rows = " +
                                    std::to_string(a.num_long_rows) +
                                    ", expected 0..num_rows = " + std::to_string(a.num_rows) +
                                    " with non-null long_rows and long_row_ptr when > 0");
}

template void validate_view(const SellpView<float>&, const char*);
template void validate_view(const SellpView<double>&, const char*);
template Sellp<float> to_sellp(const Csr<float>&, const SellpParams&);
template Sellp<double> to_sellp(const Csr<double>&, const SellpParams&);
template Csr<float> to_csr(const Sellp<float>&);
template Csr<double> to_csr(const Sellp<double>&);

}  // namespace kbench
