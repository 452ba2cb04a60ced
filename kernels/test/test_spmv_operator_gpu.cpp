// The SpMV operator (kernels/spmv_operator.hpp) on the GPU against the CPU reference, for every
// kernel it can choose (six named ones, auto, auto with trial timing), in float and double, for
// y = alpha*A*x + beta*y and for Y = alpha*A*X + beta*Y on column-major blocks (k = 1, 3, 4, 7
// columns, leading dimensions larger than the rows), label gpu. Also the machine probe.
//
// Tolerance, per entry: |y - y_ref| <= c * eps(T) * (|alpha| sum_j |a_ij x_j| + |beta y_i|) with
// c = 32 (double) or 64 (float), as kernels/test/test_spmv_gpu.cpp states it.
#include "kernels/base/cuda_handles.hpp"
#include "kernels/base/device_buffer.hpp"
#include "kernels/machine_probe.hpp"
#include "kernels/spmm.hpp"
#include "kernels/spmv.hpp"
#include "kernels/spmv_operator.hpp"
#include "kernels/test/gpu_test.hpp"
#include "matrices/generators.hpp"
#include "matrices/test/random_data.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace kbench::spmv {
namespace {

template <typename T> constexpr double tolerance_factor = 32.0;
template <> constexpr double tolerance_factor<float> = 64.0;

/// Checks Y = alpha*A*X + beta*Y (k columns, leading dimensions ld_pad beyond the sizes) from
/// `op` against spmm::reference::csr; k == 0 means the single-vector apply.
template <typename T>
void check(SpmvOperator<T>& op, const Csr<T>& a, index_type k, T alpha, T beta)
{
    const index_type cols = std::max<index_type>(k, 1), pad = 3;
    const index_type ldx = a.num_cols + pad, ldy = a.num_rows + pad;
    const auto x = test::random_vector<T>(std::size_t(ldx) * cols, 7);
    auto y = beta == T{0} ? std::vector<T>(std::size_t(ldy) * cols,
                                           std::numeric_limits<T>::quiet_NaN())
                          : test::random_vector<T>(std::size_t(ldy) * cols, 8);
    std::vector<T> y_ref = y;
    const device_buffer<T> dx(x);
    device_buffer<T> dy(y);
    const cuda_stream stream;
    if (k == 0) op.apply(alpha, dx.data(), beta, dy.data(), stream);
    else op.apply_block(alpha, dx.data(), ldx, beta, dy.data(), ldy, k, stream);
    stream.synchronize();
    const std::vector<T> got = dy.to_host();
    spmm::reference::csr(a.view(), alpha, x.data(), ldx, beta, y_ref.data(), ldy, cols);
    const double eps = std::numeric_limits<T>::epsilon() * tolerance_factor<T>;
    int bad = 0;
    for (index_type j = 0; j < cols; ++j) {
        for (index_type i = 0; i < ldy; ++i) {
            const std::size_t e = std::size_t(j) * ldy + i;
            if (i >= a.num_rows) {  // padding rows of Y are never written
                if (!(std::isnan(got[e]) && std::isnan(y[e])) && got[e] != y[e]) ++bad;
                continue;
            }
            double scale = beta == T{0} ? 0.0 : std::abs(double(beta) * double(y[e]));
            for (index_type p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p)
                scale += std::abs(double(alpha) * double(a.values[p]) *
                                  double(x[std::size_t(j) * ldx + a.col_idx[p]]));
            const double err = std::abs(double(got[e]) - double(y_ref[e]));
            if (!(err <= eps * scale)) ++bad;
        }
    }
    EXPECT_EQ(bad, 0) << op.choice().policy << " -> " << kernel_name(op.choice().kernel)
                      << " k=" << k << " alpha=" << alpha << " beta=" << beta;
}

template <typename T>
void check_every_policy(const Csr<double>& a64)
{
    const Csr<T> a = a64.template cast<T>();
    const models::SpmvMachine& machine = machine_figures();
    std::vector<Policy> policies;
    for (const auto& name : kernel_names()) policies.push_back({name});
    policies.push_back({"auto"});
    policies.push_back({"auto", true, 4});
    Policy sellp_t4{"sellp"};
    sellp_t4.sellp = {32, 4, 128, 0};  // SELL-C-sigma with t = 4
    policies.push_back(sellp_t4);
    Policy vector8{"csr_vector"};
    vector8.subwarp = 8;
    policies.push_back(vector8);
    for (const Policy& p : policies) {
        SCOPED_TRACE(p.kernel + (p.trial ? " (trial)" : ""));
        SpmvOperator<T> op(a, p, machine);
        if (p.kernel != "auto") {
            EXPECT_EQ(kernel_name(op.choice().kernel), p.kernel);
        }
        EXPECT_FALSE(op.choice().reason.empty());
        if (p.kernel == "auto") {  // the timed configurations: ours, then cuSPARSE's
            const auto& t = op.choice().trial_us;
            const std::size_t vendors = vendor_candidates(row_length_stats(a.view())).size();
            EXPECT_GE(vendors, 1u);
            ASSERT_EQ(t.size(), (p.trial ? 4u : 1u) + vendors);
            const auto fastest = std::min_element(
                t.begin(), t.end(), [](const auto& l, const auto& r) { return l.second < r.second; });
            const bool vendor_kept = op.choice().predicted_us == 0.0;
            EXPECT_EQ(vendor_kept, fastest->first.rfind("cusparse", 0) == 0) << fastest->first;
            if (vendor_kept) {
                EXPECT_EQ(fastest->first, kernel_name(op.choice().kernel));
            }
        }
        for (index_type k : {0, 1, 3, 4, 7}) {
            check<T>(op, a, k, T(1), T(0));
            check<T>(op, a, k, T(-0.75), T(1.5));
        }
    }
}

TEST(SpmvOperatorGpu, RandomPatternWithEmptyAndLongRows)
{
    KBENCH_REQUIRE_GPU();
    const Csr<double> a = test::random_csr(3000, 3050, 21, {40, 6, 1400, 900});
    check_every_policy<double>(a);
    check_every_policy<float>(a);
}

TEST(SpmvOperatorGpu, StencilAndTinyMatrices)
{
    KBENCH_REQUIRE_GPU();
    check_every_policy<double>(laplacian_3d_7pt(12, 11, 10));
    check_every_policy<double>(test::random_csr(7, 7, 2, {5, 3, 2, 6}));
}

TEST(SpmvOperatorGpu, RejectsBadPoliciesAndBlocks)
{
    KBENCH_REQUIRE_GPU();
    const Csr<double> a = laplacian_2d_5pt(8, 8);
    const auto& m = machine_figures();
    EXPECT_THROW(SpmvOperator<double>(a, {"ell"}, m), std::invalid_argument);
    EXPECT_THROW(SpmvOperator<double>(a, {"sellp", true}, m), std::invalid_argument);
    Policy bad_t{"sellp"};
    bad_t.sellp.threads_per_row = 3;
    EXPECT_THROW(SpmvOperator<double>(a, bad_t, m), std::invalid_argument);
    SpmvOperator<double> op(a, {"auto"}, m);
    device_buffer<double> x(64), y(64);
    EXPECT_THROW(op.apply_block(1.0, x.data(), 63, 0.0, y.data(), 64, 1, nullptr),
                 std::invalid_argument);
    EXPECT_THROW(op.apply_block(1.0, x.data(), 64, 0.0, y.data(), 64, -1, nullptr),
                 std::invalid_argument);
}

TEST(MachineProbeGpu, FiguresAreMeasuredAndOrdered)
{
    KBENCH_REQUIRE_GPU();
    const models::SpmvMachine m = measure_machine_figures();
    EXPECT_GT(m.dram_gbps, 10.0);
    EXPECT_GT(m.l2_gbps, m.dram_gbps);             // an L2-resident array reads faster
    EXPECT_GT(m.l2_rmw_gbps, 10.0);                 // measured: read + written bytes per second
    EXPECT_LT(m.l2_rmw_gbps, 2.0 * m.l2_gbps);      // no more than reads and writes at read rate
    EXPECT_GT(m.gather_gbps, 10.0);                 // sectors of random gathers from L2
    EXPECT_LT(m.gather_gbps, 1.2 * m.l2_gbps);      // scattered sectors come no faster
    EXPECT_GT(m.gather_far_gbps, 10.0);             // than streamed ones
    EXPECT_LT(m.gather_far_gbps, 1.2 * m.gather_gbps);
    EXPECT_GT(m.dram_latency_us, m.l2_latency_us);  // a miss costs more than a hit
    EXPECT_GT(m.l2_latency_us, 0.01);
    EXPECT_GT(m.launch_us, 0.1);
    EXPECT_GT(m.sm_count, 0);
    EXPECT_GT(m.l2_bytes, 0.0);
    EXPECT_EQ(&machine_figures(), &machine_figures());  // measured once
}

}  // namespace
}  // namespace kbench::spmv
