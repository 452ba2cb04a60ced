"""yamazaki2014 orthogonalization study: TSQR quality and tall-skinny kernel throughput
(yamazaki2014 Sec. V, Figs. 10 and 11).

  yamazaki2014/fig10  ||I - Q^T Q||_2 (and ||V - QR||_F / ||V||_F) of every TSQR method vs the
                      condition number kappa of an n x 30 block, on the GPU and by the CPU
                      reference, against the orders eps kappa, eps kappa^2 and eps (the measured
                      counterpart of Fig. 10's table); failures marked with their status.
  yamazaki2014/fig11  GB/s of the tall-skinny kernels (V^T y, y - V r, V^T V, V R^-1) and of every
                      TSQR method vs the rows n (k = 30) and the columns k (n = 1e7), against
                      cuBLAS / cuSOLVER and the measured read bandwidth; effective TSQR GFlop/s
                      (DGEQRF + DORGQR flops / time) as in Fig. 11c.

The runners (harness/studies/yamazaki2014/bench_tsqr_quality.cpp: fig10; bench_tall_skinny.cpp:
fig11) write their own entries into "benchmarks", read here from Results.entries; the schemas are
in harness/studies/yamazaki2014/bench_tall_skinny.hpp. Missing entries or values render as "n/a".
"""

from __future__ import annotations

import math
from typing import Any, Dict, List, Optional, Sequence, Tuple

import kbench_results
from report import (NA, data_in, fmt, fmt_int, fmt_pct, geomean, gpu_title, header_block,
                    l2_cache_bytes, markdown_table, missing, new_figure, write_outputs)

EPS = 2.0 ** -52  # double precision unit roundoff x 2 (numpy.finfo(float).eps)
METHODS = ["mgs", "cgs", "cgs2", "cholqr", "cholqr2", "svqr", "caqr", "shifted_cholqr3"]
LABELS = {"mgs": "MGS", "cgs": "CGS", "cgs2": "CGS2", "cholqr": "CholQR", "cholqr2": "CholQR2",
          "svqr": "SVQR", "caqr": "CAQR", "shifted_cholqr3": "shifted CholQR3",
          "cusolver_qr": "cuSOLVER geqrf+orgqr"}
STATUS_SHORT = {"not_positive_definite": "not PD", "rank_deficient": "rank deficient"}
# Kernels of Fig. 11 and their variants in display order; the last of each is the baseline.
KERNELS: List[Tuple[str, List[str]]] = [
    ("gemv_t", ["mdgm", "per_column", "cublas_gemv_t"]),
    ("gemv_n", ["gemm_rowwise", "cublas_gemv_n"]),
    ("gram", ["gram", "gram_batched", "cublas_dsyrk", "cublas_dgemm"]),
    ("trsm", ["trsm_right_upper", "cublas_dtrsm"]),
    ("tsqr", METHODS + ["cusolver_qr"]),
]
BASELINE = {kernel: variants[-1] for kernel, variants in KERNELS}
TABLE_N, TABLE_K = 10_000_000, 30  # the point of the summary table (and the column sweep's n)

# Targets of the issue that asked for this study (issue 7, "Done when").
GRAM_TARGET_FRACTION = 0.85   # gram >= 85 % of read bandwidth, k in 4..64, n >= 1e6
GRAM_TARGET_SPEEDUP = 1.3     # geometric mean over k of t(cublas_dgemm) / t(gram)
GEMV_TARGET_LARGE = 0.95      # t(cublas_gemv_t) / t(mdgm) at n >= 1e6
GEMV_TARGET_SMALL = 1.5       # ... at n <= 1e5
CHOLQR2_TARGET_FRACTION = 0.5  # CholQR2 >= 50 % of the bandwidth bound of its passes


# ---------------------------------------------------------------- shared helpers
def pow10_label(x: float) -> str:
    """1e5 -> '1e5', 3e7 -> '3e7', 316000 -> '3.16e5'."""
    mantissa, exp = f"{float(x):.2e}".split("e")
    mantissa = mantissa.rstrip("0").rstrip(".")
    return f"{mantissa}e{int(exp)}"


