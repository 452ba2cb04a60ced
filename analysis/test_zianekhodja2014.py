#!/usr/bin/env python3
"""Tests of the zianekhodja2014 renderers (analysis/studies/zianekhodja2014.py) on synthetic
documents built here (invented numbers), checked against hand-computed cells: tau, the
"faster by" gains, Delta, the model/measured ratio, Table 9's volumes and Fig. 9's efficiency."""

from __future__ import annotations

import copy
import unittest
from typing import Any, Dict, List

from testutil import RenderTestCase, table_row


def run(item: str, matrix: str, device: str, ranks: int, seconds: float, iterations: int = 20,
        variant: str = "natural+compressed", transport: str = "host_staged",
        **extra: Any) -> Dict[str, Any]:
    name = f"{item}/{matrix}/{variant}/{device}" + (f"/{transport}" if device == "gpu" else "")
    e = {"name": name + f"/P={ranks}", "item": item, "variant": variant, "device": device,
         "ranks": ranks, "n": 1000 * ranks, "nnz": 5000 * ranks, "seconds": seconds,
         "iterations": iterations, "seconds_per_iteration": seconds / iterations,
         "status": "converged", "prec": 1e-13, "restart": 16, "orth": "mgs",
         "partition_seconds": 0.0, "halo": {"words_received_total": 0}}
    if device == "gpu":
        e["transport"] = transport
    e.update(extra)
    return e


def document(entries: List[Dict[str, Any]]) -> Dict[str, Any]:
    return {"context": {"kbench_schema_version": 1,
                        "kbench": {"schema_version": 1, "id": "zianekhodja2014/x",
                                   "gpu": {"name": "Test GPU"},
                                   "parameters": {"restart": 16, "tolerance": 1e-12,
                                                  "max_iterations": 500, "repetitions": 3,
                                                  "gpus": 2, "cpu_ranks": 16}}},
            "benchmarks": entries}


