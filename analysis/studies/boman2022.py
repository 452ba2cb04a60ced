"""boman2022 block GMRES study: block speedup vs the number of right-hand sides s, its
latency-bandwidth model, and the vanbody iteration table.

  boman2022/speedup  T(s x GMRES) / T(BGMRES) and T(s x GMRES) / T(pseudo-block GMRES) vs s on
                     the GPU and the CPU, not restarted and restarted; boman2022's two messages
                     evaluated on the measurements.
  boman2022/model    the model's block speedup (alpha, beta, gamma calibrated per device and
                     matrix; gamma_lsq, the host least squares, where the results have it) vs
                     the measured one; predicted vs measured optimal s.
  boman2022/vanbody  block steps and total iterations vs s at boman2022's restart lengths.

Entries and context are written by harness/studies/boman2022/bench_block_gmres.cpp (schema in its
header).
"""

from __future__ import annotations

import math
from typing import Any, Dict, List, Optional, Tuple

import kbench_results
from model_point import ModelPoint
from report import NA, fmt, geomean, header_block, markdown_table, missing, new_figure, write_outputs

MODEL_TARGET = 0.15  # the goal: modeled block speedup within 15 % on the GPU


def entries(res: kbench_results.Results, figure: str) -> List[Dict[str, Any]]:
    return [e for e in res.entries or [] if isinstance(e, dict) and e.get("figure") == figure]


def restart_label(r: Any) -> str:
    return "not restarted" if missing(r) else f"restart m = {int(r)}"


def groups(es: List[Dict[str, Any]]) -> Dict[Tuple[str, str, Any], List[Dict[str, Any]]]:
    """(device, matrix, restart) -> entries sorted by s, in first-seen order."""
    out: Dict[Tuple[str, str, Any], List[Dict[str, Any]]] = {}
    for e in es:
        out.setdefault((e.get("device"), e.get("matrix"), e.get("restart")), []).append(e)
    return {k: sorted(v, key=lambda e: e.get("s", 0)) for k, v in out.items()}


