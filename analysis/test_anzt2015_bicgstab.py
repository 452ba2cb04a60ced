#!/usr/bin/env python3
"""Tests of the anzt2015 BiCGSTAB study renderers (analysis/studies/anzt2015_bicgstab.py:
table5 and fig11; anzt2015_bicgstab_profile.py: table4; anzt2015_traffic.py: table1) against
hand-computed values (unittest, standard library).

Run: /usr/bin/python3 analysis/test_anzt2015_bicgstab.py   (needs pandas and matplotlib)
Input: SYNTHETIC documents built below (invented numbers, not measurements).

Profile document: matrices small_a (n 2,000), big_c (n 2e6), mid_b (n 20,000), in that order.
Median seconds per iteration (us) of the solves:

  precision matrix   reference/csr merged/csr merged/auto graph/auto  model (us)   lower bound
  double    small_a  100           60         50 (sellp)  20
  double    big_c    1000          900        800         790         ref 900,     700
                                                                      merged/auto 880
  double    mid_b    200           150        120         80
  single    small_a  80            -          40 non_finite  -
  single    big_c    700           600        500         490

double: fusion / SpMV / total / graph total = 40/10/50/80 % (small_a), 10/10/20/21 % (big_c),
25/15/40/60 % (mid_b). Predictions (double) have SpMV + dot shares 0.6 (small_a), 0.9 (big_c),
0.3 (mid_b) and eq. 5 predictions 0.45, 0.35, 0.42.

Traffic document: n = 1,000 double values (unit 8,000 bytes); the model is the paper's Table 1
(25n + 9n and 14n + 4n) with exact multiples of n; the measured bytes equal the model except line
4 (scal p), which reads 3n instead of n; each SpMV reads 30n and writes n.
"""

import contextlib
import copy
import io
import unittest
from typing import Any, Dict, List

from testutil import RenderTestCase, header_cells, table_row

import kbench_results  # noqa: E402  (testutil put analysis/ on sys.path)
import render  # noqa: E402
from report import NA  # noqa: E402
from studies import anzt2015_bicgstab as study  # noqa: E402

IDS = ("anzt2015/table1", "anzt2015/table4", "anzt2015/table5", "anzt2015/fig11")
US = 1e-6


def matrix(n: int, nnz: int) -> Dict[str, Any]:
    return {"source": "laplacian_2d_5pt", "stands_for": "", "spec": {},
            "stats": {"num_rows": n, "num_cols": n, "nnz": nnz}}


def context(item: str, **extra: Any) -> Dict[str, Any]:
    """A kbench context (both schema versions) of results id `item`, with `extra` keys added to
    context.kbench."""
    kb = {"schema_version": 1, "argv": ["kbench", "reproduce", item], "id": item,
          "git": {"sha": "0123456789abcdef0123456789abcdef01234567", "dirty": False},
          "gpu": {"name": "Synthetic GPU", "sm_count": 132, "compute_capability": 90,
                  "driver_version": 13000, "runtime_version": 13000, "ecc_enabled": True,
                  "l2_cache_bytes": 52428800},
          "machine": {"read_gbps": 4000.0, "triad_gbps": 3800.0, "launch_latency_us": 2.0,
                      "launch_sync_roundtrip_us": 5.0, "reduction_roundtrip_latency_us": 10.0,
                      "graph_node_us": 1.0},
          "cache_mode": "hot",
          "matrix_set": {"name": "synthetic", "manifest": "", "matrix_dir": ""},
          "matrices": {}}
    kb.update(extra)
    return {"date": "2025-01-01T00:00:00+00:00", "host_name": "synthetic",
            "kbench_schema_version": 1, "kbench": kb}


# ---------------------------------------------------------------- profile document
FORMS = [("reference", "cusparse_csr"), ("merged", "cusparse_csr"), ("merged", "auto"),
         ("graph", "auto")]
N = {"small_a": 2000, "big_c": 2_000_000, "mid_b": 20_000}
TIMES_US = {  # (precision, matrix): per-iteration us per FORMS entry, None = not run
    ("double", "small_a"): [100, 60, 50, 20],
    ("double", "big_c"): [1000, 900, 800, 790],
    ("double", "mid_b"): [200, 150, 120, 80],
    ("single", "small_a"): [80, None, 40, None],
    ("single", "big_c"): [700, 600, 500, 490],
}


