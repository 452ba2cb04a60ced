// CA-GMRES(s, m) on the GPU (solvers/ca_gmres.hpp) against its CPU twin: the matrix powers
// kernel column by column, then whole solves over step sizes, restart lengths, bases and TSQRs
// (same status, iterations within the block granularity, solutions close), the Arnoldi relation
// of the GPU-built basis and Hessenberg matrix, the TSQR fallback, the statuses of the
// constructed cases, detailed phases and the TSQR error records; the same for the two-stage
// block orthogonalization (CaBorth::two_stage), whose basis is orthonormal after stage 2.
//
// Tolerances: both twins run the same host iteration on the same data; they differ only in the
// summation order of the device reductions (SpMV, dot products, Gram matrices, CAQR's row
// blocks). A solve to a relative residual of 1e-10 on these matrices (cond ~ 1e3) gives
// solutions within ~1e-7 of each other; convergence is tested at block ends, so the iteration
// counts may differ by one block (s) plus a few percent when rounding moves a rank decision or a
// Ritz shift (the two-stage scheme: by one panel).
#include "kernels/base/cuda_handles.hpp"
#include "kernels/base/device_buffer.hpp"
#include "kernels/dot.hpp"
#include "kernels/machine_probe.hpp"
#include "kernels/test/expect_invalid.hpp"
#include "kernels/test/gpu_test.hpp"
#include "matrices/generators.hpp"
#include "solvers/ca_gmres.hpp"
#include "solvers/test/ca_gmres_test_util.hpp"
#include "solvers/orthogonalization/gpu_context.hpp"
#include "solvers/test/gmres_test_matrices.hpp"

