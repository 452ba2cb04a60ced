"""anzt2015 SpMV study: CSR versus SELL-P (anzt2015 Sec. 4).

  anzt2015/table2  matrix properties (Sec. 4.1, Table 2) with SELL-P padding overhead, from
                   context.kbench.matrices; figure: nnz/n versus n by source kind.
  anzt2015/table3  SpMV performance (Sec. 4.2, Table 3): GFlop/s, speedup s, improvement
                   zeta_M = 1 - T_sellp/T_csr, achieved bandwidth; where measured, the automatic
                   kernel choice (`auto`) against cuSPARSE CSR and the best of our kernels, and
                   the time model (counter model_us) against the measured times; figure:
                   GFlop/s and % of measured read bandwidth per kernel and matrix, predicted
                   versus measured time.
"""

from __future__ import annotations

import math
from typing import Any, Dict, List, Optional

import numpy as np
import pandas as pd

import kbench_results
from model_point import ModelPoint
from report import (NA, fmt, fmt_int, fmt_pct, geomean, gpu_title, header_block,
                    markdown_table, missing, new_figure, write_outputs)

# SpMV kernels in display order: ours, the automatic choice, the vendor baselines.
OUR_CSR = ["csr_scalar", "csr_vector", "csr_adaptive"]
OURS = OUR_CSR + ["sellp"]  # "best of ours" is the fastest of these (auto is compared to it)
AUTO = "auto"
MERGE, ALG2 = "csr_merge", "cusparse_csr_alg2"  # merge-based CSR, ours and cuSPARSE's
KERNELS = OURS + [MERGE, AUTO, "cusparse_csr", ALG2, "cusparse_sell"]
MODELED = OURS + [AUTO]  # kernels whose benchmarks may carry the counter model_us
KERNEL_LABELS = {"csr_scalar": "CSR scalar", "csr_vector": "CSR vector",
                 "csr_adaptive": "CSR adaptive", "sellp": "SELL-P", AUTO: "auto",
                 "cusparse_csr": "cuSPARSE CSR", "cusparse_sell": "cuSPARSE SELL",
                 MERGE: "CSR merge", ALG2: "cuSPARSE CSR ALG2"}
KERNEL_COLORS = {"csr_scalar": "C0", "csr_vector": "C1", "sellp": "C2", "cusparse_csr": "C3",
                 "cusparse_sell": "C4", "csr_adaptive": "C5", AUTO: "C9", MERGE: "C6",
                 ALG2: "C7"}
DENSE_NNZ_PER_ROW = 20.0  # summary threshold: rows long enough to fill SELL-P's threads
LARGE_N = 1_000_000       # auto summary: matrices with at least this many rows
AUTO_NEAR_BEST = 0.9      # auto summary: small matrices where auto reaches this x best of ours
MERGE_VS_ALG2_GOAL = 0.95  # issue 29: the merge-based kernel at >= 0.95x cuSPARSE's (ALG2)
# auto's parameters shown in its table cell, in this order: params key -> short name
_CHOICE_KEYS = {"slice_height": "b", "threads_per_row": "t", "sigma": "σ", "subwarp": "subwarp"}


# ---------------------------------------------------------------- anzt2015/table2
def _source_text(r: pd.Series) -> str:
    """'real', 'replicated (<seed file>)' or 'generated (<generator>)'."""
    if r["source_kind"] == "real":
        return "real"
    if r["source_kind"] == "replicated":
        seed = (r["spec"] or {}).get("params", {}).get("file", "")
        return f"replicated ({seed})" if seed else "replicated"
    return f"generated ({r['source']})"


def _table2_figure(res: kbench_results.Results):
    m = res.matrices
    fig, ax = new_figure(figsize=(8, 5))
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
    return fig


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
        if sigma != 1 and not missing(sigma):
            params += f", sigma={fmt_int(sigma)}"
        thr = r.get("sellp_long_row_threshold")
        if not missing(thr) and thr != 0:
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
    return write_outputs(out_dir, text, lambda: _table2_figure(res))


