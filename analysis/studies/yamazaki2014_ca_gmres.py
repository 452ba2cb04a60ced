"""yamazaki2014 CA-GMRES study on one GPU and several (yamazaki2014 Sec. VI, Figs. 12-15).

  yamazaki2014/fig12  the test matrices (stand-ins): n, nnz/n, the two largest Ritz values of the
                      first cycle and kappa of the last Gram matrix of the first CA-GMRES restart.
  yamazaki2014/fig13  TSQR errors ||I - Q^T Q||_2 and ||V - QR||_F / ||V||_F (mean, min, max over
                      the blocks) inside CA-GMRES(20, 30) and (30, 30), per TSQR.
  yamazaki2014/fig14  per matrix and method: restarts, time per restart split into Orth, TSQR and
                      SpMV/MPK, total per restart, speedup over GMRES(m) CGS2; then the two
                      methods that superseded the paper's (kbench rows): GMRES(m) with the
                      one-reduce CGS2 ("low-sync", Swirydowicz et al. 2020, Bielich et al. 2022)
                      and CA-GMRES with the two-stage block orthogonalization (Yamazaki, Higgins,
                      Boman, Szyld, IPDPS 2024), against GMRES CGS2 and the per-block CA-GMRES row
                      of the same basis and TSQR.
  yamazaki2014/fig15  time per restart normalized to GMRES(m) CGS2, per matrix.

Rows of runs on several GPUs ("gpus" > 1, with their "transport") get their own sections after
the one-GPU ones, and a scaling table of GMRES CGS2 and the best CA-GMRES per configuration.

fig12 and fig15 are rendered from fig14's entries (same runs). The schemas are in
harness/studies/yamazaki2014/bench_ca_gmres.hpp. Missing values render as "n/a".
"""

from __future__ import annotations

import math
from typing import Any, Dict, List, Optional, Tuple

import kbench_results
from report import (NA, fmt, fmt_int, gpu_title, header_block, markdown_table, missing,
                    new_figure, write_outputs)

TSQR_LABELS = {"mgs": "MGS", "cgs": "CGS", "cgs2": "CGS2", "cholqr": "CholQR",
               "cholqr2": "CholQR2", "svqr": "SVQR", "caqr": "CAQR",
               "shifted_cholqr3": "shifted CholQR3"}
# yamazaki2014 Fig. 14 on one M2090: best CA-GMRES speedup over GMRES per restart.
PAPER_SPEEDUP_1GPU = {"cant": 1.40, "G3_circuit": 2.03, "dielFilterV2real": 1.61}
TARGET_SPEEDUP = 1.5  # issue 10: CA-GMRES >= 1.5x GMRES per restart with the best TSQR
TRANSPORT_LABELS = {"host_staged": "host-staged MPI", "nccl": "NCCL"}


def entries(res: kbench_results.Results, figure: str) -> List[Dict[str, Any]]:
    return [e for e in res.entries if e.get("figure") == figure]


def gpus(e: Dict[str, Any]) -> int:
    g = e.get("gpus")
    return int(g) if isinstance(g, (int, float)) and not isinstance(g, bool) else 1


