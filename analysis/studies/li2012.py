"""li2012 SPIKE::GPU study: truncated SPIKE preconditioning BiCGStab for banded, diagonally
dominant systems, against LAPACK dgbsv on the CPU and cuDSS on the GPU.

  li2012/table1  truncated SPIKE's relative residual after one apply vs the degree of diagonal
                 dominance d, next to li2012's Table 1, with the SPIKE+BiCGStab iterations; one
                 table per value distribution (random signs; negative off-diagonals: an
                 M-matrix).
  li2012/table3  time at the hand-tuned (best of a sweep), automatic and ill-tuned partition
                 size vs N, next to li2012's Table 3; li2012 Fig. 3's N = 8192 vs 8191.
  li2012/fig4    time vs N at K = 32: SPIKE+BiCGStab (double, mixed), dgbsv, cuDSS, the model.
  li2012/fig5    time vs K at N = 400,000, the same methods.
  li2012/fig6    time per phase of a detailed solve, measured and modeled.
  li2012/mixed   the preconditioner in float vs double: time, iterations, speedup.

Entries and context are written by harness/studies/li2012/bench_spike.cpp (schema in
bench_spike.hpp); li2012's numbers come from context.kbench.li2012.paper. Missing entries or values
render as "n/a".
"""

from __future__ import annotations

import math
from typing import Any, Dict, List, Optional, Sequence, Tuple

import kbench_results
from model_point import ModelPoint
from report import (NA, fmt, fmt_int, geomean, gpu_title, header_block, markdown_table, missing,
                    new_figure, write_outputs)

Entry = Dict[str, Any]

METHODS = ["spike_double", "spike_mixed", "dgbsv_1thread", "dgbsv_all_cores", "cudss_full",
           "cudss_solve"]
LABELS = {"spike_double": "SPIKE+BiCGStab double", "spike_mixed": "SPIKE+BiCGStab mixed",
          "dgbsv_1thread": "dgbsv 1 thread", "dgbsv_all_cores": "dgbsv all cores",
          "cudss_full": "cuDSS analysis+factor+solve", "cudss_solve": "cuDSS solve"}
PHASES = ["LU/UL", "spikes", "reduced system", "BiCGStab SpMV", "preconditioner", "other"]


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


# ---------------------------------------------------------------- li2012/table1
# banded()'s off-diagonal signs (entries without "signs" were written before it: random).
SIGNS_TITLES = {
    "random": "Random signs: off-diagonals uniform in +-[0.1, 1]",
    "negative": "Negative off-diagonals: an M-matrix (a_ij in [-1, -0.1], a_ii > 0)",
}


def signs_of(e: Entry) -> str:
    v = e.get("signs")
    return v if isinstance(v, str) else "random"


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


def psize_cell(e: Optional[Entry]) -> str:
    return NA if e is None or not isinstance(e.get("psize"), int) else fmt_int(e["psize"])


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


# ---------------------------------------------------------------- li2012/fig4, fig5
def sweep(es: List[Entry], figure: str) -> Tuple[str, List[int], Dict[Tuple[Any, Any], Entry]]:
    """The swept parameter of fig4 ("n") or fig5 ("K"), its values ascending, and the entries
    by (method, value)."""
    key = "n" if figure == "fig4" else "K"
    xs = sorted({int(e[key]) for e in es if isinstance(e.get(key), int)})
    return key, xs, {(e.get("method"), e.get(key)): e for e in es}


