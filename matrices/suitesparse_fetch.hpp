// Downloading a matrix of the SuiteSparse Matrix Collection: the Matrix Market archive
// <base>/MM/GROUP/NAME.tar.gz (libcurl), its NAME/NAME.mtx unpacked (libarchive) into a
// directory as NAME.mtx, checked against the collection index (suitesparse_index.hpp).
//
// Built with libcurl and libarchive when CMake finds them (KBENCH_HAVE_SUITESPARSE_FETCH);
// without them fetch_suitesparse throws, naming the Debian packages to install.
#pragma once

#include <iosfwd>
#include <string>

namespace kbench {

/// The collection's address when none is given: $KBENCH_SUITESPARSE_URL if set and non-empty,
/// else https://sparse.tamu.edu (which also serves as
/// https://suitesparse-collection-website.herokuapp.com). Archives are under <base>/MM/.
std::string default_suitesparse_url();

/// Whether this build can download (libcurl and libarchive were found).
bool suitesparse_fetch_available();

struct FetchOptions {
    std::string base_url;    // empty: default_suitesparse_url()
    std::string index_path;  // empty: shipped_suitesparse_index()
    std::string dest_dir;    // where NAME.mtx goes (created when missing); must be non-empty
    std::ostream* progress = nullptr;  // progress and status lines (e.g. &std::cerr), or none
};

struct FetchResult {
    std::string path;         // <dest_dir>/NAME.mtx
    bool downloaded = false;  // false: it was already there and matched the index
};

/// Makes sure <dest_dir>/NAME.mtx holds the collection's matrix `id` ("GROUP/NAME"):
///  * looks `id` up in the index (std::invalid_argument when it is not there or malformed);
///  * a NAME.mtx already in dest_dir that matches the index is kept: no download;
///    one that does not match throws std::runtime_error (it is another file: move it away);
///  * else downloads <base>/MM/GROUP/NAME.tar.gz to <dest_dir>/NAME.tar.gz.partial (resumed
///    with an HTTP Range request when a partial file is there and the server honours it),
///    renames it NAME.tar.gz, unpacks NAME/NAME.mtx to NAME.mtx.partial, checks it against the
///    index, renames it NAME.mtx and deletes the archive.
/// Throws std::runtime_error naming the URL and curl's message when the download fails
/// (offline, refused, timed out), saying the matrix is not in the collection on HTTP 404,
/// naming the archive for a corrupt or truncated archive or one without NAME/NAME.mtx (the
/// archive is deleted so that the next fetch downloads it again), and saying what differs for
/// a matrix whose size disagrees with the index (the unpacked file is kept as NAME.mtx.partial
/// for inspection); std::runtime_error naming the packages when the build has no libcurl or
/// libarchive; std::invalid_argument for an empty dest_dir.
FetchResult fetch_suitesparse(const std::string& id, const FetchOptions& options);

}  // namespace kbench