def solve(form, policy, precision, mat, us, **extra) -> Dict[str, Any]:
    e = {"kind": "solve", "name": f"bicgstab/{form}/{policy}/{precision}/{mat}", "form": form,
         "spmv": {"policy": policy, "kernel": "sellp" if policy == "auto" else "cusparse_csr",
                  "params": {}},
         "precision": precision, "matrix": mat, "n": N[mat], "nnz": 5 * N[mat],
         "status": "max_iterations", "detail": "", "iterations": 1000, "timing_mode": True,
         "true_residual": 1e-3, "seconds": us * US * 1000, "seconds_per_iteration": us * US,
         "repetitions": 3}
    e.update(extra)
    return e


def phases(form, policy, precision, mat, iterations, groups) -> Dict[str, Any]:
    names = {"spmv": "SpMV v = A p", "dot": "dot rho = r0 r", "p_update": "scal p = beta p",
             "s_update": "axpy s -= alpha v", "xr_update": "axpy x += alpha p",
             "check": "stopping test"}
    return {"kind": "phases", "name": f"bicgstab-phases/{form}/{policy}/{precision}/{mat}",
            "form": form, "spmv": {"policy": policy, "kernel": "x", "params": {}},
            "precision": precision, "matrix": mat, "n": N[mat], "iterations": iterations,
            "seconds": sum(groups.values()),
            "phases": [{"name": names[g], "group": g, "seconds": s, "calls": 2 * iterations}
                       for g, s in groups.items()],
            "groups": groups}


def prediction(precision, mat, spmv, dot, zeta, paper_f, refit_f, pred, paper_pred,
               measured) -> Dict[str, Any]:
    return {"kind": "prediction", "name": f"bicgstab-model/{precision}/{mat}",
            "precision": precision, "matrix": mat, "n": N[mat], "spmv_fraction": spmv,
            "dot_fraction": dot, "zeta_m": zeta,
            "dot_savings": {"paper": paper_f, "refit": refit_f},
            "predicted": dict(zip(("memory", "memory_dot", "memory_dot_spmv"), pred)),
            "predicted_paper_fit": {"memory_dot": paper_pred[0],
                                    "memory_dot_spmv": paper_pred[1]},
            "measured": measured}


def profile_doc(item: str) -> Dict[str, Any]:
    entries: List[Dict[str, Any]] = []
    for (prec, mat), times in TIMES_US.items():
        for (form, policy), us in zip(FORMS, times):
            if us is None:
                continue
            extra: Dict[str, Any] = {}
            if (prec, mat, form, policy) == ("single", "small_a", "merged", "auto"):
                extra = {"status": "non_finite", "detail": "rho is NaN", "iterations": 17}
            if (prec, mat) == ("double", "big_c") and form == "merged" and policy == "auto":
                extra = {"model": {"seconds_per_iteration": 880 * US, "spmv_s": 0, "dots_s": 0,
                                   "updates_s": 0, "host_s": 0},
                         "lower_bound_seconds_per_iteration": 700 * US}
            if (prec, mat) == ("double", "big_c") and form == "reference":
                extra = {"model": {"seconds_per_iteration": 900 * US}}
            entries.append(solve(form, policy, prec, mat, us, **extra))
    entries += [
        phases("reference", "cusparse_csr", "double", "small_a", 500,
               {"spmv": 0.1, "dot": 0.2, "p_update": 0.05, "s_update": 0.05,
                "xr_update": 0.1, "check": 0.0}),
        phases("merged", "auto", "double", "small_a", 1000,
               {"spmv": 0.05, "dot": 0.1, "p_update": 0.02, "s_update": 0.01,
                "xr_update": 0.02, "check": 0.05}),
        phases("reference", "cusparse_csr", "double", "big_c", 1000,
               {"spmv": 0.9, "dot": 0.05, "p_update": 0.02, "s_update": 0.01,
                "xr_update": 0.02, "check": 0.0}),
        phases("reference", "cusparse_csr", "single", "small_a", 1000,
               {"spmv": 0.1, "dot": 0.3, "p_update": 0.1, "s_update": 0.1,
                "xr_update": 0.4, "check": 0.0}),
        prediction("double", "small_a", 0.2, 0.4, 0.5, 0.3, 0.25,
                   (0.4 * 8 / 17, 0.288, 0.45), (0.31, 0.47),
                   {"fusion": 0.4, "total": 0.5, "spmv": 0.1, "graph_total": 0.8}),
        prediction("double", "big_c", 0.85, 0.05, 0.1, 0.08, 0.06,
                   (0.05 * 8 / 17, 0.03, 0.35), (0.03, 0.36),
                   {"fusion": 0.1, "total": 0.2, "spmv": 0.1, "graph_total": 0.21}),
        prediction("double", "mid_b", 0.2, 0.1, 0.3, 0.2, 0.15,
                   (0.7 * 8 / 17, 0.35, 0.42), (0.36, 0.43),
                   {"fusion": 0.25, "total": 0.4, "spmv": 0.15, "graph_total": 0.6}),
        prediction("single", "small_a", 0.1, 0.3, 0.5, 0.3, 0.25, (0.1, 0.2, 0.3),
                   (0.2, 0.3), {"fusion": None, "total": 0.5, "spmv": None,
                                "graph_total": None}),
    ]
    ctx = context(item,
                  matrices={m: matrix(n, 5 * n) for m, n in N.items()},
                  bicgstab={"iterations": 1000, "timing_mode": True, "repetitions": 3,
                            "rhs": "b = A * ones, x0 = 0", "precisions": ["double", "single"]},
                  dot_savings_fit={"paper": {"a": 1e-7, "b": 0.018, "c": 8.0},
                                   "refit": {"a": 2e-7, "b": 0.02, "c": 5.0},
                                   "points": [[1e4, 0.5], [1e5, 0.3], [1e6, 0.1]]})
    return {"context": ctx, "benchmarks": entries}


