// Tests of the SuiteSparse collection index and of checking Matrix Market files against it.
#include "matrices/suitesparse_index.hpp"

#include "matrices/mm_io.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace kbench {
namespace {

namespace fs = std::filesystem;

fs::path temp_file(const std::string& name, const std::string& text)
{
    const fs::path dir = fs::temp_directory_path() / "kbench_test_suitesparse_index";
    fs::create_directories(dir);
    const fs::path p = dir / name;
    std::ofstream(p) << text;
    return p;
}

template <typename E, typename F>
std::string error_of(F&& f)
{
    try {
        f();
    } catch (const E& e) {
        return e.what();
    }
    return "";
}

TEST(SuiteSparseIndex, ShippedIndexHoldsTheCollection)
{
    const auto index = load_suitesparse_index(shipped_suitesparse_index());
    EXPECT_EQ(index.size(), 2904u);
    const auto& g3 = find_suitesparse_entry(index, "AMD", "G3_circuit", "shipped");
    EXPECT_EQ(g3.num_rows, 1585478);
    EXPECT_EQ(g3.num_cols, 1585478);
    EXPECT_EQ(g3.nonzeros, 7660826);
    const auto& steam1 = find_suitesparse_entry(index, "HB", "steam1", "shipped");
    EXPECT_EQ(steam1.explicit_zeros, 1514);
    EXPECT_EQ(steam1.id(), "HB/steam1");
}

TEST(SuiteSparseIndex, UnknownMatrixNamesTheIndexAndOtherGroups)
{
    const auto index = load_suitesparse_index(shipped_suitesparse_index());
    const std::string e = error_of<std::invalid_argument>(
        [&] { find_suitesparse_entry(index, "Freescale", "G3_circuit", "IDX"); });
    EXPECT_NE(e.find("Freescale/G3_circuit is not in the SuiteSparse collection index IDX"),
              std::string::npos)
        << e;
    EXPECT_NE(e.find("(the index has AMD/G3_circuit)"), std::string::npos) << e;
}

TEST(SuiteSparseIndex, SplitsIds)
{
    EXPECT_EQ(split_suitesparse_id("AMD/G3_circuit"),
              (std::pair<std::string, std::string>{"AMD", "G3_circuit"}));
    EXPECT_EQ(split_suitesparse_id("HB/1138_bus").second, "1138_bus");
    for (const char* bad : {"G3_circuit", "/x", "x/", "a/b/c", "a b/c", "", "a/../b"}) {
        const std::string e =
            error_of<std::invalid_argument>([&] { split_suitesparse_id(bad); });
        EXPECT_NE(e.find("expected GROUP/NAME"), std::string::npos) << bad << ": " << e;
    }
}

TEST(SuiteSparseIndex, BadIndexFilesAreNamed)
{
    const fs::path no_column = temp_file("no_column.csv", "group,name,num_rows,num_cols\nA,b,1,1\n");
    std::string e = error_of<std::invalid_argument>(
        [&] { load_suitesparse_index(no_column.string()); });
    EXPECT_NE(e.find(no_column.string() + ": the header has no column 'nonzeros'"),
              std::string::npos)
        << e;
    const fs::path bad_number = temp_file(
        "bad_number.csv",
        "group,name,num_rows,num_cols,nonzeros,num_explicit_zeros\nA,b,1,1,1,0\nA,c,1,x,1,0\n");
    e = error_of<std::invalid_argument>([&] { load_suitesparse_index(bad_number.string()); });
    EXPECT_NE(e.find(bad_number.string() + ":3: num_cols 'x'"), std::string::npos) << e;
    e = error_of<std::invalid_argument>([&] { load_suitesparse_index("/nonexistent.csv"); });
    EXPECT_NE(e.find("/nonexistent.csv: cannot open"), std::string::npos) << e;
}

TEST(SuiteSparseIndex, CountsAsTheCollectionDoes)
{
    // Symmetric, 3 x 3: diagonal 3 entries stored, one off-diagonal pair stored once, one of
    // them an explicit zero -> 5 entries in both triangles: 3 nonzeros + 2 explicit zeros.
    const fs::path sym = temp_file("sym.mtx",
                                   "%%MatrixMarket matrix coordinate real symmetric\n% c\n"
                                   "3 3 4\n1 1 1\n2 2 1\n3 3 1\n3 1 0.0\n");
    const MatrixMarketCounts c = count_matrix_market(sym.string());
    EXPECT_EQ(c.symmetry, "symmetric");
    EXPECT_EQ(c.entries, 4);
    EXPECT_EQ(c.diagonal, 3);
    EXPECT_EQ(expanded_entries(c), 5);
    SuiteSparseEntry entry{"G", "sym", 3, 3, 3, 2};
    EXPECT_EQ(index_mismatch(c, entry), "");
    entry.nonzeros = 5;
    entry.num_rows = 4;
    EXPECT_EQ(index_mismatch(c, entry),
              "rows 3 (index: 4), entries (both triangles, explicit zeros included) 5 (index: 7)");

    const fs::path skew = temp_file("skew.mtx",
                                    "%%MatrixMarket matrix coordinate real skew-symmetric\n"
                                    "3 3 2\n2 1 1\n3 2 -1\n");
    EXPECT_EQ(expanded_entries(count_matrix_market(skew.string())), 4);
}

TEST(SuiteSparseIndex, TruncatedAndMalformedFilesAreErrors)
{
    const fs::path cut = temp_file("cut.mtx",
                                   "%%MatrixMarket matrix coordinate real general\n3 3 3\n1 1 1\n");
    std::string e = error_of<matrix_market_error>([&] { count_matrix_market(cut.string()); });
    EXPECT_NE(e.find("1 entries, the size line says 3 (truncated file?)"), std::string::npos) << e;
    const fs::path out = temp_file("out.mtx",
                                   "%%MatrixMarket matrix coordinate real general\n3 3 1\n4 1 1\n");
    e = error_of<matrix_market_error>([&] { count_matrix_market(out.string()); });
    EXPECT_NE(e.find(out.string() + ":3: entry '4 1 1' has no row and column within 3 x 3"),
              std::string::npos)
        << e;
    const fs::path html = temp_file("html.mtx", "<html>Not found</html>\n");
    e = error_of<matrix_market_error>([&] { count_matrix_market(html.string()); });
    EXPECT_NE(e.find("expected the banner"), std::string::npos) << e;
}

// The real collection files of ../shared/matrices (byte-for-byte copies, including symmetric
// ones with explicit zeros and partial diagonals) match the shipped index under these rules.
TEST(SuiteSparseIndex, SharedCollectionFilesMatchTheIndex)
{
    const char* dir = std::getenv("KBENCH_MATRIX_DIR");
    if (dir == nullptr || !fs::is_directory(dir)) GTEST_SKIP() << "no KBENCH_MATRIX_DIR";
    const auto index = load_suitesparse_index(shipped_suitesparse_index());
    const std::pair<const char*, const char*> shared[] = {
        {"JGD_Trefethen", "Trefethen_2000"}, {"GHS_indef", "bloweybq"}, {"Norris", "fv1"},
        {"HB", "orsirr_1"}, {"HB", "fs_541_1"}, {"HB", "steam1"}, {"Cylshell", "s3rmt3m3"},
        {"GHS_indef", "tuma1"}, {"Pothen", "bodyy4"}};
    int checked = 0;
    for (const auto& [group, name] : shared) {
        const fs::path file = fs::path(dir) / (std::string(name) + ".mtx");
        if (!fs::is_regular_file(file)) continue;
        const auto& entry = find_suitesparse_entry(index, group, name, "shipped");
        EXPECT_EQ(index_mismatch(count_matrix_market(file.string()), entry), "") << name;
        ++checked;
    }
    if (checked == 0) GTEST_SKIP() << "none of the shared matrices in " << dir;
}

}  // namespace
}  // namespace kbench
