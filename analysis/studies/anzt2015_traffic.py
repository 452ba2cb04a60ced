"""anzt2015 BiCGSTAB study: DRAM traffic per iteration (anzt2015 Sec. 3.3, Table 1).

  anzt2015/table1  DRAM traffic per iteration (Sec. 3.3, Table 1): the model of each kernel of the
                   reference and the merged form next to the bytes Nsight Compute measured, in
                   multiples of n values; totals against the paper's 25n + 9n and 14n + 4n and
                   the merged saving against eta = 1 - 18/34; figure: model versus measured per
                   kernel, one panel per form.

Reads the entries of kind "traffic" (written by harness/studies/anzt2015/anzt2015_traffic.cpp).
The rest of the study: anzt2015_bicgstab.py (table5, fig11) and anzt2015_bicgstab_profile.py
(table4); the code they share: _anzt2015_bicgstab_common.py.
"""

from __future__ import annotations

import math
from typing import Any, Dict, List, Tuple

import numpy as np

import kbench_results
from model_point import ModelPoint
from report import (NA, fmt, fmt_int, fmt_pct, gpu_title, header_block, markdown_table,
                    new_figure, write_outputs)
from ._anzt2015_bicgstab_common import (ETA_MEMORY, _improvement, _no_data_figure, _num,
                                        _of_kind, _ratio)


# Table 1 sums (vector kernels, SpMV excluded), in multiples of n: (reads, writes)
PAPER_TRAFFIC = {"reference": (25, 9), "merged": (14, 4)}


# ---------------------------------------------------------------- anzt2015/table1
TRAFFIC_FORMS = ["reference", "merged"]


def _traffic_unit(res: kbench_results.Results) -> Tuple[float, Dict[str, Any]]:
    """(bytes of n values, context.kbench.table1): value_bytes * n; NaN when either is
    unknown (value_bytes falls back to the precision's size, n to the matrix's stats)."""
    t1 = res.context.get("kbench", {}).get("table1")
    t1 = t1 if isinstance(t1, dict) else {}
    vb = _num(t1.get("value_bytes"))
    if math.isnan(vb):
        vb = {"double": 8.0, "float": 4.0, "single": 4.0}.get(t1.get("precision"), math.nan)
    n = _num(t1.get("n"))
    if math.isnan(n) and t1.get("matrix") in res.matrices.index:
        n = _num(res.matrices.at[t1["matrix"], "num_rows"])
    return vb * n, t1


def traffic_rows(res: kbench_results.Results, form: str) -> List[Dict[str, Any]]:
    """Traffic entries of `form` in document order (the model's table order: anzt2015 Table 1,
    with line 2's rho = r_hat . r of the next iteration last)."""
    rows = [e for e in _of_kind(res, "traffic") if e.get("form") == form]
    return rows


def _sum(rows: List[Dict[str, Any]], key: str) -> float:
    """Sum of `key` over rows; NaN when rows is empty or any value is missing."""
    vals = [_num(r.get(key)) for r in rows]
    return math.nan if not vals or any(math.isnan(v) for v in vals) else float(sum(vals))


def traffic_totals(rows: List[Dict[str, Any]]) -> Dict[str, Dict[str, float]]:
    """Sums in bytes per iteration of model and measured reads and writes, over the vector
    kernels ("vector": role != spmv) and over the SpMVs ("spmv")."""
    out = {}
    for part, sel in (("vector", [r for r in rows if r.get("role") != "spmv"]),
                      ("spmv", [r for r in rows if r.get("role") == "spmv"])):
        out[part] = {k: _sum(sel, k) for k in ("model_bytes_read", "model_bytes_written",
                                              "measured_bytes_read", "measured_bytes_written")}
    return out


def _in_n(x: float, unit: float) -> str:
    """Bytes as a multiple of n values, 2 decimals; NA when unknown."""
    v = _ratio(x, unit)
    return NA if math.isnan(v) else f"{v:.2f}"


def _rw(d: Dict[str, float], which: str) -> float:
    return d[f"{which}_bytes_read"] + d[f"{which}_bytes_written"]


