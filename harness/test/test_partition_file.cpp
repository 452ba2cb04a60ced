// The partition cache's file (harness/partition_file.hpp): parts and seconds come back as
// written, one byte per part below 256 and four above, compressed; anything that is not a whole
// file of this format reads as "no cache".
#include "harness/partition_file.hpp"
#include "harness/mpi_launch.hpp"

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
        write_partition_file(file, 83.5, parts);
        double seconds = 0;
        std::vector<int> back;
        ASSERT_TRUE(read_partition_file(file, seconds, back)) << nparts;
        EXPECT_EQ(seconds, 83.5);
        EXPECT_EQ(back, parts);
        EXPECT_FALSE(fs::exists(file + ".partial"));
    }
    const std::string empty = (d.path / "empty").string();
    write_partition_file(empty, 1.0, {});
    double seconds = 0;
    std::vector<int> back = {3};
    ASSERT_TRUE(read_partition_file(empty, seconds, back));
    EXPECT_TRUE(back.empty());
}

TEST(PartitionFile, BlocksOfFewPartsTakeFarLessThanFourBytesARow)
{
    // Contiguous runs, as a partition of a banded matrix has: far below one byte per row.
    ScratchDir d;
    std::vector<int> parts(1 << 20);
    for (std::size_t i = 0; i < parts.size(); ++i) parts[i] = static_cast<int>(i * 4 / parts.size());
    const std::string file = (d.path / "blocks").string();
    write_partition_file(file, 0.0, parts);
    EXPECT_LT(fs::file_size(file), parts.size() / 16);
}

TEST(PartitionFile, MissingTruncatedForeignOrCorruptFilesReadAsNoCache)
{
    ScratchDir d;
    double seconds = 5;
    std::vector<int> parts = {1, 2};
    EXPECT_FALSE(read_partition_file((d.path / "missing").string(), seconds, parts));
    const std::string file = (d.path / "p").string();
    write_partition_file(file, 2.0, random_parts(5000, 4, 1));
    const auto size = fs::file_size(file);
    const std::string cut = (d.path / "cut").string();
    fs::copy_file(file, cut);
    fs::resize_file(cut, size - 10);
    EXPECT_FALSE(read_partition_file(cut, seconds, parts));
    {
        std::ofstream old((d.path / "old").string(), std::ios::binary);  // the format before
        const double s = 1.0;
        const std::int64_t n = 2;
        const int p[2] = {0, 1};
        old.write(reinterpret_cast<const char*>(&s), sizeof(s));
        old.write(reinterpret_cast<const char*>(&n), sizeof(n));
        old.write(reinterpret_cast<const char*>(p), sizeof(p));
    }
    EXPECT_FALSE(read_partition_file((d.path / "old").string(), seconds, parts));
    {
        std::fstream f(file, std::ios::binary | std::ios::in | std::ios::out);
        f.seekp(static_cast<std::streamoff>(size) - 5);
        f.write("XXXXX", 5);  // inside the compressed stream
    }
    EXPECT_FALSE(read_partition_file(file, seconds, parts));
    EXPECT_EQ(seconds, 5);  // untouched
    EXPECT_EQ(parts, (std::vector<int>{1, 2}));
    EXPECT_THROW(write_partition_file(file, 0.0, {0, -1}), std::invalid_argument);
}

}  // namespace
}  // namespace kbench::harness
