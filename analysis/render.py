#!/usr/bin/env python3
"""Renders a kbench results.json into table.md and figure.png for one reproduced item.

Usage: render.py <results.json> --id <id> --out-dir <dir>

Ids (see RENDERERS):
  anzt2015/table2  matrix properties (anzt2015 Sec. 4.1, Table 2) with SELL-P padding overhead,
                   from context.kbench.matrices; figure: nnz/n versus n by source kind.
  anzt2015/table3  CSR versus SELL-P SpMV performance (anzt2015 Sec. 4.2, Table 3): GFlop/s,
                   speedup s, improvement zeta_M = 1 - T_sellp/T_csr, achieved bandwidth;
                   figure: GFlop/s and % of measured read bandwidth per kernel and matrix.
Exit status: 0 on success, 1 for an unreadable or invalid results file, 2 for an unknown id.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from typing import Callable, Dict, List, Optional, Sequence

import matplotlib

matplotlib.use("Agg")  # headless: no display on the machines that render
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kbench_results  # noqa: E402

# SpMV kernels in display order: ours, then the vendor baselines.
OUR_CSR = ["csr_scalar", "csr_vector"]
OURS = OUR_CSR + ["sellp"]
KERNELS = OURS + ["cusparse_csr", "cusparse_sell"]
KERNEL_LABELS = {"csr_scalar": "CSR scalar", "csr_vector": "CSR vector", "sellp": "SELL-P",
                 "cusparse_csr": "cuSPARSE CSR", "cusparse_sell": "cuSPARSE SELL"}
DENSE_NNZ_PER_ROW = 20.0  # summary threshold: rows long enough to fill SELL-P's threads
NA = "n/a"


# ---------------------------------------------------------------- formatting
def fmt(x: Optional[float], sig: int = 3) -> str:
    """`x` to `sig` significant digits, without exponent for 1e-3 <= |x| < 1e6 (integers at
    or above 10**sig keep all their digits: 1234.5 -> '1235'); NA for None/NaN."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return NA
    x = float(x)
    if x == 0.0:
        return "0"
    mag = math.floor(math.log10(abs(x)))
    if abs(x) >= 10 ** sig and mag < 6:
        return f"{x:.0f}"
    if -3 <= mag < 6:
        # round to `sig` digits first: 9.996 -> 10.0, not 10.00
        x = float(f"{x:.{sig - 1}e}")
        mag = math.floor(math.log10(abs(x)))
        return f"{x:.{max(sig - 1 - mag, 0)}f}"
    return f"{x:.{sig - 1}e}"


def fmt_pct(frac: Optional[float]) -> str:
    """A fraction as a percentage: 0.2 -> '20.0 %'."""
    if frac is None or (isinstance(frac, float) and math.isnan(frac)):
        return NA
    return fmt(100.0 * frac) + " %"


def fmt_int(x) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return NA
    return f"{int(x):,}"


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[str]],
                   left: int = 1) -> str:
    """GitHub-flavoured Markdown table; the first `left` columns left-aligned (text), the
    others right-aligned (numbers). '|' inside cells is escaped."""
    esc = [[str(c).replace("|", "\\|") for c in r] for r in [headers, *rows]]
    lines = ["| " + " | ".join(r) + " |" for r in esc]
    align = [":---"] * left + ["---:"] * (len(headers) - left)
    lines.insert(1, "| " + " | ".join(align) + " |")
    return "\n".join(lines) + "\n"


def cuda_version(v) -> str:
    """CUDA's integer version (1000*major + 10*minor) as 'major.minor': 13000 -> '13.0'."""
    if not isinstance(v, (int, float)) or v <= 0:
        return NA
    v = int(v)
    return f"{v // 1000}.{(v % 1000) // 10}"


def geomean(values) -> float:
    v = np.asarray([x for x in values if x is not None and not math.isnan(x)], dtype=float)
    if len(v) == 0 or np.any(v <= 0):
        return math.nan
    return float(np.exp(np.mean(np.log(v))))


