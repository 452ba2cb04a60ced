// Matrix sets: JSON manifests naming Matrix Market files or generators.
//
// Manifest format (matrices/sets/*.json):
//   {"name": "default", "description": "...",
//    "matrices": [
//      {"name": "fv1", "file": "fv1.mtx", "stands_for": "FV1 (anzt2015 Table 2)"},
//      {"name": "lap3d_7pt_200", "generator": "laplacian_3d_7pt", "params": {"nx": 200, "ny": 200, "nz": 200}},
//      {"name": "fv1_x240", "generator": "replicate",
//       "params": {"file": "fv1.mtx", "target_rows": 2000000, "layout": "diagonal"}}]}
// Generators (matrices/generators.hpp):
//   laplacian_2d_5pt (nx, ny), laplacian_3d_7pt / laplacian_3d_27pt (nx, ny, nz),
//   convection_diffusion (nx, ny, nz, wx, wy, wz), trefethen (n),
//   replicate (file, target_rows, layout = "diagonal" | "five_band", optional, default "diagonal"),
//   random_rows (n, distribution = "uniform" | "geometric" | "power_law", row_min, row_max,
//     mean: geometric only, exponent: power_law only, bandwidth >= 0, seed optional, default 1),
//   banded (n, K, d, seed optional, default 1, signs = "random" | "negative", optional, default
//     "random": the off-diagonal signs, see BandedSigns).
// Each entry has a non-empty unique "name", exactly one of "file" / "generator" (the stand-in),
// an optional "suitesparse": "GROUP/NAME" naming the paper's own matrix in the SuiteSparse
// collection (used instead of the stand-in when the set is loaded with real matrices and
// NAME.mtx is present: MatrixSetOptions; `kbench matrix fetch --set` downloads them), "params" for
// generators (integers >= 1 for sizes, numbers for wx/wy/wz, numbers > 0 for mean, exponent and
// d, integers in [0, 2^64) for seeds; unknown keys and parameters are errors), an optional
// "stands_for" string and an optional "study" object: what a study reads for this matrix (e.g.
// yamazaki2014/fig14's restart length and step size), kept as it is, not read here. Checks
// involving several parameters are made at load time too, as the generators make them
// (random_rows: row_min <= row_max <= n, mean in [row_min, row_max], a mean or exponent that the
// distribution does not use; banded: K < n). Relative file paths resolve against the matrix
// directory; absolute ones are used as they are.
// Quick runs (`kbench reproduce --quick`, MatrixSetOptions::quick): an optional top-level
// "quick" array names the entries a quick run keeps (without it, the first entry alone), and a
// generator entry may carry "quick_params", an object whose keys override those of "params" in
// a quick run (e.g. {"target_rows": 500000} for a replication). Both are checked on every
// load, quick or not: every name of "quick" must be an entry's, once; the merged parameters
// must pass the checks of "params". A run that is not quick ignores them, and "quick_params"
// is never part of an entry's spec (a quick entry's spec holds the merged "params").
#pragma once

#include "matrices/csr.hpp"

#include <optional>
#include <string>
#include <vector>