# ---------------------------------------------------------------- traffic document
# (line, kernel, role, merged_into, model reads / n, model writes / n) of paper Table 1
REFERENCE_ROWS = [
    (4, "scal p = beta p", "update", "p_update", 1, 1),
    (5, "axpy p -= omega beta v", "update", "p_update", 2, 1),
    (6, "axpy p += r", "update", "p_update", 2, 1),
    (7, "SpMV v = A p", "spmv", "", None, None),
    (8, "dot r0 v", "reduction", "reduce1", 2, 0),
    (9, "copy s = r", "update", "s_update", 1, 1),
    (10, "axpy s -= alpha v", "update", "s_update", 2, 1),
    (11, "SpMV t = A s", "spmv", "", None, None),
    (12, "dot t s", "reduction", "reduce2", 2, 0),
    (13, "dot t t", "reduction", "reduce2", 2, 0),
    (14, "axpy x += alpha p", "update", "xr_update+reduce3", 2, 1),
    (15, "axpy x += omega s", "update", "xr_update+reduce3", 2, 1),
    (16, "copy r = s", "update", "xr_update+reduce3", 1, 1),
    (17, "axpy r -= omega t", "update", "xr_update+reduce3", 2, 1),
    (18, "nrm2 r", "reduction", "xr_update+reduce3", 2, 0),
    (2, "dot r0 r", "reduction", "xr_update+reduce3", 2, 0),
]
MERGED_ROWS = [
    (0, "p_update", "update", "", 3, 1), (0, "SpMV v = A p", "spmv", "", None, None),
    (0, "reduce1", "reduction", "", 2, 0), (0, "s_update", "update", "", 2, 1),
    (0, "SpMV t = A s", "spmv", "", None, None), (0, "reduce2", "reduction", "", 2, 0),
    (0, "xr_update+reduce3", "update", "", 5, 2),
]
TN, VB = 1000, 8


def traffic(form, line, kernel, role, into, reads, writes) -> Dict[str, Any]:
    unit = TN * VB
    m_read = 30 * unit if reads is None else reads * unit
    m_write = 1 * unit if writes is None else writes * unit
    if line == 4:
        m_read = 3 * unit
    return {"kind": "traffic", "name": f"traffic/{form}/{kernel}", "form": form,
            "kernel": kernel, "role": role, "line": line, "merged_into": into,
            "model_bytes_read": None if reads is None else reads * unit,
            "model_bytes_written": None if writes is None else writes * unit,
            "measured_bytes_read": float(m_read), "measured_bytes_written": float(m_write),
            "launches": 1.0}


