#!/usr/bin/env python3
"""Tests of the yamazaki2014 CA-GMRES renderers (analysis/studies/yamazaki2014_ca_gmres.py) on
the synthetic document analysis/testdata/synthetic_yamazaki2014_ca_gmres.json (invented numbers:
GMRES(30) CGS2 at 10 ms per restart on matA, CA-GMRES(15, 30) CholQR at 5 ms, a breakdown and a
TSQR fallback), checked against hand-computed cells; with_successors() adds the rows of the
methods that superseded the paper's (GMRES low-sync at 8 ms, CA-GMRES two-stage at 4 ms)."""

from __future__ import annotations

import copy
import json
import os
import unittest
from typing import Any, Dict

from testutil import HERE, RenderTestCase, header_cells, section, table_row

TESTDATA = os.path.join(HERE, "testdata")


def load() -> Dict[str, Any]:
    with open(os.path.join(TESTDATA, "synthetic_yamazaki2014_ca_gmres.json"), encoding="utf-8") as f:
        return json.load(f)


def with_successors(doc: Dict[str, Any]) -> Dict[str, Any]:
    """doc plus matA's GMRES(30) CGS2 low-sync row (8 ms per restart) and a two-stage copy of
    its CA-GMRES(15, 30) CholQR row (4 ms per restart; the per-block row takes 5 ms)."""
    doc = copy.deepcopy(doc)
    rows = doc["benchmarks"]
    cgs2 = next(e for e in rows if e.get("name") == "fig14/matA/gmres/cgs2")
    lowsync = dict(cgs2, name="fig14/matA/gmres/lowsync", label="GMRES(30) CGS2 low-sync",
                   orth="lowsync", borth=None, per_restart_seconds=0.008, orth_seconds=0.006,
                   speedup=1.25)
    block = next(e for e in rows if e.get("name") == "fig14/matA/ca_gmres/s=15/monomial/cholqr")
    two = dict(block, name=block["name"] + "/two_stage", borth="two_stage",
               label="CA-GMRES(15, 30) cholqr two-stage", per_restart_seconds=0.004,
               orth_seconds=0.002, speedup=2.5)
    rows.extend([lowsync, two])
    return doc


def with_multi_gpu(doc: Dict[str, Any]) -> Dict[str, Any]:
    """doc plus matA's rows on 2 GPUs over NCCL (GMRES CGS2 at 6 ms per restart, CA-GMRES(15,
    30) CholQR at 3 ms: speedup 2.00; the other rows as on 1 GPU) and a failed 2-GPU
    host-staged worker of matB."""
    doc = copy.deepcopy(doc)
    rows = doc["benchmarks"]
    times = {"fig14/matA/gmres/cgs2": (0.006, 1.0),
             "fig14/matA/ca_gmres/s=15/monomial/cholqr": (0.003, 2.0)}
    for e in [r for r in rows if r.get("figure") == "fig14" and r.get("matrix") == "matA"]:
        t, sp = times.get(e["name"], (e.get("per_restart_seconds"), e.get("speedup")))
        rows.append(dict(e, name=e["name"].replace("matA/", "matA/P=2/nccl/"), gpus=2,
                         transport="nccl", per_restart_seconds=t, speedup=sp))
    rows.append({"name": "fig14/matB/P=2/host_staged", "figure": "fig14", "matrix": "matB",
                 "gpus": 2, "transport": "host_staged", "error": "mpiexec: no GPU on rank 1"})
    return doc


