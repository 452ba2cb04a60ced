"""zianekhodja2014: Jacobi-preconditioned GMRES(16) over MPI on CPU ranks and GPU ranks.

  zianekhodja2014/table2  per matrix: CPU ranks vs GPU ranks, time, tau = T_CPU / T_GPU,
                          iterations, Prec = ||M^-1 (b - A x)||_inf, Delta = ||x_CPU - x_GPU||_inf.
  zianekhodja2014/table5  band matrices: the bandwidth ("row-by-row") global vector vs the
                          compressed halo on natural blocks, per transport; the paper: ~38 %.
  zianekhodja2014/table8  five-band matrices: compressed halo on natural blocks vs after the
                          hypergraph partition, per transport; the paper: ~65 %.
  zianekhodja2014/table9  total words exchanged per SpMV by the three schemes, and the
                          partitioning time (from table8's runs).
  zianekhodja2014/fig9    weak scaling at 5M rows per rank: time per iteration and efficiency
                          T(1) / T(P) of the four variants per transport, and on CPU ranks.

Every GPU entry carries the per-iteration time model of models/gmres_comm_model.hpp ("model").
The schema is in harness/studies/zianekhodja2014/bench_dist_gmres.hpp and
harness/studies/zianekhodja2014/dist_gmres_worker.cpp. Missing values render
as "n/a"; a run that failed is listed with its exit code.
"""

from __future__ import annotations

import math
from typing import Any, Dict, List, Optional

import kbench_results
from model_point import ModelPoint
from report import NA, fmt, fmt_int, fmt_pct, header_block, markdown_table, new_figure, \
    write_outputs

# zianekhodja2014's headline figures (12 C1060 GPUs over InfiniBand, 25M rows).
PAPER_TABLE5_GAIN = 0.38  # compressed vs row-by-row, Sec. 6.1
PAPER_TABLE8_GAIN = 0.65  # hypergraph + compressed vs compressed, Sec. 6.2
TARGET_EFFICIENCY = 0.85  # issue 11: weak-scaling efficiency 1 -> 4 GPUs, hypergraph + NCCL
TARGET_MODEL_ERROR = 0.15  # issue 11: time model within 15 % of the measured time per iteration
TRANSPORTS = ("host_staged", "nccl")


def num(e: Optional[Dict[str, Any]], key: str) -> float:
    v = None if e is None else e.get(key)
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else math.nan


def entries(res: kbench_results.Results, item: str) -> List[Dict[str, Any]]:
    return [e for e in res.entries if e.get("item") == item]


def matrices(rows: List[Dict[str, Any]]) -> List[str]:
    seen: List[str] = []
    for e in rows:
        m = e.get("name", "").split("/")[1] if e.get("name") else None
        if m and m not in seen:
            seen.append(m)
    return seen


def matrix_of(e: Dict[str, Any]) -> str:
    parts = e.get("name", "").split("/")
    return parts[1] if len(parts) > 1 else ""


def ranks_of(e: Dict[str, Any]) -> int:
    """The rank count of an entry, from its name (".../P=<ranks>"; failed runs have no "ranks")."""
    tail = e.get("name", "").rsplit("/P=", 1)
    return int(tail[1]) if len(tail) == 2 and tail[1].isdigit() else 0


def gpu_counts(rows: List[Dict[str, Any]]) -> List[int]:
    """The GPU rank counts of the runs, ascending."""
    return sorted({ranks_of(e) for e in rows if "/gpu/" in e.get("name", "")} - {0})


def find(rows: List[Dict[str, Any]], matrix: str, device: str, variant: str = "",
         transport: str = "", ranks: int = 0) -> Optional[Dict[str, Any]]:
    for e in rows:
        if matrix_of(e) != matrix or f"/{device}" not in e.get("name", ""):
            continue
        if variant and e.get("variant") != variant:
            continue
        if transport and f"/{device}/{transport}/" not in e.get("name", ""):
            continue
        if ranks and ranks_of(e) != ranks:
            continue
        return e
    return None


def secs(e: Optional[Dict[str, Any]]) -> str:
    if e is not None and "error" in e:
        return f"failed (exit {e.get('exit_code')})"
    return fmt(num(e, "seconds"))


def status(e: Optional[Dict[str, Any]]) -> str:
    if e is None:
        return NA
    if "error" in e:
        return "failed"
    return str(e.get("status", NA))


def per_iteration_model(e: Optional[Dict[str, Any]]) -> float:
    model = (e or {}).get("model") or {}
    return num(model, "total")


