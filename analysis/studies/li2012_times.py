"""li2012 SPIKE::GPU study: the times of SPIKE+BiCGStab and the baselines against the model
(models/spike_model.hpp).

  li2012/fig4    time vs N at K = 32: SPIKE+BiCGStab (double, mixed), dgbsv, SPIKE+BiCGStab on
                 every CPU core (OpenMP: the multi-core CPU baseline), cuDSS, the model.
  li2012/fig5    time vs K at N = 400,000, the same methods.
  li2012/fig6    time per phase of a detailed solve, measured and modeled.
  li2012/mixed   the preconditioner in float vs double: time, iterations, speedup.

The tables (table1, table3) are li2012.py; the code both modules share is _li2012_common.py.
Entries and context are written by harness/studies/li2012/bench_spike*.cpp (schema in
bench_spike.hpp); li2012's numbers come from context.kbench.li2012.paper. Missing entries or
values render as "n/a"; results written before the CPU SPIKE series (spike_cpu_all_cores) say
it was not measured in that run.
"""

from __future__ import annotations

from typing import Any, Dict, List, Tuple

import kbench_results
from model_point import ModelPoint
from report import (NA, fmt, fmt_int, geomean, gpu_title, header_block, markdown_table, missing,
                    new_figure, write_outputs)
from ._li2012_common import (Entry, d_label, entries, ms, model_line, no_data, notes, num, paper,
                             paper_num, pct, psize_cell, ratio, signs_of, study_ctx, time_cell)


CPU_SPIKE = "spike_cpu_all_cores"  # the multi-core CPU baseline: SPIKE+BiCGStab, OpenMP
METHODS = ["spike_double", "spike_mixed", "dgbsv_1thread", "dgbsv_all_cores", CPU_SPIKE,
           "cudss_full", "cudss_solve"]
LABELS = {"spike_double": "SPIKE+BiCGStab double", "spike_mixed": "SPIKE+BiCGStab mixed",
          "dgbsv_1thread": "dgbsv 1 thread", "dgbsv_all_cores": "dgbsv all cores",
          CPU_SPIKE: "SPIKE+BiCGStab CPU all cores",
          "cudss_full": "cuDSS analysis+factor+solve", "cudss_solve": "cuDSS solve"}
NOT_MEASURED = "not measured in this run"
PHASES = ["LU/UL", "spikes", "reduced system", "BiCGStab SpMV", "preconditioner", "other"]


# ---------------------------------------------------------------- li2012/fig4, fig5
def sweep(es: List[Entry], figure: str) -> Tuple[str, List[int], Dict[Tuple[Any, Any], Entry]]:
    """The swept parameter of fig4 ("n") or fig5 ("K"), its values ascending, and the entries
    by (method, value)."""
    key = "n" if figure == "fig4" else "K"
    xs = sorted({int(e[key]) for e in es if isinstance(e.get(key), int)})
    return key, xs, {(e.get("method"), e.get(key)): e for e in es}


def cpu_spike_threads(es: List[Entry]) -> str:
    """The OpenMP thread counts the CPU SPIKE series ran on, e.g. "16" (n/a if none)."""
    ts = sorted({e["threads"] for e in es if e.get("method") == CPU_SPIKE
                 and isinstance(e.get("threads"), int)})
    return ", ".join(str(t) for t in ts) or NA