class CaGmresRenderTest(RenderTestCase):
    def setUp(self) -> None:
        super().setUp()
        self.ca = load()

    def test_fig14_table(self):
        md = self.render(self.ca, "yamazaki2014/fig14")
        a = section(md, "### matA")
        self.assertEqual(header_cells(a, "method"), [
            "method", "restarts", "Orth/restart (ms)", "TSQR/restart (ms)", "SpMV/restart (ms)",
            "total/restart (ms)", "speedup", "TSQR fallbacks"])
        self.assertEqual(table_row(a, "GMRES(30) CGS2"),
                         ["GMRES(30) CGS2", "4", "8.00", "n/a", "2.00", "10.0", "1.00", "n/a"])
        self.assertEqual(table_row(a, "CA-GMRES(15, 30) cholqr")[5:7], ["5.00", "2.00"])
        self.assertEqual(table_row(a, "CA-GMRES(15, 30) caqr (max_iterations)")[1], "4")
        # best CA-GMRES of s > 1: CholQR at 5 ms, speedup 2.00 against the paper's 2.03
        self.assertIn("- matA: CA-GMRES(15, 30) cholqr at 5.00 ms per restart, speedup 2.00 over "
                      "GMRES CGS2 (yamazaki2014, 1 GPU: 2.03); target >= 1.5: met", md)
        self.assertIn("- matB: CA-GMRES(15, 30) cholqr2 at 80.0 ms per restart, speedup 1.25", md)
        self.assertIn("target >= 1.5: not met", md)

    def test_fig14_timing_mode_row(self):
        # a solve that converged within its first cycle, timed over 3 full cycles (90 steps)
        for e in self.ca["benchmarks"]:
            if e.get("name") == "fig14/matA/gmres/cgs2":
                e.update(restarts=1, iterations=20, timed_iterations=90, timing_mode=True)
        md = self.render(self.ca, "yamazaki2014/fig14", out_name="timing")
        self.assertEqual(table_row(section(md, "### matA"), "GMRES(30) CGS2")[1],
                         "1 (timed over 3)")

    def test_fig14_successor_rows(self):
        md = self.render(with_successors(self.ca), "yamazaki2014/fig14")
        a = section(md, "### matA")
        self.assertEqual(table_row(a, "GMRES(30) CGS2 low-sync")[5:7], ["8.00", "1.25"])
        self.assertEqual(table_row(a, "CA-GMRES(15, 30) cholqr two-stage")[5:7], ["4.00", "2.50"])
        # The paper's best CA-GMRES stays the per-block CholQR row (two-stage rows are kbench's).
        self.assertIn("- matA: CA-GMRES(15, 30) cholqr at 5.00 ms per restart, speedup 2.00", md)
        successors = section(md, "### Successors of the paper's methods")
        self.assertIn("- matA: GMRES(30) CGS2 low-sync at 8.00 ms per restart, speedup 1.25 over "
                      "GMRES CGS2", successors)
        self.assertIn("- matA: CA-GMRES(15, 30) cholqr two-stage at 4.00 ms per restart, speedup "
                      "2.50 over GMRES CGS2 and 1.25 over the per-block CA-GMRES(15, 30) cholqr",
                      successors)
        self.assertNotIn("matB", successors)
        # Without such rows the section says so.
        plain = self.render(self.ca, "yamazaki2014/fig14", "plain")
        self.assertIn("n/a: the results hold no low-sync or two-stage rows",
                      section(plain, "### Successors of the paper's methods"))

    def test_fig15_and_fig12_with_successors(self):
        doc = with_successors(self.ca)
        md = self.render(doc, "yamazaki2014/fig15")
        rows = [line for line in md.splitlines()
                if line.startswith("| matA | CA-GMRES(15, 30) cholqr two-stage |")]
        self.assertEqual(rows[0].strip("|").split("|")[2].strip(), "0.400")
        # fig12 reads the per-block rows only.
        self.assertEqual(table_row(self.render(doc, "yamazaki2014/fig12"), "matA"),
                         ["matA", "G3_circuit", "1,000", "5.00", "1.9900 / 1.9800", "2.00e+09",
                          "30.0"])

    def test_fig12_from_fig14_entries(self):
        md = self.render(self.ca, "yamazaki2014/fig12")
        self.assertEqual(table_row(md, "matA"),
                         ["matA", "G3_circuit", "1,000", "5.00", "1.9900 / 1.9800", "2.00e+09",
                          "30.0"])
        self.assertEqual(table_row(md, "matB")[4:6], ["n/a", "3.00e+16"])

    def test_fig15_normalized(self):
        md = self.render(self.ca, "yamazaki2014/fig15")
        rows = [line for line in md.splitlines() if line.startswith("| matA | CA-GMRES(15, 30) cholqr |")]
        self.assertEqual(rows[0].strip("|").split("|")[2].strip(), "0.500")

    def test_fig14_on_several_gpus(self):
        md = self.render(with_multi_gpu(self.ca), "yamazaki2014/fig14")
        # The one-GPU sections read the one-GPU rows only.
        self.assertEqual(table_row(section(md, "### matA"), "GMRES(30) CGS2")[5], "10.0")
        two = section(md, "### 2 GPUs, NCCL")
        self.assertEqual(table_row(two, "GMRES(30) CGS2")[5:7], ["6.00", "1.00"])
        self.assertIn("- matA: CA-GMRES(15, 30) cholqr at 3.00 ms per restart, speedup 2.00 over "
                      "GMRES CGS2; target >= 1.5: met", two)
        failed = section(md, "### 2 GPUs, host-staged MPI")
        self.assertIn("- matB: the worker failed: mpiexec: no GPU on rank 1", failed)
        scaling = section(md, "### Scaling")
        cells = [[c.strip() for c in line.strip("|").split("|")]
                 for line in scaling.splitlines() if line.startswith("| matA |")]
        self.assertEqual(cells, [
            ["matA", "1 GPU", "10.0", "CA-GMRES(15, 30) cholqr", "5.00", "2.00"],
            ["matA", "2 GPUs, NCCL", "6.00", "CA-GMRES(15, 30) cholqr", "3.00", "2.00"]])
        self.assertNotIn("Dry run", md)
        dry = with_multi_gpu(self.ca)
        dry["context"]["kbench"]["shared_gpus"] = 2
        self.assertIn("- **Dry run** (KBENCH_SHARE_GPUS=2): the ranks of the multi-GPU runs shared "
                      "the visible GPUs", self.render(dry, "yamazaki2014/fig14", "dry"))
        fig15 = self.render(with_multi_gpu(self.ca), "yamazaki2014/fig15", "f15")
        rows = [line for line in section(fig15, "### 2 GPUs, NCCL").splitlines()
                if line.startswith("| matA | CA-GMRES(15, 30) cholqr |")]
        self.assertEqual(rows[0].strip("|").split("|")[2].strip(), "0.500")

    def test_fig13_errors(self):
        md = self.render(self.ca, "yamazaki2014/fig13")
        s20 = section(md, "### CA-GMRES(20, 30)")
        self.assertEqual(table_row(s20, "MGS"),
                         ["MGS", "converged", "4", "0", "1.00e-10", "1.00e-11", "1.00e-09",
                          "1.00e-16", "2.00e-16"])
        self.assertEqual(table_row(s20, "SVQR")[1:5], ["breakdown", "4", "4", "n/a"])
        self.assertIn("### CA-GMRES(30, 30)", md)

    def test_rerender_is_identical(self):
        first = self.render(self.ca, "yamazaki2014/fig14", "a")
        second = self.render(self.ca, "yamazaki2014/fig14", "b")
        self.assertEqual(first, second)
        with open(os.path.join(self.tmp.name, "a", "figure.png"), "rb") as f1, \
                open(os.path.join(self.tmp.name, "b", "figure.png"), "rb") as f2:
            self.assertEqual(f1.read(), f2.read())


if __name__ == "__main__":
    unittest.main()