namespace kbench {

/// One entry of a matrix set. `spec` holds the manifest entry as JSON text, without its
/// "suitesparse" key (so that the stand-in's spec, and what is keyed on it, is the same with or
/// without one); for a real entry, {"name", "suitesparse", "file"} of the matrix used.
struct MatrixEntry {
    std::string name;
    std::string source;      // "file" (also a real SuiteSparse matrix) or a generator name
    std::string file;        // resolved path for "file" and "replicate" entries, else empty
    std::string stands_for;  // which paper matrix this one stands in for (may be empty)
    std::string study;       // the entry's "study" object as JSON text, or empty
    std::string spec;        // the manifest entry (JSON text) for the results' context
    std::string suitesparse; // "GROUP/NAME" of the paper's own matrix, or empty
    bool real = false;       // true: `file` is that SuiteSparse matrix, used instead of the stand-in
};

/// How load_matrix_set treats entries that name a SuiteSparse matrix, and quick runs.
struct MatrixSetOptions {
    bool real = false;  // use NAME.mtx of the first of real_dirs that has it instead of the stand-in
    std::vector<std::string> real_dirs;  // where to look (empty strings are skipped)
    bool quick = false;  // keep the "quick" entries (else the first), built with quick_params
};

struct MatrixSet {
    std::string name;
    std::string description;
    std::string manifest;  // absolute path of the manifest file the set was read from
    std::vector<MatrixEntry> matrices;
};

/// The matrix directory: `cli_value` if non-empty, else $KBENCH_MATRIX_DIR, else empty.
std::string resolve_matrix_dir(const std::string& cli_value);

/// Loads a manifest from `path_or_name`: a path to a JSON file, or the name of a set shipped in
/// matrices/sets/ (e.g. "default"). File entries are resolved against `matrix_dir`. Throws
/// std::invalid_argument naming the manifest and the entry for unknown generators, missing
/// or wrongly typed parameters, inconsistent parameters (e.g. row_min > row_max, K >= n; the
/// message names the parameter), duplicate names, a file entry without a matrix directory (the
/// message says to pass --matrix-dir or set KBENCH_MATRIX_DIR) or whose file does not exist
/// (the message gives the full path), and for a name that is no file and no shipped set (the
/// message lists the shipped sets), and for a "suitesparse" value that is not "GROUP/NAME".
/// Files are checked here, not read. With options.real, an entry whose NAME.mtx is in one of
/// options.real_dirs becomes a file entry of that file with `real` set (its stand-in is still
/// checked, except that a stand-in's file need not exist); other entries keep their stand-in.
/// With options.quick only the entries of the manifest's "quick" array (else the first) are
/// returned, in manifest order, generator entries built with "quick_params" over "params".
/// Also throws std::invalid_argument naming the manifest and the entry for a "quick" that is not
/// a non-empty array of entry names or names an entry that is not in the set (or twice), and
/// for "quick_params" on a file entry, not an object, or whose merged parameters fail the checks
/// of "params" (in every load, quick or not).
MatrixSet load_matrix_set(const std::string& path_or_name, const std::string& matrix_dir,
                          const MatrixSetOptions& options = {});

/// The "suitesparse" ids ("GROUP/NAME") the entries of a set name, in manifest order, without
/// duplicates. The set is found as load_matrix_set finds it; only its JSON is read (no file of
/// the set needs to exist). Throws std::invalid_argument naming the manifest for a name that is
/// no set, invalid JSON, or a "suitesparse" value that is not a string GROUP/NAME.
std::vector<std::string> suitesparse_ids_of_set(const std::string& path_or_name);

/// The path of NAME.mtx for SuiteSparse id "GROUP/NAME" in the first of `dirs` that has it,
/// else empty. Throws std::invalid_argument for a malformed id.
std::string find_real_matrix(const std::string& suitesparse_id,
                             const std::vector<std::string>& dirs);

/// The generators of set entries and `kbench matrix generate`, one per line, each followed by
/// its parameters (name, accepted values, "(optional)" where it may be left out).
std::string generator_help();

/// Names (file stems) of the *.json sets shipped in matrices/sets/ (KBENCH_SETS_DIR), sorted.
std::vector<std::string> shipped_matrix_sets();

/// Builds (reads or generates) the matrix of an entry: files through
/// read_matrix_market<double>(file, require_square = true), which expands symmetric storage.
/// Generator entries are checked first as load_matrix_set checks them (for entries made
/// elsewhere, e.g. by `kbench matrix generate`): std::invalid_argument naming the matrix for an
/// unknown generator and for missing, unknown, wrongly typed or inconsistent parameters.
/// Throws as the reader/generator does.
Csr<double> build_matrix(const MatrixEntry& entry);

}  // namespace kbench
