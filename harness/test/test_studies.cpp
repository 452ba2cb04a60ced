// The study registry (with the studies of harness/studies/CMakeLists.txt linked in), the
// catalogue, the run order and the needs check. No GPU needed.
#include "harness/studies/zianekhodja2014/bench_dist_gmres.hpp"
#include "harness/studies/li2012/bench_spike.hpp"
#include "harness/studies/yamazaki2014/ca_gmres_rows.hpp"
#include "harness/core/catalogue.hpp"
#include "harness/core/study.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <regex>
#include <set>
#include <stdexcept>

namespace kh = kbench::harness;

namespace {

kh::Reproduction fake(const std::string& id, const std::string& derive_from = "")
{
    kh::Reproduction r;
    r.id = id;
    r.description = "fake " + id;
    r.derive_from = derive_from;
    r.run = [](const kh::StudyRun&) { return nlohmann::json::object(); };
    return r;
}

std::string message_of(const std::string& id)
{
    try {
        kh::find_reproduction(id);
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "no exception";
}

bool mentions(const std::vector<std::string>& problems, const std::string& text)
{
    for (const auto& p : problems) {
        if (p.find(text) != std::string::npos) return true;
    }
    return false;
}

}  // namespace

TEST(Catalogue, HoldsEveryIdOfFiguresMdInOrder)
{
    // The papers' ids (a year in the study name) first, in FIGURES.md order; then kbench's own.
    const std::regex paper_id(R"(^[a-z]+[0-9]{4}/)");
    std::vector<std::string> ids;
    for (const auto& id : kh::catalogue_ids())
        if (std::regex_search(id, paper_id)) ids.push_back(id);
    ASSERT_EQ(ids.size(), 33u);
    EXPECT_EQ(ids.front(), "anzt2015/table2");
    EXPECT_EQ(ids.back(), "li2012/mixed");
    const auto all = kh::catalogue_ids();  // kbench's own ids after the papers'
    ASSERT_GE(all.size(), 2u);
    EXPECT_EQ(all[all.size() - 2], "peers/gmres");
    EXPECT_EQ(all.back(), "peers/bicgstab");
    for (const auto& e : kh::catalogue()) EXPECT_FALSE(e.title.empty()) << e.id;
    // Against the catalogue itself when it is next to the source tree.
    std::ifstream md(std::string(KBENCH_SOURCE_DIR) + "/../shared/FIGURES.md");
    if (!md) return;
    std::vector<std::string> listed;
    const std::regex row(R"(^\| ([a-z]+[0-9]{4}/[a-z0-9]+) \|)");
    std::smatch m;
    for (std::string line; std::getline(md, line);) {
        if (std::regex_search(line, m, row)) listed.push_back(m[1]);
    }
    EXPECT_EQ(listed, ids);
}

TEST(Catalogue, ParseRejectsMalformedDocuments)
{
    EXPECT_EQ(kh::parse_catalogue(R"({"items": [{"id": "a/b", "title": "t"}]})").size(), 1u);
    EXPECT_THROW(kh::parse_catalogue("{"), std::invalid_argument);
    EXPECT_THROW(kh::parse_catalogue(R"({"items": [{"id": "a/b"}]})"), std::invalid_argument);
    EXPECT_THROW(kh::parse_catalogue(R"({"items": [{"id": "ab", "title": "t"}]})"),
                 std::invalid_argument);
    EXPECT_THROW(kh::parse_catalogue(R"({"items": [{"id": "a/b", "title": ""}]})"),
                 std::invalid_argument);
    EXPECT_THROW(kh::parse_catalogue(
                     R"({"items": [{"id": "a/b", "title": "t"}, {"id": "a/b", "title": "u"}]})"),
                 std::invalid_argument);
}

TEST(Registry, RegisteredReproductionsAreConsistentWithTheCatalogue)
{
    ASSERT_FALSE(kh::reproductions().empty());
    const auto problems = kh::registry_problems(kh::reproductions(), kh::catalogue_ids());
    for (const auto& p : problems) ADD_FAILURE() << p;
    std::size_t last = 0;
    for (const auto& r : kh::reproductions()) {  // unique, in catalogue order
        const std::size_t index = kh::catalogue_index(r.id);
        EXPECT_LT(index, kh::catalogue().size()) << r.id;
        if (&r != &kh::reproductions().front()) {
            EXPECT_GT(index, last) << r.id;
        }
        last = index;
    }
}

TEST(Registry, ProblemsNameEachMistake)
{
    auto no_runner = fake("s/norun");
    no_runner.run = nullptr;
    auto negative = fake("s/neg");
    negative.needs.gpus = -1;
    const std::vector<kh::Reproduction> registry{
        fake("s/a"), fake("s/a"), fake("s/uncatalogued"), fake("s/orphan", "s/missing"),
        fake("s/x", "s/y"), fake("s/y", "s/x"), fake("bad"), no_runner, negative};
    const std::vector<std::string> catalogue{"s/a", "s/orphan", "s/x", "s/y", "bad",
                                             "s/norun", "s/neg"};
    const auto p = kh::registry_problems(registry, catalogue);
    EXPECT_TRUE(mentions(p, "'s/a' is registered more than once"));
    EXPECT_TRUE(mentions(p, "'s/uncatalogued' is not in harness/studies/catalogue.json"));
    EXPECT_TRUE(mentions(p, "'s/orphan' derives from 's/missing', which is not registered"));
    EXPECT_TRUE(mentions(p, "'s/x' is on a derive_from cycle"));
    EXPECT_TRUE(mentions(p, "'s/y' is on a derive_from cycle"));
    EXPECT_TRUE(mentions(p, "'bad' is not of the form <study>/<item>"));
    EXPECT_TRUE(mentions(p, "'s/norun' has no runner"));
    EXPECT_TRUE(mentions(p, "'s/neg' needs a negative number of GPUs"));
    EXPECT_TRUE(kh::registry_problems({fake("s/a"), fake("s/b", "s/a")}, {"s/a", "s/b"}).empty());
}

TEST(Registry, FindListsValidIdsForUnknownIds)
{
    EXPECT_EQ(kh::find_reproduction("anzt2015/table3").id, "anzt2015/table3");
    EXPECT_EQ(kh::find_reproduction("anzt2015/table2").derive_from, "anzt2015/table3");
    const std::string unknown = message_of("anzt2015/table9");
    EXPECT_NE(unknown.find("unknown reproduction id 'anzt2015/table9'"), std::string::npos);
    EXPECT_NE(unknown.find("valid ids: anzt2015/table2, anzt2015/table3, anzt2015/table1, "),
              std::string::npos);
    EXPECT_NE(unknown.find(", all)"), std::string::npos);
}

TEST(RunOrder, DeriveFromRunsFirst)
{
    const auto& all = kh::reproductions();
    using ids = std::vector<std::string>;
    EXPECT_EQ(kh::run_order({"anzt2015/table2", "anzt2015/table3"}, all),
              (ids{"anzt2015/table3", "anzt2015/table2"}));
    EXPECT_EQ(kh::run_order({"anzt2015/table2"}, all), ids{"anzt2015/table2"});
    ids every;
    for (const auto& r : all) every.push_back(r.id);
    const ids order = kh::run_order(every, all);
    EXPECT_EQ(std::set<std::string>(order.begin(), order.end()).size(), every.size());
    for (const auto& r : all) {  // every derive_from before the id deriving from it
        if (r.derive_from.empty()) continue;
        const auto at = [&](const std::string& id) { return std::find(order.begin(), order.end(), id); };
        EXPECT_LT(at(r.derive_from), at(r.id)) << r.id;
    }

    const std::vector<kh::Reproduction> chain{fake("s/c", "s/b"), fake("s/b", "s/a"), fake("s/a"),
                                              fake("s/d")};
    EXPECT_EQ(kh::run_order({"s/d", "s/c", "s/b", "s/a", "s/c"}, chain),
              (ids{"s/d", "s/a", "s/b", "s/c"}));
    // Only a selected derive_from orders: s/c derives from s/b, not from s/a.
    EXPECT_EQ(kh::run_order({"s/c", "s/a"}, chain), (ids{"s/c", "s/a"}));
    EXPECT_THROW(kh::run_order({"s/zz"}, chain), std::invalid_argument);
    const std::vector<kh::Reproduction> cycle{fake("s/x", "s/y"), fake("s/y", "s/x")};
    EXPECT_THROW(kh::run_order({"s/x", "s/y"}, cycle), std::logic_error);
}

TEST(Needs, UnmetNeedSaysWhy)
{
    kh::MachineFacts none;
    none.gpu_unavailable = "no usable CUDA device (test)";
    kh::MachineFacts two{"", 2, true, false};
    const kh::StudyNeeds gpu{1, false, false}, cpu{0, false, false}, four{4, false, false},
        ncu{1, true, false}, mpi{2, false, true};
    EXPECT_EQ(kh::unmet_need(gpu, none), "no usable CUDA device (test)");
    EXPECT_EQ(kh::unmet_need(cpu, none), "");
    EXPECT_EQ(kh::unmet_need(gpu, two), "");
    EXPECT_EQ(kh::unmet_need(four, two), "needs 4 GPUs, 2 present");
    EXPECT_EQ(kh::unmet_need(ncu, two), "");
    two.nsight_compute = false;
    EXPECT_EQ(kh::unmet_need(ncu, two), "needs Nsight Compute, no 'ncu' on PATH");
    EXPECT_EQ(kh::unmet_need(mpi, two),
              "needs MPI, kbench was built without it (install libopenmpi-dev and re-run CMake)");
    EXPECT_EQ(kh::describe_needs(gpu), "a GPU");
    EXPECT_EQ(kh::describe_needs(cpu), "no GPU");
    EXPECT_EQ(kh::describe_needs(ncu), "a GPU and Nsight Compute (ncu)");
    EXPECT_EQ(kh::describe_needs({4, true, true}), "4 GPUs, Nsight Compute (ncu) and MPI");
}

TEST(Anzt2015, Table2ReusesTable3ResultsWhenGiven)
{
    const nlohmann::json table3 = {
        {"benchmarks", {{{"name", "spmv/sellp/double/fv1"}}}},
        {"context", {{"kbench", {{"id", "anzt2015/table3"}, {"matrices", {{"fv1", {{"n", 9604}}}}}}}}}};
    kh::StudyRun run;
    run.id = "anzt2015/table2";
    run.derive_from_results = &table3;
    const nlohmann::json doc = kh::find_reproduction("anzt2015/table2").run(run);
    EXPECT_TRUE(doc.at("benchmarks").empty());
    EXPECT_EQ(doc["context"]["kbench"]["id"], "anzt2015/table2");
    EXPECT_EQ(doc["context"]["kbench"]["matrices"], table3["context"]["kbench"]["matrices"]);
}

TEST(Anzt2015, BicgstabIdsShareOneRun)
{
    EXPECT_EQ(kh::find_reproduction("anzt2015/table4").derive_from, "anzt2015/table5");
    EXPECT_EQ(kh::find_reproduction("anzt2015/fig11").derive_from, "anzt2015/table5");
    const nlohmann::json table5 = {
        {"benchmarks", {{{"kind", "prediction"}, {"matrix", "fv1"}}}},
        {"context", {{"kbench", {{"id", "anzt2015/table5"}}}}}};
    kh::StudyRun run;
    run.id = "anzt2015/fig11";
    run.derive_from_results = &table5;
    const nlohmann::json doc = kh::find_reproduction("anzt2015/fig11").run(run);
    EXPECT_EQ(doc["context"]["kbench"]["id"], "anzt2015/fig11");
    EXPECT_EQ(doc["benchmarks"], table5["benchmarks"]);
    EXPECT_TRUE(kh::find_reproduction("anzt2015/table1").needs.nsight_compute);
}

TEST(Li2012, EveryIdIsRegisteredOnOneGpuWithoutAMatrixSet)
{
    for (const char* id : {"li2012/table1", "li2012/table3", "li2012/fig4", "li2012/fig5",
                           "li2012/fig6", "li2012/mixed"}) {
        const kh::Reproduction& r = kh::find_reproduction(id);
        EXPECT_EQ(r.needs.gpus, 1) << id;
        EXPECT_FALSE(r.needs.nsight_compute) << id;
        EXPECT_EQ(r.default_set, "default") << id;
        EXPECT_TRUE(r.derive_from.empty()) << id;
        EXPECT_NE(r.description.find("uses no matrix set"), std::string::npos) << id;
    }
}

TEST(Li2012, RunnersRejectBadOptionsBeforeTouchingTheGpu)
{
    kh::StudyRun run;
    run.options.repetitions = 0;
    for (const char* id : {"li2012/table1", "li2012/table3", "li2012/fig4", "li2012/fig5",
                           "li2012/fig6", "li2012/mixed"}) {
        run.id = id;
        try {
            kh::find_reproduction(id).run(run);
            ADD_FAILURE() << id << ": no exception";
        } catch (const std::invalid_argument& e) {
            EXPECT_NE(std::string(e.what()).find("--repetitions must be >= 1, got 0"),
                      std::string::npos) << id << ": " << e.what();
        }
    }
    run.options.repetitions = 10;
    run.id = "li2012/table1";  // the scaling runner serves fig4 and fig5 only
    EXPECT_THROW(kh::run_spike_scaling_study(run), std::invalid_argument);
}

TEST(Li2012, IllTunedPsizeIsMin2048AndHalfN)
{
    EXPECT_EQ(kh::li2012::ill_tuned_psize(100000, 32), 2048);
    EXPECT_EQ(kh::li2012::ill_tuned_psize(4096, 32), 2048);
    EXPECT_EQ(kh::li2012::ill_tuned_psize(4000, 32), 2000);  // li2012's min(2048, N) > N/2
    EXPECT_EQ(kh::li2012::ill_tuned_psize(2000, 32), 1000);
    EXPECT_EQ(kh::li2012::ill_tuned_psize(128, 32), 64);
    EXPECT_THROW(kh::li2012::ill_tuned_psize(127, 32), std::invalid_argument);
}

TEST(Li2012, PsizeGridSpansTwoKToHalfN)
{
    using v = std::vector<kbench::index_type>;
    EXPECT_EQ(kh::li2012::psize_grid(2000, 32), (v{64, 96, 128, 192, 256, 384, 512, 768, 1000}));
    EXPECT_EQ(kh::li2012::psize_grid(400, 50), (v{100, 128, 192, 200}));
    const v big = kh::li2012::psize_grid(100000, 32);
    EXPECT_EQ(big.front(), 64);
    EXPECT_EQ(big.back(), 50000);
    EXPECT_TRUE(std::is_sorted(big.begin(), big.end()));
    EXPECT_NE(std::find(big.begin(), big.end(), 2048), big.end());
    EXPECT_EQ(big.size(), 21u);  // 64 .. 49152 (20 values) and 50000
    EXPECT_THROW(kh::li2012::psize_grid(100, 32), std::invalid_argument);
}

TEST(Li2012, BudgetSkipsWhatWouldExceedIt)
{
    EXPECT_FALSE(kh::li2012::budget_skip_reason(0.0, 100.0, 20.0, 45.0).empty());  // used up
    EXPECT_TRUE(kh::li2012::budget_skip_reason(0.0, 0.0, 20.0, 45.0).empty());  // unknown: run
    EXPECT_TRUE(kh::li2012::budget_skip_reason(19.0, 20.0, 20.0, 45.0).empty());
    EXPECT_EQ(kh::li2012::budget_skip_reason(21.0, 0.0, 20.0, 45.0),
              "predicted 21 s exceeds the point budget of 20 s");
    EXPECT_EQ(kh::li2012::budget_skip_reason(10.0, 40.0, 20.0, 45.0),
              "the series budget of 45 s would be exceeded (40 s used, 10 s predicted)");
}

TEST(Zianekhodja2014, DistCommandCarriesTheRunsOptions)
{
    kh::MatrixSource source;
    source.set = "zianekhodja2014-fiveband";
    source.matrix_dir = "/m";
    kh::DistRun r{"fv1_fiveband_8M", 4, "gpu", "nccl", "hypergraph", "bandwidth"};
    r.partition_cache = "/tmp/parts";
    r.detailed = false;
    using argv = std::vector<std::string>;
    EXPECT_EQ(kh::dist_command("mpiexec", "kbench", source, r, 3, "/tmp/x.json"),
              (argv{"mpiexec", "-n", "4", "kbench", "dist", "gmres", "--set",
                    "zianekhodja2014-fiveband", "--matrix", "fv1_fiveband_8M", "--device", "gpu",
                    "--transport", "nccl", "--partition", "hypergraph", "--scheme", "bandwidth",
                    "--restart", "16", "--tolerance", "1e-12", "--max-iterations", "500",
                    "--orth", "mgs", "--preconditioner", "jacobi", "--repetitions", "3",
                    "--json", "/tmp/x.json", "--matrix-dir", "/m", "--partition-cache",
                    "/tmp/parts", "--no-detailed"}));
    kh::DistRun weak{"w", 2, "cpu"};
    weak.rows_per_rank = 5000000;
    weak.write_solution = true;
    const argv a = kh::dist_command("mpiexec", "kbench", kh::MatrixSource{}, weak, 1, "o.json");
    EXPECT_NE(std::find(a.begin(), a.end(), "5000000"), a.end());
    EXPECT_EQ(a.back(), "o.json.x");
    EXPECT_EQ(std::find(a.begin(), a.end(), "--warmups"), a.end());  // the default, 1
    weak.warmups = 0;
    const argv b = kh::dist_command("mpiexec", "kbench", kh::MatrixSource{}, weak, 1, "o.json");
    EXPECT_EQ(argv(b.end() - 2, b.end()), (argv{"--warmups", "0"}));
}

TEST(Yamazaki2014, Fig14SetupComesFromTheSetEntry)
{
    kbench::MatrixEntry e;
    e.name = "lap";
    e.study = R"({"paper_matrix": "cant", "restart": 60, "steps": 15})";
    const kh::fig14::PaperSetup p = kh::fig14::paper_setup(e, "/sets/y.json");
    EXPECT_EQ(p.matrix, "cant");
    EXPECT_EQ(p.m, 60);
    EXPECT_EQ(p.s, 15);

    e.study = R"({"restart": 30, "steps": 5})";  // paper_matrix is optional
    EXPECT_EQ(kh::fig14::paper_setup(e, "/sets/y.json").matrix, "");

    auto error = [&](const std::string& study) {
        e.study = study;
        try {
            kh::fig14::paper_setup(e, "/sets/y.json");
        } catch (const std::invalid_argument& err) {
            return std::string(err.what());
        }
        return std::string("no error");
    };
    for (const std::string& study : {std::string(), std::string(R"({"restart": 30})"),
                                     std::string(R"({"restart": 0, "steps": 1})"),
                                     std::string(R"({"restart": 10, "steps": 20})"),
                                     std::string(R"({"restart": 30, "steps": "15"})")}) {
        const std::string msg = error(study);
        EXPECT_NE(msg.find("/sets/y.json: matrix 'lap': "), std::string::npos) << msg;
        EXPECT_NE(msg.find("\"study\": {\"restart\": m, \"steps\": s}"), std::string::npos) << msg;
    }
    EXPECT_NE(error("").find("no \"study\""), std::string::npos);
    EXPECT_NE(error(R"({"restart": 30})").find("has no \"steps\""), std::string::npos);
}

// A row's timed solves cover at least three full restart cycles: a solve to the tolerance that
// took fewer (the cant stand-in converges within its first cycle of m = 60) is timed in timing
// mode over 3m iterations; one that took 3m or more is timed as it ran.
TEST(Yamazaki2014, Fig14TimesAtLeastThreeFullCycles)
{
    namespace sv = kbench::solvers;
    EXPECT_EQ(kh::fig14::timed_iterations(41, 60), 180);
    EXPECT_EQ(kh::fig14::timed_iterations(179, 60), 180);
    EXPECT_EQ(kh::fig14::timed_iterations(180, 60), 0);
    EXPECT_EQ(kh::fig14::timed_iterations(300, 30), 0);
    EXPECT_THROW(kh::fig14::timed_iterations(10, 0), std::invalid_argument);
    const sv::GmresOptions g = kh::fig14::gmres_options(60, sv::ArnoldiOrth::cgs2, 180);
    EXPECT_TRUE(g.timing_mode);
    EXPECT_EQ(g.max_iterations, 180);
    const sv::GmresOptions to_tol = kh::fig14::gmres_options(60, sv::ArnoldiOrth::cgs2);
    EXPECT_FALSE(to_tol.timing_mode);
    EXPECT_EQ(to_tol.max_iterations, 60 * kh::fig14::restart_cap);
    const sv::CaGmresOptions c =
        kh::fig14::ca_options({15}, 60, sv::CaBorth::block, 180);
    EXPECT_TRUE(c.timing_mode);
    EXPECT_EQ(c.max_iterations, 180);
}

TEST(Yamazaki2014, ShippedSetGivesEveryFig14Setup)
{
    const kbench::MatrixSet set = kbench::load_matrix_set("yamazaki2014", "");
    ASSERT_FALSE(set.matrices.empty());
    std::vector<std::string> papers;
    for (const auto& entry : set.matrices) {
        const kh::fig14::PaperSetup p = kh::fig14::paper_setup(entry, set.manifest);
        EXPECT_EQ(entry.stands_for.rfind(p.matrix, 0), 0u) << entry.name;  // the same matrix
        papers.push_back(fmt::format("{} {} {}", p.matrix, p.m, p.s));
    }
    EXPECT_EQ(papers, (std::vector<std::string>{"G3_circuit 30 15", "cant 60 15",
                                                "dielFilterV2real 180 15"}));
}
