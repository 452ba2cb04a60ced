// Tests of the matrix-set manifests: shipped sets, building entries, and error messages.
#include "matrices/matrix_set.hpp"

#include "matrices/generators.hpp"
#include "matrices/suitesparse_index.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <utility>

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
    // Sorted and holding every set these tests know (sets added by other studies may follow).
    const auto names = shipped_matrix_sets();
    EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
    for (const char* known : {"anzt2015", "anzt2015-traffic", "boman2022", "boman2022-vanbody",
                              "default", "smoke", "spmv-stress", "yamazaki2014", "yamazaki2014-mpk"})
        EXPECT_NE(std::find(names.begin(), names.end(), known), names.end()) << known;
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
         "unknown generator 'lapl' (valid: banded, convection_diffusion, laplacian_2d_5pt"},
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
        {"study_not_object", R"({"name": "x", "generator": "trefethen", "params": {"n": 3}, "study": 5})",
         "\"study\" must be a JSON object"},
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
    std::string shipped;
    for (const auto& name : shipped_matrix_sets()) shipped += (shipped.empty() ? "" : ", ") + name;
    EXPECT_NE(unknown.find("(shipped: " + shipped + ")"), std::string::npos) << unknown;
    EXPECT_NE(unknown.find("spmv-stress, "), std::string::npos) << unknown;
}

TEST(MatrixSet, RandomGeneratorErrorsNameTheEntryAndTheParameter)
{
    const std::string head = R"({"name": "t", "matrices": [{"name": "ok", "generator": "banded", "params": {"n": 10, "K": 2, "d": 1}}, )";
    const std::string rr = R"({"name": "x", "generator": "random_rows", "params": {"n": 100, "bandwidth": 10, )";
    struct Case {
        const char* label;
        std::string entry;
        std::string expected;  // substring of the message
    };
    const Case cases[] = {
        {"rr_min_gt_max", rr + R"("distribution": "uniform", "row_min": 5, "row_max": 3}})",
         "row_min = 5 > row_max = 3"},
        {"rr_max_gt_n", rr + R"("distribution": "uniform", "row_min": 5, "row_max": 300}})",
         "row_max = 300 > n = 100"},
        {"rr_mean_outside", rr + R"("distribution": "geometric", "row_min": 5, "row_max": 30, "mean": 40}})",
         "mean = 40 outside [row_min, row_max] = [5, 30]"},
        {"rr_mean_unused", rr + R"("distribution": "uniform", "row_min": 5, "row_max": 30, "mean": 10}})",
         "parameter \"mean\" is not used by distribution \"uniform\""},
        {"rr_exponent_unused", rr + R"("distribution": "geometric", "row_min": 1, "row_max": 30, "mean": 3, "exponent": 2}})",
         "parameter \"exponent\" is not used by distribution \"geometric\""},
        {"rr_mean_missing", rr + R"("distribution": "geometric", "row_min": 1, "row_max": 30}})",
         "distribution \"geometric\" needs parameter \"mean\""},
        {"rr_exponent_missing", rr + R"("distribution": "power_law", "row_min": 1, "row_max": 30}})",
         "distribution \"power_law\" needs parameter \"exponent\""},
        {"rr_exponent_negative", rr + R"("distribution": "power_law", "row_min": 1, "row_max": 30, "exponent": -2}})",
         "parameter \"exponent\" = -2, expected a number > 0"},
        {"rr_distribution", rr + R"("distribution": "zipf", "row_min": 1, "row_max": 30}})",
         "parameter \"distribution\" = \"zipf\", expected \"uniform\", \"geometric\" or \"power_law\""},
        {"rr_min_zero", rr + R"("distribution": "uniform", "row_min": 0, "row_max": 30}})",
         "parameter \"row_min\" = 0, expected an integer in [1,"},
        {"rr_seed", rr + R"("distribution": "uniform", "row_min": 1, "row_max": 30, "seed": -1}})",
         "parameter \"seed\" = -1, expected an integer in [0, 18446744073709551615]"},
        {"rr_no_bandwidth", R"({"name": "x", "generator": "random_rows", "params": {"n": 100, "distribution": "uniform", "row_min": 1, "row_max": 3}})",
         "needs parameter \"bandwidth\""},
        {"rr_bandwidth_negative", R"({"name": "x", "generator": "random_rows", "params": {"n": 100, "distribution": "uniform", "row_min": 1, "row_max": 3, "bandwidth": -1}})",
         "parameter \"bandwidth\" = -1, expected an integer in [0,"},
        {"banded_d_zero", R"({"name": "x", "generator": "banded", "params": {"n": 100, "K": 3, "d": 0}})",
         "parameter \"d\" = 0, expected a number > 0"},
        {"banded_d_negative", R"({"name": "x", "generator": "banded", "params": {"n": 100, "K": 3, "d": -0.5}})",
         "parameter \"d\" = -0.5, expected a number > 0"},
        {"banded_K_ge_n", R"({"name": "x", "generator": "banded", "params": {"n": 100, "K": 100, "d": 1}})",
         "K = 100, expected 1 <= K < n = 100"},
        {"banded_K_missing", R"({"name": "x", "generator": "banded", "params": {"n": 100, "d": 1}})",
         "needs parameter \"K\""},
        {"banded_extra", R"({"name": "x", "generator": "banded", "params": {"n": 100, "K": 3, "d": 1, "mean": 2}})",
         "has no parameter \"mean\""},
        {"banded_signs", R"({"name": "x", "generator": "banded", "params": {"n": 100, "K": 3, "d": 1, "signs": "positive"}})",
         "parameter \"signs\" = \"positive\", expected \"random\" or \"negative\""},
    };
    for (const Case& c : cases) {
        const std::string path = write_manifest(c.label, head + c.entry + "]}");
        const std::string msg = load_error(path);
        EXPECT_NE(msg.find(path), std::string::npos) << c.label << ": " << msg;
        EXPECT_NE(msg.find("entry 1 ('x')"), std::string::npos) << c.label << ": " << msg;
        EXPECT_NE(msg.find(c.expected), std::string::npos) << c.label << ": " << msg;
    }
}

