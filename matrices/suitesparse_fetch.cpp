// Downloading and unpacking SuiteSparse collection matrices (libcurl, libarchive).
#include "matrices/suitesparse_fetch.hpp"

#include "matrices/mm_io.hpp"
#include "matrices/suitesparse_index.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <ostream>
#include <stdexcept>

#ifdef KBENCH_HAVE_SUITESPARSE_FETCH
#include <archive.h>
#include <archive_entry.h>
#include <curl/curl.h>
#endif

namespace kbench {
namespace {

namespace fs = std::filesystem;

void say(std::ostream* progress, const std::string& line)
{
    if (progress != nullptr) *progress << "kbench: " << line << std::endl;
}

std::string describe(const MatrixMarketCounts& c)
{
    return fmt::format("{} x {}, {} stored entries, {}", c.num_rows, c.num_cols, c.entries,
                       c.symmetry);
}

/// Counts `path` and compares with the index; "" when it matches, else what is wrong.
std::string check_file(const fs::path& path, const SuiteSparseEntry& entry,
                       MatrixMarketCounts& counts)
{
    try {
        counts = count_matrix_market(path.string());
    } catch (const matrix_market_error& e) {
        return e.what();
    }
    return index_mismatch(counts, entry);
}

#ifdef KBENCH_HAVE_SUITESPARSE_FETCH

struct CurlDeleter {
    void operator()(CURL* c) const { curl_easy_cleanup(c); }
};
struct FileCloser {
    void operator()(std::FILE* f) const { std::fclose(f); }
};
struct ArchiveDeleter {
    void operator()(archive* a) const { archive_read_free(a); }
};
using CurlHandle = std::unique_ptr<CURL, CurlDeleter>;
using FileHandle = std::unique_ptr<std::FILE, FileCloser>;
using ArchiveHandle = std::unique_ptr<archive, ArchiveDeleter>;

void curl_init_once()
{
    static const CURLcode rc = curl_global_init(CURL_GLOBAL_DEFAULT);
    if (rc != CURLE_OK) {
        throw std::runtime_error(fmt::format("libcurl: {}", curl_easy_strerror(rc)));
    }
}

/// State of one transfer, shared with curl's callbacks.
struct Transfer {
    CURL* curl = nullptr;
    FileHandle file;
    fs::path path;
    bool resuming = false;
    bool started = false;
    std::string label;
    std::ostream* progress = nullptr;
    std::chrono::steady_clock::time_point last_report = std::chrono::steady_clock::now();
};

std::size_t write_body(char* data, std::size_t size, std::size_t count, void* user)
{
    auto* t = static_cast<Transfer*>(user);
    if (!t->started) {
        t->started = true;
        long code = 0;
        curl_easy_getinfo(t->curl, CURLINFO_RESPONSE_CODE, &code);
        if (t->resuming && code == 200) {  // the server sent the whole file: start over
            t->file.reset(std::fopen(t->path.c_str(), "wb"));
            if (!t->file) return 0;
        }
    }
    return std::fwrite(data, size, count, t->file.get()) * size;
}

int report_progress(void* user, curl_off_t total, curl_off_t now, curl_off_t, curl_off_t)
{
    auto* t = static_cast<Transfer*>(user);
    const auto clock = std::chrono::steady_clock::now();
    if (t->progress != nullptr && clock - t->last_report > std::chrono::seconds(2)) {
        t->last_report = clock;
        if (total > 0) {
            say(t->progress, fmt::format("{}: {:.1f} of {:.1f} MB", t->label, now / 1e6,
                                         total / 1e6));
        } else {
            say(t->progress, fmt::format("{}: {:.1f} MB", t->label, now / 1e6));
        }
    }
    return 0;
}

enum class Outcome { done, restart };

/// One attempt to download `url` into `partial` (appending when it has bytes and `resume`).
/// Outcome::restart when the server refused the range (the partial file was removed).
Outcome download_once(const std::string& url, const fs::path& partial, bool resume,
                      const std::string& id, std::ostream* progress)
{
    std::error_code ec;
    const auto have = fs::exists(partial) ? fs::file_size(partial, ec) : 0;
    Transfer t;
    t.path = partial;
    t.resuming = resume && have > 0;
    t.label = id;
    t.progress = progress;
    t.file.reset(std::fopen(partial.c_str(), t.resuming ? "ab" : "wb"));
    if (!t.file) {
        throw std::runtime_error(fmt::format("cannot write {}", partial.string()));
    }
    CurlHandle curl(curl_easy_init());
    if (!curl) throw std::runtime_error("libcurl: curl_easy_init failed");
    t.curl = curl.get();
    char error[CURL_ERROR_SIZE] = {0};
    curl_easy_setopt(t.curl, CURLOPT_URL, url.c_str());
    curl_easy_setopt(t.curl, CURLOPT_ERRORBUFFER, error);
    curl_easy_setopt(t.curl, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(t.curl, CURLOPT_FAILONERROR, 1L);
    curl_easy_setopt(t.curl, CURLOPT_USERAGENT, "kbench");
    curl_easy_setopt(t.curl, CURLOPT_CONNECTTIMEOUT, 30L);
    curl_easy_setopt(t.curl, CURLOPT_LOW_SPEED_LIMIT, 1L);  // abort after 60 s without data
    curl_easy_setopt(t.curl, CURLOPT_LOW_SPEED_TIME, 60L);
    curl_easy_setopt(t.curl, CURLOPT_WRITEFUNCTION, write_body);
    curl_easy_setopt(t.curl, CURLOPT_WRITEDATA, &t);
    curl_easy_setopt(t.curl, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(t.curl, CURLOPT_XFERINFOFUNCTION, report_progress);
    curl_easy_setopt(t.curl, CURLOPT_XFERINFODATA, &t);
    if (t.resuming) {
        curl_easy_setopt(t.curl, CURLOPT_RESUME_FROM_LARGE, static_cast<curl_off_t>(have));
        say(progress, fmt::format("{}: resuming {} after {} bytes", id, url, have));
    } else {
        say(progress, fmt::format("{}: downloading {}", id, url));
    }
    const CURLcode rc = curl_easy_perform(t.curl);
    long code = 0;
    curl_easy_getinfo(t.curl, CURLINFO_RESPONSE_CODE, &code);
    const bool flushed = t.file && std::fflush(t.file.get()) == 0;
    t.file.reset();
    if (t.resuming && (rc == CURLE_RANGE_ERROR || code == 416)) {
        fs::remove(partial, ec);
        return Outcome::restart;
    }
    if (rc == CURLE_HTTP_RETURNED_ERROR && code == 404) {
        fs::remove(partial, ec);
        throw std::runtime_error(fmt::format(
            "{} is not in the SuiteSparse collection at {} (HTTP 404 for {})", id,
            url.substr(0, url.rfind("/MM/")), url));
    }
    if (rc != CURLE_OK) {
        std::string kept;
        if (fs::exists(partial) && fs::file_size(partial, ec) > 0) {
            kept = fmt::format("; the partial download is kept in {} and the next fetch "
                               "resumes it",
                               partial.string());
        } else {
            fs::remove(partial, ec);
        }
        throw std::runtime_error(fmt::format(
            "cannot download {}: {}{} (curl error {}{}){}", url, curl_easy_strerror(rc),
            error[0] != '\0' ? std::string(": ") + error : "", static_cast<int>(rc),
            code > 0 ? fmt::format(", HTTP {}", code) : "", kept));
    }
    if (!flushed) throw std::runtime_error(fmt::format("cannot write {}", partial.string()));
    return Outcome::done;
}

void download(const std::string& url, const fs::path& partial, const std::string& id,
              std::ostream* progress)
{
    curl_init_once();
    if (download_once(url, partial, true, id, progress) == Outcome::restart) {
        say(progress, fmt::format("{}: the server does not resume, downloading again", id));
        download_once(url, partial, false, id, progress);
    }
}

/// Unpacks the member NAME/NAME.mtx of `tarball` into `out`. Throws std::runtime_error naming
/// the archive when it is corrupt, truncated or lacks the member.
void unpack(const fs::path& tarball, const std::string& name, const fs::path& out)
{
    const std::string member = name + "/" + name + ".mtx";
    ArchiveHandle a(archive_read_new());
    if (!a) throw std::runtime_error("libarchive: archive_read_new failed");
    archive_read_support_filter_all(a.get());
    archive_read_support_format_tar(a.get());
    auto corrupt = [&](const std::string& why) {
        return std::runtime_error(fmt::format("{}: corrupt or truncated archive: {}",
                                              tarball.string(), why));
    };
    if (archive_read_open_filename(a.get(), tarball.c_str(), 1 << 16) != ARCHIVE_OK) {
        throw corrupt(archive_error_string(a.get()));
    }
    archive_entry* entry = nullptr;
    int rc = ARCHIVE_OK;
    while ((rc = archive_read_next_header(a.get(), &entry)) >= ARCHIVE_WARN) {
        std::string path = archive_entry_pathname(entry);
        if (path.rfind("./", 0) == 0) path.erase(0, 2);
        if (path != member) {
            if (archive_read_data_skip(a.get()) < ARCHIVE_WARN) {
                throw corrupt(archive_error_string(a.get()));
            }
            continue;
        }
        FileHandle file(std::fopen(out.c_str(), "wb"));
        if (!file) throw std::runtime_error(fmt::format("cannot write {}", out.string()));
        std::unique_ptr<char[]> buffer(new char[1 << 16]);
        for (;;) {
            const la_ssize_t n = archive_read_data(a.get(), buffer.get(), 1 << 16);
            if (n < 0) throw corrupt(archive_error_string(a.get()));
            if (n == 0) break;
            if (std::fwrite(buffer.get(), 1, static_cast<std::size_t>(n), file.get()) !=
                static_cast<std::size_t>(n)) {
                throw std::runtime_error(fmt::format("cannot write {}", out.string()));
            }
        }
        if (std::fflush(file.get()) != 0) {
            throw std::runtime_error(fmt::format("cannot write {}", out.string()));
        }
        return;
    }
    if (rc != ARCHIVE_EOF) throw corrupt(archive_error_string(a.get()));
    throw std::runtime_error(
        fmt::format("{}: the archive has no {}", tarball.string(), member));
}

#endif  // KBENCH_HAVE_SUITESPARSE_FETCH

}  // namespace

std::string default_suitesparse_url()
{
    const char* env = std::getenv("KBENCH_SUITESPARSE_URL");
    return env != nullptr && *env != '\0' ? std::string(env) : "https://sparse.tamu.edu";
}

bool suitesparse_fetch_available()
{
#ifdef KBENCH_HAVE_SUITESPARSE_FETCH
    return true;
#else
    return false;
#endif
}

FetchResult fetch_suitesparse(const std::string& id, const FetchOptions& options)
{
    const auto [group, name] = split_suitesparse_id(id);
    const std::string index_path =
        options.index_path.empty() ? shipped_suitesparse_index() : options.index_path;
    const SuiteSparseEntry entry =
        find_suitesparse_entry(load_suitesparse_index(index_path), group, name, index_path);
    if (options.dest_dir.empty()) {
        throw std::invalid_argument("fetch_suitesparse: no destination directory");
    }
    const fs::path dir(options.dest_dir);
    const fs::path mtx = dir / (name + ".mtx");
    FetchResult result{mtx.string(), false};
    MatrixMarketCounts counts;
    if (fs::exists(mtx)) {
        const std::string wrong = check_file(mtx, entry, counts);
        if (!wrong.empty()) {
            throw std::runtime_error(fmt::format(
                "{} is there but is not {} of the collection ({}): move it away to fetch {}",
                mtx.string(), id, wrong, id));
        }
        say(options.progress, fmt::format("{}: {} is already there and matches the index ({}): "
                                          "no download",
                                          id, mtx.string(), describe(counts)));
        return result;
    }
#ifndef KBENCH_HAVE_SUITESPARSE_FETCH
    throw std::runtime_error(
        "kbench was built without libcurl or libarchive, which `matrix fetch` needs: install the "
        "Debian packages 'libcurl4-openssl-dev' and 'libarchive-dev' and configure again");
#else
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) {
        throw std::runtime_error(
            fmt::format("cannot create the matrix directory {}: {}", dir.string(), ec.message()));
    }
    std::string base = options.base_url.empty() ? default_suitesparse_url() : options.base_url;
    while (!base.empty() && base.back() == '/') base.pop_back();
    const std::string url = fmt::format("{}/MM/{}/{}.tar.gz", base, group, name);
    const fs::path tarball = dir / (name + ".tar.gz");
    const fs::path partial_tarball = dir / (name + ".tar.gz.partial");
    if (!fs::exists(tarball)) {
        download(url, partial_tarball, id, options.progress);
        fs::rename(partial_tarball, tarball);
    } else {
        say(options.progress, fmt::format("{}: unpacking {} from an earlier download", id,
                                          tarball.string()));
    }
    const fs::path partial_mtx = dir / (name + ".mtx.partial");
    try {
        unpack(tarball, name, partial_mtx);
    } catch (...) {
        fs::remove(tarball, ec);  // a bad archive is downloaded again next time
        fs::remove(partial_mtx, ec);
        throw;
    }
    const std::string wrong = check_file(partial_mtx, entry, counts);
    if (!wrong.empty()) {
        fs::remove(tarball, ec);
        throw std::runtime_error(fmt::format(
            "{} from {} does not match the collection index {}: {}; the unpacked file is kept "
            "as {}",
            id, url, index_path, wrong, partial_mtx.string()));
    }
    fs::rename(partial_mtx, mtx);
    fs::remove(tarball, ec);
    say(options.progress, fmt::format("{}: wrote {} ({}), matches the index", id, mtx.string(),
                                      describe(counts)));
    result.downloaded = true;
    return result;
#endif
}

}  // namespace kbench
