"""peers: kbench's solvers against other projects' on the same systems (issue 28).

  peers/gmres     kbench GMRES(30) on one GPU (CGS2 and the one-reduce low-sync CGS2) vs CuPy's
                  gmres (GPU) and SciPy's (CPU): Arnoldi steps, time per step, time to the
                  tolerance and the true residual per matrix, and kbench's speedup over each peer.
  peers/bicgstab  kbench BiCGSTAB on one GPU (merged and graph forms) vs CuPy's bicgstab (GPU;
                  an older CuPy without one gets a skipped entry) and SciPy's (CPU): the same per
                  iteration, and the graph form against the fastest peer.

Entries and context are written by harness/studies/peers/bench_peers.cpp (schema in its header).
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional

import kbench_results
from report import NA, fmt, geomean, header_block, markdown_table, missing, new_figure, write_outputs

GOAL = 1.5  # issue 28: kbench GMRES(m) >= 1.5x CuPy per Arnoldi step and to the same residual
PEERS = ("cupy", "scipy")

# Per solver family: the entries' "figure", kbench's keys, how a step is called, the title.
FAMILIES = {
    "gmres": {"ours": ("kbench_cgs2", "kbench_lowsync"), "step": "Arnoldi step",
              "title": "peers: GMRES(m) of kbench, CuPy and SciPy"},
    "bicgstab": {"ours": ("kbench_merged", "kbench_graph"), "step": "iteration",
                 "title": "peers: BiCGSTAB of kbench, CuPy and SciPy"},
}


def family_entries(res: kbench_results.Results, figure: str) -> Dict[str, Dict[str, Dict[str, Any]]]:
    """matrix -> key -> entry of one family, matrices in first-seen order."""
    out: Dict[str, Dict[str, Dict[str, Any]]] = {}
    for e in res.entries or []:
        if isinstance(e, dict) and e.get("figure") == figure:
            out.setdefault(e.get("matrix"), {})[e.get("key")] = e
    return out


def ran(e: Optional[Dict[str, Any]]) -> bool:
    return e is not None and "skipped" not in e and not missing(e.get("seconds"))


def best_kbench(by_key: Dict[str, Dict[str, Any]], field: str, ours) -> Optional[Dict[str, Any]]:
    """The kbench entry (keys `ours`) with the least `field` (seconds or seconds_per_step)."""
    cands = [by_key[k] for k in ours if ran(by_key.get(k)) and not missing(by_key[k].get(field))]
    return min(cands, key=lambda e: e[field]) if cands else None


def speedup(peer: Optional[Dict[str, Any]], ours: Optional[Dict[str, Any]], field: str) -> Optional[float]:
    """peer[field] / ours[field], None when either is missing."""
    if not ran(peer) or ours is None or missing(peer.get(field)) or missing(ours.get(field)):
        return None
    return peer[field] / ours[field] if ours[field] > 0 else None


def family_tables(res: kbench_results.Results, figure: str,
                  by_matrix: Dict[str, Dict[str, Dict[str, Any]]]) -> str:
    """The header, the limits, the notes and one table per matrix (by_matrix: family_entries)."""
    fam = FAMILIES[figure]
    ctx = res.context.get("kbench", {}).get("peers", {})
    text = header_block(res.context, fam["title"])
    if figure == "gmres":
        text += (f"\nGMRES({ctx.get('restart', NA)}), tolerance {fmt(ctx.get('tolerance'))}, at "
                 f"most {ctx.get('max_steps', NA)} Arnoldi steps, no preconditioner.\n")
    else:
        text += (f"\nBiCGSTAB, tolerance {fmt(ctx.get('tolerance'))}, at most "
                 f"{ctx.get('max_steps', NA)} iterations, no preconditioner.\n")
    for note in ctx.get("notes", []):
        text += f"\n- {note}"
    text += "\n"
    step = fam["step"]
    steps_header = "Arnoldi steps" if figure == "gmres" else "iterations"
    for matrix, by_key in by_matrix.items():
        first = next(iter(by_key.values()))
        text += f"\n### {matrix} (n = {first.get('n', NA):,}, nnz = {first.get('nnz', NA):,})\n\n"
        ours_step = best_kbench(by_key, "seconds_per_step", fam["ours"])
        ours_time = best_kbench(by_key, "seconds", fam["ours"])
        rows = []
        for key, e in by_key.items():
            if not ran(e):
                rows.append([e.get("implementation", key), e.get("device", NA), NA, NA, NA, NA,
                             e.get("skipped", "not run"), NA, NA])
                continue
            is_ours = key in fam["ours"]
            rows.append([
                e.get("implementation", key) + (f" ({e['version']})" if e.get("version") else ""),
                e.get("device", NA), str(e.get("steps", NA)),
                fmt(None if missing(e.get("seconds_per_step")) else e["seconds_per_step"] * 1e6),
                fmt(e.get("seconds")), fmt(e.get("true_residual")), str(e.get("status", NA)),
                NA if is_ours else fmt(speedup(e, ours_step, "seconds_per_step")),
                NA if is_ours else fmt(speedup(e, ours_time, "seconds"))])
        text += markdown_table(
            ["implementation", "device", steps_header, f"us / {step}", "seconds", "true residual",
             "status", f"kbench speedup / {step}", "kbench speedup to solution"], rows)
    return text


def bar_figure(by_matrix: Dict[str, Dict[str, Dict[str, Any]]], keys, ylabel: str):
    """Time per step of each implementation per matrix, log scale."""
    def make():
        fig, ax = new_figure(figsize=(6.5, 3.6))
        labels = list(by_matrix)
        shown = [k for k in keys if any(ran(by_matrix[m].get(k)) for m in labels)]
        width = 0.8 / max(1, len(shown))
        for j, key in enumerate(shown):
            ys = [by_matrix[m][key]["seconds_per_step"] * 1e6 if ran(by_matrix[m].get(key))
                  and not missing(by_matrix[m][key].get("seconds_per_step")) else 0.0
                  for m in labels]
            name = next((by_matrix[m][key].get("implementation", key) for m in labels
                         if key in by_matrix[m]), key)
            ax.bar([i + j * width for i in range(len(labels))], ys, width, label=name)
        ax.set_xticks([i + 0.4 - width / 2 for i in range(len(labels))])
        ax.set_xticklabels(labels, rotation=20, ha="right", fontsize=7)
        ax.set_yscale("log")
        ax.set_ylabel(ylabel)
        ax.legend(fontsize=7)
        fig.tight_layout()
        return fig
    return make


def render_gmres(res: kbench_results.Results, out_dir: str) -> List[str]:
    by_matrix = family_entries(res, "gmres")
    text = family_tables(res, "gmres", by_matrix)
    ours = FAMILIES["gmres"]["ours"]
    summary = []
    for matrix, by_key in by_matrix.items():
        cupy = by_key.get("cupy")
        summary.append((matrix,
                        speedup(cupy, best_kbench(by_key, "seconds_per_step", ours),
                                "seconds_per_step"),
                        speedup(cupy, best_kbench(by_key, "seconds", ours), "seconds")))
    text += "\n### kbench (its faster orthogonalization) over CuPy\n\n"
    text += markdown_table(
        ["matrix", "per Arnoldi step", "to solution (or to the step limit)"],
        [[m, fmt(a), fmt(b)] for m, a, b in summary])
    per_step = [a for _, a, _ in summary if a is not None]
    if per_step:
        met = sum(1 for a in per_step if a >= GOAL)
        text += (f"\nGeometric mean per step: {fmt(geomean(per_step))}x; goal (issue 28) >= "
                 f"{GOAL}x per step and to solution: {met} of {len(per_step)} matrices per step.\n")
    else:
        text += "\nCuPy did not run: no comparison with it.\n"
    keys = FAMILIES["gmres"]["ours"] + PEERS
    return write_outputs(out_dir, text, bar_figure(by_matrix, keys, "us per Arnoldi step"))


def render_bicgstab(res: kbench_results.Results, out_dir: str) -> List[str]:
    """peers/bicgstab: the tables, then kbench's graph form against the fastest peer that ran
    on each matrix, to the tolerance (issue 28: faster than anything CuPy or SciPy offer)."""
    by_matrix = family_entries(res, "bicgstab")
    text = family_tables(res, "bicgstab", by_matrix)
    rows, ratios = [], []
    for matrix, by_key in by_matrix.items():
        graph = by_key.get("kbench_graph") if ran(by_key.get("kbench_graph")) else None
        peers_ran = [by_key[k] for k in PEERS if ran(by_key.get(k))]
        fastest = min(peers_ran, key=lambda e: e["seconds"]) if peers_ran else None
        r = speedup(fastest, graph, "seconds")
        if r is not None:
            ratios.append(r)
        rows.append([matrix, fastest.get("implementation", NA) if fastest else NA, fmt(r),
                     fmt(speedup(fastest, graph, "seconds_per_step"))])
    text += "\n### kbench BiCGSTAB (graph form) over the fastest peer\n\n"
    text += markdown_table(["matrix", "fastest peer", "to solution (or to the iteration limit)",
                            "per iteration"], rows)
    if ratios:
        text += (f"\nThe graph form is faster to solution on {sum(1 for r in ratios if r > 1.0)} "
                 f"of {len(ratios)} matrices (issue 28: on every one); geometric mean "
                 f"{fmt(geomean(ratios))}x.\n")
    else:
        text += "\nNo peer ran: no comparison.\n"
    keys = FAMILIES["bicgstab"]["ours"] + PEERS
    return write_outputs(out_dir, text, bar_figure(by_matrix, keys, "us per iteration"))


RENDERERS = {"peers/gmres": render_gmres, "peers/bicgstab": render_bicgstab}
