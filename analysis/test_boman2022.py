#!/usr/bin/env python3
"""Tests of the boman2022 renderers (analysis/studies/boman2022.py) on a document built here
(invented numbers): one matrix on the GPU and the CPU, not restarted and restarted (m = 30),
s = 1, 2, 4, 8, with one CPU point skipped by the time budget. The GPU block speedups peak at
s = 4 (an interior optimum: boman2022's message 2 holds), the CPU ones fall below 1 from s = 2
while the GPU's exceed 1 (message 1 holds at s = 2, 4); the model points, the calibrated-cost
table and the vanbody table are checked against hand-computed values."""

from __future__ import annotations

import unittest
from typing import Any, Dict, List

from testutil import RenderTestCase, section, table_row

from studies import boman2022 as study  # noqa: E402
import kbench_results  # noqa: E402

GPU_SPEEDUP = {1: 1.0, 2: 1.5, 4: 2.0, 8: 1.25}    # T(s x GMRES) / T(BGMRES)
CPU_SPEEDUP = {1: 1.0, 2: 0.5, 4: 0.25, 8: None}  # s = 8: skipped (budget)
MODEL = {1: 1.0, 2: 1.25, 4: 2.5, 8: 1.0}          # model / measured: 1, 0.833, 1.25, 0.8


def speedup_entry(device: str, restart: Any, s: int, speedup: Any) -> Dict[str, Any]:
    name = f"speedup/{device}/M/restart={restart or 'none'}/s={s}"
    base = {"name": name, "figure": "speedup", "device": device, "matrix": "M", "n": 1000,
            "nnz": 5000, "restart": restart, "s": s}
    if speedup is None:
        base["skipped"] = "CPU time budget of 12 s per matrix and restart used up"
        return base
    gmres = 0.1 * s
    base.update({
        "gmres_seconds": gmres, "gmres_iterations": 100.0, "gmres_status": "converged",
        "bgmres_seconds": gmres / speedup, "bgmres_iterations": 100 // s + 10,
        "bgmres_status": "converged", "pseudo_seconds": gmres / 2.0, "pseudo_iterations": 100,
        "pseudo_status": "converged", "speedup_block": speedup, "speedup_pseudo": 2.0,
        "model_speedup_block": MODEL[s] if device == "gpu" else speedup,
        "model_speedup_pseudo": 2.0,
        "model_speedup_block_s1": MODEL[s] if device == "gpu" else speedup,
        "model_speedup_pseudo_s1": 2.0})
    return base


def document() -> Dict[str, Any]:
    es: List[Dict[str, Any]] = []
    for restart in (None, 30):
        for s in (1, 2, 4, 8):
            es.append(speedup_entry("gpu", restart, s, GPU_SPEEDUP[s]))
            es.append(speedup_entry("cpu", restart, s, CPU_SPEEDUP[s]))
    for s, steps in ((5, 200), (10, 120)):
        es.append({"name": f"vanbody/V/s={s}/restart={4270 // s}", "figure": "vanbody",
                   "device": "gpu", "matrix": "V", "n": 500, "nnz": 2500, "s": s,
                   "restart": 4270 // s, "block_steps": steps, "total_iterations": steps * s,
                   "status": "converged", "true_residual": 5e-9, "seconds": 0.5,
                   "paper_total_iterations": 1000 if s == 5 else None})
    costs = {dev: {"M": {"alpha": 2e-5, "alpha_block": 3e-5, "alpha_pseudo": 4e-5,
                         "beta": 1e-9, "gamma": {"1": 1e-12, "8": 5e-13},
                         "gamma_lsq": {"1": 2e-12, "8": 1e-12}}} for dev in ("gpu", "cpu")}
    ctx = {"kbench_schema_version": 1,
           "kbench": {"id": "boman2022/speedup",
                      "boman2022": {"costs": costs, "matrix": "V", "n": 500, "nnz": 2500,
                                    "stands_for": "vanbody", "notes": ["a note"]}}}
    return {"context": ctx, "benchmarks": es}


