// Tests of the Matrix Market reader/writer (matrices/mm_io.hpp): hand-checked tiny matrices,
// one test per malformed-input corpus file (matrices/test/malformed), gzip, round trips, and
// the SuiteSparse files of $KBENCH_MATRIX_DIR.
#include "matrices/mm_io.hpp"

#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include <unistd.h>

namespace fs = std::filesystem;

namespace {

using kbench::Csr;
using kbench::index_type;
using kbench::matrix_market_error;
using kbench::MatrixMarketInfo;

template <typename T = double>
Csr<T> read_text(const std::string& text, MatrixMarketInfo* info = nullptr,
                 bool require_square = false)
{
    std::istringstream in(text);
    return kbench::read_matrix_market<T>(in, "inline.mtx", require_square, info);
}

fs::path corpus_dir()
{
    if (const char* src = std::getenv("KBENCH_SOURCE_DIR"))
        return fs::path(src) / "matrices" / "test" / "malformed";
    return fs::path(__FILE__).parent_path() / "malformed";
}

/// A fresh path in the temporary directory, removed when the object dies.
struct TempPath {
    fs::path path;
    explicit TempPath(const std::string& suffix)
    {
        static int counter = 0;
        path = fs::temp_directory_path() / ("kbench_test_mm_io_" + std::to_string(::getpid()) +
                                            "_" + std::to_string(counter++) + suffix);
    }
    ~TempPath()
    {
        std::error_code ec;
        fs::remove(path, ec);
    }
};

TEST(MmIoRead, GeneralRealSortedByColumn)
{
    MatrixMarketInfo info;
    const auto a = read_text(
        "%%MatrixMarket matrix coordinate real general\n"
        "3 4 4\n1 3 0.25\n3 4 -2e-3\n2 2 +7\n1 1 1.5\n",
        &info);
    EXPECT_EQ(a.num_rows, 3);
    EXPECT_EQ(a.num_cols, 4);
    EXPECT_EQ(a.row_ptr, (std::vector<index_type>{0, 2, 3, 4}));
    EXPECT_EQ(a.col_idx, (std::vector<index_type>{0, 2, 1, 3}));
    EXPECT_EQ(a.values, (std::vector<double>{1.5, 0.25, 7.0, -2e-3}));
    EXPECT_EQ(info.field, "real");
    EXPECT_EQ(info.symmetry, "general");
    EXPECT_EQ(info.num_rows, 3);
    EXPECT_EQ(info.num_cols, 4);
    EXPECT_EQ(info.entries, 4);
}

TEST(MmIoRead, SymmetricExpandsBothTriangles)
{
    MatrixMarketInfo info;
    const auto a = read_text(
        "%%MatrixMarket matrix coordinate real symmetric\n"
        "3 3 4\n1 1 2\n2 1 -1\n2 2 2\n3 2 -0.5\n",
        &info);
    // [2 -1 0; -1 2 -0.5; 0 -0.5 0]
    EXPECT_EQ(a.row_ptr, (std::vector<index_type>{0, 2, 5, 6}));
    EXPECT_EQ(a.col_idx, (std::vector<index_type>{0, 1, 0, 1, 2, 1}));
    EXPECT_EQ(a.values, (std::vector<double>{2, -1, -1, 2, -0.5, -0.5}));
    EXPECT_EQ(info.entries, 4);
    EXPECT_EQ(info.symmetry, "symmetric");
}

TEST(MmIoRead, SkewSymmetricNegatesMirror)
{
    const auto a = read_text(
        "%%MatrixMarket matrix coordinate real skew-symmetric\n"
        "3 3 2\n2 1 1.5\n3 1 -2\n");
    // [0 -1.5 2; 1.5 0 0; -2 0 0]
    EXPECT_EQ(a.row_ptr, (std::vector<index_type>{0, 2, 3, 4}));
    EXPECT_EQ(a.col_idx, (std::vector<index_type>{1, 2, 0, 0}));
    EXPECT_EQ(a.values, (std::vector<double>{-1.5, 2, 1.5, -2}));
}

TEST(MmIoRead, PatternGetsOnes)
{
    const auto a = read_text(
        "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 3\n1 1\n3 1\n3 3\n");
    EXPECT_EQ(a.row_ptr, (std::vector<index_type>{0, 2, 2, 4}));
    EXPECT_EQ(a.col_idx, (std::vector<index_type>{0, 2, 0, 2}));
    EXPECT_EQ(a.values, (std::vector<double>{1, 1, 1, 1}));
}

TEST(MmIoRead, IntegerFieldAndCaseInsensitiveBanner)
{
    MatrixMarketInfo info;
    const auto a = read_text(
        "%%MATRIXMARKET Matrix Coordinate INTEGER General\n2 2 3\n1 2 -3\n2 1 4\n2 2 1\n", &info);
    EXPECT_EQ(info.field, "integer");
    EXPECT_EQ(info.symmetry, "general");
    EXPECT_EQ(a.col_idx, (std::vector<index_type>{1, 0, 1}));
    EXPECT_EQ(a.values, (std::vector<double>{-3, 4, 1}));
}

TEST(MmIoRead, DuplicatesAreSummed)
{
    const auto a = read_text(
        "%%MatrixMarket matrix coordinate real general\n2 2 4\n1 1 1.0\n2 1 1\n1 1 2.5\n1 1 -0.5\n");
    EXPECT_EQ(a.row_ptr, (std::vector<index_type>{0, 1, 2}));
    EXPECT_EQ(a.values, (std::vector<double>{3.0, 1.0}));  // 1 + 2.5 - 0.5 exactly
}

TEST(MmIoRead, CommentsBlankLinesCrlfAndExplicitZerosKept)
{
    const auto a = read_text(
        "%%MatrixMarket matrix coordinate real general\r\n% comment\r\n\r\n  \t\n%another\n"
        "  2 2 2  \r\n1 1 0\r\n\n 2\t2 2.0 \r\n\n");
    EXPECT_EQ(a.row_ptr, (std::vector<index_type>{0, 1, 2}));
    EXPECT_EQ(a.values, (std::vector<double>{0.0, 2.0}));
}

TEST(MmIoRead, FloatInstantiation)
{
    const auto a = read_text<float>(
        "%%MatrixMarket matrix coordinate real symmetric\n2 2 2\n1 1 0.1\n2 1 3e38\n");
    EXPECT_EQ(a.values, (std::vector<float>{0.1f, 3e38f, 3e38f}));
    EXPECT_THROW(read_text<float>("%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 "
                                  "1e39\n"),
                 matrix_market_error);
}

TEST(MmIoRead, EmptyMatrix)
{
    const auto a = read_text("%%MatrixMarket matrix coordinate real general\n0 0 0\n");
    EXPECT_EQ(a.num_rows, 0);
    EXPECT_EQ(a.nnz(), 0);
    EXPECT_EQ(a.row_ptr, (std::vector<index_type>{0}));
}

TEST(MmIoRead, RequireSquareRejectsRectangular)
{
    const std::string text = "%%MatrixMarket matrix coordinate real general\n2 3 1\n1 3 1.0\n";
    EXPECT_NO_THROW(read_text(text));
    try {
        read_text(text, nullptr, true);
        FAIL() << "expected matrix_market_error";
    } catch (const matrix_market_error& e) {
        EXPECT_NE(std::string(e.what()).find("inline.mtx:2: expected a square matrix, found 2 x 3"),
                  std::string::npos)
            << e.what();
    }
}

TEST(MmIoRead, MissingFileThrowsSystemErrorWithPath)
{
    const std::string path = "/nonexistent/kbench/none.mtx";
    try {
        kbench::read_matrix_market<double>(path);
        FAIL() << "expected std::system_error";
    } catch (const std::system_error& e) {
        EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    }
}

// One case per malformed corpus file: the line the error must name and a key phrase.
struct Malformed {
    const char* file;
    int line;
    const char* phrase;
};

const Malformed kMalformed[] = {
    {"empty_file.mtx", 1, "found an empty file"},
    {"bad_banner.mtx", 1, "expected the banner"},
    {"banner_missing_symmetry.mtx", 1, "expected 5 words in the banner"},
    {"banner_not_matrix.mtx", 1, "object 'matrix'"},
    {"array_format.mtx", 1, "'array' (dense) format is not supported"},
    {"complex_field.mtx", 1, "'complex' field is not supported"},
    {"unknown_field.mtx", 1, "found 'double'"},
    {"hermitian_symmetry.mtx", 1, "'hermitian' symmetry is not supported"},
    {"unknown_symmetry.mtx", 1, "found 'symmetrical'"},
    {"pattern_skew_symmetric.mtx", 1, "cannot be 'skew-symmetric'"},
    {"missing_size_line.mtx", 5, "expected the size line"},
    {"size_line_too_short.mtx", 3, "(3 integers)"},
    {"size_line_trailing_garbage.mtx", 2, "trailing text '7'"},
    {"size_line_not_a_number.mtx", 2, "integer for the number of columns"},
    {"negative_size.mtx", 2, "non-negative number of rows, found -3"},
    {"size_overflows_int32.mtx", 2, "rows 3000000000 overflows int32"},
    {"entries_overflow_int32.mtx", 2, "entries 2147483648 overflows int32"},
    {"symmetric_not_square.mtx", 2, "must be square, found 3 x 4"},
    {"truncated_entries.mtx", 5, "expected 4 entries (size line 2), read 2"},
    {"too_many_entries.mtx", 5, "too many entries"},
    {"index_out_of_range.mtx", 4, "row index 4 out of range: expected [1, 3]"},
    {"column_index_out_of_range.mtx", 4, "column index 7 out of range: expected [1, 3]"},
    {"index_zero_based.mtx", 3, "row index 0 out of range: expected [1, 3]"},
    {"index_not_an_integer.mtx", 3, "integer row index, found '1.5'"},
    {"missing_column_index.mtx", 3, "expected a column index"},
    {"missing_value.mtx", 4, "expected a value"},
    {"value_not_a_number.mtx", 4, "real number value, found 'abc'"},
    {"value_nan.mtx", 3, "finite real number value, found 'nan'"},
    {"value_inf.mtx", 4, "finite real number value, found '-inf'"},
    {"value_trailing_garbage.mtx", 4, "trailing characters 'x'"},
    {"value_out_of_range.mtx", 3, "out of the range of double"},
    {"value_fortran_exponent.mtx", 3, "trailing characters 'D+00'"},
    {"entry_extra_field.mtx", 3, "trailing text '2.0'"},
    {"pattern_with_value.mtx", 4, "trailing text '5.0'"},
    {"integer_field_real_value.mtx", 4, "integer value (field integer), found '1.5'"},
    {"skew_diagonal.mtx", 4, "diagonal entry (3, 3) in a skew-symmetric matrix"},
    {"comment_after_size_line.mtx", 4, "found a comment line"},
    {"duplicates_sum_overflow.mtx", 2, "duplicate entries at (1, 1) sum"},
    {"truncated_gzip.mtx.gz", 8, "gzip stream, but it is truncated"},
    {"gzip_trailing_bytes.mtx.gz", 7, "gzip stream, but it is followed by trailing bytes"},
    {"corrupt_gzip.mtx.gz", 1, "gzip stream, but it holds corrupt data"},
};

class MalformedCorpus : public ::testing::TestWithParam<Malformed> {};

TEST_P(MalformedCorpus, ThrowsWithFileLineAndReason)
{
    const Malformed& m = GetParam();
    const fs::path path = corpus_dir() / m.file;
    ASSERT_TRUE(fs::exists(path)) << path;
    try {
        kbench::read_matrix_market<double>(path.string());
        FAIL() << "expected matrix_market_error for " << m.file;
    } catch (const matrix_market_error& e) {
        const std::string what = e.what();
        const std::string where = std::string(m.file) + ":" + std::to_string(m.line) + ": ";
        EXPECT_NE(what.find(where), std::string::npos) << "expected '" << where << "' in: " << what;
        EXPECT_NE(what.find(m.phrase), std::string::npos)
            << "expected '" << m.phrase << "' in: " << what;
    }
}

INSTANTIATE_TEST_SUITE_P(Files, MalformedCorpus, ::testing::ValuesIn(kMalformed),
                         [](const auto& info) {
                             std::string name = info.param.file;
                             for (char& c : name)
                                 if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                             return name;
                         });

TEST(MalformedCorpusFiles, EveryFileIsCheckedAndValidSeedsRead)
{
    std::set<std::string> listed;
    for (const auto& m : kMalformed) listed.insert(m.file);
    int valid = 0;
    for (const auto& entry : fs::directory_iterator(corpus_dir())) {
        const std::string name = entry.path().filename().string();
        if (name.rfind("valid_", 0) == 0) {
            const auto a = kbench::read_matrix_market<double>(entry.path().string());
            EXPECT_NO_THROW(kbench::validate(a, name));
            ++valid;
        } else {
            EXPECT_TRUE(listed.count(name)) << name << " is not listed in kMalformed";
        }
    }
    EXPECT_GE(valid, 5);
    EXPECT_GE(listed.size(), 20u);
}

TEST(MmIoGzip, ReadsGzipByContent)
{
    MatrixMarketInfo info;
    const auto a = kbench::read_matrix_market<double>(
        (corpus_dir() / "valid_gzip.mtx.gz").string(), true, &info);
    EXPECT_EQ(info.symmetry, "symmetric");
    EXPECT_EQ(a.row_ptr, (std::vector<index_type>{0, 2, 2, 4}));
    EXPECT_EQ(a.col_idx, (std::vector<index_type>{0, 2, 0, 2}));
    EXPECT_EQ(a.values, (std::vector<double>{4, -1, -1, 4}));
}

Csr<double> awkward_values()
{
    Csr<double> a;
    a.num_rows = 3;
    a.num_cols = 5;
    a.row_ptr = {0, 3, 3, 6};
    a.col_idx = {0, 2, 4, 1, 3, 4};
    a.values = {0.1, 1.0 / 3.0, -0.0, 1e-300, -123456789.123456789, 5e-324};
    return a;
}

void expect_same(const Csr<double>& a, const Csr<double>& b)
{
    EXPECT_EQ(a.num_rows, b.num_rows);
    EXPECT_EQ(a.num_cols, b.num_cols);
    EXPECT_EQ(a.row_ptr, b.row_ptr);
    EXPECT_EQ(a.col_idx, b.col_idx);
    ASSERT_EQ(a.values.size(), b.values.size());
    for (std::size_t k = 0; k < a.values.size(); ++k) {
        EXPECT_EQ(a.values[k], b.values[k]) << "entry " << k;  // exact, including the sign of 0
        EXPECT_EQ(std::signbit(a.values[k]), std::signbit(b.values[k])) << "entry " << k;
    }
}

TEST(MmIoWrite, RoundTripIsExactForDoubles)
{
    const TempPath tmp(".mtx");
    const auto a = awkward_values();
    kbench::write_matrix_market(a, tmp.path.string());
    std::ifstream in(tmp.path);
    std::string banner, comment;
    std::getline(in, banner);
    std::getline(in, comment);
    EXPECT_EQ(banner, "%%MatrixMarket matrix coordinate real general");
    EXPECT_EQ(comment, "% written by kbench");
    expect_same(a, kbench::read_matrix_market<double>(tmp.path.string()));
}

TEST(MmIoWrite, GzipWhenPathEndsInGz)
{
    const TempPath tmp(".mtx.gz");
    const auto a = awkward_values();
    kbench::write_matrix_market(a, tmp.path.string());
    std::ifstream in(tmp.path, std::ios::binary);
    unsigned char magic[2] = {0, 0};
    in.read(reinterpret_cast<char*>(magic), 2);
    EXPECT_EQ(magic[0], 0x1f);
    EXPECT_EQ(magic[1], 0x8b);
    expect_same(a, kbench::read_matrix_market<double>(tmp.path.string()));
}

TEST(MmIoWrite, UnwritablePathThrowsSystemError)
{
    EXPECT_THROW(kbench::write_matrix_market(awkward_values(), "/nonexistent/dir/a.mtx"),
                 std::system_error);
}

// --- SuiteSparse files of $KBENCH_MATRIX_DIR ---------------------------------------------

std::vector<std::string> split_csv(const std::string& line)
{
    std::vector<std::string> out(1);
    bool quoted = false;
    for (char c : line) {
        if (c == '"') {
            quoted = !quoted;
        } else if (c == ',' && !quoted) {
            out.emplace_back();
        } else if (c != '\r') {
            out.back() += c;
        }
    }
    return out;
}

/// MANIFEST.csv rows keyed by file name, each a map column -> value.
std::map<std::string, std::map<std::string, std::string>> read_manifest(const fs::path& path)
{
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    const auto header = split_csv(line);
    std::map<std::string, std::map<std::string, std::string>> rows;
    while (std::getline(in, line)) {
        if (line.empty()) continue;
        const auto cells = split_csv(line);
        std::map<std::string, std::string> row;
        for (std::size_t k = 0; k < header.size() && k < cells.size(); ++k) row[header[k]] = cells[k];
        rows[row["file"]] = row;
    }
    return rows;
}

double entry(const Csr<double>& a, index_type i, index_type j)
{
    for (index_type k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k)
        if (a.col_idx[k] == j) return a.values[k];
    return 0.0;
}

TEST(MmIoSuiteSparse, ManifestMatrices)
{
    const char* env = std::getenv("KBENCH_MATRIX_DIR");
    if (env == nullptr || !fs::is_directory(env))
        GTEST_SKIP() << "KBENCH_MATRIX_DIR is unset or not a directory: no SuiteSparse files";
    const fs::path dir = env;
    ASSERT_TRUE(fs::exists(dir / "MANIFEST.csv")) << dir;
    const auto manifest = read_manifest(dir / "MANIFEST.csv");
    int checked = 0;
    for (const auto& file : fs::directory_iterator(dir)) {
        if (file.path().extension() != ".mtx") continue;
        const std::string name = file.path().filename().string();
        SCOPED_TRACE(name);
        MatrixMarketInfo info;
        const auto a = kbench::read_matrix_market<double>(file.path().string(), true, &info);
        ASSERT_NO_THROW(kbench::validate(a, name));
        ASSERT_TRUE(manifest.count(name)) << name << " missing from MANIFEST.csv";
        const auto& row = manifest.at(name);
        EXPECT_EQ(a.num_rows, std::stoll(row.at("n")));
        EXPECT_EQ(a.num_cols, std::stoll(row.at("n")));
        EXPECT_EQ(row.at("mm_header").find("%%MatrixMarket matrix coordinate " + info.field + " " +
                                           info.symmetry),
                  0u);
        std::int64_t diagonal = 0;  // stored diagonal entries (explicit zeros included)
        for (index_type i = 0; i < a.num_rows; ++i)
            for (index_type k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) diagonal += a.col_idx[k] == i;
        // No duplicates in these files: general -> one stored entry per file entry; symmetric
        // -> each off-diagonal file entry stored twice.
        if (info.symmetry == "general") {
            EXPECT_EQ(a.nnz(), info.entries);
        } else {
            EXPECT_EQ(a.nnz(), 2 * info.entries - diagonal);
            for (index_type i = 0; i < a.num_rows; ++i)
                for (index_type k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k)
                    ASSERT_EQ(a.values[k], entry(a, a.col_idx[k], i)) << "at " << i;
        }
        // The collection's nnz counts both triangles but not explicit zeros; the reader keeps
        // explicit zeros.
        EXPECT_EQ(a.nnz(), std::stoll(row.at("nnz_suitesparse")) + std::stoll(row.at("explicit_zeros")));
        ++checked;
    }
    EXPECT_GE(checked, 1);
}

TEST(MmIoSuiteSparse, Trefethen2000)
{
    const char* env = std::getenv("KBENCH_MATRIX_DIR");
    const fs::path path = env ? fs::path(env) / "Trefethen_2000.mtx" : fs::path();
    if (env == nullptr || !fs::exists(path))
        GTEST_SKIP() << "KBENCH_MATRIX_DIR unset or without Trefethen_2000.mtx";
    const auto a = kbench::read_matrix_market<double>(path.string(), true);
    EXPECT_EQ(a.num_rows, 2000);
    EXPECT_EQ(a.nnz(), 41906);
    // Diagonal: the primes 2, 3, 5, ..., the 2000th prime 17389; ones at |i - j| = 2^k.
    EXPECT_EQ(entry(a, 0, 0), 2.0);
    EXPECT_EQ(entry(a, 1, 1), 3.0);
    EXPECT_EQ(entry(a, 1999, 1999), 17389.0);
    EXPECT_EQ(entry(a, 0, 1), 1.0);
    EXPECT_EQ(entry(a, 1024, 0), 1.0);
    EXPECT_EQ(entry(a, 0, 3), 0.0);
}

}  // namespace
