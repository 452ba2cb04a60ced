// The partition cache's file format; see partition_file.hpp.
#include "harness/core/partition_file.hpp"

#include "harness/core/resources.hpp"

#include <fmt/format.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <stdexcept>
#include <thread>

namespace kbench::harness {
namespace {

// Layout: magic (8 bytes), seconds (double), made_on length (int64) and bytes, rows (int64),
// bytes per part (1 or 4, int64), compressed bytes (int64), then the zlib stream of
// rows x bytes-per-part values in this machine's byte order.
constexpr char magic[8] = {'K', 'B', 'P', 'A', 'R', 'T', '3', '\0'};
constexpr std::int64_t max_made_on = 4096;

template <typename T>
bool read_value(std::istream& in, T& v)
{
    return static_cast<bool>(in.read(reinterpret_cast<char*>(&v), sizeof(T)));
}

template <typename T>
void write_value(std::ostream& out, const T& v)
{
    out.write(reinterpret_cast<const char*>(&v), sizeof(T));
}

}  // namespace

std::string partition_made_on(int ranks)
{
    char host[256] = {};
    if (gethostname(host, sizeof(host) - 1) != 0) host[0] = '\0';
    return fmt::format("{}, {} ranks on {} hardware threads", *host ? host : "unknown host", ranks,
                       std::thread::hardware_concurrency());
}

std::string partition_cache_name(const MatrixEntry& entry, long long rows_per_rank)
{
    std::string file;
    if (!entry.file.empty()) {
        std::error_code ec;
        const auto size = std::filesystem::file_size(entry.file, ec);
        file = fmt::format("{}:{}", std::filesystem::path(entry.file).filename().string(),
                           ec ? 0 : size);
    }
    const std::size_t key = std::hash<std::string>{}(
        fmt::format("{}|{}|{}|zoltan-phg-3", entry.spec, file, rows_per_rank));
    return fmt::format("{}-{:016x}", entry.name, key);
}

void write_partition_file(const std::string& file, const PartitionRecord& record)
{
    const std::vector<int>& parts = record.parts;
    int max_part = 0;
    for (const int p : parts) {
        if (p < 0)
            throw std::invalid_argument("write_partition_file: part " + std::to_string(p) +
                                        ", expected >= 0");
        max_part = std::max(max_part, p);
    }
    const std::int64_t width = max_part < 256 ? 1 : 4;
    std::vector<unsigned char> raw(parts.size() * static_cast<std::size_t>(width));
    if (width == 1)
        std::transform(parts.begin(), parts.end(), raw.begin(),
                       [](int p) { return static_cast<unsigned char>(p); });
    else if (!parts.empty())
        std::memcpy(raw.data(), parts.data(), raw.size());
    uLongf packed_size = compressBound(static_cast<uLong>(raw.size()));
    std::vector<unsigned char> packed(packed_size);
    if (compress2(packed.data(), &packed_size, raw.data(), static_cast<uLong>(raw.size()),
                  Z_BEST_SPEED) != Z_OK)
        throw std::runtime_error("partition cache: cannot compress the parts for " + file);

    const std::string partial = file + ".partial";
    {
        std::ofstream out(partial, std::ios::binary);
        out.write(magic, sizeof(magic));
        write_value(out, record.seconds);
        const std::string made_on = record.made_on.substr(0, max_made_on);
        write_value(out, static_cast<std::int64_t>(made_on.size()));
        out.write(made_on.data(), static_cast<std::streamsize>(made_on.size()));
        write_value(out, static_cast<std::int64_t>(parts.size()));
        write_value(out, width);
        write_value(out, static_cast<std::int64_t>(packed_size));
        out.write(reinterpret_cast<const char*>(packed.data()),
                  static_cast<std::streamsize>(packed_size));
        if (!out) throw std::runtime_error("partition cache: cannot write " + partial);
    }
    if (std::rename(partial.c_str(), file.c_str()) != 0)
        throw std::runtime_error("partition cache: cannot rename " + partial + " to " + file);
}

bool read_partition_file(const std::string& file, PartitionRecord& record)
{
    std::ifstream in(file, std::ios::binary);
    char head[sizeof(magic)] = {};
    double s = 0;
    std::int64_t made_on_size = 0, rows = 0, width = 0, packed_size = 0;
    if (!in.read(head, sizeof(head)) || std::memcmp(head, magic, sizeof(magic)) != 0 ||
        !read_value(in, s) || !read_value(in, made_on_size) || made_on_size < 0 ||
        made_on_size > max_made_on)
        return false;
    std::string made_on(static_cast<std::size_t>(made_on_size), '\0');
    if (!in.read(made_on.data(), made_on_size) || !read_value(in, rows) ||
        !read_value(in, width) ||
        !read_value(in, packed_size) || rows < 0 || (width != 1 && width != 4) ||
        packed_size < 0)
        return false;
    std::vector<unsigned char> packed(static_cast<std::size_t>(packed_size));
    if (!in.read(reinterpret_cast<char*>(packed.data()), packed_size)) return false;
    std::vector<unsigned char> raw(static_cast<std::size_t>(rows * width));
    uLongf raw_size = static_cast<uLongf>(raw.size());
    if (uncompress(raw.data(), &raw_size, packed.data(), static_cast<uLong>(packed.size())) !=
            Z_OK ||
        raw_size != raw.size())
        return false;
    std::vector<int> out(static_cast<std::size_t>(rows));
    if (width == 1)
        std::copy(raw.begin(), raw.end(), out.begin());
    else if (!out.empty())
        std::memcpy(out.data(), raw.data(), raw.size());
    record.seconds = s;
    record.made_on = std::move(made_on);
    record.parts = std::move(out);
    return true;
}

std::string partition_cache_prefix(const MatrixEntry& entry, long long rows_per_rank,
                                   const std::filesystem::path& fallback)
{
    const std::filesystem::path cache = cache_dir();
    const std::filesystem::path dir = cache.empty() ? fallback : cache / "partitions";
    if (dir.empty()) return {};
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    return (dir / partition_cache_name(entry, rows_per_rank)).string();
}

}  // namespace kbench::harness
