// Belos' BlockGmres and PseudoBlockGmres on Epetra: declarations and conventions in
// harness/studies/peers/peers_belos.hpp.
#include "harness/studies/peers/peers_belos.hpp"

#include "kernels/spmv.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>

#ifdef KBENCH_HAVE_BELOS
#include <BelosBlockGmresSolMgr.hpp>
#include <BelosEpetraAdapter.hpp>
#include <BelosLinearProblem.hpp>
#include <BelosPseudoBlockGmresSolMgr.hpp>
#include <Epetra_CrsMatrix.h>
#include <Epetra_Map.h>
#include <Epetra_MultiVector.h>
#include <Epetra_SerialComm.h>
#include <Teuchos_ParameterList.hpp>
#include <Teuchos_RCP.hpp>
#endif

namespace kbench::harness::peers {

const char* to_string(BelosSolver solver)
{
    return solver == BelosSolver::block_gmres ? "BlockGmres" : "PseudoBlockGmres";
}

bool belos_available()
{
#ifdef KBENCH_HAVE_BELOS
    return true;
#else
    return false;
#endif
}

double largest_relative_residual(const Csr<double>& a, int s, const std::vector<double>& B,
                                 const std::vector<double>& X)
{
    const auto n = static_cast<std::size_t>(a.num_rows);
    std::vector<double> r(n);
    double worst = 0.0;
    for (int k = 0; k < s; ++k) {
        const double* b = B.data() + k * n;
        std::copy(b, b + n, r.begin());
        spmv::reference::csr(a.view(), -1.0, X.data() + k * n, 1.0, r.data());
        double rr = 0.0, bb = 0.0;
        for (std::size_t i = 0; i < n; ++i) {
            rr += r[i] * r[i];
            bb += b[i] * b[i];
        }
        worst = std::max(worst, bb > 0.0 ? std::sqrt(rr / bb) : std::sqrt(rr));
    }
    return worst;
}

solvers::SolveResult belos_gmres(const Csr<double>& a, int s, const std::vector<double>& B,
                                 std::vector<double>& X, const solvers::BlockGmresOptions& options,
                                 BelosSolver solver)
{
    constexpr const char* who = "kbench::harness::peers::belos_gmres";
    solvers::detail::check_block_gmres_options(who, a.num_rows, a.num_cols, s, options);
    const auto entries = static_cast<std::size_t>(a.num_rows) * static_cast<std::size_t>(s);
    if (B.size() != entries || X.size() != entries)
        throw std::invalid_argument(std::string(who) + ": B and X must hold n s = " +
                                    std::to_string(entries) + " values (column-major, ld n)");
#ifndef KBENCH_HAVE_BELOS
    (void)solver;
    throw std::runtime_error(std::string(who) +
                             ": kbench was built without Trilinos Belos; install "
                             "libtrilinos-belos-dev libtrilinos-epetra-dev (Debian) and "
                             "re-run cmake");
#else
    using MV = Epetra_MultiVector;
    using OP = Epetra_Operator;
    const int n = static_cast<int>(a.num_rows);
    Epetra_SerialComm comm;
    Epetra_Map map(n, 0, comm);
    std::vector<int> row_lengths(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) row_lengths[i] = static_cast<int>(a.row_ptr[i + 1] - a.row_ptr[i]);
    auto A = Teuchos::rcp(new Epetra_CrsMatrix(Copy, map, row_lengths.data(), true));
    std::vector<int> cols;
    for (int i = 0; i < n; ++i) {
        const auto begin = a.row_ptr[i], end = a.row_ptr[i + 1];
        cols.assign(a.col_idx.begin() + begin, a.col_idx.begin() + end);
        if (A->InsertGlobalValues(i, static_cast<int>(end - begin),
                                  const_cast<double*>(a.values.data() + begin), cols.data()) != 0)
            throw std::runtime_error(std::string(who) + ": Epetra refused row " +
                                     std::to_string(i));
    }
    A->FillComplete();
    // Epetra's multivectors view kbench's column-major blocks (ld n); X is written in place.
    auto b = Teuchos::rcp(new MV(View, map, const_cast<double*>(B.data()), n, s));
    auto x = Teuchos::rcp(new MV(View, map, X.data(), n, s));
    auto problem = Teuchos::rcp(new Belos::LinearProblem<double, MV, OP>(A, x, b));
    if (!problem->setProblem())
        throw std::runtime_error(std::string(who) + ": Belos::LinearProblem::setProblem failed");

    auto params = Teuchos::rcp(new Teuchos::ParameterList);
    const int block_steps = options.max_iterations;
    // Both managers take all s right-hand sides at once only with "Block Size" = s:
    // PseudoBlockGmres works through the columns in groups of "Block Size".
    params->set("Block Size", s);
    params->set("Num Blocks", std::max(1, std::min(options.restart, std::max(block_steps, 1))));
    params->set("Maximum Iterations", block_steps);
    params->set("Maximum Restarts", block_steps + 1);  // never the limit that stops a solve
    params->set("Convergence Tolerance", options.tolerance);
    params->set("Orthogonalization", std::string(belos_orthogonalization));
    params->set("Verbosity", static_cast<int>(Belos::Errors));

    solvers::SolveResult result;
    const auto t0 = std::chrono::steady_clock::now();
    Belos::ReturnType status = Belos::Unconverged;
    if (solver == BelosSolver::block_gmres) {
        Belos::BlockGmresSolMgr<double, MV, OP> manager(problem, params);
        status = manager.solve();
        result.iterations = manager.getNumIters();
    } else {
        Belos::PseudoBlockGmresSolMgr<double, MV, OP> manager(problem, params);
        status = manager.solve();
        result.iterations = manager.getNumIters();
    }
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    result.status = status == Belos::Converged ? solvers::SolveStatus::converged
                                               : solvers::SolveStatus::max_iterations;
    if (status != Belos::Converged)
        result.detail = std::string("Belos ") + to_string(solver) + " returned Unconverged";
    result.true_residual = largest_relative_residual(a, s, B, X);
    return result;
#endif
}

}  // namespace kbench::harness::peers
