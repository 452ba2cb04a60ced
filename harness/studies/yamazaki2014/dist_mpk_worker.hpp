// `kbench dist mpk`, the MPI worker of the yamazaki2014/fig8 runner (bench_dist_mpk.hpp): the
// matrix powers kernel on P ranks against s distributed SpMVs; dist_mpk_worker.cpp describes
// its JSON. Built only with MPI (KBENCH_HAVE_MPI).
#pragma once

namespace CLI {
class App;
}

namespace kbench::harness {

/// Adds `mpk` under `dist` (the `kbench dist` command of harness/cli/dist.cpp).
void add_dist_mpk_subcommand(CLI::App* dist);

}  // namespace kbench::harness
