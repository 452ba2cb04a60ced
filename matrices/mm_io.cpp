// Matrix Market coordinate reader and writer (https://math.nist.gov/MatrixMarket/formats.html).
//
// The whole input is loaded into memory (gunzipped when it starts with the gzip magic bytes
// 1f 8b), then parsed by a hand-written tokenizer over that buffer: std::from_chars for every
// number, with end-pointer checks so trailing garbage is an error.
#include "matrices/mm_io.hpp"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <istream>
#include <limits>
#include <memory>
#include <new>
#include <stdexcept>
#include <system_error>
#include <utility>

namespace kbench {
namespace {

constexpr std::int64_t kIndexMax = std::numeric_limits<index_type>::max();

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

std::string to_lower(std::string s)
{
    for (char& c : s) c = lower(c);
    return s;
}

/// At most `max` characters of `s`, non-printable bytes escaped, for error messages.
std::string quote(const char* b, const char* e, std::size_t max = 40)
{
    std::string out = "'";
    for (const char* p = b; p != e && out.size() <= max; ++p) {
        const unsigned char c = static_cast<unsigned char>(*p);
        if (c >= 0x20 && c < 0x7f) {
            out += static_cast<char>(c);
        } else {
            char hex[8];
            std::snprintf(hex, sizeof hex, "\\x%02x", c);
            out += hex;
        }
    }
    if (static_cast<std::size_t>(e - b) > max) out += "...";
    return out + "'";
}

/// Appends the gunzipped `in` to `out`. Accepts concatenated gzip members. Throws
/// matrix_market_error naming the decompressed line at which the stream broke.
void gunzip(const std::string& in, const std::string& name, std::string& out)
{
    z_stream zs{};
    if (inflateInit2(&zs, 15 + 16) != Z_OK) throw std::bad_alloc();
    std::unique_ptr<z_stream, int (*)(z_stream*)> guard(&zs, inflateEnd);
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
    std::size_t in_left = in.size();
    const auto fail = [&](const std::string& why,
                          const char* where = "the decompressed text breaks off at this line") {
        const auto line = std::count(out.begin(), out.end(), '\n') + 1;
        throw matrix_market_error(name + ":" + std::to_string(line) +
                                  ": expected a complete gzip stream, but it " + why + "; " +
                                  where);
    };
    char chunk[1 << 16];
    for (;;) {
        const uInt feed = static_cast<uInt>(std::min<std::size_t>(in_left, 1u << 30));
        zs.avail_in = feed;
        zs.next_out = reinterpret_cast<Bytef*>(chunk);
        zs.avail_out = sizeof chunk;
        const int rc = inflate(&zs, Z_NO_FLUSH);
        in_left -= feed - zs.avail_in;
        out.append(chunk, sizeof chunk - zs.avail_out);
        if (rc == Z_STREAM_END) {
            // Another gzip member may follow (as `cat a.gz b.gz` produces).
            if (in_left >= 2 && zs.next_in[0] == 0x1f && zs.next_in[1] == 0x8b) {
                inflateReset(&zs);
                continue;
            }
            if (in_left != 0) fail("is followed by trailing bytes", "the decompressed text ends before this line");
            return;
        }
        if (rc == Z_BUF_ERROR && in_left == 0 && zs.avail_out != 0)
            fail("is truncated (the file ends inside it)");
        if (rc != Z_OK && rc != Z_BUF_ERROR)
            fail(std::string("holds corrupt data (zlib: ") + (zs.msg ? zs.msg : "error") + ")");
    }
}

/// Tokenizer over the decompressed text, tracking the one-based line number.
class Parser {
public:
    Parser(const std::string& text, std::string name)
        : p_(text.data()), end_(text.data() + text.size()), name_(std::move(name))
    {}

    [[noreturn]] void fail(const std::string& what, std::int64_t line = 0) const
    {
        throw matrix_market_error(name_ + ":" + std::to_string(line ? line : line_) + ": " +
                                  what);
    }

