#!/usr/bin/env python3
"""Tests of the anzt2015 kernel renderers (analysis/studies/anzt2015_kernels.py): a synthetic
results document with hand-checkable entries for Figs. 7-10, rendered through render.main, and
the tables' numbers checked against values computed by hand; plus documents with no entries, a
missing variant and a failed refit, which must render "n/a" without failing."""

from __future__ import annotations

import contextlib
import io
import os
import unittest
from typing import Any, Dict, List

from testutil import PNG_SIGNATURE, RenderTestCase, header_cells, section, table_row

import render  # noqa: E402
from studies import anzt2015_kernels as study  # noqa: E402

READ_GBPS = 3000.0


def entry(figure: str, panel: str, variant: str, n: int, k: int, seconds: float, flops: float,
          bytes_: float, **extra: Any) -> Dict[str, Any]:
    """One runner entry (harness/studies/anzt2015/bench_vector_kernels.hpp schema)."""
    e = {"name": f"{figure}/{variant}/double/n={n}/k={k}", "figure": figure, "panel": panel,
         "variant": variant, "precision": "double", "n": n, "k": k, "seconds": seconds,
         "flops": flops, "bytes": bytes_, "GFlops": flops / seconds * 1e-9,
         "GBps": bytes_ / seconds * 1e-9, "repetitions": 5, "loops": 100,
         "max_rel_error": 1e-15}
    e.update(extra)
    return e


def synthetic_document() -> Dict[str, Any]:
    """Plausible entries for all four figures with round times (seconds) for hand checks."""
    b: List[Dict[str, Any]] = []
    # fig7: n = 1e5 and 1e6, k = 1..4; times in us chosen per variant.
    for n, panel in ((100_000, "left"), (1_000_000, "right")):
        scale = n / 100_000
        for k in (1, 2, 3, 4):
            flops = 2.0 * n * k
            times = {"cublas_dot": 10e-6 * k * scale, "mdot": 8e-6 * scale * (1 + 0.5 * k),
                     "mdgm": 5e-6 * scale * (1 + 0.25 * k), "cublas_gemv": 20e-6 * scale}
            for v, t in times.items():
                b.append(entry("fig7", panel, v, n, k, t, flops, 8.0 * n * (k + 1)))
    # fig8 left: n = 1e3, 1e6.
    for n in (1_000, 1_000_000):
        f = 2.0 * n
        b.append(entry("fig8", "left", "cublas_dot", n, 1, 4e-6, f, 16.0 * n))
        b.append(entry("fig8", "left", "mdot", n, 1, 2e-6, f, 16.0 * n))
        b.append(entry("fig8", "left", "cublas_dot_pair", n, 2, 8e-6, 2 * f, 32.0 * n))
        b.append(entry("fig8", "left", "mdot_pair", n, 2, 2.5e-6, 2 * f, 24.0 * n))
    # fig8 right: n = 1e3, 1e7 and k = 1, 32; MDGM wins at 1e3, gemv at (1e7, 32).
    right = {(1_000, 1): (2e-6, 3e-6), (1_000, 32): (4e-6, 12e-6),
             (10_000_000, 1): (50e-6, 60e-6), (10_000_000, 32): (1000e-6, 800e-6)}
    for (n, k), (t_mdgm, t_gemv) in right.items():
        b.append(entry("fig8", "right", "mdgm", n, k, t_mdgm, 2.0 * n * k, 8.0 * n * (k + 1)))
        b.append(entry("fig8", "right", "cublas_gemv", n, k, t_gemv, 2.0 * n * k,
                       8.0 * n * (k + 1)))
    # fig9: n = 1e3, 1e7, 1e8; bytes 8 (8n + 3) cuBLAS and 8 (4n + 4) fused.
    fig9 = {1_000: (9e-6, 3e-6), 10_000_000: (200e-6, 100e-6), 100_000_000: (2100e-6, 1000e-6)}
    for n, (t_c, t_f) in fig9.items():
        b.append(entry("fig9", "", "cublas_p_update", n, 1, t_c, 4.0 * n, 8.0 * (8 * n + 3)))
        b.append(entry("fig9", "", "p_update", n, 1, t_f, 4.0 * n, 8.0 * (4 * n + 4)))
    # fig10: n = 1e3, 1e5, 1e7.
    fig10 = {1_000: (50e-6, 20e-6), 100_000: (60e-6, 30e-6), 10_000_000: (1000e-6, 900e-6)}
    for n, (t_c, t_m) in fig10.items():
        b.append(entry("fig10", "", "cublas_sequence", n, 5, t_c, 10.0 * n, 80.0 * n + 40))
        b.append(entry("fig10", "", "merged_sequence", n, 5, t_m, 10.0 * n, 48.0 * n + 40,
                       savings=1.0 - t_m / t_c))
    kbench = {"schema_version": 1, "argv": ["kbench", "reproduce", "anzt2015/fig7"],
              "id": "anzt2015/fig7", "git": {"sha": "abc", "dirty": False},
              "gpu": {"name": "NVIDIA H100", "sm_count": 132, "compute_capability": 90,
                      "l2_cache_bytes": 52428800},
              "machine": {"read_gbps": READ_GBPS, "triad_gbps": 2900.0},
              "cache_mode": "hot", "matrix_set": {"name": "none"}, "matrices": {},
              "vector_kernels": {"read_gbps": READ_GBPS, "repetitions": 5, "min_time": 0.03,
                                 "timing": "CUDA events around the loop", "flops": "2 n k"},
              "dot_savings_fit": {"paper": {"a": 1e-7, "b": 0.018, "c": 8.0},
                                  "refit": {"a": 2e-7, "b": 0.05, "c": 5.0}}}
    return {"context": {"date": "2025-01-01", "kbench_schema_version": 1, "kbench": kbench},
            "benchmarks": b}


