// Truncated SPIKE on the CPU (spike.hpp): the same per-partition steps as spike.cu, in plain
// loops over the band storage, as OpenMP loops over the partitions when built with OpenMP.
#include "solvers/spike/spike.hpp"
#include "solvers/spike/spike_omp.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace kbench::solvers::spike {

bool cpu_openmp()
{
#ifdef _OPENMP
    return true;
#else
    return false;
#endif
}

int cpu_max_threads()
{
#ifdef _OPENMP
    return std::max(1, omp_get_max_threads());
#else
    return 1;
#endif
}

namespace {

/// Throws for shapes with no valid psize (K < 1 or N < 4K), naming `function`.
void check_shape(const char* function, index_type n, index_type K)
{
    if (K < 1)
        throw std::invalid_argument(std::string{function} + ": K = " + std::to_string(K) +
                                    ", expected K >= 1");
    if (n < 4 * static_cast<std::int64_t>(K))
        throw std::invalid_argument(std::string{function} + ": N = " + std::to_string(n) +
                                    ", expected N >= 4K = " + std::to_string(4 * K) +
                                    " (two partitions of at least 2K rows)");
}

}  // namespace

index_type cpu_partition_count(index_type n, index_type K, int threads)
{
    if (threads < 1)
        throw std::invalid_argument("spike::cpu_partition_count: threads = " +
                                    std::to_string(threads) + ", expected threads >= 1");
    check_shape("spike::cpu_partition_count", n, K);
    return std::clamp<index_type>(threads, 2, n / (2 * K));
}

index_type psize_for_partitions(index_type n, index_type K, index_type partitions)
{
    check_shape("spike::psize_for_partitions", n, K);
    if (partitions < 2 || partitions > n / (2 * K))
        throw std::invalid_argument(
            "spike::psize_for_partitions: partitions = " + std::to_string(partitions) +
            ", expected 2 <= partitions <= N / (2K) = " + std::to_string(n / (2 * K)) +
            " (N = " + std::to_string(n) + ", K = " + std::to_string(K) +
            ": every partition needs at least 2K rows)");
    return n / partitions;
}

Partitioning make_partitioning(index_type n, index_type K, index_type psize)
{
    if (K < 1 || psize < 2 * K || psize > n / 2)
        throw std::invalid_argument(
            "spike: psize = " + std::to_string(psize) + " must satisfy 2K <= psize <= N/2 with K >= 1 (N = " +
            std::to_string(n) + ", K = " + std::to_string(K) + ": psize in [" +
            std::to_string(2 * K) + ", " + std::to_string(n / 2) + "])");
    Partitioning p;
    p.n = n;
    p.K = K;
    p.psize = psize;
    p.count = n / psize;
    return p;
}

const char* to_string(SpikeStage stage)
{
    switch (stage) {
    case SpikeStage::none: return "none";
    case SpikeStage::lu: return "LU";
    case SpikeStage::ul: return "UL";
    case SpikeStage::reduced: return "reduced system";
    }
    return "?";
}

const char* to_string(SpikeTips tips)
{
    return tips == SpikeTips::exact ? "exact" : "corner_ul";
}

SpikeTips parse_spike_tips(const std::string& name)
{
    for (SpikeTips t : {SpikeTips::exact, SpikeTips::corner_ul})
        if (name == to_string(t)) return t;
    throw std::invalid_argument("spike tips '" + name + "': expected exact or corner_ul");
}

std::string SpikeStatus::message() const
{
    if (ok()) return "ok";
    const std::string where = stage == SpikeStage::reduced
                                  ? "reduced block of interface " + std::to_string(partition)
                                  : std::string{to_string(stage)} + " of partition " +
                                        std::to_string(partition);
    return "zero pivot in the " + where + " at row " + std::to_string(row);
}

