// Matrices and partitions shared by the tests of the distributed layer (test_distributed_cpu.cpp,
// test_distributed_gpu.cpp): every rank builds the same cases, deterministically.
#pragma once

#include "matrices/csr.hpp"
#include "matrices/generators.hpp"
#include "matrices/reorder.hpp"

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace kbench::test {

struct DistributedCase {
    std::string name;  // "<matrix>/<partition>"
    Csr<double> a;
    std::vector<int> part;
};

/// A 2D Laplacian (symmetric, 456 rows) and a random nonsymmetric matrix (400 rows, rows of 2
/// to 12 entries anywhere within 200 of the diagonal, so with 3 parts every part needs entries
/// of both others), each under the partitions into `parts` parts: natural blocks, a scattered
/// one (owners hashed from the row: no part is contiguous), METIS k-way when built, and for
/// parts >= 2 one that leaves the last part empty (as METIS may on small graphs).
inline std::vector<DistributedCase> distributed_cases(int parts)
{
    RandomRowsParams rp;
    rp.n = 400;
    rp.distribution = RowLengthDistribution::uniform;
    rp.row_min = 2;
    rp.row_max = 12;
    rp.bandwidth = 200;
    rp.seed = 7;
    const std::vector<std::pair<std::string, Csr<double>>> matrices = {
        {"laplacian_2d_24x19", laplacian_2d_5pt(24, 19)}, {"random_rows_400", random_rows(rp)}};
    std::vector<DistributedCase> out;
    for (const auto& [name, a] : matrices) {
        const index_type n = a.num_rows;
        out.push_back({name + "/natural", a, block_partition(n, parts)});
        std::vector<int> scattered(static_cast<std::size_t>(n));
        for (index_type r = 0; r < n; ++r) {
            std::uint64_t z = static_cast<std::uint64_t>(r) * 0x9E3779B97F4A7C15ull;
            z = (z ^ (z >> 31)) * 0xBF58476D1CE4E5B9ull;
            scattered[static_cast<std::size_t>(r)] = static_cast<int>((z >> 33) % parts);
        }
        out.push_back({name + "/scattered", a, scattered});
        if (reorder_has_metis()) out.push_back({name + "/metis", a, kway_partition(a, parts, 1)});
        if (parts >= 2) {
            std::vector<int> empty_last(static_cast<std::size_t>(n));
            for (index_type r = 0; r < n; ++r)
                empty_last[static_cast<std::size_t>(r)] = static_cast<int>(r % (parts - 1));
            out.push_back({name + "/empty_last", a, empty_last});
        }
    }
    return out;
}

/// A vector whose every entry tells its index apart: x[g] = 1 + g / 8 + sin(g) / 4.
inline std::vector<double> tagged_vector(index_type n)
{
    std::vector<double> x(static_cast<std::size_t>(n));
    for (index_type g = 0; g < n; ++g)
        x[static_cast<std::size_t>(g)] = 1.0 + g / 8.0 + std::sin(static_cast<double>(g)) / 4.0;
    return x;
}

}  // namespace kbench::test