def scaling(res: kbench_results.Results, out_dir: str, figure: str) -> List[str]:
    es = entries(res, figure)
    key, xs, by = sweep(es, figure)
    methods = [m for m in METHODS if any(e.get("method") == m for e in es)]
    ctx = study_ctx(res)
    other = "K" if key == "n" else "n"  # the parameter held fixed, read from the entries
    held = sorted({int(e[other]) for e in es if isinstance(e.get(other), int)})
    held_text = ", ".join(fmt_int(v) for v in held) or NA
    if figure == "fig4":
        title = "li2012 Fig. 4: banded solve time vs N"
        fixed = f"K = {held_text}"
    else:
        title = "li2012 Fig. 5: banded solve time vs K"
        fixed = f"N = {held_text}"
    text = header_block(res.context, f"{title} on {gpu_title(res.context)}")
    ds = sorted({num(e, "d") for e in es if not missing(num(e, "d"))})
    text += (f"\n{fixed}, d = {', '.join(d_label(d) for d in ds) or NA}; times in ms (median); "
             "SPIKE psize automatic. "
             f"Baselines: dgbsv {ctx.get('baselines', {}).get('dgbsv', NA)}; cuDSS "
             f"{ctx.get('baselines', {}).get('cudss', NA)}.\n\n")
    label = "N" if key == "n" else "K"
    rows = []
    for x in xs:
        sd = by.get(("spike_double", x))
        sm = by.get(("spike_mixed", x))
        its = f"{sd.get('iterations', NA) if sd else NA} / {sm.get('iterations', NA) if sm else NA}"
        row = [fmt_int(x) if key == "n" else str(x), psize_cell(sd), its]
        row += [time_cell(by.get((m, x))) for m in methods]
        dev = num(sd, "device_seconds")
        row += [ms(dev), ms(num(sd, "model_seconds")),
                fmt(ratio(dev, num(sd, "model_seconds"))),
                fmt(ratio(num(by.get(("dgbsv_all_cores", x)), "seconds"), num(sd, "seconds"))),
                fmt(ratio(num(by.get(("dgbsv_all_cores", x)), "seconds"), dev))]
        rows.append(row)
    text += markdown_table([label, "psize", "iterations (double / mixed)",
                            *(f"{LABELS[m]} ms" for m in methods),
                            "SPIKE double on the device ms", "SPIKE double model ms",
                            "SPIKE double on the device / model", "dgbsv all cores / SPIKE double",
                            "dgbsv all cores / SPIKE double on the device"],
                           rows)
    text += ("\nSPIKE times include the copy of the band from pageable host memory to the GPU "
             "(dgbsv's data is already in host memory); 'on the device' leaves that copy out, "
             "as for a band already resident on the GPU.\n")
    speedups = [ratio(num(by.get(("dgbsv_all_cores", x)), "seconds"),
                      num(by.get(("spike_double", x)), "seconds")) for x in xs]
    speedups = [s for s in speedups if not missing(s)]
    claim = paper(res, "fig4_speedup_over_mkl")
    text += ("\nSPIKE+BiCGStab (double) over dgbsv on all cores: "
             + (f"{fmt(min(speedups))} to {fmt(max(speedups))} over {len(speedups)} points"
                if speedups else NA)
             + (f" (li2012 Fig. 4, SPIKE::GPU over MKL: {paper_num(claim[0])} to "
                f"{paper_num(claim[1])})."
                if figure == "fig4" and isinstance(claim, list) and len(claim) == 2 else ".")
             + "\n")
    odd = [e for e in es if e.get("skipped") or e.get("error")]
    if odd:
        text += "\nNot measured:\n\n"
    for e in odd:
        why = f"skipped: {e['skipped']}" if e.get("skipped") else f"error: {e['error']}"
        text += (f"- {LABELS.get(e.get('method'), e.get('method'))}, {label} = "
                 f"{fmt_int(e.get(key)) if key == 'n' else e.get(key)}: {why}\n")
    text += notes(res)

    def make():
        fig, ax = new_figure(figsize=(6.5, 4.2))
        drawn = False
        for i, m in enumerate(methods):
            pts = [(x, num(by.get((m, x)), "seconds")) for x in xs]
            pts = [(x, t * 1e3) for x, t in pts if not missing(t) and t > 0]
            if pts:
                drawn = True
                ax.plot(*zip(*pts), "o-" if m.startswith("spike") else "s-", color=f"C{i}",
                        label=LABELS[m], ms=4)
        pts = [(x, num(by.get(("spike_double", x)), "model_seconds")) for x in xs]
        pts = [(x, t * 1e3) for x, t in pts if not missing(t) and t > 0]
        if pts:
            ax.plot(*zip(*pts), "--", color="C0", label="SPIKE double, model")
        if not drawn:
            no_data(ax, f"no {figure} entries")
            return fig
        ax.set_xscale("log", base=10 if key == "n" else 2)
        ax.set_yscale("log")
        ax.set_xlabel("N (rows)" if key == "n" else "K (half-bandwidth)")
        ax.set_ylabel("time (ms)")
        ax.legend(fontsize=7)
        fig.tight_layout()
        return fig
    return write_outputs(out_dir, text, make)


def render_fig4(res: kbench_results.Results, out_dir: str) -> List[str]:
    return scaling(res, out_dir, "fig4")


def render_fig5(res: kbench_results.Results, out_dir: str) -> List[str]:
    return scaling(res, out_dir, "fig5")