namespace detail {

SpikeStatus pick_status(const Partitioning& part, const std::vector<int>& lu,
                        const std::vector<int>& ul, const std::vector<int>& red)
{
    SpikeStatus s;
    for (index_type i = 0; i < part.count; ++i) {
        if (lu[i] >= 0 || ul[i] >= 0) {
            s.code = SpikeCode::zero_pivot;
            s.partition = i;
            s.stage = lu[i] >= 0 ? SpikeStage::lu : SpikeStage::ul;
            s.row = lu[i] >= 0 ? part.offset(i) + lu[i] : part.offset(i) + part.size(i) - 1 - ul[i];
            return s;
        }
    }
    for (std::size_t i = 0; i < red.size(); ++i) {
        if (red[i] >= 0) {
            const auto ii = static_cast<index_type>(i);
            s.code = SpikeCode::zero_pivot;
            s.stage = SpikeStage::reduced;
            s.partition = ii;
            s.row = part.offset(ii + 1) - part.K + red[i];
            return s;
        }
    }
    return s;
}

index_type ul_rows(const Partitioning& part, index_type i, SpikeTips tips)
{
    if (tips == SpikeTips::exact) return part.size(i);
    return i == 0 ? 0 : 2 * part.K;
}

void add_phase(std::vector<PhaseTime>& phases, const char* name, const char* group,
               double seconds)
{
    for (PhaseTime& ph : phases)
        if (ph.name == name) {
            ph.seconds += seconds;
            ++ph.calls;
            return;
        }
    phases.push_back(PhaseTime{name, group, seconds, 1});
}

}  // namespace detail

namespace {

template <typename T>
bool bad_pivot(T u, T scale)
{
    return !std::isfinite(u) || std::abs(u) <= std::numeric_limits<T>::epsilon() * scale;
}

/// In-place LU without pivoting of the n x n block whose column 0 is at `a` (band storage, ldab
/// 2K+1); scale[k * stride] is the row scale of local row k. Returns the first bad step or -1.
template <typename T>
int band_lu(T* a, index_type n, index_type K, const T* scale, int stride)
{
    const std::size_t ld = 2 * K + 1;
    auto at = [&](index_type r, index_type c) -> T& { return a[(K + r - c) + c * ld]; };
    for (index_type k = 0; k < n; ++k) {
        const T piv = at(k, k);
        if (bad_pivot(piv, scale[static_cast<std::ptrdiff_t>(k) * stride])) return k;
        const index_type m = std::min(K, n - 1 - k);
        for (index_type i = 1; i <= m; ++i) at(k + i, k) /= piv;
        for (index_type j = 1; j <= m; ++j)
            for (index_type i = 1; i <= m; ++i) at(k + i, k + j) -= at(k + i, k) * at(k, k + j);
    }
    return -1;
}

/// y := U_bb^{-1} L_bb^{-1} y for the K x K column-major y, from the bottom-right K x K corners
/// of the factors of the n x n block at `a`.
template <typename T>
void corner_solve(const T* a, index_type n, index_type K, T* y)
{
    const std::size_t ld = 2 * K + 1;
    const index_type o = n - K;
    auto at = [&](index_type r, index_type c) { return a[(K + r - c) + (o + c) * ld]; };  // corner-local
    for (index_type c = 0; c < K; ++c) {
        T* col = y + static_cast<std::size_t>(c) * K;
        for (index_type q = 0; q < K; ++q)
            for (index_type r = q + 1; r < K; ++r) col[r] -= at(r, q) * col[q];
        for (index_type q = K - 1; q >= 0; --q) {
            col[q] /= at(q, q);
            for (index_type r = 0; r < q; ++r) col[r] -= at(r, q) * col[q];
        }
    }
}

/// LU with partial pivoting of the m x m column-major r; piv[k] = row swapped with k. Returns
/// the first bad step or -1.
template <typename T>
int dense_lu(T* r, index_type m, int* piv)
{
    T scale(0);
    for (std::size_t e = 0; e < static_cast<std::size_t>(m) * m; ++e) scale = std::max(scale, std::abs(r[e]));
    auto at = [&](index_type i, index_type j) -> T& { return r[i + static_cast<std::size_t>(j) * m]; };
    for (index_type k = 0; k < m; ++k) {
        index_type p = k;
        for (index_type i = k + 1; i < m; ++i)
            if (std::abs(at(i, k)) > std::abs(at(p, k))) p = i;
        piv[k] = p;
        if (bad_pivot(at(p, k), scale)) return k;
        if (p != k)
            for (index_type j = 0; j < m; ++j) std::swap(at(k, j), at(p, j));
        for (index_type i = k + 1; i < m; ++i) at(i, k) /= at(k, k);
        for (index_type j = k + 1; j < m; ++j)
            for (index_type i = k + 1; i < m; ++i) at(i, j) -= at(i, k) * at(k, j);
    }
    return -1;
}

/// x := A^{-1} x with the band LU of the n x n block at `a`.
template <typename T>
void band_solve(const T* a, index_type n, index_type K, T* x)
{
    const std::size_t ld = 2 * K + 1;
    auto at = [&](index_type r, index_type c) { return a[(K + r - c) + c * ld]; };
    for (index_type k = 0; k < n; ++k)
        for (index_type i = 1; i <= std::min(K, n - 1 - k); ++i) x[k + i] -= at(k + i, k) * x[k];
    for (index_type k = n - 1; k >= 0; --k) {
        x[k] /= at(k, k);
        for (index_type i = 1; i <= std::min(K, k); ++i) x[k - i] -= at(k - i, k) * x[k];
    }
}

}  // namespace

