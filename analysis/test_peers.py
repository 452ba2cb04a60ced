"""Tests of analysis/studies/peers.py: peers/gmres, a fixture results file with two matrices,
kbench's two orthogonalizations, CuPy and SciPy (one skipped), rendered; the speedups over each
peer, the summary against issue 28's 1.5x goal and the skipped peer's reason are checked.
peers/bicgstab: kbench's merged and graph forms against SciPy (CuPy skipped: no bicgstab), the
graph form against the fastest peer."""

from __future__ import annotations

import json
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import kbench_results  # noqa: E402
from studies import peers  # noqa: E402


def entry(matrix, key, label, device, steps, seconds, figure="gmres", **extra):
    e = {"name": f"{figure}/{matrix}/{key}", "figure": figure, "matrix": matrix, "n": 1000000,
         "nnz": 5000000, "key": key, "implementation": label, "device": device, "restart": 30,
         "tolerance": 1e-8, "steps": steps, "seconds": seconds,
         "seconds_per_step": seconds / steps, "true_residual": 9e-9, "status": "converged"}
    e.update(extra)
    return e


def fixture():
    es = [
        entry("A", "kbench_cgs2", "kbench GMRES(30) CGS2", "gpu", 300, 0.060),
        entry("A", "kbench_lowsync", "kbench GMRES(30) low-sync CGS2", "gpu", 300, 0.045),
        entry("A", "cupy", "CuPy gmres", "gpu", 300, 0.090, version="cupy 14.0.0"),
        entry("A", "scipy", "SciPy gmres", "cpu", 300, 9.0, version="scipy 1.10.1"),
        entry("B", "kbench_cgs2", "kbench GMRES(30) CGS2", "gpu", 100, 0.020),
        entry("B", "kbench_lowsync", "kbench GMRES(30) low-sync CGS2", "gpu", 100, 0.025),
        {"name": "gmres/B/cupy", "figure": "gmres", "matrix": "B", "key": "cupy",
         "implementation": "CuPy gmres", "device": "gpu", "skipped": "cupy is not installed"},
        entry("B", "scipy", "SciPy gmres", "cpu", 120, 6.0, version="scipy 1.10.1"),
    ]
    ctx = {"kbench_schema_version": 1,
           "kbench": {"id": "peers/gmres", "peers": {"restart": 30, "tolerance": 1e-8,
                                                     "max_steps": 600, "notes": ["a note"]}}}
    return {"context": ctx, "benchmarks": es}


class RenderGmres(unittest.TestCase):
    def test_table_speedups_and_summary(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "results.json")
            with open(path, "w") as f:
                json.dump(fixture(), f)
            res = kbench_results.load(path)
            written = peers.render_gmres(res, d)
            self.assertTrue(any(w.endswith("table.md") for w in written))
            with open(os.path.join(d, "table.md")) as f:
                text = f.read()
        # A: kbench's best per step is low-sync (150 us); CuPy 300 us -> 2.00x per step,
        # 0.090 / 0.045 = 2.00x to solution; SciPy 30000 us -> 200x.
        self.assertIn("| CuPy gmres (cupy 14.0.0) | gpu | 300 | 300 | 0.0900 | 9.00e-09 | "
                      "converged | 2.00 | 2.00 |", text)
        self.assertIn("| SciPy gmres (scipy 1.10.1) | cpu | 300 | 30000 | 9.00 | 9.00e-09 | "
                      "converged | 200 | 200 |", text)
        # B: kbench's best is CGS2 (200 us, 0.020 s): SciPy 250x per step, 300x to solution.
        self.assertIn("| SciPy gmres (scipy 1.10.1) | cpu | 120 | 50000 | 6.00 | 9.00e-09 | "
                      "converged | 250 | 300 |", text)
        # B: CuPy skipped, with its reason; no CuPy summary number.
        self.assertIn("cupy is not installed", text)
        self.assertRegex(text, r"\| B \| n/a \| n/a \|")
        self.assertIn("1 of 1 matrices per step", text)
        self.assertIn("- a note", text)


def bicgstab_fixture():
    es = []
    for m, (merged, graph, scipy) in {"A": (0.050, 0.040, 8.0), "B": (0.30, 0.40, 0.2)}.items():
        es += [entry(m, "kbench_merged", "kbench BiCGSTAB merged", "gpu", 200, merged,
                     figure="bicgstab"),
               entry(m, "kbench_graph", "kbench BiCGSTAB graph", "gpu", 200, graph,
                     figure="bicgstab"),
               {"name": f"bicgstab/{m}/cupy", "figure": "bicgstab", "matrix": m, "key": "cupy",
                "implementation": "CuPy bicgstab", "device": "gpu",
                "skipped": "cupy 14.2.0 has no bicgstab"},
               entry(m, "scipy", "SciPy bicgstab", "cpu", 210, scipy, figure="bicgstab",
                     version="scipy 1.10.1")]
    ctx = {"kbench_schema_version": 1,
           "kbench": {"id": "peers/bicgstab", "peers": {"solver": "bicgstab", "tolerance": 1e-8,
                                                        "max_steps": 500, "notes": []}}}
    return {"context": ctx, "benchmarks": es}


class RenderBicgstab(unittest.TestCase):
    def test_graph_form_against_the_fastest_peer(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "results.json")
            with open(path, "w") as f:
                json.dump(bicgstab_fixture(), f)
            written = peers.render_bicgstab(kbench_results.load(path), d)
            self.assertTrue(any(w.endswith("table.md") for w in written))
            with open(os.path.join(d, "table.md")) as f:
                text = f.read()
        self.assertIn("at most 500 iterations", text)
        self.assertIn("| implementation | device | iterations | us / iteration |", text)
        self.assertIn("cupy 14.2.0 has no bicgstab", text)
        # A: SciPy 8.0 s over the graph form's 0.040 s -> 200x; per iteration
        # (8.0 / 210) / (0.040 / 200) = 190.
        self.assertIn("| A | SciPy bicgstab | 200 | 190 |", text)
        # B: the graph form (0.40 s) is slower than SciPy (0.2 s): 0.500x.
        self.assertIn("| B | SciPy bicgstab | 0.500 |", text)
        self.assertIn("faster to solution on 1 of 2 matrices", text)


if __name__ == "__main__":
    unittest.main()
