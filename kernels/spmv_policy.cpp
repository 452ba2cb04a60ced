// The auto SpMV policy's candidates and their modeled cost (declarations in
// kernels/spmv_policy.hpp; the time model in models/spmv_time.hpp).
//
// Per kernel, what is counted (the kernels are in kernels/spmv.cu):
//  - traffic: models/spmv_traffic.hpp, with the stored entries of the exact layout (SELL-P
//    slices padded to a multiple of t after sorting within sigma windows, long rows split off);
//  - x gathers: a warp-wide gather instruction touches one 32-byte sector per distinct sector
//    among its 32 columns; those that none of the gather_window gathers before it (in the
//    kernel's order: the previous 32-entry groups of CSR, the previous columns of the same
//    SELL-P slice rows) touched miss L1 and are L2 requests, charged at the measured gather
//    rate (models/spmv_time.hpp). Means are estimated from 4096 gather instructions sampled
//    with a fixed seed, so the choice is deterministic; the instruction count is exact. In the
//    matrix's own row order neighbouring rows share x entries, so a band or a stencil requests
//    few new sectors; scattered columns, or a SELL-C-sigma permutation that puts unrelated
//    rows side by side, request nearly one per lane;
//  - chains of dependent loads per thread: csr_vector 1 (row pointers) + 2 per unrolled
//    iteration (indices and values, then x); sellp 1 (slice pointer) + 2 per iteration;
//    csr_adaptive 3 (row block; indices, values and row pointers; x) plus 1 per further
//    32 rows of a block; the long-row kernel 1 (sellp) or 2 (csr_adaptive: row, then its
//    pointers) + 2 per iteration; csr_merge 3 for every warp (tile coordinates; indices, values
//    and row pointers; x), whatever the row lengths, and its fix-up 3 (run; carry-outs; y).
#include "kernels/spmv_policy.hpp"

#include "kernels/spmv.hpp"
#include "kernels/spmv_plan.hpp"
#include "models/spmv_traffic.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace kbench::spmv {
namespace {

constexpr int unroll = 4;               // loads in flight per thread (kernels/spmv.cu)
constexpr int warp_size = 32;
constexpr int long_row_threads = 256;   // threads per long row (kernels/spmv.cu)
constexpr int sector_bytes = 32;
constexpr int gather_samples = 4096;
constexpr int gather_window = 8;  // previous gathers whose sectors L1 still holds: the other
                                  // warps of a 256-thread block, one SM's share of a wave
constexpr std::uint64_t sample_seed = 0x6b62656e6368ULL;

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

/// Dependent latencies of a strided dot product of `entries` entries per thread.
double dot_chain(std::int64_t entries) { return 2.0 * static_cast<double>(ceil_div(entries, unroll)); }

/// splitmix64: a small deterministic generator for the gather samples.
struct Rng {
    std::uint64_t state;
    std::uint64_t next()
    {
        std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }
    std::int64_t below(std::int64_t n) { return static_cast<std::int64_t>(next() % std::uint64_t(n)); }
};

/// Sectors of x (32 bytes, x assumed sector aligned) of column indices, sorted and distinct.
struct SectorSet {
    std::vector<std::int64_t> s;
    void add(index_type col, int value_bytes) { s.push_back(std::int64_t{col} * value_bytes / sector_bytes); }
    void finish()
    {
        std::sort(s.begin(), s.end());
        s.erase(std::unique(s.begin(), s.end()), s.end());
    }
    /// Sectors of this set that `older` (finished) lacks.
    int new_over(const SectorSet& older) const
    {
        int n = 0;
        for (std::int64_t x : s) n += !std::binary_search(older.s.begin(), older.s.end(), x);
        return n;
    }
};

/// Sums over sampled gathers: the distinct sectors each touches, and those of them that the
/// gathers before it (`before`) did not.
struct GatherTally {
    double total = 0.0, fresh = 0.0;
    void add(SectorSet& now, SectorSet& before)
    {
        now.finish();
        before.finish();
        total += static_cast<double>(now.s.size());
        fresh += now.new_over(before);
    }
};

/// Mean and extremes of per-thread-group chains, weighted by threads.
struct ChainStats {
    double threads = 0.0, weighted = 0.0, max = 0.0;
    void add(double group_threads, double chain)
    {
        threads += group_threads;
        weighted += group_threads * chain;
        max = std::max(max, chain);
    }
    models::LaunchShape shape(int block_threads) const
    {
        return {threads, threads > 0.0 ? weighted / threads : 0.0, max, block_threads};
    }
};

/// What every candidate of one matrix shares: sizes, row lengths, the sampled gather cost of
/// consecutive entries.
template <typename T>
struct MatrixProfile {
    const CsrView<T>& a;
    const models::SpmvMachine& machine;
    int vb = sizeof(T);
    double consecutive_sectors = 0.0;  // mean sectors per gather of 32 consecutive entries
    double consecutive_new = 0.0;      // of those, not in the gather_window groups before it

