// peers (issue 28): kbench's solvers against other projects' on the same systems. Runners:
// harness/studies/peers/bench_peers.hpp (CuPy, SciPy); `kbench peers belos` compares the CPU block GMRES with
// Trilinos Belos.
#include "harness/studies/peers/bench_peers.hpp"
#include "harness/core/study.hpp"

namespace kbench::harness {
namespace {

const StudyRegistrar registrar{
    {"peers/gmres",
     "peers: kbench GMRES(30) on one GPU (CGS2, low-sync CGS2) vs CuPy's gmres (GPU) and "
     "SciPy's (CPU): Arnoldi steps, time per step, time to the tolerance, true residual",
     "peers", StudyNeeds{1, false, false}, "", run_peers_gmres_study},
    {"peers/bicgstab",
     "peers: kbench BiCGSTAB on one GPU (merged and graph forms) vs CuPy's bicgstab (GPU) and "
     "SciPy's (CPU): iterations, time per iteration, time to the tolerance, true residual",
     "peers", StudyNeeds{1, false, false}, "", run_peers_bicgstab_study},
};

}  // namespace
}  // namespace kbench::harness
