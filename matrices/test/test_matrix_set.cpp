// Tests of the matrix-set manifests: shipped sets, building entries, and error messages.
#include "matrices/matrix_set.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace kbench {
namespace {

namespace fs = std::filesystem;

std::string matrix_dir_or_empty()
{
    const char* d = std::getenv("KBENCH_MATRIX_DIR");
    return d != nullptr && fs::is_directory(d) ? std::string(d) : std::string();
}

/// Writes `text` to a fresh manifest file in the test's temporary directory.
std::string write_manifest(const std::string& name, const std::string& text)
{
    const fs::path dir = fs::temp_directory_path() / "kbench_test_matrix_set";
    fs::create_directories(dir);
    const fs::path p = dir / (name + ".json");
    std::ofstream(p) << text;
    return p.string();
}

/// The message of the std::invalid_argument that load_matrix_set throws ("" if none).
std::string load_error(const std::string& path, const std::string& matrix_dir = "")
{
    try {
        load_matrix_set(path, matrix_dir);
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "";
}

TEST(MatrixSet, ShippedSetsAreListedSorted)
{
    const auto names = shipped_matrix_sets();
    EXPECT_EQ(names, (std::vector<std::string>{"anzt2015", "default", "smoke"}));
}

TEST(MatrixSet, SmokeSetBuildsSmallValidMatrices)
{
    const MatrixSet set = load_matrix_set("smoke", "");
    EXPECT_EQ(set.name, "smoke");
    EXPECT_TRUE(std::filesystem::path(set.manifest).is_absolute()) << set.manifest;
    const std::filesystem::path manifest(set.manifest);
    EXPECT_EQ(manifest.filename(), "smoke.json");
    EXPECT_EQ(manifest.parent_path().filename(), "sets");
    EXPECT_TRUE(std::filesystem::is_regular_file(manifest));
    ASSERT_GE(set.matrices.size(), 3u);
    ASSERT_LE(set.matrices.size(), 4u);
    for (const MatrixEntry& e : set.matrices) {
        const Csr<double> a = build_matrix(e);
        validate(a, e.name);
        EXPECT_LE(a.num_rows, 5000) << e.name;
        EXPECT_EQ(a.num_rows, a.num_cols) << e.name;
        EXPECT_EQ(nlohmann::json::parse(e.spec).at("name"), e.name);
    }
}

TEST(MatrixSet, DefaultSetIsGeneratedOnlyWithPecletAboutHalf)
{
    const MatrixSet set = load_matrix_set("default", "");  // no matrix dir needed
    EXPECT_EQ(set.matrices.size(), 6u);
    for (const MatrixEntry& e : set.matrices) {
        EXPECT_NE(e.source, "file");
        EXPECT_NE(e.source, "replicate");
        if (e.source == "convection_diffusion") {
            const auto p = nlohmann::json::parse(e.spec).at("params");
            const double h = 1.0 / (p.at("nx").get<double>() + 1.0);
            const double w = std::hypot(p.at("wx").get<double>(), p.at("wy").get<double>(),
                                        p.at("wz").get<double>());
            EXPECT_NEAR(w * h / 2.0, 0.5, 0.01) << e.name;  // cell Peclet number
        }
    }
}

TEST(MatrixSet, Anzt2015SetResolvesEveryFile)
{
    const std::string dir = matrix_dir_or_empty();
    if (dir.empty()) GTEST_SKIP() << "KBENCH_MATRIX_DIR is not set or not a directory";
    const MatrixSet set = load_matrix_set("anzt2015", dir);
    int files = 0, replicated = 0, five_band = 0;
    for (const MatrixEntry& e : set.matrices) {
        if (e.source == "file") ++files;
        if (e.source == "replicate") {
            ++replicated;
            const auto p = nlohmann::json::parse(e.spec).at("params");
            EXPECT_GE(p.at("target_rows").get<int>(), 2000000) << e.name;
            five_band += p.value("layout", "diagonal") == "five_band";
        }
        if (!e.file.empty()) {
            EXPECT_TRUE(fs::is_regular_file(e.file)) << e.file;
        }
    }
    EXPECT_EQ(files, 9);
    EXPECT_EQ(replicated, 11);
    EXPECT_EQ(five_band, 2);
    const auto fv1 = std::find_if(set.matrices.begin(), set.matrices.end(),
                                  [](const MatrixEntry& e) { return e.name == "fv1"; });
    ASSERT_NE(fv1, set.matrices.end());
    EXPECT_EQ(fv1->stands_for, "FV1");
    const Csr<double> a = build_matrix(*fv1);  // symmetric file expanded to both triangles
    EXPECT_EQ(a.num_rows, 9604);
    EXPECT_EQ(a.nnz(), 85264);
}

TEST(MatrixSet, FileEntriesNeedAMatrixDirectory)
{
    const std::string msg = load_error("anzt2015", "");
    EXPECT_NE(msg.find("--matrix-dir"), std::string::npos) << msg;
    EXPECT_NE(msg.find("KBENCH_MATRIX_DIR"), std::string::npos) << msg;
    EXPECT_NE(msg.find("anzt2015.json"), std::string::npos) << msg;
}

TEST(MatrixSet, ResolveMatrixDirPrefersTheCommandLine)
{
    ::setenv("KBENCH_MATRIX_DIR", "/from/env", 1);
    EXPECT_EQ(resolve_matrix_dir("/from/cli"), "/from/cli");
    EXPECT_EQ(resolve_matrix_dir(""), "/from/env");
    ::unsetenv("KBENCH_MATRIX_DIR");
    EXPECT_EQ(resolve_matrix_dir(""), "");
}

TEST(MatrixSet, ErrorsNameTheManifestAndTheEntry)
{
    const std::string head = R"({"name": "t", "matrices": [{"name": "ok", "generator": "trefethen", "params": {"n": 3}}, )";
    struct Case {
        const char* label;
        std::string entry;
        std::string expected;  // substring of the message
    };
    const Case cases[] = {
        {"unknown_gen", R"({"name": "x", "generator": "lapl", "params": {}})",
         "unknown generator 'lapl' (valid: convection_diffusion, laplacian_2d_5pt"},
        {"missing_param", R"({"name": "x", "generator": "laplacian_3d_7pt", "params": {"nx": 2, "ny": 2}})",
         "needs parameter \"nz\""},
        {"typed_param", R"({"name": "x", "generator": "laplacian_2d_5pt", "params": {"nx": 2.5, "ny": 2}})",
         "parameter \"nx\" = 2.5, expected an integer"},
        {"negative", R"({"name": "x", "generator": "trefethen", "params": {"n": -4}})",
         "parameter \"n\" = -4"},
        {"extra_param", R"({"name": "x", "generator": "trefethen", "params": {"n": 4, "m": 1}})",
         "has no parameter \"m\""},
        {"bad_layout", R"({"name": "x", "generator": "replicate", "params": {"file": "a.mtx", "target_rows": 9, "layout": "diag"}})",
         "parameter \"layout\""},
        {"duplicate", R"({"name": "ok", "generator": "trefethen", "params": {"n": 3}})",
         "duplicate matrix name"},
        {"both", R"({"name": "x", "file": "a.mtx", "generator": "trefethen", "params": {"n": 3}})",
         "exactly one of \"file\" and \"generator\""},
        {"no_name", R"({"generator": "trefethen", "params": {"n": 3}})", "\"name\" must be"},
    };
    for (const Case& c : cases) {
        const std::string path = write_manifest(c.label, head + c.entry + "]}");
        const std::string msg = load_error(path);
        EXPECT_NE(msg.find(path), std::string::npos) << c.label << ": " << msg;
        EXPECT_NE(msg.find("entry 1"), std::string::npos) << c.label << ": " << msg;
        EXPECT_NE(msg.find(c.expected), std::string::npos) << c.label << ": " << msg;
    }
    const std::string dup = load_error(write_manifest("duplicate", head + cases[6].entry + "]}"));
    EXPECT_NE(dup.find("'ok'"), std::string::npos) << dup;
}

TEST(MatrixSet, MissingFilesAndBadDocuments)
{
    const fs::path dir = fs::temp_directory_path() / "kbench_test_matrix_set";
    const std::string path = write_manifest(
        "missing_file", R"({"name": "t", "matrices": [{"name": "m", "file": "nope.mtx"}]})");
    const std::string msg = load_error(path, dir.string());
    EXPECT_NE(msg.find((dir / "nope.mtx").string()), std::string::npos) << msg;
    EXPECT_NE(msg.find("does not exist"), std::string::npos) << msg;

    EXPECT_NE(load_error(write_manifest("bad_json", "{\"name\": ")).find("invalid JSON"),
              std::string::npos);
    EXPECT_NE(load_error(write_manifest("no_list", R"({"name": "t"})")).find("\"matrices\""),
              std::string::npos);
    const std::string unknown = load_error("no_such_set");
    EXPECT_NE(unknown.find("shipped: anzt2015, default, smoke"), std::string::npos) << unknown;
}

}  // namespace
}  // namespace kbench
