// `kbench dist ca-gmres`, the MPI worker of the yamazaki2014/fig14 runner (bench_ca_gmres.hpp):
// GMRES and CA-GMRES on P ranks; dist_ca_gmres_worker.cpp describes its JSON. Built only with
// MPI (KBENCH_HAVE_MPI).
#pragma once

namespace CLI {
class App;
}

namespace kbench::harness {

/// Adds `ca-gmres` under `dist` (the `kbench dist` command of harness/cli/dist.cpp).
void add_dist_ca_gmres_subcommand(CLI::App* dist);

}  // namespace kbench::harness
