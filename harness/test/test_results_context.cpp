// "Same results but for the run context" (harness/core/results_json.hpp): what counts as run
// context, and keep_or_write_results keeping a stored file byte-for-byte when only its context
// differs.
#include "harness/core/results_json.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

namespace kh = kbench::harness;
using nlohmann::json;
using pointer = nlohmann::json::json_pointer;

namespace {

/// A model-only results document as a study writes it, with the given run context values.
json document(const std::string& date, const std::string& sha, double seconds)
{
    return {{"context",
             {{"date", date},
              {"host_name", "host-" + sha},
              {"executable", "/somewhere/" + sha + "/kbench"},
              {"num_cpus", 2},
              {"load_avg", {0.5, 0.25}},
              {"kbench_schema_version", 1},
              {"kbench",
               {{"schema_version", 1},
                {"id", "study/fig1"},
                {"argv", {"kbench", "reproduce", "study/fig1"}},
                {"git", {{"sha", sha}, {"dirty", false}}},
                {"run_seconds", {{"total", seconds}}},
                {"cache_mode", "hot"},
                {"matrix_set",
                 {{"name", "set"}, {"manifest", "/" + sha + "/set.json"}, {"matrix_dir", ""}}},
                {"matrices", {{"m", {{"stats", {{"nnz", 10}}}}}}},
                {"model", {{"s_max", 20}}}}}}},
            {"benchmarks", {{{"name", "a"}, {"ratio", {0.25, 0.5}}}}}};
}

std::string read(const std::string& path)
{
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

class KeepOrWrite : public ::testing::Test {
protected:
    void SetUp() override
    {
        dir_ = std::filesystem::temp_directory_path() /
               ("kbench_results_context_" + std::to_string(::getpid()));
        std::filesystem::remove_all(dir_);
        file_ = (dir_ / "model" / "study" / "fig1" / "results.json").string();
    }
    void TearDown() override { std::filesystem::remove_all(dir_); }

    std::filesystem::path dir_;
    std::string file_;
};

}  // namespace

TEST(RunContext, GoogleBenchmarkContextAndKbenchRunFieldsOnly)
{
    for (const char* p : {"/context/date", "/context/host_name", "/context/caches/0/size",
                          "/context/library_build_type", "/context/kbench/argv",
                          "/context/kbench/git/sha", "/context/kbench/gpu",
                          "/context/kbench/machine", "/context/kbench/run_seconds/total",
                          "/context/kbench/matrix_set/matrix_dir",
                          "/context/kbench/matrix_set/manifest"})
        EXPECT_TRUE(kh::is_run_context(pointer(p))) << p;
    for (const char* p : {"", "/context", "/context/kbench", "/context/kbench_schema_version",
                          "/context/kbench/id", "/context/kbench/schema_version",
                          "/context/kbench/matrix_set", "/context/kbench/matrix_set/name",
                          "/context/kbench/matrices/m/stats", "/context/kbench/model",
                          "/context/kbench/cache_mode", "/benchmarks/0/ratio", "/date"})
        EXPECT_FALSE(kh::is_run_context(pointer(p))) << p;
}

TEST(RunContext, WithoutRunContextKeepsTheResults)
{
    const json stripped = kh::without_run_context(document("2026-01-01", "abc", 1.5));
    const json expected = {
        {"context",
         {{"kbench_schema_version", 1},
          {"kbench",
           {{"schema_version", 1},
            {"id", "study/fig1"},
            {"cache_mode", "hot"},
            {"matrix_set", {{"name", "set"}}},
            {"matrices", {{"m", {{"stats", {{"nnz", 10}}}}}}},
            {"model", {{"s_max", 20}}}}}}},
        {"benchmarks", {{{"name", "a"}, {"ratio", {0.25, 0.5}}}}}};
    EXPECT_EQ(stripped, expected);
    EXPECT_EQ(kh::without_run_context(json::array({1, 2})), json::array({1, 2}));
}

TEST(RunContext, SameButForContext)
{
    const json a = document("2026-01-01", "abc", 1.5);
    EXPECT_TRUE(kh::same_results_but_for_context(a, document("2027-02-02", "def", 9.0)));
    json b = a;
    b["context"]["kbench"]["gpu"] = {{"name", "NVIDIA H200"}};  // run on a GPU machine
    b["context"]["kbench"]["git"]["dirty"] = true;
    EXPECT_TRUE(kh::same_results_but_for_context(a, b));
    // Results: a value, the id, a parameter, a matrix, an added or removed entry.
    for (const char* p : {"/benchmarks/0/ratio/1", "/context/kbench/id",
                          "/context/kbench/model/s_max", "/context/kbench/matrices/m/stats/nnz",
                          "/context/kbench/matrix_set/name", "/context/kbench_schema_version"}) {
        json c = a;
        c[pointer(p)] = 7;
        EXPECT_FALSE(kh::same_results_but_for_context(a, c)) << p;
    }
    json d = a;
    d["benchmarks"].push_back({{"name", "b"}});
    EXPECT_FALSE(kh::same_results_but_for_context(a, d));
    // Numbers compare by value: an integer read back equals the same double.
    json e = a;
    e["benchmarks"][0]["ratio"] = {0.25, 0.5};
    e["context"]["kbench"]["model"]["s_max"] = 20.0;
    EXPECT_TRUE(kh::same_results_but_for_context(a, e));
}

TEST_F(KeepOrWrite, WritesWhenMissingKeepsBytesWhenOnlyContextDiffers)
{
    const json first = document("2026-01-01", "abc", 1.5);
    EXPECT_EQ(kh::keep_or_write_results(first, file_), kh::StoreOutcome::written);
    const std::string stored = read(file_);
    EXPECT_EQ(stored, first.dump(2) + "\n");
    // A later run elsewhere: new date, sha, host, timing; same results. The file stays as is.
    EXPECT_EQ(kh::keep_or_write_results(document("2027-02-02", "def", 9.0), file_),
              kh::StoreOutcome::kept);
    EXPECT_EQ(read(file_), stored);
    // Changed results: overwritten.
    json changed = document("2027-02-02", "def", 9.0);
    changed["benchmarks"][0]["ratio"][1] = 0.75;
    EXPECT_EQ(kh::keep_or_write_results(changed, file_), kh::StoreOutcome::written);
    EXPECT_EQ(read(file_), changed.dump(2) + "\n");
}

TEST_F(KeepOrWrite, OverwritesAFileThatIsNotJson)
{
    std::filesystem::create_directories(std::filesystem::path(file_).parent_path());
    std::ofstream(file_) << "{ not json";
    const json doc = document("2026-01-01", "abc", 1.5);
    EXPECT_EQ(kh::keep_or_write_results(doc, file_), kh::StoreOutcome::written);
    EXPECT_EQ(read(file_), doc.dump(2) + "\n");
}

// `kbench reproduce --resume` keeps an id's stored results only when they were done at this
// commit, from a clean tree, on this GPU kind (and as a dry run only for a dry run).
TEST(DoneAt, OnlyResultsOfThisCleanCommitOnThisGpu)
{
    const std::string sha = "0123456789abcdef0123456789abcdef01234567";
    const kh::GitInfo head{sha, false};
    json doc = document("2026-01-01", sha, 1.5);
    doc["context"]["kbench"]["gpu"] = {{"name", "NVIDIA H200"}};
    EXPECT_TRUE(kh::done_at(doc, head, "NVIDIA H200", 0));
    EXPECT_TRUE(kh::done_at(doc, head, "", 0));  // an id that needs no GPU: any machine
    EXPECT_FALSE(kh::done_at(doc, head, "NVIDIA H100 80GB HBM3", 0));
    EXPECT_FALSE(kh::done_at(doc, head, "NVIDIA H200", 2));  // a dry run wanted, a real one stored
    EXPECT_FALSE(kh::done_at(doc, kh::GitInfo{sha, true}, "NVIDIA H200", 0));  // tree dirty now
    EXPECT_FALSE(kh::done_at(doc, kh::GitInfo{"unknown", false}, "", 0));
    EXPECT_FALSE(kh::done_at(doc, kh::GitInfo{"89abcdef" + sha.substr(8), false}, "", 0));

    json dirty = doc;
    dirty["context"]["kbench"]["git"]["dirty"] = true;  // written from uncommitted changes
    EXPECT_FALSE(kh::done_at(dirty, head, "NVIDIA H200", 0));
    json dry = doc;
    dry["context"]["kbench"]["shared_gpus"] = 2;
    EXPECT_TRUE(kh::done_at(dry, head, "NVIDIA H200", 2));
    EXPECT_FALSE(kh::done_at(dry, head, "NVIDIA H200", 0));
    json no_gpu = doc;
    no_gpu["context"]["kbench"].erase("gpu");
    EXPECT_FALSE(kh::done_at(no_gpu, head, "NVIDIA H200", 0));
    for (const json& bad : {json(), json("x"), json::object(), json{{"context", 1}},
                            json{{"context", {{"kbench", {{"git", "abc"}}}}}}})
        EXPECT_FALSE(kh::done_at(bad, head, "", 0)) << bad.dump();
}
