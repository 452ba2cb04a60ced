"""anzt2015 BiCGSTAB study: merged kernels and improvement model (anzt2015 Sec. 4.5).

  anzt2015/table5  improvement split into fusion and SpMV parts (Sec. 4.5, Table 5), both
                   precisions, with the graph form, per-iteration times, the absolute time model
                   and the memory lower bound; figure: fusion and SpMV parts per matrix.
  anzt2015/fig11   predicted (eqs. 2, 4, 5) versus measured improvement, matrices ordered by the
                   reference's SpMV + dot share (Sec. 4.5, Fig. 11), with each prediction's error.

table5 and fig11 read one document shape (entries of kind "solve" and "prediction"), as table4
does (anzt2015_bicgstab_profile.py, entries of kind "phases"); table1 (DRAM traffic, entries of
kind "traffic") is anzt2015_traffic.py; the code they share: _anzt2015_bicgstab_common.py.
Measured improvements are computed from the solves' median seconds per iteration (so they agree
with the times shown; a solve that stopped early still gives a valid per-iteration time); where
a solve is missing, the prediction entry's "measured" value is shown instead.
"""

from __future__ import annotations

import math
from typing import Any, Dict, List, Optional

import numpy as np

import kbench_results
from model_point import ModelPoint
from report import (NA, fmt, fmt_int, fmt_pct, geomean, gpu_title, header_block,
                    markdown_table, missing, new_figure, write_outputs)
from ._anzt2015_bicgstab_common import (
    ETA_MEMORY, FLAG, FORM_LABELS, FORMS, GRAPH_AUTO, MERGED_AUTO, MERGED_CSR, REFERENCE,
    _config_line, _improvement, _index, _matrix_order, _no_data_figure, _num, _of_kind,
    _planned_iterations, _precisions, _ratio, _rows)


FINISHED = ("max_iterations", "converged")  # any other status is flagged in the tables
SMALL_N = 23_000           # table5 summary: launch-bound matrices (graph speedup)
LARGE_N = 1_000_000        # table5 summary: bandwidth-bound matrices (lower bound, model)
GRAPH_SPEEDUP_TARGET = 2.0     # issue: graph/auto at least this much faster for n <= SMALL_N
LOWER_BOUND_TARGET = 1.15      # issue: merged/auto within this factor of its lower bound
MODEL_ERROR_TARGET = 0.15      # issue: |absolute model error| of merged/auto
FIG11_ERROR_TARGET_PP = 10.0   # issue: |P_memory+dot+SpMV - measured| per matrix, in pp


# ---------------------------------------------------------------- helpers
def fmt_pp(diff: float) -> str:
    """A difference of fractions in percentage points, signed: 0.15 -> '+15.0'; NA for NaN."""
    return NA if missing(diff) else f"{100.0 * diff:+.1f}"


def _flagged(solve: Optional[Dict[str, Any]]) -> bool:
    """True for a solve whose status says it did not run to the end (breakdown, non_finite,
    stagnation, ...)."""
    status = (solve or {}).get("status")
    return isinstance(status, str) and status not in FINISHED


def _flag_note(solve: Dict[str, Any], planned: Any) -> str:
    detail = solve.get("detail") or ""
    of = f" of {fmt_int(planned)}" if not missing(_num(planned)) else ""
    return (f"- {FLAG} {solve.get('name', NA)}: status {solve.get('status', NA)} after "
            f"{fmt_int(solve.get('iterations'))}{of} iterations"
            + (f" ({detail})" if detail else "") + "; its per-iteration time is shown, its "
            "matrix left out of the summary\n")


