// `kbench dist`: the MPI workers of the distributed studies, each a subcommand added by its
// study (harness/studies/<paper>/dist_*_worker.hpp). Built only with MPI (KBENCH_HAVE_MPI).
#include "harness/cli/cli.hpp"
#include "harness/studies/yamazaki2014/dist_ca_gmres_worker.hpp"
#include "harness/studies/yamazaki2014/dist_mpk_worker.hpp"
#include "harness/studies/zianekhodja2014/dist_gmres_worker.hpp"

namespace kbench::harness {

void add_dist_command(CLI::App& app)
{
    auto* dist_cmd = app.add_subcommand(
        "dist", "Distributed solvers over MPI (launch with mpirun -np P; subcommands: gmres, "
                "mpk, ca-gmres)");
    dist_cmd->require_subcommand(1);
    add_dist_gmres_subcommand(dist_cmd);
    add_dist_mpk_subcommand(dist_cmd);
    add_dist_ca_gmres_subcommand(dist_cmd);
}

}  // namespace kbench::harness
