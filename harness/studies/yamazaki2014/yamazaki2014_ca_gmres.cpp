// yamazaki2014 CA-GMRES on one GPU and, with MPI, on 2, 4, ... GPUs: GMRES(m) vs CA-GMRES(s, m)
// per restart cycle with each TSQR (fig14, fig15), the test matrices with the first Gram
// matrix's condition number (fig12) and the TSQR errors inside CA-GMRES (fig13). Runners:
// harness/studies/yamazaki2014/bench_ca_gmres.hpp.
#include "harness/studies/yamazaki2014/bench_ca_gmres.hpp"
#include "harness/core/study.hpp"

namespace kbench::harness {
namespace {

const StudyRegistrar registrar{
    {"yamazaki2014/fig14",
     "yamazaki2014 Fig. 14: GMRES(m) (MGS, CGS2) vs CA-GMRES(1, m) and (15, m) with each TSQR: "
     "restarts, time per restart split into Orth, TSQR and SpMV/MPK, speedup; one GPU and, "
     "with MPI, 2, 4, ... GPUs over host-staged MPI and NCCL",
     "yamazaki2014", StudyNeeds{1, false, false}, "", run_ca_gmres_study},
    {"yamazaki2014/fig12",
     "yamazaki2014 Fig. 12: the test matrices (stand-ins), n, nnz/n, the two largest Ritz values "
     "and the condition number of the last Gram matrix of the first CA-GMRES restart",
     "yamazaki2014", StudyNeeds{1, false, false}, "yamazaki2014/fig14", run_ca_gmres_study},
    {"yamazaki2014/fig15",
     "yamazaki2014 Fig. 15: CA-GMRES time per restart normalized to GMRES's, per matrix",
     "yamazaki2014", StudyNeeds{1, false, false}, "yamazaki2014/fig14", run_ca_gmres_study},
    {"yamazaki2014/fig13",
     "yamazaki2014 Fig. 13: TSQR errors ||I - Q^T Q|| and ||V - QR|| / ||V|| inside CA-GMRES(20, 30) "
     "and (30, 30) for each TSQR, on the G3_circuit stand-in",
     "yamazaki2014", StudyNeeds{1, false, false}, "", run_ca_tsqr_error_study},
};

}  // namespace
}  // namespace kbench::harness