def scaling(res: kbench_results.Results, out_dir: str, figure: str) -> List[str]:
    es = entries(res, figure)
    key, xs, by = sweep(es, figure)
    methods = [m for m in METHODS if any(e.get("method") == m for e in es)]
    has_cpu = CPU_SPIKE in methods
    threads = cpu_spike_threads(es)
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
    baselines = ctx.get("baselines", {})
    cpu_text = (f"{threads} OpenMP threads, {baselines.get('spike_cpu', NA)}" if has_cpu
                else NOT_MEASURED)
    text += (f"\n{fixed}, d = {', '.join(d_label(d) for d in ds) or NA}; times in ms (median); "
             "SPIKE psize automatic. "
             f"Baselines: dgbsv {baselines.get('dgbsv', NA)}; SPIKE+BiCGStab on every CPU core: "
             f"{cpu_text}; cuDSS {baselines.get('cudss', NA)}.\n\n")
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
        if has_cpu:
            row += [fmt(ratio(num(by.get((CPU_SPIKE, x)), "seconds"), num(sd, "seconds"))),
                    fmt(ratio(num(by.get((CPU_SPIKE, x)), "seconds"), dev))]
        rows.append(row)
    text += markdown_table([label, "psize", "iterations (double / mixed)",
                            *(f"{LABELS[m]} ms" for m in methods),
                            "SPIKE double on the device ms", "SPIKE double model ms",
                            "SPIKE double on the device / model", "dgbsv all cores / SPIKE double",
                            "dgbsv all cores / SPIKE double on the device",
                            *(["SPIKE CPU all cores / SPIKE double",
                               "SPIKE CPU all cores / SPIKE double on the device"]
                              if has_cpu else [])],
                           rows)
    text += ("\nSPIKE times include the copy of the band from pageable host memory to the GPU "
             "(the CPU baselines' data is already in host memory); 'on the device' leaves that "
             "copy out, as for a band already resident on the GPU. OpenBLAS's dgbsv is serial, "
             "so 'dgbsv all cores' is no faster than one thread; the multi-core CPU baseline is "
             "SPIKE+BiCGStab on every CPU core (OpenMP over the partitions, one partition per "
             "thread).\n")

    def speedup_range(method: str) -> str:
        """The range of method's time / SPIKE double's over the points where both ran."""
        sp = [ratio(num(by.get((method, x)), "seconds"),
                    num(by.get(("spike_double", x)), "seconds")) for x in xs]
        sp = [v for v in sp if not missing(v)]
        return f"{fmt(min(sp))} to {fmt(max(sp))} over {len(sp)} points" if sp else NA
    claim = paper(res, "fig4_speedup_over_mkl")
    text += ("\nSPIKE+BiCGStab (double) over dgbsv on all cores: "
             + speedup_range("dgbsv_all_cores")
             + (f" (li2012 Fig. 4, SPIKE::GPU over MKL: {paper_num(claim[0])} to "
                f"{paper_num(claim[1])})."
                if figure == "fig4" and isinstance(claim, list) and len(claim) == 2 else ".")
             + "\n")
    text += ("\nSPIKE+BiCGStab (double) over SPIKE+BiCGStab on every CPU core: "
             + (f"{speedup_range(CPU_SPIKE)} ({threads} OpenMP threads)." if has_cpu
                else f"{NOT_MEASURED}.") + "\n")
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
                marker = "^-" if m == CPU_SPIKE else "o-" if m.startswith("spike") else "s-"
                ax.plot(*zip(*pts), marker, color=f"C{i}", label=LABELS[m], ms=4)
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
    text += ("\nTimes: SPIKE+BiCGStab total (copy of the band to the GPU, factorization, "
             "iterations), median, ms; speedup = double / mixed (null unless both converged); "
             "on the device: the same without the copies of the band (float halves the copy), "
             "which is what the model counts; signs: banded()'s off-diagonal signs (negative: "
             "an M-matrix).\n\n")
    rows = []
    for e in es:
        rows.append([fmt_int(e.get("n")), str(e.get("K", NA)), d_label(num(e, "d")),
                     signs_of(e),
                     f"{psize_cell({'psize': e.get('psize_double')})} / "
                     f"{psize_cell({'psize': e.get('psize_mixed')})}",
                     ms(num(e, "seconds_double")), ms(num(e, "seconds_mixed")),
                     fmt(num(e, "speedup")), fmt(num(e, "device_speedup")),
                     f"{e.get('iterations_double', NA)} / {e.get('iterations_mixed', NA)}",
                     fmt(num(e, "model_speedup")),
                     f"{e.get('status_double', NA)} / {e.get('status_mixed', NA)}"])
    text += markdown_table(["N", "K", "d", "signs", "psize (double / mixed)", "double ms",
                            "mixed ms", "speedup", "speedup on the device",
                            "iterations (double / mixed)", "model speedup", "status"], rows,
                           left=4)
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
        ax.bar([i - 0.27 for i in idx], [num(e, "speedup") for e in es], 0.27,
               label="measured (with the band's copy)")
        ax.bar(idx, [num(e, "device_speedup") for e in es], 0.27,
               label="measured on the device")
        ax.bar([i + 0.27 for i in idx], [num(e, "model_speedup") for e in es], 0.27,
               label="model (device)", alpha=0.6)
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
    """mixed's "speedup on the device" and "model speedup" columns: time double / time mixed
    without the copies of the band to the GPU, measured and modeled (models/spike_model.hpp,
    which counts the device's work only). Results written before device_speedup give no
    point."""
    return [ModelPoint("SPIKE mixed-precision speedup (models/spike_model.hpp)",
                       f"N={e.get('n')}/K={e.get('K')}/d={d_label(num(e, 'd'))}/{signs_of(e)}",
                       num(e, "model_speedup"), num(e, "device_speedup"), "x")
            for e in entries(res, "mixed")]


MODEL_POINTS = {
    "li2012/fig4": scaling_model_points("fig4"),
    "li2012/fig5": scaling_model_points("fig5"),
    "li2012/fig6": fig6_model_points,
    "li2012/mixed": mixed_model_points,
}


RENDERERS = {
    "li2012/fig4": render_fig4,
    "li2012/fig5": render_fig5,
    "li2012/fig6": render_fig6,
    "li2012/mixed": render_mixed,
}
