"""anzt2015 kernel study: dot-product kernels and the fused p update (anzt2015 Sec. 3.2, 4.3-4.5).

  anzt2015/fig7   k dot products x_j . y sharing y (Fig. 7): GFlop/s of the cuBLAS ddot
                  sequence, MDOT, MDGM and cuBLAS dgemv per k, for n = 1e5 and 1e6.
  anzt2015/fig8   left: one and two dot products (cuBLAS ddot vs MDOT) over n; right: the faster
                  of MDGM and cuBLAS dgemv for each (n, k) and by how much (Fig. 8).
  anzt2015/fig9   the BiCGSTAB p update, three cuBLAS calls vs the fused kernel: GFlop/s, GB/s
                  and % of the measured read bandwidth over n, with the roofline (Fig. 9).
  anzt2015/fig10  the dot products of one BiCGSTAB iteration, 5 cuBLAS ddot (results to the host)
                  vs 3 MDOT calls: times, savings and the savings curve F(n) of anzt2015 eq. 3,
                  the paper's fit and the refit on this GPU (Fig. 10).

The runners (harness/studies/anzt2015/bench_vector_kernels*.cpp) write their own entries into the
file's "benchmarks" list, read here from Results.entries: {name, figure, panel, variant, precision,
n, k, seconds (median per call), flops, bytes, GFlops, GBps, repetitions, loops, max_rel_error},
plus "savings" on fig10's merged_sequence entries. Missing entries render as "n/a".
"""

from __future__ import annotations

import math
from typing import Any, Dict, List, Optional, Sequence, Tuple

from matplotlib.patches import Patch, Rectangle
import numpy as np

import kbench_results
from report import (NA, data_in, fmt, fmt_int, fmt_pct, gpu_title, header_block, l2_cache_bytes,
                    markdown_table, missing, new_figure, write_outputs)

LABELS = {
    "cublas_dot": "cuBLAS ddot", "mdot": "MDOT", "mdgm": "MDGM", "cublas_gemv": "cuBLAS dgemv",
    "cublas_dot_pair": "cuBLAS(2)", "mdot_pair": "MDOT(2)",
    "cublas_p_update": "cuBLAS (scal + 2 axpy)", "p_update": "fused p_update",
    "cublas_sequence": "cuBLAS (5 ddot, host results)",
    "merged_sequence": "merged (3 MDOT + 1 copy)",
}
COLORS = {"cublas_dot": "C3", "mdot": "C0", "mdgm": "C2", "cublas_gemv": "C1",
          "cublas_dot_pair": "C5", "mdot_pair": "C4", "cublas_p_update": "C3", "p_update": "C0",
          "cublas_sequence": "C3", "merged_sequence": "C0"}
FIG7_VARIANTS = ["cublas_dot", "mdot", "mdgm", "cublas_gemv"]
FIG8_LEFT_VARIANTS = ["cublas_dot", "mdot", "cublas_dot_pair", "mdot_pair"]
FIG9_VARIANTS = ["cublas_p_update", "p_update"]
FIG9_VECTORS = 3             # distinct vectors both variants touch: p, v, r
FIG9_TARGET_N = 10_000_000   # the large-n range for the fused speedup
FIG9_TARGET_SPEEDUP = 1.9    # ... and the speedup wanted there (anzt2015 Sec. 4.4 expects 2)
PAPER_FIT = {"a": 1e-7, "b": 0.018, "c": 8.0}  # anzt2015 eq. 3 (fallback when context lacks it)

Key = Tuple[str, int, int]  # (variant, n, k)


# ---------------------------------------------------------------- shared helpers
def figure_entries(res: kbench_results.Results, figure: str) -> Dict[Key, Dict[str, Any]]:
    """The entries of one figure keyed by (variant, n, k); the first one wins for duplicates.
    Entries without a variant or n are skipped."""
    out: Dict[Key, Dict[str, Any]] = {}
    for e in res.entries or []:
        if not isinstance(e, dict) or e.get("figure") != figure:
            continue
        if e.get("variant") is None or e.get("n") is None:
            continue
        out.setdefault((str(e["variant"]), int(e["n"]), int(e.get("k", 1))), e)
    return out


