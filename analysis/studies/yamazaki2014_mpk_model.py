"""yamazaki2014 matrix powers kernel (MPK) model (yamazaki2014 Sec. IV-B, Figs. 6 and 7),
counted on the CPU from row partitions of two stand-in matrices; no GPU, no timing.

  yamazaki2014/fig6  surface-to-volume ratio nnz(A(delta^(d,1:s), :)) / nnz(A^(d)) (largest
                     and mean over the parts) vs s = 1..20 for the natural, RCM and METIS k-way
                     orderings on 2-4 parts, its growth, and the extra flops W^(d,s) relative
                     to s SpMVs.
  yamazaki2014/fig7  words of one MPK call (gather |union_d delta^(d,1:s)| + scatter
                     sum_d |delta^(d,1:s)|) and over a restart of m vectors, against s SpMVs
                     with one halo exchange each, and the point-to-point message counts.

Both ids read the same document (harness/studies/yamazaki2014/yamazaki2014_mpk_model.cpp documents
its schema): context.kbench.mpk_model and one entry per (matrix, ordering, parts) with per-s lists.
Entries whose ordering was not built or failed are listed with their status; missing values render
as "n/a".
"""

from __future__ import annotations

import math
from typing import Any, Dict, List, Optional, Sequence, Tuple

import kbench_results
from report import (NA, fmt, fmt_int, markdown_table, missing, new_figure, quick_lines,
                    real_matrices_lines, title_line, write_outputs)

Entry = Dict[str, Any]
ORDERINGS = ["natural", "rcm", "kway"]
LABELS = {"natural": "natural", "rcm": "RCM", "kway": "k-way (METIS)"}
TABLE_S = [1, 2, 5, 10, 20]  # the step counts the tables show


# ---------------------------------------------------------------- shared helpers
def section_of(res: kbench_results.Results) -> Dict[str, Any]:
    return res.context.get("kbench", {}).get("mpk_model", {})


def entries(res: kbench_results.Results) -> List[Entry]:
    """The entries with a matrix, an ordering and a part count, in file order."""
    return [e for e in res.entries or [] if isinstance(e, dict) and e.get("matrix") is not None
            and e.get("ordering") is not None and isinstance(e.get("parts"), int)]


def matrices(res: kbench_results.Results, found: List[Entry]) -> List[str]:
    """Matrix names in manifest order, then those only the entries name."""
    names = [m for m in res.matrices.index]
    return names + sorted({e["matrix"] for e in found} - set(names))


def ordered(found: Sequence[str], order: Sequence[str]) -> List[str]:
    return [x for x in order if x in found] + sorted(set(found) - set(order))


def at(e: Optional[Entry], path: Sequence[str], s: int) -> float:
    """e[path...][s-1] (s counted from e["s"] when present) as float; NaN when missing."""
    v: Any = e
    for key in path:
        v = v.get(key) if isinstance(v, dict) else None
    steps = e.get("s") if isinstance(e, dict) else None
    if not isinstance(v, list):
        return math.nan
    i = steps.index(s) if isinstance(steps, list) and s in steps else s - 1
    x = v[i] if 0 <= i < len(v) else None
    return float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) else math.nan


def curve(e: Entry, path: Sequence[str]) -> List[Tuple[int, float]]:
    """(s, value) of a per-s list, finite values only."""
    steps = e.get("s") if isinstance(e.get("s"), list) else []
    pts = [(int(s), at(e, path, int(s))) for s in steps if isinstance(s, int)]
    return [(s, v) for s, v in pts if not math.isnan(v)]


def ratio(a: float, b: float) -> float:
    return a / b if not missing(a) and not missing(b) and b > 0 else math.nan


def growth(e: Entry, path: Sequence[str], s0: int = 10, s1: int = 20) -> float:
    """The exponent p of v(s) ~ s^p between s0 and s1: 1 linear, > 1 superlinear."""
    r = ratio(at(e, path, s1), at(e, path, s0))
    return math.log(r) / math.log(s1 / s0) if not missing(r) and r > 0 else math.nan


