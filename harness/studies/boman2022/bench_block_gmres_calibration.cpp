// The calibration of the boman2022 block GMRES model's costs (declared in
// bench_block_gmres_common.hpp): alpha per method, beta per matrix, gamma(s) of the block CGS
// pass and gamma_lsq(s) of the host least squares, each on the GPU and on the CPU.
#include "harness/studies/boman2022/bench_block_gmres_common.hpp"

#include "harness/core/timing.hpp"
#include "kernels/base/cuda_check.hpp"
#include "kernels/base/device_buffer.hpp"
#include "matrices/generators.hpp"
#include "models/block_gmres_model.hpp"
#include "solvers/block_gmres.hpp"
#include "solvers/cpu_gemm.hpp"
#include "solvers/gmres.hpp"
#include "solvers/hessenberg.hpp"
#include "solvers/orthogonalization/gpu_context.hpp"

#include <Eigen/Dense>
#include <Eigen/SparseCore>
#include <cublas_v2.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace kbench::harness::block_gmres_bench {

namespace {

constexpr int gamma_basis_columns = 128;  // kq of the gamma calibration (a mid-cycle basis)
constexpr int lsq_block_steps = 30;  // one cycle of the gamma_lsq calibration (restart 30)

/// The matrix whose GMRES steps measure alpha: 2D convection-diffusion on 16 x 16 (256 rows),
/// so a step's time is its fixed costs (launches, one host round trip), not its data.
const Csr<double>& latency_matrix()
{
    static const Csr<double> a = convection_diffusion(16, 16, 1, 10.0, 5.0, 0.0);
    return a;
}

using EigenCsr = Eigen::Map<const Eigen::SparseMatrix<double, Eigen::RowMajor, index_type>>;
EigenCsr eigen_view(const Csr<double>& a)
{
    return EigenCsr(a.num_rows, a.num_cols, a.nnz(), a.row_ptr.data(), a.col_idx.data(),
                    a.values.data());
}

}  // namespace

double calibrate_alpha(Device device, const models::SpmvMachine& figures)
{
    const Csr<double>& a = latency_matrix();
    solvers::GmresOptions o;
    o.restart = 30;
    o.max_iterations = 30;
    o.timing_mode = true;
    std::vector<double> b(static_cast<std::size_t>(a.num_rows), 1.0);
    std::vector<double> per_step;
    if (device == Device::gpu) {
        spmv::SpmvOperator<double> op(a, spmv::Policy{"auto"}, figures);
        ortho::GpuContext ctx;
        device_buffer<double> db(b), dx(b.size());
        for (int r = 0; r < 7; ++r) {
            KBENCH_CUDA_CHECK(cudaMemsetAsync(dx.data(), 0, sizeof(double) * b.size(), ctx.stream));
            const SolveResult res = solvers::gmres(op, db.data(), dx.data(), o, ctx.stream);
            if (r > 1) per_step.push_back(res.seconds / std::max(1, res.iterations));
        }
    } else {
        for (int r = 0; r < 7; ++r) {
            std::vector<double> x(b.size(), 0.0);
            const SolveResult res = solvers::gmres_cpu(a, b, x, o);
            if (r > 1) per_step.push_back(res.seconds / std::max(1, res.iterations));
        }
    }
    return median(per_step);
}

double calibrate_block_alpha(Device device, bool pseudo, const models::SpmvMachine& figures)
{
    const Csr<double>& a = latency_matrix();
    solvers::BlockGmresOptions o;
    o.restart = 30;
    o.max_iterations = 30;
    o.tolerance = 0.0;
    o.stagnation_cycles = 0;
    const std::vector<double> b(static_cast<std::size_t>(a.num_rows), 1.0);
    std::vector<double> per_step;
    std::optional<spmv::SpmvOperator<double>> op;
    ortho::GpuContext ctx;
    device_buffer<double> db, dx;
    if (device == Device::gpu) {
        op.emplace(a, spmv::Policy{"auto"}, figures);
        db = device_buffer<double>(b);
        dx = device_buffer<double>(b.size());
    }
    for (int r = 0; r < 7; ++r) {
        SolveResult res;
        if (device == Device::gpu) {
            KBENCH_CUDA_CHECK(cudaMemsetAsync(dx.data(), 0, sizeof(double) * b.size(), ctx.stream));
            res = pseudo ? solvers::pseudo_block_gmres(*op, 1, db.data(), dx.data(), o,
                                                       ctx.handles())
                         : solvers::block_gmres(*op, 1, db.data(), dx.data(), o, ctx.handles());
        } else {
            std::vector<double> x(b.size(), 0.0);
            res = pseudo ? solvers::pseudo_block_gmres_cpu(a, 1, b, x, o)
                         : solvers::block_gmres_cpu(a, 1, b, x, o);
        }
        if (r > 1) per_step.push_back(res.seconds / std::max(1, res.iterations));
    }
    return median(per_step);
}