def value(entries: Dict[Key, Dict[str, Any]], variant: str, n: int, k: int,
          field: str) -> float:
    """entries[(variant, n, k)][field] as float; NaN when the entry or field is missing."""
    e = entries.get((variant, n, k))
    v = None if e is None else e.get(field)
    return math.nan if missing(v) else float(v)


def ratio(numerator: float, denominator: float) -> float:
    """numerator / denominator, NaN when either is NaN or the denominator is not > 0."""
    if missing(numerator) or missing(denominator) or not denominator > 0:
        return math.nan
    return numerator / denominator


def ns_of(entries: Dict[Key, Dict[str, Any]], panel: Optional[str] = None) -> List[int]:
    """Sorted distinct n of the entries (of one panel when given)."""
    return sorted({n for (_, n, _), e in entries.items()
                   if panel is None or e.get("panel", "") == panel})


def ks_of(entries: Dict[Key, Dict[str, Any]], panel: Optional[str] = None) -> List[int]:
    return sorted({k for (_, _, k), e in entries.items()
                   if panel is None or e.get("panel", "") == panel})


def max_error(entries: Dict[Key, Dict[str, Any]]) -> float:
    """Largest max_rel_error over the entries (NaN when none has one)."""
    errs = [float(e["max_rel_error"]) for e in entries.values()
            if not missing(e.get("max_rel_error"))]
    return max(errs) if errs else math.nan


def read_gbps(context: Dict[str, Any]) -> float:
    """The measured read bandwidth (GB/s): context.kbench.vector_kernels.read_gbps, else the
    machine profile's; NaN when neither is a positive number."""
    kb = context.get("kbench", {})
    for v in (kb.get("vector_kernels", {}).get("read_gbps"),
              kb.get("machine", {}).get("read_gbps")):
        if isinstance(v, (int, float)) and v > 0:
            return float(v)
    return math.nan


def method_lines(context: Dict[str, Any], keys: Sequence[str]) -> str:
    """'- key: text' lines from context.kbench.vector_kernels for the given keys (those present)."""
    vk = context.get("kbench", {}).get("vector_kernels", {})
    lines = [f"- {k}: {vk[k]}" for k in keys if k in vk]
    if "repetitions" in vk or "min_time" in vk:
        lines.append(f"- timing: {vk.get('timing', NA)}; {vk.get('repetitions', NA)} repetitions "
                     f"of >= {vk.get('min_time', NA)} s each, median seconds per call")
    return "\n".join(lines) + ("\n" if lines else "")


def no_data(ax, what: str) -> None:
    """Marks an empty panel with 'n/a: <what>'."""
    ax.text(0.5, 0.5, f"{NA}: {what}", ha="center", va="center", transform=ax.transAxes)
    ax.set_xticks([])
    ax.set_yticks([])


def pow10_label(n: int) -> str:
    """1e5 -> '1e5', 316000 -> '3.16e5'."""
    mantissa, exp = f"{float(n):.2e}".split("e")
    mantissa = mantissa.rstrip("0").rstrip(".")
    return f"{mantissa}e{int(exp)}"


# ---------------------------------------------------------------- anzt2015/fig7
def fig7_rows(entries: Dict[Key, Dict[str, Any]], n: int) -> List[Dict[str, float]]:
    """Per k at length n: GFlop/s of each variant and the MDGM speedup over the cuBLAS ddot
    sequence (T_cublas_dot / T_mdgm)."""
    rows = []
    for k in ks_of({key: e for key, e in entries.items() if key[1] == n}):
        row: Dict[str, float] = {"k": k}
        for v in FIG7_VARIANTS:
            row[v] = value(entries, v, n, k, "GFlops")
        row["speedup"] = ratio(value(entries, "cublas_dot", n, k, "seconds"),
                               value(entries, "mdgm", n, k, "seconds"))
        rows.append(row)
    return rows


