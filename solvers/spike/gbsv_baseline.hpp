// CPU baseline of the li2012 study (SPIKE::GPU against a CPU banded solver, li2012 Sec. 3.1:
// MKL's LU with forward/backward substitution): LAPACK dgbsv (partial pivoting, LAPACKE,
// OpenBLAS here) on a banded system given as a kbench CSR matrix. Built only when CMake found
// LAPACKE and OpenBLAS (KBENCH_HAVE_LAPACKE; Debian: liblapacke-dev, libopenblas-dev).
// Flop and byte counts of the call: models/spike_model.hpp, models::spike::gbsv.
#pragma once

#include "matrices/csr.hpp"

#include <string>
#include <vector>

namespace kbench::spike {

/// An N x N band with kl sub- and ku super-diagonals in LAPACK band storage for dgbsv:
/// column-major, ldab = 2 kl + ku + 1 rows by n columns; A(i, j) (zero-based) sits at
/// ab[(kl + ku + i - j) + j * ldab]; the first kl rows are the workspace dgbtrf fills.
struct LapackBand {
    int n = 0;
    int kl = 0;
    int ku = 0;
    int ldab = 0;
    std::vector<double> ab;  // ldab * n entries
};

/// Copies a square CSR matrix of half-bandwidth k (kl = ku = k) into LAPACK band storage.
/// Throws std::invalid_argument for a non-square or invalid matrix, k < 0 or k >= n (n > 1), or
/// an entry outside the band (naming its row and column).
LapackBand to_lapack_band(const Csr<double>& a, index_type k);

/// Outcome of a dgbsv call.
enum class GbsvStatus {
    ok,        // solved
    singular,  // dgbtrf found U(i, i) exactly zero: no solution computed
};

/// Options: `threads` > 0 sets OpenBLAS's thread count for the call (openblas_set_num_threads,
/// restored afterwards); 0 keeps the library's default. `repetitions` >= 1 timed calls, each
/// on a fresh copy of the band (the copy is not timed).
struct GbsvOptions {
    int threads = 0;
    int repetitions = 1;
};

/// Result: the solution x (n entries) when ok; for singular, singular_row is the zero-based
/// index i of the zero pivot U(i, i) and `message` names it. seconds: median wall time of the
/// dgbsv calls (factorization + solve, band conversion excluded). threads: OpenBLAS's thread
/// count during the calls, 0 when it cannot be queried.
struct GbsvResult {
    GbsvStatus status = GbsvStatus::ok;
    index_type singular_row = -1;
    std::string message;
    double seconds = 0.0;
    int threads = 0;
    std::vector<double> x;
};

/// Solves A x = b with dgbsv for a CSR matrix of half-bandwidth k. Throws std::invalid_argument
/// for bad input (see to_lapack_band; b.size() != n; threads < 0; repetitions < 1) and
/// std::runtime_error if dgbsv rejects an argument (info < 0). A singular U is a status.
GbsvResult gbsv_solve(const Csr<double>& a, index_type k, const std::vector<double>& b,
                      const GbsvOptions& options = {});

/// Solves with a band already in LAPACK storage (copied per repetition; `band` is unchanged).
GbsvResult gbsv_solve(const LapackBand& band, const std::vector<double>& b,
                      const GbsvOptions& options = {});

/// True when the OpenBLAS thread count can be set (openblas_set_num_threads was linked).
bool gbsv_threads_settable();

}  // namespace kbench::spike
