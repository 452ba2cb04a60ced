// boman2022 (block GMRES vs s x GMRES, latency-bandwidth model of the block size): the block
// speedup on the GPU and the CPU, the model calibrated on the machine against it, and the
// vanbody iteration table. Runners: harness/studies/boman2022/bench_block_gmres.hpp.
#include "harness/studies/boman2022/bench_block_gmres.hpp"
#include "harness/core/study.hpp"

namespace kbench::harness {
namespace {

const StudyRegistrar registrar{
    {"boman2022/speedup",
     "boman2022: block speedup T(s x GMRES) / T(BGMRES) and T(s x GMRES) / T(pseudo-block GMRES) "
     "vs s = 1..64 on the GPU and the CPU (the CPU within a time budget), not restarted and restarted (m = 30, 50)",
     "boman2022", StudyNeeds{1, false, false}, "", run_block_speedup_study},
    {"boman2022/vanbody",
     "boman2022 vanbody table: BGMRES block steps and total iterations vs number of right-hand "
     "sides (5..64) at boman2022's restart lengths, on the closest available matrix",
     "boman2022-vanbody", StudyNeeds{1, false, false}, "", run_vanbody_study},
    {"boman2022/model",
     "boman2022 runtime model: modeled (alpha, beta, gamma calibrated on the GPU and the CPU) vs "
     "measured block speedup, predicted vs measured optimal s",
     "boman2022", StudyNeeds{1, false, false}, "boman2022/speedup", run_block_speedup_study},
};

}  // namespace
}  // namespace kbench::harness
