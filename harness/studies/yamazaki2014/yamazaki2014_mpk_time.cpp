// yamazaki2014, matrix powers kernel (Sec. IV-B, Fig. 8): the time of MPK to generate m = 100
// basis vectors against s SpMVs, on 1, 2, 4, ... GPUs with the host-staged and NCCL transports,
// total and SpMV part, with the MPK model's prediction beside each measurement. Runner:
// harness/studies/yamazaki2014/bench_dist_mpk.hpp (each run is an `mpirun ... kbench dist mpk`
// worker).
#include "harness/studies/yamazaki2014/bench_dist_mpk.hpp"
#include "harness/core/study.hpp"

namespace kbench::harness {
namespace {

const StudyRegistrar registrar{
    {"yamazaki2014/fig8",
     "yamazaki2014 Fig. 8: MPK time for m = 100 vectors (total and SpMV part) vs s in 1..20 "
     "against s SpMVs, on 1, 2, 4, ... GPUs over host-staged MPI and NCCL, stand-ins of cant "
     "and G3_circuit, with the MPK model's predicted time",
     "yamazaki2014-mpk", StudyNeeds{1, false, true}, "", run_mpk_time},
};

}  // namespace
}  // namespace kbench::harness
