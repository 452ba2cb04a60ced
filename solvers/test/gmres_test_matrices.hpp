// Small matrices with known GMRES behaviour, shared by the CPU and GPU GMRES tests.
#pragma once

#include "matrices/csr.hpp"
#include "solvers/test/solver_test_util.hpp"

#include <vector>

namespace kbench::solvers::test {

/// n x n with one entry per row: A(i, col(i)) = value(i).
template <typename T, typename Col, typename Value>
Csr<T> one_per_row(index_type n, Col col, Value value)
{
    Csr<T> a;
    a.num_rows = a.num_cols = n;
    a.row_ptr.resize(static_cast<std::size_t>(n) + 1);
    for (index_type i = 0; i < n; ++i) {
        a.row_ptr[i + 1] = i + 1;
        a.col_idx.push_back(col(i));
        a.values.push_back(static_cast<T>(value(i)));
    }
    return a;
}

/// The cyclic shift Z (Z e_i = e_{i+1 mod n}): with b = e_0, GMRES makes no progress before
/// step n, so GMRES(m < n) stagnates.
template <typename T>
Csr<T> cyclic_shift(index_type n)
{
    return one_per_row<T>(n, [n](index_type i) { return (i + n - 1) % n; },
                          [](index_type) { return 1.0; });
}

/// The nilpotent shift N (N e_i = e_{i+1}, N e_{n-1} = 0), singular: with b = e_0 the Krylov
/// space reaches A v = 0 at step n and the least-squares problem is singular (breakdown).
template <typename T>
Csr<T> nilpotent_shift(index_type n)
{
    Csr<T> a;
    a.num_rows = a.num_cols = n;
    a.row_ptr.assign(static_cast<std::size_t>(n) + 1, 0);  // row 0 is empty
    for (index_type i = 1; i < n; ++i) {  // row i holds A(i, i - 1) = 1
        a.col_idx.push_back(i - 1);
        a.values.push_back(T(1));
        a.row_ptr[i + 1] = i;
    }
    return a;
}

/// Diagonal with `distinct` distinct values 1..distinct: GMRES ends in `distinct` steps
/// with a happy breakdown.
template <typename T>
Csr<T> diagonal_with_distinct_values(index_type n, int distinct)
{
    return one_per_row<T>(n, [](index_type i) { return i; },
                          [distinct](index_type i) { return 1.0 + (i % distinct); });
}

/// e_0.
template <typename T>
std::vector<T> unit_rhs(index_type n)
{
    std::vector<T> b(static_cast<std::size_t>(n), T(0));
    b[0] = T(1);
    return b;
}

}  // namespace kbench::solvers::test
