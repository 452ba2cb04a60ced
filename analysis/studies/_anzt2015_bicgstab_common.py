"""Code shared by the modules of the anzt2015 BiCGSTAB study (anzt2015_bicgstab.py: table5
and fig11; anzt2015_bicgstab_profile.py: table4; anzt2015_traffic.py: table1): the (form, SpMV
policy) pairs of the solves and their labels, the reading of entries and context, and the figure
drawn when there is no data.

A helper module (its name starts with '_'): render.py looks for no renderers in it, and the
render digest of every study module that imports it covers this file (render.helper_modules).
"""

from __future__ import annotations

import math
from typing import Any, Dict, Iterable, List, Tuple

import kbench_results
from report import NA, fmt_int, missing, new_figure


# (form, SpMV policy) of the solves, in display order
REFERENCE = ("reference", "cusparse_csr")
MERGED_CSR = ("merged", "cusparse_csr")
MERGED_AUTO = ("merged", "auto")
GRAPH_AUTO = ("graph", "auto")
FORMS = [REFERENCE, MERGED_CSR, MERGED_AUTO, GRAPH_AUTO]
FORM_LABELS = {REFERENCE: "reference/csr", MERGED_CSR: "merged/csr", MERGED_AUTO: "merged/auto",
               GRAPH_AUTO: "graph/auto"}
FLAG = "†"
ETA_MEMORY = 1.0 - 18.0 / 34.0  # = 8/17: the merged form's share of transfers saved


# ---------------------------------------------------------------- shared helpers
def _num(x: Any) -> float:
    """x as a float; NaN for None, booleans and anything not a number."""
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return math.nan
    return float(x)


def _of_kind(res: kbench_results.Results, kind: str) -> List[Dict[str, Any]]:
    return [e for e in res.entries if isinstance(e, dict) and e.get("kind") == kind]


def _form_key(e: Dict[str, Any]) -> Tuple[Any, Any]:
    return e.get("form"), (e.get("spmv") or {}).get("policy")


def _index(entries: Iterable[Dict[str, Any]]) -> Dict[Tuple[Any, ...], Dict[str, Any]]:
    """{(form, policy, precision, matrix): entry}, the first entry of each key."""
    out: Dict[Tuple[Any, ...], Dict[str, Any]] = {}
    for e in entries:
        out.setdefault((*_form_key(e), e.get("precision"), e.get("matrix")), e)
    return out


def _precisions(entries: Iterable[Dict[str, Any]]) -> List[str]:
    """The precisions of `entries`: double, single (kbench writes "float"), then any other in
    name order."""
    found = {e.get("precision") for e in entries if isinstance(e.get("precision"), str)}
    rank = {"double": 0, "float": 1, "single": 1}
    return sorted(found, key=lambda p: (rank.get(p, 2), p))


def _matrix_order(res: kbench_results.Results, entries: Iterable[Dict[str, Any]]) -> List[str]:
    """Matrices of `entries` in results.matrices order; those it lacks follow in entry order."""
    names: List[str] = []
    for e in entries:
        m = e.get("matrix")
        if isinstance(m, str) and m not in names:
            names.append(m)
    pos = {name: i for i, name in enumerate(res.matrices.index)}
    return sorted(names, key=lambda m: (pos.get(m, len(pos)), names.index(m)))


def _rows(res: kbench_results.Results, matrix: str, entries: Iterable[Dict[str, Any]]) -> float:
    """n of `matrix`: its stats in the context, else the largest "n" of its entries."""
    m = res.matrices
    if matrix in m.index and not missing(m.at[matrix, "num_rows"]):
        return float(m.at[matrix, "num_rows"])
    ns = [_num(e.get("n")) for e in entries if e.get("matrix") == matrix]
    ns = [v for v in ns if not math.isnan(v)]
    return max(ns) if ns else math.nan


def _ratio(a: float, b: float) -> float:
    return a / b if b and not (math.isnan(a) or math.isnan(b)) else math.nan


def _improvement(t_new: float, t_ref: float) -> float:
    """1 - t_new / t_ref (NaN when either is missing)."""
    r = _ratio(t_new, t_ref)
    return 1.0 - r if not math.isnan(r) else math.nan


def _config_line(context: Dict[str, Any]) -> str:
    """One Markdown line on the BiCGSTAB settings of context.kbench.bicgstab."""
    cfg = context.get("kbench", {}).get("bicgstab")
    if not isinstance(cfg, dict):
        return "- BiCGSTAB settings: n/a (no context.kbench.bicgstab)\n"
    timing = cfg.get("timing_mode")
    timing_txt = NA if timing is None else ("on" if timing else "off")
    precs = ", ".join(cfg.get("precisions") or []) or NA
    return (f"- BiCGSTAB: {fmt_int(cfg.get('iterations'))} iterations per solve, timing mode "
            f"{timing_txt}, median of {fmt_int(cfg.get('repetitions'))} repetitions; "
            f"{cfg.get('rhs', NA)}; precisions {precs}\n")


def _planned_iterations(context: Dict[str, Any]) -> Any:
    cfg = context.get("kbench", {}).get("bicgstab")
    return cfg.get("iterations") if isinstance(cfg, dict) else None


def _no_data_figure(title: str):
    fig, ax = new_figure(figsize=(8, 3))
    ax.set_xticks([])
    ax.set_yticks([])
    ax.set_title(title)
    ax.text(0.5, 0.5, "no data in the results file", ha="center", va="center", fontsize=14)
    return fig

