#!/usr/bin/env python3
"""Tests of the anzt2015 SpMV study renderers (analysis/studies/anzt2015_spmv.py): table2 and
table3 against hand-computed values (unittest, standard library).

Run: /usr/bin/python3 analysis/test_anzt2015_spmv.py   (needs pandas and matplotlib)
Input: analysis/testdata/synthetic_anzt2015.json, a SYNTHETIC results file (invented numbers,
see its "note"), double precision, cusparse_sell on lap2d_100 errored. Median times (us) and,
after '/', the model_us counter where there is one:

  matrix         n       nnz/n scalar vector  adaptive sellp   cus_csr cus_sell auto (choice)
  lap2d_100      10,000  4.96  6      9/18    6.5/6.5  7/5.6   4       err      6.5/5.2 (a)
  lap2d_1000     1e6     5.00  45     70      44/33    40/42   38      42       44/33 (a)
  lap3d_100      1e6     6.94  60     90      55/55    40/38   50      45       36/36 (s64)
  fv1            9,604   8.88  9      8/16    10/9     7.5/6.3 9       8        7.5/7.5 (s32)
  Trefethen_2000 2,000   21.0  20     10/20   12/13.2  8/8.8   12      9        10/5 (v16)
  s3rmt3m3_x100  535,700 38.7  400    130/260 100/90   80/76   120     90       80/76 (s32)
  auto's choices: a = csr_adaptive, s64 = sellp b=64 t=1 sigma=1024, s32 = sellp b=32 t=4
  sigma=1, v16 = csr_vector subwarp=16.

SELL-P traffic is below the 52.4 MB L2 for lap2d_100, fv1 and Trefethen_2000 only.
old_format() strips csr_adaptive, auto, model_us and the two n = 1e6 matrices: the shape of the
committed results files, with the four-matrix values of the first version of these tests.
"""

import contextlib
import io
import os
import unittest

from testutil import HERE, RenderTestCase, header_cells, png_size, table_row

import render  # noqa: E402  (testutil put analysis/ on sys.path)
from report import NA, fmt  # noqa: E402
from studies import anzt2015_spmv as study  # noqa: E402

COMMITTED = os.path.join(os.path.dirname(HERE), "results", "NVIDIA_H200", "anzt2015")


def old_format(doc: dict) -> dict:
    """`doc` as a results file from before csr_adaptive, auto and model_us, with the four
    matrices of n < 1e6."""
    new_mats = {"lap3d_100", "lap2d_1000"}
    doc["benchmarks"] = [b for b in doc["benchmarks"]
                         if b["kbench"]["kernel"] not in ("csr_adaptive", "auto")
                         and b["kbench"]["matrix"] not in new_mats]
    for b in doc["benchmarks"]:
        b.pop("model_us", None)
    for m in new_mats:
        del doc["context"]["kbench"]["matrices"][m]
    return doc