#include <Eigen/Dense>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace kbench::solvers {
namespace {

using cd = std::complex<double>;
using ortho::TsqrMethod;
using ::kbench::test::expect_invalid;
using test_util::dense;
using test_util::ca_options;
using test_util::ca_label;
using test::smooth_rhs;
using test::unit_rhs;

template <typename T>
struct Solve {
    CaGmresResult result;
    std::vector<T> x;
};

template <typename T>
Solve<T> solve_gpu(const Csr<T>& a, const std::vector<T>& b, const CaGmresOptions& o,
                   const std::string& kernel = "auto",
                   const detail::CaCycleObserver<T>* observer = nullptr)
{
    spmv::SpmvOperator<T> op(a, spmv::Policy{kernel}, spmv::machine_figures());
    ortho::GpuContext ctx;
    device_buffer<T> db(b), dx(std::vector<T>(b.size(), T{0}));
    Solve<T> s;
    s.result = observer != nullptr
                   ? detail::ca_gmres_observed(op, db.data(), dx.data(), o, ctx.handles(),
                                               *observer)
                   : ca_gmres(op, db.data(), dx.data(), o, ctx.handles());
    s.x = dx.to_host();
    return s;
}

template <typename T>
Solve<T> solve_cpu(const Csr<T>& a, const std::vector<T>& b, const CaGmresOptions& o)
{
    Solve<T> s;
    s.x.assign(b.size(), T(0));
    s.result = ca_gmres_cpu(a, b, s.x, o);
    return s;
}

const Csr<double>& matrix()
{
    static const Csr<double> a = convection_diffusion(40, 40, 1, 20.0, -10.0, 0.0);  // 1600 rows
    return a;
}

/// The GPU solve agrees with the CPU solve of the same options (see the file comment). The
/// first cycle's estimates agree to rounding amplified by the condition number of the blocks'
/// R factors (sqrt of the Gram condition of the first CA cycle); the solutions to cond(A) ~ 1e3
/// times the tolerance, with a margin.
void expect_twins(const Solve<double>& gpu, const Solve<double>& cpu, const CaGmresOptions& o)
{
    const CaGmresResult& g = gpu.result;
    const CaGmresResult& c = cpu.result;
    ASSERT_EQ(g.status, c.status) << "gpu: " << g.detail << "; cpu: " << c.detail;
    // Convergence is tested per block, or per panel of the two-stage scheme.
    const int granularity = o.borth == CaBorth::two_stage
                                ? (o.panel_columns > 0 ? o.panel_columns : std::min(o.restart, 64))
                                : o.s;
    EXPECT_NEAR(g.iterations, c.iterations, granularity + 2 + 0.03 * c.iterations);
    ASSERT_EQ(g.residual_history.size(), g.history_iterations.size());
    EXPECT_EQ(g.history_iterations.back(), g.iterations);
    EXPECT_EQ(static_cast<int>(g.gram_condition.size()), g.restarts);
    const double history_tolerance =
        1e-7 + 1e-13 * std::sqrt(std::max(1.0, c.first_gram_condition));
    for (std::size_t i = 0; i < std::min(g.residual_history.size(), c.residual_history.size());
         ++i) {
        if (g.history_iterations[i] != c.history_iterations[i] ||
            g.history_iterations[i] > o.restart)
            break;
        EXPECT_NEAR(g.residual_history[i], c.residual_history[i], history_tolerance)
            << "entry " << i;
    }
    if (c.status == SolveStatus::converged) {
        EXPECT_LE(g.true_residual, o.tolerance * 1.01);
        EXPECT_LT(test::relative_difference(gpu.x, cpu.x), 1e4 * o.tolerance);
    }
    EXPECT_EQ(g.shifts.empty(), c.shifts.empty());
}

/// Solves A x = b (b = smooth_rhs) with both twins from x0 = 0 and compares them (expect_twins);
/// the CPU solve must converge. Returns the CPU result.
CaGmresResult expect_gpu_matches_cpu(const Csr<double>& a, const CaGmresOptions& o)
{
    const auto b = smooth_rhs<double>(a.num_rows);
    const Solve<double> cpu = solve_cpu(a, b, o);
    EXPECT_EQ(cpu.result.status, SolveStatus::converged) << cpu.result.detail;
    if (cpu.result.status == SolveStatus::converged) expect_twins(solve_gpu(a, b, o), cpu, o);
    return cpu.result;
}

TEST(MatrixPowersGpu, MatchesTheCpuKernelColumnByColumn)
{
    KBENCH_REQUIRE_GPU();
    const Csr<double>& a = matrix();
    const index_type n = a.num_rows;
    spmv::SpmvOperator<double> op(a, spmv::Policy{"auto"}, spmv::machine_figures());
    cuda_stream stream;
    const std::vector<cd> shifts = {{7.5, 0.0}, {4.0, 1.5}, {4.0, -1.5}, {0.5, 0.0}};
    for (const bool newton : {false, true}) {
        for (const bool normalize : {false, true}) {
            SCOPED_TRACE(std::string{newton ? "newton" : "monomial"} +
                         (normalize ? ", normalized" : ", raw"));
            const int k = 7;  // the pair twice, and a cut pair at the end
            const std::vector<MpkStep> steps = newton_steps(newton ? shifts : std::vector<cd>{}, k);
            std::vector<double> V(static_cast<std::size_t>(n) * (k + 1), 0.0), n2(k + 1, 0.0);
            const std::vector<double> b = smooth_rhs<double>(n);
            double norm = 0.0;
            for (double v : b) norm += v * v;
            for (index_type i = 0; i < n; ++i) V[i] = b[i] / std::sqrt(norm);
            device_buffer<double> dv(V), dn2(std::vector<double>(k + 1, 0.0));
            // A ready dot workspace (counters zeroed), as matrix_powers asks.
            blas::DotWorkspace ws(n, 1);
            ASSERT_EQ(ws.bytes(), matrix_powers_workspace_bytes(n));
            matrix_powers(op, steps, k, normalize, dv.data(), n, dn2.data(), ws.data(), ws.bytes(),
                          stream);
            stream.synchronize();
            reference::matrix_powers(a, steps, k, normalize, V.data(), n, n2.data());
            const std::vector<double> got = dv.to_host(), got_n2 = dn2.to_host();
            for (int t = 1; t <= k; ++t) {
                double diff = 0.0, ref = 0.0;
                for (index_type i = 0; i < n; ++i) {
                    const std::size_t e = static_cast<std::size_t>(t) * n + i;
                    diff += (got[e] - V[e]) * (got[e] - V[e]);
                    ref += V[e] * V[e];
                }
                EXPECT_LE(std::sqrt(diff / ref), 1e-12) << "column " << t;
                if (normalize) {
                    EXPECT_NEAR(got_n2[t], n2[t], 1e-12 * n2[t]) << "column " << t;
                }
            }
        }
    }
    device_buffer<double> dv(static_cast<std::size_t>(n) * 3), dn2(3);
    blas::DotWorkspace ws(n, 1);
    expect_invalid(
        [&] {
            matrix_powers(op, {{0.0, 1.0}, {0.0, 0.0}}, 2, true, dv.data(), n, dn2.data(),
                          ws.data(), ws.bytes(), stream);
        },
        {"matrix_powers", "b2"});
    expect_invalid(
        [&] {
            matrix_powers(op, {{0.0, 0.0}}, 2, true, dv.data(), n, dn2.data(), ws.data(),
                          ws.bytes(), stream);
        },
        {"matrix_powers", "steps"});
    expect_invalid(
        [&] {
            matrix_powers(op, {{0.0, 0.0}}, 1, true, dv.data(), n - 1, dn2.data(), ws.data(),
                          ws.bytes(), stream);
        },
        {"matrix_powers", "ld"});
}

TEST(CaGmresGpu, MatchesTheCpuSolverOverStepSizesRestartsBasesAndTsqrs)
{
    KBENCH_REQUIRE_GPU();
    const Csr<double>& a = matrix();
    const auto b = smooth_rhs<double>(a.num_rows);
    for (const int s : {1, 2, 5}) {
        for (const int m : {10, 20, 30}) {
            for (const CaBasis basis : {CaBasis::monomial, CaBasis::newton}) {
                for (const TsqrMethod tsqr : {TsqrMethod::cholqr2, TsqrMethod::caqr,
                                              TsqrMethod::cgs2, TsqrMethod::svqr}) {
                    CaGmresOptions o = ca_options(s, m, basis, tsqr);
                    o.tolerance = 1e-10;
                    o.max_iterations = 5000;
                    SCOPED_TRACE(ca_label(o));
                    const Solve<double> cpu = solve_cpu(a, b, o);
                    ASSERT_EQ(cpu.result.status, SolveStatus::converged) << cpu.result.detail;
                    expect_twins(solve_gpu(a, b, o), cpu, o);
                }
            }
        }
    }
    // The remaining TSQRs and one BOrth pass at one shape.
    for (const TsqrMethod tsqr : {TsqrMethod::mgs, TsqrMethod::cgs, TsqrMethod::cholqr,
                                  TsqrMethod::shifted_cholqr3}) {
        for (const int passes : {1, 2}) {
            CaGmresOptions o = ca_options(5, 30, CaBasis::newton, tsqr);
            o.borth_passes = passes;
            o.tolerance = 1e-10;
            o.max_iterations = 5000;
            SCOPED_TRACE(ca_label(o) + ", BOrth passes " + std::to_string(passes));
            const Solve<double> cpu = solve_cpu(a, b, o);
            ASSERT_EQ(cpu.result.status, SolveStatus::converged) << cpu.result.detail;
            expect_twins(solve_gpu(a, b, o), cpu, o);
        }
    }
}

TEST(CaGmresGpu, LongCyclesAndLargeStepsMatchTheCpu)
{
    KBENCH_REQUIRE_GPU();
    // m = 300 on a 6400-row operator that needs more than 256 steps: BOrth against more than
    // 256 basis vectors runs in chunks on the GPU (in the plain GMRES cycle of the Newton basis,
    // and in the monomial basis' CA cycles). s = 20, 30 with m = 30: the paper's shapes (blocks
    // of 20 then 10, and one block); s = 64: the largest block.
    const Csr<double> slow = convection_diffusion(80, 80, 1, 5.0, -2.5, 0.0);
    struct Case {
        const Csr<double>* a;
        int s, m;
        CaBasis basis;
        TsqrMethod tsqr;
    };
    for (const Case& c : {Case{&slow, 10, 300, CaBasis::newton, TsqrMethod::cholqr2},
                          Case{&slow, 10, 300, CaBasis::monomial, TsqrMethod::caqr},
                          Case{&matrix(), 20, 30, CaBasis::newton, TsqrMethod::cholqr2},
                          Case{&matrix(), 30, 30, CaBasis::newton, TsqrMethod::caqr},
                          Case{&matrix(), 64, 128, CaBasis::newton, TsqrMethod::caqr}}) {
        CaGmresOptions o = ca_options(c.s, c.m, c.basis, c.tsqr);
        o.tolerance = 1e-10;
        o.max_iterations = 5000;
        SCOPED_TRACE(ca_label(o) + ", n = " + std::to_string(c.a->num_rows));
        const CaGmresResult cpu = expect_gpu_matches_cpu(*c.a, o);
        if (c.m == 300) {
            EXPECT_GT(cpu.iterations, 257);  // the chunked BOrth ran
        }
    }
}

TEST(CaGmresGpu, RebuiltHessenbergSatisfiesTheArnoldiRelation)
{
    KBENCH_REQUIRE_GPU();
    const Csr<double> a = convection_diffusion(16, 16, 1, 20.0, -10.0, 0.0);  // 256 rows
    const Eigen::MatrixXd A = dense(a);
    const auto b = smooth_rhs<double>(a.num_rows);
    struct Case {
        int s, m;
        CaBasis basis;
        std::vector<cd> shifts;
        bool normalize;
    };
    const std::vector<Case> cases = {
        {1, 20, CaBasis::monomial, {}, true},
        {5, 20, CaBasis::monomial, {}, true},
        {4, 20, CaBasis::monomial, {}, false},
        {7, 20, CaBasis::newton, {}, true},
        {5, 20, CaBasis::newton, {{6.5, 0.0}, {4.0, 2.0}, {4.0, -2.0}, {1.5, 0.0}}, false},
        {6, 18, CaBasis::newton, {{6.5, 0.0}, {4.0, 2.0}, {4.0, -2.0}, {1.5, 0.0}}, true},
    };
    for (const Case& c : cases) {
        CaGmresOptions o = ca_options(c.s, c.m, c.basis);
        o.shifts = c.shifts;
        o.normalize_basis = c.normalize;
        o.tolerance = 1e-14;
        o.max_restarts = 2;
        SCOPED_TRACE(ca_label(o) + (c.normalize ? ", normalized" : ", raw"));
        int cycles = 0;
        const detail::CaCycleObserver<double> check =
            [&](const detail::CaCycleSnapshot<double>& snap) {
                ++cycles;
                ASSERT_EQ(snap.n, a.num_rows);
                EXPECT_EQ(snap.columns, c.m);
                test_util::expect_arnoldi_relation(A, snap);
            };
        const Solve<double> gpu = solve_gpu(a, b, o, "auto", &check);
        EXPECT_EQ(cycles, 2);
        EXPECT_EQ(gpu.result.iterations, 2 * c.m);
        EXPECT_EQ(gpu.result.status, SolveStatus::max_iterations);
        if (!c.shifts.empty()) {
            EXPECT_EQ(gpu.result.shifts, leja_order(c.shifts));
        }
    }
}

TEST(CaGmresGpu, AFailingTsqrFallsBackAndIsReportedAsOnTheCpu)
{
    KBENCH_REQUIRE_GPU();
    const Csr<double>& a = matrix();
    const auto b = smooth_rhs<double>(a.num_rows);
    // Monomial basis of 16 vectors: its Gram matrix is beyond 1 / eps, CholQR fails, CAQR redoes
    // the block.
    CaGmresOptions o = ca_options(16, 32, CaBasis::monomial, TsqrMethod::cholqr);
    o.tolerance = 1e-8;
    o.max_iterations = 5000;
    o.measure_orthogonality = true;
    const Solve<double> cpu = solve_cpu(a, b, o);
    const Solve<double> gpu = solve_gpu(a, b, o);
    ASSERT_EQ(cpu.result.status, SolveStatus::converged) << cpu.result.detail;
    ASSERT_GT(cpu.result.tsqr_fallbacks, 0);
    // A basis beyond 1 / eps: which blocks CholQR fails on, and so the iterates, depend on the
    // rounding of each twin (on an H100, 224 GPU against 288 CPU steps, histories apart from
    // the first block), so the twins are compared by outcome only.
    ASSERT_EQ(gpu.result.status, SolveStatus::converged) << gpu.result.detail;
    EXPECT_LE(gpu.result.true_residual, o.tolerance * 1.01);
    EXPECT_GT(gpu.result.tsqr_fallbacks, 0);
    EXPECT_EQ(gpu.result.first_fallback_restart, 0);
    int flagged = 0;
    for (const CaBlockRecord& rec : gpu.result.blocks) {
        if (!rec.fallback) continue;
        ++flagged;
        EXPECT_EQ(rec.method, TsqrMethod::caqr);
        EXPECT_LE(rec.orthogonality, 1e-12);
    }
    EXPECT_EQ(flagged, gpu.result.tsqr_fallbacks);

    // The fallback failing too is a breakdown naming the block and both methods.
    o.fallback_tsqr = TsqrMethod::cholqr2;
    o.measure_orthogonality = false;
    const Solve<double> broken = solve_gpu(a, b, o);
    EXPECT_EQ(broken.result.status, SolveStatus::breakdown) << broken.result.detail;
    for (const char* part : {"restart 0", "block", "cholqr failed", "fallback cholqr2"})
        EXPECT_NE(broken.result.detail.find(part), std::string::npos)
            << part << " in " << broken.result.detail;
    EXPECT_EQ(broken.result.tsqr_fallbacks, 1);
    EXPECT_EQ(solve_cpu(a, b, o).result.status, SolveStatus::breakdown);
}

TEST(CaGmresGpu, StagnationBreakdownHappyBreakdownAndNonFiniteAreStatuses)
{
    KBENCH_REQUIRE_GPU();
    for (const int s : {1, 4}) {
        CaGmresOptions o = ca_options(s, 8, CaBasis::monomial);
        const Solve<double> r = solve_gpu(test::cyclic_shift<double>(64), unit_rhs<double>(64), o,
                                          "cusparse_csr");
        EXPECT_EQ(r.result.status, SolveStatus::stagnation) << r.result.detail;
        EXPECT_EQ(r.result.iterations, 8 * o.stagnation_cycles);
    }
    for (const int s : {1, 5}) {
        CaGmresOptions o = ca_options(s, 10, CaBasis::monomial);
        const Solve<double> r = solve_gpu(test::nilpotent_shift<double>(5), unit_rhs<double>(5),
                                          o, "cusparse_csr");
        EXPECT_EQ(r.result.status, SolveStatus::breakdown) << r.result.detail;
        EXPECT_TRUE(std::isfinite(r.result.true_residual));
    }
    for (const int s : {1, 5}) {
        for (const CaBasis basis : {CaBasis::monomial, CaBasis::newton}) {
            CaGmresOptions o = ca_options(s, 10, basis);
            o.tolerance = 1e-13;
            SCOPED_TRACE(ca_label(o));
            const Solve<double> r = solve_gpu(test::diagonal_with_distinct_values<double>(2000, 4),
                                              smooth_rhs<double>(2000), o);
            EXPECT_EQ(r.result.status, SolveStatus::converged) << r.result.detail;
            if (s == 1) {
                EXPECT_EQ(r.result.iterations, 4);
            } else {
                EXPECT_GE(r.result.iterations, 4);
                EXPECT_LE(r.result.iterations, 4 + s);
            }
        }
    }
    const auto big = test::one_per_row<double>(
        2000, [](index_type i) { return i; }, [](index_type i) { return 1e120 * (1 + i % 5); });
    CaGmresOptions o = ca_options(5, 10, CaBasis::monomial);
    o.normalize_basis = false;
    const Solve<double> r = solve_gpu(big, smooth_rhs<double>(2000), o);
    EXPECT_EQ(r.result.status, SolveStatus::non_finite) << r.result.detail;
    EXPECT_NE(r.result.detail.find("not finite"), std::string::npos) << r.result.detail;
}

TEST(CaGmresGpu, DetailedPhasesSumToAtMostTheTotal)
{
    KBENCH_REQUIRE_GPU();
    const Csr<double>& a = matrix();
    const auto b = smooth_rhs<double>(a.num_rows);
    CaGmresOptions o = ca_options(10, 30, CaBasis::newton, TsqrMethod::cholqr2);
    o.tolerance = 1e-10;
    const Solve<double> plain = solve_gpu(a, b, o);
    o.detailed = true;
    const Solve<double> timed = solve_gpu(a, b, o);
    ASSERT_EQ(timed.result.status, SolveStatus::converged) << timed.result.detail;
    EXPECT_TRUE(plain.result.phases.empty());
    EXPECT_NEAR(timed.result.iterations, plain.result.iterations, o.s);
    const std::set<std::string> names = {"MPK", "BOrth", "TSQR", "least squares", "other"};
    std::set<std::string> seen;
    double sum = 0.0;
    for (const PhaseTime& p : timed.result.phases) {
        EXPECT_TRUE(names.count(p.name)) << p.name;
        EXPECT_GT(p.seconds, 0.0) << p.name;
        EXPECT_GT(p.calls, 0) << p.name;
        seen.insert(p.name);
        sum += p.seconds;
    }
    EXPECT_EQ(seen, names);
    EXPECT_LE(sum, timed.result.seconds);
    EXPECT_GT(sum, 0.5 * timed.result.seconds);  // the phases cover the solve
}

TEST(CaGmresGpu, TsqrErrorRecordsOfThePaperShapes)
{
    KBENCH_REQUIRE_GPU();
    const Csr<double>& a = matrix();
    const auto b = smooth_rhs<double>(a.num_rows);
    for (const int s : {20, 30}) {
        CaGmresOptions o = ca_options(s, 30, CaBasis::newton, TsqrMethod::caqr);
        o.measure_orthogonality = true;
        o.tolerance = 1e-8;
        SCOPED_TRACE(ca_label(o));
        const Solve<double> gpu = solve_gpu(a, b, o), cpu = solve_cpu(a, b, o);
        expect_twins(gpu, cpu, o);
        bool saw_ca = false;
        for (const CaBlockRecord& rec : gpu.result.blocks) {
            if (rec.restart == 0) continue;  // the plain GMRES cycle
            saw_ca = true;
            EXPECT_TRUE(rec.columns == s || rec.columns == 30 - s) << rec.columns;
            EXPECT_LE(rec.orthogonality, 1e-12);
            EXPECT_LE(rec.residual, 1e-13);
            EXPECT_GE(rec.gram_condition, 1.0);
        }
        EXPECT_TRUE(saw_ca);
        // The same first CA block on both: the same Gram condition to a few digits.
        ASSERT_GT(cpu.result.first_gram_condition, 1.0);
        EXPECT_NEAR(std::log10(gpu.result.first_gram_condition),
                    std::log10(cpu.result.first_gram_condition), 0.1);
    }
}

/// `o` with the two-stage scheme and panels of at most `panel` columns (0: min(m, 64)).
CaGmresOptions two_stage(CaGmresOptions o, int panel = 0)
{
    o.borth = CaBorth::two_stage;
    o.panel_columns = panel;
    return o;
}

TEST(CaGmresGpu, TwoStageMatchesTheCpuSolver)
{
    KBENCH_REQUIRE_GPU();
    // The 6400-row operator with m = 300 runs stage 1's fused product over more than 64 and
    // stage 2's BOrth over more than 256 basis columns (chunks); s = 16, m = 128: two panels of
    // 64 columns per cycle.
    const Csr<double> slow = convection_diffusion(80, 80, 1, 5.0, -2.5, 0.0);
    struct Case {
        const Csr<double>* a;
        int s, m, panel;
        CaBasis basis;
        TsqrMethod tsqr;
    };
    for (const Case& c : {Case{&matrix(), 2, 10, 0, CaBasis::monomial, TsqrMethod::cholqr2},
                          Case{&matrix(), 5, 30, 0, CaBasis::newton, TsqrMethod::cholqr2},
                          Case{&matrix(), 5, 30, 10, CaBasis::monomial, TsqrMethod::caqr},
                          Case{&matrix(), 5, 30, 10, CaBasis::newton, TsqrMethod::svqr},
                          Case{&matrix(), 15, 60, 0, CaBasis::newton, TsqrMethod::cholqr},
                          Case{&matrix(), 16, 128, 0, CaBasis::newton, TsqrMethod::cholqr2},
                          Case{&slow, 10, 300, 0, CaBasis::newton, TsqrMethod::cholqr2}}) {
        CaGmresOptions o = two_stage(ca_options(c.s, c.m, c.basis, c.tsqr), c.panel);
        o.tolerance = 1e-10;
        o.max_iterations = 5000;
        SCOPED_TRACE(ca_label(o) + ", two-stage panels of " + std::to_string(c.panel) +
                     ", n = " + std::to_string(c.a->num_rows));
        expect_gpu_matches_cpu(*c.a, o);
    }
}

TEST(CaGmresGpu, TwoStageBasisIsOrthonormalAfterStageTwo)
{
    KBENCH_REQUIRE_GPU();
    const Csr<double> a = convection_diffusion(16, 16, 1, 20.0, -10.0, 0.0);  // 256 rows
    const Eigen::MatrixXd A = dense(a);
    const auto b = smooth_rhs<double>(a.num_rows);
    const std::vector<cd> shifts = {{6.5, 0.0}, {4.0, 2.0}, {4.0, -2.0}, {1.5, 0.0}};
    struct Case {
        int s, m, panel;
        CaBasis basis;
        std::vector<cd> shifts;
    };
    for (const Case& c : {Case{5, 20, 0, CaBasis::monomial, {}},
                          Case{7, 20, 14, CaBasis::newton, shifts},
                          Case{8, 100, 0, CaBasis::newton, shifts}}) {
        CaGmresOptions o = two_stage(ca_options(c.s, c.m, c.basis), c.panel);
        o.shifts = c.shifts;
        o.timing_mode = true;  // two whole cycles
        o.max_iterations = 2 * c.m;
        SCOPED_TRACE(ca_label(o) + ", two-stage panels of " + std::to_string(c.panel));
        int cycles = 0;
        const detail::CaCycleObserver<double> check =
            [&](const detail::CaCycleSnapshot<double>& snap) {
                ++cycles;
                EXPECT_EQ(snap.columns, c.m);
                test_util::expect_arnoldi_relation(A, snap);
                const Eigen::Map<const Eigen::MatrixXd> v(snap.V, snap.n, snap.columns + 1);
                const Eigen::MatrixXd i =
                    Eigen::MatrixXd::Identity(snap.columns + 1, snap.columns + 1);
                EXPECT_LE((i - v.transpose() * v).norm(), 1e-13);  // O(eps), as CGS2
            };
        const Solve<double> gpu = solve_gpu(a, b, o, "auto", &check);
        EXPECT_EQ(cycles, 2);
        EXPECT_EQ(gpu.result.iterations, 2 * c.m);
    }
}

TEST(CaGmresGpu, TwoStageFallsBackWhenStageOneCannotFactorABlockAsOnTheCpu)
{
    KBENCH_REQUIRE_GPU();
    const Csr<double>& a = matrix();
    const auto b = smooth_rhs<double>(a.num_rows);
    CaGmresOptions o = two_stage(ca_options(16, 32, CaBasis::monomial, TsqrMethod::cholqr2));
    o.tolerance = 1e-8;
    o.max_iterations = 5000;
    const Solve<double> cpu = solve_cpu(a, b, o);
    ASSERT_EQ(cpu.result.status, SolveStatus::converged) << cpu.result.detail;
    ASSERT_GT(cpu.result.tsqr_fallbacks, 0);
    // As for the per-block fallback, the twins are compared by outcome (which blocks fail
    // depends on each twin's rounding).
    const Solve<double> gpu = solve_gpu(a, b, o);
    ASSERT_EQ(gpu.result.status, SolveStatus::converged) << gpu.result.detail;
    EXPECT_LE(gpu.result.true_residual, o.tolerance * 1.01);
    EXPECT_GT(gpu.result.tsqr_fallbacks, 0);
    EXPECT_EQ(gpu.result.first_fallback_restart, 0);
}

TEST(CaGmresGpu, SinglePrecisionConverges)
{
    KBENCH_REQUIRE_GPU();
    const Csr<float> a = convection_diffusion(40, 40, 1, 10.0, 5.0, 0.0).cast<float>();
    for (const CaBasis basis : {CaBasis::monomial, CaBasis::newton}) {
        for (const CaBorth borth : {CaBorth::block, CaBorth::two_stage}) {
            CaGmresOptions o = ca_options(4, 20, basis, TsqrMethod::cholqr2);
            o.borth = borth;
            o.tolerance = 1e-5;
            const Solve<float> s = solve_gpu(a, smooth_rhs<float>(a.num_rows), o);
            EXPECT_EQ(s.result.status, SolveStatus::converged)
                << to_string(basis) << ", " << to_string(borth) << ": " << s.result.detail;
            EXPECT_LE(s.result.true_residual, 1e-4);
        }
    }
}

TEST(CaGmresGpu, TheStreamOverloadAndArgumentErrors)
{
    KBENCH_REQUIRE_GPU();
    const Csr<double>& a = matrix();
    const auto b = smooth_rhs<double>(a.num_rows);
    spmv::SpmvOperator<double> op(a, spmv::Policy{"auto"}, spmv::machine_figures());
    cuda_stream stream;
    device_buffer<double> db(b), dx(std::vector<double>(b.size(), 0.0));
    CaGmresOptions o = ca_options(5, 30, CaBasis::newton);
    const CaGmresResult r = ca_gmres(op, db.data(), dx.data(), o, stream);
    EXPECT_EQ(r.status, SolveStatus::converged) << r.detail;
    EXPECT_LE(r.true_residual, o.tolerance * 1.01);

    expect_invalid([&] { ca_gmres(op, static_cast<const double*>(nullptr), dx.data(), o, stream); },
                                   {"ca_gmres", "b"});
    o.s = 0;
    expect_invalid([&] { ca_gmres(op, db.data(), dx.data(), o, stream); },
                                   {"ca_gmres", "s = 0"});
    o = ca_options(5, 30, CaBasis::newton);
    ortho::GpuHandles no_solver{stream, nullptr, nullptr};
    expect_invalid([&] { ca_gmres(op, db.data(), dx.data(), o, no_solver); },
                                   {"ca_gmres", "handles"});
    Csr<double> rect;
    rect.num_rows = 2;
    rect.num_cols = 3;
    rect.row_ptr = {0, 1, 2};
    rect.col_idx = {0, 2};
    rect.values = {1.0, 1.0};
    spmv::SpmvOperator<double> rop(rect, spmv::Policy{"cusparse_csr"}, spmv::machine_figures());
    device_buffer<double> v(3);
    o.s = 1;
    expect_invalid([&] { ca_gmres(rop, v.data(), v.data(), o, stream); },
                                   {"ca_gmres", "square"});
}

}  // namespace
}  // namespace kbench::solvers