TEST(MatrixSet, RandomGeneratorsBuildAsTheirFunctions)
{
    const std::string path = write_manifest("random_ok", R"({"name": "t", "matrices": [
        {"name": "u", "generator": "random_rows", "params": {"n": 500, "distribution": "uniform", "row_min": 1, "row_max": 9, "bandwidth": 20, "seed": 18446744073709551615}},
        {"name": "g", "generator": "random_rows", "params": {"n": 500, "distribution": "geometric", "row_min": 2, "row_max": 40, "mean": 6.5, "bandwidth": 0}},
        {"name": "p", "generator": "random_rows", "params": {"n": 500, "distribution": "power_law", "row_min": 1, "row_max": 200, "exponent": 2, "bandwidth": 499, "seed": 3}},
        {"name": "b", "generator": "banded", "params": {"n": 300, "K": 4, "d": 0.5}},
        {"name": "bm", "generator": "banded", "params": {"n": 300, "K": 4, "d": 1.5, "seed": 2, "signs": "negative"}},
        {"name": "br", "generator": "banded", "params": {"n": 300, "K": 4, "d": 1.5, "seed": 2, "signs": "random"}}]})");
    const MatrixSet set = load_matrix_set(path, "");
    ASSERT_EQ(set.matrices.size(), 6u);
    RandomRowsParams u;
    u.n = 500;
    u.row_min = 1;
    u.row_max = 9;
    u.bandwidth = 20;
    u.seed = 18446744073709551615ULL;
    RandomRowsParams g = u;
    g.distribution = RowLengthDistribution::geometric;
    g.row_min = 2;
    g.row_max = 40;
    g.mean = 6.5;
    g.bandwidth = 0;
    g.seed = 1;  // the default
    RandomRowsParams p = u;
    p.distribution = RowLengthDistribution::power_law;
    p.row_max = 200;
    p.exponent = 2.0;
    p.bandwidth = 499;
    p.seed = 3;
    const Csr<double> expected[] = {random_rows(u), random_rows(g), random_rows(p),
                                    banded(300, 4, 0.5, 1),
                                    banded(300, 4, 1.5, 2, BandedSigns::negative),
                                    banded(300, 4, 1.5, 2, BandedSigns::random)};
    for (std::size_t k = 0; k < 6; ++k) {
        const Csr<double> a = build_matrix(set.matrices[k]);
        EXPECT_EQ(a.col_idx, expected[k].col_idx) << set.matrices[k].name;
        EXPECT_EQ(a.values, expected[k].values) << set.matrices[k].name;
    }
}