# ---------------------------------------------------------------- anzt2015/table5
def improvement_rows(res: kbench_results.Results, precision: str) -> List[Dict[str, Any]]:
    """Per matrix (matrix order) with a solve or prediction of `precision`: n, per-iteration
    seconds of each form, the improvements (fractions) fusion = 1 - T(merged,csr)/T(ref,csr),
    total = 1 - T(merged,auto)/T(ref,csr), spmv = total - fusion, graph_total =
    1 - T(graph,auto)/T(ref,csr) (from the solves, else the prediction's "measured"), the
    graph speedup T(merged,auto)/T(graph,auto), the model's prediction per form and its error
    (predicted/measured - 1), merged/auto over its lower bound, and the flagged solves."""
    solves, preds = _of_kind(res, "solve"), _of_kind(res, "prediction")
    idx = _index(solves)
    pidx = {(e.get("precision"), e.get("matrix")): e for e in reversed(preds)}
    out = []
    mine = [e for e in solves + preds if e.get("precision") == precision]
    for mat in _matrix_order(res, mine):
        s = {f: idx.get((*f, precision, mat)) for f in FORMS}
        t = {f: _num((s[f] or {}).get("seconds_per_iteration")) for f in FORMS}
        model = {f: _num(((s[f] or {}).get("model") or {}).get("seconds_per_iteration"))
                 for f in FORMS}
        given = (pidx.get((precision, mat)) or {}).get("measured") or {}
        fusion = _improvement(t[MERGED_CSR], t[REFERENCE])
        total = _improvement(t[MERGED_AUTO], t[REFERENCE])
        graph = _improvement(t[GRAPH_AUTO], t[REFERENCE])
        fusion = _num(given.get("fusion")) if math.isnan(fusion) else fusion
        total = _num(given.get("total")) if math.isnan(total) else total
        graph = _num(given.get("graph_total")) if math.isnan(graph) else graph
        spmv = total - fusion
        if math.isnan(spmv):
            spmv = _num(given.get("spmv"))
        lower = _num((s[MERGED_AUTO] or {}).get("lower_bound_seconds_per_iteration"))
        out.append({
            "matrix": mat, "n": _rows(res, mat, mine), "t": t, "solves": s,
            "fusion": fusion, "spmv": spmv, "total": total, "graph_total": graph,
            "graph_speedup": _ratio(t[MERGED_AUTO], t[GRAPH_AUTO]),
            "model": model, "model_error": {f: _ratio(model[f], t[f]) - 1.0 for f in FORMS},
            "lower_bound": lower, "lower_bound_ratio": _ratio(t[MERGED_AUTO], lower),
            "auto_kernel": ((s[MERGED_AUTO] or {}).get("spmv") or {}).get("kernel"),
            "flagged": [f for f in FORMS if _flagged(s[f])],
        })
    return out


def table5_summary(rows: List[Dict[str, Any]]) -> Dict[str, Any]:
    """Range of total improvement; geomean graph speedup over n <= SMALL_N; max merged/auto over
    lower bound and max |model error| of merged/auto over n >= LARGE_N (with their matrices).
    Matrices with a solve that ended early (flagged) are left out of all of them: their times
    come from fewer iterations than planned (the table still shows them, marked); "excluded"
    names them."""
    def extreme(pairs, pick):
        pairs = [(m, v) for m, v in pairs if not math.isnan(v)]
        return pick(pairs, key=lambda p: p[1]) if pairs else (None, math.nan)

    excluded = [r["matrix"] for r in rows if r["flagged"]]
    rows = [r for r in rows if not r["flagged"]]
    totals = [(r["matrix"], r["total"]) for r in rows]
    small = [r for r in rows if r["n"] <= SMALL_N and not math.isnan(r["graph_speedup"])]
    large = [r for r in rows if r["n"] >= LARGE_N]
    lb = extreme([(r["matrix"], r["lower_bound_ratio"]) for r in large], max)
    err = extreme([(r["matrix"], abs(r["model_error"][MERGED_AUTO])) for r in large], max)
    return {"min_total": extreme(totals, min), "max_total": extreme(totals, max),
            "small_count": len(small), "small_geomean": geomean(r["graph_speedup"] for r in small),
            "large_count": len(large), "max_lower_bound": lb, "max_model_error": err,
            "lb_count": sum(not math.isnan(r["lower_bound_ratio"]) for r in large),
            "err_count": sum(not math.isnan(r["model_error"][MERGED_AUTO]) for r in large),
            "excluded": excluded}


