"""yamazaki2014's claims, checked on the results its renderers read (yamazaki2014_mpk_time.py,
yamazaki2014_tsqr.py, yamazaki2014_ca_gmres.py).

  yamazaki2014/fig8   on several GPUs the matrix powers kernel with s > 1 beats s = 1.
  yamazaki2014/fig11  a batched Gram kernel beats the vendor DGEMM for V^T V, and a custom
                      DGEMV beats the vendor's for V^T y by about 5x.
  yamazaki2014/fig14  CA-GMRES is 1.3-2.1x faster per restart than GMRES on one to three GPUs.

Claims only (analysis/claim.py): RENDERERS is empty, so render.discover imports the module and
finds no ids in it.
"""

from __future__ import annotations

import math
from typing import Any, Dict, List, Tuple

import kbench_results
from claim import SAME_ORDER, Claim, ClaimCheck, judged, untested
from report import fmt, fmt_pct, geomean
from . import yamazaki2014_ca_gmres as ca
from . import yamazaki2014_mpk_time as mpk
from .yamazaki2014_tsqr import TABLE_K, TABLE_N, perf_entries, pow10_label, speedup

PAPER_CA_SPEEDUP = (1.3, 2.1)  # fig14: 1.31-2.03 (Fig. 14) and 1.32-2.06 (Fig. 15), rounded
MAX_GPUS = 3                   # fig14: the paper's machine had three GPUs
GRAM_BEATS = 1.0               # fig11: "outperforms": any speedup over cuBLAS DGEMM
PAPER_GEMV_FACTOR = 5.0        # fig11: the custom DGEMV "by a factor of about five"


def fig8_mpk_saving(res: kbench_results.Results) -> ClaimCheck:
    """yamazaki2014 Sec. IV-B, Fig. 8: per stand-in of cant and G3_circuit, the largest saving
    1 - T(best s > 1) / T(s = 1) over the runs on 2 or more GPUs, at least the paper's
    (PAPER_SAVING). In: the results of yamazaki2014/fig8; out: the saving per matrix."""
    rows = mpk.entries(res)
    parts, ok, runs = [], True, 0
    for m in mpk.matrices(res, rows):
        paper = mpk.PAPER_SAVING.get(mpk.paper_matrix(res, m))
        if paper is None:
            continue
        savings = []
        for e in mpk.runs(rows, m):
            b = mpk.best(e) if mpk.ok(e) and mpk.num(e, "ranks") >= 2 else None
            if b is not None:
                savings.append(mpk.saving(mpk.num(b, "seconds"),
                                          mpk.num(mpk.first_step(e), "seconds")))
        savings = [s for s in savings if not math.isnan(s)]
        if not savings:
            continue
        runs += len(savings)
        ok = ok and max(savings) >= paper
        parts.append(f"{mpk.paper_matrix(res, m)} ({m}): up to {fmt_pct(max(savings))}")
    if not parts:
        return untested("no run on 2 or more GPUs of a stand-in of cant or G3_circuit")
    return judged(ok, "; ".join(parts),
                  f"best s > 1 vs s = 1 over {runs} runs (GPU count, transport) on 2 or more GPUs; "
                  "holds when each matrix reaches the paper's saving (16 % cant, 11 % G3_circuit)")


def fig11_gram(res: kbench_results.Results) -> ClaimCheck:
    """yamazaki2014 Sec. V-F, Fig. 11a: the geometric mean over k >= 4 of t(cuBLAS dgemm) /
    t(gram) at n = TABLE_N, above GRAM_BEATS (the renderer's target line, read against the
    paper's claim). In: the results of yamazaki2014/fig11; out: that mean."""
    entries = perf_entries(res)
    ks = sorted({k for kk, v, n, k in entries if kk == "gram" and n == TABLE_N and k >= 4})
    g = geomean([speedup(entries, "gram", "gram", TABLE_N, k) for k in ks])
    if math.isnan(g):
        return untested(f"no gram and cuBLAS dgemm pair at n = {pow10_label(TABLE_N)}")
    return judged(g > GRAM_BEATS, f"{fmt(g)}x (geometric mean)",
                  f"t(cuBLAS dgemm) / t(gram) at n = {pow10_label(TABLE_N)} over {len(ks)} k "
                  f"in {ks[0]}..{ks[-1]}; holds when above {fmt(GRAM_BEATS)}")