def header_block(context: dict, title: str) -> str:
    """Markdown lines naming the GPU, software, measured bandwidth, cache mode and version."""
    kb = context.get("kbench", {})
    gpu, machine, git = kb.get("gpu", {}), kb.get("machine", {}), kb.get("git", {})
    sha = git.get("sha", "unknown")
    dirty = " (dirty)" if git.get("dirty") else ""
    cc = gpu.get("compute_capability")
    cc_txt = f"{int(cc) // 10}.{int(cc) % 10}" if isinstance(cc, (int, float)) else NA
    ms = kb.get("matrix_set", {})
    lines = [
        f"# {title}",
        "",
        f"- GPU: {gpu.get('name', NA)} ({gpu.get('sm_count', NA)} SMs, compute capability "
        f"{cc_txt}, ECC {'on' if gpu.get('ecc_enabled') else 'off'}); driver "
        f"{cuda_version(gpu.get('driver_version'))}, runtime "
        f"{cuda_version(gpu.get('runtime_version'))}",
        f"- Measured bandwidth: read {fmt(machine.get('read_gbps'))} GB/s, triad "
        f"{fmt(machine.get('triad_gbps'))} GB/s; cache mode: {kb.get('cache_mode', NA)}",
        f"- Matrix set: {ms.get('name', NA)}; git {sha}{dirty}; date {context.get('date', NA)}",
        f"- Command: `{' '.join(kb.get('argv', [])) or NA}`",
    ]
    return "\n".join(lines) + "\n\n"


def gpu_title(context: dict) -> str:
    return context.get("kbench", {}).get("gpu", {}).get("name", "unknown GPU")


# ---------------------------------------------------------------- anzt2015/table2
def _source_text(r: pd.Series) -> str:
    """'real', 'replicated (<seed file>)' or 'generated (<generator>)'."""
    if r["source_kind"] == "real":
        return "real"
    if r["source_kind"] == "replicated":
        seed = (r["spec"] or {}).get("params", {}).get("file", "")
        return f"replicated ({seed})" if seed else "replicated"
    return f"generated ({r['source']})"


def render_table2(res: kbench_results.Results, out_dir: str) -> List[str]:
    """Matrix properties (anzt2015 Table 2 columns) plus SELL-P padding overhead, in manifest
    order; figure: nnz/n versus n (log x) coloured by source kind. Returns the paths written."""
    m = res.matrices
    if m.empty:
        raise ValueError("results file has no context.kbench.matrices: nothing to tabulate")
    rows = []
    for name, r in m.iterrows():
        pad = r["sellp_padding_ratio"]
        sigma = r["sellp_sigma"]
        params = f"b={fmt_int(r['sellp_slice_height'])}, t={fmt_int(r['sellp_threads_per_row'])}"
        if sigma not in (None, 1) and not (isinstance(sigma, float) and math.isnan(sigma)):
            params += f", sigma={fmt_int(sigma)}"
        thr = r.get("sellp_long_row_threshold")
        if thr is not None and not (isinstance(thr, float) and math.isnan(thr)) and thr != 0:
            params += f", long rows > {fmt_int(thr)}: {fmt_int(r.get('sellp_long_rows'))}"
        pad_txt = NA if pad is None else f"{fmt_pct(float(pad) - 1.0)} ({params})"
        rows.append([name, r["stands_for"] or "-", _source_text(r), fmt_int(r["num_rows"]),
                     fmt_int(r["nnz"]), fmt(r["nnz_per_row"]), fmt_int(r["row_nnz_max"]),
                     pad_txt])
    headers = ["Matrix", "stands for (paper matrix)", "source", "n", "nnz", "nnz/n",
               "max row nnz", "SELL-P padding overhead"]
    text = header_block(res.context, f"anzt2015 Table 2: test matrices on {gpu_title(res.context)}")
    text += markdown_table(headers, rows, left=3)
    text += ("\nSELL-P padding overhead = stored entries / nnz - 1 with slice height b and "
             "threads per row t (anzt2015 Sec. 3.1); with 'long rows > L: k', the k rows with more "
             "than L nonzeros are stored as a CSR part (kbench long-row split) and counted "
             "unpadded. Source kinds: real = SuiteSparse file, "
             "replicated = copies of a real matrix along the diagonal, generated = stencil or "
             "synthetic generator.\n")

    fig, ax = plt.subplots(figsize=(8, 5))
    colors = {"real": "tab:blue", "replicated": "tab:orange", "generated": "tab:green"}
    for kind in colors:
        grp = m[m["source_kind"] == kind]
        if grp.empty:
            continue
        ax.scatter(grp["num_rows"].astype(float), grp["nnz_per_row"], label=kind,
                   color=colors[kind], s=40)
        for name, r in grp.iterrows():
            ax.annotate(name, (float(r["num_rows"]), r["nnz_per_row"]), fontsize=7,
                        xytext=(4, 3), textcoords="offset points")
    ax.set_xscale("log")
    ax.set_xlabel("n (rows)")
    ax.set_ylabel("nnz / n")
    ax.set_title(f"Test matrices (anzt2015 Table 2) - {gpu_title(res.context)}")
    ax.legend(title="source")
    ax.grid(True, which="both", alpha=0.3)
    return _write(out_dir, text, fig)


