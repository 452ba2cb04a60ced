"""anzt2015 BiCGSTAB study: the profile of the solves (anzt2015 Sec. 4.5, Table 4).

  anzt2015/table4  profile of the reference (cuBLAS-style) form for 1000 iterations (Sec. 4.5,
                   Table 4) and of the merged form, per precision; figure: stacked fractions.

Reads the entries of kind "phases". The rest of the study: anzt2015_bicgstab.py (table5,
fig11) and anzt2015_traffic.py (table1); the code they share: _anzt2015_bicgstab_common.py.
"""

from __future__ import annotations

import math
from typing import Any, Dict, List, Tuple

import kbench_results
from report import (NA, fmt, fmt_int, fmt_pct, gpu_title, header_block, markdown_table,
                    new_figure, write_outputs)
from ._anzt2015_bicgstab_common import (
    FLAG, FORM_LABELS, GRAPH_AUTO, MERGED_AUTO, MERGED_CSR, REFERENCE, _config_line, _form_key,
    _index, _matrix_order, _no_data_figure, _num, _of_kind, _planned_iterations, _precisions,
    _ratio, _rows)

FORM_TITLES = {REFERENCE: "reference form (cuBLAS-style kernels), cuSPARSE CSR SpMV",
               MERGED_CSR: "merged form, cuSPARSE CSR SpMV",
               MERGED_AUTO: "merged form, automatic SpMV choice",
               GRAPH_AUTO: "merged form in a CUDA graph, automatic SpMV choice"}
# Table 4 columns (keys of a phases entry's "groups"), in order
GROUPS = ["spmv", "dot", "p_update", "s_update", "xr_update", "check"]
GROUP_LABELS = {"spmv": "SpMV", "dot": "dot", "p_update": "p update", "s_update": "s update",
                "xr_update": "x + r update", "check": "check"}
GROUP_COLORS = {"spmv": "C0", "dot": "C1", "p_update": "C2", "s_update": "C3",
                "xr_update": "C4", "check": "C7"}
PROFILE_ITERATIONS = 1000  # Table 4 reports 1000 iterations


# ---------------------------------------------------------------- anzt2015/table4
def profile_rows(res: kbench_results.Results, form: Tuple[str, str],
                 precision: str) -> List[Dict[str, Any]]:
    """Per matrix (matrix order) with a phases entry of `form` and `precision`: n, iterations,
    total and each group scaled to PROFILE_ITERATIONS iterations (seconds), and each group's
    fraction of the total."""
    phases = _of_kind(res, "phases")
    idx = _index(phases)
    out = []
    for mat in _matrix_order(res, phases):
        e = idx.get((*form, precision, mat))
        if e is None:
            continue
        groups = e.get("groups") or {}
        g = {k: _num(groups.get(k)) for k in GROUPS}
        total = _num(e.get("seconds"))
        if math.isnan(total):
            present = [v for v in g.values() if not math.isnan(v)]
            total = sum(present) if present else math.nan
        iters = _num(e.get("iterations"))
        scale = PROFILE_ITERATIONS / iters if iters > 0 else math.nan
        out.append({"matrix": mat, "n": _rows(res, mat, phases), "iterations": iters,
                    "total": total * scale,
                    "seconds": {k: v * scale for k, v in g.items()},
                    "fraction": {k: _ratio(v, total) for k, v in g.items()},
                    "entry": e})
    return out


def _profile_forms(res: kbench_results.Results, precision: str) -> List[Tuple[str, str]]:
    """(form, policy) pairs with phases entries of `precision`: reference/csr, merged/auto,
    then any other in name order."""
    keys = {_form_key(e) for e in _of_kind(res, "phases") if e.get("precision") == precision}
    keys = {k for k in keys if all(isinstance(x, str) for x in k)}
    known = [k for k in (REFERENCE, MERGED_AUTO, MERGED_CSR, GRAPH_AUTO) if k in keys]
    return known + sorted(keys - set(known))


def _profile_table(rows: List[Dict[str, Any]], form: Tuple[str, str], planned: Any) -> str:
    groups = [g for g in GROUPS if g != "check" or form[0] != "reference"]
    headers = (["Matrix", "n", "iterations profiled", f"total (s, {PROFILE_ITERATIONS} it.)"]
               + [f"{GROUP_LABELS[g]} (s)" for g in groups])
    body, short = [], []
    planned_n = _num(planned)
    for r in rows:
        mark = ""
        if not math.isnan(planned_n) and r["iterations"] < planned_n:
            mark = " " + FLAG
            short.append(r["entry"].get("name", r["matrix"]))
        body.append([r["matrix"] + mark, fmt_int(r["n"]), fmt_int(r["iterations"]),
                     fmt(r["total"])]
                    + [f"{fmt(r['seconds'][g])} ({fmt_pct(r['fraction'][g])})" for g in groups])
    text = markdown_table(headers, body)
    if short:
        text += (f"\n{FLAG} profiled fewer than the {fmt_int(planned)} planned iterations (the "
                 f"run stopped early; times are scaled up from the iterations it ran): "
                 f"{', '.join(short)}\n")
    return text