def model_ratio(e: Optional[Dict[str, Any]]) -> float:
    """Modeled over measured seconds per iteration."""
    return per_iteration_model(e) / num(e, "seconds_per_iteration")


def gain(slow: Optional[Dict[str, Any]], fast: Optional[Dict[str, Any]]) -> float:
    """1 - T_fast / T_slow: the paper's "x % faster"."""
    return 1.0 - num(fast, "seconds") / num(slow, "seconds")


def failures(rows: List[Dict[str, Any]]) -> str:
    bad = [e for e in rows if "error" in e]
    return "".join(f"- {e.get('name')}: failed (exit {e.get('exit_code')}): {e.get('error')}\n"
                   for e in bad)


def stand_ins(res: kbench_results.Results) -> str:
    """One line per matrix of the run context that stands for a paper matrix or class."""
    ms = res.context.get("kbench", {}).get("matrices", {})
    return "".join(f"- {name}: {m['stands_for']}\n" for name, m in ms.items()
                   if isinstance(m, dict) and m.get("stands_for"))


def title(res: kbench_results.Results, what: str) -> str:
    p = res.context.get("kbench", {}).get("parameters", {})
    orth = str(p.get("orth", "n/a")).upper()
    prec = str(p.get("preconditioner", "n/a")).capitalize()
    return header_block(res.context, what) + (
        f"GMRES({fmt_int(p.get('restart'))}), {orth}, {prec}, tolerance "
        f"{fmt(p.get('tolerance'))}, at most {fmt_int(p.get('max_iterations'))} iterations, "
        f"b = 1, x0 = 0; median of {fmt_int(p.get('repetitions'))} timed solves (the slowest "
        f"rank's time) after one warm-up; GPUs on the machine: {fmt_int(p.get('gpus'))}, CPU "
        f"ranks: {fmt_int(p.get('cpu_ranks'))} (one per core).\n\n")


def render_table2(res: kbench_results.Results, out_dir: str) -> List[str]:
    rows = entries(res, "table2")
    text = title(res, "zianekhodja2014 Table 2: GMRES on CPU ranks vs GPU ranks")
    body = []
    for m in matrices(rows):
        c, g = find(rows, m, "cpu"), find(rows, m, "gpu")
        body.append([m, fmt_int((g or c or {}).get("n")), fmt_int((g or c or {}).get("nnz")),
                     fmt_int((c or {}).get("ranks")), secs(c), fmt_int((g or {}).get("ranks")),
                     secs(g), fmt(num(g, "tau")), fmt_int((g or {}).get("iterations")),
                     status(g), fmt(num(g, "prec")), fmt(num(g, "delta")),
                     fmt(num(g, "seconds_per_iteration") * 1e6),
                     fmt(per_iteration_model(g) * 1e6), fmt(model_ratio(g))])
    text += markdown_table(["matrix", "n", "nnz", "CPU ranks", "Time_CPU (s)", "GPU ranks",
                            "Time_GPU (s)", "tau", "# iter", "status", "Prec", "Delta",
                            "GPU us / iter", "model us / iter", "model/measured"], body)
    ratios = [model_ratio(e) for e in rows if e.get("device") == "gpu"]
    ratios = [r for r in ratios if not math.isnan(r)]
    within = sum(1 for r in ratios if abs(r - 1) <= TARGET_MODEL_ERROR)
    text += ("\nPrec = ||M^-1 (b - A x_GPU)||_inf, Delta = ||x_CPU - x_GPU||_inf (formula 6). "
             "zianekhodja2014 (24 CPU cores vs 12 C1060 GPUs): tau from 1.02 to 2.15. "
             "model: seconds per iteration of models/gmres_comm_model.hpp (work priced at the "
             "measured bandwidths, replayed on the launch pipeline); within "
             f"{fmt_pct(TARGET_MODEL_ERROR)} of the measured time on {within} of {len(ratios)} "
             "GPU runs.\n")
    text += stand_ins(res)
    text += failures(rows)

    def make_figure():
        fig, ax = new_figure(1, 1, figsize=(10, 4.5))
        ms = matrices(rows)
        for j, dev in enumerate(("cpu", "gpu")):
            vals = [num(find(rows, m, dev), "seconds") for m in ms]
            ax.bar([i + 0.4 * j for i in range(len(ms))],
                   [v if not math.isnan(v) else 0 for v in vals], width=0.4,
                   label=f"{dev.upper()} ranks")
        ax.set_xticks([i + 0.2 for i in range(len(ms))])
        ax.set_xticklabels(ms, fontsize=7, rotation=30)
        ax.set_yscale("log")
        ax.set_ylabel("solve time (s)")
        ax.legend()
        ax.set_title("zianekhodja2014 Table 2: Jacobi GMRES(16), CPU vs GPU ranks")
        return fig

    return write_outputs(out_dir, text, make_figure)