TEST(MatrixSet, BuildMatrixChecksEntriesMadeElsewhere)
{
    // As `kbench matrix generate` makes them: no load_matrix_set in between.
    auto error = [](const std::string& generator, const std::string& params) {
        MatrixEntry e;
        e.name = "cli";
        e.source = generator;
        e.spec = R"({"name": "cli", "generator": ")" + generator + R"(", "params": )" + params + "}";
        try {
            build_matrix(e);
        } catch (const std::invalid_argument& ex) {
            return std::string(ex.what());
        }
        return std::string();
    };
    EXPECT_NE(error("random_rows", R"({"n": 10, "distribution": "zipf", "row_min": 1, "row_max": 3, "bandwidth": 1})")
                  .find("matrix 'cli': parameter \"distribution\" = \"zipf\""),
              std::string::npos);
    EXPECT_NE(error("random_rows", R"({"n": 10, "distribution": "uniform", "row_min": 1, "row_max": 3, "bandwidth": 1, "mean": 2})")
                  .find("\"mean\" is not used by distribution \"uniform\""),
              std::string::npos);
    EXPECT_NE(error("banded", R"({"n": 10, "K": 3})").find("needs parameter \"d\""),
              std::string::npos);
    EXPECT_NE(error("banded", R"({"n": 10, "K": 30, "d": 2})").find("K = 30"), std::string::npos);
    EXPECT_NE(error("lapl", R"({})").find("unknown generator 'lapl'"), std::string::npos);
    EXPECT_EQ(error("banded", R"({"n": 10, "K": 3, "d": 2})"), "");
}

TEST(MatrixSet, EveryShippedSetLoads)
{
    const std::string dir = matrix_dir_or_empty();
    for (const std::string& name : shipped_matrix_sets()) {
        try {
            const MatrixSet set = load_matrix_set(name, dir);
            EXPECT_EQ(set.name, name);
            EXPECT_FALSE(set.matrices.empty()) << name;
        } catch (const std::exception& e) {
            // Sets with SuiteSparse files (anzt2015, boman2022) need the matrix directory.
            const bool needs_files =
                dir.empty() && std::string(e.what()).find("needs a matrix directory") !=
                                   std::string::npos;
            if (!needs_files) ADD_FAILURE() << name << ": " << e.what();
        }
    }
}

TEST(MatrixSet, Yamazaki2014MpkSetMatchesThePaperMatrices)
{
    // cant: 62,451 rows = 20,817 nodes of 3 dofs, 64.2 nnz/row; G3_circuit: 1,585,478 rows,
    // 4.8 nnz/row (yamazaki2014 Fig. 12). The stand-ins: the node graph of cant within 0.1 %,
    // G3_circuit's rows within 0.1 % and about 5 nnz/row.
    const MatrixSet set = load_matrix_set("yamazaki2014-mpk", "");
    ASSERT_EQ(set.matrices.size(), 2u);
    const std::vector<std::pair<double, std::string>> expected{{62451.0 / 3, "cant ("},
                                                               {1585478.0, "G3_circuit ("}};
    for (std::size_t i = 0; i < 2; ++i) {
        const MatrixEntry& e = set.matrices[i];
        EXPECT_EQ(e.stands_for.rfind(expected[i].second, 0), 0u) << e.stands_for;
        const Csr<double> a = build_matrix(e);
        EXPECT_NEAR(a.num_rows / expected[i].first, 1.0, 1e-3) << e.name;
        if (i == 1) {
            EXPECT_NEAR(static_cast<double>(a.nnz()) / a.num_rows, 5.0, 0.01);
        }
    }
}

TEST(MatrixSet, SpmvStressSetIsLargeButBounded)
{
    const MatrixSet set = load_matrix_set("spmv-stress", "");
    EXPECT_FALSE(set.description.empty());
    int large = 0, small = 0, banded_entries = 0;
    std::set<std::string> distributions;
    for (const MatrixEntry& e : set.matrices) {
        const auto p = nlohmann::json::parse(e.spec).at("params");
        const double n = p.at("n").get<double>();
        double nnz = 0.0;  // expected; exact for banded
        if (e.source == "banded") {
            const double k = p.at("K").get<double>();
            nnz = n * (2 * k + 1) - k * (k + 1);
            ++banded_entries;
        } else {
            ASSERT_EQ(e.source, "random_rows") << e.name;
            distributions.insert(p.at("distribution").get<std::string>());
            RandomRowsParams r;
            r.n = p.at("n").get<index_type>();
            r.distribution = p.at("distribution") == "geometric" ? RowLengthDistribution::geometric
                             : p.at("distribution") == "power_law"
                                 ? RowLengthDistribution::power_law
                                 : RowLengthDistribution::uniform;
            r.row_min = p.at("row_min").get<index_type>();
            r.row_max = p.at("row_max").get<index_type>();
            r.mean = p.value("mean", 0.0);
            r.exponent = p.value("exponent", 0.0);
            r.bandwidth = p.at("bandwidth").get<index_type>();
            nnz = n * expected_row_length(r);
        }
        EXPECT_LE(nnz, 66e6) << e.name;
        if (n >= 1e6) {
            ++large;
        } else if (n <= 30000) {
            ++small;
            const Csr<double> a = build_matrix(e);  // small entries: build and check them
            validate(a, e.name);
            EXPECT_NEAR(a.nnz(), nnz, 0.05 * nnz) << e.name;
        } else {
            // banded with K = 128 has fewer rows, to stay near 60M nonzeros
            EXPECT_EQ(e.source, "banded") << e.name;
            EXPECT_GE(nnz, 50e6) << e.name;
        }
    }
    EXPECT_GE(large, 8);
    EXPECT_GE(small, 3);
    EXPECT_GE(banded_entries, 3);
    EXPECT_EQ(distributions, (std::set<std::string>{"geometric", "power_law", "uniform"}));
}

