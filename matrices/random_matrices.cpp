// Random sparse matrices: prescribed row-length distributions (random_rows) and the random
// banded matrices of li2012 (banded). Own generator (splitmix64, one stream per row) and own
// sampling (inverse CDF by table, multiply-shift integers), so a seed gives the same matrix with
// every standard library; compiled with -ffp-contract=off (matrices/CMakeLists.txt) so that no
// fused multiply-add changes a rounding. Both generators count first, allocate exactly, then
// fill row by row.
#include "matrices/generators.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace kbench {
namespace {

constexpr std::int64_t index_max = std::numeric_limits<index_type>::max();

// Stream identifiers, so that random_rows and banded with the same seed draw different numbers.
constexpr std::uint64_t random_rows_stream = 0x72616e645f726f77ULL;
constexpr std::uint64_t banded_stream = 0x62616e6465645f31ULL;

/// The splitmix64 output function (Steele, Lea, Flood, OOPSLA 2014): a bijective 64-bit mix.
std::uint64_t mix64(std::uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/// splitmix64 generator for one row: its start state is a hash of (seed, stream, row), so rows
/// are independent of each other and of the order in which they are generated.
class RowRng {
public:
    RowRng(std::uint64_t seed, std::uint64_t stream, std::int64_t row)
        : state_(mix64(mix64(seed ^ stream) + static_cast<std::uint64_t>(row) * gamma))
    {
    }
    std::uint64_t next()
    {
        state_ += gamma;
        return mix64(state_);
    }
    /// Uniform integer in [0, bound), bound >= 1: multiply-shift (Lemire 2019) without the
    /// rejection step; the bias, below bound / 2^64, is immaterial here.
    std::uint64_t below(std::uint64_t bound)
    {
        __extension__ using u128 = unsigned __int128;
        return static_cast<std::uint64_t>((static_cast<u128>(next()) * bound) >> 64);
    }
    /// Uniform in [0, 1), 53 random bits.
    double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
    /// Off-diagonal value: magnitude uniform in [0.1, 1), sign from the lowest bit (one draw).
    double value()
    {
        const std::uint64_t x = next();
        const double magnitude = 0.1 + 0.9 * (static_cast<double>(x >> 11) * 0x1.0p-53);
        return (x & 1) != 0 ? -magnitude : magnitude;
    }

private:
    static constexpr std::uint64_t gamma = 0x9e3779b97f4a7c15ULL;  // splitmix64 increment
    std::uint64_t state_;
};

/// Draws a row length from a RandomRowsParams distribution with exactly one draw of the row's
/// generator: uniform by multiply-shift, geometric and power law by inverse CDF on a table of
/// cumulative weights of row_min, row_min + 1, ... (entries no draw can reach are cut off).
class RowLengthSampler {
public:
    explicit RowLengthSampler(const RandomRowsParams& p) : row_min_(p.row_min)
    {
        const std::int64_t span = static_cast<std::int64_t>(p.row_max) - p.row_min;  // M
        std::vector<double> w;
        if (p.distribution == RowLengthDistribution::uniform) {
            span_ = static_cast<std::uint64_t>(span) + 1;
            return;
        }
        if (p.distribution == RowLengthDistribution::geometric) {
            // P(G = k) = (1 - q) q^k for k < M, P(G >= M) = q^M lands on row_max. Past
            // tail < 2^-64 nothing is reachable: the tail goes to that entry and the table ends.
            const double m = p.mean - p.row_min;
            const double q = m / (m + 1.0);
            double tail = 1.0;  // q^k = P(G >= k)
            for (std::int64_t k = 0;; ++k) {
                if (k == span || tail < 0x1.0p-64) {
                    w.push_back(tail);
                    break;
                }
                w.push_back((1.0 - q) * tail);
                tail *= q;
            }
        } else {
            for (std::int64_t k = 0; k <= span; ++k) {
                w.push_back(std::pow(static_cast<double>(p.row_min + k), -p.exponent));
            }
        }
        while (w.size() > 1 && w.back() == 0.0) w.pop_back();  // underflowed, unreachable
        cdf_.resize(w.size());
        double sum = 0.0;
        for (std::size_t k = 0; k < w.size(); ++k) cdf_[k] = sum += w[k];
    }

    index_type operator()(RowRng& rng) const
    {
        if (cdf_.empty()) return row_min_ + static_cast<index_type>(rng.below(span_));
        const double x = rng.unit() * cdf_.back();
        const auto last = static_cast<std::ptrdiff_t>(cdf_.size()) - 1;
        const auto k = std::upper_bound(cdf_.begin(), cdf_.end(), x) - cdf_.begin();
        return row_min_ + static_cast<index_type>(std::min<std::ptrdiff_t>(k, last));
    }

private:
    index_type row_min_;
    std::uint64_t span_ = 0;   // uniform: number of lengths
    std::vector<double> cdf_;  // geometric, power law: cumulative weights (not normalized)
};

/// Writes m distinct integers drawn uniformly from [0, range) (m <= range), sorted, to `out`.
/// m > range / 2: selection sampling (Knuth, TAOCP vol. 2, Sec. 3.4.2, Algorithm S), O(range).
/// Otherwise draws with rejection of repeats (uniform over m-subsets by symmetry; under 1.4 m
/// draws expected since at most half of the range is taken), which are kept in a bitmap of the
/// range when it has at most 1024 m bits (read back in order, no sort) or else sorted.
/// `bits` is scratch space.
void draw_distinct(RowRng& rng, index_type range, index_type m, std::vector<index_type>& out,
                   std::vector<std::uint64_t>& bits)
{
    out.clear();
    const auto r64 = static_cast<std::uint64_t>(range);
    if (2 * static_cast<std::int64_t>(m) > range) {
        for (index_type t = 0; t < range && static_cast<index_type>(out.size()) < m; ++t) {
            const auto need = static_cast<std::uint64_t>(m) - out.size();
            if (rng.below(r64 - static_cast<std::uint64_t>(t)) < need) out.push_back(t);
        }
        return;
    }
    if (range <= 1024 * static_cast<std::int64_t>(m)) {
        bits.assign((r64 + 63) / 64, 0);
        for (index_type taken = 0; taken < m;) {
            const std::uint64_t r = rng.below(r64);
            const std::uint64_t bit = std::uint64_t{1} << (r & 63);
            if ((bits[r >> 6] & bit) == 0) {
                bits[r >> 6] |= bit;
                ++taken;
            }
        }
        for (std::size_t w = 0; w < bits.size(); ++w) {
            for (std::uint64_t x = bits[w]; x != 0; x &= x - 1) {
                out.push_back(static_cast<index_type>(64 * w) + __builtin_ctzll(x));
            }
        }
        return;
    }
    while (static_cast<index_type>(out.size()) < m) {
        for (auto k = static_cast<index_type>(out.size()); k < m; ++k) {
            out.push_back(static_cast<index_type>(rng.below(r64)));
        }
        std::sort(out.begin(), out.end());
        out.erase(std::unique(out.begin(), out.end()), out.end());
    }
}

/// First and last column of row i's band [i - w, i + w] clipped to [0, n).
struct Band {
    index_type lo, hi;
};
Band band(std::int64_t i, std::int64_t w, std::int64_t n)
{
    return {static_cast<index_type>(std::max<std::int64_t>(0, i - w)),
            static_cast<index_type>(std::min<std::int64_t>(n - 1, i + w))};
}

[[noreturn]] void bad(const char* fn, const std::string& msg)
{
    throw std::invalid_argument(fmt::format("{}: {}", fn, msg));
}

}  // namespace

void check_random_rows(const RandomRowsParams& p)
{
    const char* fn = "random_rows";
    if (p.n < 1) bad(fn, fmt::format("n = {}, expected >= 1", p.n));
    if (p.row_min < 1) {
        bad(fn, fmt::format("row_min = {}, expected >= 1 (rows count the diagonal)", p.row_min));
    }
    if (p.row_min > p.row_max) {
        bad(fn, fmt::format("row_min = {} > row_max = {}", p.row_min, p.row_max));
    }
    if (p.row_max > p.n) bad(fn, fmt::format("row_max = {} > n = {}", p.row_max, p.n));
    if (p.bandwidth < 0) bad(fn, fmt::format("bandwidth = {}, expected >= 0", p.bandwidth));
    if (p.distribution == RowLengthDistribution::geometric &&
        !(std::isfinite(p.mean) && p.mean >= p.row_min && p.mean <= p.row_max)) {
        bad(fn, fmt::format("mean = {} outside [row_min, row_max] = [{}, {}]", p.mean, p.row_min,
                            p.row_max));
    }
    if (p.distribution == RowLengthDistribution::power_law &&
        !(std::isfinite(p.exponent) && p.exponent > 0.0)) {
        bad(fn, fmt::format("exponent = {}, expected a finite number > 0", p.exponent));
    }
}

double expected_row_length(const RandomRowsParams& p)
{
    check_random_rows(p);
    const double lo = p.row_min, hi = p.row_max;
    switch (p.distribution) {
    case RowLengthDistribution::uniform: return 0.5 * (lo + hi);
    case RowLengthDistribution::geometric: {
        const double m = p.mean - lo, q = m / (m + 1.0);
        return lo + m * (1.0 - std::pow(q, hi - lo));
    }
    case RowLengthDistribution::power_law: {
        double num = 0.0, den = 0.0;
        for (index_type l = p.row_min; l <= p.row_max; ++l) {
            const double w = std::pow(static_cast<double>(l), -p.exponent);
            num += w * l;
            den += w;
            if (l == p.row_max) break;  // row_max may be index_max
        }
        return num / den;
    }
    }
    return 0.0;
}

Csr<double> random_rows(const RandomRowsParams& p)
{
    check_random_rows(p);
    const std::int64_t n = p.n;
    // Every row has at least min(row_min, bandwidth + 1) entries: fail before allocating.
    const std::int64_t nnz_min =
        n * std::min<std::int64_t>(p.row_min, std::int64_t{p.bandwidth} + 1);
    if (nnz_min > index_max) {
        bad("random_rows", fmt::format("at least n * min(row_min, bandwidth + 1) = {} nonzeros "
                                       "overflow the 32-bit index type (max {})",
                                       nnz_min, index_max));
    }
    const RowLengthSampler sample(p);
    Csr<double> a;
    a.num_rows = a.num_cols = p.n;
    a.row_ptr.assign(static_cast<std::size_t>(n) + 1, 0);
    // Pass 1: row lengths (the first draw of each row's stream), clamped to the band.
    std::int64_t nnz = 0;
    for (std::int64_t i = 0; i < n; ++i) {
        RowRng rng(p.seed, random_rows_stream, i);
        const Band b = band(i, p.bandwidth, n);
        nnz += std::min<std::int64_t>(sample(rng), b.hi - b.lo + 1);
        if (nnz > index_max) {
            bad("random_rows", fmt::format("more than {} nonzeros (already {} in the first {} "
                                           "rows) overflow the 32-bit index type",
                                           index_max, nnz, i + 1));
        }
        a.row_ptr[static_cast<std::size_t>(i) + 1] = static_cast<index_type>(nnz);
    }
    a.col_idx.resize(static_cast<std::size_t>(nnz));
    a.values.resize(static_cast<std::size_t>(nnz));
    // Pass 2: off-diagonal columns (offsets into the band without i), values, then the diagonal.
    std::vector<index_type> offsets;
    std::vector<std::uint64_t> bits;
    index_type* col = a.col_idx.data();
    double* val = a.values.data();
    for (std::int64_t i = 0; i < n; ++i) {
        RowRng rng(p.seed, random_rows_stream, i);
        rng.next();  // the length, already drawn
        const Band b = band(i, p.bandwidth, n);
        const index_type begin = a.row_ptr[static_cast<std::size_t>(i)];
        const index_type len = a.row_ptr[static_cast<std::size_t>(i) + 1] - begin;
        draw_distinct(rng, b.hi - b.lo, len - 1, offsets, bits);
        index_type k = begin, diag = -1;
        double off_sum = 0.0;
        for (index_type r : offsets) {
            index_type c = b.lo + r;
            if (c >= i) ++c;  // skip the diagonal column
            if (diag < 0 && c > i) diag = k++;
            col[k] = c;
            val[k] = rng.value();
            off_sum += std::abs(val[k]);
            ++k;
        }
        if (diag < 0) diag = k;
        col[diag] = static_cast<index_type>(i);
        val[diag] = 1.0 + off_sum;
    }
    return a;
}

void check_banded(index_type n, index_type K, double d)
{
    const char* fn = "banded";
    if (n < 2) bad(fn, fmt::format("n = {}, expected >= 2", n));
    if (K < 1 || K >= n) bad(fn, fmt::format("K = {}, expected 1 <= K < n = {}", K, n));
    if (!(std::isfinite(d) && d > 0.0)) {
        bad(fn, fmt::format("d = {}, expected a finite number > 0", d));
    }
}

const char* to_string(BandedSigns signs)
{
    return signs == BandedSigns::negative ? "negative" : "random";
}

BandedSigns parse_banded_signs(const std::string& name)
{
    for (BandedSigns s : {BandedSigns::random, BandedSigns::negative})
        if (name == to_string(s)) return s;
    bad("banded", fmt::format("signs = '{}', expected \"random\" or \"negative\"", name));
}

Csr<double> banded(index_type n, index_type K, double d, std::uint64_t seed, BandedSigns signs)
{
    check_banded(n, K, d);
    const std::int64_t nnz = static_cast<std::int64_t>(n) * (2 * std::int64_t{K} + 1) -
                             static_cast<std::int64_t>(K) * (K + 1);
    if (nnz > index_max) {
        bad("banded", fmt::format("{} nonzeros overflow the 32-bit index type (max {})", nnz,
                                  index_max));
    }
    Csr<double> a;
    a.num_rows = a.num_cols = n;
    a.row_ptr.assign(static_cast<std::size_t>(n) + 1, 0);
    a.col_idx.resize(static_cast<std::size_t>(nnz));
    a.values.resize(static_cast<std::size_t>(nnz));
    index_type k = 0;
    for (index_type i = 0; i < n; ++i) {
        RowRng rng(seed, banded_stream, i);
        const Band b = band(i, K, n);
        index_type diag = 0;
        double off_sum = 0.0;
        for (index_type c = b.lo; c <= b.hi; ++c, ++k) {
            a.col_idx[static_cast<std::size_t>(k)] = c;
            if (c == i) {
                diag = k;
                continue;
            }
            // Same draw for both sign patterns: negative keeps the magnitude.
            const double drawn = rng.value();
            const double v = signs == BandedSigns::negative ? -std::abs(drawn) : drawn;
            a.values[static_cast<std::size_t>(k)] = v;
            off_sum += std::abs(v);
        }
        a.values[static_cast<std::size_t>(diag)] = d * off_sum;
        a.row_ptr[static_cast<std::size_t>(i) + 1] = k;
    }
    return a;
}

}  // namespace kbench