def _model_reads(r: Dict[str, Any], unit: float) -> str:
    """The model's reads of a row in multiples of n, and Table 1's count after it where the
    entry stores a different one (table1_bytes_read: a call reading one vector twice, which
    the kernel moves once)."""
    text = _in_n(_num(r.get("model_bytes_read")), unit)
    table1 = _num(r.get("table1_bytes_read"))
    return text if math.isnan(table1) else f"{text} (Table 1: {_in_n(table1, unit)})"


def _traffic_table(rows: List[Dict[str, Any]], form: str, unit: float) -> str:
    headers = ["Kernel", "line", "merged into", "role", "launches / it.", "model reads (n)",
               "model writes (n)", "measured reads (n)", "measured writes (n)",
               "measured / model (reads + writes)"]
    body = []
    for r in rows:
        model = _num(r.get("model_bytes_read")) + _num(r.get("model_bytes_written"))
        meas = _num(r.get("measured_bytes_read")) + _num(r.get("measured_bytes_written"))
        line = _num(r.get("line"))
        body.append([r.get("kernel", NA), "-" if math.isnan(line) or line == 0 else
                     fmt_int(line), r.get("merged_into") or "-", r.get("role", NA),
                     fmt(_num(r.get("launches"))),
                     _model_reads(r, unit),
                     _in_n(_num(r.get("model_bytes_written")), unit),
                     _in_n(_num(r.get("measured_bytes_read")), unit),
                     _in_n(_num(r.get("measured_bytes_written")), unit),
                     fmt(_ratio(meas, model))])
    tot = traffic_totals(rows)
    for part, label in (("vector", "sum, vector kernels"), ("spmv", "sum, SpMVs")):
        t = tot[part]
        body.append([f"**{label}**", "", "", "", "",
                     _in_n(t["model_bytes_read"], unit), _in_n(t["model_bytes_written"], unit),
                     _in_n(t["measured_bytes_read"], unit),
                     _in_n(t["measured_bytes_written"], unit),
                     fmt(_ratio(_rw(t, "measured"), _rw(t, "model")))])
    paper = PAPER_TRAFFIC.get(form)
    if paper:
        body.append(["**paper Table 1, vector kernels**", "", "", "", "", f"{paper[0]:.2f}",
                     f"{paper[1]:.2f}", "", "", ""])
    return markdown_table(headers, body, left=4)


def _traffic_saving(res: kbench_results.Results, unit: float) -> str:
    tot = {f: traffic_totals(traffic_rows(res, f)) for f in TRAFFIC_FORMS}
    ref, mer = tot["reference"], tot["merged"]
    lines = "**Merged versus reference (reads + writes per iteration)**\n\n"
    for part, label in (("vector", "vector kernels (SpMVs excluded, as in Table 1)"),
                        ("all", "whole iteration (SpMVs included)")):
        def both(d, which):
            v = _rw(d["vector"], which)
            return v + _rw(d["spmv"], which) if part == "all" else v
        meas_ref, meas_mer = both(ref, "measured"), both(mer, "measured")
        mod_ref, mod_mer = both(ref, "model"), both(mer, "model")
        lines += (f"- {label}: measured {_in_n(meas_ref, unit)} n -> {_in_n(meas_mer, unit)} n, "
                  f"saving {fmt_pct(_improvement(meas_mer, meas_ref))}; model "
                  f"{_in_n(mod_ref, unit)} n -> {_in_n(mod_mer, unit)} n, saving "
                  f"{fmt_pct(_improvement(mod_mer, mod_ref))}")
        if part == "vector":
            lines += (f"; paper: eta = 1 - 18n / 34n = 8/17 = {fmt_pct(ETA_MEMORY)}")
        lines += "\n"
    return lines + "\n"