template <typename T>
SpikeReference<T>::SpikeReference(int threads) : threads_(threads)
{
    if (threads < 1)
        throw std::invalid_argument("SpikeReference: threads = " + std::to_string(threads) +
                                    ", expected threads >= 1");
}

template <typename T>
int SpikeReference<T>::threads_used() const
{
    if (!cpu_openmp()) return 1;
    return part_.count > 0 ? static_cast<int>(std::min<index_type>(team_, part_.count))
                           : threads_;
}

template <typename T>
SpikeStatus SpikeReference<T>::factor(const BandMatrix<T>& a, index_type psize, SpikeTips tips,
                                      std::vector<PhaseTime>* phases)
{
    using clock = std::chrono::steady_clock;
    auto t0 = clock::now();
    auto lap = [&](const char* name) {  // adds the time since the last lap to phase `name`
        const auto t1 = clock::now();
        if (phases != nullptr)
            detail::add_phase(*phases, name, "setup",
                              std::chrono::duration<double>(t1 - t0).count());
        t0 = t1;
    };
    factored_ = false;
    const Partitioning part = make_partitioning(a.n, a.K, psize);
    const index_type K = a.K, p = part.count;
    const std::size_t ld = a.ldab(), KK = static_cast<std::size_t>(K) * K;
    if (a.ab.size() != ld * a.n)
        throw std::invalid_argument("spike: band storage has " + std::to_string(a.ab.size()) +
                                    " entries, expected n (2K+1) = " + std::to_string(ld * a.n));
    part_ = part;
    [[maybe_unused]] const int nt = threads_;  // the OpenMP loops' team size
    fac_.reset(new T[a.ab.size()]);  // not zero-filled: every slot is written below
    rev_.reset(new T[a.ab.size()]);
    scale_.reset(new T[a.n]);
    std::vector<int> lu(p), ul(p, -1), red;
    int team = 1;
    // Per partition: its columns of A copied into fac_, its row scales, the reversed block
    // J A_i J (column c of the copy is column n_i-1-c of A_i upside down, zero outside the
    // block), its LU and UL.
    KBENCH_SPIKE_OMP(omp parallel for num_threads(nt) schedule(static))
    for (index_type i = 0; i < p; ++i) {
#ifdef _OPENMP
        if (i == 0) team = omp_get_num_threads();  // only iteration 0 writes it
#endif
        const index_type off = part.offset(i), n = part.size(i);
        std::copy(a.ab.data() + off * ld, a.ab.data() + (off + n) * ld, fac_.get() + off * ld);
        for (index_type r = off; r < off + n; ++r) {
            T m(0);
            for (index_type j = std::max(0, r - K); j <= std::min(a.n - 1, r + K); ++j)
                m = std::max(m, std::abs(a.ab[a.index(r, j)]));
            scale_[r] = m;
        }
        for (index_type c = 0; c < n; ++c)
            for (index_type t = 0; t < 2 * K + 1; ++t) {
                const index_type r = c + t - K;
                rev_[t + (off + c) * ld] =
                    r >= 0 && r < n ? fac_[(2 * K - t) + (off + n - 1 - c) * ld] : T(0);
            }
        lu[i] = band_lu(fac_.get() + off * ld, n, K, scale_.get() + off, 1);
        // UL of the top l rows of A_i = LU of the bottom-right l x l corner of the reversed
        // block (column n - l on); its step k is the reversed block's step n - l + k.
        const index_type l = detail::ul_rows(part, i, tips);
        if (l == 0) continue;
        const int k =
            band_lu(rev_.get() + (off + n - l) * ld, l, K, scale_.get() + off + l - 1, -1);
        if (k >= 0) ul[i] = static_cast<int>(n - l) + k;
    }
    team_ = team;
    lap("LU/UL");
    SpikeStatus s = detail::pick_status(part, lu, ul, red);
    if (!s.ok()) return s;
    // Spike tips: V_i^b from B_i (lower triangular, in the columns of partition i+1), W_{i+1}^t
    // from C_{i+1} (upper triangular, in the columns of partition i) with reversed rows.
    vtip_.assign((p - 1) * KK, T(0));
    wtip_.assign((p - 1) * KK, T(0));
    KBENCH_SPIKE_OMP(omp parallel for num_threads(nt) schedule(static))
    for (index_type i = 0; i < p - 1; ++i) {
        std::vector<T> y(KK);
        const index_type off = part.offset(i), n = part.size(i);
        const index_type off1 = part.offset(i + 1), n1 = part.size(i + 1);
        T* v = vtip_.data() + i * KK;
        for (index_type c = 0; c < K; ++c)
            for (index_type r = c; r < K; ++r) v[r + c * K] = fac_[(r - c) + (off1 + c) * ld];
        corner_solve(fac_.get() + off * ld, n, K, v);
        for (index_type c = 0; c < K; ++c)
            for (index_type r = 0; r <= c; ++r)
                y[(K - 1 - r) + c * K] = fac_[(2 * K + r - c) + (off1 - K + c) * ld];
        corner_solve(rev_.get() + off1 * ld, n1, K, y.data());
        T* w = wtip_.data() + i * KK;
        for (index_type c = 0; c < K; ++c)
            for (index_type r = 0; r < K; ++r) w[r + c * K] = y[(K - 1 - r) + c * K];
    }
    lap("spikes");
    // Reduced blocks R_i = [[I, V_i^b], [W_{i+1}^t, I]].
    const index_type m = 2 * K;
    const std::size_t mm = static_cast<std::size_t>(m) * m;
    rlu_.assign((p - 1) * mm, T(0));
    rpiv_.assign((p - 1) * m, 0);
    red.assign(p - 1, -1);
    KBENCH_SPIKE_OMP(omp parallel for num_threads(nt) schedule(static))
    for (index_type i = 0; i < p - 1; ++i) {
        T* r = rlu_.data() + i * mm;
        for (index_type k = 0; k < m; ++k) r[k + k * m] = T(1);
        for (index_type c = 0; c < K; ++c)
            for (index_type q = 0; q < K; ++q) {
                r[q + (K + c) * m] = vtip_[i * KK + q + c * K];
                r[(K + q) + c * m] = wtip_[i * KK + q + c * K];
            }
        red[i] = dense_lu(r, m, rpiv_.data() + i * m);
    }
    lap("reduced system");
    s = detail::pick_status(part, lu, ul, red);
    factored_ = s.ok();
    return s;
}

