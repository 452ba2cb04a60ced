#!/usr/bin/env python3
"""Tests of analysis/render.py and analysis/kbench_results.py (unittest, standard library).

Run: /usr/bin/python3 analysis/test_render.py   (needs pandas and matplotlib)
Input: analysis/testdata/synthetic_anzt2015.json, a SYNTHETIC results file (invented numbers,
see its "note"): 4 matrices x 5 SpMV kernels in double, cusparse_sell on lap2d_100 errored.
Median times (us) used for the hand-computed values below:
  matrix          nnz/n  csr_scalar csr_vector sellp cusparse_csr
  lap2d_100        4.96     6          9        7        4
  fv1              8.88     9          8        7.5      9
  Trefethen_2000  20.95    20         10        8       12
  s3rmt3m3_x100   38.66   400        130       80      120
"""

import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import kbench_results  # noqa: E402
import render  # noqa: E402

SYNTHETIC = os.path.join(HERE, "testdata", "synthetic_anzt2015.json")
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def table_row(markdown: str, first_cell: str) -> list:
    """Cells of the Markdown table row whose first cell is `first_cell`."""
    for line in markdown.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells and cells[0] == first_cell:
            return cells
    raise AssertionError(f"no table row for {first_cell!r} in:\n{markdown}")


def header_cells(markdown: str) -> list:
    line = next(l for l in markdown.splitlines() if l.startswith("| Matrix"))
    return [c.strip() for c in line.strip().strip("|").split("|")]


class RenderTestCase(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        with open(SYNTHETIC, encoding="utf-8") as f:
            self.doc = json.load(f)

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, doc, name="results.json") -> str:
        path = os.path.join(self.tmp.name, name)
        with open(path, "w", encoding="utf-8") as f:
            json.dump(doc, f)
        return path

    def render(self, doc, item) -> str:
        """Runs render.main in-process; returns table.md and checks exit status 0."""
        out_dir = os.path.join(self.tmp.name, item.replace("/", "_"))
        stdout = io.StringIO()
        with contextlib.redirect_stdout(stdout):
            rc = render.main([self.write(doc), "--id", item, "--out-dir", out_dir])
        self.assertEqual(rc, 0)
        md, png = os.path.join(out_dir, "table.md"), os.path.join(out_dir, "figure.png")
        self.assertEqual(stdout.getvalue().split(), [md, png])  # prints the paths written
        with open(png, "rb") as f:
            self.assertEqual(f.read(8), PNG_SIGNATURE)
        self.assertGreater(os.path.getsize(png), 10_000)
        with open(md, encoding="utf-8") as f:
            return f.read()


