"""li2012 SPIKE::GPU study: truncated SPIKE preconditioning BiCGStab for banded, diagonally
dominant systems, against LAPACK dgbsv on the CPU and cuDSS on the GPU; its tables.

  li2012/table1  truncated SPIKE's relative residual after one apply vs the degree of diagonal
                 dominance d, next to li2012's Table 1, with the SPIKE+BiCGStab iterations; one
                 table per value distribution (random signs; negative off-diagonals: an
                 M-matrix).
  li2012/table3  time at the hand-tuned (best of a sweep), automatic and ill-tuned partition
                 size vs N, next to li2012's Table 3; li2012 Fig. 3's N = 8192 vs 8191.

The times against the model (fig4, fig5, fig6, mixed) are li2012_times.py; the code both
modules share is _li2012_common.py. Entries and context are written by
harness/studies/li2012/bench_spike*.cpp (schema in bench_spike.hpp); li2012's numbers come from
context.kbench.li2012.paper. Missing entries or values render as "n/a".
"""

from __future__ import annotations

import math
from typing import Dict, List, Optional, Tuple

import kbench_results
from report import (NA, fmt, fmt_int, geomean, gpu_title, header_block, markdown_table, missing,
                    new_figure, write_outputs)
from ._li2012_common import (Entry, d_label, entries, mean, mean_count, ms, no_data, notes, num,
                             paper, paper_num, pct, psize_cell, ratio, signs_of, study_ctx,
                             time_cell)


# ---------------------------------------------------------------- li2012/table1
# banded()'s off-diagonal signs (entries without "signs" were written before it: random).
SIGNS_TITLES = {
    "random": "Random signs: off-diagonals uniform in +-[0.1, 1]",
    "negative": "Negative off-diagonals: an M-matrix (a_ij in [-1, -0.1], a_ii > 0)",
}


def signs_order(es: List[Entry]) -> List[str]:
    """The sign patterns of the entries: random, negative, then any other sorted."""
    present = {signs_of(e) for e in es}
    return [s for s in SIGNS_TITLES if s in present] + sorted(present - set(SIGNS_TITLES))


