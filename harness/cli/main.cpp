// kbench: benchmarking and performance-model harness for GPU Krylov solvers.
// Subcommands: list, machine, bench spmv, reproduce, profile, matrix (see `kbench --help`).
#include "harness/cli/cli.hpp"
#include "harness/core/study_context.hpp"

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <exception>
#include <string>
#include <vector>

namespace {

/// Names of the subcommands of `app`, for error messages.
std::string subcommand_names(const CLI::App* app)
{
    std::string names;
    for (const auto* sub : app->get_subcommands([](const CLI::App*) { return true; })) {
        names += (names.empty() ? "" : ", ") + sub->get_name();
    }
    return names;
}

/// "kbench bench spmv" for the spmv subcommand of bench.
std::string command_path(const CLI::App* app)
{
    return app->get_parent() == nullptr ? "kbench"
                                        : command_path(app->get_parent()) + " " + app->get_name();
}

/// The innermost subcommand that was given on the command line.
const CLI::App* innermost(const CLI::App* app)
{
    for (const auto* sub : app->get_subcommands()) return innermost(sub);
    return app;
}

}  // namespace

int main(int argc, char** argv)
{
    using namespace kbench::harness;
    try {
        command_argv().assign(argv, argv + argc);
        int bench_argc = 1;
        benchmark::Initialize(&bench_argc, argv);  // sets the executable name; no flags parsed

        CLI::App app{"kbench: benchmarks and performance models of GPU Krylov solvers"};
        app.name("kbench");
        app.require_subcommand(1);
        add_list_command(app);
        add_machine_command(app);
        add_bench_command(app);
        add_reproduce_command(app);
        add_profile_command(app);
        add_matrix_command(app);
        add_solve_command(app);
        add_peers_command(app);
#ifdef KBENCH_HAVE_MPI
        add_dist_command(app);
#endif
        try {
            app.parse(argc, argv);
        } catch (const CLI::ParseError& e) {
            if (e.get_exit_code() == 0) return app.exit(e);  // --help
            const CLI::App* where = innermost(&app);
            const auto rest = where->remaining();
            std::string msg = fmt::format("kbench: error: {}", e.what());
            if (!rest.empty() && where->get_subcommands().empty() &&
                !where->get_subcommands([](const CLI::App*) { return true; }).empty()) {
                msg = fmt::format("kbench: error: unknown subcommand '{}' of '{}'", rest.front(),
                                  command_path(where));
            }
            const std::string subs = subcommand_names(where);
            if (!subs.empty()) msg += fmt::format("\n  valid subcommands: {}", subs);
            fmt::print(stderr, "{}\n  see '{} --help'\n", msg, command_path(where));
            return e.get_exit_code() != 0 ? e.get_exit_code() : 1;
        }
        return exit_status();
    } catch (const std::exception& e) {
        fmt::print(stderr, "kbench: error: {}\n", e.what());
        return 1;
    } catch (...) {
        fmt::print(stderr, "kbench: error: unknown exception\n");
        return 1;
    }
}