class LoaderTest(RenderTestCase):
    def test_synthetic_file_is_marked_synthetic(self):
        self.assertIn("SYNTHETIC", self.doc["note"])

    def test_reads_medians_and_errored_runs(self):
        res = kbench_results.load(self.write(self.doc))
        b = res.benchmarks
        self.assertEqual(len(b), 20)  # 19 medians + 1 errored run without aggregates
        self.assertEqual(int(b["error_occurred"].sum()), 1)
        row = b[(b["kernel"] == "sellp") & (b["matrix"] == "Trefethen_2000")].iloc[0]
        self.assertEqual(row["time_us"], 8.0)  # the median, not the mean (8.8)
        self.assertEqual(row["precision"], "double")
        self.assertEqual(row["params"]["slice_height"], 32)
        self.assertEqual(res.context["kbench"]["gpu"]["name"], "Synthetic GPU")

    def test_time_unit_converted_to_us(self):
        for b in self.doc["benchmarks"]:
            if b.get("run_type") == "aggregate":
                b["real_time"] *= 1e3
                b["time_unit"] = "ns"
        res = kbench_results.load(self.write(self.doc))
        row = res.benchmarks[(res.benchmarks["kernel"] == "sellp")
                             & (res.benchmarks["matrix"] == "fv1")].iloc[0]
        self.assertAlmostEqual(row["time_us"], 7.5, places=9)

    def test_matrices_frame(self):
        m = kbench_results.load(self.write(self.doc)).matrices
        self.assertEqual(list(m.index), ["lap2d_100", "fv1", "Trefethen_2000", "s3rmt3m3_x100"])
        self.assertEqual(list(m["source_kind"]), ["generated", "real", "real", "replicated"])
        self.assertAlmostEqual(m.at["Trefethen_2000", "nnz_per_row"], 41906 / 2000, places=12)
        self.assertEqual(m.at["fv1", "stands_for"], "FV1 (anzt2015 Table 2)")

    def test_manifest_order(self):
        manifest = os.path.join(self.tmp.name, "set.json")
        order = ["s3rmt3m3_x100", "fv1", "lap2d_100", "Trefethen_2000"]
        with open(manifest, "w", encoding="utf-8") as f:
            json.dump({"name": "synthetic", "matrices": [{"name": n} for n in order]}, f)
        self.doc["context"]["kbench"]["matrix_set"]["manifest"] = manifest
        m = kbench_results.load(self.write(self.doc)).matrices
        self.assertEqual(list(m.index), order)

    def test_wrong_schema_version_raises(self):
        self.doc["context"]["kbench_schema_version"] = 2
        with self.assertRaisesRegex(kbench_results.SchemaVersionError, "is 2.*version 1"):
            kbench_results.load(self.write(self.doc))
        del self.doc["context"]["kbench_schema_version"]
        with self.assertRaisesRegex(kbench_results.SchemaVersionError, "missing"):
            kbench_results.load(self.write(self.doc))

    def test_wrong_schema_version_exits_1(self):
        self.doc["context"]["kbench_schema_version"] = 0
        stderr = io.StringIO()
        with contextlib.redirect_stderr(stderr):
            rc = render.main([self.write(self.doc), "--id", "anzt2015/table3",
                              "--out-dir", self.tmp.name])
        self.assertEqual(rc, 1)
        self.assertIn("kbench_schema_version is 0", stderr.getvalue())


class FormatTest(unittest.TestCase):
    def test_three_significant_digits(self):
        self.assertEqual(render.fmt(10.4765), "10.5")
        self.assertEqual(render.fmt(0.0123456), "0.0123")
        self.assertEqual(render.fmt(9.996), "10.0")
        self.assertEqual(render.fmt(1234.6), "1235")
        self.assertEqual(render.fmt(1.5e-16), "1.50e-16")
        self.assertEqual(render.fmt(float("nan")), render.NA)
        self.assertEqual(render.fmt_pct(1.0 - 8.0 / 12.0), "33.3 %")
        self.assertEqual(render.cuda_version(12040), "12.4")


