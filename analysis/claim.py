"""A paper's claim and its check against one results file, as the study modules declare them for
the claims scoreboard of results/README.md (analysis/results_readme.py).

Each module of analysis/studies/ that checks a paper's claims exports CLAIMS = {id: [Claim]}: the
claims that the results of that id (results/<gpu>/<study>/<item>/results.json) can test. A claim
states the paper's finding in one line of our own words, with its place in the paper and its
number; its check, fn(results) -> ClaimCheck, reads the renderer's own helpers and returns the
measured value, the verdict and the reason (the rows judged and the threshold).
"""

from __future__ import annotations

from typing import Callable, NamedTuple

HOLDS = "holds"
FAILS = "does not hold"
UNTESTED = "untested"
VERDICTS = (HOLDS, FAILS, UNTESTED)

# A measured effect counts as the paper's when it reaches half the paper's size. The hardware
# differs (the papers ran on GPUs of 2011-2017 and on up to 12 nodes; kbench on one host of
# H100/H200), so the size cannot be expected to match, but an effect under half as large is a
# different finding. Used by the claims whose paper gives a size ("about 38 % faster", "5x").
SAME_ORDER = 0.5


class ClaimCheck(NamedTuple):
    measured: str  # the measured value(s), formatted, e.g. "19.2 % to 80.5 %"
    verdict: str   # HOLDS, FAILS or UNTESTED
    reason: str    # the rows judged and the threshold, e.g. "min over 29 matrices >= 20 %"


class Claim(NamedTuple):
    summary: str   # the claim in one line, in our words
    source: str    # where the paper makes it, e.g. "Sec. 4.5, Table 5"
    paper: str     # the paper's number, e.g. "20-90 % less time"
    check: Callable[..., ClaimCheck]  # fn(kbench_results.Results) -> ClaimCheck


def judged(ok: bool, measured: str, reason: str) -> ClaimCheck:
    """HOLDS when `ok`, else FAILS, with the measured value and the reason."""
    return ClaimCheck(measured, HOLDS if ok else FAILS, reason)


def untested(reason: str, measured: str = "n/a") -> ClaimCheck:
    """A check the results cannot decide (the rows it needs are missing), and why."""
    return ClaimCheck(measured, UNTESTED, reason)
