// yamazaki2014, orthogonalization part (Sec. V): the loss of orthogonality of the TSQR methods
// vs the condition number of the block (Fig. 10), and the throughput of the tall-skinny kernels
// (DGEMV both ways, Gram matrix, TRSM) and of every TSQR method against cuBLAS and cuSOLVER over
// the rows and the columns of the block (Fig. 11). Double precision; tall-skinny blocks only,
// so the matrix set (--set) is not used. Runners:
// harness/studies/yamazaki2014/bench_tall_skinny.hpp.
#include "harness/studies/yamazaki2014/bench_tall_skinny.hpp"
#include "harness/core/study.hpp"

namespace kbench::harness {
namespace {

const StudyRegistrar registrar{
    {"yamazaki2014/fig10",
     "yamazaki2014 Fig. 10: ||I - Q^T Q||_2 and ||V - QR||/||V|| of MGS, CGS, CGS2, CholQR, "
     "CholQR2, SVQR, CAQR and shifted CholQR3, GPU and CPU reference, for n = 1e5 x 30 blocks of "
     "kappa = 1e1..1e15 (uses no matrix set)",
     "default", StudyNeeds{1, false, false}, "", run_tsqr_quality_study},
    {"yamazaki2014/fig11",
     "yamazaki2014 Fig. 11: GB/s and GFlop/s of tall-skinny V^T y, y - V r, V^T V, V R^-1 and "
     "every TSQR method vs cuBLAS/cuSOLVER, n = 1e4..1e8 at k = 30 and k = 1..64 at n = 1e7 "
     "(uses no matrix set)",
     "default", StudyNeeds{1, false, false}, "", run_tall_skinny_study},
};

}  // namespace
}  // namespace kbench::harness
