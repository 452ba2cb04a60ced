// The SuiteSparse Matrix Collection's index (matrices/suitesparse_index.csv) and the check of a
// Matrix Market file against it, as the collection counts: `nonzeros` excludes explicit zeros,
// and the file of a symmetric matrix stores one triangle.
//
// Index format: CSV with a header naming at least the columns group, name, num_rows, num_cols,
// nonzeros, num_explicit_zeros (in any order; other columns are ignored, so the collection's
// full ss_index.csv reads too). The shipped file holds those six columns for all 2904 matrices
// of the collection (from its website's seed data, 2025-06-05).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace kbench {

/// One matrix of the collection index.
struct SuiteSparseEntry {
    std::string group, name;
    std::int64_t num_rows = 0, num_cols = 0;
    std::int64_t nonzeros = 0;        // numerically nonzero entries of the whole matrix
    std::int64_t explicit_zeros = 0;  // entries stored with the value 0
    std::string id() const { return group + "/" + name; }
};

/// The index shipped with kbench (matrices/suitesparse_index.csv in the source tree).
std::string shipped_suitesparse_index();

/// "GROUP/NAME" -> {GROUP, NAME}. Throws std::invalid_argument quoting `id` when it is not two
/// non-empty parts of letters, digits, '_', '-', '.' and '+' separated by one '/'.
std::pair<std::string, std::string> split_suitesparse_id(const std::string& id);

/// Reads an index file (format above). Throws std::invalid_argument naming the file for a file
/// that cannot be opened, a header without one of the six columns, or a row whose field count
/// or numbers are wrong (the message gives the line).
std::vector<SuiteSparseEntry> load_suitesparse_index(const std::string& path);

/// The entry of `group`/`name` in `index`. Throws std::invalid_argument saying that the matrix
/// is not in the index `index_path` (for the message).
const SuiteSparseEntry& find_suitesparse_entry(const std::vector<SuiteSparseEntry>& index,
                                               const std::string& group,
                                               const std::string& name,
                                               const std::string& index_path);

/// What a coordinate Matrix Market file stores, counted entry by entry.
struct MatrixMarketCounts {
    std::string symmetry;           // general, symmetric, skew-symmetric or hermitian
    std::int64_t num_rows = 0, num_cols = 0;
    std::int64_t header_entries = 0;  // the size line's entry count
    std::int64_t entries = 0;         // entry lines read
    std::int64_t diagonal = 0;        // entries with row == column
};

/// Scans a Matrix Market coordinate file (not gzipped): the banner's symmetry, the size line,
/// then every entry's row and column (values are not parsed). Throws matrix_market_error (from
/// mm_io.hpp) naming the file and line for a missing or wrong banner, a bad size line, an entry
/// out of range, or fewer/more entries than the size line says (a truncated file);
/// std::system_error when the file cannot be opened.
MatrixMarketCounts count_matrix_market(const std::string& path);

/// Entries (both triangles, explicit zeros included) of the matrix a file with `counts` holds:
/// entries for general files, 2 * entries - diagonal for symmetric and hermitian ones,
/// 2 * entries for skew-symmetric ones.
std::int64_t expanded_entries(const MatrixMarketCounts& counts);

/// Checks `counts` against the index entry: rows and columns equal, and the expanded entries
/// equal to nonzeros + explicit_zeros. Returns "" when they match, else what differs, e.g.
/// "rows 100 (index: 120)".
std::string index_mismatch(const MatrixMarketCounts& counts, const SuiteSparseEntry& entry);

}  // namespace kbench