# ---------------------------------------------------------------- anzt2015/table3
def _per_kernel(b: pd.DataFrame, column: str) -> pd.DataFrame:
    """matrix x kernel table of `column` from the benchmark rows of one precision."""
    ok = b[~b["error_occurred"]]
    return ok.pivot_table(index="matrix", columns="kernel", values=column, aggfunc="first")


def _get(table: pd.DataFrame, matrix: str, kernel: str) -> float:
    if kernel in table.columns and matrix in table.index:
        v = table.at[matrix, kernel]
        return float(v) if v is not None else math.nan
    return math.nan


def table3_rows(res: kbench_results.Results, precision: str) -> pd.DataFrame:
    """Per matrix of one precision, the Table 3 quantities, ordered by nnz/n. Times in us,
    GFlop/s and GB/s per 1e9; zeta and bandwidth fractions as fractions (not %)."""
    b = res.benchmarks
    b = b[(b["study"] == "spmv") & (b["precision"] == precision)]
    t, gf = _per_kernel(b, "time_us"), _per_kernel(b, "GFlops")
    gb, frd, ftr = (_per_kernel(b, c) for c in ("GBps", "bw_frac_read", "bw_frac_triad"))
    err = _per_kernel(b, "max_rel_error")
    traffic = _per_kernel(b, "bytes_read") + _per_kernel(b, "bytes_written")
    machine = res.context.get("kbench", {}).get("machine", {})
    out = []
    for mat in b["matrix"].unique():
        sub = b[b["matrix"] == mat]
        if mat in res.matrices.index and pd.notna(res.matrices.at[mat, "nnz_per_row"]):
            n = float(res.matrices.at[mat, "num_rows"])
            nnz_row = float(res.matrices.at[mat, "nnz_per_row"])
        else:  # no stats in the context: the benchmark's own counters
            n = float(sub["n"].max())
            nnz_row = float(sub["nnz"].max()) / n
        csr_times = {k: _get(t, mat, k) for k in OUR_CSR}
        csr_best = min((k for k in OUR_CSR if not math.isnan(csr_times[k])),
                       key=lambda k: csr_times[k], default=None)
        ours_times = {k: _get(t, mat, k) for k in OURS}
        best = min((k for k in OURS if not math.isnan(ours_times[k])),
                   key=lambda k: ours_times[k], default=None)
        t_sellp, t_cus = _get(t, mat, "sellp"), _get(t, mat, "cusparse_csr")
        t_csr = csr_times[csr_best] if csr_best else math.nan
        gbps_sellp = _get(gb, mat, "sellp")
        f_read, f_triad = _get(frd, mat, "sellp"), _get(ftr, mat, "sellp")
        if math.isnan(f_read) and machine.get("read_gbps"):
            f_read = gbps_sellp / machine["read_gbps"]
        if math.isnan(f_triad) and machine.get("triad_gbps"):
            f_triad = gbps_sellp / machine["triad_gbps"]
        out.append({
            "matrix": mat, "n": n, "nnz_per_row": nnz_row,
            "csr_kernel": csr_best, "gflops_csr": _get(gf, mat, csr_best) if csr_best else math.nan,
            "gflops_cusparse_csr": _get(gf, mat, "cusparse_csr"),
            "gflops_sellp": _get(gf, mat, "sellp"),
            "gflops_cusparse_sell": _get(gf, mat, "cusparse_sell"),
            "speedup": t_cus / t_sellp,                    # s = T_csr / T_sellp
            "zeta": 1.0 - t_sellp / t_cus,                 # zeta_M vs cuSPARSE CSR
            "zeta_ours": 1.0 - t_sellp / t_csr,            # zeta_M vs our best CSR
            "gbps_sellp": gbps_sellp, "frac_read_sellp": f_read, "frac_triad_sellp": f_triad,
            "best_kernel": best,
            "best_ratio": t_cus / ours_times[best] if best else math.nan,
            "err_sellp": _get(err, mat, "sellp"),
            "bytes_sellp": _get(traffic, mat, "sellp"),
        })
    df = pd.DataFrame(out)
    return df.sort_values("nnz_per_row", kind="stable").reset_index(drop=True) if len(df) else df