def header(res: kbench_results.Results, title: str) -> str:
    ctx, kb = res.context, res.context.get("kbench", {})
    git = kb.get("git", {})
    dirty = " (dirty)" if git.get("dirty") else ""
    sec = section_of(res)
    return "\n".join([
        title_line(kb, title), "",
        "- Model only: counted on the CPU from the sparsity pattern and its row partitions "
        "(kbench::mpk_index_sets), priced by models/mpk_model.hpp; no GPU, nothing timed",
        f"- s = 1..{sec.get('s_max', NA)}; parts P = "
        f"{', '.join(str(p) for p in sec.get('parts', [])) or NA}; METIS seed "
        f"{sec.get('metis_seed', NA)}; git {git.get('sha', NA)}{dirty}; date {ctx.get('date', NA)}",
        f"- Command: `{' '.join(kb.get('argv', [])) or NA}`", *real_matrices_lines(kb),
        *quick_lines(kb), "", ""])


def stand_in_table(res: kbench_results.Results, names: List[str]) -> str:
    """Which stand-in stands for which paper matrix, sizes side by side, its half-bandwidth in
    the natural and RCM orders, why it was chosen, and the study's notes."""
    sec = section_of(res)
    paper, bandwidth = sec.get("paper_matrices", {}), sec.get("bandwidth", {})
    rows, why = [], []
    for name in names:
        m = res.matrices.loc[name] if name in res.matrices.index else None
        text = str(m["stands_for"]) if m is not None and m["stands_for"] else ""
        key = text.split(" ", 1)[0] if text else ""
        p, bw = paper.get(key, {}), bandwidth.get(name, {})
        rows.append([name, key or NA, fmt_int(p.get("rows")), fmt(p.get("nnz_per_row")),
                     fmt_int(None if m is None else m["num_rows"]),
                     fmt(None if m is None else m["nnz_per_row"]),
                     fmt_int(bw.get("natural")), fmt_int(bw.get("rcm"))])
        why.append(f"- {name}: {text or NA}")
    table = markdown_table(["Stand-in", "for", "paper n", "paper nnz/n", "n", "nnz/n",
                            "half-bandwidth", "half-bandwidth RCM"], rows, left=2)
    notes = [f"- Note: {n}" for n in sec.get("notes", []) if isinstance(n, str)]
    return table + "\n" + "\n".join(why + notes) + "\n"


def orderings_text(res: kbench_results.Results, found: List[Entry]) -> str:
    sec = section_of(res)
    lines = []
    for o in ordered(list(sec.get("orderings", {})), ORDERINGS):
        info = sec["orderings"][o]
        built = "built" if info.get("built") else "not built"
        lines.append(f"- {LABELS.get(o, o)}: {info.get('how', NA)} ({built})")
    bad = [e for e in found if e.get("status", "ok") != "ok"]
    for e in bad:
        lines.append(f"- {e['matrix']}, {LABELS.get(e['ordering'], e['ordering'])}, P = "
                     f"{e['parts']}: {e.get('status')}: {e.get('detail') or NA}")
    return "\n".join(lines) + "\n" if lines else f"{NA}: no orderings recorded.\n"


def rows_of(found: List[Entry], matrix: str) -> List[Entry]:
    """The entries of a matrix by ordering, then parts."""
    mine = [e for e in found if e["matrix"] == matrix]
    order = ordered(sorted({e["ordering"] for e in mine}), ORDERINGS)
    return sorted(mine, key=lambda e: (order.index(e["ordering"]), e["parts"]))


def label(e: Entry) -> str:
    return f"{LABELS.get(e['ordering'], e['ordering'])}, P = {e['parts']}"


def status_row(e: Entry, cells: int) -> List[str]:
    """The row of an entry without results: its status, then '-' (the orderings list says why)."""
    return [label(e), str(e.get("status", NA)), *["-"] * (cells - 1)]


def no_data(ax, what: str) -> None:
    ax.text(0.5, 0.5, f"{NA}: {what}", ha="center", va="center", transform=ax.transAxes)
    ax.set_xticks([])
    ax.set_yticks([])


