// Tests of the quick view of matrix sets (`kbench reproduce --quick`): the "quick" entries,
// "quick_params" over "params", their checks, and the shipped sets' quick forms.
#include "matrices/matrix_set.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace kbench {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string matrix_dir_or_empty()
{
    const char* d = std::getenv("KBENCH_MATRIX_DIR");
    return d != nullptr && fs::is_directory(d) ? std::string(d) : std::string();
}

/// Writes `doc` to a fresh manifest file in the test's temporary directory.
std::string write_manifest(const std::string& name, const json& doc)
{
    const fs::path dir = fs::temp_directory_path() / "kbench_test_matrix_set_quick";
    fs::create_directories(dir);
    const fs::path p = dir / (name + ".json");
    std::ofstream(p) << doc.dump(2);
    return p.string();
}

/// Three small generator entries; the second has quick_params.
json three_entries()
{
    return {{"name", "three"},
            {"matrices",
             {{{"name", "a"}, {"generator", "trefethen"}, {"params", {{"n", 50}}}},
              {{"name", "b"},
               {"generator", "laplacian_2d_5pt"},
               {"params", {{"nx", 40}, {"ny", 30}}},
               {"quick_params", {{"nx", 4}}}},
              {{"name", "c"}, {"generator", "trefethen"}, {"params", {{"n", 70}}}}}}};
}

std::vector<std::string> names_of(const MatrixSet& set)
{
    std::vector<std::string> names;
    for (const MatrixEntry& e : set.matrices) names.push_back(e.name);
    return names;
}

MatrixSet load_quick(const std::string& path, const std::string& matrix_dir = "")
{
    MatrixSetOptions o;
    o.quick = true;
    return load_matrix_set(path, matrix_dir, o);
}

