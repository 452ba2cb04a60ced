// Helpers shared by the CA-GMRES tests (test_ca_gmres_cpu.cpp, test_ca_gmres_gpu.cpp): options
// of one solve, a label for failure messages, and a dense copy of a small CSR matrix.
#pragma once

#include "matrices/csr.hpp"
#include "solvers/ca_gmres.hpp"

#include <Eigen/Dense>

#include <string>

namespace kbench::solvers::test_util {

/// CA-GMRES(s, m) options with the given basis and TSQR, the rest at their defaults.
inline CaGmresOptions ca_options(int s, int m, CaBasis basis,
                                 ortho::TsqrMethod tsqr = ortho::TsqrMethod::cholqr2)
{
    CaGmresOptions o;
    o.s = s;
    o.restart = m;
    o.basis = basis;
    o.tsqr = tsqr;
    return o;
}

/// "CA-GMRES(s, m), basis, tsqr, BOrth passes p" for SCOPED_TRACE.
inline std::string ca_label(const CaGmresOptions& o)
{
    return "CA-GMRES(" + std::to_string(o.s) + ", " + std::to_string(o.restart) + "), " +
           to_string(o.basis) + ", " + ortho::to_string(o.tsqr) + ", BOrth passes " +
           std::to_string(o.borth_passes);
}

/// The n x n dense matrix of `a` (small test matrices only).
inline Eigen::MatrixXd dense(const Csr<double>& a)
{
    Eigen::MatrixXd d = Eigen::MatrixXd::Zero(a.num_rows, a.num_cols);
    for (index_type i = 0; i < a.num_rows; ++i)
        for (index_type p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p)
            d(i, a.col_idx[p]) = a.values[p];
    return d;
}

}  // namespace kbench::solvers::test_util
