#!/usr/bin/env python3
"""Tests of the yamazaki2014 MPK time renderer (analysis/studies/yamazaki2014_mpk_time.py) on a
small synthetic document built here (invented numbers: one stand-in of cant; on 2 GPUs over
NCCL s SpMVs take 10 ms and MPK 11, 9 and 8.8 ms at s = 1, 2, 5, its SpMV part 6.5, 6.6 and
7 ms, the model 1.00x, 1.10x and 1.25x of it; on 1 GPU 6 ms against 6.2 and 6.3 ms; the 2-GPU
host-staged run failed), rendered through render.main and checked against hand-computed cells,
plus an empty document and byte-identical re-renders."""

from __future__ import annotations

import copy
import os
import unittest
from typing import Any, Dict, List

from testutil import RenderTestCase, header_cells, section, table_row

FIG8 = "yamazaki2014/fig8"


def read_bytes(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()


def step(s: int, calls: int, seconds: float, products: float, model: float,
         ratio: float) -> Dict[str, Any]:
    return {"s": s, "calls": calls, "last_call_steps": 0, "seconds": seconds,
            "products_seconds": products, "exchanges": calls, "max_rel_error": 1e-15,
            "model": {"seconds": model, "products_seconds": products, "ratio": ratio}}


def run(ranks: int, transport: str, baseline: Dict[str, Any],
        mpk: List[Dict[str, Any]]) -> Dict[str, Any]:
    return {"name": f"fig8/mesh3d/P={ranks}/{transport}", "item": "fig8", "matrix": "mesh3d",
            "ranks": ranks, "transport": transport, "device": "gpu", "n": 1000, "nnz": 27000,
            "vectors": 100, "link": {"latency_seconds": 2e-5,
                                     "bandwidth_bytes_per_second": 2e10},
            "baseline": baseline, "mpk": mpk}


def synthetic() -> Dict[str, Any]:
    nccl2 = run(2, "nccl",
                {"seconds": 0.010, "products_seconds": 0.006, "exchanges": 100,
                 "model": {"seconds": 0.0105, "products_seconds": 0.006, "ratio": 1.05}},
                [step(1, 100, 0.011, 0.0065, 0.011, 1.0),
                 step(2, 50, 0.009, 0.0066, 0.0099, 1.1),
                 step(5, 20, 0.0088, 0.007, 0.011, 1.25)])
    one = run(1, "host_staged",
              {"seconds": 0.006, "products_seconds": 0.006, "exchanges": 100,
               "model": {"seconds": 0.00612, "products_seconds": 0.006, "ratio": 1.02}},
              [step(1, 100, 0.0062, 0.0062, 0.00558, 0.9),
               step(2, 50, 0.0063, 0.0063, 0.005985, 0.95)])
    failed = {"name": "fig8/mesh3d/P=2/host_staged", "item": "fig8", "matrix": "mesh3d",
              "ranks": 2, "transport": "host_staged", "error": "worker failed", "exit_code": 1}
    return {
        "context": {
            "date": "2026-01-01T00:00:00+00:00", "kbench_schema_version": 1,
            "kbench": {
                "schema_version": 1, "id": FIG8, "argv": ["kbench", "reproduce", FIG8],
                "gpu": {"name": "Synthetic GPU"},
                "matrix_set": {"name": "synthetic-fig8", "manifest": ""},
                "matrices": {"mesh3d": {"source": "laplacian_3d_27pt", "spec": {},
                                        "stands_for": "cant (synthetic 3D mesh)",
                                        "stats": {"num_rows": 1000, "nnz": 27000}}},
                "parameters": {"vectors": 100, "steps": [1, 2, 5], "basis": "monomial",
                               "partition": "natural", "repetitions": 10, "gpus": 2,
                               "gpu_counts": [1, 2]},
                "notes": ["synthetic note"]}},
        "benchmarks": [nccl2, one, failed]}


class Fig8Test(RenderTestCase):
    def setUp(self) -> None:
        super().setUp()
        self.fig8 = synthetic()

    def test_run_table(self):
        md = self.render(self.fig8, FIG8)
        two = section(md, "#### 2 GPUs, nccl")
        self.assertEqual(header_cells(two, "s"), [
            "s", "calls", "MPK (ms)", "SpMV part (ms)", "exchange and overhead (ms)",
            "saving vs s SpMVs", "saving vs MPK s = 1", "model (ms)", "model / measured",
            "model SpMV part (ms)", "exchanges", "max rel. error"])
        # s = 2: 9 ms, 6.6 ms local, 2.4 ms exchanging; 1 - 9/10 and 1 - 9/11
        self.assertEqual(table_row(two, "2"), [
            "2", "50", "9.00", "6.60", "2.40", "10.0 %", "18.2 %", "9.90", "1.10", "6.60", "50",
            "1.00e-15"])
        self.assertEqual(table_row(two, "5")[5:7], ["12.0 %", "20.0 %"])
        # the baseline: 10 ms, 6 ms local; 1 - 10/11 below MPK with s = 1
        self.assertEqual(table_row(two, "s SpMVs")[1:9], [
            "100", "10.0", "6.00", "4.00", "", "9.09 %", "10.5", "1.05"])
        one = section(md, "#### 1 GPU, host_staged")
        self.assertEqual(header_cells(one, "s")[4], "overhead (ms)")  # nothing is exchanged
        self.assertEqual(table_row(one, "2")[2:7], ["6.30", "6.30", "0", "-5.00 %", "-1.61 %"])
        self.assertIn("### mesh3d (stands for cant; n = 1,000, nnz = 27,000)", md)
        self.assertNotIn("#### 2 GPUs, host_staged", md)

    def test_best_s_and_paper_figure(self):
        md = section(self.render(self.fig8, FIG8), "### Best s per run")
        self.assertIn("- mesh3d, 2 GPUs, nccl: best s = 5 at 8.80 ms, 12.0 % below s SpMVs, "
                      "20.0 % below MPK with s = 1 (yamazaki2014 (3 GPUs, vs MPK s = 1): up to "
                      "16.0 %)", md)
        self.assertIn("- mesh3d, 1 GPU, host_staged: best s = 2 at 6.30 ms, -5.00 % below s "
                      "SpMVs", md)

    def test_model_summary(self):
        md = section(self.render(self.fig8, FIG8), "### Model vs measured")
        # |ratio - 1| = 0, 0.1, 0.25, 0.05 (2 GPUs) and 0.1, 0.05, 0.02 (1 GPU): 6 of 7 within
        # 15 %, median 5 %, the worst s = 5 on 2 GPUs
        self.assertIn("- 6 of 7 measured times within 15.0 % of the model; median |model / "
                      "measured - 1| = 5.00 %; worst: mesh3d, 2 GPUs, nccl, s = 5 (model / "
                      "measured 1.25). Goal (every point within 15.0 %): not met.", md)

    def test_failed_run_and_parameters(self):
        md = self.render(self.fig8, FIG8)
        self.assertIn("- fig8/mesh3d/P=2/host_staged: failed (exit 1): worker failed", md)
        self.assertIn("m = 100 basis vectors per sweep", md)
        self.assertIn("s = 1, 2, 5; GPU counts 1, 2 of 2", md)
        self.assertIn("- synthetic note", md)
        self.assertIn("- Link of mesh3d, 2 GPUs, nccl: latency 20.0 us, bandwidth 20.0 GB/s", md)
        self.assertNotIn("- Link of mesh3d, 1 GPU", md)

    def test_missing_model_renders_na(self):
        doc = copy.deepcopy(self.fig8)
        for e in doc["benchmarks"][:2]:
            e["baseline"]["model"] = None
            for p in e["mpk"]:
                p["model"] = None
        md = self.render(doc, FIG8)
        self.assertEqual(table_row(section(md, "#### 2 GPUs, nccl"), "2")[7:9], ["n/a", "n/a"])
        self.assertIn("- n/a: no model next to a measurement", md)

    def test_empty_document(self):
        doc = copy.deepcopy(self.fig8)
        doc["benchmarks"] = []
        md = self.render(doc, FIG8)
        self.assertIn("n/a: the results hold no fig8 entries.", md)

    def test_rerender_in_place_changes_nothing(self):
        md = self.render(self.fig8, FIG8, "same")
        paths = [os.path.join(self.tmp.name, "same", f) for f in ("table.md", "figure.png")]
        before = [(os.stat(p).st_mtime_ns, read_bytes(p)) for p in paths]
        self.assertEqual(self.render(self.fig8, FIG8, "same"), md)
        after = [(os.stat(p).st_mtime_ns, read_bytes(p)) for p in paths]
        self.assertEqual(before, after)  # same digest: neither file rewritten

if __name__ == "__main__":
    unittest.main()
