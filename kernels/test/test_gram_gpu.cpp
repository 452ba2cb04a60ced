// Fused Gram kernel (kernels/tall_skinny.hpp, blas::gram; kernels/gram.cu): GPU tests against
// reference::gram, plus the argument checks and the workspace query (no GPU needed).
//
// Dyadic data (values in {0, +-1/2, +-1}) makes every partial sum a multiple of 1/4 of
// magnitude <= n, exact in float while 4n <= 2^24: any summation order, tensor cores included,
// must then match the reference bit for bit. Random data in [-1, 1) checks the rounding error:
// each product passes through at most (rows per block) / 4 + 3 + blocks additions (a tile's
// chain over the block's rows in steps of 4, the slice and block sums, stage 2's chain), so
// the bound gamma_m sum_r |v_ri w_rj| with m <= n / 4 + 520 holds; the tests use the looser
// 1e-12 (double) and 1e-4 (float) relative to sum_r |v_ri w_rj| at n <= 1e5.
#include "kernels/base/cuda_handles.hpp"
#include "kernels/base/device_buffer.hpp"
#include "kernels/tall_skinny.hpp"
#include "kernels/test/expect_invalid.hpp"
#include "kernels/test/gpu_test.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>
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

/// Runs gram on the device for V (n x kv, ld n + 3) and W (W == V when `symmetric`) and checks
/// it against the reference: bitwise for dyadic data, else to `tol` relative to
/// sum_r |v_ri w_rj|. Also checks that B's padding rows (ldb = kv + 2) are untouched and that a
/// second call gives the same bits.
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
    device_buffer<unsigned char> ws(bytes);
    const T* wptr = symmetric ? dv.data() : dw.data();
    cuda_stream stream;
    gram(s.n, s.kv, dv.data(), ld, kw, wptr, ld, db.data(), ldb, ws.data(), bytes, stream);
    stream.synchronize();
    const std::vector<T> got = db.to_host();
    gram(s.n, s.kv, dv.data(), ld, kw, wptr, ld, db.data(), ldb, ws.data(), bytes, stream);
    stream.synchronize();
    const std::vector<T> again = db.to_host();
    ASSERT_EQ(std::memcmp(got.data(), again.data(), got.size() * sizeof(T)), 0)
        << "two calls differ";

    for (int j = 0; j < kw; ++j) {
        for (int i = 0; i < ldb; ++i) {
            const T g = got[i + j * ldb];
            if (i >= s.kv) {
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
                for (std::int64_t r = 0; r < s.n; ++r)
                    scale += std::abs(double(v[r + i * ld]) * double(w[r + j * ld]));
                ASSERT_LE(std::abs(double(g) - double(e)), tol * scale + 1e-300)
                    << "B(" << i << ", " << j << ")";
            }
        }
    }
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

TEST(Gram, WorkspaceQueryAndArgumentErrors)
{
    EXPECT_EQ(gram_workspace_bytes(512, 30, 30, 8), 0u);  // one block writes B directly
    EXPECT_EQ(gram_workspace_bytes(513, 30, 30, 8), 2u * 30 * 30 * 8);
    EXPECT_EQ(gram_workspace_bytes(100000000, 64, 64, 8), 512u * 64 * 64 * 8);  // capped
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
}

}  // namespace
}  // namespace kbench::blas
