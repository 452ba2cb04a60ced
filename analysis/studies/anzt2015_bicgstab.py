"""anzt2015 BiCGSTAB study: merged kernels, profile and improvement model (anzt2015 Sec. 3.3,
Sec. 4.5).

  anzt2015/table1  DRAM traffic per iteration (Sec. 3.3, Table 1): the model of each kernel of the
                   reference and the merged form next to the bytes Nsight Compute measured, in
                   multiples of n values; totals against the paper's 25n + 9n and 14n + 4n and
                   the merged saving against eta = 1 - 18/34; figure: model versus measured per
                   kernel, one panel per form.
  anzt2015/table4  profile of the reference (cuBLAS-style) form for 1000 iterations (Sec. 4.5,
                   Table 4) and of the merged form, per precision; figure: stacked fractions.
  anzt2015/table5  improvement split into fusion and SpMV parts (Sec. 4.5, Table 5), both
                   precisions, with the graph form, per-iteration times, the absolute time model
                   and the memory lower bound; figure: fusion and SpMV parts per matrix.
  anzt2015/fig11   predicted (eqs. 2, 4, 5) versus measured improvement, matrices ordered by the
                   reference's SpMV + dot share (Sec. 4.5, Fig. 11), with each prediction's error.

table4, table5 and fig11 read one document shape (entries of kind "solve", "phases",
"prediction"); table1 reads entries of kind "traffic". Measured improvements are computed from
the solves' median seconds per iteration (so they agree with the times shown; a solve that
stopped early still gives a valid per-iteration time); where a solve is missing, the
prediction entry's "measured" value is shown instead.
"""

from __future__ import annotations

import math
from typing import Any, Dict, Iterable, List, Optional, Tuple

import numpy as np

import kbench_results
from model_point import ModelPoint
from report import (NA, fmt, fmt_int, fmt_pct, geomean, gpu_title, header_block,
                    markdown_table, missing, new_figure, write_outputs)

# (form, SpMV policy) of the solves, in display order
REFERENCE = ("reference", "cusparse_csr")
MERGED_CSR = ("merged", "cusparse_csr")
MERGED_AUTO = ("merged", "auto")
GRAPH_AUTO = ("graph", "auto")
FORMS = [REFERENCE, MERGED_CSR, MERGED_AUTO, GRAPH_AUTO]
FORM_LABELS = {REFERENCE: "reference/csr", MERGED_CSR: "merged/csr", MERGED_AUTO: "merged/auto",
               GRAPH_AUTO: "graph/auto"}
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
FINISHED = ("max_iterations", "converged")  # any other status is flagged in the tables
FLAG = "†"
PROFILE_ITERATIONS = 1000  # Table 4 reports 1000 iterations
SMALL_N = 23_000           # table5 summary: launch-bound matrices (graph speedup)
LARGE_N = 1_000_000        # table5 summary: bandwidth-bound matrices (lower bound, model)
GRAPH_SPEEDUP_TARGET = 2.0     # issue: graph/auto at least this much faster for n <= SMALL_N
LOWER_BOUND_TARGET = 1.15      # issue: merged/auto within this factor of its lower bound
MODEL_ERROR_TARGET = 0.15      # issue: |absolute model error| of merged/auto
FIG11_ERROR_TARGET_PP = 10.0   # issue: |P_memory+dot+SpMV - measured| per matrix, in pp
# Table 1 sums (vector kernels, SpMV excluded), in multiples of n: (reads, writes)
PAPER_TRAFFIC = {"reference": (25, 9), "merged": (14, 4)}
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


def fmt_pp(diff: float) -> str:
    """A difference of fractions in percentage points, signed: 0.15 -> '+15.0'; NA for NaN."""
    return NA if missing(diff) else f"{100.0 * diff:+.1f}"


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
            + (f" ({detail})" if detail else "") + "; its per-iteration time is used\n")


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
    lower bound and max |model error| of merged/auto over n >= LARGE_N (with their matrices)."""
    def extreme(pairs, pick):
        pairs = [(m, v) for m, v in pairs if not math.isnan(v)]
        return pick(pairs, key=lambda p: p[1]) if pairs else (None, math.nan)

    totals = [(r["matrix"], r["total"]) for r in rows]
    small = [r for r in rows if r["n"] <= SMALL_N and not math.isnan(r["graph_speedup"])]
    large = [r for r in rows if r["n"] >= LARGE_N]
    lb = extreme([(r["matrix"], r["lower_bound_ratio"]) for r in large], max)
    err = extreme([(r["matrix"], abs(r["model_error"][MERGED_AUTO])) for r in large], max)
    return {"min_total": extreme(totals, min), "max_total": extreme(totals, max),
            "small_count": len(small), "small_geomean": geomean(r["graph_speedup"] for r in small),
            "large_count": len(large), "max_lower_bound": lb, "max_model_error": err,
            "lb_count": sum(not math.isnan(r["lower_bound_ratio"]) for r in large),
            "err_count": sum(not math.isnan(r["model_error"][MERGED_AUTO]) for r in large)}


def _verdict(value: float, ok: bool) -> str:
    return "" if math.isnan(value) else (": met" if ok else ": not met")


def _summary_markdown(rows: List[Dict[str, Any]], precision: str) -> str:
    s = table5_summary(rows)
    (lo_m, lo), (hi_m, hi) = s["min_total"], s["max_total"]
    (lb_m, lb), (er_m, er) = s["max_lower_bound"], s["max_model_error"]
    g = s["small_geomean"]
    text = f"**Summary ({precision})**\n\n"
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
                     _in_n(_num(r.get("model_bytes_read")), unit),
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
    "anzt2015/table1": table1_model_points,
    "anzt2015/table5": table5_model_points,
}

RENDERERS = {
    "anzt2015/table1": render_table1,
    "anzt2015/table4": render_table4,
    "anzt2015/table5": render_table5,
    "anzt2015/fig11": render_fig11,
}
