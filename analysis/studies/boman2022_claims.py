"""boman2022's claims, checked on the results its renderers read (boman2022.py).

  boman2022/speedup  Message 1: some cases favour s x GMRES on the CPU and block GMRES on the
                     GPU; Message 2: on the GPU, non-restarted block GMRES has an optimal s.
  boman2022/model    the latency-bandwidth-flop model finds the block size that is best.

Claims only (analysis/claim.py): RENDERERS is empty, so render.discover imports the module and
finds no ids in it.
"""

from __future__ import annotations

from typing import Any, Dict

import kbench_results
from claim import Claim, ClaimCheck, judged, untested
from report import fmt, missing
from .boman2022 import argmax_s, entries, groups, restart_label, with_speedup

NEIGHBOURS = 1  # model: the predicted best s may be the measured one or the next on the s grid
# (the renderer's goal, "equal or neighbour": the grid doubles s, so one step is a factor 2)


def message1(res: kbench_results.Results) -> ClaimCheck:
    """boman2022 Message 1: the points (matrix, restart, s) where the block speedup
    T(s x GMRES) / T(BGMRES) is below 1 on the CPU and above 1 on the GPU; holds when there is at
    least one. In: the results of boman2022/speedup; out: their count and the first."""
    g = groups(entries(res, "speedup"))
    cases, pairs = [], 0
    for (dev, mat, r), rows in g.items():
        if dev != "cpu":
            continue
        gpu = {e["s"]: e for e in g.get(("gpu", mat, r), [])}
        for e in rows:
            ge = gpu.get(e["s"])
            if ge is None or missing(e.get("speedup_block")) or missing(ge.get("speedup_block")):
                continue
            pairs += 1
            if e["speedup_block"] < 1 < ge["speedup_block"]:
                cases.append(f"{mat}, {restart_label(r)}, s = {e['s']}: CPU "
                             f"{fmt(e['speedup_block'])}, GPU {fmt(ge['speedup_block'])}")
    if not pairs:
        return untested("no (matrix, restart, s) measured on both the CPU and the GPU")
    return judged(bool(cases), f"{len(cases)} of {pairs} points" + (f", e.g. {cases[0]}"
                                                                     if cases else ""),
                  "block speedup T(s x GMRES) / T(BGMRES) at the same (matrix, restart, s) on "
                  "the CPU and the GPU; holds when at least one is below 1 on the CPU and above 1 "
                  "on the GPU")


def message2(res: kbench_results.Results) -> ClaimCheck:
    """boman2022 Message 2: on the GPU without restarts, the s of the largest block speedup lies
    strictly inside the measured s range, for every matrix. In: the results of
    boman2022/speedup; out: the best s per matrix."""
    parts, ok = [], True
    for (dev, mat, r), rows in groups(entries(res, "speedup")).items():
        if dev != "gpu" or not missing(r):
            continue
        measured = with_speedup(rows)
        best = argmax_s(measured, "speedup_block")
        if best is None:
            continue
        grid = [e["s"] for e in measured]
        ok = ok and grid[0] < best < grid[-1]
        parts.append(f"{mat}: s = {best} of {grid[0]}..{grid[-1]}")
    if not parts:
        return untested("no converged non-restarted block GMRES on the GPU")
    return judged(ok, "; ".join(parts),
                  f"GPU, not restarted, {len(parts)} matrices; holds when every best s is inside "
                  "the range (an interior optimum)")


def model_best_s(res: kbench_results.Results) -> ClaimCheck:
    """boman2022, 'modeled vs observed speedups': on the GPU, the model's best s within
    NEIGHBOURS grid steps of the measured best s for every (matrix, restart). In: the results of
    boman2022/model; out: how many agree."""
    near, total, off = 0, 0, []
    for (dev, mat, r), es in groups(entries(res, "speedup")).items():
        if dev != "gpu":
            continue
        measured = with_speedup(es)
        grid = [e["s"] for e in es if not e.get("skipped")]
        best, pred = argmax_s(measured, "speedup_block"), argmax_s(measured, "model_speedup_block")
        if best is None or pred is None or best not in grid or pred not in grid:
            continue
        total += 1
        if abs(grid.index(best) - grid.index(pred)) <= NEIGHBOURS:
            near += 1
        else:
            off.append(f"{mat}, {restart_label(r)}: measured {best}, model {pred}")
    if not total:
        return untested("no GPU group with both a measured and a modeled block speedup")
    return judged(near == total, f"{near} of {total} groups" + (f"; off: {'; '.join(off)}"
                                                                 if off else ""),
                  "GPU (matrix, restart) groups; holds when in every group the model's best s is "
                  f"the measured best or within {NEIGHBOURS} step of the s grid")


CLAIMS = {
    "boman2022/speedup": [
        Claim("Some problems favour s separate GMRES solves on the CPU but block GMRES on the "
              "GPU", "Message 1", "cases exist (Xeon vs V100)", message1),
        Claim("On the GPU, non-restarted block GMRES gains most over s x GMRES at an "
              "intermediate number of right-hand sides s", "Message 2", "an optimal s exists",
              message2)],
    "boman2022/model": [Claim(
        "A latency-bandwidth-flop cost model reproduces the block speedup's shape, and so the "
        "best block size", "modeled vs observed speedups",
        "captures the optimum, with and without restarts", model_best_s)],
}

RENDERERS: Dict[str, Any] = {}  # claims only: nothing to render
