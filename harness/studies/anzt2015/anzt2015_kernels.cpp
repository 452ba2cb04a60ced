// anzt2015, kernel part: the dot-product kernels MDOT and MDGM against cuBLAS (Figs. 7 and 8),
// the fused p update against three cuBLAS calls (Fig. 9) and the dot products of one BiCGSTAB
// iteration, cuBLAS vs merged, with the refit of the savings curve F(n) (Fig. 10). Double
// precision; vectors only, so the matrix set (--set) is not used.
#include "harness/studies/anzt2015/bench_vector_kernels.hpp"
#include "harness/core/study.hpp"

namespace kbench::harness {
namespace {

const StudyRegistrar registrar{
    {"anzt2015/fig7",
     "anzt2015 Fig. 7: GFlop/s of k = 1..32 dot products sharing y (cuBLAS ddot sequence, MDOT, "
     "MDGM, cuBLAS dgemv), n = 1e5 and 1e6 (uses no matrix set)",
     "default", StudyNeeds{1, false, false}, "", run_dot_vectors_study},
    {"anzt2015/fig8",
     "anzt2015 Fig. 8: cuBLAS ddot vs MDOT for 1 and 2 dot products over n = 1e3..1e8, and where "
     "MDGM beats cuBLAS dgemv over (n, k) (uses no matrix set)",
     "default", StudyNeeds{1, false, false}, "", run_dot_length_study},
    {"anzt2015/fig9",
     "anzt2015 Fig. 9: p update as 3 cuBLAS calls vs the fused kernel, GFlop/s and GB/s over "
     "n = 1e3..1e8 under the read-bandwidth roofline (uses no matrix set)",
     "default", StudyNeeds{1, false, false}, "", run_p_update_study},
    {"anzt2015/fig10",
     "anzt2015 Fig. 10: BiCGSTAB dot sequence, 5 cuBLAS ddot (host results) vs 3 MDOT calls, "
     "savings over n = 1e3..1e8 and a refit of F(n) (uses no matrix set)",
     "default", StudyNeeds{1, false, false}, "", run_dot_savings_study},
};

}  // namespace
}  // namespace kbench::harness