def render_table1(res: kbench_results.Results, out_dir: str) -> List[str]:
    es = entries(res, "table1")
    ctx = study_ctx(res)
    paper_t1 = paper(res, "table1") or {}
    text = header_block(res.context, f"li2012 Table 1: truncated SPIKE residual vs diagonal "
                                     f"dominance on {gpu_title(res.context)}")
    text += (f"\nN = {fmt_int(ctx.get('n'))}, K = {ctx.get('K', NA)}, seeds "
             f"{', '.join(str(s) for s in ctx.get('seeds', [])) or NA}, psize automatic (per "
             f"matrix). Residual: ||b - A z||_inf / ||b||_inf with z = M^-1 b, one apply of "
             f"truncated SPIKE, the mean over the seeds (li2012: 'average relative residual'); "
             f"chooser's estimate: the truncation error models::spike::truncation_error predicts "
             f"at that psize from the matrix's measured spike decay. Iterations: SPIKE+BiCGStab "
             f"to ||r||_inf / ||b||_inf <= {fmt(ctx.get('tolerance'))} on the recurrence "
             f"residual; true residual: ||b - A x||_inf / ||b||_inf recomputed at the end (mean "
             f"over the seeds).\n")
    if not es:
        text += f"\n{NA}: no table1 entries.\n"
    # per sign pattern: (d, li2012, corner, exact, float, its corner, its exact) for the figure
    curves: Dict[str, List[Tuple[float, ...]]] = {}
    for signs in signs_order(es):
        group_s = [e for e in es if signs_of(e) == signs]
        ds = sorted({num(e, "d") for e in group_s if not missing(num(e, "d"))})
        rows = []
        curves[signs] = []
        for d in ds:
            group = [e for e in group_s if num(e, "d") == d]
            p = paper_t1.get(str(int(d))) if d == int(d) else None
            exact = mean([num(e, "residual_inf") for e in group])
            corner = mean([num(e, "residual_inf_corner_ul") for e in group])
            estimate = mean([num(e, "truncation_estimate") for e in group])
            mixed = mean([num(e, "residual_inf_mixed") for e in group])
            cpu = mean([num(e, "residual_inf_cpu") for e in group])
            its = mean([num(e, "iterations") for e in group])
            its_c = mean([num(e, "iterations_corner_ul") for e in group])
            true_res = mean([num(e, "true_residual") for e in group])
            psizes = sorted({int(e["psize"]) for e in group if isinstance(e.get("psize"), int)})
            bad = sorted({str(e.get("status")) for e in group if e.get("status") != "converged"})
            rows.append([d_label(d), ", ".join(fmt_int(x) for x in psizes) or NA, paper_num(p),
                         pct(corner), pct(exact), pct(estimate), pct(mixed), pct(cpu),
                         mean_count(its_c), mean_count(its), fmt(true_res), str(len(group)),
                         ", ".join(bad) if bad else "converged"])
            curves[signs].append((d, math.nan if p is None else float(p), 100 * corner,
                                  100 * exact, 100 * mixed, its_c, its))
        text += f"\n### {SIGNS_TITLES.get(signs, 'signs ' + signs)}\n\n"
        text += markdown_table(
            ["d", "psize", "li2012 (%)", "corner UL, li2012's tips (%)", "exact tips (%)",
             "chooser's estimate (%)", "float preconditioner (%)", "CPU reference (%)",
             "iterations (corner UL)", "iterations (exact)", "true residual (exact)", "seeds",
             "status"], rows)
    text += ("\nli2012's tips: UL of the top-left 2K x 2K corner of each partition (li2012 Sec. "
             "2.2); exact tips: UL of the whole partition (kbench's default), which leaves only "
             "the truncation. li2012 needed 6-7 BiCGStab iterations; it does not state its value "
             "distribution.\n")
    text += notes(res)

    def make():
        fig, (ax, ax2) = new_figure(1, 2, figsize=(9.0, 3.6))
        if not any(curves.values()):
            no_data(ax, "no table1 entries")
            no_data(ax2, "no table1 entries")
            return fig
        first = next(c for c in curves.values() if c)
        pts = [(c[0], c[1]) for c in first if not missing(c[1]) and c[1] > 0]
        if pts:
            ax.plot(*zip(*pts), "ks--", label="li2012")
        for k, (signs, summary) in enumerate(curves.items()):
            line = "-" if k == 0 else ":"
            tag = "random" if signs == "random" else ("M-matrix" if signs == "negative"
                                                       else signs)
            for i, (label, marker) in enumerate([("corner UL", "o"), ("exact tips", "^"),
                                                 ("float", "v")]):
                pts = [(c[0], c[2 + i]) for c in summary if not missing(c[2 + i]) and c[2 + i] > 0]
                if pts:
                    ax.plot(*zip(*pts), marker + line, color=f"C{i}", label=f"{label}, {tag}")
            for i, (label, marker) in enumerate([("corner UL", "o"), ("exact tips", "^")]):
                pts = [(c[0], c[5 + i]) for c in summary if not missing(c[5 + i])]
                if pts:
                    ax2.plot(*zip(*pts), marker + line, color=f"C{i}", label=f"{label}, {tag}")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("degree of diagonal dominance d")
        ax.set_ylabel("relative residual after one apply (%)")
        ax.legend(fontsize=6)
        ax2.set_xscale("log")
        ax2.set_xlabel("degree of diagonal dominance d")
        ax2.set_ylabel("SPIKE+BiCGStab iterations")
        ax2.legend(fontsize=6)
        fig.tight_layout()
        return fig
    return write_outputs(out_dir, text, make)


# ---------------------------------------------------------------- li2012/table3
def ok(e: Entry) -> bool:
    return e.get("status") == "converged" and not missing(num(e, "seconds"))


def best(es: List[Entry], field: str) -> Optional[Entry]:
    cands = [e for e in es if ok(e) and not missing(num(e, field))]
    return min(cands, key=lambda e: (num(e, field), num(e, "psize"))) if cands else None