    MatrixProfile(const CsrView<T>& view, const models::SpmvMachine& m) : a{view}, machine{m}
    {
        if (a.nnz == 0) return;
        Rng rng{sample_seed};
        GatherTally tally;
        for (int s = 0; s < gather_samples; ++s) {
            const std::int64_t p = rng.below(a.nnz);
            const std::int64_t g = p - p % warp_size;
            const std::int64_t end = std::min<std::int64_t>(a.nnz, g + warp_size);
            SectorSet now, before;
            for (std::int64_t i = g; i < end; ++i) now.add(a.col_idx[i], vb);
            for (std::int64_t i = std::max<std::int64_t>(0, g - gather_window * warp_size); i < g; ++i)
                before.add(a.col_idx[i], vb);
            tally.add(now, before);
        }
        consecutive_sectors = tally.total / gather_samples;
        consecutive_new = tally.fresh / gather_samples;
    }
    /// Sectors the CSR kernels' gathers (the entries in groups of 32) request beyond L1.
    double csr_new_sectors() const
    {
        return static_cast<double>(ceil_div(a.nnz, warp_size)) * consecutive_new;
    }
    index_type row_len(index_type i) const { return a.row_ptr[i + 1] - a.row_ptr[i]; }

    /// Fills the time and L2 fields of `c`, whose gathers request `gather_sectors` sectors
    /// that L1 does not hold.
    void finish(Candidate& c, double gather_sectors) const
    {
        c.gather_bytes = gather_sectors * sector_bytes;
        c.l2_bytes = c.traffic.bytes() + c.gather_bytes;
        const double eta = c.kernel == Kernel::sellp ? machine.sellp_efficiency : machine.csr_efficiency;
        c.time = models::predict_spmv_time(c.traffic.bytes(), c.traffic.bytes(), c.gather_bytes,
                                           static_cast<double>(a.num_cols) * vb, c.shapes,
                                           c.launches, machine, eta);
    }