double calibrate_beta(Device device, const Csr<double>& a, spmv::SpmvOperator<double>* op)
{
    const auto n = static_cast<std::size_t>(a.num_rows);
    double seconds = 0.0;
    if (device == Device::gpu) {
        ortho::GpuContext ctx;
        device_buffer<double> x(std::vector<double>(n, 1.0)), y(n);
        seconds = time_events(
            [&](cudaStream_t s) { op->apply(1.0, x.data(), 0.0, y.data(), s); }, ctx.stream, 3,
            20);
    } else {
        const EigenCsr A = eigen_view(a);
        const Eigen::VectorXd x = Eigen::VectorXd::Ones(a.num_cols);
        Eigen::VectorXd y(a.num_rows);
        seconds = time_wall([&] { y.noalias() = A * x; }, 3, 20);
    }
    return seconds / static_cast<double>(a.nnz());
}

std::map<int, double> calibrate_gamma(Device device, std::int64_t n, const std::vector<int>& s_values)
{
    const int kq = gamma_basis_columns, s_max = s_values.back();
    std::map<int, double> gamma;
    const auto flops = [&](int s) { return 4.0 * static_cast<double>(n) * kq * s; };
    if (device == Device::gpu) {
        ortho::GpuContext ctx;
        const std::vector<double> q_host = random_block(n, kq), w_host = random_block(n, s_max);
        device_buffer<double> q(q_host), w(w_host), c(static_cast<std::size_t>(kq) * s_max);
        const int rows = static_cast<int>(n);
        for (int s : s_values) {
            const double one = 1.0, zero = 0.0, minus_one = -1.0;
            const double t = time_events(
                [&](cudaStream_t) {
                    KBENCH_CUBLAS_CHECK(cublasDgemm(ctx.blas, CUBLAS_OP_T, CUBLAS_OP_N, kq, s,
                                                    rows, &one, q.data(), rows, w.data(), rows,
                                                    &zero, c.data(), kq));
                    KBENCH_CUBLAS_CHECK(cublasDgemm(ctx.blas, CUBLAS_OP_N, CUBLAS_OP_N, rows, s,
                                                    kq, &minus_one, q.data(), rows, c.data(), kq,
                                                    &one, w.data(), rows));
                },
                ctx.stream, 2, 10);
            gamma[s] = t / flops(s);
        }
    } else {
        const Eigen::MatrixXd q = Eigen::MatrixXd::Random(n, kq);
        for (int s : s_values) {
            Eigen::MatrixXd w = Eigen::MatrixXd::Random(n, s), c(kq, s);
            const double t = time_wall(
                [&] {  // as the CPU block GMRES runs a CGS pass (solvers/cpu_gemm.hpp)
                    solvers::cpu::gemm<double>(true, false, 1.0, q, w, 0.0, c);
                    solvers::cpu::gemm<double>(false, false, -1.0, q, c, 1.0, w);
                },
                1, 5);
            gamma[s] = t / flops(s);
        }
    }
    return gamma;
}

std::map<int, double> calibrate_gamma_lsq(const std::vector<int>& s_values)
{
    std::map<int, double> gamma;
    for (int s : s_values) {
        const int m = lsq_block_steps, rows = (m + 1) * s;
        std::vector<double> h = random_block(rows, m * s);  // column c: rows 0 .. c + s
        for (int c = 0; c < m * s; ++c) {
            double* hc = h.data() + static_cast<std::size_t>(c) * rows;
            std::fill(hc + c + s + 1, hc + rows, 0.0);
            hc[c] += 4.0;
        }
        std::vector<double> S(static_cast<std::size_t>(s) * s, 0.0);
        for (int k = 0; k < s; ++k) S[static_cast<std::size_t>(k) * s + k] = 1.0;
        solvers::HessenbergLsq<double> lsq(m, s);
        const double flops = models::lsq_flops(s, m);
        const int cycles = std::max(1, static_cast<int>(1e6 / flops));
        const double t = time_wall(
            [&] {
                for (int r = 0; r < cycles; ++r) {
                    lsq.reset(S.data(), s);
                    for (int j = 0; j < m; ++j)
                        if (lsq.add_columns(h.data() + static_cast<std::size_t>(j) * s * rows,
                                            rows, s) != solvers::HessenbergStatus::ok)
                            throw std::runtime_error("calibrate_gamma_lsq: a column of the "
                                                     "test matrix is singular at s = " +
                                                     std::to_string(s));
                }
            },
            1, 5);
        gamma[s] = t / (cycles * flops);
    }
    return gamma;
}

}  // namespace kbench::harness::block_gmres_bench
