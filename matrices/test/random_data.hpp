// Random test inputs shared by the CPU and GPU tests: sparse patterns and dense vectors.
#pragma once

#include "matrices/csr.hpp"

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

namespace kbench::test {

/// Options of random_csr.
struct RandomCsrShape {
    int max_row_len = 12;        // row lengths drawn uniformly from [0, max_row_len] ...
    int empty_one_in = 0;        // ... and a row left empty with probability 1/empty_one_in (0: never)
    index_type long_row = -1;    // this row (if >= 0) gets long_row_len draws instead
    int long_row_len = 0;
    double lo = -1.0, hi = 1.0;  // values uniform in [lo, hi)
};

/// An n x m CSR matrix with random columns (sorted, duplicates dropped) and values; the same
/// seed gives the same matrix.
inline Csr<double> random_csr(index_type n, index_type m, std::uint32_t seed,
                              const RandomCsrShape& shape = {})
{
    std::mt19937 gen(seed);
    std::uniform_int_distribution<int> len(0, shape.max_row_len);
    std::uniform_real_distribution<double> val(shape.lo, shape.hi);
    Csr<double> a;
    a.num_rows = n;
    a.num_cols = m;
    for (index_type i = 0; i < n; ++i) {
        int count = len(gen);
        if (shape.empty_one_in > 0 && gen() % shape.empty_one_in == 0) count = 0;
        if (i == shape.long_row) count = shape.long_row_len;
        std::vector<index_type> cols;
        for (int k = 0; k < count; ++k) cols.push_back(static_cast<index_type>(gen() % m));
        std::sort(cols.begin(), cols.end());
        cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
        for (index_type c : cols) {
            a.col_idx.push_back(c);
            a.values.push_back(val(gen));
        }
        a.row_ptr.push_back(a.nnz());
    }
    return a;
}

/// n values uniform in [-1, 1); the same seed gives the same vector.
template <typename T>
std::vector<T> random_vector(std::size_t n, std::uint32_t seed)
{
    std::mt19937 gen(seed);
    std::uniform_real_distribution<T> dist(T(-1), T(1));
    std::vector<T> v(n);
    for (auto& e : v) e = dist(gen);
    return v;
}

}  // namespace kbench::test