    /// Second launch of sellp / csr_adaptive: one block of long_row_threads per long row.
    /// Returns the entries of those rows; adds the launch shape and gather instructions.
    std::int64_t long_rows(const std::vector<index_type>& rows, double head_chain, Candidate& c,
                           double& gather_instructions) const
    {
        ChainStats chains;
        std::int64_t entries = 0;
        for (index_type r : rows) {
            const index_type len = row_len(r);
            entries += len;
            chains.add(long_row_threads, head_chain + dot_chain(ceil_div(len, long_row_threads)));
            gather_instructions += static_cast<double>(ceil_div(len, warp_size));
        }
        if (!rows.empty()) c.shapes[c.launches++] = chains.shape(long_row_threads);
        c.long_rows = static_cast<std::int64_t>(rows.size());
        return entries;
    }
};

template <typename T>
Candidate csr_vector_candidate(const MatrixProfile<T>& p, int subwarp)
{
    const CsrView<T>& a = p.a;
    Candidate c;
    c.kernel = Kernel::csr_vector;
    c.subwarp = subwarp;
    c.stored_entries = a.nnz;
    c.traffic = models::csr_spmv(a.num_rows, a.num_cols, a.nnz, p.vb);
    const index_type rows_per_warp = warp_size / subwarp;
    ChainStats chains;
    for (index_type w0 = 0; w0 < a.num_rows; w0 += rows_per_warp) {
        index_type longest = 0;
        for (index_type r = w0; r < std::min(a.num_rows, w0 + rows_per_warp); ++r)
            longest = std::max(longest, p.row_len(r));
        chains.add(warp_size, 1.0 + dot_chain(ceil_div(longest, subwarp)));
    }
    c.shapes[0] = chains.shape(256);  // kernels/spmv.cu vector_block_size
    c.sectors_per_gather = p.consecutive_sectors;  // lanes read consecutive entries
    p.finish(c, p.csr_new_sectors());
    return c;
}

template <typename T>
Candidate csr_adaptive_candidate(const MatrixProfile<T>& p)
{
    const CsrView<T>& a = p.a;
    const CsrAdaptivePlan plan = make_csr_adaptive_plan(a);
    Candidate c;
    c.kernel = Kernel::csr_adaptive;
    c.stored_entries = a.nnz;
    c.launches = 0;
    ChainStats chains;
    for (const CsrRowBlock& b : plan.blocks) {
        const std::int64_t rows = b.row_end - b.row_begin;
        chains.add(warp_size, 3.0 + static_cast<double>(rows > 32 ? ceil_div(rows, 32) - 1 : 0));
    }
    if (!plan.blocks.empty()) c.shapes[c.launches++] = chains.shape(256);  // adaptive_block_size
    double long_gathers = 0.0;
    p.long_rows(plan.long_rows, 2.0, c, long_gathers);
    c.traffic = models::csr_adaptive_spmv(a.num_rows, a.num_cols, a.nnz,
                                          static_cast<std::int64_t>(plan.blocks.size()),
                                          c.long_rows, p.vb);
    c.sectors_per_gather = p.consecutive_sectors;
    p.finish(c, p.csr_new_sectors());
    return c;
}

/// Merge-based CSR (kernels/spmv.cu csr_merge): one warp of 3 dependent loads per tile in
/// blocks of 256 threads, and when rows are split across tiles the fix-up in blocks of 256: one
/// thread per split row, plus a warp's turn for each row split across more than
/// csr_merge_serial_run_tiles tiles.
template <typename T>
Candidate csr_merge_candidate(const MatrixProfile<T>& p)
{
    const CsrView<T>& a = p.a;
    const CsrMergePlan plan = make_csr_merge_plan(a);
    Candidate c;
    c.kernel = Kernel::csr_merge;
    c.stored_entries = a.nnz;
    c.launches = 0;
    const double tiles = static_cast<double>(plan.num_tiles());
    if (tiles > 0) c.shapes[c.launches++] = {tiles * warp_size, 3.0, 3.0, 256};
    c.long_rows = static_cast<std::int64_t>(plan.runs.size());
    const auto warp_runs = std::count_if(plan.runs.begin(), plan.runs.end(), [](const auto& r) {
        return r.tile_end - r.tile_begin > csr_merge_serial_run_tiles;
    });
    if (c.long_rows > 0)
        c.shapes[c.launches++] = {static_cast<double>(c.long_rows + warp_runs * warp_size), 3.0,
                                  3.0, 256};
    c.traffic = models::csr_merge_spmv(a.num_rows, a.num_cols, a.nnz, plan.num_tiles(),
                                       c.long_rows, plan.carry_tiles(), p.vb);
    c.sectors_per_gather = p.consecutive_sectors;  // a warp stages consecutive entries
    p.finish(c, p.csr_new_sectors());
    return c;
}

/// SELL-P slices of one (b, sigma, long-row threshold): per slice the longest row (t = 1),
/// the row order (storage row -> row; empty when sigma == 1) and the long rows.
struct SellpLayout {
    index_type b = 0, sigma = 1;
    std::vector<index_type> perm;
    std::vector<index_type> longest;
    std::vector<index_type> long_rows;
    double sectors_per_gather = 0.0;
    double new_sectors_per_gather = 0.0;  // not in the gather_window previous columns' gathers
};

template <typename T>
SellpLayout sellp_layout(const MatrixProfile<T>& p, index_type b, index_type sigma,
                         index_type threshold)
{
    const CsrView<T>& a = p.a;
    const index_type n = a.num_rows;
    SellpLayout L;
    L.b = b;
    L.sigma = sigma;
    std::vector<index_type> len(static_cast<std::size_t>(n));
    for (index_type i = 0; i < n; ++i) {
        const index_type l = p.row_len(i);
        const bool is_long = threshold > 0 && l > threshold;
        if (is_long) L.long_rows.push_back(i);
        len[i] = is_long ? 0 : l;
    }
    if (sigma > 1) {  // stable sort by decreasing length within each window (as to_sellp)
        L.perm.resize(static_cast<std::size_t>(n));
        std::iota(L.perm.begin(), L.perm.end(), index_type{0});
        const index_type max_len = n > 0 ? *std::max_element(len.begin(), len.end()) : 0;
        std::vector<index_type> count(static_cast<std::size_t>(max_len) + 2);
        for (std::int64_t w = 0; w < n; w += sigma) {
            const index_type end = static_cast<index_type>(std::min<std::int64_t>(n, w + sigma));
            if (max_len > 4 * std::int64_t{sigma}) {  // few rows per length value: comparison sort
                std::stable_sort(L.perm.begin() + w, L.perm.begin() + end,
                                 [&](index_type r1, index_type r2) { return len[r1] > len[r2]; });
                continue;
            }
            // counting sort on the key max_len - len (ascending key = decreasing length)
            std::fill(count.begin(), count.end(), 0);
            for (index_type i = index_type(w); i < end; ++i) ++count[max_len - len[i] + 1];
            for (std::size_t v = 1; v < count.size(); ++v) count[v] += count[v - 1];
            for (index_type i = index_type(w); i < end; ++i)
                L.perm[w + count[max_len - len[i]]++] = i;
        }
    }
    const auto row_of = [&](std::int64_t sr) { return L.perm.empty() ? index_type(sr) : L.perm[sr]; };
    const index_type slices = static_cast<index_type>(ceil_div(n, b));
    L.longest.assign(static_cast<std::size_t>(slices), 0);
    for (std::int64_t sr = 0; sr < n; ++sr) {
        index_type& m = L.longest[sr / b];
        m = std::max(m, len[row_of(sr)]);
    }
    // Gather samples: a stored entry (t = 1) chosen uniformly, its warp of 32 slice rows.
    std::vector<std::int64_t> prefix(static_cast<std::size_t>(slices) + 1, 0);
    for (index_type s = 0; s < slices; ++s) prefix[s + 1] = prefix[s] + std::int64_t{L.longest[s]} * b;
    if (prefix.back() > 0) {
        Rng rng{sample_seed};
        GatherTally tally;
        for (int k = 0; k < gather_samples; ++k) {
            const std::int64_t pos = rng.below(prefix.back());
            const auto s = static_cast<index_type>(
                std::upper_bound(prefix.begin(), prefix.end(), pos) - prefix.begin() - 1);
            const std::int64_t off = pos - prefix[s];
            const std::int64_t j = off / b;
            const std::int64_t first = std::int64_t{s} * b + (off % b) / warp_size * warp_size;
            const std::int64_t last = first + std::min<index_type>(b, warp_size);
            const auto column = [&](std::int64_t sr, std::int64_t jj) -> index_type {
                if (sr >= n) return 0;  // padding and rows past n gather x[0]
                const index_type row = row_of(sr);
                return jj < len[row] ? a.col_idx[a.row_ptr[row] + jj] : 0;
            };
            SectorSet now, before;
            for (std::int64_t sr = first; sr < last; ++sr) {
                now.add(column(sr, j), p.vb);
                for (std::int64_t jj = std::max<std::int64_t>(0, j - gather_window); jj < j; ++jj)
                    before.add(column(sr, jj), p.vb);
            }
            tally.add(now, before);
        }
        L.sectors_per_gather = tally.total / gather_samples;
        L.new_sectors_per_gather = tally.fresh / gather_samples;
    }
    return L;
}

template <typename T>
Candidate sellp_candidate(const MatrixProfile<T>& p, const SellpLayout& L,
                          index_type t, index_type threshold)
{
    const CsrView<T>& a = p.a;
    Candidate c;
    c.kernel = Kernel::sellp;
    c.sellp = {L.b, t, L.sigma, threshold};
    c.launches = 0;
    ChainStats chains;
    std::int64_t stored = 0;
    for (index_type m : L.longest) {
        const std::int64_t width = ceil_div(m, t) * t;
        stored += width * L.b;
        chains.add(double(L.b) * t, 1.0 + dot_chain(width / t));
    }
    const double slice_gathers = static_cast<double>(stored / std::min<index_type>(L.b, warp_size));
    c.shapes[c.launches++] = chains.shape(L.b * t);
    double long_gathers = 0.0;
    c.stored_entries = stored + p.long_rows(L.long_rows, 1.0, c, long_gathers);
    c.traffic = models::sellp_spmv(a.num_rows, a.num_cols, a.nnz, c.stored_entries,
                                   static_cast<std::int64_t>(L.longest.size()), p.vb, 4, false,
                                   L.sigma > 1, c.long_rows);
    const double gathers = slice_gathers + long_gathers;
    c.sectors_per_gather = gathers > 0.0 ? (L.sectors_per_gather * slice_gathers +
                                            p.consecutive_sectors * long_gathers) / gathers
                                         : 0.0;
    p.finish(c, slice_gathers * L.new_sectors_per_gather + long_gathers * p.consecutive_new);
    return c;
}

/// csr_vector's lanes each load `unroll` entries of their row per step; a sub-warp so narrow that
/// a lane needs more than one step for a row of mean length re-reads partly used sectors of the
/// matrix arrays in every step (the loads are evict-first), which the traffic model does not
/// count (measured on an H100: subwarp 2 on rows of 19 entries ran 2.4x slower than modeled).
/// Sub-warps below the smallest power of two >= mean / unroll are therefore not candidates.
template <typename T>
int shortest_useful_subwarp(const CsrView<T>& a)
{
    const double mean = a.num_rows > 0 ? double(a.nnz) / a.num_rows : 0.0;
    int sw = 2;
    while (sw < 32 && sw * unroll < mean) sw *= 2;
    return sw;
}

void check_sellp(const SellpParams& p)
{
    const index_type b = p.slice_height, t = p.threads_per_row;
    if (b < 1 || t < 1 || t > 32 || (t & (t - 1)) != 0 || std::int64_t{b} * t > 1024 ||
        (p.sigma != 1 && (p.sigma < 1 || p.sigma % b != 0)) || p.long_row_threshold < 0)
        throw std::invalid_argument(
            "model_candidate: SELL-P b = " + std::to_string(b) + ", t = " + std::to_string(t) +
            ", sigma = " + std::to_string(p.sigma) + ", long_row_threshold = " +
            std::to_string(p.long_row_threshold) +
            ": expected b >= 1, t a power of two <= 32, b*t <= 1024, sigma 1 or a multiple of "
            "b, threshold >= 0");
}

void check_machine(const models::SpmvMachine& m)
{
    if (!(m.dram_gbps > 0 && m.l2_gbps > 0 && m.dram_latency_us > 0 && m.l2_latency_us > 0 &&
          m.launch_us >= 0 && m.l2_bytes > 0 && m.sm_count > 0 && m.max_threads_per_sm > 0 &&
          m.max_blocks_per_sm > 0 && m.load_factor > 0 && m.sellp_efficiency > 0 &&
          m.csr_efficiency > 0 && m.gather_gbps > 0 && m.gather_far_gbps > 0))
        throw std::invalid_argument(
            "SpMV policy: machine figures must be positive (dram_gbps, l2_gbps, latencies, "
            "l2_bytes, sm_count, max_threads_per_sm, max_blocks_per_sm, load_factor, "
            "efficiencies, gather_gbps, gather_far_gbps; launch_us >= 0)");
}

/// Sorting window: rows in flight at once, a multiple of 64 (hence of b = 32 and 64).
index_type sorting_window(index_type n, const models::SpmvMachine& m)
{
    const std::int64_t in_flight = std::int64_t{m.sm_count} * m.max_threads_per_sm / 64 * 64;
    return static_cast<index_type>(std::max<std::int64_t>(64, std::min<std::int64_t>(in_flight, ceil_div(n, 64) * 64)));
}

}  // namespace