class Table3Test(RenderTestCase):
    def test_columns_and_hand_computed_row(self):
        md = self.render(self.doc, "anzt2015/table3")
        self.assertIn("Synthetic GPU", md.splitlines()[0])
        for text in ("driver 13.0, runtime 13.0", "read 4000 GB/s", "triad 3800 GB/s",
                     "cache mode: hot", "0123456789abcdef0123456789abcdef01234567 (dirty)",
                     "2025-01-01"):
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
        self.assertEqual(render.fmt(flops / 8e-6 * 1e-9), "10.5")
        self.assertEqual(row[col["CSR ours GFlop/s (kernel)"]], "8.38 (vector)")  # 10 us < 20 us
        self.assertEqual(row[col["speedup s (SELL-P vs cuSPARSE CSR)"]], "1.50")  # 12 / 8
        self.assertEqual(row[col["zeta_M vs cuSPARSE CSR"]], "33.3 %")    # 1 - 8/12
        self.assertEqual(row[col["zeta_M vs our CSR"]], "20.0 %")         # 1 - 8/10
        self.assertEqual(row[col["best ours / cuSPARSE CSR (kernel)"]], "1.50 (sellp)")
        self.assertEqual(row[col["SELL-P max rel. error"]], "1.50e-16")
        # SELL-P slower than cuSPARSE CSR: zeta_M is negative (1 - 7/4); errored kernel is n/a
        lap = table_row(md, "lap2d_100")
        self.assertEqual(lap[col["zeta_M vs cuSPARSE CSR"]], "-75.0 %")
        self.assertEqual(lap[col["cuSPARSE SELL GFlop/s"]], render.NA)
        self.assertEqual(lap[col["best ours / cuSPARSE CSR (kernel)"]], "0.667 (csr_scalar)")
        self.assertIn("CUSPARSE_STATUS_NOT_SUPPORTED", md)

    def test_summary_geometric_means(self):
        md = self.render(self.doc, "anzt2015/table3")
        # best of ours / cuSPARSE CSR: 4/6, 9/7.5, 12/8, 120/80 -> product 1.8
        geo = (4 / 6 * 9 / 7.5 * 12 / 8 * 120 / 80) ** 0.25
        self.assertAlmostEqual(geo, 1.8 ** 0.25, places=12)
        self.assertIn(f"over 4 matrices: {render.fmt(geo)}", md)
        self.assertIn("over 4 matrices: 1.16", md)
        # nnz/n >= 20: Trefethen_2000 (12/8) and s3rmt3m3_x100 (120/80) -> geomean 1.5
        self.assertIn("(2): SELL-P reaches", md)
        self.assertIn("cuSPARSE CSR geometric mean 1.50", md)
        # Of those two, only s3rmt3m3_x100 moves more than the 52.4 MB L2 (277.4 MB vs 0.57 MB):
        # its SELL-P bw_frac_read is 0.867 and its speedup 120/80.
        self.assertIn("the 1 whose SELL-P traffic exceeds the L2 cache (52.4 MB): SELL-P reaches "
                      "86.7 % of measured read bandwidth (mean; minimum 86.7 %); SELL-P / "
                      "cuSPARSE CSR geometric mean 1.50", md)

    def test_bandwidth_table_lists_every_kernel(self):
        md = self.render(self.doc, "anzt2015/table3")
        self.assertIn("### Achieved bandwidth (double)", md)
        self.assertIn("| Matrix | CSR scalar GB/s (% read BW) | CSR vector GB/s (% read BW) | "
                      "SELL-P GB/s (% read BW) | cuSPARSE CSR GB/s (% read BW) | "
                      "cuSPARSE SELL GB/s (% read BW) |", md)
        # fv1: GBps 135.028, 151.9065, 168.1056, 135.028, 157.599 and their bw_frac_read
        self.assertIn("| fv1 | 135 (3.38 %) | 152 (3.80 %) | 168 (4.20 %) | 135 (3.38 %) | "
                      "158 (3.94 %) |", md)

    def test_rows_ordered_by_nnz_per_row(self):
        self.doc["benchmarks"].reverse()
        md = self.render(self.doc, "anzt2015/table3")
        pos = [md.index("| " + m + " |") for m in
               ("lap2d_100", "fv1", "Trefethen_2000", "s3rmt3m3_x100")]
        self.assertEqual(pos, sorted(pos))

    def test_no_spmv_benchmarks_exits_1(self):
        self.doc["benchmarks"] = []
        with contextlib.redirect_stderr(io.StringIO()):
            rc = render.main([self.write(self.doc), "--id", "anzt2015/table3",
                              "--out-dir", self.tmp.name])
        self.assertEqual(rc, 1)


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


class CommandLineTest(unittest.TestCase):
    def test_unknown_id_exits_2_listing_known_ids(self):
        with tempfile.TemporaryDirectory() as tmp:
            proc = subprocess.run(
                [sys.executable, os.path.join(HERE, "render.py"), SYNTHETIC, "--id",
                 "anzt2015/table9", "--out-dir", tmp], capture_output=True, text=True)
            self.assertEqual(proc.returncode, 2)
            self.assertIn("anzt2015/table2", proc.stderr)
            self.assertIn("anzt2015/table3", proc.stderr)
            self.assertEqual(os.listdir(tmp), [])


if __name__ == "__main__":
    unittest.main()