def render_fig7(res: kbench_results.Results, out_dir: str) -> List[str]:
    """GFlop/s per variant and k, one table and one panel per n. Returns the paths written."""
    entries = figure_entries(res, "fig7")
    ns = ns_of(entries)
    text = header_block(res.context, f"anzt2015 Fig. 7: k dot products sharing one vector on "
                                     f"{gpu_title(res.context)}")
    text += method_lines(res.context, ["flops", "bytes", "pointer_mode"])
    if not ns:
        text += f"\n{NA}: the results hold no fig7 entries.\n"
    for n in ns:
        rows = fig7_rows(entries, n)
        text += f"\n### n = {fmt_int(n)}\n\n"
        headers = ["k", *(f"{LABELS[v]} GFlop/s" for v in FIG7_VARIANTS),
                   "MDGM / cuBLAS ddot sequence"]
        text += markdown_table(headers, [[str(r["k"]), *(fmt(r[v]) for v in FIG7_VARIANTS),
                                          fmt(r["speedup"])] for r in rows])
    text += (f"\nMDGM / cuBLAS ddot sequence = time of k cublasDdot calls / time of one MDGM call "
             f"(above 1: MDGM faster). Largest relative error of any result: "
             f"{fmt(max_error(entries))}.\n")

    def make_figure():
        fig, axes = new_figure(1, max(len(ns), 1), figsize=(6 * max(len(ns), 1), 4.5),
                               squeeze=False)
        if not ns:
            no_data(axes[0][0], "no fig7 entries")
        for ax, n in zip(axes[0], ns):
            rows = fig7_rows(entries, n)
            for v in FIG7_VARIANTS:
                ks = [r["k"] for r in rows if not math.isnan(r[v])]
                if ks:
                    ax.plot(ks, [r[v] for r in rows if not math.isnan(r[v])], marker="o",
                            ms=3, color=COLORS[v], label=LABELS[v])
            ax.set_xlabel("number of vectors k")
            ax.set_ylabel("GFlop/s")
            ax.set_title(f"n = {fmt_int(n)}")
            ax.grid(True, alpha=0.3)
            ax.legend(fontsize=8)
        fig.suptitle(f"Dot products sharing y (anzt2015 Fig. 7) - {gpu_title(res.context)}")
        return fig

    return write_outputs(out_dir, text, make_figure)


# ---------------------------------------------------------------- anzt2015/fig8
def fig8_left_rows(entries: Dict[Key, Dict[str, Any]]) -> List[Dict[str, float]]:
    """Per n of the left panel: GFlop/s of each variant and the speedups MDOT(1) / cuBLAS and
    MDOT(2) / cuBLAS(2) (time ratios)."""
    left = {key: e for key, e in entries.items() if e.get("panel") == "left"}
    rows = []
    for n in ns_of(left):
        row: Dict[str, float] = {"n": n}
        for v in FIG8_LEFT_VARIANTS:
            k = 2 if v.endswith("_pair") else 1
            row[v] = value(left, v, n, k, "GFlops")
        row["speedup1"] = ratio(value(left, "cublas_dot", n, 1, "seconds"),
                                value(left, "mdot", n, 1, "seconds"))
        row["speedup2"] = ratio(value(left, "cublas_dot_pair", n, 2, "seconds"),
                                value(left, "mdot_pair", n, 2, "seconds"))
        rows.append(row)
    return rows


Cell = Tuple[Optional[str], float]  # (faster variant or None, slower time / faster time)


def fig8_region(entries: Dict[Key, Dict[str, Any]]
                ) -> Tuple[List[int], List[int], Dict[Tuple[int, int], Cell]]:
    """The right panel: its n and k, and for each (n, k) measured by both variants the faster
    ("mdgm" or "cublas_gemv") and slower time / faster time (>= 1); (None, NaN) otherwise."""
    right = {key: e for key, e in entries.items() if e.get("panel") == "right"}
    ns, ks = ns_of(right), ks_of(right)
    cells: Dict[Tuple[int, int], Cell] = {}
    for n in ns:
        for k in ks:
            t_mdgm = value(right, "mdgm", n, k, "seconds")
            t_gemv = value(right, "cublas_gemv", n, k, "seconds")
            if math.isnan(t_mdgm) or math.isnan(t_gemv) or t_mdgm <= 0 or t_gemv <= 0:
                cells[(n, k)] = (None, math.nan)
            elif t_mdgm <= t_gemv:
                cells[(n, k)] = ("mdgm", t_gemv / t_mdgm)
            else:
                cells[(n, k)] = ("cublas_gemv", t_mdgm / t_gemv)
    return ns, ks, cells