def panels(res: kbench_results.Results, found: List[Entry], title: str, draw) -> Any:
    """A figure of matrices (rows) x part counts (columns); draw(ax, entries of the panel)
    returns whether it drew anything."""
    names = matrices(res, found) or ["(none)"]
    parts = sorted({e["parts"] for e in found}) or [0]
    fig, axes = new_figure(len(names), len(parts), figsize=(5.2 * len(parts), 4.4 * len(names)),
                           squeeze=False)
    fig.subplots_adjust(hspace=0.35, wspace=0.3)
    for i, name in enumerate(names):
        for j, p in enumerate(parts):
            ax = axes[i][j]
            mine = [e for e in rows_of(found, name) if e["parts"] == p]
            if not draw(ax, mine):
                no_data(ax, "no data")
            ax.set_title(f"{name}, P = {p}", fontsize=9)
    fig.suptitle(title)
    return fig


def style(ordering: str) -> Dict[str, Any]:
    """Colour and marker of an ordering, the same in every panel and figure; the natural order
    is drawn widest so that an ordering with the same curve (RCM on a banded matrix) shows on
    top of it."""
    i = ORDERINGS.index(ordering) if ordering in ORDERINGS else 3
    return {"color": f"C{i}", "marker": "os^D"[i], "ms": 6 - 1.5 * min(i, 2),
            "linewidth": 3.0 - 0.8 * min(i, 2)}


# ---------------------------------------------------------------- yamazaki2014/fig6
RATIO = ("fig6", "surface_to_volume", "max")
RATIO_MEAN = ("fig6", "surface_to_volume", "mean")
EXTRA = ("fig6", "extra_flops_fraction_max")


def fig6_table(found: List[Entry], matrix: str) -> str:
    rows = []
    for e in rows_of(found, matrix):
        if e.get("status", "ok") != "ok":
            rows.append(status_row(e, len(TABLE_S) + 4))
            continue
        part = e.get("partition", {})
        sizes = [x for x in part.get("rows", []) if isinstance(x, (int, float))]
        balance = max(sizes) / min(sizes) if sizes and min(sizes) > 0 else math.nan
        rows.append([label(e), *(fmt(at(e, RATIO, s)) for s in TABLE_S),
                     fmt(growth(e, RATIO)), fmt(at(e, EXTRA, 20)),
                     fmt_int(part.get("edge_cut")), fmt(balance)])
    headers = ["Ordering, parts", *(f"s = {s}" for s in TABLE_S), "growth s^p, p (10..20)",
               "W / (2 s nnz), s = 20", "edge cut", "rows max/min"]
    return markdown_table(headers, rows) if rows else f"{NA}: no entries.\n"


def render_fig6(res: kbench_results.Results, out_dir: str) -> List[str]:
    """Stand-ins, orderings, one table per matrix (largest ratio over the parts at some s, its
    growth exponent, the largest extra-flop fraction, the partition) and the curves."""
    found = entries(res)
    names = matrices(res, found)
    text = header(res, "yamazaki2014 Fig. 6 (model): MPK surface-to-volume ratio vs s")
    text += "### Stand-in matrices\n\n" + stand_in_table(res, names)
    text += "\n### Orderings\n\n" + orderings_text(res, found)
    for name in names:
        text += (f"\n### {name}: largest nnz(A(delta^(d,1:s), :)) / nnz(A^(d)) over the parts\n\n"
                 + fig6_table(found, name))
    text += ("\nW / (2 s nnz): the largest over the parts of the extra flops W^(d,s) = "
             "2 sum_k nnz(A(delta^(d,k:s), :)) over the 2 s nnz(A^(d)) flops of s SpMVs. growth: "
             "the exponent p of ratio ~ s^p from s = 10 to 20 (1: linear, > 1: superlinear).\n")

    def draw(ax, mine: List[Entry]) -> bool:
        drawn = False
        for e in mine:
            pts, mean_pts = curve(e, RATIO), curve(e, RATIO_MEAN)
            pts, mean_pts = [p for p in pts if p[1] > 0], [p for p in mean_pts if p[1] > 0]
            if not pts:
                continue
            name, st = LABELS.get(e["ordering"], e["ordering"]), style(e["ordering"])
            ax.plot(*zip(*pts), "-", label=f"{name} max", **st)
            if mean_pts:
                ax.plot(*zip(*mean_pts), ":", color=st["color"], label=f"{name} mean")
            drawn = True
        if drawn:
            ax.set_yscale("log")
            ax.set_xlabel("s")
            ax.set_ylabel("nnz(A(delta(1:s), :)) / nnz(A(d))")
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(fontsize=7)
        return drawn

    return write_outputs(out_dir, text, lambda: panels(
        res, found, "MPK surface-to-volume ratio (yamazaki2014 Fig. 6, model)", draw))