def _verdict(value: float, ok: bool) -> str:
    return "" if math.isnan(value) else (": met" if ok else ": not met")


def _summary_markdown(rows: List[Dict[str, Any]], precision: str) -> str:
    s = table5_summary(rows)
    (lo_m, lo), (hi_m, hi) = s["min_total"], s["max_total"]
    (lb_m, lb), (er_m, er) = s["max_lower_bound"], s["max_model_error"]
    g = s["small_geomean"]
    text = f"**Summary ({precision})**\n\n"
    if s["excluded"]:
        text += (f"- Left out of the lines below ({FLAG}: a solve ended before the planned "
                 f"iterations): {', '.join(s['excluded'])}\n")
    text += (f"- Total improvement (merged/auto vs reference/csr): {fmt_pct(lo)}"
             f"{f' ({lo_m})' if lo_m else ''} to {fmt_pct(hi)}{f' ({hi_m})' if hi_m else ''}\n")
    text += (f"- Graph speedup (merged/auto time / graph/auto time), geometric mean over the "
             f"{s['small_count']} matrices with n <= {SMALL_N:,}: {fmt(g)} (issue target >= "
             f"{fmt(GRAPH_SPEEDUP_TARGET)}{_verdict(g, g >= GRAPH_SPEEDUP_TARGET)})\n")
    text += (f"- merged/auto time / its memory lower bound, maximum over the {s['lb_count']} of "
             f"{s['large_count']} matrices with n >= {LARGE_N:,} that have one: {fmt(lb)}"
             f"{f' ({lb_m})' if lb_m else ''} (issue target <= {fmt(LOWER_BOUND_TARGET)}"
             f"{_verdict(lb, lb <= LOWER_BOUND_TARGET)})\n")
    text += (f"- Absolute model error of merged/auto, maximum |predicted / measured - 1| over the "
             f"{s['err_count']} of {s['large_count']} matrices with n >= {LARGE_N:,} that have "
             f"a prediction: {fmt_pct(er)}{f' ({er_m})' if er_m else ''} (issue target <= "
             f"{fmt_pct(MODEL_ERROR_TARGET)}{_verdict(er, er <= MODEL_ERROR_TARGET)})\n")
    return text + "\n"


def _us(seconds: float) -> str:
    return fmt(seconds * 1e6)


def _times_markdown(rows: List[Dict[str, Any]], precision: str, planned: Any) -> str:
    headers = (["Matrix", "n"] + [f"{FORM_LABELS[f]} (us/it)" for f in FORMS]
               + ["graph speedup (merged/auto / graph/auto)"]
               + [f"model {FORM_LABELS[f]} (us/it, error)" for f in FORMS]
               + ["merged/auto / lower bound"])
    body, notes = [], ""
    for r in rows:
        times = []
        for f in FORMS:
            cell = _us(r["t"][f])
            if f == MERGED_AUTO and r["auto_kernel"] and cell != NA:
                cell += f" ({r['auto_kernel']})"
            if f in r["flagged"]:
                cell += " " + FLAG
                notes += _flag_note(r["solves"][f], planned)
            times.append(cell)
        models = [NA if math.isnan(r["model"][f])
                  else f"{_us(r['model'][f])} ({fmt_pct(r['model_error'][f])})" for f in FORMS]
        body.append([r["matrix"], fmt_int(r["n"]), *times, fmt(r["graph_speedup"]), *models,
                     fmt(r["lower_bound_ratio"])])
    text = (f"### Per-iteration times and model ({precision})\n\n"
            + markdown_table(headers, body))
    return text + ("\n" + notes if notes else "") + "\n"


