#!/usr/bin/env python3
"""Tests of the yamazaki2014 orthogonalization renderers (analysis/studies/yamazaki2014_tsqr.py):
the synthetic documents analysis/testdata/synthetic_yamazaki2014_fig10.json and _fig11.json
(invented numbers: orthogonality from simple formulas with failures at large kappa; seconds =
model bytes / (chosen fraction x 3000 GB/s)) rendered through render.main, the tables checked
against hand-computed values, plus empty documents and byte-identical re-renders."""

from __future__ import annotations

import contextlib
import io
import json
import os
import unittest
from typing import Any, Dict

from testutil import HERE, PNG_SIGNATURE, RenderTestCase, header_cells, section, table_row

import render  # noqa: E402
from studies import yamazaki2014_tsqr as study  # noqa: E402

TESTDATA = os.path.join(HERE, "testdata")
GPU_TABLE = "### ||I - Q^T Q||_2 on the GPU"


def load(name: str) -> Dict[str, Any]:
    with open(os.path.join(TESTDATA, f"synthetic_yamazaki2014_{name}.json"), encoding="utf-8") as f:
        return json.load(f)


class YamazakiTestCase(RenderTestCase):
    def setUp(self) -> None:
        super().setUp()
        self.fig10, self.fig11 = load("fig10"), load("fig11")

    def render_raw(self, doc: Dict[str, Any], item: str, out_name: str) -> str:
        """render.main without the PNG size check (empty figures compress small)."""
        out_dir = os.path.join(self.tmp.name, out_name)
        with contextlib.redirect_stdout(io.StringIO()):
            self.assertEqual(render.main([self.write(doc), "--id", item, "--out-dir", out_dir]), 0)
        with open(os.path.join(out_dir, "figure.png"), "rb") as f:
            self.assertEqual(f.read(8), PNG_SIGNATURE)
        with open(os.path.join(out_dir, "table.md"), encoding="utf-8") as f:
            return f.read()


class Fig10Test(YamazakiTestCase):
    def test_gpu_table(self):
        gpu = section(self.render(self.fig10, "yamazaki2014/fig10"), GPU_TABLE)
        self.assertEqual(header_cells(gpu, "Method"), [
            "Method", "expected", "kappa = 1e1", "kappa = 1e5", "kappa = 1e9", "kappa = 1e15"])
        # MGS: 10 eps kappa = 2.2e-15 kappa
        self.assertEqual(table_row(gpu, "MGS"),
                         ["MGS", "eps kappa", "2.2e-14", "2.2e-10", "2.2e-06", "2.2"])
        # CholQR fails at 1e9 (no finite factors) and 1e15 (partial factors, 5.0)
        self.assertEqual(table_row(gpu, "CholQR"), [
            "CholQR", "eps kappa^2", "2.2e-14", "2.2e-06", "n/a (not PD, col 17)",
            "5.0 (not PD, col 17)"])
        self.assertEqual(table_row(gpu, "SVQR")[5], "n/a (rank deficient, col 29)")
        self.assertEqual([r[0] for r in (table_row(gpu, m) for m in (
            "MGS", "CGS", "CGS2", "CholQR", "CholQR2", "SVQR", "CAQR", "shifted CholQR3"))],
            ["MGS", "CGS", "CGS2", "CholQR", "CholQR2", "SVQR", "CAQR", "shifted CholQR3"])

    def test_cpu_and_residual_tables(self):
        md = self.render(self.fig10, "yamazaki2014/fig10")
        cpu = section(md, "### ||I - Q^T Q||_2 on the CPU")
        self.assertEqual(table_row(cpu, "CAQR"),  # GPU values x 0.9
                         ["CAQR", "eps", "2.7e-15", "2.7e-15", "2.7e-15", "2.7e-15"])
        res = section(md, "### ||V - QR||_F / ||V||_F on the GPU")
        self.assertEqual(header_cells(res, "Method")[1], "kappa = 1e1")  # no expected column
        self.assertEqual(table_row(res, "CholQR2")[3], "n/a (not PD, col 20)")

    def test_failures_listed(self):
        md = self.render(self.fig10, "yamazaki2014/fig10")
        self.assertIn("Failures: 12 of 64 runs.", md)
        self.assertIn("- GPU shifted_cholqr3, kappa = 1e15: not_positive_definite at column 3: "
                      "synthetic failure at column 3", md)

    def test_missing_entry_is_na(self):
        self.fig10["benchmarks"] = [e for e in self.fig10["benchmarks"] if not (
            e["method"] == "mgs" and e["device"] == "gpu" and e["kappa"] == 1e5)]
        gpu = section(self.render(self.fig10, "yamazaki2014/fig10"), GPU_TABLE)
        self.assertEqual(table_row(gpu, "MGS")[3], "n/a")


