// Helpers shared by the CA-GMRES tests (the test_ca_gmres_cpu executable's files and
// test_ca_gmres_gpu.cpp): options of one solve, a label for failure messages, a dense copy of a
// small CSR matrix and the check of a cycle's Arnoldi relation.
#pragma once

#include "matrices/csr.hpp"
#include "solvers/ca_gmres.hpp"

#include <Eigen/Dense>
#include <gtest/gtest.h>

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

/// The cycle's basis V (n x (c + 1)) and rebuilt Hessenberg H ((c + 1) x c) satisfy
/// A V(:, 0:c-1) = V H to 1e-10 relative, H is upper Hessenberg (exact zeros below the
/// subdiagonal), and V is orthonormal to 1e-10. A: the dense matrix of the solve.
inline void expect_arnoldi_relation(const Eigen::MatrixXd& A,
                                    const detail::CaCycleSnapshot<double>& snap)
{
    const int c = snap.columns;
    const Eigen::Map<const Eigen::MatrixXd> V(snap.V, snap.n, c + 1);
    const Eigen::Map<const Eigen::MatrixXd, 0, Eigen::OuterStride<>> H(
        snap.H, c + 1, c, Eigen::OuterStride<>(snap.ldh));
    const Eigen::MatrixXd AV = A * V.leftCols(c);
    EXPECT_LE((AV - V * H).norm() / AV.norm(), 1e-10) << "cycle " << snap.restart;
    for (int j = 0; j < c; ++j)
        for (int i = j + 2; i <= c; ++i) EXPECT_EQ(H(i, j), 0.0) << "cycle " << snap.restart;
    const Eigen::MatrixXd I = Eigen::MatrixXd::Identity(c + 1, c + 1);
    EXPECT_LE((V.transpose() * V - I).norm(), 1e-10) << "cycle " << snap.restart;
}

}  // namespace kbench::solvers::test_util
