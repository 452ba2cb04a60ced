// Building the distributed problem of a `kbench dist gmres` run; see dist_setup.hpp.
#include "harness/mpi/dist_setup.hpp"

#include "harness/core/partition_file.hpp"

#include "matrices/generators.hpp"
#include "matrices/mm_io.hpp"
#include "solvers/distributed/communicator.hpp"
#include "solvers/distributed/hypergraph_partition.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <stdexcept>

namespace kbench::harness {
namespace {

double since(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// The prefix "auto" stands for: the file the zianekhodja2014 runners use
/// (harness/core/partition_file.hpp partition_cache_prefix).
std::string partition_cache_auto(const MatrixEntry& entry, const DistSetupOptions& o)
{
    if (o.target_rows > 0)
        throw std::invalid_argument(
            "--partition-cache auto: not with --target-rows (the runners' caches are keyed by "
            "rows per rank; give a PREFIX instead)");
    const std::string prefix = partition_cache_prefix(entry, o.rows_per_rank);
    if (prefix.empty())
        throw std::runtime_error(
            "--partition-cache auto: no cache directory (set KBENCH_CACHE_DIR, XDG_CACHE_HOME "
            "or HOME)");
    return prefix;
}

/// This rank's natural block of a replicate entry, generated row range by row range.
dist::RowBlock<double> replicated_block(const dist::Communicator& comm, const MatrixEntry& entry,
                                        const DistSetupOptions& o)
{
    const auto spec = nlohmann::json::parse(entry.spec);
    const auto& params = spec.at("params");
    index_type target = params.at("target_rows").get<index_type>();
    if (o.target_rows > 0) target = o.target_rows;
    if (o.rows_per_rank > 0) {
        const std::int64_t t = static_cast<std::int64_t>(o.rows_per_rank) * comm.size();
        if (t > std::numeric_limits<index_type>::max())
            throw std::invalid_argument(fmt::format(
                "rows_per_rank: {} rows x {} ranks overflow the 32-bit index type",
                o.rows_per_rank, comm.size()));
        target = static_cast<index_type>(t);
    }
    const std::string layout_name = params.value("layout", std::string("diagonal"));
    const ReplicationLayout layout =
        layout_name == "five_band" ? ReplicationLayout::five_band : ReplicationLayout::diagonal;
    const Csr<double> seed = read_matrix_market<double>(entry.file, /*require_square=*/true);
    const index_type n = replicated_rows(seed, target);
    const dist::RowRange range = dist::natural_block(n, comm.size(), comm.rank());
    dist::RowBlock<double> block;
    block.rows = replicate_rows(seed, target, layout, range.begin, range.end);
    block.row_begin = range.begin;
    block.global_rows = n;
    block.original.resize(static_cast<std::size_t>(range.end - range.begin));
    for (std::size_t i = 0; i < block.original.size(); ++i)
        block.original[i] = range.begin + static_cast<index_type>(i);
    return block;
}

}  // namespace

DistProblem build_dist_problem(const dist::Communicator& comm, const MatrixEntry& entry,
                               const DistSetupOptions& o)
{
    if (o.partition != "natural" && o.partition != "hypergraph")
        throw std::invalid_argument(fmt::format(
            "partition: '{}', expected 'natural' or 'hypergraph'", o.partition));
    const bool replicated = entry.source == "replicate";
    if (!replicated && (o.target_rows > 0 || o.rows_per_rank > 0))
        throw std::invalid_argument(fmt::format(
            "target_rows / rows_per_rank: matrix '{}' is a '{}' entry, expected a replicate "
            "entry (only the replication generator takes a row count here)",
            entry.name, entry.source));
    if (o.target_rows > 0 && o.rows_per_rank > 0)
        throw std::invalid_argument("target_rows and rows_per_rank: give one of them, not both");

    DistProblem p;
    auto t0 = std::chrono::steady_clock::now();
    if (replicated) {
        p.block = replicated_block(comm, entry, o);
    } else {
        const Csr<double> a = build_matrix(entry);
        p.block = dist::block_of(a, dist::natural_block(a.num_rows, comm.size(), comm.rank()));
    }
    p.build_seconds = comm.allreduce_max(since(t0));
    if (o.partition == "hypergraph") {
        dist::HypergraphPartition hp;
        const std::string prefix = o.partition_cache == "auto"
                                       ? partition_cache_auto(entry, o)
                                       : o.partition_cache;
        const std::string file =
            prefix.empty() ? std::string()
                           : fmt::format("{}.{}of{}", prefix, comm.rank(), comm.size());
        PartitionRecord record;
        const bool cached =
            !file.empty() &&
            comm.allreduce_min(read_partition_file(file, record) ? 1 : 0) == 1;
        if (cached) {
            if (record.parts.size() != static_cast<std::size_t>(p.block.rows.num_rows))
                throw std::runtime_error(fmt::format(
                    "partition cache {}: {} parts, expected one per row of this rank ({})", file,
                    record.parts.size(), p.block.rows.num_rows));
            hp.seconds = record.seconds;
            hp.local_part = std::move(record.parts);
            p.partition_made_on = record.made_on;
        } else {
            hp = dist::hypergraph_partition(comm, p.block);
            p.partition_made_on = partition_made_on(comm.size());
            if (!file.empty())
                write_partition_file(file, {hp.seconds, p.partition_made_on, hp.local_part});
        }
        p.partition_seconds = hp.seconds;
        p.partition_cached = cached;
        p.block = dist::redistribute(comm, p.block, hp.local_part);
    }
    p.local = dist::block_local_matrix(comm, p.block, o.scheme);
    p.nnz = p.local.global_nnz;
    return p;
}

}  // namespace kbench::harness
