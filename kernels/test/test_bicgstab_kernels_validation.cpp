// Merged BiCGSTAB kernels (kernels/bicgstab_kernels.hpp), part of test_bicgstab_kernels_gpu:
// argument validation of the launchers and the references, and workspace_bytes (CPU, run
// everywhere: every check comes before any CUDA call).
#include "kernels/bicgstab_kernels.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace kbench::bicgstab {
namespace {

// ------------------------------------------------------------------------------------------
// Argument validation (CPU: every check comes before any CUDA call; the pointers below are
// never dereferenced).

void expect_invalid_argument(const std::function<void()>& call,
                             std::initializer_list<std::string> parts)
{
    try {
        call();
        ADD_FAILURE() << "no exception";
    } catch (const std::invalid_argument& e) {
        const std::string msg = e.what();
        for (const std::string& part : parts)
            EXPECT_NE(msg.find(part), std::string::npos) << "'" << part << "' not in: " << msg;
    }
}

TEST(BicgstabValidation, NegativeLengthIsRejected)
{
    double a[4] = {}, b[4] = {}, c[4] = {}, d[4] = {}, e[4] = {}, f[4] = {};
    DeviceScalars<double> sc;
    alignas(16) unsigned char ws[64] = {};
    const std::initializer_list<std::string> n_parts{"parameter 'n' is -1", "expected n >= 0"};
    expect_invalid_argument([&] { init<double>(-1, a, b, c, d, &sc, ws, 64, nullptr); },
                            {"kbench::bicgstab::init"});
    expect_invalid_argument([&] { init<double>(-1, a, b, c, d, &sc, ws, 64, nullptr); }, n_parts);
    expect_invalid_argument([&] { p_update<double>(-1, a, b, c, &sc, nullptr); },
                            {"kbench::bicgstab::p_update", "'n' is -1"});
    expect_invalid_argument([&] { alpha_dot<double>(-1, a, b, &sc, ws, 64, nullptr); },
                            {"kbench::bicgstab::alpha_dot", "'n' is -1"});
    expect_invalid_argument([&] { s_update<double>(-1, a, b, c, &sc, nullptr); },
                            {"kbench::bicgstab::s_update", "'n' is -1"});
    expect_invalid_argument(
        [&] { omega_dot<float>(-1, nullptr, nullptr, nullptr, ws, 64, nullptr); },
        {"kbench::bicgstab::omega_dot", "'n' is -1"});
    expect_invalid_argument(
        [&] { xr_update<double>(-1, a, b, c, d, e, f, &sc, ws, 64, nullptr); },
        {"kbench::bicgstab::xr_update", "'n' is -1"});
    expect_invalid_argument([&] { reference::alpha_dot<double>(-1, a, b, &sc); },
                            {"kbench::bicgstab::reference::alpha_dot", "'n' is -1"});
    expect_invalid_argument([&] { (void)workspace_bytes(-1); },
                            {"kbench::bicgstab::workspace_bytes", "'n' is -1"});
}

TEST(BicgstabValidation, NullVectorIsRejected)
{
    double a[4] = {}, b[4] = {}, c[4] = {}, d[4] = {}, e[4] = {}, f[4] = {};
    DeviceScalars<double> sc;
    const std::int64_t n = 4;  // one block: no workspace needed
    const std::initializer_list<std::string> tail{"is null, expected an array of n = 4 elements"};
    expect_invalid_argument([&] { init<double>(n, a, nullptr, c, d, &sc, nullptr, 0, nullptr); },
                            {"kbench::bicgstab::init", "'r_hat'"});
    expect_invalid_argument([&] { init<double>(n, a, b, c, nullptr, &sc, nullptr, 0, nullptr); },
                            tail);
    expect_invalid_argument([&] { p_update<double>(n, a, b, nullptr, &sc, nullptr); },
                            {"kbench::bicgstab::p_update", "'p'"});
    expect_invalid_argument([&] { alpha_dot<double>(n, nullptr, b, &sc, nullptr, 0, nullptr); },
                            {"kbench::bicgstab::alpha_dot", "'r_hat'"});
    expect_invalid_argument([&] { s_update<double>(n, a, b, nullptr, &sc, nullptr); },
                            {"kbench::bicgstab::s_update", "'s_vec'"});
    expect_invalid_argument([&] { omega_dot<double>(n, nullptr, b, &sc, nullptr, 0, nullptr); },
                            {"kbench::bicgstab::omega_dot", "'t'"});
    const char* names[] = {"'r_hat'", "'p'", "'s_vec'", "'t'", "'x'", "'r'"};
    for (int k = 0; k < 6; ++k) {
        double* ptr[6] = {a, b, c, d, e, f};
        ptr[k] = nullptr;
        expect_invalid_argument(
            [&] {
                xr_update<double>(n, ptr[0], ptr[1], ptr[2], ptr[3], ptr[4], ptr[5], &sc, nullptr,
                                  0, nullptr);
            },
            {"kbench::bicgstab::xr_update", names[k]});
        expect_invalid_argument(
            [&] {
                reference::xr_update<double>(n, ptr[0], ptr[1], ptr[2], ptr[3], ptr[4], ptr[5],
                                             &sc);
            },
            {"kbench::bicgstab::reference::xr_update", names[k]});
    }
    expect_invalid_argument([&] { alpha_dot<double>(n, a, b, nullptr, nullptr, 0, nullptr); },
                            {"kbench::bicgstab::alpha_dot", "'sc' is null"});
    expect_invalid_argument(
        [&] { p_update<float>(0, nullptr, nullptr, nullptr, nullptr, nullptr); },
        {"kbench::bicgstab::p_update", "'sc' is null"});
    expect_invalid_argument([&] { reference::init<double>(n, nullptr, b, c, d, &sc); },
                            {"kbench::bicgstab::reference::init", "'r'"});
}

TEST(BicgstabValidation, BadWorkspaceIsRejected)
{
    double a[4] = {}, b[4] = {}, c[4] = {}, d[4] = {}, e[4] = {}, f[4] = {};
    DeviceScalars<double> sc;
    const std::int64_t n = 1000;  // vectors are not dereferenced: validation throws first
    const std::size_t need = workspace_bytes(n);
    ASSERT_GT(need, 0u);
    const std::string need_text = "expected at least workspace_bytes(n) = " + std::to_string(need);
    std::vector<unsigned char> storage(need + 32);
    void* aligned = storage.data() + (16 - reinterpret_cast<std::uintptr_t>(storage.data()) % 16);
    void* misaligned = static_cast<unsigned char*>(aligned) + 8;
    expect_invalid_argument([&] { init<double>(n, a, b, c, d, &sc, aligned, need - 1, nullptr); },
                            {"kbench::bicgstab::init", "'ws_bytes'", need_text});
    expect_invalid_argument([&] { alpha_dot<double>(n, a, b, &sc, aligned, 0, nullptr); },
                            {"kbench::bicgstab::alpha_dot", "'ws_bytes' is 0", need_text});
    expect_invalid_argument([&] { omega_dot<double>(n, a, b, &sc, aligned, need - 1, nullptr); },
                            {"kbench::bicgstab::omega_dot", "'ws_bytes'", need_text});
    expect_invalid_argument(
        [&] { xr_update<double>(n, a, b, c, d, e, f, &sc, aligned, need / 2, nullptr); },
        {"kbench::bicgstab::xr_update", "'ws_bytes'", need_text});
    expect_invalid_argument([&] { alpha_dot<double>(n, a, b, &sc, nullptr, need, nullptr); },
                            {"kbench::bicgstab::alpha_dot", "'ws' is null"});
    expect_invalid_argument([&] { alpha_dot<double>(n, a, b, &sc, misaligned, need, nullptr); },
                            {"kbench::bicgstab::alpha_dot", "'ws' is misaligned", "16 bytes"});
}

TEST(BicgstabValidation, WorkspaceBytes)
{
    EXPECT_EQ(workspace_bytes(0), 0u);  // one block: no counter, no partials
    EXPECT_EQ(workspace_bytes(256), 0u);
    EXPECT_GE(workspace_bytes(257), 2 * 3 * sizeof(double));  // two blocks of 3 partials
    std::size_t prev = 0;
    for (std::int64_t n = 1; n <= (std::int64_t{1} << 40); n *= 3) {
        const std::size_t bytes = workspace_bytes(n);
        EXPECT_GE(bytes, prev) << "n=" << n;
        prev = bytes;
    }
    EXPECT_EQ(workspace_bytes(std::int64_t{1} << 40), workspace_bytes(std::int64_t{1} << 30));
    EXPECT_EQ(workspace_bytes(std::numeric_limits<std::int64_t>::max()),
              workspace_bytes(std::int64_t{1} << 30));
}

}  // namespace
}  // namespace kbench::bicgstab