def ordered(found: Sequence[str], order: Sequence[str]) -> List[str]:
    """The names of `found` in `order`, then the unknown ones sorted."""
    known = [x for x in order if x in found]
    return known + sorted(set(found) - set(order))


def number(e: Optional[Dict[str, Any]], field: str) -> float:
    """e[field] as float; NaN when e or the field is missing or null."""
    v = None if e is None else e.get(field)
    return math.nan if missing(v) else float(v)


def read_gbps(context: Dict[str, Any]) -> float:
    """The measured read bandwidth (GB/s): context.kbench.tall_skinny.read_gbps, else the
    machine profile's; NaN when neither is a positive number."""
    kb = context.get("kbench", {})
    for v in (kb.get("tall_skinny", {}).get("read_gbps"), kb.get("machine", {}).get("read_gbps")):
        if isinstance(v, (int, float)) and v > 0:
            return float(v)
    return math.nan


def no_data(ax, what: str) -> None:
    ax.text(0.5, 0.5, f"{NA}: {what}", ha="center", va="center", transform=ax.transAxes)
    ax.set_xticks([])
    ax.set_yticks([])


# ---------------------------------------------------------------- yamazaki2014/fig10
QKey = Tuple[str, str, float]  # (method, device, kappa)


def quality_entries(res: kbench_results.Results) -> Dict[QKey, Dict[str, Any]]:
    """fig10 entries keyed by (method, device, kappa); the first wins for duplicates."""
    out: Dict[QKey, Dict[str, Any]] = {}
    for e in res.entries or []:
        if not isinstance(e, dict) or e.get("figure") != "fig10":
            continue
        if e.get("method") is None or e.get("device") is None or missing(e.get("kappa")):
            continue
        out.setdefault((str(e["method"]), str(e["device"]), float(e["kappa"])), e)
    return out


def expected_order(method: str, entries: Dict[QKey, Dict[str, Any]],
                   context: Dict[str, Any]) -> str:
    """The method's expected order: from an entry, else context.kbench.tsqr_quality."""
    for (m, _, _), e in sorted(entries.items()):
        if m == method and e.get("expected_order"):
            return str(e["expected_order"])
    orders = context.get("kbench", {}).get("tsqr_quality", {}).get("expected_order", {})
    return str(orders.get(method, NA))


def failed(e: Optional[Dict[str, Any]]) -> bool:
    return e is not None and e.get("status", "ok") != "ok"


def quality_cell(e: Optional[Dict[str, Any]], field: str) -> str:
    """The measure to 2 digits, followed by '(status, col c)' for a failed run."""
    if e is None:
        return NA
    text = fmt(number(e, field), 2)
    if failed(e):
        status = STATUS_SHORT.get(str(e.get("status")), str(e.get("status")))
        text += f" ({status}, col {e.get('failed_column', NA)})"
    return text


def quality_table(entries: Dict[QKey, Dict[str, Any]], context: Dict[str, Any], device: str,
                  field: str, methods: List[str], kappas: List[float]) -> str:
    """Method x kappa; the orthogonality tables carry the expected order as second column."""
    order = field == "orthogonality"
    headers = ["Method", *(["expected"] if order else []),
               *(f"kappa = {pow10_label(k)}" for k in kappas)]
    rows = [[LABELS.get(m, m), *([expected_order(m, entries, context)] if order else []),
             *(quality_cell(entries.get((m, device, k)), field) for k in kappas)]
            for m in methods]
    return markdown_table(headers, rows, left=2 if order else 1)