/// The message of the std::invalid_argument that loading `doc` throws, quick or not ("" if none).
std::string load_error(const std::string& name, const json& doc, bool quick)
{
    const std::string path = write_manifest(name, doc);
    try {
        MatrixSetOptions o;
        o.quick = quick;
        load_matrix_set(path, "", o);
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "";
}

TEST(MatrixSetQuick, WithoutAListAQuickRunKeepsTheFirstEntry)
{
    const std::string path = write_manifest("first", three_entries());
    EXPECT_EQ(names_of(load_matrix_set(path, "")), (std::vector<std::string>{"a", "b", "c"}));
    EXPECT_EQ(names_of(load_quick(path)), (std::vector<std::string>{"a"}));
}

TEST(MatrixSetQuick, TheListKeepsItsEntriesInManifestOrder)
{
    json doc = three_entries();
    doc["quick"] = {"c", "b"};
    const std::string path = write_manifest("listed", doc);
    EXPECT_EQ(names_of(load_quick(path)), (std::vector<std::string>{"b", "c"}));
    EXPECT_EQ(load_matrix_set(path, "").matrices.size(), 3u);  // not quick: every entry
}

TEST(MatrixSetQuick, QuickParamsOverrideParamsInQuickRunsOnly)
{
    json doc = three_entries();
    doc["quick"] = {"b"};
    const std::string path = write_manifest("override", doc);
    const MatrixSet quick = load_quick(path);
    ASSERT_EQ(quick.matrices.size(), 1u);
    const json spec = json::parse(quick.matrices[0].spec);
    EXPECT_EQ(spec.at("params"), (json{{"nx", 4}, {"ny", 30}}));  // ny kept from params
    EXPECT_FALSE(spec.contains("quick_params"));
    EXPECT_EQ(build_matrix(quick.matrices[0]).num_rows, 4 * 30);

    const MatrixSet full = load_matrix_set(path, "");
    const json full_spec = json::parse(full.matrices[1].spec);
    EXPECT_EQ(full_spec.at("params"), (json{{"nx", 40}, {"ny", 30}}));
    EXPECT_FALSE(full_spec.contains("quick_params"));  // the spec of a full run is unchanged
    EXPECT_EQ(build_matrix(full.matrices[1]).num_rows, 40 * 30);
}

TEST(MatrixSetQuick, AQuickNameNotInTheSetIsRefusedNamingManifestAndEntry)
{
    json doc = three_entries();
    doc["quick"] = {"a", "nosuch"};
    for (const bool quick : {true, false}) {  // checked on every load
        const std::string msg = load_error("unknown", doc, quick);
        EXPECT_NE(msg.find("unknown.json"), std::string::npos) << msg;
        EXPECT_NE(msg.find("'nosuch' is not an entry of the set"), std::string::npos) << msg;
    }
}

TEST(MatrixSetQuick, AMalformedQuickListIsRefused)
{
    json doc = three_entries();
    doc["quick"] = "a";
    EXPECT_NE(load_error("notarray", doc, false).find("\"quick\": expected a non-empty array"),
              std::string::npos);
    doc["quick"] = json::array();
    EXPECT_NE(load_error("empty", doc, false).find("non-empty array"), std::string::npos);
    doc["quick"] = {"a", 3};
    EXPECT_NE(load_error("number", doc, false).find("3 is not an entry name"), std::string::npos);
    doc["quick"] = {"a", "a"};
    EXPECT_NE(load_error("twice", doc, false).find("'a' is named twice"), std::string::npos);
}

TEST(MatrixSetQuick, BadQuickParamsAreRefusedNamingTheEntry)
{
    json doc = three_entries();
    doc["matrices"][1]["quick_params"] = {{"nx", 0}};
    for (const bool quick : {true, false}) {
        const std::string msg = load_error("badvalue", doc, quick);
        EXPECT_NE(msg.find("badvalue.json: entry 1 ('b'): with \"quick_params\": parameter "
                           "\"nx\" = 0"),
                  std::string::npos)
            << msg;
    }
    doc["matrices"][1]["quick_params"] = {{"nz", 3}};
    EXPECT_NE(load_error("badkey", doc, false).find("has no parameter \"nz\""), std::string::npos);
    doc["matrices"][1]["quick_params"] = 4;
    EXPECT_NE(load_error("notobject", doc, false).find("\"quick_params\" must be a JSON object"),
              std::string::npos);
    json file = {{"name", "file"},
                 {"matrices",
                  {{{"name", "f"}, {"file", "/nonexistent.mtx"}, {"quick_params", {{"n", 1}}}}}}};
    EXPECT_NE(load_error("fileentry", file, false).find("a file entry takes no \"quick_params\""),
              std::string::npos);
}

TEST(MatrixSetQuick, EveryShippedSetHasAQuickForm)
{
    const std::string dir = matrix_dir_or_empty();
    for (const std::string& name : shipped_matrix_sets()) {
        MatrixSet full, quick;
        try {
            full = load_matrix_set(name, dir);
            quick = load_quick(name, dir);
        } catch (const std::invalid_argument& e) {
            // Sets of files need the matrix directory; any other error is a bad manifest.
            const std::string msg = e.what();
            EXPECT_TRUE(dir.empty() && msg.find("matrix directory") != std::string::npos) << msg;
            continue;
        }
        ASSERT_FALSE(quick.matrices.empty()) << name;
        EXPECT_LE(quick.matrices.size(), full.matrices.size()) << name;
        EXPECT_LE(quick.matrices.size(), 2u) << name;  // each id's quick run is small
    }
}

TEST(MatrixSetQuick, ShippedQuickFormsShrinkTheLargeStandIns)
{
    const MatrixSet y = load_quick("yamazaki2014", "");
    ASSERT_EQ(y.matrices.size(), 1u);
    EXPECT_EQ(y.matrices[0].name, "lap2d_5pt_3984x398");  // fig13 runs on the first entry
    EXPECT_EQ(json::parse(y.matrices[0].spec).at("params"), (json{{"nx", 996}, {"ny", 100}}));

    const std::string dir = matrix_dir_or_empty();
    if (dir.empty()) GTEST_SKIP() << "KBENCH_MATRIX_DIR is not set or not a directory";
    for (const char* set : {"zianekhodja2014-band", "zianekhodja2014-fiveband"}) {
        const MatrixSet q = load_quick(set, dir);
        ASSERT_EQ(q.matrices.size(), 1u) << set;
        EXPECT_EQ(json::parse(q.matrices[0].spec).at("params").at("target_rows"), 500000) << set;
    }
    EXPECT_EQ(names_of(load_quick("anzt2015", dir)),
              (std::vector<std::string>{"fv1", "fv1_rep2M"}));
    EXPECT_EQ(names_of(load_quick("peers", dir)), (std::vector<std::string>{"fs_541_1"}));
}

}  // namespace
}  // namespace kbench
