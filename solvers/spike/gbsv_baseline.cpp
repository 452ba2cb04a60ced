// LAPACK dgbsv baseline (li2012 Sec. 3.1-3.2 CPU reference); see gbsv_baseline.hpp.
#include "solvers/spike/gbsv_baseline.hpp"

#include <lapacke.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <string>

#ifdef KBENCH_HAVE_OPENBLAS_THREADS
extern "C" {
void openblas_set_num_threads(int num_threads);
int openblas_get_num_threads(void);
}
#endif

namespace kbench::spike {

namespace {

[[noreturn]] void bad(const std::string& what)
{
    throw std::invalid_argument("kbench::spike::gbsv: " + what);
}

// Sets OpenBLAS's thread count for its lifetime (when settable and requested), then restores it.
class ThreadScope {
public:
    explicit ThreadScope(int threads)
    {
#ifdef KBENCH_HAVE_OPENBLAS_THREADS
        previous_ = openblas_get_num_threads();
        if (threads > 0) openblas_set_num_threads(threads);
        current_ = openblas_get_num_threads();
#else
        (void)threads;
#endif
    }
    ~ThreadScope()
    {
#ifdef KBENCH_HAVE_OPENBLAS_THREADS
        if (previous_ > 0) openblas_set_num_threads(previous_);
#endif
    }
    ThreadScope(const ThreadScope&) = delete;
    ThreadScope& operator=(const ThreadScope&) = delete;
    int current() const { return current_; }

private:
    int previous_ = 0;
    int current_ = 0;
};

}  // namespace

bool gbsv_threads_settable()
{
#ifdef KBENCH_HAVE_OPENBLAS_THREADS
    return true;
#else
    return false;
#endif
}

LapackBand to_lapack_band(const Csr<double>& a, index_type k)
{
    validate(a, "kbench::spike::to_lapack_band: A");
    if (a.num_rows != a.num_cols)
        bad("A must be square, got " + std::to_string(a.num_rows) + " x " +
            std::to_string(a.num_cols));
    if (k < 0 || (a.num_rows > 1 && k >= a.num_rows))
        bad("half-bandwidth K = " + std::to_string(k) + ", expected 0 <= K < n = " +
            std::to_string(a.num_rows));
    LapackBand band;
    band.n = a.num_rows;
    band.kl = k;
    band.ku = k;
    band.ldab = 2 * k + k + 1;
    band.ab.assign(static_cast<std::size_t>(band.ldab) * static_cast<std::size_t>(band.n), 0.0);
    for (index_type i = 0; i < a.num_rows; ++i)
        for (index_type p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p) {
            const index_type j = a.col_idx[p];
            if (j < i - k || j > i + k)
                bad("entry (" + std::to_string(i) + ", " + std::to_string(j) +
                    ") lies outside the band of half-bandwidth " + std::to_string(k));
            const std::size_t row = static_cast<std::size_t>(band.kl + band.ku + i - j);
            band.ab[row + static_cast<std::size_t>(j) * band.ldab] = a.values[p];
        }
    return band;
}

GbsvResult gbsv_solve(const LapackBand& band, const std::vector<double>& b,
                      const GbsvOptions& options)
{
    if (b.size() != static_cast<std::size_t>(band.n))
        bad("b has " + std::to_string(b.size()) + " entries, expected n = " +
            std::to_string(band.n));
    if (band.ldab != 2 * band.kl + band.ku + 1 ||
        band.ab.size() != static_cast<std::size_t>(band.ldab) * band.n)
        bad("band storage must be ldab = 2 kl + ku + 1 rows by n columns");
    if (options.threads < 0) bad("threads = " + std::to_string(options.threads) + ", expected >= 0");
    if (options.repetitions < 1)
        bad("repetitions = " + std::to_string(options.repetitions) + ", expected >= 1");

    GbsvResult result;
    const ThreadScope scope(options.threads);
    result.threads = scope.current();
    std::vector<double> seconds;
    std::vector<lapack_int> ipiv(static_cast<std::size_t>(std::max(band.n, 1)));
    for (int rep = 0; rep < options.repetitions; ++rep) {
        std::vector<double> ab = band.ab;
        result.x = b;
        const auto start = std::chrono::steady_clock::now();
        const lapack_int info =
            LAPACKE_dgbsv(LAPACK_COL_MAJOR, band.n, band.kl, band.ku, 1, ab.data(), band.ldab,
                          ipiv.data(), result.x.data(), std::max(band.n, 1));
        const auto stop = std::chrono::steady_clock::now();
        seconds.push_back(std::chrono::duration<double>(stop - start).count());
        if (info < 0)
            throw std::runtime_error("kbench::spike::gbsv: LAPACKE_dgbsv rejected argument " +
                                     std::to_string(-info));
        if (info > 0) {
            result.status = GbsvStatus::singular;
            result.singular_row = static_cast<index_type>(info - 1);
            result.message = "dgbsv: U(" + std::to_string(info - 1) + ", " +
                             std::to_string(info - 1) + ") is exactly zero (zero-based row " +
                             std::to_string(info - 1) + "): the matrix is singular";
            result.x.clear();
            break;
        }
    }
    std::sort(seconds.begin(), seconds.end());
    result.seconds = seconds[seconds.size() / 2];
    return result;
}

GbsvResult gbsv_solve(const Csr<double>& a, index_type k, const std::vector<double>& b,
                      const GbsvOptions& options)
{
    return gbsv_solve(to_lapack_band(a, k), b, options);
}

}  // namespace kbench::spike
