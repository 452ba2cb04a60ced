"""zianekhodja2014's claims, checked on the results its renderers read (zianekhodja2014.py).

  zianekhodja2014/table2  GMRES on GPU ranks is faster than on CPU ranks for large matrices.
  zianekhodja2014/table5  compressed halos make the solve about 38 % faster than row-by-row.
  zianekhodja2014/table8  hypergraph partitioning makes it about 65 % faster again.
  zianekhodja2014/fig9    only hypergraph + compressed halos weak-scales.

Claims only (analysis/claim.py): RENDERERS is empty, so render.discover imports the module and
finds no ids in it.
"""

from __future__ import annotations

import math
import statistics
from typing import Any, Dict, List

import kbench_results
from claim import SAME_ORDER, Claim, ClaimCheck, judged, untested
from report import fmt, fmt_int, fmt_pct
from .zianekhodja2014 import (PAPER_TABLE5_GAIN, PAPER_TABLE8_GAIN, SCHEMES, entries, find,
                              gain, gpu_counts, matrices, num, scheme_rows, weak_series)

LARGE_N = 1_000_000  # table2: the paper's test matrices have about 1e6 rows or more (Table 1);
# kbench's small real matrices are launch bound on one GPU, a case the paper did not measure.
BEST_VARIANT = "hypergraph+compressed"  # fig9: the one variant the paper finds scalable


def table2_tau(res: kbench_results.Results) -> ClaimCheck:
    """zianekhodja2014 Sec. 6.1, Table 2: tau = Time_CPU / Time_GPU above 1 on every matrix of
    table2 with n >= LARGE_N. In: the results of zianekhodja2014/table2; out: the tau range."""
    rows = entries(res, "table2")
    taus = []
    for m in matrices(rows):
        g = find(rows, m, "gpu")
        if num(g, "n") >= LARGE_N and not math.isnan(num(g, "tau")):
            taus.append((num(g, "tau"), m))
    if not taus:
        return untested(f"no GPU run with n >= {fmt_int(LARGE_N)} and a tau")
    lo, hi = min(taus), max(taus)
    return judged(lo[0] > 1.0, f"tau {fmt(lo[0])} ({lo[1]}) to {fmt(hi[0])}",
                  f"{len(taus)} matrices with n >= {fmt_int(LARGE_N)}; holds when every tau > 1")


def scheme_gain(item: str, paper_gain: float):
    """zianekhodja2014 Sec. 6.1 (table5) and 6.2 (table8): the median of "faster by" = 1 -
    T_fast / T_slow over the rows of `item` on the most GPUs of the run (every matrix and
    transport), at least SAME_ORDER x `paper_gain`. In: the results of `item`; out: the median
    and range."""
    def check(res: kbench_results.Results) -> ClaimCheck:
        rows = entries(res, item)
        p = max(gpu_counts(rows), default=0)
        if p < 2:
            return untested("no run on 2 or more GPUs")
        gains = [gain(slow, fast) for _, _, ranks, slow, fast in scheme_rows(rows, *SCHEMES[item])
                 if ranks == p]
        gains = [g for g in gains if not math.isnan(g)]
        if not gains:
            return untested(f"no timed pair of schemes on {p} GPUs")
        median = statistics.median(gains)
        need = SAME_ORDER * paper_gain
        return judged(median >= need,
                      f"median {fmt_pct(median)} ({fmt_pct(min(gains))} to {fmt_pct(max(gains))})",
                      f"{len(gains)} rows (matrix, transport) on {p} GPUs; holds when the median "
                      f">= {fmt_pct(need)} (half the paper's, SAME_ORDER)")
    return check


def _efficiency_at(es: List[Dict[str, Any]], p: int) -> float:
    """T(1) / T(p) per iteration of one series (the efficiency column of fig9); NaN unless the
    series has both counts."""
    one = [e for e in es if num(e, "ranks") == 1]
    at = [e for e in es if num(e, "ranks") == p]
    if not one or not at:
        return math.nan
    return num(one[0], "seconds_per_iteration") / num(at[0], "seconds_per_iteration")


def fig9_scaling(res: kbench_results.Results) -> ClaimCheck:
    """zianekhodja2014 Sec. 6.3, Fig. 9: on every transport, BEST_VARIANT has the highest
    weak-scaling efficiency of the GPU variants on the most GPUs. In: the results of
    zianekhodja2014/fig9; out: its efficiency against the best other variant, per transport."""
    series = weak_series(entries(res, "fig9"))
    gpu = {k: es for k, es in series.items() if k.startswith("gpu ")}
    p = max((int(num(e, "ranks")) for es in gpu.values() for e in es
             if not math.isnan(num(e, "ranks"))), default=0)
    if p < 2:
        return untested("no GPU series on 2 or more GPUs")
    parts, ok = [], True
    for transport in sorted({k.split()[1] for k in gpu}):
        eff = {k.split()[2]: _efficiency_at(es, p) for k, es in gpu.items()
               if k.split()[1] == transport}
        eff = {v: x for v, x in eff.items() if not math.isnan(x)}
        others = [x for v, x in eff.items() if v != BEST_VARIANT]
        if BEST_VARIANT not in eff or not others:
            return untested(f"{transport}: no {BEST_VARIANT} series and another on {p} GPUs")
        ok = ok and eff[BEST_VARIANT] > max(others)
        parts.append(f"{transport}: {fmt_pct(eff[BEST_VARIANT])} vs <= {fmt_pct(max(others))}")
    return judged(ok, "; ".join(parts),
                  f"efficiency T(1) / T({p}) per iteration of the {len(gpu)} GPU series; holds "
                  f"when {BEST_VARIANT} is the highest on every transport")


CLAIMS = {
    "zianekhodja2014/table2": [Claim(
        "GMRES on GPU ranks solves large sparse systems faster than on CPU ranks",
        "Sec. 6.1, Table 2", "tau = T_CPU / T_GPU of 1.02 to 2.15", table2_tau)],
    "zianekhodja2014/table5": [Claim(
        "Exchanging only the needed halo entries (compressed, reordered columns) speeds up "
        "distributed GMRES over exchanging the whole band",
        "Sec. 6.1, Table 5", f"about {fmt_pct(PAPER_TABLE5_GAIN)} faster on 12 GPUs",
        scheme_gain("table5", PAPER_TABLE5_GAIN))],
    "zianekhodja2014/table8": [Claim(
        "Hypergraph partitioning on top of compressed halos speeds up GMRES on five-band "
        "matrices", "Sec. 6.2, Table 8", f"about {fmt_pct(PAPER_TABLE8_GAIN)} faster on 12 GPUs",
        scheme_gain("table8", PAPER_TABLE8_GAIN))],
    "zianekhodja2014/fig9": [Claim(
        "Only the variant with both hypergraph partitioning and compressed halos weak-scales; "
        "the other three do not", "Sec. 6.3, Fig. 9", "5M rows per GPU, 1 to 12 GPUs",
        fig9_scaling)],
}

RENDERERS: Dict[str, Any] = {}  # claims only: nothing to render