def table3_summary(rows: pd.DataFrame, l2_bytes: float = math.nan) -> Dict[str, float]:
    """Geometric mean of best-of-ours / cuSPARSE CSR over all matrices; over matrices with
    nnz/n >= DENSE_NNZ_PER_ROW: mean SELL-P fraction of read bandwidth and geometric mean of
    SELL-P / cuSPARSE CSR speed; the same two over those of them whose SELL-P traffic exceeds
    `l2_bytes` (the L2 cache size: smaller products run from L2 or are launch bound, so their
    fraction of DRAM bandwidth says little)."""
    dense = rows[rows["nnz_per_row"] >= DENSE_NNZ_PER_ROW]
    big = dense[dense["bytes_sellp"] > l2_bytes] if "bytes_sellp" in dense else dense.iloc[0:0]
    return {
        "big_count": int(len(big)),
        "big_mean_frac_read": float(big["frac_read_sellp"].mean()) if len(big) else math.nan,
        "big_min_frac_read": float(big["frac_read_sellp"].min()) if len(big) else math.nan,
        "big_geomean_speedup": geomean(big["speedup"]),
        "geomean_best_ratio": geomean(rows["best_ratio"]),
        "count_all": int(rows["best_ratio"].notna().sum()),
        "dense_count": int(len(dense)),
        "dense_mean_frac_read": float(dense["frac_read_sellp"].mean()) if len(dense) else math.nan,
        "dense_geomean_speedup": geomean(dense["speedup"]),
    }