class Table3Test(RenderTestCase):
    def test_columns_and_hand_computed_row(self):
        md = self.render(self.doc, "anzt2015/table3")
        self.assertIn("Synthetic GPU", md.splitlines()[0])
        for text in ("driver 13.0, runtime 13.0", "read 4000 GB/s", "triad 3800 GB/s",
                     "cache mode: hot", "0123456789abcdef0123456789abcdef01234567 (dirty)",
                     "2025-01-01", "CSR ours is the fastest of csr_scalar / csr_vector / "
                     "csr_adaptive", "best ours the fastest of csr_scalar, csr_vector, "
                     "csr_adaptive, sellp"):
            self.assertIn(text, md)
        headers = header_cells(md)
        for h in ("n", "nnz/n", "CSR ours GFlop/s (kernel)", "cuSPARSE CSR GFlop/s",
                  "SELL-P GFlop/s", "cuSPARSE SELL GFlop/s", "zeta_M vs cuSPARSE CSR",
                  "zeta_M vs our CSR", "SELL-P GB/s", "SELL-P % read BW", "SELL-P % triad BW",
                  "SELL-P max rel. error"):
            self.assertIn(h, headers)
        col = {h: i for i, h in enumerate(headers)}
        row = table_row(md, "Trefethen_2000")
        flops = 2 * 41906
        self.assertEqual(row[col["n"]], "2,000")
        self.assertEqual(row[col["nnz/n"]], "21.0")                       # 41906 / 2000
        self.assertEqual(row[col["SELL-P GFlop/s"]], "10.5")              # flops / 8 us
        self.assertEqual(fmt(flops / 8e-6 * 1e-9), "10.5")
        self.assertEqual(row[col["CSR ours GFlop/s (kernel)"]], "8.38 (vector)")  # 10 < 12 < 20
        self.assertEqual(row[col["speedup s (SELL-P vs cuSPARSE CSR)"]], "1.50")  # 12 / 8
        self.assertEqual(row[col["zeta_M vs cuSPARSE CSR"]], "33.3 %")    # 1 - 8/12
        self.assertEqual(row[col["zeta_M vs our CSR"]], "20.0 %")         # 1 - 8/10
        self.assertEqual(row[col["best ours / cuSPARSE CSR (kernel)"]], "1.50 (sellp)")
        self.assertEqual(row[col["SELL-P max rel. error"]], "1.50e-16")
        # SELL-P slower than cuSPARSE CSR: zeta_M is negative (1 - 7/4); errored kernel is n/a
        lap = table_row(md, "lap2d_100")
        self.assertEqual(lap[col["zeta_M vs cuSPARSE CSR"]], "-75.0 %")
        self.assertEqual(lap[col["cuSPARSE SELL GFlop/s"]], NA)
        self.assertEqual(lap[col["best ours / cuSPARSE CSR (kernel)"]], "0.667 (csr_scalar)")
        # csr_adaptive is one of our CSR kernels: 100 us < csr_vector's 130 us
        s3 = table_row(md, "s3rmt3m3_x100")
        self.assertEqual(s3[col["CSR ours GFlop/s (kernel)"]], "414 (adaptive)")  # 41424600/100us
        self.assertEqual(s3[col["zeta_M vs our CSR"]], "20.0 %")          # 1 - 80/100
        self.assertIn("CUSPARSE_STATUS_NOT_SUPPORTED", md)

    def test_auto_columns(self):
        md = self.render(self.doc, "anzt2015/table3")
        headers = header_cells(md)
        self.assertEqual(headers[-4:], ["auto GFlop/s (choice)", "auto / cuSPARSE CSR",
                                        "auto / best ours", "SELL-P max rel. error"])
        auto = [h for h in headers if h.startswith("auto")]
        expected = {  # GFlop/s = 2 nnz / T_auto; T_cuSPARSE-CSR / T_auto; T_best-ours / T_auto
            "lap3d_100": ["386 (sellp b=64 t=1 σ=1024)", "1.39", "1.11"],  # 13.88e6/36; 50/36
            "lap2d_1000": ["227 (csr_adaptive)", "0.864", "0.909"],        # 9.992e6/44; 38/44
            "Trefethen_2000": ["8.38 (csr_vector subwarp=16)", "1.20", "0.800"],  # 12/10; 8/10
            "fv1": ["22.7 (sellp b=32 t=4 σ=1)", "1.20", "1.00"],          # 9/7.5; 7.5/7.5
            "lap2d_100": ["15.3 (csr_adaptive)", "0.615", "0.923"],        # 4/6.5; 6/6.5
        }
        for mat, cells in expected.items():
            row = table_row(md, mat)
            self.assertEqual([row[headers.index(h)] for h in auto], cells, mat)

    def test_summary_geometric_means(self):
        md = self.render(self.doc, "anzt2015/table3")
        # best of ours / cuSPARSE CSR: 4/6, 9/7.5, 12/8, 120/80, 50/40, 38/40 -> product 2.1375
        geo = (4 / 6 * 9 / 7.5 * 12 / 8 * 120 / 80 * 50 / 40 * 38 / 40) ** (1 / 6)
        self.assertAlmostEqual(geo, 2.1375 ** (1 / 6), places=12)
        self.assertIn(f"over 6 matrices: {fmt(geo)}", md)
        self.assertIn("over 6 matrices: 1.13", md)
        # nnz/n >= 20: Trefethen_2000 (12/8) and s3rmt3m3_x100 (120/80) -> geomean 1.5
        self.assertIn("(2): SELL-P reaches", md)
        self.assertIn("cuSPARSE CSR geometric mean 1.50", md)
        # Of those two, only s3rmt3m3_x100 moves more than the 52.4 MB L2 (277.4 MB vs 0.57 MB):
        # its SELL-P bw_frac_read is 0.867 and its speedup 120/80.
        self.assertIn("the 1 whose SELL-P traffic exceeds the L2 cache (52.4 MB): SELL-P reaches "
                      "86.7 % of measured read bandwidth (mean; minimum 86.7 %); SELL-P / "
                      "cuSPARSE CSR geometric mean 1.50", md)

    def test_auto_summary(self):
        md = self.render(self.doc, "anzt2015/table3")
        # n >= 1e6: lap3d_100 (50/36) and lap2d_1000 (38/44): geomean sqrt(1900/1584) = 1.0952
        self.assertEqual(fmt((50 / 36 * 38 / 44) ** 0.5), "1.10")
        self.assertIn("- auto / cuSPARSE CSR over the 2 matrices with n >= 1,000,000: minimum "
                      "0.864 (lap2d_1000), geometric mean 1.10; below 1.0: lap2d_1000 (0.864)\n",
                      md)
        # small (SELL-P traffic < L2): lap2d_100 6/6.5 = 0.923, fv1 1.00, Trefethen_2000 0.800
        self.assertIn("- Small matrices (SELL-P traffic below the 52.4 MB L2 cache: launch and "
                      "latency bound): auto reaches >= 0.9 x the best of ours on 2 of 3; below: "
                      "Trefethen_2000 (0.800)\n", md)

    def test_auto_summary_without_large_matrices(self):
        self.doc["context"]["kbench"]["gpu"]["l2_cache_bytes"] = 1  # nothing is small either
        for m in self.doc["context"]["kbench"]["matrices"].values():
            m["stats"]["num_rows"] = min(m["stats"]["num_rows"], 999_999)
        md = self.render(self.doc, "anzt2015/table3")
        self.assertIn("over the 0 matrices with n >= 1,000,000: none measured", md)
        self.assertIn("the best of ours on 0 of 0; below: none", md)

    def test_model_vs_measured(self):
        md = self.render(self.doc, "anzt2015/table3")
        self.assertIn("### Model vs measured (double)", md)
        headers = header_cells(md, "Kernel")
        self.assertEqual(headers, ["Kernel", "matrices", "median abs(predicted / measured - 1)",
                                   "median predicted / measured",
                                   "worst: matrix (predicted / measured)"])
        # model_us / median time per matrix (table order), |ratio - 1| sorted, middle two:
        # CSR vector  2 on all 4 with model_us; ties: the first in table order
        self.assertEqual(table_row(md, "CSR vector"), [
            "CSR vector", "4", "100 %", "2.00", "lap2d_100 (2.00)"])
        # CSR adaptive 1, .75, 1, .9, 1.1, .9 -> |.| 0,0,.1,.1,.1,.25; ratios .75,.9,.9,1,1,1.1
        self.assertEqual(table_row(md, "CSR adaptive"), [
            "CSR adaptive", "6", "10.0 %", "0.950", "lap2d_1000 (0.750)"])
        # SELL-P .8, 1.05, .95, .84, 1.1, .95 -> |.| .05,.05,.05,.1,.16,.2 -> (.05 + .1) / 2
        self.assertEqual(table_row(md, "SELL-P"), [
            "SELL-P", "6", "7.50 %", "0.950", "lap2d_100 (0.800)"])
        # auto .8, .75, 1, 1, .5, .95 -> |.| 0,0,.05,.2,.25,.5 -> (.05 + .2) / 2; ratios (.8+.95)/2
        self.assertEqual(table_row(md, "auto"), [
            "auto", "6", "12.5 %", "0.875", "Trefethen_2000 (0.500)"])
        self.assertNotIn("| CSR scalar |", md)  # no model_us: no row

    def test_bandwidth_table_lists_every_kernel(self):
        md = self.render(self.doc, "anzt2015/table3")
        self.assertIn("### Achieved bandwidth (double)", md)
        self.assertIn("| Matrix | CSR scalar GB/s (% read BW) | CSR vector GB/s (% read BW) | "
                      "CSR adaptive GB/s (% read BW) | SELL-P GB/s (% read BW) | "
                      "auto GB/s (% read BW) | cuSPARSE CSR GB/s (% read BW) | "
                      "cuSPARSE SELL GB/s (% read BW) |", md)
        # fv1: GBps 135.028, 151.9065, 121.5252, 168.1056, 168.1056, 135.028, 157.599
        self.assertIn("| fv1 | 135 (3.38 %) | 152 (3.80 %) | 122 (3.04 %) | 168 (4.20 %) | "
                      "168 (4.20 %) | 135 (3.38 %) | 158 (3.94 %) |", md)

    def test_rows_ordered_by_nnz_per_row(self):
        self.doc["benchmarks"].reverse()
        md = self.render(self.doc, "anzt2015/table3")
        pos = [md.index("| " + m + " |") for m in ("lap2d_100", "lap2d_1000", "lap3d_100", "fv1",
                                                   "Trefethen_2000", "s3rmt3m3_x100")]
        self.assertEqual(pos, sorted(pos))

    def test_figure_has_model_panel_only_with_model_us(self):
        self.render(self.doc, "anzt2015/table3", out_name="new")
        self.render(old_format(self.doc), "anzt2015/table3", out_name="old")
        width_new, height_new = png_size(os.path.join(self.tmp.name, "new", "figure.png"))
        width_old, height_old = png_size(os.path.join(self.tmp.name, "old", "figure.png"))
        self.assertGreater(height_new, 1.3 * height_old)  # three panels instead of two

    def test_no_spmv_benchmarks_exits_1(self):
        self.doc["benchmarks"] = []
        with contextlib.redirect_stderr(io.StringIO()):
            rc = render.main([self.write(self.doc), "--id", "anzt2015/table3",
                              "--out-dir", self.tmp.name])
        self.assertEqual(rc, 1)