def render_fig10(res: kbench_results.Results, out_dir: str) -> List[str]:
    """Tables method x kappa of ||I - Q^T Q||_2 (GPU, CPU) and the GPU residual, the failures,
    and a log-log figure against the guide lines. Returns the paths written."""
    entries = quality_entries(res)
    methods = ordered(sorted({m for m, _, _ in entries}), METHODS)
    kappas = sorted({k for _, _, k in entries})
    q = res.context.get("kbench", {}).get("tsqr_quality", {})
    eps = float(q["eps"]) if isinstance(q.get("eps"), (int, float)) else EPS
    text = header_block(res.context, f"yamazaki2014 Fig. 10: loss of orthogonality of TSQR "
                                     f"methods on {gpu_title(res.context)}")
    text += (f"- Blocks: n = {fmt_int(q.get('n'))}, k = {q.get('k', NA)}, V = U diag(s) W^T with "
             f"s_j = kappa^(-j/(k-1)) (ortho::conditioned_block, seed {q.get('seed', NA)}); "
             f"eps = {fmt(eps)}\n")
    if not entries:
        text += f"\n{NA}: the results hold no fig10 entries.\n"
    sections = [("||I - Q^T Q||_2 on the GPU (ortho::tsqr)", "gpu", "orthogonality"),
                ("||I - Q^T Q||_2 on the CPU (ortho::reference::tsqr, Eigen)", "cpu",
                 "orthogonality"),
                ("||V - QR||_F / ||V||_F on the GPU", "gpu", "residual")]
    for title, device, field in sections:
        if any(d == device for _, d, _ in entries):
            text += f"\n### {title}\n\n"
            text += quality_table(entries, res.context, device, field, methods, kappas)
    fails = [(methods.index(m), d, k, e) for (m, d, k), e in entries.items() if failed(e)]
    text += (f"\nExpected orders as stated in solvers/orthogonalization/tsqr.hpp (yamazaki2014 "
             f"Fig. 10 lists eps kappa^s for CGS); cgs2 holds eps while eps kappa < 1, cholqr2 "
             f"while eps kappa^2 < 1. A failed run shows its status and column; its measure is "
             f"that of the partial factors (n/a when they are not finite).\n\n"
             f"Failures: {len(fails)} of {len(entries)} runs.\n")
    for _, d, k, e in sorted(fails, key=lambda f: (f[0], f[1], f[2])):
        text += (f"- {d.upper()} {e.get('method')}, kappa = {pow10_label(k)}: {e.get('status')} "
                 f"at column {e.get('failed_column', NA)}: {e.get('detail') or NA}\n")

    def make_figure():
        fig, ax = new_figure(1, 1, figsize=(10, 6.5))
        if not entries:
            no_data(ax, "no fig10 entries")
            return fig
        grid = [10 ** (x / 4) for x in range(0, 4 * 16 + 1)]
        for label, fn, style in (("eps kappa", lambda x: eps * x, ":"),
                                 ("eps kappa^2", lambda x: eps * x * x, "-."),
                                 ("eps", lambda x: eps, "-")):
            ax.plot(grid, [fn(x) for x in grid], color="0.5", linestyle=style, linewidth=1,
                    label=f"guide: {label}")
        fail_y = 1e2  # where failures without a finite measure are drawn
        for i, m in enumerate(methods):
            color = f"C{i % 10}"
            for device, style, marker in (("gpu", "-", "o"), ("cpu", "--", None)):
                # The line joins the runs that succeeded; failures are drawn as markers only.
                ok = [(k, entries.get((m, device, k))) for k in kappas]
                pts = [(k, number(e, "orthogonality")) for k, e in ok if e and not failed(e)]
                pts = [(k, v) for k, v in pts if not math.isnan(v) and v > 0]
                if pts:
                    ax.plot(*zip(*pts), linestyle=style, marker=marker, ms=4, color=color,
                            alpha=1.0 if device == "gpu" else 0.6,
                            label=f"{LABELS.get(m, m)} ({device.upper()})")
                for k in kappas:
                    e = entries.get((m, device, k))
                    if failed(e):
                        v = number(e, "orthogonality")
                        ax.plot([k], [fail_y if math.isnan(v) or v <= 0 else v],
                                marker="x" if device == "gpu" else "+", ms=9, color=color,
                                linestyle="none")
        ax.plot([], [], "kx", ms=9, linestyle="none",
                label=f"failed (GPU x, CPU +; at {fmt(fail_y)} when not finite)")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlim(min(kappas) / 3, max(kappas) * 3)
        ax.set_ylim(1e-17, 1e3)
        ax.set_xlabel("condition number kappa of V")
        ax.set_ylabel("||I - Q^T Q||_2")
        ax.grid(True, which="major", alpha=0.3)
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
        fig.suptitle(f"TSQR loss of orthogonality (yamazaki2014 Fig. 10) - "
                     f"{gpu_title(res.context)}")
        return fig

    return write_outputs(out_dir, text, make_figure)