def scheme_rows(rows: List[Dict[str, Any]], slow_variant: str, fast_variant: str):
    """(matrix, transport, GPUs, slow entry, fast entry) of each row of scheme_table."""
    for m in matrices(rows):
        for p in gpu_counts(rows):
            # One GPU exchanges nothing: one run stands for both transports (same_run_as).
            for t in TRANSPORTS[:1] if p == 1 else TRANSPORTS:
                slow = find(rows, m, "gpu", slow_variant, t, p)
                fast = find(rows, m, "gpu", fast_variant, t, p)
                if slow is not None or fast is not None:
                    yield m, t, p, slow, fast


def scheme_table(rows: List[Dict[str, Any]], slow_variant: str, fast_variant: str,
                 paper_gain: float, what: str) -> str:
    body = []
    for m, t, p, slow, fast in scheme_rows(rows, slow_variant, fast_variant):
        cpu = find(rows, m, "cpu")
        body.append([m, "none (1 GPU)" if p == 1 else t, fmt_int(p), secs(cpu),
                     secs(slow), secs(fast), fmt_pct(gain(slow, fast)),
                     fmt(num(cpu, "seconds") / num(fast, "seconds")),
                     fmt_int((fast or {}).get("iterations")), status(fast),
                     fmt(num(fast, "prec")), fmt(model_ratio(slow)), fmt(model_ratio(fast))])
    return (markdown_table(["matrix", "transport", "GPUs", "Time_CPU (s)",
                            f"{slow_variant} (s)", f"{fast_variant} (s)", "faster by",
                            "tau", "# iter", "status", "Prec", "model/measured (slow)",
                            "model/measured (fast)"], body)
            + f"\n{what}: zianekhodja2014 found about {fmt_pct(paper_gain)} (12 GPUs). "
            "\"faster by\" = 1 - T_fast / T_slow; tau = Time_CPU / T_fast (Time_CPU: one timed "
            "solve); model/measured: "
            "seconds per iteration of models/gmres_comm_model.hpp over the measured ones (target "
            f"within {fmt_pct(TARGET_MODEL_ERROR)}).\n")


def scheme_figure(rows: List[Dict[str, Any]], variants: List[str], title_text: str):
    """Solve times of every variant and transport on the most GPUs of the run."""
    def make_figure():
        fig, ax = new_figure(1, 1, figsize=(10, 4.5))
        ms = matrices(rows)
        p = max(gpu_counts(rows), default=0)
        k = 0
        width = 0.8 / max(1, len(variants) * len(TRANSPORTS))
        for t in TRANSPORTS:
            for v in variants:
                vals = [num(find(rows, m, "gpu", v, t, p), "seconds") for m in ms]
                ax.bar([i + width * k for i in range(len(ms))],
                       [x if not math.isnan(x) else 0 for x in vals], width=width,
                       label=f"{v}, {t}")
                k += 1
        ax.set_xticks([i + 0.4 - width / 2 for i in range(len(ms))])
        ax.set_xticklabels(ms, fontsize=7)
        ax.set_ylabel("solve time (s)")
        ax.legend(fontsize=7)
        ax.set_title(f"{title_text} ({p} GPUs)")
        return fig
    return make_figure


def scheme_renderer(item: str, heading: str, slow: str, fast: str, paper_gain: float,
                    what: str, variants: List[str], figure_title: str):
    """The renderer of table5 or table8: scheme_table of `slow` vs `fast`, and the figure."""
    def render(res: kbench_results.Results, out_dir: str) -> List[str]:
        rows = entries(res, item)
        text = title(res, heading) + scheme_table(rows, slow, fast, paper_gain, what)
        text += failures(rows)
        return write_outputs(out_dir, text, scheme_figure(rows, variants, figure_title))
    return render


# item -> (slow, fast) variants that table5 and table8 compare
SCHEMES = {"table5": ("natural+bandwidth", "natural+compressed"),
           "table8": ("natural+compressed", "hypergraph+compressed")}

