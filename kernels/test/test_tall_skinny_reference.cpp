// Tall-skinny kernels (kernels/tall_skinny.hpp), CPU only: hand-checkable cases of the reference
// twins, the argument checks of the launchers and the references (all thrown before any CUDA
// call, so they run without a GPU), the gram_batched workspace query and the traffic models.
#include "kernels/test/expect_invalid.hpp"
#include "kernels/tall_skinny.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace kbench::blas {
namespace {

const double nan = std::numeric_limits<double>::quiet_NaN();

using test::expect_invalid;

// ---- Reference twins (hand-checkable) ----------------------------------------------------

TEST(TallSkinnyReference, GemvTSkipsPaddingRows)
{
    // 2 x 3 column-major with ld = 3: columns (1, 2), (3, 4), (5, 7); row 2 is padding.
    const std::vector<double> V = {1, 2, nan, 3, 4, nan, 5, 7, nan};
    const std::vector<double> y = {1, -1};
    std::vector<double> r(3, -99.0);
    reference::gemv_t<double>(2, 3, V.data(), 3, y.data(), r.data());
    EXPECT_EQ(r, (std::vector<double>{-1, -1, -2}));

    reference::gemv_t<double>(0, 2, nullptr, 0, nullptr, r.data());  // n = 0: zeros
    EXPECT_EQ(r, (std::vector<double>{0, 0, -2}));
}

TEST(TallSkinnyReference, GemvTFloatRoundsOnceFromExtendedPrecision)
{
    // In float, 2^24 + 1 rounds back to 2^24; the long double sum keeps 2^24 + 2 exactly.
    const std::vector<float> V = {16777216.0f, 1.0f, 1.0f}, y = {1.0f, 1.0f, 1.0f};
    float r = 0;
    reference::gemv_t<float>(3, 1, V.data(), 3, y.data(), &r);
    EXPECT_EQ(r, 16777218.0f);
}

TEST(TallSkinnyReference, GemmRowwiseAlphaBetaAndPadding)
{
    // V (2 x 2, ldv = 3): rows (1, 2), (3, 4). B (2 x 3, ldb = 3): columns (1, 1), (0, 1), (2, 0).
    const std::vector<double> V = {1, 3, nan, 2, 4, nan};
    const std::vector<double> B = {1, 1, nan, 0, 1, nan, 2, 0, nan};
    // W (2 x 3, ldw = 3) starts as all ones; row 2 is padding and must stay -7.
    std::vector<double> W = {1, 1, -7, 1, 1, -7, 1, 1, -7};
    reference::gemm_rowwise<double>(2, 2, 3, 2.0, V.data(), 3, B.data(), 3, -1.0, W.data(), 3);
    // V B = rows (3, 2, 2), (7, 4, 6); W = 2 V B - 1.
    EXPECT_EQ(W, (std::vector<double>{5, 13, -7, 3, 7, -7, 3, 11, -7}));
}

TEST(TallSkinnyReference, GemmRowwiseBetaZeroIgnoresWAndInPlaceWorks)
{
    const std::vector<double> V = {1, 3, 2, 4};  // rows (1, 2), (3, 4)
    const std::vector<double> Q = {0, 1, 1, 0};  // swaps the columns
    std::vector<double> W(4, nan);
    reference::gemm_rowwise<double>(2, 2, 2, 1.0, V.data(), 2, Q.data(), 2, 0.0, W.data(), 2);
    EXPECT_EQ(W, (std::vector<double>{2, 4, 1, 3}));

    std::vector<double> inplace = V;  // V := V Q
    reference::gemm_rowwise<double>(2, 2, 2, 1.0, inplace.data(), 2, Q.data(), 2, 0.0,
                                    inplace.data(), 2);
    EXPECT_EQ(inplace, (std::vector<double>{2, 4, 1, 3}));

    std::vector<double> scaled = {1, 2};  // kv = 0: W := beta W
    reference::gemm_rowwise<double>(2, 0, 1, 5.0, nullptr, 2, nullptr, 0, 3.0, scaled.data(), 2);
    EXPECT_EQ(scaled, (std::vector<double>{3, 6}));
}

TEST(TallSkinnyReference, TrsmSolvesRowByRowAndIgnoresLowerPart)
{
    // R = [2 1; . 4] (the NaN below the diagonal must not be read); rows x solve x R = v.
    const std::vector<double> R = {2, nan, 1, 4};
    // V (2 x 2, ld = 3): rows (2, 5) and (4, 2); row 2 is padding.
    std::vector<double> V = {2, 4, -7, 5, 2, -7};
    reference::trsm_right_upper<double>(2, 2, V.data(), 3, R.data(), 2);
    // (2, 5): x0 = 1, x1 = (5 - 1) / 4 = 1; (4, 2): x0 = 2, x1 = (2 - 2) / 4 = 0.
    EXPECT_EQ(V, (std::vector<double>{1, 2, -7, 1, 0, -7}));
}

TEST(TallSkinnyReference, GramGeneralSymmetricAndEmpty)
{
    // V (3 x 2): columns (1, 2, 3), (0, 1, -1); W (3 x 1): (1, 1, 2).
    const std::vector<double> V = {1, 2, 3, 0, 1, -1}, W = {1, 1, 2};
    std::vector<double> B(3, -99.0);  // 2 x 1 with ldb = 3
    reference::gram<double>(3, 2, V.data(), 3, 1, W.data(), 3, B.data(), 3);
    EXPECT_EQ(B, (std::vector<double>{9, -1, -99}));

    std::vector<double> G(4);
    reference::gram<double>(3, 2, V.data(), 3, 2, V.data(), 3, G.data(), 2);  // V^T V
    EXPECT_EQ(G, (std::vector<double>{14, -1, -1, 2}));

    reference::gram<double>(0, 2, nullptr, 0, 2, nullptr, 0, G.data(), 2);  // n = 0: zeros
    EXPECT_EQ(G, (std::vector<double>{0, 0, 0, 0}));
}

// ---- Argument checks (before any CUDA call) ------------------------------------------------

TEST(TallSkinnyArguments, LaunchersNameFunctionAndParameter)
{
    // Host addresses stand in for device pointers: every call must throw before using them.
    std::vector<double> buf(64);
    double* p = buf.data();
    const cudaStream_t s = nullptr;

    expect_invalid([&] { gemv_t_per_column<double>(-1, 2, p, 4, p, p, s); },
                   {"kbench::blas::gemv_t_per_column", "n = -1", "n >= 0"});
    expect_invalid([&] { gemv_t_per_column<double>(10, 65, p, 10, p, p, s); },
                   {"kbench::blas::gemv_t_per_column", "k = 65", "max_block_columns = 64"});
    expect_invalid([&] { gemv_t_per_column<double>(10, 2, p, 9, p, p, s); },
                   {"kbench::blas::gemv_t_per_column", "ld = 9", "ld >= n = 10"});
    expect_invalid([&] { gemv_t_per_column<double>(10, 2, nullptr, 10, p, p, s); },
                   {"kbench::blas::gemv_t_per_column", "V is null", "10 x 2"});
    expect_invalid([&] { gemv_t_per_column<double>(10, 2, p, 10, nullptr, p, s); },
                   {"kbench::blas::gemv_t_per_column", "y is null"});
    expect_invalid([&] { gemv_t_per_column<double>(10, 2, p, 10, p, nullptr, s); },
                   {"kbench::blas::gemv_t_per_column", "r is null", "k = 2"});

    expect_invalid([&] { gemm_rowwise<double>(10, -1, 2, 1.0, p, 10, p, 2, 0.0, p + 1, 10, s); },
                   {"kbench::blas::gemm_rowwise", "kv = -1"});
    expect_invalid([&] { gemm_rowwise<double>(10, 2, 65, 1.0, p, 10, p, 2, 0.0, p + 1, 10, s); },
                   {"kbench::blas::gemm_rowwise", "kw = 65"});
    expect_invalid([&] { gemm_rowwise<double>(10, 2, 2, 1.0, p, 9, p, 2, 0.0, p + 1, 10, s); },
                   {"kbench::blas::gemm_rowwise", "ldv = 9", "ldv >= n = 10"});
    expect_invalid([&] { gemm_rowwise<double>(10, 2, 2, 1.0, p, 10, p, 2, 0.0, p + 1, 3, s); },
                   {"kbench::blas::gemm_rowwise", "ldw = 3"});
    expect_invalid([&] { gemm_rowwise<double>(10, 3, 2, 1.0, p, 10, p, 2, 0.0, p + 1, 10, s); },
                   {"kbench::blas::gemm_rowwise", "ldb = 2", "ldb >= kv = 3"});
    expect_invalid([&] { gemm_rowwise<double>(10, 2, 2, 1.0, nullptr, 10, p, 2, 0.0, p, 10, s); },
                   {"kbench::blas::gemm_rowwise", "V is null"});
    expect_invalid([&] { gemm_rowwise<double>(10, 2, 2, 1.0, p, 10, nullptr, 2, 0.0, p, 10, s); },
                   {"kbench::blas::gemm_rowwise", "B is null", "2 x 2"});
    expect_invalid([&] { gemm_rowwise<double>(10, 2, 2, 1.0, p, 10, p, 2, 0.0, nullptr, 10, s); },
                   {"kbench::blas::gemm_rowwise", "W is null"});
    expect_invalid([&] { gemm_rowwise<double>(10, 3, 2, 1.0, p, 10, p, 3, 0.0, p, 10, s); },
                   {"kbench::blas::gemm_rowwise", "W == V", "kv == kw"});
    expect_invalid([&] { gemm_rowwise<double>(10, 2, 2, 1.0, p, 10, p, 3, 0.0, p, 12, s); },
                   {"kbench::blas::gemm_rowwise", "W == V", "ldw == ldv"});

    expect_invalid([&] { trsm_right_upper<double>(-5, 2, p, 4, p, 2, s); },
                   {"kbench::blas::trsm_right_upper", "n = -5"});
    expect_invalid([&] { trsm_right_upper<double>(10, 65, p, 10, p, 65, s); },
                   {"kbench::blas::trsm_right_upper", "k = 65"});
    expect_invalid([&] { trsm_right_upper<double>(10, 3, p, 10, p, 2, s); },
                   {"kbench::blas::trsm_right_upper", "ldr = 2", "ldr >= k = 3"});
    expect_invalid([&] { trsm_right_upper<double>(10, 3, nullptr, 10, p, 3, s); },
                   {"kbench::blas::trsm_right_upper", "V is null"});
    expect_invalid([&] { trsm_right_upper<double>(10, 3, p, 10, nullptr, 3, s); },
                   {"kbench::blas::trsm_right_upper", "R is null", "3 x 3"});
}

TEST(TallSkinnyArguments, GramBatchedNamesParameterAndWorkspace)
{
    std::vector<double> buf(64);
    double* p = buf.data();
    const cudaStream_t s = nullptr;
    // A non-null stand-in for the handle: every call below throws before using it.
    const auto h = reinterpret_cast<cublasHandle_t>(p);
    const std::size_t need = gram_batched_workspace_bytes(1000, 3, 2, 256, 8);
    alignas(256) static unsigned char ws[512];

    expect_invalid([&] { gram_batched<double>(h, -1, 3, p, 4, 2, p, 4, p, 3, 256, ws, need, s); },
                   {"kbench::blas::gram_batched", "n = -1"});
    expect_invalid(
        [&] { gram_batched<double>(h, 1000, 3, p, 999, 2, p, 1000, p, 3, 256, ws, need, s); },
        {"kbench::blas::gram_batched", "ldv = 999", "ldv >= n = 1000"});
    expect_invalid(
        [&] { gram_batched<double>(h, 1000, 3, p, 1000, 2, p, 1000, p, 2, 256, ws, need, s); },
        {"kbench::blas::gram_batched", "ldb = 2", "ldb >= kv = 3"});
    expect_invalid(
        [&] {
            gram_batched<double>(h, 1000, 3, p, 1000, 2, p, 1000, nullptr, 3, 256, ws, need, s);
        },
        {"kbench::blas::gram_batched", "B is null"});
    expect_invalid(
        [&] {
            gram_batched<double>(h, 1000, 3, nullptr, 1000, 2, p, 1000, p, 3, 256, ws, need, s);
        },
        {"kbench::blas::gram_batched", "V is null"});
    expect_invalid(
        [&] { gram_batched<double>(h, 1000, 3, p, 1000, 2, p, 1000, p, 3, 48, ws, need, s); },
        {"kbench::blas::gram_batched", "h = 48", "positive multiple of 32"});
    expect_invalid(
        [&] {
            gram_batched<double>(nullptr, 1000, 3, p, 1000, 2, p, 1000, p, 3, 256, ws, need, s);
        },
        {"kbench::blas::gram_batched", "handle is null"});
    expect_invalid(
        [&] { gram_batched<double>(h, 1000, 3, p, 1000, 2, p, 1000, p, 3, 256, ws, need - 1, s); },
        {"kbench::blas::gram_batched", "workspace_bytes = " + std::to_string(need - 1),
         "gram_batched_workspace_bytes(n = 1000, kv = 3, kw = 2, h = 256, "
         "value_bytes = 8) = " + std::to_string(need)});
    expect_invalid(
        [&] { gram_batched<double>(h, 1000, 3, p, 1000, 2, p, 1000, p, 3, 256, nullptr, need, s); },
        {"kbench::blas::gram_batched", "workspace is null"});
    expect_invalid(
        [&] { gram_batched<double>(h, 1000, 3, p, 1000, 2, p, 1000, p, 3, 256, ws + 8, need, s); },
        {"kbench::blas::gram_batched", "workspace is not aligned to 256"});

    expect_invalid([] { gram_batched_workspace_bytes(-3, 1, 1, 32, 8); },
                   {"kbench::blas::gram_batched_workspace_bytes", "n = -3"});
    expect_invalid([] { gram_batched_workspace_bytes(10, 65, 1, 32, 8); },
                   {"kbench::blas::gram_batched_workspace_bytes", "kv = 65"});
    expect_invalid([] { gram_batched_workspace_bytes(10, 1, -1, 32, 8); },
                   {"kbench::blas::gram_batched_workspace_bytes", "kw = -1"});
    expect_invalid([] { gram_batched_workspace_bytes(10, 1, 1, 0, 8); },
                   {"kbench::blas::gram_batched_workspace_bytes", "h = 0"});
    expect_invalid([] { gram_batched_workspace_bytes(10, 1, 1, 32, 2); },
                   {"kbench::blas::gram_batched_workspace_bytes", "value_bytes = 2"});
}

TEST(TallSkinnyArguments, ReferencesGiveTheLaunchersMessages)
{
    std::vector<double> buf(64);
    double* p = buf.data();
    expect_invalid([&] { reference::gemv_t<double>(10, 2, p, 4, p, p); },
                   {"kbench::blas::reference::gemv_t", "ld = 4", "ld >= n = 10"});
    expect_invalid([&] { reference::gemm_rowwise<double>(10, 3, 2, 1.0, p, 10, p, 3, 0.0, p, 10); },
                   {"kbench::blas::reference::gemm_rowwise", "W == V"});
    expect_invalid(
        [&] { reference::gemm_rowwise<double>(10, 2, 2, 1.0, p, 10, p, 2, 0.0, nullptr, 10); },
        {"kbench::blas::reference::gemm_rowwise", "W is null"});
    expect_invalid([&] { reference::trsm_right_upper<double>(10, 65, p, 10, p, 65); },
                   {"kbench::blas::reference::trsm_right_upper", "k = 65"});
    expect_invalid([&] { reference::gram<double>(10, 2, p, 10, 3, p, 9, p, 2); },
                   {"kbench::blas::reference::gram", "ldw = 9"});
    expect_invalid([&] { reference::gram<double>(10, 2, p, 10, 3, p, 10, nullptr, 2); },
                   {"kbench::blas::reference::gram", "B is null", "2 x 3"});
}

TEST(TallSkinnyArguments, EmptyShapesMakeNoCudaCall)
{
    // Without a GPU any CUDA call would throw kbench::cuda_error; none is made here.
    EXPECT_NO_THROW(gemv_t_per_column<double>(100, 0, nullptr, 100, nullptr, nullptr, nullptr));
    EXPECT_NO_THROW(gemm_rowwise<float>(0, 3, 3, 1.0f, nullptr, 0, nullptr, 3, 0.0f, nullptr, 0,
                                        nullptr));
    EXPECT_NO_THROW(gemm_rowwise<float>(50, 3, 0, 1.0f, nullptr, 50, nullptr, 3, 0.0f, nullptr,
                                        50, nullptr));
    EXPECT_NO_THROW(trsm_right_upper<double>(0, 8, nullptr, 0, nullptr, 8, nullptr));
    EXPECT_NO_THROW(gram_batched<double>(nullptr, 100, 0, nullptr, 100, 4, nullptr, 100, nullptr,
                                         0, 32, nullptr, 0, nullptr));
}

// ---- Workspace query and traffic models ----------------------------------------------------

TEST(TallSkinnyWorkspace, GramBatchedPointersThenPartials)
{
    // n = 1000, h = 256: 3 full blocks (3 x 3 pointers of 8 bytes = 72, rounded up to 256)
    // and 4 partial 3 x 2 products.
    EXPECT_EQ(gram_batched_workspace_bytes(1000, 3, 2, 256, 8), 256u + 4u * 6u * 8u);
    EXPECT_EQ(gram_batched_workspace_bytes(1000, 3, 2, 256, 4), 256u + 4u * 6u * 4u);
    EXPECT_EQ(gram_batched_workspace_bytes(100, 3, 2, 256, 8), 6u * 8u);  // n < h: no batch
    EXPECT_EQ(gram_batched_workspace_bytes(1024, 64, 64, 32, 8),
              768u + 32u * 64u * 64u * 8u);  // 32 full blocks: 768 pointer bytes
    EXPECT_EQ(gram_batched_workspace_bytes(0, 8, 8, 32, 8), 0u);
    EXPECT_EQ(gram_batched_workspace_bytes(1000, 0, 8, 32, 8), 0u);
}

TEST(TallSkinnyTraffic, CountsEachTerm)
{
    constexpr models::Traffic g = gemv_t_traffic(1000, 4, 8);
    static_assert(g.bytes_read == 40000.0 && g.bytes_written == 32.0 && g.flops == 8000.0);
    const models::Traffic m = gemm_rowwise_traffic(1000, 4, 2, true, 8);
    EXPECT_EQ(m.bytes_read, 48000.0);
    EXPECT_EQ(m.bytes_written, 16000.0);
    EXPECT_EQ(m.flops, 16000.0);
    EXPECT_EQ(gemm_rowwise_traffic(1000, 4, 2, false, 8).bytes_read, 32000.0);
    const models::Traffic t = trsm_traffic(1000, 4, 4);
    EXPECT_EQ(t.bytes_read, 16000.0);
    EXPECT_EQ(t.bytes_written, 16000.0);
    EXPECT_EQ(t.flops, 16000.0);
    const models::Traffic s = gram_traffic(1000, 4, 4, true, 8);
    EXPECT_EQ(s.bytes_read, 32000.0);
    EXPECT_EQ(s.flops, 20000.0);
    EXPECT_EQ(gram_traffic(1000, 4, 2, false, 8).bytes_read, 48000.0);
}

}  // namespace
}  // namespace kbench::blas