def traffic_doc() -> Dict[str, Any]:
    entries = [traffic("reference", *r) for r in REFERENCE_ROWS]
    entries += [traffic("merged", *r) for r in MERGED_ROWS]
    ctx = context("anzt2015/table1", matrices={"lap": matrix(TN, 5 * TN)},
                  table1={"matrix": "lap", "n": TN, "nnz": 5 * TN, "precision": "double",
                          "iterations_profiled": 10, "value_bytes": VB,
                          "ncu_metrics": ["dram__bytes_read.sum", "dram__bytes_write.sum"]})
    return {"context": ctx, "benchmarks": entries}


def drop(doc: Dict[str, Any], **match: Any) -> Dict[str, Any]:
    """doc without the entries whose keys equal all of `match` (form/policy as 'form',
    'policy')."""
    def hit(e):
        for k, v in match.items():
            got = (e.get("spmv") or {}).get("policy") if k == "policy" else e.get(k)
            if got != v:
                return False
        return True
    doc["benchmarks"] = [e for e in doc["benchmarks"] if not hit(e)]
    return doc


class Table4Test(RenderTestCase):
    def test_reference_profile_scaled_to_1000_iterations(self):
        md = self.render(profile_doc("anzt2015/table4"), "anzt2015/table4")
        self.assertIn("Synthetic GPU", md.splitlines()[0])
        self.assertIn("1,000 iterations per solve, timing mode on, median of 3 repetitions; "
                      "b = A * ones, x0 = 0; precisions double, single", md)
        headers = header_cells(md)
        self.assertEqual(headers, ["Matrix", "n", "iterations profiled", "total (s, 1000 it.)",
                                   "SpMV (s)", "dot (s)", "p update (s)", "s update (s)",
                                   "x + r update (s)"])
        # 0.5 s over 500 iterations -> 1.00 s for 1000; shares of 0.5 s
        self.assertEqual(table_row(md, "small_a †"), [
            "small_a †", "2,000", "500", "1.00", "0.200 (20.0 %)", "0.400 (40.0 %)",
            "0.100 (10.0 %)", "0.100 (10.0 %)", "0.200 (20.0 %)"])
        self.assertIn("† profiled fewer than the 1,000 planned iterations", md)
        self.assertEqual(table_row(md, "big_c")[3:5], ["1.00", "0.900 (90.0 %)"])
        self.assertLess(md.index("| small_a †"), md.index("| big_c |"))  # matrices order

    def test_merged_profile_has_check_column(self):
        md = self.render(profile_doc("anzt2015/table4"), "anzt2015/table4")
        self.assertIn("### merged form, automatic SpMV choice", md)
        merged = md[md.index("### merged form, automatic"):]
        self.assertEqual(header_cells(merged)[-1], "check (s)")
        # 0.25 s over 1000 iterations; check 0.05 s = 20 %
        self.assertEqual(table_row(merged, "small_a"), [
            "small_a", "2,000", "1,000", "0.250", "0.0500 (20.0 %)", "0.100 (40.0 %)",
            "0.0200 (8.00 %)", "0.0100 (4.00 %)", "0.0200 (8.00 %)", "0.0500 (20.0 %)"])
        # phases of the first matrix: 2 calls per iteration each
        self.assertIn("| scal p = beta p | p update | 2.00 | 10.0 % |", md)

    def test_single_precision_table(self):
        md = self.render(profile_doc("anzt2015/table4"), "anzt2015/table4")
        single = md[md.index("## Precision: single"):]
        self.assertEqual(table_row(single, "small_a")[3:5], ["1.00", "0.100 (10.0 %)"])