def _table3_markdown(rows: pd.DataFrame, precision: str, l2_bytes: float) -> str:
    headers = ["Matrix", "n", "nnz/n", "CSR ours GFlop/s (kernel)", "cuSPARSE CSR GFlop/s",
               "SELL-P GFlop/s", "cuSPARSE SELL GFlop/s", "speedup s (SELL-P vs cuSPARSE CSR)",
               "zeta_M vs cuSPARSE CSR", "zeta_M vs our CSR", "SELL-P GB/s",
               "SELL-P % read BW", "SELL-P % triad BW", "best ours / cuSPARSE CSR (kernel)",
               "SELL-P max rel. error"]
    body = []
    for _, r in rows.iterrows():
        csr_k = r["csr_kernel"].replace("csr_", "") if r["csr_kernel"] else NA
        best_k = r["best_kernel"] or NA
        body.append([r["matrix"], fmt_int(r["n"]), fmt(r["nnz_per_row"]),
                     f"{fmt(r['gflops_csr'])} ({csr_k})", fmt(r["gflops_cusparse_csr"]),
                     fmt(r["gflops_sellp"]), fmt(r["gflops_cusparse_sell"]), fmt(r["speedup"]),
                     fmt_pct(r["zeta"]), fmt_pct(r["zeta_ours"]), fmt(r["gbps_sellp"]),
                     fmt_pct(r["frac_read_sellp"]), fmt_pct(r["frac_triad_sellp"]),
                     f"{fmt(r['best_ratio'])} ({best_k})", fmt(r["err_sellp"])])
    s = table3_summary(rows, l2_bytes)
    text = f"## Precision: {precision}\n\n" + markdown_table(headers, body)
    text += (
        "\n**Summary**\n\n"
        f"- Geometric mean of best of our formats / cuSPARSE CSR over {s['count_all']} "
        f"matrices: {fmt(s['geomean_best_ratio'])}\n"
        f"- Matrices with nnz/n >= {fmt(DENSE_NNZ_PER_ROW)} ({s['dense_count']}): SELL-P reaches "
        f"{fmt_pct(s['dense_mean_frac_read'])} of measured read bandwidth (mean); SELL-P / "
        f"cuSPARSE CSR geometric mean {fmt(s['dense_geomean_speedup'])}\n"
        f"- Of these, the {s['big_count']} whose SELL-P traffic exceeds the L2 cache "
        f"({fmt(l2_bytes / 1e6)} MB): SELL-P reaches {fmt_pct(s['big_mean_frac_read'])} of measured "
        f"read bandwidth (mean; minimum {fmt_pct(s['big_min_frac_read'])}); SELL-P / cuSPARSE CSR "
        f"geometric mean {fmt(s['big_geomean_speedup'])}\n\n")
    return text


def _bandwidth_markdown(res: kbench_results.Results, precision: str, order: List[str]) -> str:
    """Achieved bandwidth of every kernel per matrix: GB/s and % of measured read bandwidth."""
    b = res.benchmarks
    b = b[(b["study"] == "spmv") & (b["precision"] == precision)]
    gb, frac = _per_kernel(b, "GBps"), _per_kernel(b, "bw_frac_read")
    kernels = [k for k in KERNELS if k in gb.columns]
    headers = ["Matrix"] + [f"{KERNEL_LABELS[k]} GB/s (% read BW)" for k in kernels]
    body = [[m] + [f"{fmt(_get(gb, m, k))} ({fmt_pct(_get(frac, m, k))})" for k in kernels]
            for m in order]
    return (f"### Achieved bandwidth ({precision})\n\nBytes of the traffic model over the median "
            "time, and their fraction of the measured read-only bandwidth.\n\n"
            + markdown_table(headers, body) + "\n")


def _table3_figure(res: kbench_results.Results, precisions: List[str]):
    fig, axes = plt.subplots(2 * len(precisions), 1, figsize=(11, 8 * len(precisions)),
                             squeeze=False)
    for p_i, prec in enumerate(precisions):
        b = res.benchmarks
        b = b[(b["study"] == "spmv") & (b["precision"] == prec) & ~b["error_occurred"]]
        order = table3_rows(res, prec)
        mats = list(order["matrix"])
        kernels = [k for k in KERNELS if k in set(b["kernel"])]
        gf, frac = _per_kernel(b, "GFlops"), _per_kernel(b, "bw_frac_read")
        x = np.arange(len(mats))
        width = 0.8 / max(len(kernels), 1)
        ax_gf, ax_bw = axes[2 * p_i, 0], axes[2 * p_i + 1, 0]
        for k_i, k in enumerate(kernels):
            off = (k_i - (len(kernels) - 1) / 2) * width
            ax_gf.bar(x + off, [_get(gf, m, k) for m in mats], width, label=KERNEL_LABELS[k])
            ax_bw.bar(x + off, [100 * _get(frac, m, k) for m in mats], width,
                      label=KERNEL_LABELS[k])
        labels = [f"{m}\n{fmt(v)}" for m, v in zip(mats, order["nnz_per_row"])]
        for ax in (ax_gf, ax_bw):
            ax.set_xticks(x)
            ax.set_xticklabels(labels, rotation=45, ha="right", rotation_mode="anchor", fontsize=7)
            ax.grid(True, axis="y", alpha=0.3)
        ax_bw.axhline(100.0, color="black", linestyle="--", linewidth=1, label="measured read BW")
        ax_gf.set_yscale("log")  # matrices span orders of magnitude in size and speed
        ax_gf.set_ylabel("GFlop/s (log scale)")
        ax_bw.set_ylabel("% of measured read bandwidth")
        ax_bw.set_xlabel("matrix (nnz/n), ordered by nnz/n")
        ax_gf.set_title(f"SpMV ({prec}) on {gpu_title(res.context)} - anzt2015 Table 3", pad=30)
        ax_gf.legend(fontsize=8, ncol=5, loc="lower center", bbox_to_anchor=(0.5, 1.06))
        ax_bw.legend(fontsize=8, ncol=6, loc="lower center", bbox_to_anchor=(0.5, 1.0))
    fig.tight_layout()
    return fig


