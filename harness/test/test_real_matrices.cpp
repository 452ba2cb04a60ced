// `kbench reproduce --real`: a set entry naming a SuiteSparse matrix uses it where it is present
// in the matrix directory or <cache>/matrices, its stand-in otherwise, and the results' context
// says which (harness/core/study_context.hpp).
#include "harness/core/study_context.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace kbench::harness {
namespace {

namespace fs = std::filesystem;

struct RealMatrices : ::testing::Test {
    fs::path root = fs::temp_directory_path() / "kbench_test_real_matrices";
    fs::path mdir = root / "matrices", cache = root / "cache", manifest = root / "set.json";
    std::string old_cache;
    bool had_cache = false;

    void SetUp() override
    {
        fs::remove_all(root);
        fs::create_directories(mdir);
        fs::create_directories(cache / "matrices");
        if (const char* c = std::getenv("KBENCH_CACHE_DIR")) old_cache = c, had_cache = true;
        setenv("KBENCH_CACHE_DIR", cache.c_str(), 1);
        // "in_dir" is in the matrix directory, "in_cache" in <cache>/matrices, "absent" nowhere;
        // the stand-in file of "in_dir" does not exist (not needed when the real one is used).
        std::ofstream(manifest) << R"({"name": "real_test", "matrices": [
          {"name": "in_dir", "file": "no_such_standin.mtx", "suitesparse": "Test/tiny"},
          {"name": "in_cache", "generator": "trefethen", "params": {"n": 7},
           "suitesparse": "Test/cached"},
          {"name": "absent", "generator": "trefethen", "params": {"n": 5},
           "suitesparse": "Test/absent"},
          {"name": "plain", "generator": "trefethen", "params": {"n": 4}}]})";
        const char* tiny = "%%MatrixMarket matrix coordinate real general\n3 3 3\n1 1 1\n2 2 2\n3 3 3\n";
        std::ofstream(mdir / "tiny.mtx") << tiny;
        std::ofstream(cache / "matrices" / "cached.mtx") << tiny;
    }
    void TearDown() override
    {
        if (had_cache) setenv("KBENCH_CACHE_DIR", old_cache.c_str(), 1);
        else unsetenv("KBENCH_CACHE_DIR");
        fs::remove_all(root);
    }
};

TEST_F(RealMatrices, RealUsesPresentMatricesAndSaysSo)
{
    const MatrixSource source{manifest.string(), mdir.string(), true};
    EXPECT_EQ(real_matrix_dirs(mdir.string()),
              (std::vector<std::string>{mdir.string(), (cache / "matrices").string()}));
    const MatrixSet set = load_source_set(source);
    ASSERT_EQ(set.matrices.size(), 4u);
    const SellpParams sellp{8, 1, 1, 256};
    const std::string expected_used[] = {"suitesparse", "suitesparse", "stand-in", ""};
    const index_type expected_rows[] = {3, 3, 5, 4};
    for (std::size_t k = 0; k < 4; ++k) {
        const MatrixEntry& e = set.matrices[k];
        const Csr<double> a = build_matrix(e);
        EXPECT_EQ(a.num_rows, expected_rows[k]) << e.name;
        const nlohmann::json m = matrix_context(e, a, sellp);
        if (expected_used[k].empty()) {
            EXPECT_FALSE(m.contains("matrix_used")) << m.dump();
            EXPECT_FALSE(m.contains("suitesparse")) << m.dump();
        } else {
            EXPECT_EQ(m.at("matrix_used"), expected_used[k]) << e.name;
        }
    }
    EXPECT_EQ(set.matrices[0].file, (mdir / "tiny.mtx").string());
    EXPECT_EQ(set.matrices[1].file, (cache / "matrices" / "cached.mtx").string());
    const nlohmann::json spec = nlohmann::json::parse(set.matrices[0].spec);
    EXPECT_EQ(spec.at("suitesparse"), "Test/tiny");
    EXPECT_EQ(spec.at("file"), (mdir / "tiny.mtx").string());
    EXPECT_EQ(matrix_context(set.matrices[2], build_matrix(set.matrices[2]), sellp)
                  .at("suitesparse"),
              "Test/absent");
    EXPECT_TRUE(kbench_context("x", source, set, nullptr, false)["matrix_set"]["real"]);
}

TEST_F(RealMatrices, WithoutRealTheStandInsAreUsed)
{
    fs::remove(manifest);
    std::ofstream(manifest) << R"({"name": "real_test", "matrices": [
      {"name": "in_cache", "generator": "trefethen", "params": {"n": 7},
       "suitesparse": "Test/cached"}]})";
    const MatrixSet set = load_source_set(MatrixSource{manifest.string(), mdir.string(), false});
    ASSERT_EQ(set.matrices.size(), 1u);
    const MatrixEntry& e = set.matrices[0];
    EXPECT_FALSE(e.real);
    EXPECT_EQ(e.source, "trefethen");
    EXPECT_EQ(e.suitesparse, "Test/cached");
    EXPECT_FALSE(nlohmann::json::parse(e.spec).contains("suitesparse"));  // the stand-in's spec
    const Csr<double> a = build_matrix(e);
    EXPECT_EQ(a.num_rows, 7);
    EXPECT_EQ(matrix_context(e, a, SellpParams{8, 1, 1, 256}).at("matrix_used"), "stand-in");
}

TEST_F(RealMatrices, StandInFileStillNeededWhenTheRealOneIsAbsent)
{
    fs::remove(mdir / "tiny.mtx");
    try {
        load_source_set(MatrixSource{manifest.string(), mdir.string(), true});
        FAIL() << "expected std::invalid_argument";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("no_such_standin.mtx' does not exist"),
                  std::string::npos)
            << e.what();
    }
}

}  // namespace
}  // namespace kbench::harness