def _table1_figure(res: kbench_results.Results, unit: float):
    forms = [f for f in TRAFFIC_FORMS if traffic_rows(res, f)]
    if not forms:
        return _no_data_figure("anzt2015 Table 1: DRAM traffic per iteration")
    n_max = max(len(traffic_rows(res, f)) for f in forms)
    fig, axes = new_figure(len(forms), 1, figsize=(max(8.0, 0.7 * n_max + 3), 4.5 * len(forms)),
                           squeeze=False)
    for ax, form in zip(axes[:, 0], forms):
        rows = traffic_rows(res, form)
        x = np.arange(len(rows))

        def values(which):
            return [_ratio(_num(r.get(f"{which}_bytes_read"))
                           + _num(r.get(f"{which}_bytes_written")), unit) for r in rows]
        model, measured = values("model"), values("measured")
        ax.bar(x - 0.2, model, 0.4, label="model", color="C0")
        ax.bar(x + 0.2, measured, 0.4, label="measured (Nsight Compute DRAM)", color="C3")
        # the SpMVs move many times a vector kernel's bytes: clip them, print their value
        vector = [v for r, pair in zip(rows, zip(model, measured)) if r.get("role") != "spmv"
                  for v in pair if not math.isnan(v)]
        top = 1.3 * max(vector) if vector and max(vector) > 0 else math.nan
        if not math.isnan(top):
            ax.set_ylim(0, top)
            for i, pair in enumerate(zip(model, measured)):
                for off, v in zip((-0.2, 0.2), pair):
                    if not math.isnan(v) and v > top:
                        ax.text(x[i] + off, 0.97 * top, f"{v:.1f}", ha="center", va="top",
                                fontsize=7, rotation=90, color="white")
        ax.set_xticks(x)
        ax.set_xticklabels([r.get("kernel", "?") for r in rows], rotation=45, ha="right",
                           rotation_mode="anchor", fontsize=8)
        ax.set_ylabel("reads + writes per iteration (multiples of n values)")
        ax.set_title(f"{form} form: DRAM traffic per kernel on {gpu_title(res.context)} - "
                     "anzt2015 Table 1")
        ax.grid(True, axis="y", alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def render_table1(res: kbench_results.Results, out_dir: str) -> List[str]:
    """Model (anzt2015 Sec. 3.3, Table 1) versus Nsight Compute DRAM bytes per iteration for each
    kernel of the reference and merged forms, with sums and the merged saving."""
    unit, t1 = _traffic_unit(res)
    text = header_block(res.context, f"anzt2015 Table 1: BiCGSTAB DRAM traffic per iteration on "
                                     f"{gpu_title(res.context)}")
    metrics = ", ".join(t1.get("ncu_metrics") or []) or NA
    text += (f"- Matrix {t1.get('matrix', NA)}: n = {fmt_int(t1.get('n'))}, nnz = "
             f"{fmt_int(t1.get('nnz'))}; precision {t1.get('precision', NA)} "
             f"({fmt_int(t1.get('value_bytes'))} bytes per value); "
             f"{fmt_int(t1.get('iterations_profiled'))} iterations profiled; metrics {metrics}\n")
    text += ("\nBytes per iteration in multiples of n values (bytes / (value bytes x n)); "
             "measured = DRAM bytes of the row's kernels (Nsight Compute), averaged over the "
             "profiled iterations. Reference rows follow the paper's Fig. 1 "
             "lines; 'merged into' names the merged kernel that takes the line over.\n\n")
    if not _of_kind(res, "traffic"):
        text += "No traffic entries in the results file: traffic n/a.\n"
    for form in TRAFFIC_FORMS:
        rows = traffic_rows(res, form)
        if rows:
            text += f"## {form.capitalize()} form\n\n" + _traffic_table(rows, form, unit) + "\n"
    if _of_kind(res, "traffic"):
        text += _traffic_saving(res, unit)
    return write_outputs(out_dir, text, lambda: _table1_figure(res, unit))


# ---------------------------------------------------------------- model points
def table1_model_points(res: kbench_results.Results) -> List[ModelPoint]:
    """Every kernel row of table1 (both forms, SpMVs included, sums left out): the model's bytes
    per iteration (reads + writes, models/bicgstab_model.hpp after anzt2015 Sec. 3.3, Table 1)
    and the DRAM bytes Nsight Compute measured."""
    out = []
    for form in TRAFFIC_FORMS:
        for r in traffic_rows(res, form):
            out.append(ModelPoint(
                "BiCGSTAB DRAM traffic per iteration (models/bicgstab_model.hpp)",
                f"{form}/{r.get('kernel', NA)}",
                _num(r.get("model_bytes_read")) + _num(r.get("model_bytes_written")),
                _num(r.get("measured_bytes_read")) + _num(r.get("measured_bytes_written")),
                "bytes"))
    return out


MODEL_POINTS = {
    "anzt2015/table1": table1_model_points,
}

RENDERERS = {
    "anzt2015/table1": render_table1,
}