template <typename T>
template <typename In, typename Out>
void SpikeReference<T>::apply_impl(const In* r, Out* z) const
{
    if (!factored_) throw std::logic_error("SpikeReference::apply: no successful factor()");
    const Partitioning& part = part_;
    const index_type K = part.K, p = part.count, m = 2 * K;
    const std::size_t ld = 2 * K + 1, mm = static_cast<std::size_t>(m) * m;
    [[maybe_unused]] const int nt = threads_;  // the OpenMP loops' team size
    // g = D^{-1} r (not zero-filled: each partition writes its rows on its thread).
    const std::unique_ptr<T[]> g(new T[part.n]);
    KBENCH_SPIKE_OMP(omp parallel for num_threads(nt) schedule(static))
    for (index_type i = 0; i < p; ++i) {
        const index_type off = part.offset(i);
        std::copy(r + off, r + off + part.size(i), g.get() + off);
        band_solve(fac_.get() + off * ld, part.size(i), K, g.get() + off);
    }
    // Reduced blocks: xhat_i = R_i^{-1} [g_i^b; g_{i+1}^t] = [x_i^b; x_{i+1}^t].
    std::vector<T> xhat((p - 1) * m);
    KBENCH_SPIKE_OMP(omp parallel for num_threads(nt) schedule(static))
    for (index_type i = 0; i < p - 1; ++i) {
        T* b = xhat.data() + i * m;
        const T* lu = rlu_.data() + i * mm;
        std::copy_n(g.get() + part.offset(i + 1) - K, m, b);
        for (index_type k = 0; k < m; ++k) std::swap(b[k], b[rpiv_[i * m + k]]);
        for (index_type k = 0; k < m; ++k)
            for (index_type q = k + 1; q < m; ++q) b[q] -= lu[q + k * m] * b[k];
        for (index_type k = m - 1; k >= 0; --k) {
            b[k] /= lu[k + k * m];
            for (index_type q = 0; q < k; ++q) b[q] -= lu[q + k * m] * b[k];
        }
    }
    // Purification: x_i = A_i^{-1} (r_i - [0; B_i x_{i+1}^t] - [C_i x_{i-1}^b; 0]).
    KBENCH_SPIKE_OMP(omp parallel for num_threads(nt) schedule(static))
    for (index_type i = 0; i < p; ++i) {
        const index_type off = part.offset(i), n = part.size(i);
        std::vector<T> w(r + off, r + off + n);
        if (i > 0) {
            const T* xb = xhat.data() + (i - 1) * m;
            for (index_type q = 0; q < K; ++q) {
                T s(0);
                for (index_type c = q; c < K; ++c) s += fac_[(2 * K + q - c) + (off - K + c) * ld] * xb[c];
                w[q] -= s;
            }
        }
        if (i + 1 < p) {
            const T* xt = xhat.data() + i * m + K;
            for (index_type q = 0; q < K; ++q) {
                T s(0);
                for (index_type c = 0; c <= q; ++c) s += fac_[(q - c) + (off + n + c) * ld] * xt[c];
                w[n - K + q] -= s;
            }
        }
        band_solve(fac_.get() + off * ld, n, K, w.data());
        for (index_type k = 0; k < n; ++k) z[off + k] = static_cast<Out>(w[k]);
    }
}

template <typename T>
void SpikeReference<T>::apply(const T* r, T* z) const
{
    apply_impl(r, z);
}

template <typename T>
void SpikeReference<T>::apply_mixed(const double* r, double* z) const
{
    apply_impl(r, z);
}

template class SpikeReference<float>;
template class SpikeReference<double>;

}  // namespace kbench::solvers::spike