class KernelRenderTestCase(RenderTestCase):
    def setUp(self) -> None:
        super().setUp()
        self.doc = synthetic_document()

    def render_raw(self, doc: Dict[str, Any], item: str) -> str:
        """render.main without the PNG size check (empty figures compress small); checks exit
        status 0 and that both files exist; returns table.md."""
        out_dir = os.path.join(self.tmp.name, item.replace("/", "_") + "_raw")
        with contextlib.redirect_stdout(io.StringIO()):
            rc = render.main([self.write(doc), "--id", item, "--out-dir", out_dir])
        self.assertEqual(rc, 0)
        with open(os.path.join(out_dir, "figure.png"), "rb") as f:
            self.assertEqual(f.read(8), PNG_SIGNATURE)
        with open(os.path.join(out_dir, "table.md"), encoding="utf-8") as f:
            return f.read()


class Fig7Test(KernelRenderTestCase):
    def test_gflops_and_speedup_per_k(self):
        md = self.render(self.doc, "anzt2015/fig7")
        small = section(md, "### n = 100,000")
        self.assertEqual(header_cells(small, "k"), [
            "k", "cuBLAS ddot GFlop/s", "MDOT GFlop/s", "MDGM GFlop/s", "cuBLAS dgemv GFlop/s",
            "MDGM / cuBLAS ddot sequence"])
        # k = 2, n = 1e5: flops 4e5; times 20, 16, 7.5, 20 us -> 20, 25, 53.3, 20 GFlop/s;
        # speedup 20 / 7.5 = 2.67
        self.assertEqual(table_row(small, "2"), ["2", "20.0", "25.0", "53.3", "20.0", "2.67"])
        big = section(md, "### n = 1,000,000")
        # k = 4, n = 1e6: flops 8e6; times 400, 240, 100, 200 us -> 20, 33.3, 80, 40; 4.00
        self.assertEqual(table_row(big, "4"), ["4", "20.0", "33.3", "80.0", "40.0", "4.00"])

    def test_missing_variant_is_na(self):
        self.doc["benchmarks"] = [e for e in self.doc["benchmarks"]
                                  if not (e["figure"] == "fig7" and e["variant"] == "mdgm")]
        md = self.render(self.doc, "anzt2015/fig7")
        row = table_row(section(md, "### n = 100,000"), "1")
        self.assertEqual(row[3], "n/a")  # MDGM GFlop/s
        self.assertEqual(row[5], "n/a")  # speedup needs MDGM

    def test_header_names_the_gpu_and_bandwidth(self):
        md = self.render(self.doc, "anzt2015/fig7")
        self.assertIn("on NVIDIA H100", md.splitlines()[0])
        self.assertIn("read 3000 GB/s", md)


