"""yamazaki2014 matrix powers kernel (MPK) time on one and several GPUs (yamazaki2014
Sec. IV-B, Fig. 8).

  yamazaki2014/fig8  the time MPK takes to generate m = 100 basis vectors vs the step count s,
                     total and its SpMV part (the local products), per GPU count and transport,
                     against s SpMVs with one halo exchange each; the saving over s SpMVs and
                     over MPK with s = 1 (the paper's comparison: up to 16 % on cant, 11 % on
                     G3_circuit); the MPK model's predicted time against the measured one
                     (goal: within 15 %).

The schema is in harness/studies/yamazaki2014/bench_dist_mpk.hpp and
harness/studies/yamazaki2014/dist_mpk_worker.cpp: one entry per
(matrix, GPU count, transport) with a "baseline" object and an "mpk" list of per-s objects,
each with its "model". Missing values render as "n/a"; a run that failed is listed with its
exit code.
"""

from __future__ import annotations

import math
from typing import Any, Dict, List, Optional, Tuple

import kbench_results
from model_point import ModelPoint
from report import NA, fmt, fmt_int, fmt_pct, gpu_title, header_block, markdown_table, \
    new_figure, write_outputs

Entry = Dict[str, Any]
TRANSPORTS = ("host_staged", "nccl")
# yamazaki2014 Sec. IV-B: "MPK reduces the run time by up to 16% and 11% using s > 1 for the
# cant and G3_circuit matrices" (against MPK with s = 1, 3 M2090 GPUs).
PAPER_SAVING = {"cant": 0.16, "G3_circuit": 0.11}
TARGET_MODEL_ERROR = 0.15  # the model within 15 % of the measured time


def num(e: Optional[Dict[str, Any]], key: str) -> float:
    v = None if e is None else e.get(key)
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else math.nan


def ms(x: float) -> str:
    return fmt(x * 1e3)


def entries(res: kbench_results.Results) -> List[Entry]:
    return [e for e in res.entries or [] if isinstance(e, dict) and e.get("item") == "fig8"]


def ok(e: Entry) -> bool:
    return "error" not in e and isinstance(e.get("mpk"), list)


def matrices(res: kbench_results.Results, rows: List[Entry]) -> List[str]:
    """Matrix names in manifest order, then those only the entries name (file order)."""
    names = [m for m in res.matrices.index if any(e.get("matrix") == m for e in rows)]
    for e in rows:
        if e.get("matrix") not in names:
            names.append(e.get("matrix"))
    return names


def paper_matrix(res: kbench_results.Results, matrix: str) -> str:
    """The first word of the stand-in's stands_for ("cant (FEM ...)" -> "cant")."""
    m = res.context.get("kbench", {}).get("matrices", {}).get(matrix, {})
    words = str(m.get("stands_for", "")).split()
    return words[0] if words else ""


def transport_key(t: str) -> int:
    return TRANSPORTS.index(t) if t in TRANSPORTS else len(TRANSPORTS)


def runs(rows: List[Entry], matrix: str) -> List[Entry]:
    """The entries of `matrix`, by GPU count, then transport."""
    found = [e for e in rows if e.get("matrix") == matrix]
    return sorted(found, key=lambda e: (num(e, "ranks"), transport_key(e.get("transport", ""))))


def steps(e: Entry) -> List[Entry]:
    return sorted((p for p in e.get("mpk", []) if isinstance(p, dict)), key=lambda p: num(p, "s"))


def model(p: Optional[Dict[str, Any]], key: str = "seconds") -> float:
    return num((p or {}).get("model") or {}, key)


def saving(t: float, reference: float) -> float:
    """1 - t / reference: the fraction of the reference's time saved."""
    return 1.0 - t / reference if reference > 0 else math.nan


def first_step(e: Entry) -> Optional[Dict[str, Any]]:
    return next((p for p in steps(e) if num(p, "s") == 1), None)


def best(e: Entry) -> Optional[Dict[str, Any]]:
    """The s > 1 with the shortest total time."""
    cands = [p for p in steps(e) if num(p, "s") > 1 and not math.isnan(num(p, "seconds"))]
    return min(cands, key=lambda p: num(p, "seconds")) if cands else None


def run_label(e: Entry) -> str:
    p = int(num(e, "ranks")) if not math.isnan(num(e, "ranks")) else 0
    return f"{p} GPU{'s' if p != 1 else ''}, {e.get('transport', NA)}"