    bool at_end() const { return p_ == end_; }
    std::int64_t line() const { return line_; }

    /// The current line [b, e) without its newline; advances to the next line.
    std::pair<const char*, const char*> take_line()
    {
        const char* b = p_;
        const char* nl = static_cast<const char*>(std::memchr(p_, '\n', end_ - p_));
        const char* e = nl ? nl : end_;
        p_ = nl ? nl + 1 : end_;
        ++line_;
        return {b, e};
    }

    /// Skips comment ('%') and blank lines; returns false at the end of the input.
    bool skip_comments_and_blank()
    {
        while (!at_end()) {
            const char* q = p_;
            while (q != end_ && is_blank(*q)) ++q;
            if (q != end_ && *q != '\n' && *q != '%') return true;
            take_line();
        }
        return false;
    }

    /// Skips blank lines; returns false at the end of the input.
    bool skip_blank()
    {
        while (!at_end()) {
            const char* q = p_;
            while (q != end_ && is_blank(*q)) ++q;
            if (q != end_ && *q != '\n') return true;
            take_line();
        }
        return false;
    }

private:
    const char* p_;
    const char* end_;
    std::string name_;
    std::int64_t line_ = 0;  // number of the line last taken
};

/// Field cursor within one line.
struct LineCursor {
    const char* p;
    const char* e;