class Table3OldFormatTest(RenderTestCase):
    """Results files from before csr_adaptive, auto and model_us."""

    def test_hand_computed_values_without_auto(self):
        md = self.render(old_format(self.doc), "anzt2015/table3")
        self.assertIn("CSR ours is the faster of csr_scalar / csr_vector.", md)
        self.assertNotIn("auto", md)
        self.assertNotIn("Model vs measured", md)
        self.assertNotIn("adaptive", md)
        headers = header_cells(md)
        self.assertEqual(headers[-2:], ["best ours / cuSPARSE CSR (kernel)",
                                        "SELL-P max rel. error"])
        # best of ours / cuSPARSE CSR: 4/6, 9/7.5, 12/8, 120/80 -> product 1.8
        self.assertIn(f"over 4 matrices: {fmt(1.8 ** 0.25)}", md)
        self.assertIn("over 4 matrices: 1.16", md)
        s3 = table_row(md, "s3rmt3m3_x100")
        self.assertEqual(s3[headers.index("CSR ours GFlop/s (kernel)")], "319 (vector)")
        self.assertIn("| Matrix | CSR scalar GB/s (% read BW) | CSR vector GB/s (% read BW) | "
                      "SELL-P GB/s (% read BW) | cuSPARSE CSR GB/s (% read BW) | "
                      "cuSPARSE SELL GB/s (% read BW) |", md)

    def test_committed_results_render(self):
        for item in ("table2", "table3"):
            path = os.path.join(COMMITTED, item, "results.json")
            if not os.path.isfile(path):
                self.skipTest(f"{path} is not in this checkout")
            out = os.path.join(self.tmp.name, item)
            with contextlib.redirect_stdout(io.StringIO()):
                self.assertEqual(render.main([path, "--id", "anzt2015/" + item,
                                              "--out-dir", out]), 0)
            with open(os.path.join(out, "table.md"), encoding="utf-8") as f:
                self.assertIn("NVIDIA H200", f.readline())