class Table5Test(RenderTestCase):
    def test_improvement_breakdown(self):
        md = self.render(profile_doc("anzt2015/table5"), "anzt2015/table5")
        headers = header_cells(md)
        self.assertEqual(headers[:6], ["Matrix", "n", "fusion (double)", "SpMV (double)",
                                       "total (double)", "graph total (double)"])
        self.assertEqual(table_row(md, "mid_b")[:6],
                         ["mid_b", "20,000", "25.0 %", "15.0 %", "40.0 %", "60.0 %"])
        # single small_a: merged/csr missing -> fusion and SpMV n/a; non_finite solve flagged
        row = table_row(md, "small_a †")
        self.assertEqual(row[2:], ["40.0 %", "10.0 %", "50.0 %", "80.0 %",
                                   NA, NA, "50.0 %", NA])
        self.assertEqual(table_row(md, "big_c")[6:],
                         ["14.3 %", "14.3 %", "28.6 %", "30.0 %"])  # 1 - 600/700, ...

    def test_times_model_and_lower_bound(self):
        md = self.render(profile_doc("anzt2015/table5"), "anzt2015/table5")
        double = md[md.index("### Per-iteration times and model (double)"):]
        headers = header_cells(double)
        col = {h: i for i, h in enumerate(headers)}
        small = table_row(double, "small_a")
        self.assertEqual(small[col["reference/csr (us/it)"]], "100")
        self.assertEqual(small[col["merged/auto (us/it)"]], "50.0 (sellp)")
        self.assertEqual(small[col["graph speedup (merged/auto / graph/auto)"]], "2.50")
        self.assertEqual(small[col["model merged/auto (us/it, error)"]], NA)
        big = table_row(double, "big_c")
        self.assertEqual(big[col["model merged/auto (us/it, error)"]], "880 (10.0 %)")
        self.assertEqual(big[col["model reference/csr (us/it, error)"]], "900 (-10.0 %)")
        self.assertEqual(big[col["merged/auto / lower bound"]], "1.14")  # 800 / 700
        single = md[md.index("### Per-iteration times and model (single)"):]
        self.assertEqual(table_row(single, "small_a")[2:6], ["80.0", NA, "40.0 (sellp) †", NA])
        self.assertIn("- † bicgstab/merged/auto/single/small_a: status non_finite after 17 of "
                      "1,000 iterations (rho is NaN); its per-iteration time is shown, its matrix "
                      "left out of the summary", md)
        # small_a's single-precision solve ended early: the single summary leaves it out
        single = md[md.index("**Summary (single)**"):]
        self.assertIn("- Left out of the lines below (†: a solve ended before the planned "
                      "iterations): small_a\n", single)
        self.assertIn("Total improvement (merged/auto vs reference/csr): 28.6 % (big_c) to "
                      "28.6 % (big_c)", single)

    def test_summary(self):
        md = self.render(profile_doc("anzt2015/table5"), "anzt2015/table5")
        self.assertIn("- Total improvement (merged/auto vs reference/csr): 20.0 % (big_c) to "
                      "50.0 % (small_a)\n", md)
        # n <= 23000: small_a 50/20 = 2.5, mid_b 120/80 = 1.5 -> sqrt(3.75) = 1.94
        self.assertIn("geometric mean over the 2 matrices with n <= 23,000: 1.94 (issue target "
                      ">= 2.00: not met)", md)
        self.assertIn("maximum over the 1 of 1 matrices with n >= 1,000,000 that have one: "
                      "1.14 (big_c) (issue target <= 1.15: met)", md)
        self.assertIn("a prediction: 10.0 % (big_c) (issue target <= 15.0 %: met)", md)
        # single: only small_a is small and it has no graph solve
        single = md[md.index("**Summary (single)**"):]
        self.assertIn("over the 0 matrices with n <= 23,000: n/a (issue target >= 2.00)", single)

    def test_missing_forms_fall_back_to_prediction_or_na(self):
        doc = drop(drop(profile_doc("anzt2015/table5"), kind="solve", form="graph"),
                   kind="solve", form="merged", policy="cusparse_csr", precision="double")
        md = self.render(doc, "anzt2015/table5")
        # fusion of double comes from the prediction entries' measured values
        self.assertEqual(table_row(md, "mid_b")[:6],
                         ["mid_b", "20,000", "25.0 %", "15.0 %", "40.0 %", "60.0 %"])
        double = md[md.index("### Per-iteration times and model (double)"):]
        self.assertEqual(table_row(double, "mid_b")[3], NA)        # merged/csr time
        self.assertEqual(table_row(double, "mid_b")[5:7], [NA, NA])  # graph time, speedup
        doc = drop(profile_doc("anzt2015/table5"), kind="prediction")
        doc = drop(drop(doc, kind="solve", form="graph"), kind="solve", form="merged",
                   policy="cusparse_csr")
        md = self.render(doc, "anzt2015/table5", out_name="no_predictions")
        self.assertEqual(table_row(md, "mid_b")[2:6], [NA, NA, "40.0 %", NA])