def _cell_text(cell: Cell) -> str:
    winner, r = cell
    if winner is None:
        return NA
    return f"{'MDGM' if winner == 'mdgm' else 'gemv'} {fmt(r)}x"


def render_fig8(res: kbench_results.Results, out_dir: str) -> List[str]:
    """Left: GFlop/s of one and two dot products per n; right: the winner of MDGM vs cuBLAS
    dgemv per (n, k) and its margin. Returns the paths written."""
    entries = figure_entries(res, "fig8")
    rows = fig8_left_rows(entries)
    ns, ks, cells = fig8_region(entries)
    text = header_block(res.context, f"anzt2015 Fig. 8: dot kernels over the vector length on "
                                     f"{gpu_title(res.context)}")
    text += method_lines(res.context, ["flops", "bytes", "pointer_mode"])
    text += "\n### Left: one dot product, and two sharing one vector (GFlop/s)\n\n"
    if rows:
        headers = ["n", *(f"{LABELS[v]} GFlop/s" for v in FIG8_LEFT_VARIANTS),
                   "MDOT / cuBLAS ddot", "MDOT(2) / cuBLAS(2)"]
        text += markdown_table(headers, [
            [fmt_int(r["n"]), *(fmt(r[v]) for v in FIG8_LEFT_VARIANTS), fmt(r["speedup1"]),
             fmt(r["speedup2"])] for r in rows])
        text += ("\ncuBLAS(2) = two cublasDdot calls x1.y, x2.y; MDOT(2) = one MDOT call with both "
                 "pairs (y read once). Ratios are time ratios (above 1: MDOT faster).\n")
    else:
        text += f"{NA}: no left-panel entries.\n"
    text += "\n### Right: faster of MDGM and cuBLAS dgemv (V^T y, V of n x k)\n\n"
    if ns and ks:
        text += markdown_table(["n", *(f"k = {k}" for k in ks)],
                               [[fmt_int(n), *(_cell_text(cells[(n, k)]) for k in ks)] for n in ns])
        mdgm_wins = sum(1 for c in cells.values() if c[0] == "mdgm")
        measured = sum(1 for c in cells.values() if c[0] is not None)
        text += (f"\nCell: the faster variant and its speedup over the other (slower time / "
                 f"faster time). MDGM is faster in {mdgm_wins} of {measured} (n, k) points.\n")
    else:
        text += f"{NA}: no right-panel entries.\n"
    text += f"\nLargest relative error of any result: {fmt(max_error(entries))}.\n"

    def make_figure():
        fig, (left, right) = new_figure(1, 2, figsize=(13, 5))
        if rows:
            for v in FIG8_LEFT_VARIANTS:
                pts = [(r["n"], r[v]) for r in rows if not math.isnan(r[v])]
                if pts:
                    left.plot(*zip(*pts), marker="o", ms=3, color=COLORS[v], label=LABELS[v],
                              linestyle="--" if v.endswith("_pair") else "-")
            left.set_xscale("log")
            left.set_yscale("log")
            left.set_xlabel("vector length n")
            left.set_ylabel("GFlop/s")
            left.grid(True, which="both", alpha=0.3)
            left.legend(fontsize=8)
        else:
            no_data(left, "no left-panel entries")
        left.set_title("one and two dot products")
        if ns and ks:
            colors = {"mdgm": COLORS["mdgm"], "cublas_gemv": COLORS["cublas_gemv"], None: "0.85"}
            for i, n in enumerate(ns):
                for j, k in enumerate(ks):
                    winner, r = cells[(n, k)]
                    right.add_patch(_rect(i, j, colors[winner]))
                    right.text(i, j, NA if winner is None else fmt(r, 2), ha="center",
                               va="center", fontsize=7)
            right.set_xlim(-0.5, len(ns) - 0.5)
            right.set_ylim(-0.5, len(ks) - 0.5)
            right.set_xticks(range(len(ns)))
            right.set_xticklabels([pow10_label(n) for n in ns], rotation=45, fontsize=8)
            right.set_yticks(range(len(ks)))
            right.set_yticklabels([str(k) for k in ks])
            right.set_xlabel("vector length n")
            right.set_ylabel("number of vectors k")
            right.legend(handles=[Patch(color=colors["mdgm"], label="MDGM faster"),
                                  Patch(color=colors["cublas_gemv"], label="cuBLAS dgemv faster")],
                         fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
        else:
            no_data(right, "no right-panel entries")
        right.set_title("winner, slower/faster time")
        fig.suptitle(f"Dot kernels over n (anzt2015 Fig. 8) - {gpu_title(res.context)}")
        return fig

    return write_outputs(out_dir, text, make_figure)


def _rect(i: int, j: int, color: str) -> Rectangle:
    """The cell (i, j) of the region map."""
    return Rectangle((i - 0.5, j - 0.5), 1.0, 1.0, color=color, alpha=0.7)


# ---------------------------------------------------------------- anzt2015/fig9
def fig9_rows(entries: Dict[Key, Dict[str, Any]], bw: float) -> List[Dict[str, float]]:
    """Per n: GFlop/s, GB/s, fraction of the read bandwidth `bw` (GB/s) and roofline GFlop/s
    (bw x flops / bytes) of each variant, and the speedup T_cublas / T_fused."""
    rows = []
    for n in ns_of(entries):
        row: Dict[str, float] = {"n": n}
        for v in FIG9_VARIANTS:
            row[f"{v}_gflops"] = value(entries, v, n, 1, "GFlops")
            row[f"{v}_gbps"] = value(entries, v, n, 1, "GBps")
            row[f"{v}_frac"] = ratio(row[f"{v}_gbps"], bw)
            intensity = ratio(value(entries, v, n, 1, "flops"), value(entries, v, n, 1, "bytes"))
            row[f"{v}_roof"] = bw * intensity
        row["speedup"] = ratio(value(entries, "cublas_p_update", n, 1, "seconds"),
                               value(entries, "p_update", n, 1, "seconds"))
        rows.append(row)
    return rows


def fig9_min_speedup(rows: List[Dict[str, float]],
                     n_min: int = FIG9_TARGET_N) -> Tuple[float, Optional[int]]:
    """The smallest speedup over the rows with n >= n_min, and its n; (NaN, None) if none."""
    big = [(r["speedup"], r["n"]) for r in rows
           if r["n"] >= n_min and not math.isnan(r["speedup"])]
    if not big:
        return math.nan, None
    s, n = min(big)
    return s, int(n)


def render_fig9(res: kbench_results.Results, out_dir: str) -> List[str]:
    """The p update: per n GFlop/s, GB/s and % of read bandwidth of both variants and the
    speedup; figure: GFlop/s and GB/s over n with the roofline. Returns the paths written."""
    entries = figure_entries(res, "fig9")
    bw = read_gbps(res.context)
    rows = fig9_rows(entries, bw)
    text = header_block(res.context, f"anzt2015 Fig. 9: BiCGSTAB p update, cuBLAS vs fused, on "
                                     f"{gpu_title(res.context)}")
    text += method_lines(res.context, ["flops", "bytes", "scalars"])
    if rows:
        headers = ["n", "data in"]
        for v in FIG9_VARIANTS:
            headers += [f"{LABELS[v]} GFlop/s", f"{LABELS[v]} GB/s", f"{LABELS[v]} % read BW"]
        headers.append("speedup fused / cuBLAS")
        body = []
        for r in rows:
            cells = [fmt_int(r["n"]), data_in(FIG9_VECTORS * 8 * r["n"], res.context)]
            for v in FIG9_VARIANTS:
                cells += [fmt(r[f"{v}_gflops"]), fmt(r[f"{v}_gbps"]), fmt_pct(r[f"{v}_frac"])]
            cells.append(fmt(r["speedup"]))
            body.append(cells)
        text += "\n" + markdown_table(headers, body)
    else:
        text += f"\n{NA}: the results hold no fig9 entries.\n"
    s, n_at = fig9_min_speedup(rows)
    where = f" (at n = {fmt_int(n_at)})" if n_at is not None else ""
    verdict = NA if math.isnan(s) else ("met" if s >= FIG9_TARGET_SPEEDUP else "not met")
    text += (f"\n- Minimum speedup fused / cuBLAS over n >= {pow10_label(FIG9_TARGET_N)}: "
             f"{fmt(s)}{where}; target >= {FIG9_TARGET_SPEEDUP}: {verdict}\n"
             f"- Measured read bandwidth (roofline): {fmt(bw)} GB/s; roofline GFlop/s = read "
             f"bandwidth x flops / model bytes of each variant\n"
             f"- data in: L2 where p, v and r ({FIG9_VECTORS} n doubles) fit the L2 cache "
             f"({fmt(l2_cache_bytes(res.context) / 1e6)} MB): the repeated calls read them from "
             f"L2, so those rows' GB/s and % of the (DRAM) read bandwidth are L2 figures, not "
             f"DRAM ones (above 100 % where L2 outruns DRAM); just above the L2 size the cuBLAS "
             f"calls still find part of p, which the previous call wrote, in L2\n"
             f"- anzt2015 (K40): 11.5 GFlop/s (cuBLAS) vs 22.4 GFlop/s (fused) at large n\n"
             f"- Speedup = cuBLAS time / fused time; largest relative error of any result: "
             f"{fmt(max_error(entries))}\n")

    def make_figure():
        fig, (left, right) = new_figure(1, 2, figsize=(13, 5))
        if rows:
            ns = [r["n"] for r in rows]
            for v in FIG9_VARIANTS:
                left.plot(ns, [r[f"{v}_gflops"] for r in rows], marker="o", ms=3,
                          color=COLORS[v], label=LABELS[v])
                right.plot(ns, [r[f"{v}_gbps"] for r in rows], marker="o", ms=3,
                           color=COLORS[v], label=LABELS[v])
                roof = [r[f"{v}_roof"] for r in rows]
                if not all(math.isnan(x) for x in roof):
                    left.plot(ns, roof, color=COLORS[v], linestyle=":",
                              label=f"roofline {LABELS[v]}")
            if not math.isnan(bw):
                right.axhline(bw, color="k", linestyle=":", label=f"read bandwidth {fmt(bw)} GB/s")
            for ax, unit in ((left, "GFlop/s"), (right, "GB/s")):
                ax.set_xscale("log")
                ax.set_yscale("log")
                ax.set_xlabel("vector length n")
                ax.set_ylabel(unit)
                ax.grid(True, which="both", alpha=0.3)
                ax.legend(fontsize=8)
        else:
            no_data(left, "no fig9 entries")
            no_data(right, "no fig9 entries")
        left.set_title("GFlop/s (4n flops)")
        right.set_title("GB/s (model bytes)")
        fig.suptitle(f"p update (anzt2015 Fig. 9) - {gpu_title(res.context)}")
        return fig

    return write_outputs(out_dir, text, make_figure)


# ---------------------------------------------------------------- anzt2015/fig10
def savings_curve(n: float, fit: Dict[str, Any]) -> float:
    """F(n) = (1 / (a n + b) + c) / 100 (anzt2015 eq. 3), a fraction; NaN for a fit without
    finite a, b, c or with a n + b == 0."""
    try:
        a, b, c = float(fit["a"]), float(fit["b"]), float(fit["c"])
    except (KeyError, TypeError, ValueError):
        return math.nan
    d = a * n + b
    if not all(math.isfinite(x) for x in (a, b, c)) or d == 0:
        return math.nan
    return (1.0 / d + c) / 100.0


def fits(context: Dict[str, Any]) -> Tuple[Dict[str, Any], Dict[str, Any]]:
    """(paper, refit) from context.kbench.dot_savings_fit; the paper's defaults when absent,
    {} when no refit was stored."""
    f = context.get("kbench", {}).get("dot_savings_fit", {}) or {}
    return f.get("paper") or dict(PAPER_FIT), f.get("refit") or {}


def fig10_rows(entries: Dict[Key, Dict[str, Any]], paper: Dict[str, Any],
               refit: Dict[str, Any]) -> List[Dict[str, float]]:
    """Per n: both sequence times (seconds), the measured savings 1 - T_merged / T_cublas (the
    entry's own "savings" when stored) and F(n) of both fits, as fractions."""
    rows = []
    for n in ns_of(entries):
        k_c = next((k for (v, nn, k) in entries if v == "cublas_sequence" and nn == n), 5)
        k_m = next((k for (v, nn, k) in entries if v == "merged_sequence" and nn == n), 5)
        t_c = value(entries, "cublas_sequence", n, k_c, "seconds")
        t_m = value(entries, "merged_sequence", n, k_m, "seconds")
        s = value(entries, "merged_sequence", n, k_m, "savings")
        if math.isnan(s):
            r = ratio(t_m, t_c)
            s = math.nan if math.isnan(r) else 1.0 - r
        rows.append({"n": n, "cublas": t_c, "merged": t_m, "savings": s,
                     "paper": savings_curve(n, paper), "refit": savings_curve(n, refit)})
    return rows


def _fit_text(name: str, fit: Dict[str, Any]) -> str:
    if "error" in fit:
        return f"- {name}: {NA} (fit failed: {fit['error']})"
    if not fit:
        return f"- {name}: {NA}"
    return (f"- {name}: a = {fmt(fit.get('a'))}, b = {fmt(fit.get('b'))}, "
            f"c = {fmt(fit.get('c'))}")


def render_fig10(res: kbench_results.Results, out_dir: str) -> List[str]:
    """The BiCGSTAB dot sequence: per n both times (us), measured savings and F(n) of the paper
    and of the refit; figure: times and savings over n. Returns the paths written."""
    entries = figure_entries(res, "fig10")
    paper, refit = fits(res.context)
    rows = fig10_rows(entries, paper, refit)
    text = header_block(res.context, f"anzt2015 Fig. 10: BiCGSTAB dot-product sequence, cuBLAS vs "
                                     f"merged, on {gpu_title(res.context)}")
    text += method_lines(res.context, ["cublas_sequence", "merged_sequence", "savings"])
    if rows:
        headers = ["n", "cuBLAS sequence (us)", "merged sequence (us)", "measured savings",
                   "paper F(n)", "refit F(n)"]
        text += "\n" + markdown_table(headers, [
            [fmt_int(r["n"]), fmt(1e6 * r["cublas"]), fmt(1e6 * r["merged"]),
             fmt_pct(r["savings"]), fmt_pct(r["paper"]), fmt_pct(r["refit"])] for r in rows])
    else:
        text += f"\n{NA}: the results hold no fig10 entries.\n"
    text += ("\nF(n) = (1 / (a n + b) + c) / 100 (anzt2015 eq. 3), savings = 1 - T_merged / "
             "T_cuBLAS.\n\n" + _fit_text("paper (K40)", paper) + "\n" +
             _fit_text("refit (this GPU)", refit) + "\n" +
             f"- largest relative error of any result: {fmt(max_error(entries))}\n")

    def make_figure():
        fig, (left, right) = new_figure(1, 2, figsize=(13, 5))
        if rows:
            ns = [r["n"] for r in rows]
            for v, key in (("cublas_sequence", "cublas"), ("merged_sequence", "merged")):
                left.plot(ns, [1e6 * r[key] for r in rows], marker="o", ms=3, color=COLORS[v],
                          label=LABELS[v])
            left.set_xscale("log")
            left.set_yscale("log")
            left.set_ylabel("time per sequence (us)")
            right.plot(ns, [100 * r["savings"] for r in rows], "o", color="k", ms=4,
                       label="measured")
            grid = np.logspace(math.log10(min(ns)), math.log10(max(ns)), 200)
            for name, fit, style in (("paper F(n)", paper, "--"), ("refit F(n)", refit, "-")):
                curve = [100 * savings_curve(float(x), fit) for x in grid]
                if not all(math.isnan(c) for c in curve):
                    right.plot(grid, curve, style, label=name)
            right.set_xscale("log")
            right.set_ylabel("savings (%)")
            for ax in (left, right):
                ax.set_xlabel("vector length n")
                ax.grid(True, which="both", alpha=0.3)
                ax.legend(fontsize=8)
        else:
            no_data(left, "no fig10 entries")
            no_data(right, "no fig10 entries")
        left.set_title("dot sequence of one iteration")
        right.set_title("runtime savings of the merged sequence")
        fig.suptitle(f"BiCGSTAB dot sequence (anzt2015 Fig. 10) - {gpu_title(res.context)}")
        return fig

    return write_outputs(out_dir, text, make_figure)


RENDERERS = {
    "anzt2015/fig7": render_fig7,
    "anzt2015/fig8": render_fig8,
    "anzt2015/fig9": render_fig9,
    "anzt2015/fig10": render_fig10,
}