def fig11_gemv(res: kbench_results.Results) -> ClaimCheck:
    """yamazaki2014 Sec. V-F, Fig. 11b: t(cuBLAS dgemv) / t(mdgm) for V^T y at k = TABLE_K, at
    least SAME_ORDER x PAPER_GEMV_FACTOR at every n. In: the results of yamazaki2014/fig11; out:
    the range of that speedup."""
    entries = perf_entries(res)
    pts: List[Tuple[float, int]] = [(speedup(entries, "gemv_t", "mdgm", n, k), n)
                                    for kk, v, n, k in entries
                                    if kk == "gemv_t" and v == "mdgm" and k == TABLE_K]
    pts = sorted(p for p in pts if not math.isnan(p[0]))
    if not pts:
        return untested(f"no mdgm and cuBLAS dgemv pair at k = {TABLE_K}")
    need = SAME_ORDER * PAPER_GEMV_FACTOR
    lo, hi = pts[0], pts[-1]
    return judged(lo[0] >= need, f"{fmt(lo[0])}x (n = {pow10_label(lo[1])}) to {fmt(hi[0])}x "
                  f"(n = {pow10_label(hi[1])})",
                  f"t(cuBLAS dgemv) / t(mdgm), V^T y with k = {TABLE_K}, {len(pts)} row counts; "
                  f"holds when >= {fmt(need)}x at every n (half the paper's, SAME_ORDER)")


def fig14_speedup(res: kbench_results.Results) -> ClaimCheck:
    """yamazaki2014 Sec. VI, Figs. 14-15: per matrix and configuration of at most MAX_GPUS GPUs
    (1 GPU, then each GPU count and transport), the speedup per restart of the fastest CA-GMRES
    over GMRES CGS2 (the renderer's best_ca), at least PAPER_CA_SPEEDUP[0]. In: the results of
    yamazaki2014/fig14; out: the speedup range."""
    rows = [e for e in ca.entries(res, "fig14") if "error" not in e]
    configs = [("1 GPU", ca.one_gpu(rows))] + [(ca.group_title(g), ca.in_group(rows, g))
                                               for g in ca.rank_groups(rows) if g[0] <= MAX_GPUS]
    pts = []
    for label, mine in configs:
        for m in ca.matrices(mine):
            b = ca.best_ca(mine, m)
            if b is not None and not math.isnan(ca.num(b, "speedup")):
                pts.append((ca.num(b, "speedup"), f"{m}, {label}"))
    if not pts:
        return untested("no CA-GMRES row with a speedup over GMRES")
    lo, hi = min(pts), max(pts)
    return judged(lo[0] >= PAPER_CA_SPEEDUP[0], f"{fmt(lo[0])}x ({lo[1]}) to {fmt(hi[0])}x",
                  f"fastest CA-GMRES (s > 1) over GMRES CGS2 per restart, {len(pts)} rows "
                  f"(matrix, configuration) on 1 to {MAX_GPUS} GPUs; holds when every speedup "
                  f">= {PAPER_CA_SPEEDUP[0]:g}")


CLAIMS = {
    "yamazaki2014/fig8": [Claim(
        "On several GPUs the matrix powers kernel with s > 1 takes less time than the standard "
        "s = 1 algorithm, the fewer messages outweighing the larger halos",
        "Sec. IV-B, Fig. 8", "up to 16 % (cant) and 11 % (G3_circuit) less on 3 GPUs",
        fig8_mpk_saving)],
    "yamazaki2014/fig11": [
        Claim("A batched Gram kernel computes V^T V of a tall-skinny block faster than the "
              "vendor DGEMM", "Sec. V-F, Fig. 11a", "faster than CUBLAS 4.2", fig11_gram),
        Claim("A custom DGEMV computes V^T y of a tall-skinny block several times faster than "
              "the vendor DGEMV", "Sec. V-F, Fig. 11b", "about 5x CUBLAS 4.2", fig11_gemv)],
    "yamazaki2014/fig14": [Claim(
        "CA-GMRES runs a restart cycle faster than GMRES on one to three GPUs",
        "Sec. VI, Figs. 14-15",
        f"{PAPER_CA_SPEEDUP[0]:g}-{PAPER_CA_SPEEDUP[1]:g}x", fig14_speedup)],
}

RENDERERS: Dict[str, Any] = {}  # claims only: nothing to render
