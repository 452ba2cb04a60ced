// Subcommands of the `kbench` executable (CLI11). Each add_* attaches one subcommand whose
// callback does the work; callbacks throw on errors (main prints "kbench: error: ...").
#pragma once

#include "harness/core/study_context.hpp"
#include "matrices/sellp.hpp"

#include <CLI/CLI.hpp>

namespace kbench::harness {

// Option checks (checks.cpp): CLI11 reports a failed one as "--option: <message>" before
// any callback runs, so bad options are refused before anything else, GPU or not.

/// Accepts a std::regex (ECMAScript); otherwise "'<text>' is not a valid regular expression".
CLI::Validator regex_check();

/// A SELL-P parameter given explicitly: an integer in [1, max] (a power of two when
/// `power_of_two`); the message says to leave it out for spmv::choose_sellp_params' choice.
CLI::Validator sellp_check(bool power_of_two, long long max);

/// Loads the matrix set of `source` (when named) as a run would, so that an unknown set, a bad
/// manifest or a missing matrix directory or file is refused up front, GPU or not. Throws as
/// load_matrix_set.
void check_matrix_source(const MatrixSource& source);

/// --set, --matrix-dir (an existing directory) and --real bound to `source` (run.cpp).
void add_source_options(CLI::App* sub, MatrixSource& source);

/// --sellp-b, --sellp-t, --sigma, --long-row-threshold bound to `p` (0, their value when left
/// out, means spmv::choose_sellp_params' choice; an explicit 0 is refused).
void add_sellp_options(CLI::App* sub, SellpParams& p);

/// Exit status a subcommand's callback asks main to return (0 unless set).
int& exit_status();

/// Throws std::runtime_error "no CUDA device (<reason>)" when no GPU can be used.
void require_gpu(const char* command);

void add_list_command(CLI::App& app);
void add_machine_command(CLI::App& app);
void add_bench_command(CLI::App& app);
/// `kbench bench <family>` for the kernel families (bench_families.cpp), added under `bench` by
/// add_bench_command.
void add_bench_family_subcommands(CLI::App* bench);
void add_reproduce_command(CLI::App& app);
void add_profile_command(CLI::App& app);
void add_matrix_command(CLI::App& app);
/// `kbench matrix fetch` (matrix_fetch.cpp), added under `matrix` by add_matrix_command.
void add_matrix_fetch_subcommand(CLI::App* matrix);
void add_solve_command(CLI::App& app);
/// `kbench peers belos` (peers.cpp).
void add_peers_command(CLI::App& app);
/// `kbench dist` (dist.cpp) with the studies' MPI workers under it (gmres, mpk, ca-gmres),
/// built only with MPI (KBENCH_HAVE_MPI).
void add_dist_command(CLI::App& app);

}  // namespace kbench::harness