class Fig8Test(KernelRenderTestCase):
    def test_left_table(self):
        md = self.render(self.doc, "anzt2015/fig8")
        left = section(md, "### Left")
        self.assertEqual(header_cells(left, "n"), [
            "n", "cuBLAS ddot GFlop/s", "MDOT GFlop/s", "cuBLAS(2) GFlop/s", "MDOT(2) GFlop/s",
            "MDOT / cuBLAS ddot", "MDOT(2) / cuBLAS(2)"])
        # n = 1e6: 2e6 flops / 4 us = 500, / 2 us = 1000; 4e6 / 8 us = 500, / 2.5 us = 1600;
        # ratios 4/2 = 2, 8/2.5 = 3.2
        self.assertEqual(table_row(left, "1,000,000"),
                         ["1,000,000", "500", "1000", "500", "1600", "2.00", "3.20"])

    def test_region_winner_and_ratio(self):
        md = self.render(self.doc, "anzt2015/fig8")
        right = section(md, "### Right")
        self.assertEqual(header_cells(right, "n"), ["n", "k = 1", "k = 32"])
        # (1e3, 1): 3/2 = 1.5; (1e3, 32): 12/4 = 3; (1e7, 1): 60/50 = 1.2; (1e7, 32): gemv 1000/800
        self.assertEqual(table_row(right, "1,000"), ["1,000", "MDGM 1.50x", "MDGM 3.00x"])
        self.assertEqual(table_row(right, "10,000,000"),
                         ["10,000,000", "MDGM 1.20x", "gemv 1.25x"])
        self.assertIn("MDGM is faster in 3 of 4 (n, k) points", md)

    def test_region_cell_without_gemv_is_na(self):
        self.doc["benchmarks"] = [e for e in self.doc["benchmarks"] if not (
            e["variant"] == "cublas_gemv" and e["n"] == 1_000 and e["k"] == 32)]
        md = self.render(self.doc, "anzt2015/fig8")
        self.assertEqual(table_row(section(md, "### Right"), "1,000")[2], "n/a")


class Fig9Test(KernelRenderTestCase):
    def test_rates_bandwidth_fraction_and_speedup(self):
        md = self.render(self.doc, "anzt2015/fig9")
        self.assertEqual(header_cells(md, "n"), [
            "n", "data in", "cuBLAS (scal + 2 axpy) GFlop/s", "cuBLAS (scal + 2 axpy) GB/s",
            "cuBLAS (scal + 2 axpy) % read BW", "fused p_update GFlop/s", "fused p_update GB/s",
            "fused p_update % read BW", "speedup fused / cuBLAS"])
        # n = 1e7: cuBLAS 4e7 flops / 200 us = 200 GFlop/s, 8 (8e7 + 3) B / 200 us = 3200 GB/s
        # = 107 % of 3000; fused 4e7 / 100 us = 400, 8 (4e7 + 4) / 100 us = 3200 GB/s; 2.00
        self.assertEqual(table_row(md, "10,000,000"), [
            "10,000,000", "DRAM", "200", "3200", "107 %", "400", "3200", "107 %", "2.00"])
        # p, v, r at n = 1e3: 24 kB, within the L2 cache; at 1e7: 240 MB, beyond it
        self.assertEqual(table_row(md, "1,000")[1], "L2")
        del self.doc["context"]["kbench"]["gpu"]["l2_cache_bytes"]
        md = self.render(self.doc, "anzt2015/fig9", out_name="no_l2")
        self.assertEqual(table_row(md, "1,000")[1], "n/a")

    def test_min_speedup_over_large_n(self):
        md = self.render(self.doc, "anzt2015/fig9")
        # n >= 1e7: 200/100 = 2.0 and 2100/1000 = 2.1 -> minimum 2.00 at 1e7 (the 1e3 point's
        # 3.00 does not count)
        self.assertIn("Minimum speedup fused / cuBLAS over n >= 1e7: 2.00 (at n = 10,000,000); "
                      "target >= 1.9: met", md)
        self.doc["benchmarks"] = [e for e in self.doc["benchmarks"]
                                  if not (e["figure"] == "fig9" and e["n"] == 10_000_000)]
        for e in self.doc["benchmarks"]:
            if e["figure"] == "fig9" and e["variant"] == "p_update" and e["n"] == 100_000_000:
                e["seconds"] = 1400e-6  # 2100 / 1400 = 1.5
        md = self.render(self.doc, "anzt2015/fig9", out_name="slow")
        self.assertIn("over n >= 1e7: 1.50 (at n = 100,000,000); target >= 1.9: not met", md)

    def test_roofline_bandwidth_from_machine_when_runner_has_none(self):
        del self.doc["context"]["kbench"]["vector_kernels"]["read_gbps"]
        self.doc["context"]["kbench"]["machine"]["read_gbps"] = 1600.0
        md = self.render(self.doc, "anzt2015/fig9")
        self.assertEqual(table_row(md, "10,000,000")[4], "200 %")  # 3200 / 1600
        self.assertIn("Measured read bandwidth (roofline): 1600 GB/s", md)

    def test_no_bandwidth_gives_na_fraction(self):
        del self.doc["context"]["kbench"]["vector_kernels"]["read_gbps"]
        del self.doc["context"]["kbench"]["machine"]
        md = self.render(self.doc, "anzt2015/fig9")
        self.assertEqual(table_row(md, "10,000,000")[4], "n/a")