def one_gpu(rows: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    return [e for e in rows if gpus(e) == 1]


def rank_groups(rows: List[Dict[str, Any]]) -> List[Tuple[int, str]]:
    """(GPUs, transport) of the multi-GPU runs, in order of GPUs then transport."""
    return sorted({(gpus(e), str(e.get("transport", ""))) for e in rows if gpus(e) > 1})


def in_group(rows: List[Dict[str, Any]], g: Tuple[int, str]) -> List[Dict[str, Any]]:
    return [e for e in rows if (gpus(e), str(e.get("transport", ""))) == g]


def group_title(g: Tuple[int, str]) -> str:
    return f"{g[0]} GPUs, {TRANSPORT_LABELS.get(g[1], g[1])}"


def num(e: Optional[Dict[str, Any]], key: str) -> float:
    v = None if e is None else e.get(key)
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else math.nan


def positive(x: float) -> float:
    """x, or NaN (rendered n/a) when it is not positive: a condition number of 0 means no
    communication-avoiding cycle ran (the first, plain GMRES cycle converged)."""
    return x if x > 0 else math.nan


def ms(e: Dict[str, Any], key: str) -> str:
    return fmt(num(e, key) * 1e3)


def matrices(rows: List[Dict[str, Any]]) -> List[str]:
    seen: List[str] = []
    for e in rows:
        if e.get("matrix") not in seen:
            seen.append(e.get("matrix"))
    return seen


def status_note(e: Dict[str, Any]) -> str:
    s = e.get("status", "")
    return "" if s == "converged" else f" ({s})"


def gmres_reference(rows: List[Dict[str, Any]], matrix: str) -> Optional[Dict[str, Any]]:
    """The GMRES(m) CGS2 entry of `matrix`: the baseline of every speedup and normalization."""
    return next((e for e in rows if e.get("matrix") == matrix and e.get("method") == "gmres"
                 and e.get("orth") == "cgs2"), None)


def two_stage(e: Dict[str, Any]) -> bool:
    """A CA-GMRES row of the two-stage block orthogonalization (not the paper's method)."""
    return e.get("borth") == "two_stage"


def best_ca(rows: List[Dict[str, Any]], matrix: str) -> Optional[Dict[str, Any]]:
    """The CA-GMRES entry of s > 1 with the shortest time per restart, of the paper's per-block
    orthogonalization."""
    ca = [e for e in rows if e.get("matrix") == matrix and e.get("method") == "ca_gmres"
          and not two_stage(e) and num(e, "s") > 1
          and not math.isnan(num(e, "per_restart_seconds"))]
    return min(ca, key=lambda e: num(e, "per_restart_seconds")) if ca else None


def lowsync_row(rows: List[Dict[str, Any]], matrix: str) -> Optional[Dict[str, Any]]:
    """The GMRES(m) entry of `matrix` with the one-reduce CGS2."""
    return next((e for e in rows if e.get("matrix") == matrix and e.get("method") == "gmres"
                 and e.get("orth") == "lowsync"), None)


def two_stage_rows(rows: List[Dict[str, Any]], matrix: str) -> List[Dict[str, Any]]:
    return [e for e in rows if e.get("matrix") == matrix and two_stage(e)]


def per_block_twin(rows: List[Dict[str, Any]], e: Dict[str, Any]) -> Optional[Dict[str, Any]]:
    """The per-block CA-GMRES row with the basis, s and TSQR of the two-stage row e."""
    return next((r for r in rows if r.get("matrix") == e.get("matrix")
                 and r.get("method") == "ca_gmres" and not two_stage(r)
                 and all(r.get(k) == e.get(k) for k in ("s", "basis", "orth", "normalized"))),
                None)


def successors_block(rows: List[Dict[str, Any]]) -> str:
    """One line per matrix and successor method: time per restart, speedup over GMRES CGS2 and,
    for a two-stage row, the ratio to its per-block twin."""
    text = ""
    for m in matrices(rows):
        ls = lowsync_row(rows, m)
        if ls is not None:
            text += (f"- {m}: {ls.get('label')}{status_note(ls)} at "
                     f"{ms(ls, 'per_restart_seconds')} ms per restart, speedup "
                     f"{fmt(num(ls, 'speedup'))} over GMRES CGS2\n")
        for e in two_stage_rows(rows, m):
            twin = per_block_twin(rows, e)
            ratio = num(twin, "per_restart_seconds") / num(e, "per_restart_seconds")
            twin_label = twin.get("label") if twin is not None else NA
            text += (f"- {m}: {e.get('label')}{status_note(e)} at "
                     f"{ms(e, 'per_restart_seconds')} ms per restart, speedup "
                     f"{fmt(num(e, 'speedup'))} over GMRES CGS2 and {fmt(ratio)} over the "
                     f"per-block {twin_label}\n")
    return text or f"- {NA}: the results hold no low-sync or two-stage rows\n"


def notes_block(res: kbench_results.Results) -> str:
    ctx = res.context.get("kbench", {}).get("yamazaki2014_ca_gmres", {})
    return "".join(f"- {n}\n" for n in ctx.get("notes", []))


def restarts_cell(e: Dict[str, Any]) -> str:
    """The restarts of a row's solve to the tolerance, and, when its timed solves ran in timing
    mode over more cycles than that (timing_mode, timed_iterations / restart), how many."""
    text = fmt_int(e.get("restarts"))
    cycles = num(e, "timed_iterations") / num(e, "restart")
    if e.get("timing_mode") and not math.isnan(cycles):
        text += f" (timed over {cycles:g})"
    return text


def fig14_table(rows: List[Dict[str, Any]], matrix: str) -> str:
    headers = ["method", "restarts", "Orth/restart (ms)", "TSQR/restart (ms)",
               "SpMV/restart (ms)", "total/restart (ms)", "speedup", "TSQR fallbacks"]
    body = []
    for e in (r for r in rows if r.get("matrix") == matrix):
        body.append([e.get("label", NA) + status_note(e), restarts_cell(e),
                     ms(e, "orth_seconds"), ms(e, "tsqr_seconds"), ms(e, "spmv_seconds"),
                     ms(e, "per_restart_seconds"), fmt(num(e, "speedup")),
                     fmt_int(e.get("tsqr_fallbacks"))])
    return markdown_table(headers, body)


def best_block(rows: List[Dict[str, Any]], paper: bool) -> str:
    """Per matrix the fastest CA-GMRES row of s > 1, its speedup over GMRES CGS2 against the
    target (and, paper=True, against yamazaki2014's one-GPU speedup)."""
    text = ""
    for m in matrices(rows):
        b = best_ca(rows, m)
        if b is None:
            text += f"- {m}: {NA}\n"
            continue
        sp = num(b, "speedup")
        verdict = "met" if sp >= TARGET_SPEEDUP else "not met"
        ref = ""
        if paper:
            ref = (f" (yamazaki2014, 1 GPU: "
                   f"{fmt(PAPER_SPEEDUP_1GPU.get(b.get('paper_matrix') or '', math.nan))})")
        text += (f"- {m}: {b.get('label')} at {ms(b, 'per_restart_seconds')} ms per restart, "
                 f"speedup {fmt(sp)} over GMRES CGS2{ref}; target >= {TARGET_SPEEDUP}: "
                 f"{verdict}\n")
    return text


def errors_block(rows: List[Dict[str, Any]]) -> str:
    return "".join(f"- {e.get('matrix', NA)}: the worker failed: {e.get('error')}\n"
                   for e in rows if "error" in e)


def scaling_table(rows: List[Dict[str, Any]]) -> str:
    """Per matrix and configuration (1 GPU, then each GPU count and transport): GMRES CGS2's
    and the best CA-GMRES's time per restart and the speedup."""
    body = []
    for m in matrices(rows):
        configs = [((1, ""), one_gpu(rows))] + [(g, in_group(rows, g))
                                                 for g in rank_groups(rows)]
        for g, mine in configs:
            ref, b = gmres_reference(mine, m), best_ca(mine, m)
            if ref is None and b is None:
                continue
            body.append([m, "1 GPU" if g[0] == 1 else group_title(g),
                         ms(ref, "per_restart_seconds") if ref else NA,
                         (b.get("label", NA) if b else NA),
                         ms(b, "per_restart_seconds") if b else NA,
                         fmt(num(b, "speedup"))])
    return markdown_table(["matrix", "GPUs", "GMRES CGS2 (ms/restart)", "best CA-GMRES",
                           "CA-GMRES (ms/restart)", "speedup"], body)


def multi_gpu_block(rows: List[Dict[str, Any]]) -> str:
    """The sections of the runs on several GPUs (empty when there are none)."""
    groups = rank_groups(rows)
    if not groups:
        return ""
    text = "\n## On several GPUs (one MPI rank per GPU)\n"
    for g in groups:
        mine = [e for e in in_group(rows, g) if "error" not in e]
        text += f"\n### {group_title(g)}\n"
        for m in matrices(mine):
            first = next(e for e in mine if e.get("matrix") == m)
            text += f"\n#### {m} (m = {fmt_int(first.get('restart'))})\n\n"
            text += fig14_table(mine, m)
        if mine:
            text += (f"\nBest CA-GMRES per matrix, {group_title(g)}:\n\n"
                     + best_block(mine, False))
        else:
            text += "\n"
        text += errors_block(in_group(rows, g))
    text += "\n### Scaling: GMRES CGS2 and the best CA-GMRES per restart\n\n"
    text += scaling_table([e for e in rows if "error" not in e])
    return text


def render_fig14(res: kbench_results.Results, out_dir: str) -> List[str]:
    all_rows = entries(res, "fig14")
    rows = one_gpu(all_rows)
    text = header_block(res.context, f"yamazaki2014 Fig. 14: CA-GMRES vs GMRES on "
                                     f"{gpu_title(res.context)} (1 GPU)")
    text += notes_block(res)
    if not rows:
        text += f"\n{NA}: the results hold no fig14 entries.\n"
    for m in matrices(rows):
        first = next(e for e in rows if e.get("matrix") == m)
        text += (f"\n### {m} (stands for {first.get('paper_matrix') or NA}; n = "
                 f"{fmt_int(first.get('n'))}, m = {fmt_int(first.get('restart'))})\n\n")
        text += fig14_table(rows, m)
    text += "\n### Best CA-GMRES per matrix\n\n"
    text += best_block(rows, True)
    text += "\n### Successors of the paper's methods\n\n"
    text += successors_block(rows)
    text += multi_gpu_block(all_rows)

    def make_figure():
        ms_list = matrices(rows)
        fig, axes = new_figure(1, max(1, len(ms_list)), figsize=(6 * max(1, len(ms_list)), 5),
                               squeeze=False)
        for ax, m in zip(axes[0], ms_list or [None]):
            if m is None:
                ax.set_title("no entries")
                continue
            mine = [e for e in rows if e.get("matrix") == m]
            labels = [e.get("label", "") for e in mine]
            bottom = [0.0] * len(mine)
            for key, color in (("spmv_seconds", "C0"), ("orth_seconds", "C1")):
                vals = [num(e, key) * 1e3 if not math.isnan(num(e, key)) else 0.0 for e in mine]
                ax.barh(range(len(mine)), vals, left=bottom, color=color,
                        label="SpMV/MPK" if key == "spmv_seconds" else "Orth (BOrth + TSQR)")
                bottom = [b + v for b, v in zip(bottom, vals)]
            totals = [num(e, "per_restart_seconds") * 1e3 for e in mine]
            ax.scatter([t if not math.isnan(t) else 0.0 for t in totals], range(len(mine)),
                       color="k", marker="|", s=200, label="total per restart")
            ax.set_yticks(range(len(mine)))
            ax.set_yticklabels(labels, fontsize=7)
            ax.invert_yaxis()
            ax.set_xlabel("ms per restart")
            ax.set_title(m)
            ax.legend(fontsize=7)
        fig.suptitle(f"CA-GMRES vs GMRES per restart (yamazaki2014 Fig. 14) - "
                     f"{gpu_title(res.context)}")
        return fig

    return write_outputs(out_dir, text, make_figure)


def render_fig12(res: kbench_results.Results, out_dir: str) -> List[str]:
    rows = one_gpu(entries(res, "fig14"))
    text = header_block(res.context, f"yamazaki2014 Fig. 12: test matrices on "
                                     f"{gpu_title(res.context)}")
    text += ("\nkappa(B): condition number of the last Gram matrix of the first CA-GMRES restart "
             "(s as in Fig. 14, monomial basis on the balanced matrix, CholQR2; Newton: the "
             "kbench row; n/a where the first, plain GMRES cycle of the Newton run already "
             "converged). Ritz values: the two largest in modulus of the first GMRES cycle "
             "(Newton runs).\n\n")
    body = []
    for m in matrices(rows):
        mine = [e for e in rows if e.get("matrix") == m]
        first = mine[0]
        mono = next((e for e in mine if e.get("basis") == "monomial" and num(e, "s") > 1
                     and e.get("orth") == "cholqr2" and not two_stage(e)), None)
        newton = next((e for e in mine if e.get("basis") == "newton" and not two_stage(e)), None)
        ritz = (newton or {}).get("ritz_top") or []
        n, nnz = num(first, "n"), num(first, "nnz")
        body.append([m, first.get("paper_matrix") or NA, fmt_int(first.get("n")),
                     fmt(nnz / n if n > 0 else math.nan),
                     " / ".join(fmt(float(r), 5) for r in ritz) if ritz else NA,
                     fmt(positive(num(mono, "first_gram_condition"))),
                     fmt(positive(num(newton, "first_gram_condition")))])
    text += markdown_table(["matrix", "stands for", "n", "nnz/n", "|theta_1| / |theta_2|",
                            "kappa(B) monomial", "kappa(B) Newton"], body)

    def make_figure():
        fig, ax = new_figure(1, 1, figsize=(7, 4))
        names = [r[0] for r in body]
        vals = [[num(next((e for e in rows if e.get("matrix") == m and e.get("basis") == b
                           and num(e, "s") > 1 and not two_stage(e)), None),
                     "first_gram_condition")
                 for m in names] for b in ("monomial", "newton")]
        for i, (b, v) in enumerate(zip(("monomial", "Newton"), vals)):
            ax.bar([k + 0.4 * i for k in range(len(names))],
                   [x if not math.isnan(x) and x > 0 else 0 for x in v], width=0.4, label=b)
        ax.set_xticks([k + 0.2 for k in range(len(names))])
        ax.set_xticklabels(names, fontsize=7)
        ax.set_yscale("log")
        ax.set_ylabel("kappa of the first restart's last Gram matrix")
        ax.legend()
        ax.set_title(f"yamazaki2014 Fig. 12 - {gpu_title(res.context)}")
        return fig

    return write_outputs(out_dir, text, make_figure)


def normalized_table(rows: List[Dict[str, Any]]) -> str:
    body = []
    for m in matrices(rows):
        base = num(gmres_reference(rows, m), "per_restart_seconds")
        for e in (r for r in rows if r.get("matrix") == m and "error" not in r):
            body.append([m, e.get("label", NA) + status_note(e),
                         fmt(num(e, "per_restart_seconds") / base),
                         fmt(num(e, "spmv_seconds") / base), fmt(num(e, "orth_seconds") / base)])
    return markdown_table(["matrix", "method", "total", "SpMV/MPK", "Orth"], body)


def render_fig15(res: kbench_results.Results, out_dir: str) -> List[str]:
    all_rows = entries(res, "fig14")
    rows = one_gpu(all_rows)
    text = header_block(res.context, f"yamazaki2014 Fig. 15: time per restart normalized to "
                                     f"GMRES on {gpu_title(res.context)} (1 GPU)")
    text += "\nTimes per restart over GMRES(m) CGS2's total per restart (below 1: faster).\n\n"
    text += normalized_table(rows)
    for g in rank_groups(all_rows):
        text += f"\n### {group_title(g)}\n\n" + normalized_table(in_group(all_rows, g))

    def make_figure():
        fig, ax = new_figure(1, 1, figsize=(9, 5))
        ms_list = matrices(rows)
        for i, m in enumerate(ms_list):
            ref = gmres_reference(rows, m)
            base = num(ref, "per_restart_seconds")
            bars = ((ref, "GMRES CGS2"), (best_ca(rows, m), "best CA-GMRES"),
                    (lowsync_row(rows, m), "GMRES CGS2 low-sync"),
                    (next(iter(two_stage_rows(rows, m)), None), "CA-GMRES two-stage"))
            for j, (e, label) in enumerate(bars):
                v = num(e, "per_restart_seconds") / base
                ax.bar(i + 0.2 * j, v if not math.isnan(v) else 0, width=0.2, color=f"C{j}",
                       label=label if i == 0 else None)
        ax.set_xticks([i + 0.3 for i in range(len(ms_list))])
        ax.set_xticklabels(ms_list, fontsize=7)
        ax.set_ylabel("time per restart / GMRES's")
        ax.legend()
        ax.set_title(f"yamazaki2014 Fig. 15 - {gpu_title(res.context)}")
        return fig

    return write_outputs(out_dir, text, make_figure)


def render_fig13(res: kbench_results.Results, out_dir: str) -> List[str]:
    rows = entries(res, "fig13")
    text = header_block(res.context, f"yamazaki2014 Fig. 13: TSQR errors inside CA-GMRES on "
                                     f"{gpu_title(res.context)}")
    text += notes_block(res)
    for s in sorted({int(num(e, "s")) for e in rows if not math.isnan(num(e, "s"))}):
        text += f"\n### CA-GMRES({s}, 30)\n\n"
        body = []
        for e in (r for r in rows if num(r, "s") == s):
            o, r = e.get("orthogonality") or {}, e.get("residual") or {}
            body.append([TSQR_LABELS.get(e.get("tsqr"), e.get("tsqr", NA)), e.get("status", NA),
                         fmt_int(e.get("blocks")), fmt_int(e.get("fallbacks")),
                         fmt(num(o, "mean")), fmt(num(o, "min")), fmt(num(o, "max")),
                         fmt(num(r, "mean")), fmt(num(r, "max"))])
        text += markdown_table(["TSQR", "status", "blocks", "fallbacks", "||I - Q^T Q|| mean",
                                "min", "max", "||V - QR|| / ||V|| mean", "max"], body)
    if not rows:
        text += f"\n{NA}: the results hold no fig13 entries.\n"

    def make_figure():
        ss = sorted({int(num(e, "s")) for e in rows if not math.isnan(num(e, "s"))}) or [0]
        fig, axes = new_figure(1, len(ss), figsize=(7 * len(ss), 5), squeeze=False)
        for ax, s in zip(axes[0], ss):
            mine = [e for e in rows if num(e, "s") == s]
            for j, key in enumerate(("orthogonality", "residual")):
                means = [num(e.get(key) or {}, "mean") for e in mine]
                lo = [num(e.get(key) or {}, "min") for e in mine]
                hi = [num(e.get(key) or {}, "max") for e in mine]
                xs = [i + 0.4 * j for i in range(len(mine))]
                ok = [(x, m_, m_ - l, h - m_) for x, m_, l, h in zip(xs, means, lo, hi)
                      if not missing(m_) and not math.isnan(m_) and m_ > 0]
                if ok:
                    ax.bar([p[0] for p in ok], [p[1] for p in ok], width=0.4,
                           yerr=[[max(p[2], 0) for p in ok], [max(p[3], 0) for p in ok]],
                           label="||I - Q^T Q||" if key == "orthogonality" else "||V - QR||/||V||")
            ax.set_xticks([i + 0.2 for i in range(len(mine))])
            ax.set_xticklabels([TSQR_LABELS.get(e.get("tsqr"), "") for e in mine], fontsize=7,
                               rotation=30)
            ax.set_yscale("log")
            ax.set_title(f"CA-GMRES({s}, 30)")
            ax.legend(fontsize=7)
        fig.suptitle(f"TSQR errors in CA-GMRES (yamazaki2014 Fig. 13) - {gpu_title(res.context)}")
        return fig

    return write_outputs(out_dir, text, make_figure)


RENDERERS = {
    "yamazaki2014/fig12": render_fig12,
    "yamazaki2014/fig13": render_fig13,
    "yamazaki2014/fig14": render_fig14,
    "yamazaki2014/fig15": render_fig15,
}
