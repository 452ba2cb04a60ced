"""li2012's claims, checked on the results its renderers read (li2012.py, li2012_times.py).

  li2012/table1  truncated SPIKE's one-apply residual falls as the diagonal dominance d grows.
  li2012/fig4    SPIKE on the GPU solves K = 32 banded systems 2.1-3.1x faster than the CPU.
  li2012/fig5    at N = 400,000 it beats the CPU at every half-bandwidth K.
  li2012/mixed   a float preconditioner in double BiCGStab is 15-25 % faster than all-double.

The CPU solver is LAPACK's dgbsv on every core (OpenBLAS) where li2012 used MKL's. Claims only
(analysis/claim.py): RENDERERS is empty, so render.discover imports the module and finds no ids
in it.
"""

from __future__ import annotations

from typing import Any, Dict

import kbench_results
from claim import Claim, ClaimCheck, judged, untested
from report import fmt, fmt_int, missing
from ._li2012_common import d_label, entries, mean, num, ratio, signs_of
from .li2012 import signs_order
from .li2012_times import sweep

PAPER_FIG4 = (2.1, 3.1)     # fig4: "a performance gain of at least 2.1 and up to 3.1" (Sec. 3.2)
PAPER_FIG5_GAIN = 1.0       # fig5: "in all cases ... performance gain larger than 1" (Sec. 3.2)
PAPER_MIXED = (1.15, 1.25)  # mixed: "a 15 % - 25 % speedup" (Sec. 2.4)


def table1_residual(res: kbench_results.Results) -> ClaimCheck:
    """li2012 Sec. 2.2, Table 1: per sign pattern, the mean one-apply residual with li2012's
    spike tips (residual_inf_corner_ul) strictly falls from each d to the next larger one. In:
    the results of li2012/table1; out: the residual at the smallest and largest d."""
    es = entries(res, "table1")
    parts, ok = [], True
    for signs in signs_order(es):
        mine = [e for e in es if signs_of(e) == signs]
        ds = sorted({num(e, "d") for e in mine if not missing(num(e, "d"))})
        curve = [(d, mean([num(e, "residual_inf_corner_ul") for e in mine if num(e, "d") == d]))
                 for d in ds]
        curve = [(d, r) for d, r in curve if not missing(r)]
        if len(curve) < 2:
            continue
        ok = ok and all(b[1] < a[1] for a, b in zip(curve, curve[1:]))
        parts.append(f"{signs}: {fmt(100 * curve[0][1])} % (d = {d_label(curve[0][0])}) to "
                     f"{fmt(100 * curve[-1][1])} % (d = {d_label(curve[-1][0])})")
    if not parts:
        return untested("fewer than two values of d with a residual")
    return judged(ok, "; ".join(parts),
                  f"mean over the seeds per d, {len(parts)} sign patterns; holds when the "
                  "residual falls at every step to a larger d")


def scaling_speedup(figure: str, minimum: float, strict: bool):
    """li2012 Sec. 3.2, Fig. 4 (over N) or Fig. 5 (over K): T(dgbsv, all cores) / T(SPIKE +
    BiCGStab, double, band copy included) at every point, at least `minimum` (above it when
    `strict`). In: the results of li2012/<figure>; out: the speedup range."""
    def check(res: kbench_results.Results) -> ClaimCheck:
        key, xs, by = sweep(entries(res, figure), figure)
        every = [(ratio(num(by.get(("dgbsv_all_cores", x)), "seconds"),
                        num(by.get(("spike_double", x)), "seconds")), x) for x in xs]
        pts = sorted(p for p in every if not missing(p[0]))
        if not pts:
            return untested("no point with both SPIKE and dgbsv timed")
        label = "N" if key == "n" else "K"
        lo, hi = pts[0], pts[-1]
        ok = lo[0] > minimum if strict else lo[0] >= minimum
        untimed = [fmt_int(x) for r, x in every if missing(r)]
        left_out = (f"; not judged at {label} = {', '.join(untimed)} (a time missing, e.g. "
                    "dgbsv skipped by its time budget)" if untimed else "")
        return judged(ok, f"{fmt(lo[0])}x ({label} = {fmt_int(lo[1])}) to {fmt(hi[0])}x",
                      f"dgbsv on all cores / SPIKE+BiCGStab double (band copy included) at "
                      f"{len(pts)} values of {label}; holds when every one is "
                      f"{'above' if strict else 'at least'} {fmt(minimum)}{left_out}")
    return check


def mixed_speedup(res: kbench_results.Results) -> ClaimCheck:
    """li2012 Sec. 2.4: time double / time mixed of every converged pair at least
    PAPER_MIXED[0]. In: the results of li2012/mixed; out: the speedup range."""
    pts = sorted((num(e, "speedup"), e.get("n"), e.get("K")) for e in entries(res, "mixed")
                 if not missing(num(e, "speedup")))
    if not pts:
        return untested("no pair of converged double and mixed solves")
    lo, hi = pts[0], pts[-1]
    return judged(lo[0] >= PAPER_MIXED[0],
                  f"{fmt(lo[0])}x (N = {fmt_int(lo[1])}, K = {lo[2]}) to {fmt(hi[0])}x",
                  f"{len(pts)} systems (N, K, d, signs); holds when every speedup >= "
                  f"{fmt(PAPER_MIXED[0])} (the paper's lower end)")


CLAIMS = {
    "li2012/table1": [Claim(
        "Truncated SPIKE approximates the solve better the more diagonally dominant the "
        "matrix: its one-apply residual falls as d grows", "Sec. 2.2, Table 1",
        "35 % at d = 1 to 0.002 % at d = 1e4", table1_residual)],
    "li2012/fig4": [Claim(
        "SPIKE on the GPU solves banded systems with K = 32 several times faster than a "
        "multicore LAPACK banded solver, at every N", "Sec. 3.2, Fig. 4",
        f"{PAPER_FIG4[0]:g}-{PAPER_FIG4[1]:g}x MKL",
        scaling_speedup("fig4", PAPER_FIG4[0], strict=False))],
    "li2012/fig5": [Claim(
        "At N = 400,000 SPIKE on the GPU beats the multicore banded solver at every "
        "half-bandwidth K", "Sec. 3.2, Fig. 5", "gain above 1 for K up to 256",
        scaling_speedup("fig5", PAPER_FIG5_GAIN, strict=True))],
    "li2012/mixed": [Claim(
        "Factoring and applying the SPIKE preconditioner in single precision inside "
        "double-precision BiCGStab speeds up the solve", "Sec. 2.4",
        f"{PAPER_MIXED[0]:g}-{PAPER_MIXED[1]:g}x all-double", mixed_speedup)],
}

RENDERERS: Dict[str, Any] = {}  # claims only: nothing to render