# ---------------------------------------------------------------- yamazaki2014/fig11
PKey = Tuple[str, str, int, int]  # (kernel, variant, n, k)


def perf_entries(res: kbench_results.Results) -> Dict[PKey, Dict[str, Any]]:
    """fig11 entries keyed by (kernel, variant, n, k); the first wins for duplicates."""
    out: Dict[PKey, Dict[str, Any]] = {}
    for e in res.entries or []:
        if not isinstance(e, dict) or e.get("figure") != "fig11":
            continue
        if e.get("kernel") is None or e.get("variant") is None or missing(e.get("n")):
            continue
        out.setdefault((str(e["kernel"]), str(e["variant"]), int(e["n"]), int(e.get("k", 1))), e)
    return out


def variants_of(entries: Dict[PKey, Dict[str, Any]], kernel: str) -> List[str]:
    order = dict(KERNELS).get(kernel, [])
    return ordered(sorted({v for kk, v, _, _ in entries if kk == kernel}), order)


def kernels_of(entries: Dict[PKey, Dict[str, Any]]) -> List[str]:
    return ordered(sorted({kk for kk, _, _, _ in entries}), [k for k, _ in KERNELS])


def fraction(e: Optional[Dict[str, Any]], bw: float) -> float:
    """The entry's fraction_of_bandwidth, else GBps / bw; NaN when neither is known."""
    f = number(e, "fraction_of_bandwidth")
    if math.isnan(f) and bw > 0:
        f = number(e, "GBps") / bw
    return f


def speedup(entries: Dict[PKey, Dict[str, Any]], kernel: str, variant: str, n: int, k: int,
            over: Optional[str] = None) -> float:
    """t(over, default the kernel's baseline) / t(variant) at (n, k); NaN when unknown."""
    t = number(entries.get((kernel, variant, n, k)), "seconds")
    t0 = number(entries.get((kernel, over or BASELINE.get(kernel, ""), n, k)), "seconds")
    return t0 / t if t > 0 and t0 > 0 else math.nan


def summary_table(entries: Dict[PKey, Dict[str, Any]], bw: float) -> str:
    headers = ["kernel/variant", "time (us)", "GFlop/s", "GB/s", "% of read BW",
               "speedup vs cuBLAS/cuSOLVER"]
    rows = []
    for kernel in kernels_of(entries):
        for v in variants_of(entries, kernel):
            e = entries.get((kernel, v, TABLE_N, TABLE_K))
            if e is None:
                continue
            rows.append([f"{kernel}/{v}", fmt(1e6 * number(e, "seconds")), fmt(number(e, "GFlops")),
                         fmt(number(e, "GBps")), fmt_pct(fraction(e, bw)),
                         fmt(speedup(entries, kernel, v, TABLE_N, TABLE_K))])
    return markdown_table(headers, rows) if rows else f"{NA}: no entry at this point.\n"


def sweep_table(entries: Dict[PKey, Dict[str, Any]], bw: float, axis: str,
                context: Optional[Dict[str, Any]] = None) -> str:
    """% of read bandwidth per variant (rows) over n at k = TABLE_K (axis 'n') or over k at
    n = TABLE_N (axis 'k'). Over n, a column whose V (n x k doubles) fits the L2 cache of the
    GPU in `context` is headed "(L2)": hot repetitions read V from L2 there."""
    if axis == "n":
        points = sorted({(n, k) for _, _, n, k in entries if k == TABLE_K})
        head = [pow10_label(n) + (" (L2)" if context is not None and
                                  data_in(8.0 * n * k, context) == "L2" else "")
                for n, k in points]
    else:
        points = sorted({(n, k) for _, _, n, k in entries if n == TABLE_N}, key=lambda p: p[1])
        head = [f"k = {k}" for _, k in points]
    if not points:
        return f"{NA}: no entries.\n"
    rows = [[f"{kernel}/{v}", *(fmt_pct(fraction(entries.get((kernel, v, n, k)), bw))
                                 if (kernel, v, n, k) in entries else NA for n, k in points)]
            for kernel in kernels_of(entries) for v in variants_of(entries, kernel)]
    return markdown_table(["kernel/variant", *head], rows)


