// zianekhodja2014: Jacobi-preconditioned GMRES(16) over MPI on CPU ranks and GPU ranks, the halo
// schemes, hypergraph partitioning, communication volumes and weak scaling. Runners:
// harness/studies/zianekhodja2014/bench_dist_gmres.hpp (each run is an `mpirun ... kbench dist
// gmres` worker).
#include "harness/studies/zianekhodja2014/bench_dist_gmres.hpp"
#include "harness/core/study.hpp"

namespace kbench::harness {
namespace {

const StudyRegistrar registrar{
    {"zianekhodja2014/table2",
     "zianekhodja2014 Table 2: Jacobi GMRES(16) on CPU ranks (one per core) vs GPU ranks (one "
     "per GPU): time, tau, iterations, Prec and Delta (formula 6), real matrices and replications",
     "zianekhodja2014", StudyNeeds{1, false, true}, "", run_dist_table2},
    {"zianekhodja2014/table5",
     "zianekhodja2014 Table 5: compressed halo vs the bandwidth (row-by-row) global vector on "
     "band matrices replicated from real ones, every GPU, both transports",
     "zianekhodja2014-band", StudyNeeds{2, false, true}, "", run_dist_schemes},
    {"zianekhodja2014/table8",
     "zianekhodja2014 Table 8: five-band matrices, hypergraph partitioning (Zoltan PHG) + "
     "compressed halo vs compressed alone, every GPU, both transports",
     "zianekhodja2014-fiveband", StudyNeeds{2, false, true}, "", run_dist_schemes},
    {"zianekhodja2014/table9",
     "zianekhodja2014 Table 9: total communication volume per SpMV of the three schemes, counted "
     "exactly, and the hypergraph partitioning time (from table8's runs)",
     "zianekhodja2014-fiveband", StudyNeeds{2, false, true}, "zianekhodja2014/table8",
     run_dist_table9},
    {"zianekhodja2014/fig9",
     "zianekhodja2014 Fig. 9: weak scaling at 5M rows per rank, natural/hypergraph x "
     "bandwidth/compressed, on 1, 2, 4, ... GPUs with both transports and on CPU ranks",
     "zianekhodja2014-weak", StudyNeeds{2, false, true}, "", run_dist_weak_scaling},
};

}  // namespace
}  // namespace kbench::harness