const std::vector<std::string>& kernel_names()
{
    static const std::vector<std::string> names{"csr_scalar",   "csr_vector",    "csr_adaptive",
                                                "sellp",        "cusparse_csr",  "cusparse_sell",
                                                "csr_merge",    "cusparse_csr_alg2"};
    return names;
}

const std::string& kernel_name(Kernel kernel) { return kernel_names().at(static_cast<std::size_t>(kernel)); }

Kernel parse_kernel(const std::string& name)
{
    const auto& names = kernel_names();
    const auto it = std::find(names.begin(), names.end(), name);
    if (it == names.end()) {
        std::string list;
        for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
        throw std::invalid_argument("unknown SpMV kernel '" + name + "' (valid kernels: " + list + ")");
    }
    return static_cast<Kernel>(it - names.begin());
}

template <typename T>
RowLengthStats row_length_stats(const CsrView<T>& a)
{
    RowLengthStats s;
    s.num_rows = a.num_rows;
    s.nnz = a.nnz;
    if (a.num_rows <= 0 || a.nnz <= 0) return s;
    const double mean = s.mean();
    double sq = 0.0;
    for (index_type i = 0; i < a.num_rows; ++i) {
        const std::int64_t len = a.row_ptr[i + 1] - a.row_ptr[i];
        s.max_len = std::max(s.max_len, len);
        sq += (double(len) - mean) * (double(len) - mean);
    }
    s.cv = std::sqrt(sq / double(a.num_rows)) / mean;
    return s;
}

