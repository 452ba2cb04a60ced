// `kbench dist gmres`, the MPI worker of the zianekhodja2014 runners (bench_dist_gmres.hpp):
// one distributed GMRES run on P ranks; dist_gmres_worker.cpp describes its JSON. Built only
// with MPI (KBENCH_HAVE_MPI).
#pragma once

namespace CLI {
class App;
}

namespace kbench::harness {

/// Adds `gmres` under `dist` (the `kbench dist` command of harness/cli/dist.cpp).
void add_dist_gmres_subcommand(CLI::App* dist);

}  // namespace kbench::harness
