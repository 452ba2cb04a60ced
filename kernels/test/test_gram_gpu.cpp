// Fused Gram kernel (kernels/tall_skinny.hpp, blas::gram; kernels/gram.cu): GPU tests against
// reference::gram (one launch per call: the last block to finish sums the partials, with ticket
// counters in the workspace), plus the argument checks, the workspace query, gram_workspace_init
// and GramWorkspace (no GPU needed).
//
// Dyadic data (values in {0, +-1/2, +-1}) makes every partial sum a multiple of 1/4 of
// magnitude <= n, exact in float while 4n <= 2^24: any summation order, tensor cores included,
// must then match the reference bit for bit. Random data in [-1, 1) checks the rounding error:
// each product passes through at most (rows per block) / 4 + 3 + blocks additions (a tile's
// chain over the block's rows in steps of 4, the slice and block sums, stage 2's chain), so
// the bound gamma_m sum_r |v_ri w_rj| with m <= n / 4 + 520 holds; the tests use the looser
// 1e-12 (double) and 1e-4 (float) relative to sum_r |v_ri w_rj| at n <= 1e5.
#include "kernels/base/cuda_handles.hpp"
#include "kernels/base/cuda_check.hpp"
#include "kernels/base/device_buffer.hpp"
#include "kernels/dot.hpp"  // dot_counter_bytes
#include "kernels/tall_skinny.hpp"
#include "kernels/test/expect_invalid.hpp"
#include "kernels/test/gpu_test.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace kbench::blas {
namespace {

template <typename T>
std::vector<T> block(std::int64_t ld, int k, bool dyadic, std::uint32_t seed)
{
    std::mt19937 gen(seed);
    std::uniform_real_distribution<double> uniform(-1.0, 1.0);
    std::vector<T> v(static_cast<std::size_t>(ld) * k);
    for (auto& e : v)
        e = dyadic ? static_cast<T>(static_cast<int>(gen() % 5) - 2) / T(2)
                   : static_cast<T>(uniform(gen));
    return v;
}

struct Shape {
    std::int64_t n;
    int kv, kw;
};

/// Checks B (kv x kw, ldb = kv + 2, as copied back from the device) against the reference
/// `expected` (same layout): padding rows untouched (`sentinel`), W == V exactly symmetric,
/// bitwise for dyadic data, else to `tol` relative to sum_r |v_ri w_rj| (v, w: ld ld).
template <typename T>
void check_against_reference(const std::vector<T>& got, const std::vector<T>& expected,
                             std::int64_t n, int kv, int kw, int ldb, const std::vector<T>& v,
                             const std::vector<T>& w, std::int64_t ld, bool symmetric,
                             bool dyadic, double tol, T sentinel)
{
    for (int j = 0; j < kw; ++j) {
        for (int i = 0; i < ldb; ++i) {
            const T g = got[i + j * ldb];
            if (i >= kv) {
                ASSERT_EQ(g, sentinel) << "padding row " << i << " of column " << j << " written";
                continue;
            }
            if (symmetric) {
                ASSERT_EQ(g, got[j + i * ldb]) << "not exactly symmetric at " << i << ", " << j;
            }
            const T e = expected[i + j * ldb];
            if (dyadic) {
                ASSERT_EQ(g, e) << "B(" << i << ", " << j << ")";
            } else {
                double scale = 0.0;
                for (std::int64_t r = 0; r < n; ++r)
                    scale += std::abs(double(v[r + i * ld]) * double(w[r + j * ld]));
                ASSERT_LE(std::abs(double(g) - double(e)), tol * scale + 1e-300)
                    << "B(" << i << ", " << j << ")";
            }
        }
    }
}

/// A device workspace of exactly gram_workspace_bytes bytes made ready by hand: every byte 0xff
/// (NaN partials, counters at 0xffffffff), then gram_workspace_init on `stream`, which must
/// zero the counter region and nothing else be needed.
device_buffer<unsigned char> poisoned_workspace(std::size_t bytes, cudaStream_t stream)
{
    device_buffer<unsigned char> ws(std::vector<unsigned char>(bytes, 0xff));
    gram_workspace_init(ws.data(), ws.bytes(), stream);
    return ws;
}

/// The counter region of a gram workspace, copied back: every counter must be 0 after a call.
std::vector<unsigned int> counters_of(const void* workspace, std::size_t bytes)
{
    std::vector<unsigned int> c(bytes == 0 ? 0 : gram_counter_bytes / sizeof(unsigned int));
    if (!c.empty()) {
        KBENCH_CUDA_CHECK(cudaDeviceSynchronize());
        KBENCH_CUDA_CHECK(cudaMemcpy(c.data(), workspace, gram_counter_bytes,
                                     cudaMemcpyDeviceToHost));
    }
    return c;
}

/// Runs gram on the device for V (n x kv, ld n + 3) and W (W == V when `symmetric`) and checks
/// it against the reference: bitwise for dyadic data, else to `tol` relative to
/// sum_r |v_ri w_rj|. Also checks that B's padding rows (ldb = kv + 2) are untouched, that a
/// second call on the same workspace gives the same bits and that the counters are zero again.
template <typename T>
void check_gram(const Shape& s, bool symmetric, bool dyadic, double tol)
{
    SCOPED_TRACE("n = " + std::to_string(s.n) + ", kv = " + std::to_string(s.kv) + ", kw = " +
                 std::to_string(s.kw) + (symmetric ? ", W == V" : "") + (dyadic ? ", dyadic" : ""));
    const std::int64_t ld = s.n + 3;
    const int kw = symmetric ? s.kv : s.kw;
    const std::vector<T> v = block<T>(ld, s.kv, dyadic, 11);
    const std::vector<T> w = symmetric ? v : block<T>(ld, kw, dyadic, 12);
    const int ldb = s.kv + 2;
    constexpr T sentinel = T(-12345);
    std::vector<T> expected(static_cast<std::size_t>(ldb) * kw, sentinel);
    reference::gram(s.n, s.kv, v.data(), ld, kw, w.data(), ld, expected.data(), ldb);

    device_buffer<T> dv(v), dw(symmetric ? std::vector<T>{} : w);
    device_buffer<T> db(std::vector<T>(static_cast<std::size_t>(ldb) * kw, sentinel));
    const std::size_t bytes = gram_workspace_bytes(s.n, s.kv, kw, sizeof(T));
    const T* wptr = symmetric ? dv.data() : dw.data();
    cuda_stream stream;
    device_buffer<unsigned char> ws = poisoned_workspace(bytes, stream);
    gram(s.n, s.kv, dv.data(), ld, kw, wptr, ld, db.data(), ldb, ws.data(), bytes, stream);
    stream.synchronize();
    const std::vector<T> got = db.to_host();
    gram(s.n, s.kv, dv.data(), ld, kw, wptr, ld, db.data(), ldb, ws.data(), bytes, stream);
    stream.synchronize();
    const std::vector<T> again = db.to_host();
    ASSERT_EQ(std::memcmp(got.data(), again.data(), got.size() * sizeof(T)), 0)
        << "two calls differ";
    for (const unsigned int c : counters_of(ws.data(), bytes)) ASSERT_EQ(c, 0u);
    check_against_reference(got, expected, s.n, s.kv, kw, ldb, v, w, ld, symmetric, dyadic, tol,
                            sentinel);
}

const Shape shapes[] = {{0, 3, 2},     {1, 1, 1},      {100, 3, 5},   {512, 8, 8},
                        {513, 13, 30}, {4097, 30, 30}, {100003, 4, 4}, {100003, 30, 30},
                        {20011, 64, 64}, {20011, 64, 7}, {20011, 17, 33},
                        // W of at most 8 columns under a wider V (padded apart): the one-reduce
                        // Arnoldi step's [u, A u] against the basis.
                        {100003, 31, 2}, {4097, 40, 1}, {513, 13, 8}, {20011, 9, 2},
                        // kw <= 2 (the narrow kernel): n even makes ld = n + 3 odd, its scalar
                        // loads; n odd its 16-byte loads and the one-row tail.
                        {100002, 31, 2}, {20010, 17, 1}, {4097, 64, 2}, {1000, 1, 2}};

TEST(GramGpu, DyadicDataMatchesTheReferenceBitForBit)
{
    KBENCH_REQUIRE_GPU();
    for (const Shape& s : shapes)
        for (const bool sym : {true, false}) {
            check_gram<double>(s, sym, true, 0.0);
            check_gram<float>(s, sym, true, 0.0);
        }
}

TEST(GramGpu, RandomDataIsWithinTheRoundingBound)
{
    KBENCH_REQUIRE_GPU();
    for (const Shape& s : shapes)
        for (const bool sym : {true, false}) {
            check_gram<double>(s, sym, false, 1e-12);
            check_gram<float>(s, sym, false, 1e-4);
        }
}

TEST(GramGpu, EveryColumnCountFrom1To64)
{
    KBENCH_REQUIRE_GPU();
    // n odd: ld = n + 3 even, the double V^T V path's 16-byte loads; n even: its scalar loads.
    for (const std::int64_t n : {3001, 3000})
        for (int k = 1; k <= max_block_columns; ++k) check_gram<double>({n, k, k}, true, true, 0.0);
}

/// One call of a sequence on a shared workspace: W == V (`symmetric`) or a W of kw columns.
struct Call {
    std::int64_t n;
    int kv, kw;
    bool symmetric;
};

/// gram for `c` on dyadic data (seeds from `seed`), on the caller's workspace; returns B
/// (ldb = kv + 2) after checking it bit for bit against the reference.
template <typename T>
std::vector<T> gram_on(const Call& c, std::uint32_t seed, void* workspace, std::size_t bytes,
                       cudaStream_t stream)
{
    SCOPED_TRACE("n = " + std::to_string(c.n) + ", kv = " + std::to_string(c.kv) + ", kw = " +
                 std::to_string(c.kw) + (c.symmetric ? ", W == V" : ""));
    const std::int64_t ld = c.n + 3;
    const int kw = c.symmetric ? c.kv : c.kw;
    const std::vector<T> v = block<T>(ld, c.kv, true, seed);
    const std::vector<T> w = c.symmetric ? v : block<T>(ld, kw, true, seed + 1);
    const int ldb = c.kv + 2;
    constexpr T sentinel = T(-12345);
    std::vector<T> expected(static_cast<std::size_t>(ldb) * kw, sentinel);
    reference::gram(c.n, c.kv, v.data(), ld, kw, w.data(), ld, expected.data(), ldb);
    device_buffer<T> dv(v), dw(c.symmetric ? std::vector<T>{} : w);
    device_buffer<T> db(std::vector<T>(static_cast<std::size_t>(ldb) * kw, sentinel));
    gram(c.n, c.kv, dv.data(), ld, kw, c.symmetric ? dv.data() : dw.data(), ld, db.data(), ldb,
         workspace, bytes, stream);
    KBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
    std::vector<T> got = db.to_host();
    check_against_reference(got, expected, c.n, c.kv, kw, ldb, v, w, ld, c.symmetric, true, 0.0,
                            sentinel);
    return got;
}

TEST(GramGpu, CallsOfEveryShapeInARowShareOneWorkspace)
{
    KBENCH_REQUIRE_GPU();
    // Every kernel (V^T V direct or staged, the staged W != V, the narrow one with 1 to 8
    // column groups and so 1 to 8 counters, scalar and 16-byte loads) and a one-block call
    // that leaves the workspace alone, one after the other on ONE workspace zeroed once: each
    // launch must find its counters zero and leave them zero for the next, whatever the grid.
    const Call calls[] = {{100003, 30, 30, true}, {100003, 31, 2, false}, {20011, 17, 33, false},
                          {4097, 64, 1, false},   {300, 5, 5, true},      {20011, 64, 64, true},
                          {100002, 9, 2, false},  {513, 13, 8, false},    {100003, 64, 2, false},
                          {4097, 3, 3, true}};
    cuda_stream stream;
    GramWorkspace ws(100003, max_block_columns, max_block_columns, 8);  // serves float too
    ASSERT_EQ(ws.bytes(), gram_workspace_bytes(100003, 64, 64, 8));
    for (const bool use_double : {true, false}) {
        SCOPED_TRACE(use_double ? "double" : "float");
        std::vector<std::vector<double>> first_d, again_d;
        std::vector<std::vector<float>> first_f, again_f;
        for (int pass = 0; pass < 2; ++pass) {
            std::uint32_t seed = 21;
            for (const Call& c : calls) {
                if (use_double)
                    (pass == 0 ? first_d : again_d)
                        .push_back(gram_on<double>(c, seed, ws.data(), ws.bytes(), stream));
                else
                    (pass == 0 ? first_f : again_f)
                        .push_back(gram_on<float>(c, seed, ws.data(), ws.bytes(), stream));
                seed += 2;
                if (HasFatalFailure()) return;
                for (const unsigned int counter : counters_of(ws.data(), ws.bytes()))
                    ASSERT_EQ(counter, 0u) << "a counter was left non-zero";
            }
        }
        // Deterministic: the second pass, after every other shape ran on the workspace, gives
        // the same bits as the first.
        for (std::size_t i = 0; i < std::size(calls); ++i) {
            if (use_double) {
                ASSERT_EQ(first_d[i].size(), again_d[i].size());
                EXPECT_EQ(std::memcmp(first_d[i].data(), again_d[i].data(),
                                      first_d[i].size() * sizeof(double)), 0)
                    << "call " << i << " differs between the passes";
            } else {
                ASSERT_EQ(first_f[i].size(), again_f[i].size());
                EXPECT_EQ(std::memcmp(first_f[i].data(), again_f[i].data(),
                                      first_f[i].size() * sizeof(float)), 0)
                    << "call " << i << " differs between the passes";
            }
        }
    }
}

TEST(Gram, WorkspaceQueryAndArgumentErrors)
{
    // gram_counter_bytes of ticket counters (the same region as the dot kernels'), then one
    // kv x kw partial per stage-1 block (one per 512 rows, at most 512).
    EXPECT_EQ(gram_counter_bytes, 256u);
    EXPECT_EQ(gram_counter_bytes, dot_counter_bytes);
    EXPECT_EQ(gram_workspace_bytes(512, 30, 30, 8), 0u);  // one block writes B directly
    EXPECT_EQ(gram_workspace_bytes(100000, 0, 30, 8), 0u);
    EXPECT_EQ(gram_workspace_bytes(100000, 30, 0, 8), 0u);
    EXPECT_EQ(gram_workspace_bytes(513, 30, 30, 8), 256u + 2u * 30 * 30 * 8);
    EXPECT_EQ(gram_workspace_bytes(513, 30, 30, 4), 256u + 2u * 30 * 30 * 4);
    EXPECT_EQ(gram_workspace_bytes(100003, 31, 2, 8), 256u + 196u * 31 * 2 * 8);  // ceil(n/512)
    EXPECT_EQ(gram_workspace_bytes(100000000, 64, 64, 8), 256u + 512u * 64 * 64 * 8);  // capped
    // Nondecreasing in n, kv, kw and value_bytes: the largest shape's size serves the others.
    std::size_t previous = 0;
    for (const std::int64_t n : {0, 1, 512, 513, 5000, 100003, 262144, 100000000}) {
        EXPECT_GE(gram_workspace_bytes(n, 5, 3, 4), previous) << "n = " << n;
        EXPECT_GE(gram_workspace_bytes(n, 6, 3, 4), gram_workspace_bytes(n, 5, 3, 4));
        EXPECT_GE(gram_workspace_bytes(n, 5, 4, 4), gram_workspace_bytes(n, 5, 3, 4));
        EXPECT_GE(gram_workspace_bytes(n, 5, 3, 8), gram_workspace_bytes(n, 5, 3, 4));
        previous = gram_workspace_bytes(n, 5, 3, 4);
    }
    EXPECT_THROW(gram_workspace_bytes(-1, 3, 3, 8), std::invalid_argument);
    EXPECT_THROW(gram_workspace_bytes(10, 65, 3, 8), std::invalid_argument);
    EXPECT_THROW(gram_workspace_bytes(10, 3, 3, 2), std::invalid_argument);
    double fake = 0.0;
    test::expect_invalid([&] { gram<double>(10, 3, &fake, 5, 3, &fake, 10, &fake, 3, nullptr, 0, nullptr); },
                         {"ldv = 5"});
    test::expect_invalid([&] { gram<double>(10, 3, &fake, 10, 3, &fake, 10, &fake, 2, nullptr, 0, nullptr); },
                         {"ldb = 2"});
    test::expect_invalid([&] { gram<double>(1000, 3, &fake, 1000, 3, &fake, 1000, &fake, 3, nullptr, 0, nullptr); },
                         {"workspace"});
    test::expect_invalid([&] { gram<double>(10, 3, nullptr, 10, 3, &fake, 10, &fake, 3, nullptr, 0, nullptr); },
                         {"V is null"});
    // A workspace one byte short names the counter region in the message; a misaligned one.
    const std::size_t need = gram_workspace_bytes(1000, 3, 3, 8);
    alignas(16) static unsigned char ws[1024];
    const auto call = [&](void* workspace, std::size_t bytes) {
        gram<double>(1000, 3, &fake, 1000, 3, &fake, 1000, &fake, 3, workspace, bytes, nullptr);
    };
    test::expect_invalid([&] { call(ws, need - 1); },
                         {"kbench::blas::gram", "workspace of " + std::to_string(need - 1) +
                                                    " bytes", "gram_counter_bytes = 256"});
    test::expect_invalid([&] { call(ws + 4, need); }, {"kbench::blas::gram", "not aligned to 8"});
}

TEST(GramWorkspace, InitAndOwnerNeedNoCudaCallWhenEmpty)
{
    // Without a GPU any CUDA call would throw kbench::cuda_error: none is made for 0 bytes.
    EXPECT_NO_THROW(gram_workspace_init(nullptr, 0, nullptr));
    const GramWorkspace none;
    EXPECT_TRUE(none.empty());
    EXPECT_EQ(none.bytes(), 0u);
    GramWorkspace small(512, 64, 64, 8);  // one block: no workspace needed
    EXPECT_TRUE(small.empty());
    EXPECT_EQ(small.data(), nullptr);
    GramWorkspace no_columns(100000, 0, 2, 8);
    EXPECT_TRUE(no_columns.empty());
}

TEST(GramWorkspace, BadInitArgumentsThrowNamingTheCounterRegion)
{
    alignas(16) static unsigned char ws[16];
    test::expect_invalid([] { gram_workspace_init(nullptr, 512, nullptr); },
                         {"kbench::blas::gram_workspace_init", "workspace is null",
                          "workspace_bytes = 512"});
    test::expect_invalid([] { gram_workspace_init(ws, 16, nullptr); },
                         {"kbench::blas::gram_workspace_init", "workspace_bytes = 16",
                          "gram_counter_bytes = 256", "counter region"});
    test::expect_invalid([] { GramWorkspace w(-1, 3, 3, 8); },
                         {"kbench::blas::gram_workspace_bytes", "n = -1"});
    test::expect_invalid([] { GramWorkspace w(5000, 65, 3, 8); },
                         {"kbench::blas::gram_workspace_bytes", "kv = 65"});
}

}  // namespace
}  // namespace kbench::blas
