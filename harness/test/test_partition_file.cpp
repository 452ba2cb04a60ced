// The partition cache's file (harness/core/partition_file.hpp): parts and seconds come back as
// written, one byte per part below 256 and four above, compressed; anything that is not a whole
// file of this format reads as "no cache".
#include "harness/core/partition_file.hpp"
#include "harness/mpi/mpi_launch.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <stdexcept>

namespace kbench::harness {
namespace {

namespace fs = std::filesystem;

std::vector<int> random_parts(std::size_t n, int parts, unsigned seed)
{
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> pick(0, parts - 1);
    std::vector<int> p(n);
    for (auto& x : p) x = pick(rng);
    return p;
}

TEST(PartitionFile, RoundTripsOneAndFourBytePartsAndAnEmptyRank)
{
    ScratchDir d;
    for (const int nparts : {1, 4, 255, 256, 100000}) {
        const std::string file = (d.path / ("p" + std::to_string(nparts))).string();
        const auto parts = random_parts(10007, nparts, 7u + static_cast<unsigned>(nparts));
        write_partition_file(file, {83.5, "node7, 4 ranks on 64 hardware threads", parts});
        PartitionRecord back;
        ASSERT_TRUE(read_partition_file(file, back)) << nparts;
        EXPECT_EQ(back.seconds, 83.5);
        EXPECT_EQ(back.made_on, "node7, 4 ranks on 64 hardware threads");
        EXPECT_EQ(back.parts, parts);
        EXPECT_FALSE(fs::exists(file + ".partial"));
    }
    const std::string empty = (d.path / "empty").string();
    write_partition_file(empty, {1.0, "", {}});
    PartitionRecord back{0.0, "x", {3}};
    ASSERT_TRUE(read_partition_file(empty, back));
    EXPECT_TRUE(back.parts.empty());
    EXPECT_TRUE(back.made_on.empty());
}

TEST(PartitionFile, BlocksOfFewPartsTakeFarLessThanFourBytesARow)
{
    // Contiguous runs, as a partition of a banded matrix has: far below one byte per row.
    ScratchDir d;
    std::vector<int> parts(1 << 20);
    for (std::size_t i = 0; i < parts.size(); ++i) parts[i] = static_cast<int>(i * 4 / parts.size());
    const std::string file = (d.path / "blocks").string();
    write_partition_file(file, {0.0, partition_made_on(4), parts});
    EXPECT_LT(fs::file_size(file), parts.size() / 16);
}

TEST(PartitionFile, MissingTruncatedForeignOrCorruptFilesReadAsNoCache)
{
    ScratchDir d;
    PartitionRecord record{5.0, "here", {1, 2}};
    EXPECT_FALSE(read_partition_file((d.path / "missing").string(), record));
    const std::string file = (d.path / "p").string();
    write_partition_file(file, {2.0, "there", random_parts(5000, 4, 1)});
    const auto size = fs::file_size(file);
    const std::string cut = (d.path / "cut").string();
    fs::copy_file(file, cut);
    fs::resize_file(cut, size - 10);
    EXPECT_FALSE(read_partition_file(cut, record));
    {
        std::ofstream old((d.path / "old").string(), std::ios::binary);  // the format before
        const double s = 1.0;
        const std::int64_t n = 2;
        const int p[2] = {0, 1};
        old.write(reinterpret_cast<const char*>(&s), sizeof(s));
        old.write(reinterpret_cast<const char*>(&n), sizeof(n));
        old.write(reinterpret_cast<const char*>(p), sizeof(p));
    }
    EXPECT_FALSE(read_partition_file((d.path / "old").string(), record));
    {
        std::fstream f(file, std::ios::binary | std::ios::in | std::ios::out);
        f.seekp(static_cast<std::streamoff>(size) - 5);
        f.write("XXXXX", 5);  // inside the compressed stream
    }
    EXPECT_FALSE(read_partition_file(file, record));
    EXPECT_EQ(record.seconds, 5);  // untouched
    EXPECT_EQ(record.made_on, "here");
    EXPECT_EQ(record.parts, (std::vector<int>{1, 2}));
    EXPECT_THROW(write_partition_file(file, {0.0, "", {0, -1}}), std::invalid_argument);
}

TEST(PartitionFile, CacheNameDependsOnTheFilesNameAndSizeNotItsDirectory)
{
    ScratchDir d;
    fs::create_directories(d.path / "a");
    fs::create_directories(d.path / "b");
    for (const char* dir : {"a", "b"}) std::ofstream(d.path / dir / "m.mtx") << "12345";
    MatrixEntry e;
    e.name = "m_band";
    e.source = "replicate";
    e.file = (d.path / "a" / "m.mtx").string();
    e.study = R"({"x": 1})";
    const std::string name = partition_cache_name(e, 0);
    EXPECT_EQ(name.rfind("m_band-", 0), 0u) << name;
    MatrixEntry moved = e;
    moved.file = (d.path / "b" / "m.mtx").string();
    EXPECT_EQ(partition_cache_name(moved, 0), name);
    EXPECT_NE(partition_cache_name(e, 5000000), name);
    std::ofstream(d.path / "b" / "m.mtx") << "123456";  // another matrix of the same name
    EXPECT_NE(partition_cache_name(moved, 0), name);
    MatrixEntry other_spec = e;
    other_spec.spec = R"({"x": 2})";
    EXPECT_NE(partition_cache_name(other_spec, 0), name);
}

}  // namespace
}  // namespace kbench::harness