# ---------------------------------------------------------------- li2012/fig6
def phase_rows(e: Entry) -> List[Tuple[str, float, float, Any]]:
    """(name, seconds, model seconds, calls) in li2012 Fig. 6's order, unknown names last."""
    phases = {p.get("name"): p for p in e.get("phases", []) if isinstance(p, dict)}
    names = [n for n in PHASES if n in phases] + sorted(set(phases) - set(PHASES), key=str)
    return [(str(n), num(phases[n], "seconds"), num(phases[n], "model_seconds"),
             phases[n].get("calls", NA)) for n in names]


def render_fig6(res: kbench_results.Results, out_dir: str) -> List[str]:
    es = entries(res, "fig6")
    text = header_block(res.context, f"li2012 Fig. 6: SPIKE+BiCGStab time per phase on "
                                     f"{gpu_title(res.context)}")
    if not es:
        text += f"\n{NA}: no fig6 entries.\n"
    for e in es:
        rows = phase_rows(e)
        total = sum(s for _, s, _, _ in rows if not missing(s))
        model_total = sum(m for _, _, m, _ in rows if not missing(m))
        which = "automatic" if e.get("psize_requested") == 0 else "li2012 Fig. 6"
        text += (f"\n### N = {fmt_int(e.get('n'))}, K = {e.get('K', NA)}, psize "
                 f"{psize_cell(e)} ({which}"
                 f", {e.get('partitions', NA)} partitions), {e.get('iterations', NA)} iterations, "
                 f"{e.get('status', NA)}\n\n")
        table = [[n, ms(s), pct(ratio(s, total)), ms(m), pct(ratio(m, model_total)), str(c)]
                 for n, s, m, c in rows]
        table.append(["sum of the phases", ms(total) if rows else NA, "100" if rows else NA,
                      ms(model_total) if rows else NA, "100" if rows else NA, ""])
        text += markdown_table(["phase", "ms", "share (%)", "model ms", "model share (%)",
                                "calls"], table)
        text += (f"\nDetailed solve: {ms(num(e, 'seconds'))} ms in all (factorization "
                 f"{ms(num(e, 'factor_seconds'))} ms); the same solve without the phase events: "
                 f"{ms(num(e, 'undetailed_seconds'))} ms.\n")
    text += "\n" + model_line(res) + notes(res)

    def make():
        fig, ax = new_figure(figsize=(7.0, 1.2 + 0.9 * max(1, len(es))))
        if not es:
            no_data(ax, "no fig6 entries")
            return fig
        labels, y = [], 0
        for e in es:
            rows = phase_rows(e)
            for which, idx in (("measured", 1), ("model", 2)):
                vals = [(r[0], r[idx]) for r in rows]
                tot = sum(v for _, v in vals if not missing(v))
                left = 0.0
                for n, v in vals:
                    if missing(v) or tot <= 0:
                        continue
                    colour = f"C{PHASES.index(n) if n in PHASES else 9}"
                    ax.barh(y, 100 * v / tot, left=left, color=colour,
                            label=n if y == 0 else None)
                    left += 100 * v / tot
                labels.append(f"psize {psize_cell(e)} {which}")
                y += 1
        ax.set_yticks(range(len(labels)))
        ax.set_yticklabels(labels, fontsize=7)
        ax.invert_yaxis()
        ax.set_xlim(0, 100)
        ax.set_xlabel("share of the time (%)")
        ax.legend(fontsize=6, ncol=3, loc="upper center", bbox_to_anchor=(0.5, -0.35))
        fig.tight_layout()
        return fig
    return write_outputs(out_dir, text, make)