def render_table3(res: kbench_results.Results, out_dir: str) -> List[str]:
    es = entries(res, "table3")
    paper_t3 = paper(res, "table3") or {}
    ns = sorted({int(e["n"]) for e in es if isinstance(e.get("n"), int)
                 and e.get("kind") != "remainder"})
    text = header_block(res.context, f"li2012 Table 3: partition size tuning on "
                                     f"{gpu_title(res.context)}")
    text += (f"\nK = {study_ctx(res).get('K', NA)}, d = {fmt(study_ctx(res).get('d'))}. "
             "Hand-tuned: the fastest psize of the sweep; auto: psize 0 (the automatic choice); "
             "ill-tuned: li2012's min(2048, N), capped at N/2. Times: SPIKE+BiCGStab total "
             "(factorization + iterations), median, ms.\n\n")
    rows, ratios, curves = [], [], {}
    for n in ns:
        group = [e for e in es if e.get("n") == n]
        sweep = [e for e in group if e.get("kind") == "sweep"]
        hand = best(sweep, "seconds")
        model_best = best(sweep, "model_seconds")
        auto = next((e for e in group if e.get("kind") == "auto"), None)
        ill = next((e for e in group if e.get("kind") == "ill_tuned"), None)
        t_hand, t_auto, t_ill = (num(hand, "seconds"), num(auto, "seconds"), num(ill, "seconds"))
        r_auto = ratio(t_auto, t_hand)
        ratios.append((n, r_auto))
        p = paper_t3.get(str(n))
        p_hand, p_ill = (float(p[0]), float(p[1])) if isinstance(p, list) and len(p) == 2 \
            else (math.nan, math.nan)
        rows.append([fmt_int(n), psize_cell(hand), ms(t_hand), psize_cell(auto), ms(t_auto),
                     fmt(r_auto), psize_cell(ill), ms(t_ill), pct(ratio(t_ill, t_hand) - 1),
                     paper_num(p_hand), paper_num(p_ill), pct(ratio(p_ill, p_hand) - 1),
                     psize_cell(model_best)])
        curves[n] = sorted(((num(e, "psize"), num(e, "seconds")) for e in sweep if ok(e)))
    text += markdown_table(
        ["N", "hand-tuned psize", "hand-tuned ms", "auto psize", "auto ms", "auto / hand-tuned",
         "ill-tuned psize", "ill-tuned ms", "ill-tuned slower by (%)", "li2012 hand-tuned ms",
         "li2012 ill-tuned ms", "li2012 slower by (%)", "model's best psize"], rows)
    valid = [(n, r) for n, r in ratios if not missing(r)]
    if valid:
        worst = max(valid, key=lambda t: t[1])
        g = geomean([r for _, r in valid])
        text += (f"\nAutomatic vs hand-tuned: geometric mean {fmt(g)}, "
                 f"worst {fmt(worst[1])} (N = {fmt_int(worst[0])}).\n")
    else:
        text += f"\nAutomatic vs hand-tuned: {NA}.\n"
    rem = {e.get("n"): e for e in es if e.get("kind") == "remainder"}
    a, b = rem.get(8192), rem.get(8191)
    slower = ratio(num(b, "seconds"), num(a, "seconds")) - 1
    text += (f"\nli2012 Fig. 3 (psize 2048, the last partition takes the remainder): N = 8192: "
             f"{time_cell(a)} ms ({a.get('partitions', NA) if a else NA} partitions), N = 8191: "
             f"{time_cell(b)} ms; slower by {pct(slower)} % "
             f"(li2012: {pct(paper(res, 'fig3_degradation') or math.nan)} %).\n")
    text += notes(res)

    def make():
        fig, ax = new_figure(figsize=(6.5, 4.2))
        drawn = False
        for i, n in enumerate(ns):
            pts = [p for p in curves.get(n, []) if not missing(p[1])]
            if not pts:
                continue
            drawn = True
            ax.plot([p for p, _ in pts], [t * 1e3 for _, t in pts], "-", color=f"C{i % 10}",
                    lw=1, label=f"N = {fmt_int(n)}")
            for kind, marker in (("auto", "*"), ("ill_tuned", "x")):
                e = next((e for e in es if e.get("n") == n and e.get("kind") == kind), None)
                if e is not None and ok(e):
                    ax.plot([num(e, "psize")], [num(e, "seconds") * 1e3], marker,
                            color=f"C{i % 10}", ms=9)
        if not drawn:
            no_data(ax, "no table3 sweep")
            return fig
        ax.plot([], [], "k*", label="automatic psize")
        ax.plot([], [], "kx", label="ill-tuned psize")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("psize (rows per partition)")
        ax.set_ylabel("SPIKE+BiCGStab time (ms)")
        ax.legend(fontsize=6, ncol=2)
        fig.tight_layout()
        return fig
    return write_outputs(out_dir, text, make)


RENDERERS = {
    "li2012/table1": render_table1,
    "li2012/table3": render_table3,
}
