// libFuzzer target for the Matrix Market reader (matrices/mm_io.hpp).
//
// Contract checked: for any bytes, read_matrix_market (istream overload, double and float)
// either returns a matrix satisfying the CSR invariants (kbench::validate) or throws
// matrix_market_error / std::invalid_argument. Any other exception, crash or sanitizer report is
// a bug. Valid input must also survive a write/read round trip unchanged (double: bit-exact).
// Build and run: matrices/fuzz/run.sh; the corpus replay runs in ctest (fuzz_mm_io_corpus).
#include "matrices/mm_io.hpp"

#include <zlib.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <unistd.h>

namespace {

/// Inputs whose size line declares more rows than this are skipped: a valid such file has an
/// O(rows) row_ptr, which would only measure the fuzzer's memory limit.
constexpr long long kMaxRows = 1 << 20;

/// The input gunzipped when it carries the gzip magic (best effort, output capped), else as is.
std::string plain_text(const uint8_t* data, size_t size)
{
    std::string in(reinterpret_cast<const char*>(data), size);
    if (size < 2 || data[0] != 0x1f || data[1] != 0x8b) return in;
    std::string out;
    z_stream zs{};
    if (inflateInit2(&zs, 15 + 32) != Z_OK) return out;
    zs.next_in = reinterpret_cast<Bytef*>(in.data());
    zs.avail_in = static_cast<uInt>(in.size());
    char buf[4096];
    int rc = Z_OK;
    while (rc == Z_OK && out.size() < (64u << 20)) {
        zs.next_out = reinterpret_cast<Bytef*>(buf);
        zs.avail_out = sizeof buf;
        rc = inflate(&zs, Z_NO_FLUSH);
        out.append(buf, sizeof buf - zs.avail_out);
        if (rc == Z_STREAM_END && zs.avail_in > 0) rc = inflateReset(&zs);
    }
    inflateEnd(&zs);
    return out;
}

/// Rows declared by the first line after the banner that is neither blank nor a comment
/// (0 when there is none or it does not start with a number).
long long declared_rows(const std::string& text)
{
    std::size_t pos = text.find('\n');
    while (pos != std::string::npos && pos + 1 < text.size()) {
        const std::size_t b = pos + 1;
        pos = text.find('\n', b);
        const std::string line = text.substr(b, pos == std::string::npos ? std::string::npos : pos - b);
        const std::size_t first = line.find_first_not_of(" \t\r\f\v");
        if (first == std::string::npos || line[first] == '%') continue;
        return std::strtoll(line.c_str() + first, nullptr, 10);
    }
    return 0;
}

/// A temporary file for the round trip, created once per process and removed at exit.
const char* scratch_path()
{
    static char name[] = "/tmp/kbench_fuzz_mm_XXXXXX";
    static const bool created = [] {
        const int fd = mkstemp(name);
        if (fd < 0) std::abort();
        close(fd);
        std::atexit([] { std::remove(name); });
        return true;
    }();
    (void)created;
    return name;
}

template <typename T>
void check(const std::string& bytes)
{
    std::istringstream in(bytes);
    kbench::MatrixMarketInfo info;
    kbench::Csr<T> a;
    try {
        a = kbench::read_matrix_market<T>(in, "fuzz-input", false, &info);
    } catch (const kbench::matrix_market_error&) {
        return;
    } catch (const std::invalid_argument&) {
        return;
    }
    kbench::validate(a, "fuzz-input");  // throws std::invalid_argument -> reported as a crash
    if (info.num_rows != a.num_rows || info.num_cols != a.num_cols) std::abort();
    if (info.symmetry == "general" && a.nnz() > info.entries) std::abort();
    if (info.symmetry != "general" && a.nnz() > 2 * info.entries) std::abort();

    kbench::write_matrix_market(a, scratch_path());
    const auto b = kbench::read_matrix_market<T>(scratch_path());
    if (b.num_rows != a.num_rows || b.num_cols != a.num_cols || b.row_ptr != a.row_ptr ||
        b.col_idx != a.col_idx || b.values != a.values)
        std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string bytes(reinterpret_cast<const char*>(data), size);
    if (declared_rows(plain_text(data, size)) > kMaxRows) return 0;
    try {
        check<double>(bytes);
        check<float>(bytes);
    } catch (const std::invalid_argument& e) {
        // validate() failed on a matrix the reader accepted.
        std::fprintf(stderr, "CSR invariant violated: %s\n", e.what());
        std::abort();
    }
    return 0;
}