bool merge_is_candidate(const RowLengthStats& s)
{
    if (s.nnz <= 0 || s.num_rows <= 0) return false;
    return s.cv >= merge_min_cv || s.max_over_mean() >= merge_min_max_over_mean;
}

std::vector<Kernel> vendor_candidates(const RowLengthStats& s)
{
    if (s.nnz <= 0 || s.num_rows <= 0) return {};
    if (merge_is_candidate(s)) return {Kernel::cusparse_csr, Kernel::cusparse_csr_alg2};
    return {Kernel::cusparse_csr};
}

double Candidate::padding_ratio() const
{
    const double nnz = traffic.flops / 2.0;
    return nnz > 0.0 ? static_cast<double>(stored_entries) / nnz : 1.0;
}

std::string Candidate::label() const
{
    switch (kernel) {
    case Kernel::csr_vector: return "csr_vector subwarp=" + std::to_string(subwarp);
    case Kernel::sellp:
        return "sellp b=" + std::to_string(sellp.slice_height) + " t=" +
               std::to_string(sellp.threads_per_row) + " sigma=" + std::to_string(sellp.sigma);
    default: return kernel_name(kernel);
    }
}

template <typename T>
Candidate model_candidate(const CsrView<T>& a, Kernel kernel, const SellpParams& sellp,
                          int subwarp, const models::SpmvMachine& machine)
{
    check_machine(machine);
    const MatrixProfile<T> p(a, machine);
    switch (kernel) {
    case Kernel::csr_vector:
        if (subwarp != 2 && subwarp != 4 && subwarp != 8 && subwarp != 16 && subwarp != 32)
            throw std::invalid_argument("model_candidate: csr_vector subwarp = " +
                                        std::to_string(subwarp) + ", expected 2, 4, 8, 16 or 32");
        return csr_vector_candidate(p, subwarp);
    case Kernel::csr_adaptive: return csr_adaptive_candidate(p);
    case Kernel::csr_merge: return csr_merge_candidate(p);
    case Kernel::sellp: {
        check_sellp(sellp);
        const index_type b = sellp.slice_height, thr = sellp.long_row_threshold;
        return sellp_candidate(p, sellp_layout(p, b, sellp.sigma, thr), sellp.threads_per_row, thr);
    }
    default:
        throw std::invalid_argument("model_candidate: kernel " + kernel_name(kernel) +
                                    " is not modeled (expected csr_vector, csr_adaptive, "
                                    "csr_merge or sellp)");
    }
}