class SpeedupTest(RenderTestCase):
    def test_tables_and_the_papers_two_messages(self):
        md = self.render(document(), "boman2022/speedup")
        gpu = section(md, "### GPU, M, not restarted")
        self.assertEqual(table_row(gpu, "4")[7:9], ["2.00", "2.00"])  # BGMRES, pseudo speedups
        self.assertEqual(table_row(gpu, "4")[2], "35 (converged)")    # 100 // 4 + 10
        cpu = section(md, "### CPU, M, restart m = 30")
        self.assertEqual(table_row(cpu, "8")[-1],
                         "CPU time budget of 12 s per matrix and restart used up")
        # Message 1: CPU below 1 where the GPU is above 1: s = 2 and 4, for both restarts.
        self.assertIn("holds in 4 cases", md)
        self.assertIn("M, not restarted, s = 2: CPU 0.500, GPU 1.50", md)
        # Message 2: the GPU's best s (not restarted) is 4, inside 1..8.
        self.assertIn("best s = 4 (speedup 2.00) over s = 1..8: holds (interior optimum)", md)
        # T(BGMRES) / T(pseudo) = (0.1 s / speedup) / (0.05 s) = 2 / speedup: on the GPU
        # (2 * 4/3 * 1 * 1.6)^(1/4) = 1.44 (both restarts), on the CPU (2 * 4 * 8)^(1/3) = 4.
        self.assertIn("GPU: geometric mean of T(BGMRES) / T(pseudo) = 1.44 over 8 points", md)
        self.assertIn("CPU: geometric mean of T(BGMRES) / T(pseudo) = 4.00 over 6 points", md)


class ModelTest(RenderTestCase):
    def test_costs_optimal_s_and_errors(self):
        doc = document()
        doc["context"]["kbench"]["id"] = "boman2022/model"
        md = self.render(doc, "boman2022/model")
        row = table_row(md, "GPU")
        self.assertEqual(row[2:9], ["20.0", "30.0", "40.0", "1.00", "1.00", "0.500 (s = 8)",
                                    "1.00 (s = 8)"])
        opt = section(md, "## Optimal s and model error")
        # Not restarted: measured best 4, model best 4 (2.5 is its largest); the worst model
        # error is |2.5 - 2| / 2 = 25 %.
        gpu_rows = [l for l in opt.splitlines() if l.startswith("| GPU | M | not restarted")]
        self.assertEqual(len(gpu_rows), 1)
        cells = [c.strip() for c in gpu_rows[0].strip("|").split("|")]
        self.assertEqual(cells[3:7], ["4", "4", "yes", "25.0"])

    def test_model_points_are_the_gpu_and_cpu_pairs(self):
        doc = document()
        path = self.write(doc)
        points = study.model_model_points(kbench_results.load(path))
        gpu = [p for p in points if p.model.startswith("Block GMRES speedup on the GPU")]
        # 8 GPU entries with a measured block speedup (4 s x 2 restarts); the CPU has 6 (its
        # s = 8 points were skipped), each with both model fields: 2 x (8 + 6) points.
        self.assertEqual(len(gpu), 8)
        self.assertEqual(len(points), 28)
        ratios = sorted(round(p.ratio, 4) for p in gpu)
        self.assertEqual(ratios, sorted([1.0, 0.8333, 1.25, 0.8] * 2))
        self.assertTrue(all(p.unit == "x" for p in points))


class VanbodyTest(RenderTestCase):
    def test_block_steps_and_the_papers_count(self):
        md = self.render(document(), "boman2022/vanbody")
        self.assertIn("Matrix: V (n = 500, nnz = 2500), standing in for vanbody.", md)
        self.assertEqual(table_row(md, "5")[1:3], ["854", "200"])
        self.assertEqual(table_row(md, "5")[-1], "1000")
        self.assertEqual(table_row(md, "10")[-1], "n/a")
        self.assertIn("- a note", md)


if __name__ == "__main__":
    unittest.main()