def render_table3(res: kbench_results.Results, out_dir: str) -> List[str]:
    """CSR versus SELL-P SpMV table (anzt2015 Table 3) per precision, with summary and figure.
    Returns the paths written."""
    b = res.benchmarks
    spmv = b[b["study"] == "spmv"]
    if spmv.empty:
        raise ValueError("results file has no spmv benchmarks: nothing to tabulate for table3")
    precisions = sorted(spmv["precision"].dropna().unique(), key=lambda p: p != "double")
    text = header_block(res.context, f"anzt2015 Table 3: SpMV CSR vs SELL-P on "
                                     f"{gpu_title(res.context)}")
    text += ("Times are medians of the repetitions. s = T_cuSPARSE-CSR / T_SELL-P; "
             "zeta_M = 1 - T_SELL-P / T_CSR (anzt2015 Table 3; negative where SELL-P is slower); "
             "CSR ours is the faster of csr_scalar / csr_vector. Bandwidth from the traffic "
             "model in models/spmv_traffic.hpp.\n\n")
    l2_bytes = float(res.context.get("kbench", {}).get("gpu", {}).get("l2_cache_bytes", math.nan))
    for prec in precisions:
        rows = table3_rows(res, prec)
        text += _table3_markdown(rows, prec, l2_bytes)
        text += _bandwidth_markdown(res, prec, list(rows["matrix"]))
    errors = b[b["error_occurred"]]
    if len(errors):
        text += "**Benchmarks that reported an error**\n\n"
        text += "".join(f"- {r.run_name}: {r.error_message}\n" for r in errors.itertuples())
    return _write(out_dir, text, _table3_figure(res, precisions))


# ---------------------------------------------------------------- driver
RENDERERS: Dict[str, Callable[[kbench_results.Results, str], List[str]]] = {
    "anzt2015/table2": render_table2,
    "anzt2015/table3": render_table3,
}


def _write(out_dir: str, text: str, fig) -> List[str]:
    os.makedirs(out_dir, exist_ok=True)
    md, png = os.path.join(out_dir, "table.md"), os.path.join(out_dir, "figure.png")
    with open(md, "w", encoding="utf-8") as f:
        f.write(text)
    fig.savefig(png, dpi=120, bbox_inches="tight")
    plt.close(fig)
    return [md, png]


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("results", help="kbench results.json")
    parser.add_argument("--id", required=True, help="item to render: " + ", ".join(RENDERERS))
    parser.add_argument("--out-dir", required=True, help="directory for table.md, figure.png")
    args = parser.parse_args(argv)
    renderer = RENDERERS.get(args.id)
    if renderer is None:
        print(f"render.py: unknown id {args.id!r}; known ids: {', '.join(RENDERERS)}",
              file=sys.stderr)
        return 2
    try:
        res = kbench_results.load(args.results)
        paths = renderer(res, args.out_dir)
    except (OSError, ValueError) as e:
        print(f"render.py: {e}", file=sys.stderr)
        return 1
    for p in paths:
        print(p)
    return 0


if __name__ == "__main__":
    sys.exit(main())
