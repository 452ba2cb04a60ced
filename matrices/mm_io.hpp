// Matrix Market (coordinate format) reading and writing.
// Format: https://math.nist.gov/MatrixMarket/formats.html
#pragma once

#include "matrices/csr.hpp"

#include <iosfwd>
#include <stdexcept>
#include <string>

namespace kbench {

/// Thrown for malformed Matrix Market input. what() reads "<file>:<line>: <what was expected>".
class matrix_market_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// Matrix Market header facts, as read from the banner and size line.
struct MatrixMarketInfo {
    std::string field;     // "real", "integer" or "pattern"
    std::string symmetry;  // "general", "symmetric" or "skew-symmetric"
    index_type num_rows = 0;
    index_type num_cols = 0;
    std::int64_t entries = 0;  // entries stored in the file (one triangle for symmetric files)
    std::int64_t duplicates = 0;  // entries that repeated a row and column and were summed
};

/// Reads a coordinate Matrix Market file (optionally gzip-compressed, detected by content) into
/// a general CSR matrix with sorted columns: symmetric and skew-symmetric files are expanded
/// to both triangles; pattern entries get the value 1; duplicate entries are summed (the format
/// does not define them; SciPy and MATLAB sum them too), with a warning on stderr that names the
/// file and their number.
/// `require_square`: reject non-square matrices. `info`, when given, receives the header facts.
/// Throws matrix_market_error naming the file, the line and what was expected (also for a size
/// line too large for the memory this process can allocate); std::invalid_argument for a
/// directory; std::system_error when the file cannot be opened.
template <typename T>
Csr<T> read_matrix_market(const std::string& path, bool require_square = false,
                          MatrixMarketInfo* info = nullptr);

/// Same as read_matrix_market, from a stream; `name` is used in error messages.
template <typename T>
Csr<T> read_matrix_market(std::istream& in, const std::string& name, bool require_square = false,
                          MatrixMarketInfo* info = nullptr);

/// Writes `a` as "%%MatrixMarket matrix coordinate real general", one-based indices, values with
/// 17 significant digits (round-trips doubles). Gzip-compressed when `path` ends in ".gz".
/// Throws std::system_error when the file cannot be written.
template <typename T>
void write_matrix_market(const Csr<T>& a, const std::string& path);

}  // namespace kbench