# ---------------------------------------------------------------- li2012/mixed
def render_mixed(res: kbench_results.Results, out_dir: str) -> List[str]:
    es = entries(res, "mixed")
    text = header_block(res.context, f"li2012 Sec. 2.4: float SPIKE preconditioner in double "
                                     f"BiCGStab on {gpu_title(res.context)}")
    text += ("\nTimes: SPIKE+BiCGStab total (factorization + iterations), median, ms; speedup "
             "= double / mixed (null unless both converged); signs: banded()'s off-diagonal "
             "signs (negative: an M-matrix).\n\n")
    rows = []
    for e in es:
        rows.append([fmt_int(e.get("n")), str(e.get("K", NA)), d_label(num(e, "d")),
                     signs_of(e),
                     f"{psize_cell({'psize': e.get('psize_double')})} / "
                     f"{psize_cell({'psize': e.get('psize_mixed')})}",
                     ms(num(e, "seconds_double")), ms(num(e, "seconds_mixed")),
                     fmt(num(e, "speedup")),
                     f"{e.get('iterations_double', NA)} / {e.get('iterations_mixed', NA)}",
                     fmt(num(e, "model_speedup")),
                     f"{e.get('status_double', NA)} / {e.get('status_mixed', NA)}"])
    text += markdown_table(["N", "K", "d", "signs", "psize (double / mixed)", "double ms",
                            "mixed ms", "speedup", "iterations (double / mixed)", "model speedup",
                            "status"], rows, left=4)
    sp = [num(e, "speedup") for e in es if not missing(num(e, "speedup"))]
    claim = paper(res, "mixed_speedup")
    text += ("\nMixed over double: "
             + (f"{fmt(min(sp))} to {fmt(max(sp))}, geometric mean {fmt(geomean(sp))}, over "
                f"{len(sp)} points" if sp else NA)
             + (f" (li2012: {paper_num(claim[0])} to {paper_num(claim[1])})"
                if isinstance(claim, list) and len(claim) == 2 else "") + ".\n")
    text += "\n" + model_line(res) + notes(res)

    def make():
        fig, ax = new_figure(figsize=(6.5, 3.8))
        if not es:
            no_data(ax, "no mixed entries")
            return fig
        idx = list(range(len(es)))
        ax.bar([i - 0.2 for i in idx], [num(e, "speedup") for e in es], 0.4, label="measured")
        ax.bar([i + 0.2 for i in idx], [num(e, "model_speedup") for e in es], 0.4,
               label="model", alpha=0.6)
        if isinstance(claim, list) and len(claim) == 2:
            ax.axhspan(claim[0], claim[1], color="grey", alpha=0.2, label="li2012")
        ax.axhline(1.0, color="black", lw=0.8)
        ax.set_xticks(idx)
        ax.set_xticklabels([f"N={fmt_int(e.get('n'))}\nK={e.get('K')}, d={d_label(num(e, 'd'))}"
                            + ("" if signs_of(e) == "random" else "\nM-matrix")
                            for e in es], fontsize=6)
        ax.set_ylabel("time double / time mixed")
        ax.legend(fontsize=7)
        fig.tight_layout()
        return fig
    return write_outputs(out_dir, text, make)


# ---------------------------------------------------------------- model points
def scaling_model_points(figure: str):
    """fig4's or fig5's "SPIKE double on the device / model" column: per N (fig4) or K (fig5),
    the modeled time of SPIKE+BiCGStab in double (models/spike_model.hpp) and its measured
    time on the device (band copy left out), in s."""
    def points(res: kbench_results.Results) -> List[ModelPoint]:
        key, xs, by = sweep(entries(res, figure), figure)
        out = []
        for x in xs:
            sd = by.get(("spike_double", x))
            out.append(ModelPoint("SPIKE+BiCGStab time on the device (models/spike_model.hpp)",
                                  f"spike_double/{'N' if key == 'n' else 'K'}={x}",
                                  num(sd, "model_seconds"), num(sd, "device_seconds"), "s"))
        return out
    return points


def fig6_model_points(res: kbench_results.Results) -> List[ModelPoint]:
    """fig6's "ms" and "model ms" columns: per detailed solve and phase, the modeled time
    (models/spike_model.hpp) and the measured one, in s."""
    return [ModelPoint("SPIKE+BiCGStab phase time (models/spike_model.hpp)",
                       f"N={e.get('n')}/K={e.get('K')}/psize={psize_cell(e)}/{name}", m, t, "s")
            for e in entries(res, "fig6") for name, t, m, _ in phase_rows(e)]


def mixed_model_points(res: kbench_results.Results) -> List[ModelPoint]:
    """mixed's "speedup" and "model speedup" columns: time double / time mixed, modeled
    (models/spike_model.hpp) and measured."""
    return [ModelPoint("SPIKE mixed-precision speedup (models/spike_model.hpp)",
                       f"N={e.get('n')}/K={e.get('K')}/d={d_label(num(e, 'd'))}/{signs_of(e)}",
                       num(e, "model_speedup"), num(e, "speedup"), "x")
            for e in entries(res, "mixed")]


MODEL_POINTS = {
    "li2012/fig4": scaling_model_points("fig4"),
    "li2012/fig5": scaling_model_points("fig5"),
    "li2012/fig6": fig6_model_points,
    "li2012/mixed": mixed_model_points,
}

RENDERERS = {
    "li2012/table1": render_table1,
    "li2012/table3": render_table3,
    "li2012/fig4": render_fig4,
    "li2012/fig5": render_fig5,
    "li2012/fig6": render_fig6,
    "li2012/mixed": render_mixed,
}