def _table5_figure(res: kbench_results.Results, precisions: List[str]):
    parts = [(p, improvement_rows(res, p)) for p in precisions]
    parts = [(p, rows) for p, rows in parts if rows]
    if not parts:
        return _no_data_figure("anzt2015 Table 5: improvement breakdown")
    width = max(8.0, 0.9 * max(len(rows) for _, rows in parts) + 3)
    fig, axes = new_figure(len(parts), 1, figsize=(width, 4.5 * len(parts)), squeeze=False)
    for ax, (prec, rows) in zip(axes[:, 0], parts):
        x = np.arange(len(rows))
        pct = lambda key: [100.0 * r[key] for r in rows]  # noqa: E731
        ax.bar(x - 0.2, pct("fusion"), 0.4, label="fusion (merged/csr vs reference/csr)",
               color="C0")
        ax.bar(x + 0.2, pct("spmv"), 0.4, label="SpMV (merged/auto vs merged/csr)", color="C1")
        ax.scatter(x, pct("total"), marker="D", color="black", zorder=3,
                   label="total (merged/auto)")
        ax.scatter(x, pct("graph_total"), marker="x", color="C3", zorder=3,
                   label="total (graph/auto)")
        ax.axhline(0.0, color="black", linewidth=0.8)
        ax.set_xticks(x)
        ax.set_xticklabels([r["matrix"] for r in rows], rotation=45, ha="right",
                           rotation_mode="anchor", fontsize=8)
        ax.set_ylabel("improvement over reference/csr (%)")
        ax.set_title(f"Improvement breakdown ({prec}) on {gpu_title(res.context)} - "
                     "anzt2015 Table 5")
        ax.grid(True, axis="y", alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def render_table5(res: kbench_results.Results, out_dir: str) -> List[str]:
    """Improvement split into fusion and SpMV parts per precision (anzt2015 Sec. 4.5, Table 5),
    with the graph form, per-iteration times, model errors, lower bounds and summary."""
    mine = _of_kind(res, "solve") + _of_kind(res, "prediction")
    precisions = _precisions(mine)
    planned = _planned_iterations(res.context)
    text = header_block(res.context, f"anzt2015 Table 5: BiCGSTAB improvement breakdown on "
                                     f"{gpu_title(res.context)}")
    text += _config_line(res.context)
    text += ("\nImprovements over the reference form with cuSPARSE CSR, from the median time per "
             "iteration: fusion = 1 - T(merged/csr) / T(reference/csr); total = 1 - "
             "T(merged/auto) / T(reference/csr); SpMV = total - fusion; graph total = 1 - "
             "T(graph/auto) / T(reference/csr). merged/auto's SpMV kernel in parentheses. The "
             "model column is the absolute time model's prediction per iteration with its error "
             "predicted / measured - 1; the lower bound is the form's Table 1 vector bytes plus "
             "both SpMVs' bytes at the measured read bandwidth.\n\n")
    per_prec = {p: improvement_rows(res, p) for p in precisions}
    if not precisions:
        text += "No solve or prediction entries in the results file: improvements n/a.\n"
    else:
        mats = _matrix_order(res, mine)
        headers = ["Matrix", "n"]
        for p in precisions:
            headers += [f"fusion ({p})", f"SpMV ({p})", f"total ({p})", f"graph total ({p})"]
        body = []
        for m in mats:
            cells = [m, NA]
            for p in precisions:
                r = next((r for r in per_prec[p] if r["matrix"] == m), None)
                if r is None:
                    cells += [NA] * 4
                    continue
                cells[1] = fmt_int(r["n"])
                if r["flagged"] and FLAG not in cells[0]:
                    cells[0] += " " + FLAG
                cells += [fmt_pct(r[k]) for k in ("fusion", "spmv", "total", "graph_total")]
            body.append(cells)
        text += "## Improvement breakdown\n\n" + markdown_table(headers, body)
        if any(r["flagged"] for rows in per_prec.values() for r in rows):
            text += (f"\n{FLAG} a solve of this matrix ended early (see the notes under the "
                     "times table)\n")
        text += "\n"
    for p in precisions:
        text += f"## Precision: {p}\n\n" + _summary_markdown(per_prec[p], p)
        text += _times_markdown(per_prec[p], p, planned)
    return write_outputs(out_dir, text, lambda: _table5_figure(res, precisions))


# ---------------------------------------------------------------- anzt2015/fig11
FIG11_PRECISION = "double"
PREDICTIONS = [("memory", "memory (eq. 2)"), ("memory_dot", "memory + dot (eq. 4)"),
               ("memory_dot_spmv", "memory + dot + SpMV (eq. 5)")]


def dot_savings(params: Dict[str, Any], n: float) -> float:
    """F(n) = (1 / (a n + b) + c) / 100 (anzt2015 eq. 3) with params {a, b, c}; NaN if any
    is missing."""
    a, b, c = (_num((params or {}).get(k)) for k in "abc")
    d = a * n + b
    return (1.0 / d + c) / 100.0 if d and not math.isnan(d + c) else math.nan


def fig11_rows(res: kbench_results.Results,
               precision: str = FIG11_PRECISION) -> List[Dict[str, Any]]:
    """Per prediction entry of `precision`, ordered by spmv_fraction + dot_fraction (ascending,
    missing last; ties in matrix order): shares, zeta_M, F(n), the predictions (fractions), the
    measured total improvement and each prediction's error (predicted - measured)."""
    preds = [e for e in _of_kind(res, "prediction") if e.get("precision") == precision]
    measured = {r["matrix"]: r for r in improvement_rows(res, precision)}
    out = []
    for mat in _matrix_order(res, preds):
        e = next(p for p in preds if p.get("matrix") == mat)
        pred = e.get("predicted") or {}
        paper = e.get("predicted_paper_fit") or {}
        spmv, dot = _num(e.get("spmv_fraction")), _num(e.get("dot_fraction"))
        total = measured[mat]["total"] if mat in measured else math.nan
        if math.isnan(total):
            total = _num((e.get("measured") or {}).get("total"))
        p = {k: _num(pred.get(k)) for k, _ in PREDICTIONS}
        p["paper_memory_dot_spmv"] = _num(paper.get("memory_dot_spmv"))
        ds = e.get("dot_savings") or {}
        out.append({"matrix": mat, "n": _rows(res, mat, preds), "spmv_fraction": spmv,
                    "dot_fraction": dot, "share": spmv + dot, "zeta_m": _num(e.get("zeta_m")),
                    "F_paper": _num(ds.get("paper")), "F_refit": _num(ds.get("refit")),
                    "predicted": p, "measured": total,
                    "error": {k: v - total for k, v in p.items()}})
    return sorted(out, key=lambda r: (math.isnan(r["share"]),
                                      0.0 if math.isnan(r["share"]) else r["share"]))


def _fit_markdown(context: Dict[str, Any]) -> str:
    fit = context.get("kbench", {}).get("dot_savings_fit")
    text = "### Dot-sequence savings fit F(n) = (1 / (a n + b) + c) / 100 (eq. 3)\n\n"
    if not isinstance(fit, dict):
        return text + "No context.kbench.dot_savings_fit in the results file: fit n/a.\n\n"
    body = []
    for key, label in (("paper", "paper (K40)"), ("refit", "refit on this GPU")):
        p = fit.get(key)
        if isinstance(p, dict) and "error" in p:
            body.append([label, NA, NA, NA, f"fit failed: {p['error']}"])
        elif isinstance(p, dict):
            body.append([label, fmt(_num(p.get("a"))), fmt(_num(p.get("b"))),
                         fmt(_num(p.get("c"))), ""])
        else:
            body.append([label, NA, NA, NA, "absent"])
    text += markdown_table(["fit", "a", "b", "c", "note"], body)
    pts = [p for p in fit.get("points") or [] if isinstance(p, (list, tuple)) and len(p) >= 2]
    ns = [_num(p[0]) for p in pts]
    ns = [v for v in ns if not math.isnan(v)]
    if ns:
        text += (f"\nMeasured (n, savings) points for the refit: {len(pts)}, n from "
                 f"{fmt_int(min(ns))} to {fmt_int(max(ns))}.\n")
    else:
        text += "\nNo measured (n, savings) points in the results file.\n"
    return text + "\n"


def _refit_used(context: Dict[str, Any]) -> bool:
    fit = context.get("kbench", {}).get("dot_savings_fit")
    refit = fit.get("refit") if isinstance(fit, dict) else None
    return isinstance(refit, dict) and "error" not in refit and not missing(_num(refit.get("a")))


def _fig11_figure(res: kbench_results.Results, rows: List[Dict[str, Any]]):
    if not rows:
        return _no_data_figure("anzt2015 Fig. 11: predicted vs measured improvement")
    fig, ax = new_figure(figsize=(max(8.0, 0.8 * len(rows) + 3), 5))
    x = np.arange(len(rows))
    ax.bar(x, [100.0 * r["share"] for r in rows], 0.6, color="0.85",
           label="SpMV + dot share (reference profile)")
    styles = {"memory": ("C0", ":", "s"), "memory_dot": ("C0", "--", "^"),
              "memory_dot_spmv": ("C0", "-", "o")}
    for key, label in PREDICTIONS:
        color, ls, marker = styles[key]
        ax.plot(x, [100.0 * r["predicted"][key] for r in rows], color=color, linestyle=ls,
                marker=marker, label=f"predicted: {label}")
    ax.plot(x, [100.0 * r["predicted"]["paper_memory_dot_spmv"] for r in rows], color="0.4",
            linestyle="-.", marker=".", label="predicted: eq. 5 with the paper's F(n)")
    ax.plot(x, [100.0 * r["measured"] for r in rows], color="C3", marker="D",
            label="measured (merged/auto)")
    ax.set_xticks(x)
    ax.set_xticklabels([f"{r['matrix']}\n{fmt_pct(r['share'])}" for r in rows], rotation=45,
                       ha="right", rotation_mode="anchor", fontsize=8)
    ax.set_xlabel("matrix (SpMV + dot share), ordered by the share")
    ax.set_ylabel("improvement over reference/csr (%)")
    ax.set_title(f"Predicted vs measured improvement ({FIG11_PRECISION}) on "
                 f"{gpu_title(res.context)} - anzt2015 Fig. 11")
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def render_fig11(res: kbench_results.Results, out_dir: str) -> List[str]:
    """Predicted (eqs. 2, 4, 5) versus measured improvement in double precision, matrices ordered
    by SpMV + dot share (anzt2015 Sec. 4.5, Fig. 11), with errors in percentage points."""
    rows = fig11_rows(res)
    refit = _refit_used(res.context)
    text = header_block(res.context, f"anzt2015 Fig. 11: predicted vs measured BiCGSTAB "
                                     f"improvement on {gpu_title(res.context)}")
    text += _config_line(res.context)
    text += (f"\nDouble precision. Shares are T_SpMV / T_total and T_dot / T_total of the "
             "reference profile (Table 4); zeta_M = 1 - T_SpMV(merged/auto) / "
             "T_SpMV(reference/csr) from the two profiles; F(n) is the dot-sequence saving "
             "(eq. 3). Predictions: memory = (1 - SpMV - dot) eta (eq. 2, eta = 1 - 18/34 = "
             f"{fmt_pct(ETA_MEMORY)}), memory + dot adds F(n) dot (eq. 4), memory + dot + SpMV "
             f"adds SpMV zeta_M (eq. 5); they use the {'refit' if refit else 'paper'} F(n)"
             f"{'' if refit else ' (no refit available)'}, 'P eq. 5, paper F' the paper's. "
             "Measured = 1 - T(merged/auto) / T(reference/csr) per iteration. Errors are "
             "predicted - measured in percentage points (pp).\n\n")
    if not rows:
        text += "No double-precision prediction entries in the results file: n/a.\n\n"
    else:
        headers = ["Matrix", "n", "SpMV share", "dot share", "SpMV + dot", "zeta_M",
                   "F(n) paper", "F(n) refit"]
        headers += [f"P {label}" for _, label in PREDICTIONS]
        headers += ["P eq. 5, paper F", "measured", "error memory (pp)",
                    "error memory + dot (pp)", "error memory + dot + SpMV (pp)",
                    "error eq. 5, paper F (pp)"]
        body = []
        for r in rows:
            p, err = r["predicted"], r["error"]
            body.append([r["matrix"], fmt_int(r["n"]), fmt_pct(r["spmv_fraction"]),
                         fmt_pct(r["dot_fraction"]), fmt_pct(r["share"]), fmt_pct(r["zeta_m"]),
                         fmt_pct(r["F_paper"]), fmt_pct(r["F_refit"])]
                        + [fmt_pct(p[k]) for k, _ in PREDICTIONS]
                        + [fmt_pct(p["paper_memory_dot_spmv"]), fmt_pct(r["measured"])]
                        + [fmt_pp(err[k]) for k, _ in PREDICTIONS]
                        + [fmt_pp(err["paper_memory_dot_spmv"])])
        text += markdown_table(headers, body)
        text += "\n**Summary**\n\n" + _fig11_summary(rows) + "\n"
    text += _fit_markdown(res.context)
    return write_outputs(out_dir, text, lambda: _fig11_figure(res, rows))


def _fig11_summary(rows: List[Dict[str, Any]]) -> str:
    text = ""
    for key, label in [("memory_dot_spmv", "P memory + dot + SpMV"),
                       ("paper_memory_dot_spmv", "P eq. 5 with the paper's F(n)")]:
        errs = [(r["matrix"], abs(r["error"][key])) for r in rows
                if not math.isnan(r["error"][key])]
        if not errs:
            text += f"- {label}: no matrix with both a prediction and a measurement: n/a\n"
            continue
        worst = max(errs, key=lambda e: e[1])
        over = [m for m, v in errs if 100.0 * v > FIG11_ERROR_TARGET_PP]
        text += (f"- {label}: max |error| {100.0 * worst[1]:.1f} pp ({worst[0]}); "
                 f"{len(over)} of {len(errs)} matrices exceed {fmt(FIG11_ERROR_TARGET_PP)} pp"
                 f"{': ' + ', '.join(over) if over else ''}"
                 + (" (issue target: <= 10 pp per matrix)" if key == "memory_dot_spmv" else "")
                 + "\n")
    return text


# ---------------------------------------------------------------- model points
def table5_model_points(res: kbench_results.Results) -> List[ModelPoint]:
    """The model cells of table5's per-iteration tables: per precision, matrix and form, the
    absolute time model's seconds per iteration (models/bicgstab_model.hpp) and the solve's
    measured median seconds per iteration."""
    out = []
    for prec in _precisions(_of_kind(res, "solve") + _of_kind(res, "prediction")):
        for r in improvement_rows(res, prec):
            for f in FORMS:
                out.append(ModelPoint("BiCGSTAB time per iteration (models/bicgstab_model.hpp)",
                                      f"{prec}/{r['matrix']}/{FORM_LABELS[f]}", r["model"][f],
                                      r["t"][f], "s"))
    return out


MODEL_POINTS = {
    "anzt2015/table5": table5_model_points,
}

RENDERERS = {
    "anzt2015/table5": render_table5,
    "anzt2015/fig11": render_fig11,
}