render_table5 = scheme_renderer(
    "table5", "zianekhodja2014 Table 5: compressed halo vs bandwidth global vector",
    *SCHEMES["table5"], PAPER_TABLE5_GAIN,
    "Compressed vs row-by-row (bandwidth window, formula 4)",
    ["natural+bandwidth", "natural+compressed"],
    "zianekhodja2014 Table 5: band matrices, bandwidth vs compressed halo")
render_table8 = scheme_renderer(
    "table8", "zianekhodja2014 Table 8: hypergraph partitioning + compressed halo",
    *SCHEMES["table8"], PAPER_TABLE8_GAIN,
    "Hypergraph + compressed vs compressed",
    ["natural+bandwidth", "natural+compressed", "hypergraph+compressed"],
    "zianekhodja2014 Table 8: five-band matrices")


def render_table9(res: kbench_results.Results, out_dir: str) -> List[str]:
    rows = entries(res, "table8")
    text = title(res, "zianekhodja2014 Table 9: total communication volume per SpMV")
    body = []
    counts = [p for p in gpu_counts(rows) if p > 1] or gpu_counts(rows)
    for m in matrices(rows):
        for p in counts:
            def words(variant: str) -> float:
                e = find(rows, m, "gpu", variant, ranks=p)
                return num((e or {}).get("halo") or {}, "words_received_total")
            hyper = find(rows, m, "gpu", "hypergraph+compressed", ranks=p)
            body.append([m, fmt_int(p), fmt_int(words("natural+bandwidth")),
                         fmt_int(words("natural+compressed")),
                         fmt_int(words("hypergraph+compressed")),
                         fmt(num(hyper, "partition_seconds"))
                         + (" (cached)" if (hyper or {}).get("partition_cached") else ""),
                         (hyper or {}).get("partition_made_on") or "-"])
    text += markdown_table(["matrix", "ranks", "row-by-row (bandwidth)", "compressed",
                            "hypergraph + compressed", "partitioning (s)", "partitioned on"],
                           body)
    text += ("\nWords (vector entries) received by all ranks together in one SpMV's halo "
             "exchange, counted from the halo layouts the runs used; partitioning: Zoltan PHG's "
             "time on the ranks of the run (\"cached\": read from kbench's partition cache, the "
             "time of the run that made it; \"partitioned on\": its host, ranks and hardware "
             "threads, "
             "e.g. a CPU node that made the cache with `kbench dist gmres --partition-only`). "
             "zianekhodja2014 (12 GPUs, 25M rows): about 1.8e8, "
             "2.5e7-3.2e7 and 6e4-7.4e6 words, partitioning 5-196 minutes.\n")
    text += failures(rows)

    def make_figure():
        fig, ax = new_figure(1, 1, figsize=(9, 4.5))
        ms = matrices(rows)
        p = max(counts, default=0)
        for j, v in enumerate(("natural+bandwidth", "natural+compressed",
                               "hypergraph+compressed")):
            vals = [num((find(rows, m, "gpu", v, ranks=p) or {}).get("halo") or {},
                        "words_received_total") for m in ms]
            ax.bar([i + 0.27 * j for i in range(len(ms))],
                   [x if not math.isnan(x) and x > 0 else 0 for x in vals], width=0.27, label=v)
        ax.set_xticks([i + 0.27 for i in range(len(ms))])
        ax.set_xticklabels(ms, fontsize=7)
        ax.set_yscale("log")
        ax.set_ylabel("words per SpMV (all ranks)")
        ax.legend(fontsize=7)
        ax.set_title(f"zianekhodja2014 Table 9: communication volume ({p} ranks)")
        return fig

    return write_outputs(out_dir, text, make_figure)


def weak_series(rows: List[Dict[str, Any]]) -> Dict[str, List[Dict[str, Any]]]:
    """{"<device> <transport> <variant>": entries by rank count}."""
    out: Dict[str, List[Dict[str, Any]]] = {}
    for e in rows:
        if "error" in e:
            continue
        key = f"{e.get('device')} {e.get('transport', 'mpi')} {e.get('variant')}"
        out.setdefault(key, []).append(e)
    for v in out.values():
        v.sort(key=lambda e: num(e, "ranks"))
    return out