template <typename T>
std::vector<Candidate> rank_candidates(const CsrView<T>& a, const models::SpmvMachine& machine)
{
    check_machine(machine);
    const MatrixProfile<T> p(a, machine);
    std::vector<Candidate> out;
    out.push_back(csr_adaptive_candidate(p));
    if (merge_is_candidate(row_length_stats(a))) out.push_back(csr_merge_candidate(p));
    for (int sw : {2, 4, 8, 16, 32}) {
        if (sw >= shortest_useful_subwarp(a)) out.push_back(csr_vector_candidate(p, sw));
    }
    const index_type threshold = default_long_row_threshold(a.num_rows, a.nnz);
    for (index_type b : {32, 64}) {
        const SellpLayout natural = sellp_layout(p, b, 1, threshold);
        const SellpLayout sorted = sellp_layout(p, b, sorting_window(a.num_rows, machine), threshold);
        for (const SellpLayout* layout : {&natural, &sorted}) {
            for (index_type t = 1; t <= 32 && b * t <= 1024; t *= 2)
                out.push_back(sellp_candidate(p, *layout, t, threshold));
        }
    }
    // Fastest first; predictions within 1 % of each other (e.g. latency-bound kernels of equal
    // chains) are ranked by their L2 bytes, then by fewer threads.
    std::stable_sort(out.begin(), out.end(), [](const Candidate& x, const Candidate& y) {
        const double tx = x.time.total(), ty = y.time.total();
        if (std::abs(tx - ty) > 0.01 * std::min(tx, ty)) return tx < ty;
        if (x.l2_bytes != y.l2_bytes) return x.l2_bytes < y.l2_bytes;
        return x.shapes[0].threads < y.shapes[0].threads;
    });
    return out;
}

template Candidate model_candidate<float>(const CsrView<float>&, Kernel, const SellpParams&, int,
                                          const models::SpmvMachine&);
template Candidate model_candidate<double>(const CsrView<double>&, Kernel, const SellpParams&,
                                           int, const models::SpmvMachine&);
template RowLengthStats row_length_stats<float>(const CsrView<float>&);
template RowLengthStats row_length_stats<double>(const CsrView<double>&);
template std::vector<Candidate> rank_candidates<float>(const CsrView<float>&,
                                                       const models::SpmvMachine&);
template std::vector<Candidate> rank_candidates<double>(const CsrView<double>&,
                                                        const models::SpmvMachine&);

}  // namespace kbench::spmv