def target_lines(entries: Dict[PKey, Dict[str, Any]], bw: float) -> str:
    """The issue's targets, measured: minimum or geometric mean and whether it is met."""
    def verdict(x: float, target: float) -> str:
        return NA if math.isnan(x) else ("met" if x >= target else "not met")

    gram = [(fraction(e, bw), n, k) for (kk, v, n, k), e in entries.items()
            if kk == "gram" and v == "gram" and n >= 1_000_000 and 4 <= k <= 64]
    gram = [g for g in gram if not math.isnan(g[0])]
    g_min = min(gram) if gram else (math.nan, None, None)
    ks = sorted({k for kk, v, n, k in entries if kk == "gram" and n == TABLE_N})
    g_mean = geomean([speedup(entries, "gram", "gram", TABLE_N, k) for k in ks if k >= 4])

    def min_speedup(pred) -> Tuple[float, Optional[int]]:
        s = [(speedup(entries, "gemv_t", "mdgm", n, k), n) for kk, v, n, k in entries
             if kk == "gemv_t" and v == "mdgm" and k == TABLE_K and pred(n)]
        s = [x for x in s if not math.isnan(x[0])]
        return min(s) if s else (math.nan, None)

    big, small = min_speedup(lambda n: n >= 1_000_000), min_speedup(lambda n: n <= 100_000)
    chol = [(fraction(e, bw), n) for (kk, v, n, k), e in entries.items()
            if kk == "tsqr" and v == "cholqr2" and k == TABLE_K and n >= 1_000_000]
    chol = [c for c in chol if not math.isnan(c[0])]
    c_min = min(chol) if chol else (math.nan, None)

    def at(n: Optional[int], k: Optional[int] = None) -> str:
        if n is None:
            return ""
        return f" (n = {pow10_label(n)}" + (f", k = {k})" if k is not None else ")")

    return (f"- gram % of read bandwidth, k in 4..64, n >= 1e6: minimum {fmt_pct(g_min[0])}"
            f"{at(g_min[1], g_min[2])}; target >= {fmt_pct(GRAM_TARGET_FRACTION)}: "
            f"{verdict(g_min[0], GRAM_TARGET_FRACTION)}\n"
            f"- gram speedup over cuBLAS dgemm at n = 1e7, geometric mean over k >= 4: "
            f"{fmt(g_mean)}; target >= {GRAM_TARGET_SPEEDUP}: "
            f"{verdict(g_mean, GRAM_TARGET_SPEEDUP)}\n"
            f"- mdgm speedup over cuBLAS dgemv (V^T y, k = 30), minimum over n >= 1e6: "
            f"{fmt(big[0])}{at(big[1])}; target >= {GEMV_TARGET_LARGE}: "
            f"{verdict(big[0], GEMV_TARGET_LARGE)}\n"
            f"- the same over n <= 1e5: {fmt(small[0])}{at(small[1])}; target >= "
            f"{GEMV_TARGET_SMALL}: {verdict(small[0], GEMV_TARGET_SMALL)}\n"
            f"- CholQR2 % of the bandwidth bound of its passes over V (k = 30), minimum over "
            f"n >= 1e6: {fmt_pct(c_min[0])}{at(c_min[1])}; target >= "
            f"{fmt_pct(CHOLQR2_TARGET_FRACTION)}: {verdict(c_min[0], CHOLQR2_TARGET_FRACTION)}\n")