class Fig11Test(YamazakiTestCase):
    def test_summary_table(self):
        md = section(self.render(self.fig11, "yamazaki2014/fig11"), "### n = 10,000,000, k = 30")
        self.assertEqual(header_cells(md, "kernel/variant"), [
            "kernel/variant", "time (us)", "GFlop/s", "GB/s", "% of read BW",
            "speedup vs cuBLAS/cuSOLVER"])
        # mdgm: 8 (31e7 + 30) B at 90 % of 3000 GB/s = 918.5 us; 6e8 flops -> 653 GFlop/s;
        # speedup over cuBLAS dgemv (95 %) = 0.90 / 0.95
        self.assertEqual(table_row(md, "gemv_t/mdgm"),
                         ["gemv_t/mdgm", "919", "653", "2700", "90.0 %", "0.947"])
        self.assertEqual(table_row(md, "gram/gram")[4:], ["90.0 %", "1.20"])  # 0.90 / 0.75
        # CholQR2: 6k = 180 passes of 8e7 B = 1.44e10 B at 55 % -> 8727 us; effective flops
        # 2 (2 n k^2 - 2 k^3 / 3) = 3.6e10 -> 4125 GFlop/s; cuSOLVER QR (6k passes at 10 %)
        # takes 48 ms -> 5.50
        self.assertEqual(table_row(md, "tsqr/cholqr2"),
                         ["tsqr/cholqr2", "8727", "4125", "1650", "55.0 %", "5.50"])
        self.assertEqual(table_row(md, "tsqr/cusolver_qr")[5], "1.00")

    def test_sweep_tables(self):
        md = self.render(self.fig11, "yamazaki2014/fig11")
        rows = section(md, "### % of read bandwidth vs n")
        self.assertEqual(header_cells(rows, "kernel/variant"),
                         ["kernel/variant", "1e4", "1e6", "1e7"])
        self.assertEqual(table_row(rows, "gemv_t/mdgm"),
                         ["gemv_t/mdgm", "18.0 %", "90.0 %", "90.0 %"])
        self.assertEqual(table_row(rows, "tsqr/cusolver_qr")[1], "n/a")  # the error entry
        # V of 1e4 x 30 doubles (2.4 MB) fits a 50 MB L2 cache, 1e6 x 30 (240 MB) does not
        self.fig11["context"]["kbench"].setdefault("gpu", {})["l2_cache_bytes"] = 50_000_000
        md = self.render(self.fig11, "yamazaki2014/fig11", out_name="l2")
        self.assertEqual(header_cells(section(md, "### % of read bandwidth vs n"),
                                      "kernel/variant"),
                         ["kernel/variant", "1e4 (L2)", "1e6", "1e7"])
        cols = section(md, "### % of read bandwidth vs k")
        self.assertEqual(header_cells(cols, "kernel/variant"),
                         ["kernel/variant", "k = 4", "k = 30", "k = 64"])
        self.assertEqual(table_row(cols, "gram/cublas_dgemm"),
                         ["gram/cublas_dgemm", "15.0 %", "75.0 %", "60.0 %"])

    def test_targets(self):
        md = self.render(self.fig11, "yamazaki2014/fig11")
        self.assertIn("minimum 86.0 % (n = 1e7, k = 4); target >= 85.0 %: met", md)
        # geometric mean of 0.86/0.15, 0.90/0.75, 0.90/0.60
        self.assertAlmostEqual(((0.86 / 0.15) * 1.2 * 1.5) ** (1 / 3), 2.177, places=3)
        self.assertIn("geometric mean over k >= 4: 2.18; target >= 1.3: met", md)
        self.assertIn("minimum over n >= 1e6: 0.947 (n = 1e6); target >= 0.95: not met", md)
        self.assertIn("the same over n <= 1e5: 1.89 (n = 1e4); target >= 1.5: met", md)
        self.assertIn("skipped: rows sweep, n = 100000000: skipped (synthetic note)", md)

    def test_fraction_from_bandwidth_when_not_stored(self):
        for e in self.fig11["benchmarks"]:
            e.pop("fraction_of_bandwidth", None)
        self.fig11["context"]["kbench"]["tall_skinny"]["read_gbps"] = 1350.0  # half: doubles %
        md = section(self.render(self.fig11, "yamazaki2014/fig11"), "### n = 10,000,000")
        self.assertEqual(table_row(md, "gemv_t/mdgm")[4], "200 %")
        del self.fig11["context"]["kbench"]["tall_skinny"]["read_gbps"]
        del self.fig11["context"]["kbench"]["machine"]
        md = section(self.render(self.fig11, "yamazaki2014/fig11", out_name="nobw"), "### n = 10")
        self.assertEqual(table_row(md, "gemv_t/mdgm")[4], "n/a")


class CommonTest(YamazakiTestCase):
    def test_discovered_by_render(self):
        found = render.discover()
        for item in ("yamazaki2014/fig10", "yamazaki2014/fig11"):
            self.assertIs(found[item].module, study)

    def test_empty_and_bare_documents_render_na(self):
        for item in study.RENDERERS:
            doc = load(item.split("/")[1])
            doc["benchmarks"] = []
            self.assertIn("n/a", self.render_raw(doc, item, item.replace("/", "_") + "_empty"))
            bare = {"context": {"kbench_schema_version": 1}, "benchmarks": []}
            self.assertIn("n/a", self.render_raw(bare, item, item.replace("/", "_") + "_bare"))

    def test_rendering_twice_gives_identical_bytes(self):
        for item, doc in (("yamazaki2014/fig10", self.fig10), ("yamazaki2014/fig11", self.fig11)):
            outputs = []
            for name in ("first", "second"):
                self.render(doc, item, out_name=f"{item.replace('/', '_')}_{name}")
                out = os.path.join(self.tmp.name, f"{item.replace('/', '_')}_{name}")
                files = []
                for f in ("table.md", "figure.png"):
                    with open(os.path.join(out, f), "rb") as fh:
                        files.append(fh.read())
                outputs.append(files)
            self.assertEqual(outputs[0], outputs[1], item)


if __name__ == "__main__":
    unittest.main()