// Every "suitesparse" matrix a shipped set names is in the shipped collection index.
TEST(MatrixSet, ShippedSetsNameIndexedSuiteSparseMatrices)
{
    const auto index = load_suitesparse_index(shipped_suitesparse_index());
    std::size_t named = 0;
    for (const std::string& set : shipped_matrix_sets()) {
        for (const std::string& id : suitesparse_ids_of_set(set)) {
            const auto [group, name] = split_suitesparse_id(id);
            EXPECT_NO_THROW(find_suitesparse_entry(index, group, name, "shipped")) << set;
            ++named;
        }
    }
    EXPECT_GE(named, 10u);
    const auto yamazaki = suitesparse_ids_of_set("yamazaki2014");
    for (const char* id : {"AMD/G3_circuit", "Williams/cant", "Dziekonski/dielFilterV2real"})
        EXPECT_NE(std::find(yamazaki.begin(), yamazaki.end(), id), yamazaki.end()) << id;
}

TEST(MatrixSet, SuiteSparseKeyIsChecked)
{
    const std::string bad = write_manifest(
        "bad_suitesparse", R"({"name": "x", "matrices": [{"name": "a", "generator": "trefethen",
        "params": {"n": 5}, "suitesparse": "G3_circuit"}]})");
    const std::string e = load_error(bad);
    EXPECT_NE(e.find("entry 0 ('a'): SuiteSparse matrix 'G3_circuit': expected GROUP/NAME"),
              std::string::npos)
        << e;
    const std::string not_string = write_manifest(
        "suitesparse_not_string", R"({"name": "x", "matrices": [{"name": "a",
        "generator": "trefethen", "params": {"n": 5}, "suitesparse": 3}]})");
    EXPECT_NE(load_error(not_string).find("\"suitesparse\" must be a string GROUP/NAME"),
              std::string::npos);
    // Without real matrices requested, the entry is its stand-in.
    const std::string ok = write_manifest(
        "good_suitesparse", R"({"name": "x", "matrices": [{"name": "a", "generator": "trefethen",
        "params": {"n": 5}, "suitesparse": "JGD_Trefethen/Trefethen_2000"}]})");
    const MatrixSet set = load_matrix_set(ok, "");
    EXPECT_EQ(set.matrices.at(0).source, "trefethen");
    EXPECT_EQ(set.matrices.at(0).suitesparse, "JGD_Trefethen/Trefethen_2000");
    EXPECT_FALSE(set.matrices.at(0).real);
    EXPECT_EQ(suitesparse_ids_of_set(ok), std::vector<std::string>{"JGD_Trefethen/Trefethen_2000"});
}

TEST(MatrixSet, StudyObjectIsKeptAsJsonText)
{
    const std::string path = write_manifest("study", R"({"name": "t", "matrices": [
        {"name": "a", "generator": "trefethen", "params": {"n": 3}, "study": {"restart": 30, "steps": 15}},
        {"name": "b", "generator": "trefethen", "params": {"n": 3}}]})");
    const MatrixSet set = load_matrix_set(path, "");
    ASSERT_EQ(set.matrices.size(), 2u);
    EXPECT_EQ(nlohmann::json::parse(set.matrices[0].study),
              (nlohmann::json{{"restart", 30}, {"steps", 15}}));
    EXPECT_EQ(set.matrices[1].study, "");
}

}  // namespace
}  // namespace kbench