def render_fig11(res: kbench_results.Results, out_dir: str) -> List[str]:
    """Summary table at n = 1e7, k = 30, % of bandwidth over n and over k, the issue's targets;
    figure: GB/s over n and over k per kernel, effective TSQR GFlop/s over n."""
    entries = perf_entries(res)
    bw = read_gbps(res.context)
    ts = res.context.get("kbench", {}).get("tall_skinny", {})
    text = header_block(res.context, f"yamazaki2014 Fig. 11: tall-skinny kernels and TSQR vs "
                                     f"cuBLAS/cuSOLVER on {gpu_title(res.context)}")
    for key in ("timing", "flops", "bytes", "cache"):
        if key in ts:
            text += f"- {key}: {ts[key]}\n"
    text += f"- Measured read bandwidth (the 100 % of every fraction): {fmt(bw)} GB/s\n"
    for note in ts.get("skipped", []) or []:
        text += f"- skipped: {note}\n"
    if not entries:
        text += f"\n{NA}: the results hold no fig11 entries.\n"
    text += f"\n### n = {fmt_int(TABLE_N)}, k = {TABLE_K}\n\n" + summary_table(entries, bw)
    text += ("\nSpeedup = time of the kernel's cuBLAS variant (gemv_t: cublas_gemv_t, gemv_n: "
             "cublas_gemv_n, gram: cublas_dgemm, trsm: cublas_dtrsm; tsqr: cusolver_qr) / time "
             "of the variant. TSQR GFlop/s are effective (DGEQRF + DORGQR flops); its GB/s count "
             "the passes over V of each method.\n")
    text += (f"\n### % of read bandwidth vs n (k = {TABLE_K})\n\n"
             f"(L2): V (n x {TABLE_K} doubles) fits the {fmt(l2_cache_bytes(res.context) / 1e6)} "
             f"MB L2 cache, so the repeated calls read it from L2 and the column's fractions of "
             f"the (DRAM) read bandwidth are L2 figures.\n\n" +
             sweep_table(entries, bw, "n", res.context))
    text += (f"\n### % of read bandwidth vs k (n = {pow10_label(TABLE_N)})\n\n" +
             sweep_table(entries, bw, "k"))
    text += "\n### Targets (issue 7)\n\n" + target_lines(entries, bw)

    panels = [("n", ["gemv_t", "gemv_n"], "GBps", "V^T y and y - V r, k = 30"),
              ("n", ["gram"], "GBps", "Gram V^T V, k = 30"),
              ("n", ["tsqr"], "GBps", "TSQR (passes over V), k = 30"),
              ("k", ["gemv_t", "gemv_n"], "GBps", "V^T y and y - V r, n = 1e7"),
              ("k", ["gram"], "GBps", "Gram V^T V, n = 1e7"),
              ("n", ["tsqr"], "GFlops", "TSQR effective GFlop/s, k = 30 (Fig. 11c)")]

    def make_figure():
        fig, axes = new_figure(2, 3, figsize=(18, 10), squeeze=False)
        for ax, (axis, kernels, field, title) in zip([a for row in axes for a in row], panels):
            drawn = 0
            lines = [(kernel, v) for kernel in kernels for v in variants_of(entries, kernel)]
            for i, (kernel, v) in enumerate(lines):
                pts = sorted((n if axis == "n" else k, number(e, field))
                             for (kk, vv, n, k), e in entries.items()
                             if kk == kernel and vv == v and
                             (k == TABLE_K if axis == "n" else n == TABLE_N))
                pts = [(x, y) for x, y in pts if not math.isnan(y) and y > 0]
                if not pts:
                    continue
                baseline = v.startswith(("cublas", "cusolver"))
                ax.plot(*zip(*pts), marker="s" if kernel == "gemv_n" else "o", ms=3,
                        color=f"C{i % 10}", linestyle="--" if baseline else "-",
                        label=f"{kernel}/{v}")
                drawn += 1
            if not drawn:
                no_data(ax, "no entries")
                ax.set_title(title)
                continue
            if field == "GBps" and not math.isnan(bw):
                ax.axhline(bw, color="k", linestyle=":", label=f"read bandwidth {fmt(bw)} GB/s")
            ax.set_xscale("log" if axis == "n" else "linear")
            ax.set_yscale("log")
            ax.set_xlabel("rows n" if axis == "n" else "columns k")
            ax.set_ylabel("GB/s" if field == "GBps" else "effective GFlop/s")
            ax.set_title(title)
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(fontsize=7)
        fig.suptitle(f"Tall-skinny kernels and TSQR (yamazaki2014 Fig. 11) - "
                     f"{gpu_title(res.context)}")
        return fig

    return write_outputs(out_dir, text, make_figure)


RENDERERS = {
    "yamazaki2014/fig10": render_fig10,
    "yamazaki2014/fig11": render_fig11,
}
