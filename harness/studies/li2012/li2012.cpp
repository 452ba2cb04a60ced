// li2012 (SPIKE::GPU: truncated SPIKE preconditioning BiCGStab for banded systems): the
// truncated-SPIKE residual vs diagonal dominance, the partition-size tuning, time vs N and vs K
// against LAPACK dgbsv, SPIKE on every CPU core (OpenMP) and cuDSS, the time per phase, and the
// mixed-precision preconditioner.
// li2012's random banded matrices are generated per point, so the matrix set (--set) is not
// used. Runners: harness/studies/li2012/bench_spike.hpp.
#include "harness/studies/li2012/bench_spike.hpp"
#include "harness/core/study.hpp"

namespace kbench::harness {
namespace {

const StudyRegistrar registrar{
    {"li2012/table1",
     "li2012 Table 1: truncated SPIKE's relative residual ||b - A M^-1 b||_inf / ||b||_inf vs "
     "diagonal dominance d = 1..1e4 (N = 1e5, K = 32, 3 seeds; random signs and an M-matrix) "
     "and the SPIKE+BiCGStab iterations (uses no matrix set)",
     "default", StudyNeeds{1, false, false}, "", run_spike_residual_study},
    {"li2012/table3",
     "li2012 Table 3: SPIKE+BiCGStab time at the hand-tuned (best of a sweep), automatic and "
     "ill-tuned (min(2048, N/2)) partition size, N = 2e3..1e5, K = 32, and Fig. 3's N = 8192 "
     "vs 8191 (uses no matrix set)",
     "default", StudyNeeds{1, false, false}, "", run_spike_psize_study},
    {"li2012/fig4",
     "li2012 Fig. 4: time vs N = 1e4..1e7 at K = 32: SPIKE+BiCGStab (double, mixed) vs LAPACK "
     "dgbsv (1 thread, all cores) and cuDSS, when built, and SPIKE+BiCGStab on every CPU core "
     "(OpenMP), within time budgets (uses no matrix set)",
     "default", StudyNeeds{1, false, false}, "", run_spike_scaling_study},
    {"li2012/fig5",
     "li2012 Fig. 5: time vs K = 1..256 at N = 400,000: SPIKE+BiCGStab (double, mixed) vs "
     "dgbsv and cuDSS, when built, and SPIKE+BiCGStab on every CPU core (uses no matrix set)",
     "default", StudyNeeds{1, false, false}, "", run_spike_scaling_study},
    {"li2012/fig6",
     "li2012 Fig. 6: time per phase (LU/UL, spikes, reduced system, BiCGStab SpMV, "
     "preconditioner, other) of a detailed SPIKE+BiCGStab solve, N = 8e5, K = 32, psize 2048 "
     "and automatic, with the model's (uses no matrix set)",
     "default", StudyNeeds{1, false, false}, "", run_spike_phases_study},
    {"li2012/mixed",
     "li2012 Sec. 2.4: SPIKE preconditioner in float vs double inside double BiCGStab: time, "
     "iterations and speedup over a few (N, K, d), one an M-matrix (uses no matrix set)",
     "default", StudyNeeds{1, false, false}, "", run_spike_mixed_study},
};

}  // namespace
}  // namespace kbench::harness