def render_fig9(res: kbench_results.Results, out_dir: str) -> List[str]:
    rows = entries(res, "fig9")
    text = title(res, "zianekhodja2014 Fig. 9: weak scaling at 5M rows per rank")
    body = []
    series = weak_series(rows)
    for key, es in series.items():
        base = num(es[0], "seconds_per_iteration") if num(es[0], "ranks") == 1 else math.nan
        for e in es:
            body.append([key, fmt_int(e.get("ranks")), fmt_int(e.get("n")),
                         fmt_int(e.get("iterations")), fmt(num(e, "seconds")),
                         fmt(num(e, "seconds_per_iteration") * 1e3),
                         fmt_pct(base / num(e, "seconds_per_iteration")),
                         fmt(per_iteration_model(e) * 1e3), fmt(model_ratio(e))])
    text += markdown_table(["series (device transport partition+scheme)", "ranks", "n",
                            "# iter", "time (s)", "ms / iteration", "efficiency",
                            "model ms / iteration", "model/measured"], body)
    text += ("\nEfficiency = (time per iteration on 1 rank) / (time per iteration on P ranks), "
             "per iteration because the iteration count may change with n. Target (issue 11): "
             f">= {fmt_pct(TARGET_EFFICIENCY)} from 1 to 4 GPUs for hypergraph + compressed over "
             "NCCL.\n")
    if any(e.get("same_run_as") for e in rows):
        text += ("On 1 GPU nothing is exchanged: one run (natural + compressed, host-staged) "
                 "stands for every GPU series there.\n")
    text += failures(rows)

    def make_figure():
        fig, axes = new_figure(1, 2, figsize=(13, 5))
        for key, es in series.items():
            ps = [num(e, "ranks") for e in es]
            t = [num(e, "seconds_per_iteration") * 1e3 for e in es]
            style = "--" if key.startswith("cpu") else "-"
            axes[0].plot(ps, t, style, marker="o", label=key)
            if ps and ps[0] == 1:
                axes[1].plot(ps, [t[0] / x for x in t], style, marker="o", label=key)
        axes[0].set_xscale("log", base=2)
        axes[0].set_yscale("log")
        axes[0].set_xlabel("ranks (GPUs, or CPU cores)")
        axes[0].set_ylabel("ms per iteration")
        axes[1].set_xscale("log", base=2)
        axes[1].set_xlabel("ranks")
        axes[1].set_ylabel("weak-scaling efficiency")
        axes[1].axhline(TARGET_EFFICIENCY, color="k", lw=0.8, ls=":")
        axes[0].legend(fontsize=6)
        fig.suptitle("zianekhodja2014 Fig. 9: weak scaling, 5M rows per rank")
        return fig

    return write_outputs(out_dir, text, make_figure)


# ---------------------------------------------------------------- model points
MODEL_NAME = "GMRES per-iteration (models/gmres_comm_model.hpp)"


def model_points_of(shown: List[Dict[str, Any]]) -> List[ModelPoint]:
    """Modeled (model.total) and measured seconds per iteration of the entries `shown`, in
    order; an entry that repeats another run (same_run_as: one GPU stands for every transport
    and scheme) or a name already given is left out, so that each run counts once."""
    out, seen = [], set()
    for e in shown:
        name = e.get("name", "")
        if e.get("same_run_as") or name in seen:
            continue
        seen.add(name)
        out.append(ModelPoint(MODEL_NAME, name, per_iteration_model(e),
                              num(e, "seconds_per_iteration"), "s"))
    return out


def table2_model_points(res: kbench_results.Results) -> List[ModelPoint]:
    """The GPU runs of table2 (those its "within 15 %" count is taken over)."""
    return model_points_of([e for e in entries(res, "table2") if e.get("device") == "gpu"])


def scheme_model_points(item: str):
    """The model/measured (slow) and (fast) cells of table5 or table8 (`item`)."""
    def points(res: kbench_results.Results) -> List[ModelPoint]:
        shown = [e for *_, s, f in scheme_rows(entries(res, item), *SCHEMES[item])
                 for e in (s, f) if e is not None]
        return model_points_of(shown)
    return points


def fig9_model_points(res: kbench_results.Results) -> List[ModelPoint]:
    """The model/measured column of fig9 (its series' entries; CPU ranks carry no model)."""
    return model_points_of([e for es in weak_series(entries(res, "fig9")).values() for e in es])


MODEL_POINTS = {
    "zianekhodja2014/table2": table2_model_points,
    "zianekhodja2014/table5": scheme_model_points("table5"),
    "zianekhodja2014/table8": scheme_model_points("table8"),
    "zianekhodja2014/fig9": fig9_model_points,
}

RENDERERS = {
    "zianekhodja2014/table2": render_table2,
    "zianekhodja2014/table5": render_table5,
    "zianekhodja2014/table8": render_table8,
    "zianekhodja2014/table9": render_table9,
    "zianekhodja2014/fig9": render_fig9,
}