# ---------------------------------------------------------------- anzt2015/table3
def _spmv(res: kbench_results.Results, precision: str) -> pd.DataFrame:
    """The spmv benchmark rows of one precision (errored ones included)."""
    b = res.benchmarks
    return b[(b["study"] == "spmv") & (b["precision"] == precision)]


def _per_kernel(b: pd.DataFrame, column: str) -> pd.DataFrame:
    """matrix x kernel table of `column` from the benchmark rows of one precision."""
    ok = b[~b["error_occurred"]]
    return ok.pivot_table(index="matrix", columns="kernel", values=column, aggfunc="first")


def _get(table: pd.DataFrame, matrix: str, kernel: Optional[str]) -> float:
    if kernel in table.columns and matrix in table.index:
        v = table.at[matrix, kernel]
        return float(v) if v is not None else math.nan
    return math.nan


def _params(b: pd.DataFrame, matrix: str, kernel: str) -> Dict[str, Any]:
    """kbench.params of the (non-errored) benchmark of `kernel` on `matrix`; {} if none."""
    hit = b[(b["matrix"] == matrix) & (b["kernel"] == kernel) & ~b["error_occurred"]]
    return (hit.iloc[0]["params"] or {}) if len(hit) else {}


def _fastest(times: Dict[str, float]) -> Optional[str]:
    """The kernel of the smallest time that is not NaN; None if none."""
    return min((k for k, v in times.items() if not math.isnan(v)), key=lambda k: times[k],
               default=None)


def auto_choice(params: Dict[str, Any]) -> str:
    """What auto ran, from its benchmark's params: 'sellp b=64 t=1 σ=1024',
    'csr_vector subwarp=8', 'csr_adaptive'."""
    kernel = params.get("kernel") or "?"
    p = params.get("params") or {}
    shown = []
    for key, short in _CHOICE_KEYS.items():
        if key in p and not missing(p[key]):
            v = p[key]
            whole = isinstance(v, (int, float)) and float(v).is_integer()
            shown.append(f"{short}={int(v) if whole else v}")
    return " ".join([kernel, *shown])