# ---------------------------------------------------------------- yamazaki2014/fig7
MPK_WORDS = ("fig7", "mpk_words")
SPMV_WORDS = ("fig7", "spmv_words")
MPK_RESTART = ("fig7", "mpk_words_per_restart")
SPMV_RESTART = ("fig7", "spmv_words_per_restart")


def fig7_table(found: List[Entry], matrix: str) -> str:
    rows = []
    later = TABLE_S[1:]
    for e in rows_of(found, matrix):
        if e.get("status", "ok") != "ok":
            rows.append(status_row(e, len(TABLE_S) + len(later) + 1))
            continue
        rows.append([label(e), *(fmt_int(at(e, MPK_WORDS, s)) for s in TABLE_S),
                     *(fmt(ratio(at(e, MPK_WORDS, s), at(e, SPMV_WORDS, s))) for s in later),
                     fmt(ratio(at(e, ("fig7", "spmv_messages"), 20),
                               at(e, ("fig7", "mpk_messages"), 20)))])
    headers = ["Ordering, parts", *(f"words s = {s}" for s in TABLE_S),
               *(f"MPK / SpMV s = {s}" for s in later), "messages SpMV / MPK, s = 20"]
    return markdown_table(headers, rows) if rows else f"{NA}: no entries.\n"


def render_fig7(res: kbench_results.Results, out_dir: str) -> List[str]:
    """Stand-ins, orderings, one table per matrix (words of one MPK call, its volume over that
    of s SpMVs, messages saved) and the per-restart curves."""
    found = entries(res)
    names = matrices(res, found)
    m = section_of(res).get("restart_vectors")
    text = header(res, "yamazaki2014 Fig. 7 (model): MPK communication volume vs s")
    text += "### Stand-in matrices\n\n" + stand_in_table(res, names)
    text += "\n### Orderings\n\n" + orderings_text(res, found)
    for name in names:
        text += (f"\n### {name}: words of one MPK call, against s SpMVs\n\n" +
                 fig7_table(found, name))
    text += ("\nwords: |union_d delta^(d,1:s)| gathered + sum_d |delta^(d,1:s)| scattered, "
             "counted from the partition. MPK / SpMV: over the words of s SpMVs with the same "
             "exchange each (the volume MPK would need if the ghost rows grew linearly with s); "
             f"the same ratio holds per restart of m = {fmt(m)} vectors (m/s MPK calls). "
             "messages: point-to-point, one per part and neighbour per exchange.\n")

    def draw(ax, mine: List[Entry]) -> bool:
        drawn = False
        for e in mine:
            mpk = [p for p in curve(e, MPK_RESTART) if p[1] > 0]
            spmv = [p for p in curve(e, SPMV_RESTART) if p[1] > 0]
            if not mpk:
                continue
            name, st = LABELS.get(e["ordering"], e["ordering"]), style(e["ordering"])
            ax.plot(*zip(*mpk), "-", label=f"{name} MPK", **st)
            if spmv:
                ax.plot(*zip(*spmv), "--", color=st["color"], label=f"{name} s SpMVs")
            drawn = True
        if drawn:
            ax.set_yscale("log")
            ax.set_xlabel("s")
            ax.set_ylabel(f"words per restart (m = {fmt(m)})")
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(fontsize=7)
        return drawn

    return write_outputs(out_dir, text, lambda: panels(
        res, found, "MPK communication volume (yamazaki2014 Fig. 7, model)", draw))


RENDERERS = {
    "yamazaki2014/fig6": render_fig6,
    "yamazaki2014/fig7": render_fig7,
}