    /// The next whitespace-separated token, empty at the end of the line.
    std::pair<const char*, const char*> next()
    {
        while (p != e && is_blank(*p)) ++p;
        const char* b = p;
        while (p != e && !is_blank(*p)) ++p;
        return {b, p};
    }
    bool rest_blank()
    {
        while (p != e && is_blank(*p)) ++p;
        return p == e;
    }
};

/// Parses a whole token as a decimal integer (optional sign); false if it is not one or
/// overflows int64.
bool parse_int(const char* b, const char* e, std::int64_t& v)
{
    if (b != e && *b == '+') {
        ++b;
        if (b != e && *b == '-') return false;
    }
    if (b == e) return false;
    const auto r = std::from_chars(b, e, v);
    return r.ec == std::errc() && r.ptr == e;
}

struct Header {
    std::string field;
    std::string symmetry;
};

Header parse_banner(Parser& ps)
{
    if (ps.at_end())
        ps.fail("expected the banner '%%MatrixMarket matrix coordinate <field> <symmetry>', "
                "found an empty file",
                1);
    auto [b, e] = ps.take_line();
    LineCursor lc{b, e};
    std::string words[5];
    int count = 0;
    for (auto t = lc.next(); t.first != t.second; t = lc.next()) {
        if (count == 5) ps.fail("expected 5 words in the banner, found more: " + quote(b, e, 80));
        words[count++].assign(t.first, t.second);
    }
    if (count == 0 || to_lower(words[0]) != "%%matrixmarket")
        ps.fail("expected the banner '%%MatrixMarket matrix coordinate <field> <symmetry>', "
                "found " + quote(b, e));
    if (count != 5)
        ps.fail("expected 5 words in the banner ('%%MatrixMarket matrix coordinate <field> "
                "<symmetry>'), found " + std::to_string(count) + ": " + quote(b, e, 80));
    for (auto& w : words) w = to_lower(w);
    if (words[1] != "matrix")
        ps.fail("expected the object 'matrix' in the banner, found '" + words[1] + "'");
    if (words[2] == "array")
        ps.fail("the 'array' (dense) format is not supported: kbench reads the 'coordinate' "
                "format with field real, integer or pattern");
    if (words[2] != "coordinate")
        ps.fail("expected the format 'coordinate' in the banner, found '" + words[2] + "'");
    if (words[3] == "complex")
        ps.fail("the 'complex' field is not supported: expected real, integer or pattern");
    if (words[3] != "real" && words[3] != "integer" && words[3] != "pattern")
        ps.fail("expected the field real, integer or pattern in the banner, found '" + words[3] +
                "'");
    if (words[4] == "hermitian")
        ps.fail("the 'hermitian' symmetry is not supported (it needs a complex field): expected "
                "general, symmetric or skew-symmetric");
    if (words[4] != "general" && words[4] != "symmetric" && words[4] != "skew-symmetric")
        ps.fail("expected the symmetry general, symmetric or skew-symmetric in the banner, "
                "found '" + words[4] + "'");
    if (words[3] == "pattern" && words[4] == "skew-symmetric")
        ps.fail("a 'pattern' field cannot be 'skew-symmetric' (there are no values to negate)");
    return {words[3], words[4]};
}

template <typename T>
Csr<T> parse(const std::string& text, const std::string& name, bool require_square,
             MatrixMarketInfo* info)
{
    Parser ps(text, name);
    const Header h = parse_banner(ps);

    // Size line: rows cols entries.
    if (!ps.skip_comments_and_blank())
        ps.fail("expected the size line 'rows cols entries', found the end of the file",
                ps.line() + 1);
    std::int64_t size[3];
    {
        auto [b, e] = ps.take_line();
        LineCursor lc{b, e};
        const char* names[3] = {"rows", "columns", "entries"};
        for (int k = 0; k < 3; ++k) {
            auto [tb, te] = lc.next();
            if (tb == te)
                ps.fail("expected the size line 'rows cols entries' (3 integers), found " +
                        quote(b, e));
            if (!parse_int(tb, te, size[k]))
                ps.fail(std::string("expected an integer for the number of ") + names[k] +
                        " on the size line, found " + quote(tb, te));
            if (size[k] < 0)
                ps.fail(std::string("expected a non-negative number of ") + names[k] +
                        ", found " + std::to_string(size[k]));
            if (size[k] > kIndexMax)
                ps.fail(std::string("the number of ") + names[k] + " " +
                        std::to_string(size[k]) + " overflows int32 (max " +
                        std::to_string(kIndexMax) + ")");
        }
        if (!lc.rest_blank())
            ps.fail("expected the size line 'rows cols entries' (3 integers), found trailing "
                    "text " + quote(lc.p, e));
    }
    const std::int64_t size_line = ps.line();
    const auto rows = static_cast<index_type>(size[0]);
    const auto cols = static_cast<index_type>(size[1]);
    const std::int64_t entries = size[2];
    const bool symmetric = h.symmetry != "general";
    const bool skew = h.symmetry == "skew-symmetric";
    if (symmetric && rows != cols)
        ps.fail("a " + h.symmetry + " matrix must be square, found " + std::to_string(rows) +
                " x " + std::to_string(cols));
    if (require_square && rows != cols)
        ps.fail("expected a square matrix, found " + std::to_string(rows) + " x " +
                std::to_string(cols));

    // Everything below allocates by the size line: a size too large for the memory at hand
    // becomes an error naming the file, its line and the size, not a bare std::bad_alloc.
    std::int64_t duplicates = 0;
    const auto assemble = [&]() -> Csr<T> {
        // Entries, as coordinates (zero-based). An entry line has at least 4 bytes ("1 1\n"), so
        // the reservation never exceeds what the input can hold, whatever the size line claims.
        const bool pattern = h.field == "pattern";
        const bool integer = h.field == "integer";
        const auto reserve = static_cast<std::size_t>(
            std::min<std::int64_t>(entries, static_cast<std::int64_t>(text.size() / 4 + 1)));
        std::vector<index_type> ei, ej;
        std::vector<T> ev;
        ei.reserve(reserve);
        ej.reserve(reserve);
        ev.reserve(reserve);
        std::int64_t off_diagonal = 0;
        for (std::int64_t k = 0; k < entries; ++k) {
            if (!ps.skip_blank())
                ps.fail("the file is truncated: expected " + std::to_string(entries) +
                            " entries (size line " + std::to_string(size_line) + "), read " +
                            std::to_string(k),
                        ps.line() + 1);
            auto [b, e] = ps.take_line();
            LineCursor lc{b, e};
            if (!lc.rest_blank() && *lc.p == '%')
                ps.fail("expected entry " + std::to_string(k + 1) + ", found a comment line (comments "
                        "are allowed only between the banner and the size line)");
            std::int64_t idx[2];
            const index_type bound[2] = {rows, cols};
            const char* what[2] = {"row", "column"};
            for (int d = 0; d < 2; ++d) {
                auto [tb, te] = lc.next();
                if (tb == te)
                    ps.fail(std::string("expected a ") + what[d] + " index in entry " +
                            std::to_string(k + 1) + ", found " + (d == 0 ? "" : "only ") +
                            quote(b, e));
                if (!parse_int(tb, te, idx[d]))
                    ps.fail(std::string("expected an integer ") + what[d] + " index, found " +
                            quote(tb, te));
                if (idx[d] < 1 || idx[d] > bound[d])
                    ps.fail(std::string(what[d]) + " index " + std::to_string(idx[d]) +
                            " out of range: expected [1, " + std::to_string(bound[d]) + "]");
            }
            double v = 1.0;
            if (!pattern) {
                auto [tb, te] = lc.next();
                if (tb == te)
                    ps.fail("expected a value after the indices of entry " + std::to_string(k + 1) +
                            " (field " + h.field + "), found none");
                if (integer) {
                    std::int64_t iv = 0;
                    if (!parse_int(tb, te, iv))
                        ps.fail("expected an integer value (field integer), found " + quote(tb, te));
                    v = static_cast<double>(iv);
                } else {
                    const char* vb = tb;
                    if (*vb == '+' && vb + 1 != te && vb[1] != '-') ++vb;
                    const auto r = std::from_chars(vb, te, v);
                    if (r.ec == std::errc::result_out_of_range)
                        ps.fail("value " + quote(tb, te) + " out of the range of double");
                    if (r.ec != std::errc() || r.ptr == vb)
                        ps.fail("expected a real number value, found " + quote(tb, te));
                    if (r.ptr != te)
                        ps.fail("expected a real number value, found trailing characters " +
                                quote(r.ptr, te) + " in " + quote(tb, te));
                    if (!std::isfinite(v))
                        ps.fail("expected a finite real number value, found " + quote(tb, te));
                }
                if (std::abs(v) > static_cast<double>(std::numeric_limits<T>::max()))
                    ps.fail("value " + quote(tb, te) + " out of the range of the value type " +
                            (sizeof(T) == 4 ? "float" : "double"));
            }
            if (!lc.rest_blank())
                ps.fail("expected the end of entry " + std::to_string(k + 1) + " (field " + h.field +
                        "), found trailing text " + quote(lc.p, e));
            if (skew && idx[0] == idx[1])
                ps.fail("diagonal entry (" + std::to_string(idx[0]) + ", " + std::to_string(idx[1]) +
                        ") in a skew-symmetric matrix: its diagonal must be zero and not stored");
            off_diagonal += idx[0] != idx[1];
            ei.push_back(static_cast<index_type>(idx[0] - 1));
            ej.push_back(static_cast<index_type>(idx[1] - 1));
            ev.push_back(static_cast<T>(v));
        }
        if (ps.skip_blank())
            ps.fail("too many entries: the size line (line " + std::to_string(size_line) +
                    ") declares " + std::to_string(entries) + ", found more from this line",
                    ps.line() + 1);

        const std::int64_t expanded = entries + (symmetric ? off_diagonal : 0);
        if (expanded > kIndexMax)
            ps.fail("nnz after symmetric expansion (" + std::to_string(expanded) +
                        ") overflows int32 (max " + std::to_string(kIndexMax) + ")",
                    size_line);

        // Bucket by row (counting sort), mirroring symmetric entries.
        Csr<T> a;
        a.num_rows = rows;
        a.num_cols = cols;
        a.row_ptr.assign(static_cast<std::size_t>(rows) + 1, 0);
        for (std::size_t k = 0; k < ei.size(); ++k) {
            ++a.row_ptr[ei[k] + 1];
            if (symmetric && ei[k] != ej[k]) ++a.row_ptr[ej[k] + 1];
        }
        for (index_type i = 0; i < rows; ++i) a.row_ptr[i + 1] += a.row_ptr[i];
        std::vector<std::pair<index_type, T>> slot(static_cast<std::size_t>(expanded));
        {
            std::vector<index_type> fill(a.row_ptr.begin(), a.row_ptr.end() - 1);
            for (std::size_t k = 0; k < ei.size(); ++k) {
                slot[fill[ei[k]]++] = {ej[k], ev[k]};
                if (symmetric && ei[k] != ej[k]) slot[fill[ej[k]]++] = {ei[k], skew ? -ev[k] : ev[k]};
            }
        }
        std::vector<index_type>().swap(ei);
        std::vector<index_type>().swap(ej);
        std::vector<T>().swap(ev);

        // Sort each row by column and sum duplicates.
        a.col_idx.reserve(static_cast<std::size_t>(expanded));
        a.values.reserve(static_cast<std::size_t>(expanded));
        const auto by_col = [](const auto& x, const auto& y) { return x.first < y.first; };
        for (index_type i = 0; i < rows; ++i) {
            const auto b = slot.begin() + a.row_ptr[i];
            const auto e = slot.begin() + a.row_ptr[i + 1];
            if (!std::is_sorted(b, e, by_col)) std::stable_sort(b, e, by_col);
            a.row_ptr[i] = a.nnz();
            for (auto it = b; it != e; ++it) {
                if (a.col_idx.size() > static_cast<std::size_t>(a.row_ptr[i]) &&
                    a.col_idx.back() == it->first) {
                    a.values.back() += it->second;
                    ++duplicates;
                    if (!std::isfinite(a.values.back()))
                        ps.fail("duplicate entries at (" + std::to_string(i + 1) + ", " +
                                    std::to_string(it->first + 1) +
                                    ") sum to a value out of the range of the value type",
                                size_line);
                } else {
                    a.col_idx.push_back(it->first);
                    a.values.push_back(it->second);
                }
            }
        }
        a.row_ptr[rows] = a.nnz();
        return a;
    };
    Csr<T> a;
    try {
        a = assemble();
    } catch (const std::bad_alloc&) {
        ps.fail("a " + std::to_string(rows) + " x " + std::to_string(cols) + " matrix with " +
                    std::to_string(entries) +
                    " entries needs more memory than this process can allocate",
                size_line);
    }

    if (info) {
        info->field = h.field;
        info->symmetry = h.symmetry;
        info->num_rows = rows;
        info->num_cols = cols;
        info->entries = entries;
        info->duplicates = duplicates;
    }
    return a;
}

/// Loads a whole stream; gunzips it when it starts with the gzip magic bytes.
std::string load(std::istream& in, const std::string& name)
{
    std::string raw;
    const auto start = in.tellg();  // reserve the whole size when the stream can seek
    if (start != std::istream::pos_type(-1) && in.seekg(0, std::ios::end)) {
        const auto size = in.tellg() - start;
        in.seekg(start);
        if (size > 0) raw.reserve(static_cast<std::size_t>(size));
    }
    in.clear(in.rdstate() & ~std::ios::failbit);
    char buf[1 << 16];
    while (in.read(buf, sizeof buf) || in.gcount() > 0) raw.append(buf, in.gcount());
    if (in.bad()) throw matrix_market_error(name + ":1: read error");
    if (raw.size() >= 2 && static_cast<unsigned char>(raw[0]) == 0x1f &&
        static_cast<unsigned char>(raw[1]) == 0x8b) {
        std::string text;
        gunzip(raw, name, text);
        return text;
    }
    return raw;
}

bool ends_with(const std::string& s, const std::string& suffix)
{
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

template <typename T>
Csr<T> read_matrix_market(std::istream& in, const std::string& name, bool require_square,
                          MatrixMarketInfo* info)
{
    MatrixMarketInfo local;
    MatrixMarketInfo* i = info != nullptr ? info : &local;
    Csr<T> a = parse<T>(load(in, name), name, require_square, i);
    if (i->duplicates > 0)
        std::fprintf(stderr,
                     "%s: warning: %lld duplicate entr%s (a row and column given again) summed, "
                     "as SciPy's and MATLAB's readers do\n",
                     name.c_str(), static_cast<long long>(i->duplicates),
                     i->duplicates == 1 ? "y" : "ies");
    return a;
}

template <typename T>
Csr<T> read_matrix_market(const std::string& path, bool require_square, MatrixMarketInfo* info)
{
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
        throw std::invalid_argument("'" + path +
                                    "' is a directory, expected a Matrix Market file (.mtx or "
                                    ".mtx.gz)");
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw std::system_error(errno ? errno : ENOENT, std::generic_category(),
                                "cannot open Matrix Market file '" + path + "'");
    return read_matrix_market<T>(in, path, require_square, info);
}

template <typename T>
void write_matrix_market(const Csr<T>& a, const std::string& path)
{
    validate(a, "write_matrix_market(" + path + ")");
    const bool gz = ends_with(path, ".gz");
    errno = 0;
    gzFile zf = nullptr;
    std::FILE* f = nullptr;
    if (gz) {
        zf = gzopen(path.c_str(), "wb");
    } else {
        f = std::fopen(path.c_str(), "wb");
    }
    if (!zf && !f)
        throw std::system_error(errno ? errno : EIO, std::generic_category(),
                                "cannot open '" + path + "' for writing");
    std::string out;
    bool ok = true;
    const auto flush = [&] {
        if (out.empty()) return;
        if (gz) {
            ok = ok && gzwrite(zf, out.data(), static_cast<unsigned>(out.size())) ==
                           static_cast<int>(out.size());
        } else {
            ok = ok && std::fwrite(out.data(), 1, out.size(), f) == out.size();
        }
        out.clear();
    };
    out += "%%MatrixMarket matrix coordinate real general\n% written by kbench\n";
    out += std::to_string(a.num_rows) + " " + std::to_string(a.num_cols) + " " +
           std::to_string(a.nnz()) + "\n";
    char line[96];
    for (index_type i = 0; i < a.num_rows; ++i) {
        for (index_type k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
            const int n = std::snprintf(line, sizeof line, "%d %d %.17g\n", i + 1,
                                        a.col_idx[k] + 1, static_cast<double>(a.values[k]));
            out.append(line, static_cast<std::size_t>(n));
        }
        if (out.size() > (1u << 20)) flush();
    }
    flush();
    const int close_rc = gz ? gzclose(zf) : std::fclose(f);
    if (!ok || close_rc != 0)
        throw std::system_error(errno ? errno : EIO, std::generic_category(),
                                "cannot write '" + path + "'");
}

#define KBENCH_INSTANTIATE_MM_IO(T)                                                          \
    template Csr<T> read_matrix_market<T>(const std::string&, bool, MatrixMarketInfo*);       \
    template Csr<T> read_matrix_market<T>(std::istream&, const std::string&, bool,            \
                                          MatrixMarketInfo*);                                 \
    template void write_matrix_market<T>(const Csr<T>&, const std::string&)

KBENCH_INSTANTIATE_MM_IO(double);
KBENCH_INSTANTIATE_MM_IO(float);

}  // namespace kbench