def run_table(e: Entry) -> str:
    base = e.get("baseline") or {}
    t_base, t_one = num(base, "seconds"), num(first_step(e), "seconds")
    body = []
    for p in steps(e):
        t = num(p, "seconds")
        body.append([fmt_int(p.get("s")), fmt_int(p.get("calls")), ms(t),
                     ms(num(p, "products_seconds")), ms(t - num(p, "products_seconds")),
                     fmt_pct(saving(t, t_base)), fmt_pct(saving(t, t_one)),
                     ms(model(p)), fmt(model(p, "ratio")), ms(model(p, "products_seconds")),
                     fmt_int(p.get("exchanges")), fmt(num(p, "max_rel_error"))])
    body.append(["s SpMVs", fmt_int(base.get("exchanges")), ms(t_base),
                 ms(num(base, "products_seconds")),
                 ms(t_base - num(base, "products_seconds")), "", fmt_pct(saving(t_base, t_one)),
                 ms(model(base)), fmt(model(base, "ratio")), ms(model(base, "products_seconds")),
                 fmt_int(base.get("exchanges")), ""])
    rest = "exchange and overhead (ms)" if num(e, "ranks") > 1 else "overhead (ms)"
    return markdown_table(["s", "calls", "MPK (ms)", "SpMV part (ms)", rest,
                           "saving vs s SpMVs", "saving vs MPK s = 1", "model (ms)",
                           "model / measured", "model SpMV part (ms)", "exchanges",
                           "max rel. error"], body)


def measured_totals(rows: List[Entry]) -> List[Tuple[str, Dict[str, Any]]]:
    """(label, its measurement) of every measured total: each s and each baseline."""
    out = []
    for e in rows:
        if not ok(e):
            continue
        for p in steps(e):
            out.append((f"{e.get('matrix')}, {run_label(e)}, s = {fmt_int(p.get('s'))}", p))
        out.append((f"{e.get('matrix')}, {run_label(e)}, s SpMVs", e.get("baseline") or {}))
    return out


def model_points(rows: List[Entry]) -> List[Tuple[str, float]]:
    """(label, model / measured) of every measured total that has a model."""
    out = [(label, model(p, "ratio")) for label, p in measured_totals(rows)]
    return [(label, r) for label, r in out if not math.isnan(r)]


def fig8_model_points(res: kbench_results.Results) -> List[ModelPoint]:
    """The points of fig8's "Model vs measured" summary: the MPK model's time
    (models/mpk_model.hpp) and the measured time of each s and of the s SpMVs, in s."""
    return [ModelPoint("MPK time (models/mpk_model.hpp)", label, model(p), num(p, "seconds"),
                       "s") for label, p in measured_totals(entries(res))]