class Fig11Test(RenderTestCase):
    def test_ordered_by_share_with_errors_in_pp(self):
        md = self.render(profile_doc("anzt2015/fig11"), "anzt2015/fig11")
        pos = [md.index(f"| {m} |") for m in ("mid_b", "small_a", "big_c")]
        self.assertEqual(pos, sorted(pos))  # shares 0.3, 0.6, 0.9
        headers = header_cells(md)
        col = {h: i for i, h in enumerate(headers)}
        row = table_row(md, "small_a")
        self.assertEqual(row[col["SpMV + dot"]], "60.0 %")
        self.assertEqual(row[col["F(n) refit"]], "25.0 %")
        self.assertEqual(row[col["P memory (eq. 2)"]], "18.8 %")        # 0.4 x 8/17
        self.assertEqual(row[col["P memory + dot + SpMV (eq. 5)"]], "45.0 %")
        self.assertEqual(row[col["P eq. 5, paper F"]], "47.0 %")
        self.assertEqual(row[col["measured"]], "50.0 %")                 # 1 - 50/100
        self.assertEqual(row[col["error memory (pp)"]], "-31.2")         # 18.82 - 50
        self.assertEqual(row[col["error memory + dot (pp)"]], "-21.2")
        self.assertEqual(row[col["error memory + dot + SpMV (pp)"]], "-5.0")
        self.assertEqual(row[col["error eq. 5, paper F (pp)"]], "-3.0")
        self.assertEqual(table_row(md, "big_c")[col["error memory + dot + SpMV (pp)"]], "+15.0")
        self.assertIn("- P memory + dot + SpMV: max |error| 15.0 pp (big_c); 1 of 3 matrices "
                      "exceed 10.0 pp: big_c (issue target: <= 10 pp per matrix)", md)
        self.assertIn("they use the refit F(n)", md)
        self.assertIn("| refit on this GPU | 2.00e-07 | 0.0200 | 5.00 |  |", md)
        self.assertIn("Measured (n, savings) points for the refit: 3, n from 10,000 to 1,000,000",
                      md)
        self.assertNotIn("| single", md)

    def test_refit_error(self):
        doc = profile_doc("anzt2015/fig11")
        doc["context"]["kbench"]["dot_savings_fit"]["refit"] = {"error": "too few points"}
        for e in doc["benchmarks"]:
            if e["kind"] == "prediction":
                e["dot_savings"]["refit"] = None
        md = self.render(doc, "anzt2015/fig11")
        self.assertIn("| refit on this GPU | n/a | n/a | n/a | fit failed: too few points |", md)
        self.assertIn("they use the paper F(n) (no refit available)", md)
        col = header_cells(md).index("F(n) refit")
        self.assertEqual(table_row(md, "small_a")[col], NA)

    def test_measured_falls_back_to_prediction_without_solves(self):
        doc = drop(profile_doc("anzt2015/fig11"), kind="solve")
        md = self.render(doc, "anzt2015/fig11")
        col = header_cells(md).index("measured")
        self.assertEqual(table_row(md, "big_c")[col], "20.0 %")

    def test_rows_api_order_and_values(self):
        res = kbench_results.load(self.write(profile_doc("anzt2015/fig11")))
        rows = study.fig11_rows(res)
        self.assertEqual([r["matrix"] for r in rows], ["mid_b", "small_a", "big_c"])
        self.assertAlmostEqual(rows[0]["error"]["memory_dot_spmv"], 0.02, places=12)
        self.assertAlmostEqual(study.dot_savings({"a": 1e-7, "b": 0.018, "c": 8.0}, 1e5),
                               (1 / 0.028 + 8) / 100, places=12)