def _phase_list(rows: List[Dict[str, Any]]) -> str:
    """The phases of the first matrix's entry: name, group, calls per iteration."""
    if not rows:
        return ""
    e, iters = rows[0]["entry"], rows[0]["iterations"]
    phases = [p for p in e.get("phases") or [] if isinstance(p, dict)]
    if not phases:
        return ""
    body = [[p.get("name", NA), GROUP_LABELS.get(p.get("group"), p.get("group") or NA),
             fmt(_ratio(_num(p.get("calls")), iters)),
             fmt_pct(_ratio(_num(p.get("seconds")), _num(e.get("seconds"))))]
            for p in phases]
    return (f"\nPhases and their columns ({rows[0]['matrix']}):\n\n"
            + markdown_table(["phase", "column", "calls per iteration", "share of total"],
                             body, left=2))


def _table4_figure(res: kbench_results.Results, precisions: List[str]):
    panels = []  # (precision, [(label, row)]) with one bar per (matrix, form) profiled
    for prec in precisions:
        forms = [f for f in _profile_forms(res, prec) if f in (REFERENCE, MERGED_AUTO)]
        data = {f: {r["matrix"]: r for r in profile_rows(res, f, prec)} for f in forms}
        bars = [(f"{m} ({FORM_LABELS[f]})", data[f][m])
                for m in _matrix_order(res, _of_kind(res, "phases")) for f in forms
                if m in data[f]]
        if bars:
            panels.append((prec, bars))
    if not panels:
        return _no_data_figure("anzt2015 Table 4: BiCGSTAB profile")
    sizes = [len(bars) + 3 for _, bars in panels]
    fig, axes = new_figure(len(panels), 1, figsize=(10, max(0.45 * sum(sizes), 3)),
                           squeeze=False, height_ratios=sizes)
    for ax, (prec, bars) in zip(axes[:, 0], panels):
        drawn = set()
        for y, (_, r) in enumerate(bars):
            left = 0.0
            for g in GROUPS:
                v = 100.0 * r["fraction"][g]
                if math.isnan(v) or v <= 0:
                    continue
                ax.barh(y, v, left=left, color=GROUP_COLORS[g], height=0.8,
                        label=None if g in drawn else GROUP_LABELS[g])
                drawn.add(g)
                left += v
        ax.set_yticks(range(len(bars)))
        ax.set_yticklabels([label for label, _ in bars], fontsize=8)
        ax.set_ylim(len(bars) - 0.5, -0.5)
        ax.set_xlim(0, 100)
        ax.set_xlabel("% of the profiled time")
        ax.grid(True, axis="x", alpha=0.3)
        ax.set_title(f"BiCGSTAB profile ({prec}) on {gpu_title(res.context)} - anzt2015 Table 4")
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    return fig


def render_table4(res: kbench_results.Results, out_dir: str) -> List[str]:
    """Profile of the reference form for 1000 iterations (anzt2015 Sec. 4.5, Table 4) and of the
    merged form, per precision, from the phases entries; figure: stacked fractions."""
    phases = _of_kind(res, "phases")
    precisions = _precisions(phases)
    planned = _planned_iterations(res.context)
    text = header_block(res.context, f"anzt2015 Table 4: BiCGSTAB profile on "
                                     f"{gpu_title(res.context)}")
    text += _config_line(res.context)
    text += ("\nTimes are the per-phase sums of one profiled run (each phase timed on its own), "
             f"scaled to {PROFILE_ITERATIONS} iterations (seconds x {PROFILE_ITERATIONS} / "
             "iterations profiled); in parentheses each column's share of the total. check is the "
             "merged form's per-iteration stopping test and its host copy.\n\n")
    if not precisions:
        text += "No phases entries in the results file: profile n/a.\n"
    for prec in precisions:
        text += f"## Precision: {prec}\n\n"
        for form in _profile_forms(res, prec):
            rows = profile_rows(res, form, prec)
            title = FORM_TITLES.get(form, "/".join(form))
            text += f"### {title}\n\n" + _profile_table(rows, form, planned)
            if prec == precisions[0]:  # the phases are the same in every precision
                text += _phase_list(rows)
            text += "\n"
    return write_outputs(out_dir, text, lambda: _table4_figure(res, precisions))


RENDERERS = {
    "anzt2015/table4": render_table4,
}