class AutoChoiceTest(unittest.TestCase):
    def test_choice_text(self):
        self.assertEqual(study.auto_choice({"kernel": "sellp", "params": {
            "slice_height": 64, "threads_per_row": 1, "sigma": 1024, "long_row_threshold": 256,
            "long_rows": 0}}), "sellp b=64 t=1 σ=1024")
        self.assertEqual(study.auto_choice({"kernel": "csr_vector", "params": {"subwarp": 8.0}}),
                         "csr_vector subwarp=8")
        self.assertEqual(study.auto_choice({"kernel": "csr_adaptive", "params": {}}),
                         "csr_adaptive")
        self.assertEqual(study.auto_choice({}), "?")


class MergeSummaryTest(unittest.TestCase):
    """auto against the faster cuSPARSE CSR algorithm, and CSR merge against cuSPARSE ALG2."""

    def rows(self):
        import pandas as pd
        nan = float("nan")
        # a: auto ran ALG1, the faster cuSPARSE kernel, 0.99 of its separate timing (noise);
        # b: auto ran ALG1 but ALG2 was faster: a real shortfall; c: small, left out of auto's
        # summary; merge / ALG2: a 0.90, b 1.10, c 0.96
        return pd.DataFrame([
            {"matrix": "a", "n": 2e6, "gflops_cusparse_csr": 100.0, "gflops_alg2": 90.0,
             "auto_choice": "cusparse_csr", "auto_vs_cusparse_best": 0.99,
             "merge_vs_alg2": 0.90, "gflops_merge": 81.0, "gflops_auto": 99.0},
            {"matrix": "b", "n": 3e6, "gflops_cusparse_csr": 100.0, "gflops_alg2": 120.0,
             "auto_choice": "cusparse_csr", "auto_vs_cusparse_best": 100.0 / 120.0,
             "merge_vs_alg2": 1.10, "gflops_merge": 132.0, "gflops_auto": 100.0},
            {"matrix": "c", "n": 1e4, "gflops_cusparse_csr": 10.0, "gflops_alg2": nan,
             "auto_choice": "sellp b=32", "auto_vs_cusparse_best": 0.5,
             "merge_vs_alg2": 0.96, "gflops_merge": 9.0, "gflops_auto": 5.0},
        ])

    def test_summary(self):
        m = study.merge_summary(self.rows())
        self.assertEqual(m["auto_count"], 2)
        self.assertEqual(m["auto_min_matrix"], "b")
        self.assertEqual([(x[0], x[2]) for x in m["auto_below"]], [("a", True), ("b", False)])
        self.assertEqual(m["merge_count"], 3)
        self.assertEqual(m["merge_min_matrix"], "a")
        self.assertEqual([x[0] for x in m["merge_below"]], ["a"])  # 0.96 >= 0.95: not listed