class Table1Test(RenderTestCase):
    def test_reference_rows_and_totals(self):
        md = self.render(traffic_doc(), "anzt2015/table1")
        self.assertIn("Matrix lap: n = 1,000, nnz = 5,000; precision double (8 bytes per "
                      "value); 10 iterations profiled", md)
        ref = md[md.index("## Reference form"):md.index("## Merged form")]
        self.assertEqual(header_cells(ref, "Kernel"), [
            "Kernel", "line", "merged into", "role", "launches / it.", "model reads (n)",
            "model writes (n)", "measured reads (n)", "measured writes (n)",
            "measured / model (reads + writes)"])
        self.assertEqual(table_row(ref, "scal p = beta p"), [
            "scal p = beta p", "4", "p_update", "update", "1.00", "1.00", "1.00", "3.00",
            "1.00", "2.00"])
        self.assertEqual(table_row(ref, "SpMV v = A p")[5:], [NA, NA, "30.00", "1.00", NA])
        # document order (the model's table order): line 2, the next iteration's rho, last
        self.assertGreater(ref.index("| dot r0 r |"), ref.index("| scal p = beta p |"))
        self.assertLess(ref.index("| axpy r -= omega t |"), ref.index("| nrm2 r |"))
        self.assertEqual(table_row(ref, "**sum, vector kernels**")[5:],
                         ["25.00", "9.00", "27.00", "9.00", "1.06"])  # 36 / 34
        self.assertEqual(table_row(ref, "**paper Table 1, vector kernels**")[5:7],
                         ["25.00", "9.00"])
        self.assertEqual(table_row(ref, "**sum, SpMVs**")[5:], [NA, NA, "60.00", "2.00", NA])

    def test_merged_rows_and_saving(self):
        md = self.render(traffic_doc(), "anzt2015/table1")
        merged = md[md.index("## Merged form"):]
        self.assertEqual(table_row(merged, "xr_update+reduce3")[1:],
                         ["-", "-", "update", "1.00", "5.00", "2.00", "5.00", "2.00", "1.00"])
        self.assertEqual(table_row(merged, "**sum, vector kernels**")[5:9],
                         ["14.00", "4.00", "14.00", "4.00"])
        self.assertEqual(table_row(merged, "**paper Table 1, vector kernels**")[5:7],
                         ["14.00", "4.00"])
        # 36n -> 18n measured (50 %), 34n -> 18n model (47.1 %); with SpMVs 98n -> 80n
        self.assertIn("- vector kernels (SpMVs excluded, as in Table 1): measured 36.00 n -> "
                      "18.00 n, saving 50.0 %; model 34.00 n -> 18.00 n, saving 47.1 %; paper: "
                      "eta = 1 - 18n / 34n = 8/17 = 47.1 %", md)
        self.assertIn("- whole iteration (SpMVs included): measured 98.00 n -> 80.00 n, saving "
                      "18.4 %; model n/a n -> n/a n, saving n/a", md)

    def test_without_table1_context_units_are_na(self):
        doc = traffic_doc()
        del doc["context"]["kbench"]["table1"]
        md = self.render(doc, "anzt2015/table1")
        self.assertEqual(table_row(md, "p_update")[5:], [NA, NA, NA, NA, "1.00"])
        self.assertIn("Matrix n/a: n = n/a", md)


class EmptyAndHelpTest(RenderTestCase):
    def test_empty_entries_render_na(self):
        for item in IDS:
            doc = traffic_doc() if item == "anzt2015/table1" else profile_doc(item)
            doc["benchmarks"] = []
            md = self.render(doc, item)
            self.assertIn("n/a", md, item)

    def test_profile_without_fit_and_settings(self):
        doc = profile_doc("anzt2015/fig11")
        for key in ("bicgstab", "dot_savings_fit"):
            del doc["context"]["kbench"][key]
        for item in ("anzt2015/table4", "anzt2015/table5", "anzt2015/fig11"):
            md = self.render(copy.deepcopy(doc), item)
            self.assertIn("BiCGSTAB settings: n/a", md)
        self.assertIn("No context.kbench.dot_savings_fit in the results file: fit n/a.", md)

    def test_help_lists_the_ids(self):
        out = io.StringIO()
        with contextlib.redirect_stdout(out), self.assertRaises(SystemExit):
            render.main(["--help"])
        text = " ".join(out.getvalue().split())
        for item in IDS:
            self.assertIn(item, text)
        found = render.discover()
        for item, module in (("anzt2015/table1", "anzt2015_traffic"),
                             ("anzt2015/table4", "anzt2015_bicgstab_profile"),
                             ("anzt2015/table5", "anzt2015_bicgstab"),
                             ("anzt2015/fig11", "anzt2015_bicgstab")):
            self.assertEqual(found[item].module.__name__, "studies." + module)


if __name__ == "__main__":
    unittest.main()
