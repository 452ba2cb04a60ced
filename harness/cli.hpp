// Subcommands of the `kbench` executable (CLI11). Each add_* attaches one subcommand whose
// callback does the work; callbacks throw on errors (main prints "kbench: error: ...").
#pragma once

#include <CLI/CLI.hpp>

namespace kbench::harness {

/// Exit status a subcommand's callback asks main to return (0 unless set).
int& exit_status();

/// Throws std::runtime_error "no CUDA device (<reason>)" when no GPU can be used.
void require_gpu(const char* command);

void add_list_command(CLI::App& app);
void add_machine_command(CLI::App& app);
void add_bench_command(CLI::App& app);
void add_reproduce_command(CLI::App& app);
void add_profile_command(CLI::App& app);
void add_matrix_command(CLI::App& app);
/// `kbench matrix fetch` (cli_matrix_fetch.cpp), added under `matrix` by add_matrix_command.
void add_matrix_fetch_subcommand(CLI::App* matrix);
void add_solve_command(CLI::App& app);
/// `kbench dist gmres` (cli_dist.cpp), built only with MPI (KBENCH_HAVE_MPI).
void add_dist_command(CLI::App& app);
/// `kbench dist mpk` (cli_dist_mpk.cpp), added under `dist` by add_dist_command.
void add_dist_mpk_subcommand(CLI::App* dist);
/// `kbench dist ca-gmres` (cli_dist_ca_gmres.cpp), added under `dist` by add_dist_command.
void add_dist_ca_gmres_subcommand(CLI::App* dist);

}  // namespace kbench::harness