class Zianekhodja2014RenderTest(RenderTestCase):
    def test_table2_tau_and_delta(self):
        doc = document([
            run("table2", "matA", "cpu", 16, 0.4),
            run("table2", "matA", "gpu", 2, 0.1, tau=4.0, delta=3e-15,
                model={"total": 0.0045}),  # measured 0.1 s / 20 = 5000 us -> 0.900
            {"name": "table2/matB/natural+compressed/cpu/P=16", "item": "table2",
             "variant": "natural+compressed", "error": "jacobi: zero diagonal", "exit_code": 1},
        ])
        md = self.render(doc, "zianekhodja2014/table2")
        self.assertEqual(table_row(md, "matA"),
                         ["matA", "2,000", "10,000", "16", "0.400", "2", "0.100", "4.00", "20",
                          "converged", "1.00e-13", "3.00e-15", "5000", "4500", "0.900"])
        self.assertIn("within 15.0 % of the measured time on 1 of 1 GPU runs", md)
        self.assertEqual(table_row(md, "matB")[4], "failed (exit 1)")
        self.assertIn("- table2/matB/natural+compressed/cpu/P=16: failed (exit 1): jacobi: zero "
                      "diagonal", md)

    def test_table5_gain_and_model_ratio(self):
        model = {"total": 0.006}  # seconds per iteration; measured 0.1 s / 20 = 0.005 -> 1.20
        doc = document([
            run("table5", "band", "cpu", 16, 2.0),
            run("table5", "band", "gpu", 2, 0.1, variant="natural+compressed", model=model),
            run("table5", "band", "gpu", 2, 0.16, variant="natural+bandwidth"),
        ])
        md = self.render(doc, "zianekhodja2014/table5")
        row = table_row(md, "band")
        # 1 - 0.1 / 0.16 = 37.5 %; tau = 2.0 / 0.1 = 20
        self.assertEqual(row[1:8], ["host_staged", "2", "2.00", "0.160", "0.100", "37.5 %",
                                    "20.0"])
        self.assertEqual(row[-1], "1.20")
        self.assertEqual(row[-2], "n/a")  # no model on the bandwidth run

    def test_table5_one_row_per_gpu_count_and_one_for_one_gpu(self):
        one = run("table5", "band", "gpu", 1, 0.4, variant="natural+compressed")
        shared = dict(one, name="table5/band/natural+bandwidth/gpu/nccl/P=1",
                      variant="natural+bandwidth", transport="nccl", same_run_as=one["name"])
        doc = document([
            one, shared,
            run("table5", "band", "gpu", 2, 0.25, variant="natural+bandwidth"),
            run("table5", "band", "gpu", 2, 0.2, variant="natural+compressed"),
            run("table5", "band", "gpu", 2, 0.16, variant="natural+bandwidth", transport="nccl"),
            run("table5", "band", "gpu", 2, 0.1, variant="natural+compressed", transport="nccl"),
            {"name": "table5/band/natural+bandwidth/gpu/nccl/P=4", "item": "table5",
             "variant": "natural+bandwidth", "error": "out of memory", "exit_code": 1},
        ])
        md = self.render(doc, "zianekhodja2014/table5")
        rows = [[c.strip() for c in l.strip().strip("|").split("|")] for l in md.splitlines()
                if l.startswith("| band |")]
        # P = 1: one row (nothing exchanged); P = 2: one per transport; P = 4: the failed run.
        self.assertEqual([r[1:3] for r in rows], [["none (1 GPU)", "1"], ["host_staged", "2"],
                                                  ["nccl", "2"], ["nccl", "4"]])
        self.assertEqual(rows[1][4:7], ["0.250", "0.200", "20.0 %"])
        self.assertEqual(rows[2][4:7], ["0.160", "0.100", "37.5 %"])
        self.assertEqual(rows[3][4], "failed (exit 1)")

    def test_table8_and_table9_from_the_same_runs(self):
        entries = [
            run("table8", "five", "gpu", 2, 0.2, variant="natural+compressed",
                halo={"words_received_total": 26000}),
            run("table8", "five", "gpu", 2, 0.07, variant="hypergraph+compressed",
                partition_seconds=12.5, halo={"words_received_total": 240}),
            run("table8", "five", "gpu", 2, 0.3, variant="natural+bandwidth",
                halo={"words_received_total": 182000}),
        ]
        md8 = self.render(document(entries), "zianekhodja2014/table8")
        self.assertEqual(table_row(md8, "five")[6], "65.0 %")  # 1 - 0.07 / 0.2
        md9 = self.render(document(copy.deepcopy(entries)), "zianekhodja2014/table9")
        self.assertEqual(table_row(md9, "five"),
                         ["five", "2", "182,000", "26,000", "240", "12.5", "-"])
        entries[1]["partition_cached"] = True
        entries[1]["partition_made_on"] = "cpu7, 2 ranks on 64 hardware threads"
        md9 = self.render(document(copy.deepcopy(entries)), "zianekhodja2014/table9")
        self.assertEqual(table_row(md9, "five")[-2:],
                         ["12.5 (cached)", "cpu7, 2 ranks on 64 hardware threads"])

    def test_fig9_efficiency_per_iteration(self):
        doc = document([
            run("fig9", "w", "gpu", 1, 0.10, iterations=20, variant="hypergraph+compressed",
                transport="nccl", model={"total": 0.005}),
            run("fig9", "w", "gpu", 2, 0.11, iterations=20, variant="hypergraph+compressed",
                transport="nccl"),
            run("fig9", "w", "gpu", 4, 0.132, iterations=24, variant="hypergraph+compressed",
                transport="nccl"),
        ])
        md = self.render(doc, "zianekhodja2014/fig9")
        rows = [l for l in md.splitlines() if l.startswith("| gpu nccl hypergraph+compressed |")]
        cells = [[c.strip() for c in r.strip().strip("|").split("|")] for r in rows]
        self.assertEqual([c[1] for c in cells], ["1", "2", "4"])
        # per iteration: 5.00 ms, 5.50 ms, 5.50 ms -> efficiency 100 %, 90.9 %, 90.9 %
        self.assertEqual([c[5] for c in cells], ["5.00", "5.50", "5.50"])
        self.assertEqual([c[6] for c in cells], ["100 %", "90.9 %", "90.9 %"])
        self.assertEqual(cells[0][8], "1.00")  # model 5 ms vs measured 5 ms
        self.assertNotIn("one run (natural + compressed, host-staged) stands for", md)
        doc["benchmarks"][0]["same_run_as"] = "fig9/w/natural+compressed/gpu/host_staged/P=1"
        self.assertIn("On 1 GPU nothing is exchanged: one run (natural + compressed, host-staged) "
                      "stands for every GPU series there.", self.render(doc, "zianekhodja2014/fig9"))


if __name__ == "__main__":
    unittest.main()