class Fig10Test(KernelRenderTestCase):
    def test_times_savings_and_fits(self):
        md = self.render(self.doc, "anzt2015/fig10")
        self.assertEqual(header_cells(md, "n"), [
            "n", "cuBLAS sequence (us)", "merged sequence (us)", "measured savings",
            "paper F(n)", "refit F(n)"])
        # n = 1e3: savings 1 - 20/50 = 60 %; paper (1 / (1e-4 + 0.018) + 8) / 100 = 63.2 %;
        # refit (1 / (2e-4 + 0.05) + 5) / 100 = 24.9 %
        self.assertAlmostEqual((1 / (1e-4 + 0.018) + 8) / 100, 0.632486, places=6)
        self.assertEqual(table_row(md, "1,000"),
                         ["1,000", "50.0", "20.0", "60.0 %", "63.2 %", "24.9 %"])
        # n = 1e7: savings 1 - 900/1000 = 10 %; paper (1 / 1.018 + 8) / 100 = 8.98 %
        self.assertEqual(table_row(md, "10,000,000")[3:5], ["10.0 %", "8.98 %"])
        self.assertIn("- paper (K40): a = 1.00e-07, b = 0.0180, c = 8.00", md)
        self.assertIn("- refit (this GPU): a = 2.00e-07, b = 0.0500, c = 5.00", md)

    def test_savings_computed_when_not_stored(self):
        for e in self.doc["benchmarks"]:
            e.pop("savings", None)
        md = self.render(self.doc, "anzt2015/fig10")
        self.assertEqual(table_row(md, "100,000")[3], "50.0 %")  # 1 - 30/60

    def test_failed_refit_renders_na(self):
        self.doc["context"]["kbench"]["dot_savings_fit"]["refit"] = {
            "error": "kbench::models::fit_dot_savings: n_and_savings.size() = 2"}
        md = self.render(self.doc, "anzt2015/fig10")
        self.assertEqual(table_row(md, "1,000")[5], "n/a")
        self.assertIn("- refit (this GPU): n/a (fit failed: kbench::models::fit_dot_savings", md)

    def test_savings_curve(self):
        self.assertAlmostEqual(study.savings_curve(0.0, {"a": 1e-7, "b": 0.018, "c": 8.0}),
                               (1 / 0.018 + 8) / 100)
        self.assertTrue(study.savings_curve(1.0, {}) != study.savings_curve(1.0, {}))  # NaN
        self.assertTrue(study.savings_curve(1.0, {"a": 0, "b": 0, "c": 1}) !=
                        study.savings_curve(1.0, {"a": 0, "b": 0, "c": 1}))


class EmptyResultsTest(KernelRenderTestCase):
    def test_every_id_renders_na_without_entries(self):
        self.doc["benchmarks"] = []
        del self.doc["context"]["kbench"]["dot_savings_fit"]
        for item in study.RENDERERS:
            md = self.render_raw(self.doc, item)
            self.assertIn("n/a", md, item)

    def test_bare_context_renders(self):
        doc = {"context": {"kbench_schema_version": 1}, "benchmarks": []}
        for item in study.RENDERERS:
            self.assertIn("n/a", self.render_raw(doc, item), item)

    def test_other_figures_entries_are_ignored(self):
        self.doc["benchmarks"] = [e for e in self.doc["benchmarks"] if e["figure"] == "fig9"]
        md = self.render_raw(self.doc, "anzt2015/fig7")
        self.assertIn("n/a: the results hold no fig7 entries", md)


if __name__ == "__main__":
    unittest.main()