def table3_rows(res: kbench_results.Results, precision: str) -> pd.DataFrame:
    """Per matrix of one precision, the Table 3 quantities, ordered by nnz/n. Times in us,
    GFlop/s and GB/s per 1e9; zeta and bandwidth fractions as fractions (not %); auto columns
    NaN/None where auto was not measured."""
    b = _spmv(res, precision)
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
        csr_best = _fastest({k: _get(t, mat, k) for k in OUR_CSR})
        best = _fastest({k: _get(t, mat, k) for k in OURS})
        t_best = _get(t, mat, best)
        t_sellp, t_cus, t_auto = (_get(t, mat, k) for k in ("sellp", "cusparse_csr", AUTO))
        t_csr = _get(t, mat, csr_best)
        gbps_sellp = _get(gb, mat, "sellp")
        f_read, f_triad = _get(frd, mat, "sellp"), _get(ftr, mat, "sellp")
        if math.isnan(f_read) and machine.get("read_gbps"):
            f_read = gbps_sellp / machine["read_gbps"]
        if math.isnan(f_triad) and machine.get("triad_gbps"):
            f_triad = gbps_sellp / machine["triad_gbps"]
        out.append({
            "matrix": mat, "n": n, "nnz_per_row": nnz_row,
            "csr_kernel": csr_best, "gflops_csr": _get(gf, mat, csr_best),
            "gflops_cusparse_csr": _get(gf, mat, "cusparse_csr"),
            "gflops_sellp": _get(gf, mat, "sellp"),
            "gflops_cusparse_sell": _get(gf, mat, "cusparse_sell"),
            "speedup": t_cus / t_sellp,                    # s = T_csr / T_sellp
            "zeta": 1.0 - t_sellp / t_cus,                 # zeta_M vs cuSPARSE CSR
            "zeta_ours": 1.0 - t_sellp / t_csr,            # zeta_M vs our best CSR
            "gbps_sellp": gbps_sellp, "frac_read_sellp": f_read, "frac_triad_sellp": f_triad,
            "best_kernel": best,
            "best_ratio": t_cus / t_best,
            "err_sellp": _get(err, mat, "sellp"),
            "bytes_sellp": _get(traffic, mat, "sellp"),
            "gflops_auto": _get(gf, mat, AUTO),
            "auto_choice": None if math.isnan(t_auto) else auto_choice(_params(b, mat, AUTO)),
            "auto_vs_cusparse": t_cus / t_auto,            # above 1: auto is faster
            "auto_vs_best": t_best / t_auto,
            # the merge-based kernels and the best cuSPARSE CSR algorithm (ALG1 or ALG2)
            "gflops_merge": _get(gf, mat, MERGE),
            "gflops_alg2": _get(gf, mat, ALG2),
            "merge_vs_alg2": _get(t, mat, ALG2) / _get(t, mat, MERGE),
            "auto_vs_cusparse_best": np.fmin(t_cus, _get(t, mat, ALG2)) / t_auto,
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


def auto_summary(rows: pd.DataFrame, l2_bytes: float = math.nan) -> Dict[str, Any]:
    """auto against cuSPARSE CSR over the matrices with n >= LARGE_N (count, minimum and its
    matrix, geometric mean, [(matrix, ratio)] below 1), and against the best of ours over the
    small matrices, those whose SELL-P traffic is below `l2_bytes` (launch and latency bound):
    count, how many reach AUTO_NEAR_BEST, [(matrix, ratio)] below it."""
    large = rows[(rows["n"] >= LARGE_N) & rows["auto_vs_cusparse"].notna()]
    small = rows[(rows["bytes_sellp"] < l2_bytes) & rows["auto_vs_best"].notna()]
    low = large.loc[large["auto_vs_cusparse"].idxmin()] if len(large) else None
    return {
        "large_count": int(len(large)),
        "large_min": math.nan if low is None else float(low["auto_vs_cusparse"]),
        "large_min_matrix": None if low is None else low["matrix"],
        "large_geomean": geomean(large["auto_vs_cusparse"]),
        "large_below": [(r.matrix, r.auto_vs_cusparse) for r in large.itertuples()
                        if r.auto_vs_cusparse < 1.0],
        "small_count": int(len(small)),
        "small_near": int((small["auto_vs_best"] >= AUTO_NEAR_BEST).sum()),
        "small_below": [(r.matrix, r.auto_vs_best) for r in small.itertuples()
                        if r.auto_vs_best < AUTO_NEAR_BEST],
    }


def _listing(pairs) -> str:
    return ", ".join(f"{m} ({fmt(v)})" for m, v in pairs) or "none"


def _auto_markdown(rows: pd.DataFrame, l2_bytes: float) -> str:
    a = auto_summary(rows, l2_bytes)
    text = f"- auto / cuSPARSE CSR over the {a['large_count']} matrices with n >= {LARGE_N:,}: "
    if a["large_count"]:
        text += (f"minimum {fmt(a['large_min'])} ({a['large_min_matrix']}), geometric mean "
                 f"{fmt(a['large_geomean'])}; below 1.0: {_listing(a['large_below'])}\n")
    else:
        text += "none measured\n"
    text += (f"- Small matrices (SELL-P traffic below the {fmt(l2_bytes / 1e6)} MB L2 cache: "
             f"launch and latency bound): auto reaches >= {AUTO_NEAR_BEST:g} x the best of "
             f"ours on {a['small_near']} of {a['small_count']}; below: "
             f"{_listing(a['small_below'])}\n")
    return text


def _runs_best_vendor(r: Any) -> bool:
    """Whether auto ran the faster of cuSPARSE's CSR ALG1 and ALG2 itself (its choice names that
    kernel), so that auto / best cuSPARSE CSR compares two timings of one kernel."""
    alg1, alg2 = r.gflops_cusparse_csr, r.gflops_alg2
    best = ALG2 if not math.isnan(alg2) and (math.isnan(alg1) or alg2 > alg1) else "cusparse_csr"
    return str(r.auto_choice or "").split(" ")[0] == best


def merge_summary(rows: pd.DataFrame) -> Dict[str, Any]:
    """Over the matrices with n >= LARGE_N where auto and a cuSPARSE CSR algorithm ran: auto
    against the faster of cuSPARSE's CSR ALG1 and ALG2 (count, minimum and its matrix, geometric
    mean, [(matrix, ratio, auto ran cuSPARSE's kernel)] below 1); over every matrix with both:
    CSR merge against cuSPARSE ALG2 (count, geometric mean, minimum and its matrix,
    [(matrix, ratio)] below MERGE_VS_ALG2_GOAL)."""
    large = rows[(rows["n"] >= LARGE_N) & rows["auto_vs_cusparse_best"].notna()]
    low = large.loc[large["auto_vs_cusparse_best"].idxmin()] if len(large) else None
    both = rows[rows["merge_vs_alg2"].notna()]
    mlow = both.loc[both["merge_vs_alg2"].idxmin()] if len(both) else None
    return {
        "auto_count": int(len(large)),
        "auto_min": math.nan if low is None else float(low["auto_vs_cusparse_best"]),
        "auto_min_matrix": None if low is None else low["matrix"],
        "auto_geomean": geomean(large["auto_vs_cusparse_best"]),
        "auto_below": [(r.matrix, r.auto_vs_cusparse_best, _runs_best_vendor(r))
                       for r in large.itertuples() if r.auto_vs_cusparse_best < 1.0],
        "merge_count": int(len(both)),
        "merge_geomean": geomean(both["merge_vs_alg2"]),
        "merge_min": math.nan if mlow is None else float(mlow["merge_vs_alg2"]),
        "merge_min_matrix": None if mlow is None else mlow["matrix"],
        "merge_below": [(r.matrix, r.merge_vs_alg2) for r in both.itertuples()
                        if r.merge_vs_alg2 < MERGE_VS_ALG2_GOAL],
    }


def _merge_markdown(rows: pd.DataFrame, precision: str) -> str:
    """The merge-based kernels and auto against the best cuSPARSE CSR algorithm; empty when the
    run measured neither csr_merge nor cuSPARSE ALG2."""
    if not (rows["gflops_merge"].notna().any() or rows["gflops_alg2"].notna().any()):
        return ""
    headers = ["Matrix", "n", "nnz/n", "CSR merge GFlop/s", "cuSPARSE CSR (ALG1) GFlop/s",
               "cuSPARSE CSR ALG2 GFlop/s", "CSR merge / ALG2", "auto GFlop/s (choice)",
               "auto / best cuSPARSE CSR"]
    body = []
    for _, r in rows.iterrows():
        choice = f" ({r['auto_choice']})" if r["auto_choice"] else ""
        body.append([r["matrix"], fmt_int(r["n"]), fmt(r["nnz_per_row"]),
                     fmt(r["gflops_merge"]), fmt(r["gflops_cusparse_csr"]),
                     fmt(r["gflops_alg2"]), fmt(r["merge_vs_alg2"]),
                     fmt(r["gflops_auto"]) + choice, fmt(r["auto_vs_cusparse_best"])])
    m = merge_summary(rows)
    vendor_note = ": auto runs that cuSPARSE kernel, the gap is run-to-run noise"
    below = ", ".join(f"{mat} ({fmt(v)}{vendor_note if vendor else ''})"
                      for mat, v, vendor in m["auto_below"]) or "none"
    text = (f"### Merge-based CSR and the best cuSPARSE CSR algorithm ({precision})\n\n"
            "CSR merge: kbench's merge-based CSR (Merrill and Garland, SC16); cuSPARSE ALG2: "
            "cuSPARSE's merge-based CSR; best cuSPARSE CSR = the faster of ALG1 and ALG2 "
            "(ratios above 1: the first is faster).\n\n" + markdown_table(headers, body))
    where = f" ({m['auto_min_matrix']})" if m["auto_min_matrix"] else ""
    mwhere = f" ({m['merge_min_matrix']})" if m["merge_min_matrix"] else ""
    text += (f"\n- auto / best cuSPARSE CSR over the {m['auto_count']} matrices with n >= "
             f"{LARGE_N:,}: minimum {fmt(m['auto_min'])}{where}, geometric mean "
             f"{fmt(m['auto_geomean'])}; below 1.0: {below}\n"
             f"- CSR merge / cuSPARSE ALG2 over {m['merge_count']} matrices: geometric mean "
             f"{fmt(m['merge_geomean'])}, minimum {fmt(m['merge_min'])}{mwhere}; below "
             f"{MERGE_VS_ALG2_GOAL:g} (issue 29's goal): {_listing(m['merge_below'])}\n")
    return text + "\n"


def _table3_markdown(rows: pd.DataFrame, precision: str, l2_bytes: float) -> str:
    has_auto = bool(rows["gflops_auto"].notna().any())
    headers = ["Matrix", "n", "nnz/n", "CSR ours GFlop/s (kernel)", "cuSPARSE CSR GFlop/s",
               "SELL-P GFlop/s", "cuSPARSE SELL GFlop/s", "speedup s (SELL-P vs cuSPARSE CSR)",
               "zeta_M vs cuSPARSE CSR", "zeta_M vs our CSR", "SELL-P GB/s",
               "SELL-P % read BW", "SELL-P % triad BW", "best ours / cuSPARSE CSR (kernel)"]
    if has_auto:
        headers += ["auto GFlop/s (choice)", "auto / cuSPARSE CSR", "auto / best ours"]
    headers.append("SELL-P max rel. error")
    body = []
    for _, r in rows.iterrows():
        csr_k = r["csr_kernel"].replace("csr_", "") if r["csr_kernel"] else NA
        cells = [r["matrix"], fmt_int(r["n"]), fmt(r["nnz_per_row"]),
                 f"{fmt(r['gflops_csr'])} ({csr_k})", fmt(r["gflops_cusparse_csr"]),
                 fmt(r["gflops_sellp"]), fmt(r["gflops_cusparse_sell"]), fmt(r["speedup"]),
                 fmt_pct(r["zeta"]), fmt_pct(r["zeta_ours"]), fmt(r["gbps_sellp"]),
                 fmt_pct(r["frac_read_sellp"]), fmt_pct(r["frac_triad_sellp"]),
                 f"{fmt(r['best_ratio'])} ({r['best_kernel'] or NA})"]
        if has_auto:
            choice = f" ({r['auto_choice']})" if r["auto_choice"] else ""
            cells += [fmt(r["gflops_auto"]) + choice, fmt(r["auto_vs_cusparse"]),
                      fmt(r["auto_vs_best"])]
        body.append(cells + [fmt(r["err_sellp"])])
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
        f"({fmt(l2_bytes / 1e6)} MB): SELL-P reaches {fmt_pct(s['big_mean_frac_read'])} of "
        f"measured read bandwidth (mean; minimum {fmt_pct(s['big_min_frac_read'])}); SELL-P / "
        f"cuSPARSE CSR geometric mean {fmt(s['big_geomean_speedup'])}\n")
    if has_auto:
        text += _auto_markdown(rows, l2_bytes)
    return text + "\n"


def _bandwidth_markdown(b: pd.DataFrame, precision: str, order: List[str]) -> str:
    """Achieved bandwidth of every kernel per matrix: GB/s and % of measured read bandwidth."""
    gb, frac = _per_kernel(b, "GBps"), _per_kernel(b, "bw_frac_read")
    kernels = [k for k in KERNELS if k in gb.columns]
    headers = ["Matrix"] + [f"{KERNEL_LABELS[k]} GB/s (% read BW)" for k in kernels]
    body = [[m] + [f"{fmt(_get(gb, m, k))} ({fmt_pct(_get(frac, m, k))})" for k in kernels]
            for m in order]
    return (f"### Achieved bandwidth ({precision})\n\nBytes of the traffic model over the median "
            "time, and their fraction of the measured read-only bandwidth.\n\n"
            + markdown_table(headers, body) + "\n")


def _modeled(b: pd.DataFrame) -> pd.DataFrame:
    """Non-errored benchmark rows of MODELED kernels with a positive model_us and time."""
    ok = b[~b["error_occurred"] & b["kernel"].isin(MODELED)]
    return ok[(ok["model_us"] > 0) & (ok["time_us"] > 0)]


def model_accuracy(b: pd.DataFrame, order: List[str]) -> pd.DataFrame:
    """Per modeled kernel (MODELED order) of the rows `b` of one precision: matrices, median of
    |model_us / time_us - 1|, median of model_us / time_us, and the matrix (first in `order`
    on ties) with the largest |model_us / time_us - 1| and its ratio. Empty without model_us."""
    m = _modeled(b)
    out = []
    for k in [k for k in MODELED if k in set(m["kernel"])]:
        g = m[m["kernel"] == k]
        g = g.assign(ratio=g["model_us"] / g["time_us"], pos=g["matrix"].map(
            {name: i for i, name in enumerate(order)}).fillna(len(order)))
        g = g.assign(dev=(g["ratio"] - 1.0).abs()).sort_values("pos", kind="stable")
        worst = g.loc[g["dev"].idxmax()]
        out.append({"kernel": k, "count": len(g), "median_abs_dev": float(g["dev"].median()),
                    "median_ratio": float(g["ratio"].median()), "worst_matrix": worst["matrix"],
                    "worst_ratio": float(worst["ratio"])})
    return pd.DataFrame(out)


def _model_markdown(b: pd.DataFrame, precision: str, order: List[str]) -> str:
    acc = model_accuracy(b, order)
    if acc.empty:
        return ""
    headers = ["Kernel", "matrices", "median abs(predicted / measured - 1)",
               "median predicted / measured", "worst: matrix (predicted / measured)"]
    body = [[KERNEL_LABELS[r.kernel], str(r.count), fmt_pct(r.median_abs_dev),
             fmt(r.median_ratio), f"{r.worst_matrix} ({fmt(r.worst_ratio)})"]
            for r in acc.itertuples()]
    return (f"### Model vs measured ({precision})\n\nPredicted time of each benchmark's "
            "configuration (counter model_us, models/spmv_time.hpp) over its measured median "
            "time; below 1 the model is optimistic.\n\n" + markdown_table(headers, body) + "\n")


def _bar_panels(ax_gf, ax_bw, b: pd.DataFrame, order: pd.DataFrame) -> None:
    """GFlop/s and % of read bandwidth bars per kernel and matrix, matrices in `order`."""
    mats = list(order["matrix"])
    kernels = [k for k in KERNELS if k in set(b["kernel"])]
    gf, frac = _per_kernel(b, "GFlops"), _per_kernel(b, "bw_frac_read")
    x = np.arange(len(mats))
    width = 0.8 / max(len(kernels), 1)
    for k_i, k in enumerate(kernels):
        off = (k_i - (len(kernels) - 1) / 2) * width
        style = {"label": KERNEL_LABELS[k], "color": KERNEL_COLORS[k]}
        ax_gf.bar(x + off, [_get(gf, m, k) for m in mats], width, **style)
        ax_bw.bar(x + off, [100 * _get(frac, m, k) for m in mats], width, **style)
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
    ax_gf.legend(fontsize=8, ncol=7, loc="lower center", bbox_to_anchor=(0.5, 1.0))
    ax_bw.legend(fontsize=8, ncol=8, loc="lower center", bbox_to_anchor=(0.5, 1.0))


def _model_panel(ax, m: pd.DataFrame, precision: str) -> None:
    """Predicted (model_us) versus measured time, log-log, with the line y = x."""
    for k in [k for k in MODELED if k in set(m["kernel"])]:
        g = m[m["kernel"] == k]
        ax.scatter(g["time_us"], g["model_us"], s=18, label=KERNEL_LABELS[k],
                   color=KERNEL_COLORS[k], marker="x" if k == AUTO else "o")
    lo = float(min(m["time_us"].min(), m["model_us"].min())) / 1.5
    hi = float(max(m["time_us"].max(), m["model_us"].max())) * 1.5
    ax.plot([lo, hi], [lo, hi], color="black", linestyle="--", linewidth=1, label="y = x")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    ax.set_box_aspect(1)
    ax.set_xlabel("measured median time (us)")
    ax.set_ylabel("predicted time, model_us (us)")
    ax.set_title(f"Time model vs measured ({precision})")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left")


def _table3_figure(res: kbench_results.Results, precisions: List[str]):
    parts = []  # (precision, ok benchmark rows, row order, modeled rows) per precision
    for prec in precisions:
        b = _spmv(res, prec)
        b = b[~b["error_occurred"]]
        parts.append((prec, b, table3_rows(res, prec), _modeled(b)))
    n_axes = sum(3 if len(m) else 2 for *_, m in parts)
    fig, axes = new_figure(n_axes, 1, figsize=(11, 4 * n_axes), squeeze=False)
    i = 0
    for prec, b, order, m in parts:
        _bar_panels(axes[i, 0], axes[i + 1, 0], b, order)
        axes[i, 0].set_title(f"SpMV ({prec}) on {gpu_title(res.context)} - anzt2015 Table 3",
                             pad=30)
        if len(m):
            _model_panel(axes[i + 2, 0], m, prec)
        i += 3 if len(m) else 2
    fig.tight_layout()
    return fig


def render_table3(res: kbench_results.Results, out_dir: str) -> List[str]:
    """CSR versus SELL-P SpMV table (anzt2015 Table 3) per precision, with summary, the auto
    columns and model accuracy where measured, and figure. Returns the paths written."""
    b = res.benchmarks
    spmv = b[b["study"] == "spmv"]
    if spmv.empty:
        raise ValueError("results file has no spmv benchmarks: nothing to tabulate for table3")
    precisions = sorted(spmv["precision"].dropna().unique(), key=lambda p: p != "double")
    present = set(spmv["kernel"])
    csr = [k for k in OUR_CSR if k in present]
    text = header_block(res.context, f"anzt2015 Table 3: SpMV CSR vs SELL-P on "
                                     f"{gpu_title(res.context)}")
    text += ("Times are medians of the repetitions. s = T_cuSPARSE-CSR / T_SELL-P; "
             "zeta_M = 1 - T_SELL-P / T_CSR (anzt2015 Table 3; negative where SELL-P is slower); "
             f"CSR ours is the {'faster' if len(csr) == 2 else 'fastest'} of "
             f"{' / '.join(csr) or NA}. Bandwidth from the traffic "
             "model in models/spmv_traffic.hpp.")
    if AUTO in present:
        text += (" auto is the SpMV operator's automatic choice (the kernel and parameters it "
                 "ran in parentheses); auto / cuSPARSE CSR = T_cuSPARSE-CSR / T_auto and auto / "
                 "best ours = T_best-ours / T_auto, with best ours the fastest of "
                 f"{', '.join(k for k in OURS if k in present)} (above 1: auto is faster).")
    text += "\n\n"
    l2_bytes = float(res.context.get("kbench", {}).get("gpu", {}).get("l2_cache_bytes", math.nan))
    for prec in precisions:
        rows = table3_rows(res, prec)
        order = list(rows["matrix"])
        text += _table3_markdown(rows, prec, l2_bytes)
        text += _merge_markdown(rows, prec)
        text += _bandwidth_markdown(_spmv(res, prec), prec, order)
        text += _model_markdown(_spmv(res, prec), prec, order)
    errors = b[b["error_occurred"]]
    if len(errors):
        text += "**Benchmarks that reported an error**\n\n"
        text += "".join(f"- {r.run_name}: {r.error_message}\n" for r in errors.itertuples())
    return write_outputs(out_dir, text, lambda: _table3_figure(res, precisions))


def table3_model_points(res: kbench_results.Results) -> List[ModelPoint]:
    """The rows of every precision's "Model vs measured" table of table3: per modeled kernel and
    matrix, the predicted time (counter model_us, models/spmv_time.hpp) and the measured median
    time, in us."""
    b = res.benchmarks
    spmv = b[b["study"] == "spmv"]
    out = []
    for prec in sorted(spmv["precision"].dropna().unique(), key=lambda p: p != "double"):
        for r in _modeled(_spmv(res, prec)).itertuples():
            out.append(ModelPoint("SpMV time (models/spmv_time.hpp)",
                                  f"{prec}/{r.kernel}/{r.matrix}", float(r.model_us),
                                  float(r.time_us), "us"))
    return out


MODEL_POINTS = {"anzt2015/table3": table3_model_points}

RENDERERS = {
    "anzt2015/table2": render_table2,
    "anzt2015/table3": render_table3,
}
