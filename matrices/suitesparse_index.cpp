// The SuiteSparse collection index and the check of Matrix Market files against it.
#include "matrices/suitesparse_index.hpp"

#include "matrices/mm_io.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <system_error>

#ifndef KBENCH_SUITESPARSE_INDEX
#error "KBENCH_SUITESPARSE_INDEX must name the shipped index file"
#endif

namespace kbench {
namespace {

std::vector<std::string> split_csv_line(const std::string& line)
{
    std::vector<std::string> fields;
    std::string field;
    std::istringstream in(line);
    while (std::getline(in, field, ',')) fields.push_back(field);
    if (!line.empty() && line.back() == ',') fields.emplace_back();
    return fields;
}

std::string lower(std::string s)
{
    std::transform(s.begin(), s.end(), s.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

bool id_char(char c)
{
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-' ||
           c == '.' || c == '+';
}

/// Parses a non-negative integer field or returns false.
bool parse_count(const std::string& text, std::int64_t& value)
{
    if (text.empty() || !std::all_of(text.begin(), text.end(), [](unsigned char c) {
            return std::isdigit(c) != 0 || c == '\r';
        })) {
        return false;
    }
    errno = 0;
    value = std::strtoll(text.c_str(), nullptr, 10);
    return errno == 0;
}

}  // namespace

std::string shipped_suitesparse_index() { return KBENCH_SUITESPARSE_INDEX; }

std::pair<std::string, std::string> split_suitesparse_id(const std::string& id)
{
    const auto slash = id.find('/');
    const bool ok = slash != std::string::npos && slash > 0 && slash + 1 < id.size() &&
                    std::all_of(id.begin(), id.end(),
                                [](char c) { return c == '/' || id_char(c); }) &&
                    id.find('/', slash + 1) == std::string::npos;
    if (!ok) {
        throw std::invalid_argument(fmt::format(
            "SuiteSparse matrix '{}': expected GROUP/NAME as the collection names it, e.g. "
            "AMD/G3_circuit",
            id));
    }
    return {id.substr(0, slash), id.substr(slash + 1)};
}

std::vector<SuiteSparseEntry> load_suitesparse_index(const std::string& path)
{
    std::ifstream in(path);
    if (!in) throw std::invalid_argument(fmt::format("{}: cannot open the SuiteSparse index", path));
    std::string line;
    std::getline(in, line);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const std::vector<std::string> header = split_csv_line(line);
    static const char* const columns[] = {"group", "name", "num_rows",
                                          "num_cols", "nonzeros", "num_explicit_zeros"};
    std::map<std::string, std::size_t> at;
    for (const char* c : columns) {
        const auto it = std::find(header.begin(), header.end(), c);
        if (it == header.end()) {
            throw std::invalid_argument(fmt::format(
                "{}: the header has no column '{}' (expected group, name, num_rows, num_cols, "
                "nonzeros, num_explicit_zeros)",
                path, c));
        }
        at[c] = static_cast<std::size_t>(it - header.begin());
    }
    std::vector<SuiteSparseEntry> index;
    for (std::size_t lineno = 2; std::getline(in, line); ++lineno) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.empty()) continue;
        // The full index's later columns (kind, author) may hold quoted commas: only the
        // leading fields are needed and those never do.
        const std::vector<std::string> f = split_csv_line(line);
        auto bad = [&](const std::string& what) {
            throw std::invalid_argument(fmt::format("{}:{}: {}", path, lineno, what));
        };
        if (f.size() < header.size()) bad(fmt::format("expected {} fields", header.size()));
        SuiteSparseEntry e;
        e.group = f[at["group"]];
        e.name = f[at["name"]];
        std::int64_t* counts[] = {&e.num_rows, &e.num_cols, &e.nonzeros, &e.explicit_zeros};
        for (int k = 0; k < 4; ++k) {
            const std::string& text = f[at[columns[2 + k]]];
            if (!parse_count(text, *counts[k])) {
                bad(fmt::format("{} '{}' is not a non-negative integer", columns[2 + k], text));
            }
        }
        index.push_back(std::move(e));
    }
    return index;
}

const SuiteSparseEntry& find_suitesparse_entry(const std::vector<SuiteSparseEntry>& index,
                                               const std::string& group,
                                               const std::string& name,
                                               const std::string& index_path)
{
    const auto it = std::find_if(index.begin(), index.end(), [&](const SuiteSparseEntry& e) {
        return e.group == group && e.name == name;
    });
    if (it == index.end()) {
        std::string hint;
        for (const auto& e : index) {
            if (e.name == name) hint += (hint.empty() ? "" : ", ") + e.id();
        }
        throw std::invalid_argument(fmt::format(
            "{}/{} is not in the SuiteSparse collection index {}{}", group, name, index_path,
            hint.empty() ? "" : " (the index has " + hint + ")"));
    }
    return *it;
}

MatrixMarketCounts count_matrix_market(const std::string& path)
{
    std::ifstream in(path);
    if (!in) {
        throw std::system_error(errno, std::generic_category(), "cannot open " + path);
    }
    std::string line;
    std::size_t lineno = 1;
    auto bad = [&](const std::string& what) {
        throw matrix_market_error(fmt::format("{}:{}: {}", path, lineno, what));
    };
    if (!std::getline(in, line)) bad("empty file, expected a %%MatrixMarket banner");
    MatrixMarketCounts c;
    {
        std::istringstream banner(lower(line));
        std::string tag, object, format, field, symmetry;
        banner >> tag >> object >> format >> field >> symmetry;
        if (tag != "%%matrixmarket" || object != "matrix" || format != "coordinate") {
            bad("expected the banner '%%MatrixMarket matrix coordinate <field> <symmetry>'");
        }
        if (symmetry != "general" && symmetry != "symmetric" && symmetry != "skew-symmetric" &&
            symmetry != "hermitian") {
            bad("symmetry '" + symmetry + "', expected general, symmetric, skew-symmetric or "
                "hermitian");
        }
        c.symmetry = symmetry;
    }
    while (std::getline(in, line)) {
        ++lineno;
        if (!line.empty() && line[0] != '%') break;
    }
    std::istringstream size(line);
    if (!(size >> c.num_rows >> c.num_cols >> c.header_entries) || c.num_rows < 0 ||
        c.num_cols < 0 || c.header_entries < 0) {
        bad("expected the size line 'rows columns entries'");
    }
    while (std::getline(in, line)) {
        ++lineno;
        const char* p = line.c_str();
        char* end = nullptr;
        const long long i = std::strtoll(p, &end, 10);
        if (end == p) {
            if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
            bad("expected an entry 'row column [value]'");
        }
        p = end;
        const long long j = std::strtoll(p, &end, 10);
        if (end == p || i < 1 || j < 1 || i > c.num_rows || j > c.num_cols) {
            bad(fmt::format("entry '{}' has no row and column within {} x {}", line,
                            c.num_rows, c.num_cols));
        }
        if (++c.entries > c.header_entries) {
            bad(fmt::format("more entries than the {} of the size line", c.header_entries));
        }
        if (i == j) ++c.diagonal;
    }
    if (in.bad()) bad("read error");
    if (c.entries < c.header_entries) {
        bad(fmt::format("{} entries, the size line says {} (truncated file?)", c.entries,
                        c.header_entries));
    }
    return c;
}

std::int64_t expanded_entries(const MatrixMarketCounts& c)
{
    if (c.symmetry == "general") return c.entries;
    if (c.symmetry == "skew-symmetric") return 2 * c.entries;
    return 2 * c.entries - c.diagonal;
}

std::string index_mismatch(const MatrixMarketCounts& c, const SuiteSparseEntry& e)
{
    std::string out;
    auto differ = [&](const char* what, std::int64_t got, std::int64_t expected) {
        if (got != expected) {
            out += fmt::format("{}{} {} (index: {})", out.empty() ? "" : ", ", what, got,
                               expected);
        }
    };
    differ("rows", c.num_rows, e.num_rows);
    differ("columns", c.num_cols, e.num_cols);
    differ("entries (both triangles, explicit zeros included)", expanded_entries(c),
           e.nonzeros + e.explicit_zeros);
    return out;
}

}  // namespace kbench