def model_summary(rows: List[Entry]) -> str:
    points = model_points(rows)
    if not points:
        return f"- {NA}: no model next to a measurement (link or SpMV rate not measured).\n"
    within = [p for p in points if abs(p[1] - 1.0) <= TARGET_MODEL_ERROR]
    errors = sorted(abs(r - 1.0) for _, r in points)
    mid = errors[len(errors) // 2] if len(errors) % 2 else \
        0.5 * (errors[len(errors) // 2 - 1] + errors[len(errors) // 2])
    worst = max(points, key=lambda p: abs(p[1] - 1.0))
    verdict = "met" if len(within) == len(points) else "not met"
    return (f"- {len(within)} of {len(points)} measured times within "
            f"{fmt_pct(TARGET_MODEL_ERROR)} of the model; median |model / measured - 1| = "
            f"{fmt_pct(mid)}; worst: {worst[0]} (model / measured {fmt(worst[1])}). Goal "
            f"(every point within {fmt_pct(TARGET_MODEL_ERROR)}): {verdict}.\n")


def best_lines(res: kbench_results.Results, rows: List[Entry], matrix: str) -> str:
    out = ""
    paper = PAPER_SAVING.get(paper_matrix(res, matrix))
    paper_txt = (f"yamazaki2014 (3 GPUs, vs MPK s = 1): up to {fmt_pct(paper)}" if paper
                 else "no paper figure for this matrix")
    for e in runs(rows, matrix):
        if not ok(e):
            continue
        b = best(e)
        if b is None:
            out += f"- {matrix}, {run_label(e)}: {NA} (no s > 1 measured)\n"
            continue
        t = num(b, "seconds")
        out += (f"- {matrix}, {run_label(e)}: best s = {fmt_int(b.get('s'))} at {ms(t)} ms, "
                f"{fmt_pct(saving(t, num(e.get('baseline'), 'seconds')))} below s SpMVs, "
                f"{fmt_pct(saving(t, num(first_step(e), 'seconds')))} below MPK with s = 1 "
                f"({paper_txt})\n")
    return out


def failures(rows: List[Entry]) -> str:
    return "".join(f"- {e.get('name')}: failed (exit {e.get('exit_code')}): {e.get('error')}\n"
                   for e in rows if "error" in e)


def describe(res: kbench_results.Results, rows: List[Entry]) -> str:
    kb = res.context.get("kbench", {})
    p = kb.get("parameters", {})
    text = (f"m = {fmt_int(p.get('vectors'))} basis vectors per sweep, in calls of s steps "
            f"(the last call m mod s steps), {p.get('basis', NA)} basis, "
            f"{p.get('partition', NA)} block rows, one rank per GPU; s = "
            f"{', '.join(str(s) for s in p.get('steps', [])) or NA}; GPU counts "
            f"{', '.join(str(g) for g in p.get('gpu_counts', [])) or NA} of "
            f"{fmt_int(p.get('gpus'))}; times are the slowest rank's, median of "
            f"{fmt_int(p.get('repetitions'))} sweeps.\n\n")
    text += "".join(f"- {n}\n" for n in kb.get("notes", []))
    text += ("- SpMV part: the local products alone (no exchange); the rest, MPK - SpMV part, "
             "is the halo exchange (on 2 or more GPUs) and the per-call overhead: the copies "
             "of the vectors, the launches beyond the products and the host synchronization "
             "(on one GPU nothing is exchanged, so the rest is all overhead). Savings: 1 - T_MPK(s) / T_reference. Model: models/mpk_model.hpp with the "
             "measured SpMV rate of each rank and the measured link latency and bandwidth of "
             "the run's transport.\n")
    for e in rows:
        if ok(e) and e.get("link") and num(e, "ranks") > 1:
            link = e["link"]
            text += (f"- Link of {e.get('matrix')}, {run_label(e)}: latency "
                     f"{fmt(num(link, 'latency_seconds') * 1e6)} us, bandwidth "
                     f"{fmt(num(link, 'bandwidth_bytes_per_second') / 1e9)} GB/s\n")
    return text


def render_fig8(res: kbench_results.Results, out_dir: str) -> List[str]:
    rows = entries(res)
    text = header_block(res.context, f"yamazaki2014 Fig. 8: matrix powers kernel time on "
                                     f"{gpu_title(res.context)}")
    text += describe(res, rows)
    if not rows:
        text += f"\n{NA}: the results hold no fig8 entries.\n"
    for m in matrices(res, rows):
        first = next((e for e in runs(rows, m) if ok(e)), {})
        text += (f"\n### {m} (stands for {paper_matrix(res, m) or NA}; n = "
                 f"{fmt_int(first.get('n'))}, nnz = {fmt_int(first.get('nnz'))})\n")
        for e in runs(rows, m):
            if not ok(e):
                continue
            text += f"\n#### {run_label(e)}\n\n" + run_table(e)
    text += "\n### Best s per run\n\n"
    for m in matrices(res, rows):
        text += best_lines(res, rows, m)
    text += "\n### Model vs measured\n\n" + model_summary(rows)
    fails = failures(rows)
    if fails:
        text += "\n### Failed runs\n\n" + fails

    def make_figure():
        names = matrices(res, rows)
        gpus = sorted({int(num(e, "ranks")) for e in rows if ok(e)})
        fig, axes = new_figure(max(1, len(names)), max(1, len(gpus)),
                               figsize=(4.2 * max(1, len(gpus)), 3.6 * max(1, len(names))),
                               squeeze=False)
        colors = {"host_staged": "tab:blue", "nccl": "tab:orange"}
        for i, m in enumerate(names):
            for j, g in enumerate(gpus):
                ax = axes[i][j]
                for e in runs(rows, m):
                    if not ok(e) or int(num(e, "ranks")) != g:
                        continue
                    t = e.get("transport", "")
                    c = colors.get(t, "tab:gray")
                    ps = steps(e)
                    s = [num(p, "s") for p in ps]
                    ax.plot(s, [num(p, "seconds") * 1e3 for p in ps], "-o", color=c, ms=3,
                            label=f"{t}: MPK")
                    ax.plot(s, [num(p, "products_seconds") * 1e3 for p in ps], "--", color=c,
                            label=f"{t}: SpMV part")
                    ax.plot(s, [model(p) * 1e3 for p in ps], "x", color=c,
                            label=f"{t}: model")
                    ax.axhline(num(e.get("baseline"), "seconds") * 1e3, color=c, ls=":",
                               lw=1, label=f"{t}: s SpMVs")
                ax.set_title(f"{m}, {g} GPU{'s' if g != 1 else ''}", fontsize=9)
                ax.set_xlabel("s")
                ax.set_ylabel("time for m vectors (ms)")
                ax.set_ylim(bottom=0)
                if ax.get_legend_handles_labels()[0]:
                    ax.legend(fontsize=6)
        if not names or not gpus:
            axes[0][0].text(0.5, 0.5, "no fig8 measurements", ha="center", va="center")
        fig.suptitle("yamazaki2014 Fig. 8: MPK time (solid), SpMV part (dashed), model (x), "
                     "s SpMVs (dotted)", fontsize=10)
        return fig

    return write_outputs(out_dir, text, make_figure)


MODEL_POINTS = {"yamazaki2014/fig8": fig8_model_points}

RENDERERS = {
    "yamazaki2014/fig8": render_fig8,
}