class Table2Test(RenderTestCase):
    def test_columns_and_row(self):
        self.doc["benchmarks"] = []  # table2 needs only the matrices
        md = self.render(self.doc, "anzt2015/table2")
        self.assertEqual(header_cells(md), [
            "Matrix", "stands for (paper matrix)", "source", "n", "nnz", "nnz/n", "max row nnz",
            "SELL-P padding overhead"])
        # padding 44800 stored / 41906 nnz - 1 = 6.906 %
        self.assertEqual(table_row(md, "Trefethen_2000"), [
            "Trefethen_2000", "TREFETHEN_2000 (anzt2015 Table 2)", "real", "2,000", "41,906",
            "21.0", "28", "6.91 % (b=32, t=4)"])
        self.assertEqual(table_row(md, "s3rmt3m3_x100")[2], "replicated (s3rmt3m3.mtx)")
        self.assertEqual(table_row(md, "lap2d_100")[2], "generated (laplacian_2d_5pt)")
        # 8,000,000 stored / 4,996,000 nnz - 1 = 60.1 %
        self.assertEqual(table_row(md, "lap2d_1000")[3:], [
            "1,000,000", "4,996,000", "5.00", "5", "60.1 % (b=32, t=4)"])
        pos = [md.index("| " + m + " |") for m in ("lap2d_100", "fv1", "Trefethen_2000",
                                                   "s3rmt3m3_x100", "lap3d_100", "lap2d_1000")]
        self.assertEqual(pos, sorted(pos))  # manifest (here: file) order

    def test_long_row_split_shown_only_when_threshold_nonzero(self):
        self.doc["benchmarks"] = []
        stats = self.doc["context"]["kbench"]["matrices"]["Trefethen_2000"]["stats"]
        stats["sellp_long_row_threshold"] = 256
        stats["sellp_long_rows"] = 3
        fv1 = self.doc["context"]["kbench"]["matrices"]["fv1"]["stats"]
        fv1["sellp_long_row_threshold"] = 0
        fv1["sellp_long_rows"] = 0
        md = self.render(self.doc, "anzt2015/table2")
        self.assertEqual(table_row(md, "Trefethen_2000")[-1],
                         "6.91 % (b=32, t=4, long rows > 256: 3)")
        self.assertNotIn("long rows", table_row(md, "fv1")[-1])
        self.assertNotIn("long rows", table_row(md, "lap2d_100")[-1])  # keys absent

    def test_no_matrices_exits_1(self):
        self.doc["context"]["kbench"]["matrices"] = {}
        with contextlib.redirect_stderr(io.StringIO()):
            rc = render.main([self.write(self.doc), "--id", "anzt2015/table2",
                              "--out-dir", self.tmp.name])
        self.assertEqual(rc, 1)


if __name__ == "__main__":
    unittest.main()
