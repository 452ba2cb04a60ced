"""Code shared by the modules of the li2012 SPIKE::GPU study (li2012.py: table1 and table3;
li2012_times.py: fig4, fig5, fig6 and mixed): the entries of an item, the study's context and
li2012's numbers, number formats, the table cells and figure notes every item writes.

A helper module (its name starts with '_'): render.py looks for no renderers in it, and the
render digest of every study module that imports it covers this file (render.helper_modules).
"""

from __future__ import annotations

import math
from typing import Any, Dict, List, Optional, Sequence

import kbench_results
from report import NA, fmt, fmt_int, missing


Entry = Dict[str, Any]


# ---------------------------------------------------------------- shared helpers
def entries(res: kbench_results.Results, figure: str) -> List[Entry]:
    return [e for e in res.entries or [] if isinstance(e, dict) and e.get("figure") == figure]


def study_ctx(res: kbench_results.Results) -> Dict[str, Any]:
    return res.context.get("kbench", {}).get("li2012", {})


def paper(res: kbench_results.Results, key: str) -> Any:
    return study_ctx(res).get("paper", {}).get(key)


def num(e: Optional[Entry], field: str) -> float:
    """e[field] as float; NaN when e or the value is missing or not a number."""
    v = None if e is None else e.get(field)
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else math.nan


def mean(values: Sequence[float]) -> float:
    v = [x for x in values if not missing(x)]
    return sum(v) / len(v) if v else math.nan


def ms(seconds: float) -> str:
    return fmt(seconds * 1e3)


def pct(fraction: float) -> str:
    return NA if missing(fraction) else fmt(100.0 * fraction)


def ratio(a: float, b: float) -> float:
    return a / b if not missing(a) and not missing(b) and b > 0 else math.nan


def notes(res: kbench_results.Results) -> str:
    lines = [f"- {n}" for n in study_ctx(res).get("notes", [])]
    return "\n" + "\n".join(lines) + "\n" if lines else ""


def model_line(res: kbench_results.Results) -> str:
    m = study_ctx(res).get("model", {})
    return (f"Model: bandwidth {fmt(m.get('bandwidth_gbs'))} GB/s, FP64 {fmt(m.get('fp64_gflops'))}"
            f" GFLOP/s, FP32 {fmt(m.get('fp32_gflops'))} GFLOP/s, launch "
            f"{fmt(num(m, 'launch_seconds') * 1e6)} us, {m.get('sm_count', NA)} SMs.\n")


def time_cell(e: Optional[Entry]) -> str:
    """Milliseconds, or why there are none."""
    if e is None:
        return NA
    if e.get("skipped"):
        return "skipped"
    if e.get("error"):
        return "error"
    return ms(num(e, "seconds"))


def no_data(ax, what: str) -> None:
    ax.text(0.5, 0.5, f"{NA}: {what}", ha="center", va="center", transform=ax.transAxes)
    ax.set_xticks([])
    ax.set_yticks([])


def paper_num(x: Any) -> str:
    """li2012's numbers as printed there (4.03, 0.002, 35)."""
    return NA if missing(x) or not isinstance(x, (int, float)) else f"{x:g}"


def mean_count(x: float) -> str:
    """A mean of iteration counts: '8' when whole, else 3 digits."""
    return NA if missing(x) else (str(int(x)) if x == int(x) else fmt(x))


def d_label(d: float) -> str:
    """1,000 for whole numbers, else every digit that %g keeps (1.001, not 1.00)."""
    if missing(d):
        return NA
    return fmt_int(d) if d == int(d) else f"{d:g}"


def signs_of(e: Entry) -> str:
    """banded()'s off-diagonal signs of an entry; "random" for entries without "signs" (written
    before it)."""
    v = e.get("signs")
    return v if isinstance(v, str) else "random"


def psize_cell(e: Optional[Entry]) -> str:
    return NA if e is None or not isinstance(e.get("psize"), int) else fmt_int(e["psize"])