def with_speedup(es: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    """The entries of `es` with a measured block speedup (BGMRES converged)."""
    return [e for e in es if not missing(e.get("speedup_block"))]


def argmax_s(es: List[Dict[str, Any]], field: str) -> Optional[int]:
    best = [(e[field], e["s"]) for e in es if not missing(e.get(field))]
    return max(best)[1] if best else None


def speedup_text(res: kbench_results.Results) -> str:
    es = entries(res, "speedup")
    text = header_block(res.context, "boman2022: block speedup vs number of right-hand sides")
    g = groups(es)
    for (dev, mat, r), rows in g.items():
        text += f"\n### {dev.upper()}, {mat}, {restart_label(r)}\n\n"
        table = []
        for e in rows:
            if e.get("skipped"):
                table.append([str(e["s"])] + [NA] * 8 + [e["skipped"]])
                continue
            table.append([str(e["s"]), fmt(e.get("gmres_iterations")),
                          f"{e.get('bgmres_iterations')} ({e.get('bgmres_status')})",
                          f"{e.get('pseudo_iterations')} ({e.get('pseudo_status')})",
                          fmt(e.get("gmres_seconds")), fmt(e.get("bgmres_seconds")),
                          fmt(e.get("pseudo_seconds")), fmt(e.get("speedup_block")),
                          fmt(e.get("speedup_pseudo")), ""])
        text += markdown_table(["s", "GMRES steps", "BGMRES block steps", "pseudo steps",
                                "T(s x GMRES) s", "T(BGMRES) s", "T(pseudo) s",
                                "speedup BGMRES", "speedup pseudo", "note"], table)
    text += "\n## boman2022's two messages, on these measurements\n\n"
    cases = []
    for (dev, mat, r), rows in g.items():
        if dev != "cpu":
            continue
        gpu = {e["s"]: e for e in g.get(("gpu", mat, r), [])}
        for e in rows:
            ge = gpu.get(e["s"])
            if ge and not missing(e.get("speedup_block")) and not missing(ge.get("speedup_block")) \
                    and e["speedup_block"] < 1 < ge["speedup_block"]:
                cases.append(f"{mat}, {restart_label(r)}, s = {e['s']}: CPU "
                             f"{fmt(e['speedup_block'])}, GPU {fmt(ge['speedup_block'])}")
    text += ("- Message 1 (s x GMRES faster on the CPU, BGMRES faster on the GPU): "
             + ("holds in " + str(len(cases)) + " cases:\n" + "".join(f"  - {c}\n" for c in cases)
                if cases else "no case found.\n"))
    for (dev, mat, r), rows in g.items():
        if dev != "gpu" or not missing(r):
            continue
        measured = [e for e in rows if not missing(e.get("speedup_block"))]
        best = argmax_s(measured, "speedup_block")
        if best is None:
            text += f"- Message 2, {mat}: no converged BGMRES point.\n"
            continue
        s_grid = [e["s"] for e in measured]
        interior = s_grid[0] < best < s_grid[-1]
        sp = next(e["speedup_block"] for e in measured if e["s"] == best)
        text += (f"- Message 2 (an optimal s on the GPU, not restarted), {mat}: best s = {best} "
                 f"(speedup {fmt(sp)}) over s = {s_grid[0]}..{s_grid[-1]}: "
                 f"{'holds (interior optimum)' if interior else 'does not hold (optimum at an end)'}.\n")
    for dev in ("gpu", "cpu"):
        ratios = [e["bgmres_seconds"] / e["pseudo_seconds"] for e in es
                  if e.get("device") == dev and e.get("bgmres_status") == "converged"
                  and e.get("pseudo_status") == "converged" and (e.get("pseudo_seconds") or 0) > 0]
        text += (f"- Pseudo-block GMRES on the {dev.upper()}: geometric mean of T(BGMRES) / "
                 f"T(pseudo) = {fmt(geomean(ratios))} over {len(ratios)} points.\n")
    return text


def speedup_figure(res: kbench_results.Results, model: bool):
    es = entries(res, "speedup")
    g = groups(es)
    devices = [d for d in ("gpu", "cpu") if any(k[0] == d for k in g)]
    restarts: List[Any] = []
    for k in g:
        if k[2] not in restarts:
            restarts.append(k[2])
    matrices = sorted({k[1] for k in g})
    colours = {m: f"C{i}" for i, m in enumerate(matrices)}

    def make():
        fig, axes = new_figure(max(1, len(devices)), max(1, len(restarts)), squeeze=False,
                               figsize=(4.2 * max(1, len(restarts)), 3.4 * max(1, len(devices))))
        for i, dev in enumerate(devices):
            for j, r in enumerate(restarts):
                ax = axes[i][j]
                for mat in matrices:
                    rows = g.get((dev, mat, r), [])
                    pts = [(e["s"], e.get("speedup_block")) for e in rows
                           if not missing(e.get("speedup_block"))]
                    if pts:
                        ax.plot(*zip(*pts), "o-", color=colours[mat], label=f"{mat} BGMRES")
                    other = "model_speedup_block" if model else "speedup_pseudo"
                    pts = [(e["s"], e.get(other)) for e in rows if not missing(e.get(other))
                           and (model or True)]
                    if pts:
                        ax.plot(*zip(*pts), "--", color=colours[mat],
                                label=f"{mat} {'model' if model else 'pseudo-block'}")
                ax.axhline(1.0, color="grey", lw=0.8)
                ax.set_xscale("log", base=2)
                ax.set_yscale("log")
                ax.set_title(f"{dev.upper()}, {restart_label(r)}", fontsize=9)
                ax.set_xlabel("right-hand sides s")
                ax.set_ylabel("T(s x GMRES) / T(method)")
        axes[0][0].legend(fontsize=6)
        fig.tight_layout()
        return fig
    return make


def render_speedup(res: kbench_results.Results, out_dir: str) -> List[str]:
    return write_outputs(out_dir, speedup_text(res), speedup_figure(res, model=False))


def render_model(res: kbench_results.Results, out_dir: str) -> List[str]:
    ctx = res.context.get("kbench", {}).get("boman2022", {})
    text = header_block(res.context, "boman2022 runtime model vs measured block speedup")
    rows = []
    for dev, mats in ctx.get("costs", {}).items():
        for mat, c in mats.items():
            gam = c.get("gamma", {})
            s_max = max(gam, key=int) if gam else None
            # gamma_lsq (host least squares, kbench's extension): absent in older results.
            lsq = c.get("gamma_lsq", {})
            lsq_max = max(lsq, key=int) if lsq else None
            rows.append([dev.upper(), mat, fmt(c.get("alpha", math.nan) * 1e6),
                         fmt(c.get("alpha_block", math.nan) * 1e6),
                         fmt(c.get("alpha_pseudo", math.nan) * 1e6),
                         fmt(c.get("beta", math.nan) * 1e9),
                         fmt(gam.get("1", math.nan) * 1e12),
                         f"{fmt(gam[s_max] * 1e12)} (s = {s_max})" if s_max else NA,
                         f"{fmt(lsq[lsq_max] * 1e12)} (s = {lsq_max})" if lsq_max else NA])
    text += "\n## Calibrated costs\n\n" + markdown_table(
        ["device", "matrix", "alpha us (GMRES)", "alpha us (BGMRES)", "alpha us (pseudo)",
         "beta ns/non-zero", "gamma(1) ps/flop",
         "gamma(s max) ps/flop", "gamma_lsq(s max) ps/flop"], rows, left=2)
    text += "\n## Optimal s and model error\n\n"
    table = []
    for (dev, mat, r), es in groups(entries(res, "speedup")).items():
        measured = with_speedup(es)
        s_grid = [e["s"] for e in es if not e.get("skipped")]
        best = argmax_s(measured, "speedup_block")
        pred = argmax_s(measured, "model_speedup_block")
        pred1 = argmax_s(measured, "model_speedup_block_s1")

        def near(p):
            if best is None or p is None or best not in s_grid or p not in s_grid:
                return NA
            return "yes" if abs(s_grid.index(best) - s_grid.index(p)) <= 1 else "no"

        def err(field):
            v = [abs(e[field] - e["speedup_block"]) / e["speedup_block"] for e in measured
                 if not missing(e.get(field))]
            return max(v) if v else math.nan
        table.append([dev.upper(), mat, restart_label(r), str(best or NA), str(pred or NA),
                      near(pred), fmt(100 * err("model_speedup_block")), str(pred1 or NA),
                      near(pred1), fmt(100 * err("model_speedup_block_s1"))])
    text += markdown_table(["device", "matrix", "restart", "measured best s", "model best s",
                            "equal or neighbour", "max error %", "model (s = 1 counts) best s",
                            "equal or neighbour", "max error %"], table, left=3)
    text += (f"\nGoal (GPU): best s equal or neighbour for every matrix, error <= "
             f"{100 * MODEL_TARGET:.0f} % at every s.\n")
    return write_outputs(out_dir, text, speedup_figure(res, model=True))


def render_vanbody(res: kbench_results.Results, out_dir: str) -> List[str]:
    ctx = res.context.get("kbench", {}).get("boman2022", {})
    es = sorted(entries(res, "vanbody"), key=lambda e: e.get("s", 0))
    text = header_block(res.context, "boman2022 vanbody: iterations vs right-hand sides")
    text += (f"\nMatrix: {ctx.get('matrix', NA)} (n = {ctx.get('n', NA)}, nnz = "
             f"{ctx.get('nnz', NA)}), standing in for {ctx.get('stands_for', NA)}.\n\n")
    text += markdown_table(
        ["s", "restart (block steps)", "block steps (total iterations)", "basis vectors built",
         "status", "true residual", "seconds", "boman2022 vanbody total"],
        [[str(e.get("s")), str(e.get("restart")), str(e.get("block_steps")),
          str(e.get("basis_vectors", e.get("total_iterations"))), str(e.get("status")),
          fmt(e.get("true_residual")), fmt(e.get("seconds")),
          NA if missing(e.get("paper_total_iterations")) else str(e["paper_total_iterations"])]
         for e in es])
    for note in ctx.get("notes", []):
        text += f"\n- {note}"
    text += "\n"

    def make():
        fig, ax = new_figure(figsize=(5.5, 3.6))
        ax.plot([e["s"] for e in es], [e.get("block_steps") for e in es], "o-",
                label=f"{ctx.get('matrix', '')} block steps")
        paper = [(e["s"], e["paper_total_iterations"]) for e in es
                 if not missing(e.get("paper_total_iterations"))]
        if paper:
            ax.plot(*zip(*paper), "s--", label="boman2022 vanbody (another matrix)")
        ax.set_xlabel("right-hand sides s")
        ax.set_ylabel("total iterations (block steps)")
        ax.legend(fontsize=7)
        fig.tight_layout()
        return fig
    return write_outputs(out_dir, text, make)


# model field of a speedup entry -> what it models (render_model's two "max error %" columns)
MODEL_FIELDS = {"model_speedup_block": "Block GMRES speedup",
                "model_speedup_block_s1": "Block GMRES speedup (s = 1 counts)"}


def model_model_points(res: kbench_results.Results) -> List[ModelPoint]:
    """The points of render_model's "max error %" columns: per device, matrix, restart and s
    with a measured block speedup T(s x GMRES) / T(BGMRES), each model's block speedup
    (models/block_gmres_model.hpp, boman2022's latency-bandwidth model, calibrated per device
    and matrix) next to it; the device is part of the model's name."""
    out = []
    for (dev, _, _), es in groups(entries(res, "speedup")).items():
        for e in with_speedup(es):
            for field, what in MODEL_FIELDS.items():
                if not missing(e.get(field)):
                    out.append(ModelPoint(f"{what} on the {str(dev).upper()} "
                                          "(models/block_gmres_model.hpp)", str(e.get("name")),
                                          float(e[field]), float(e["speedup_block"]), "x"))
    return out


MODEL_POINTS = {"boman2022/model": model_model_points}

RENDERERS = {
    "boman2022/speedup": render_speedup,
    "boman2022/model": render_model,
    "boman2022/vanbody": render_vanbody,
}
