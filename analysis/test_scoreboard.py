"""Tests of analysis/scoreboard.py: a fixture results tree written here (two GPUs, the GMRES and
MPK models, a file without model points), the numbers of models.md exactly, and that unchanged
input leaves the file untouched. The README.md it writes too: test_results_readme.py."""

from __future__ import annotations

import json
import os
import sys
import tempfile
import unittest
from typing import Any, Dict, List, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import scoreboard  # noqa: E402
from testutil import ResultsTreeTestCase, table_row  # noqa: E402

GMRES = "GMRES per-iteration (models/gmres_comm_model.hpp)"
MPK = "MPK time (models/mpk_model.hpp)"
# Ratios model / measured are multiples of 1/16 so that the expected percentages are exact.
GMRES_A = {"m1": (4.5, 4.0), "m2": (3.75, 4.0), "m3": (6.0, 4.0)}  # 1.125, 0.9375, 1.5
GMRES_B = {"m1": (4.25, 4.0), "m2": (3.5, 4.0)}                   # 1.0625, 0.875
MPK_A = {1: (4.25, 4.0), 2: (3.75, 4.0)}                           # 1.0625, 0.9375
MPK_A_BASELINE = (4.5, 4.0)                                        # 1.125


def doc(entries: List[Dict[str, Any]]) -> Dict[str, Any]:
    return {"context": {"kbench_schema_version": 1, "kbench": {}}, "benchmarks": entries}


def gmres_entries(points: Dict[str, Tuple[float, float]]) -> List[Dict[str, Any]]:
    out = []
    for m, (model, measured) in points.items():
        out.append({"item": "table2", "name": f"table2/{m}/natural+compressed/gpu/host_staged/P=1",
                    "device": "gpu", "model": {"total": model}, "seconds_per_iteration": measured})
        # CPU ranks carry no model: no point
        out.append({"item": "table2", "name": f"table2/{m}/natural+compressed/cpu/P=16",
                    "device": "cpu", "seconds_per_iteration": measured})
    return out


def mpk_entries() -> List[Dict[str, Any]]:
    steps = [{"s": s, "seconds": t, "model": {"seconds": m}} for s, (m, t) in MPK_A.items()]
    base = {"seconds": MPK_A_BASELINE[1], "model": {"seconds": MPK_A_BASELINE[0]}}
    return [{"item": "fig8", "matrix": "lap", "ranks": 2, "transport": "nccl", "mpk": steps,
             "baseline": base}]


class ScoreboardTest(ResultsTreeTestCase):
    def setUp(self) -> None:
        super().setUp()
        self.put("GPU_A", "zianekhodja2014/table2", doc(gmres_entries(GMRES_A)))
        self.put("GPU_A", "yamazaki2014/fig8", doc(mpk_entries()))
        self.put("GPU_B", "zianekhodja2014/table2", doc(gmres_entries(GMRES_B)))
        self.out = os.path.join(self.root, "models.md")

    def run_main(self) -> Tuple[int, str]:
        return self.run_scoreboard()

    def read(self) -> str:
        with open(self.out, encoding="utf-8") as f:
            return f.read()

    def test_numbers(self) -> None:
        rc, out = self.run_main()
        self.assertEqual(rc, 0)
        readme = os.path.join(self.root, "README.md")  # test_results_readme.py checks its text
        self.assertEqual(out, f"wrote {self.out}\nwrote {readme}\n")
        md = self.read()
        rows = [line for line in md.splitlines() if line.startswith("| ") and "---" not in line]
        self.assertEqual(len(rows), 4)  # header + (GMRES, A), (GMRES, B), (MPK, A)
        self.assertEqual(
            table_row(md, GMRES),  # the first GMRES row: GPU_A (sorted by model, then GPU)
            [GMRES, "GPU_A", "3", "12.5 %", "50.0 %",
             "table2/m3/natural+compressed/gpu/host_staged/P=1 (1.50)", "66.7 %", "not met"])
        self.assertIn("| " + " | ".join(
            [GMRES, "GPU_B", "2", "9.38 %", "12.5 %",
             "table2/m2/natural+compressed/gpu/host_staged/P=1 (0.875)", "100 %", "met"]) + " |",
            md)
        self.assertEqual(table_row(md, MPK),
                         [MPK, "GPU_A", "3", "6.25 %", "12.5 %",
                          "fig8/lap, 2 GPUs, nccl, s SpMVs (1.12)", "100 %", "met"])
        self.assertLess(md.index(f"| {GMRES} | GPU_B"), md.index(f"| {MPK} | GPU_A"))

    def test_unchanged_input_leaves_file_untouched(self) -> None:
        self.run_main()
        before = (self.read(), os.stat(self.out).st_mtime_ns)
        os.utime(self.out, ns=(1, 1))  # a rewrite would move the time stamp
        rc, out = self.run_main()
        self.assertEqual((rc, out), (0, ""))
        self.assertEqual(self.read(), before[0])
        self.assertEqual(os.stat(self.out).st_mtime_ns, 1)

    def test_file_without_model_points_adds_nothing(self) -> None:
        self.run_main()
        before = self.read()
        os.utime(self.out, ns=(1, 1))
        self.put("GPU_B", "anzt2015/table2", doc([]))        # no MODEL_POINTS for the id
        self.put("GPU_B", "zianekhodja2014/table9", doc([]))  # a study with some, not this id
        self.put("GPU_C", "yamazaki2014/fig8", doc([]))       # declared, but no entries
        rc, out = self.run_main()
        # README.md indexes the new files; models.md stays as it was
        self.assertEqual((rc, out), (0, f"wrote {os.path.join(self.root, 'README.md')}\n"))
        self.assertEqual(self.read(), before)
        self.assertEqual(os.stat(self.out).st_mtime_ns, 1)

    def test_model_without_usable_points_is_untested(self) -> None:
        # GPU_C's only table2 entry has a model but no measured time (as results written before
        # a measured field): a row of 0 points, called untested, not left out.
        self.put("GPU_C", "zianekhodja2014/table2", doc([
            {"item": "table2", "name": "table2/m1/natural+compressed/gpu/host_staged/P=1",
             "device": "gpu", "model": {"total": 4.0}}]))
        rc, _ = self.run_main()
        self.assertEqual(rc, 0)
        md = self.read()
        self.assertIn("| " + " | ".join(
            [GMRES, "GPU_C", "0", "n/a", "n/a", "n/a", "n/a",
             "untested (no stored point has both values)"]) + " |", md)

    def test_variant_item_uses_its_base_id(self) -> None:
        declared = scoreboard.model_points_by_id()
        self.assertIs(scoreboard.points_function(declared, "anzt2015", "table3-spmv-stress"),
                      declared["anzt2015/table3"])
        self.assertIsNone(scoreboard.points_function(declared, "anzt2015", "table2"))

    def test_no_points_writes_no_file(self) -> None:
        with tempfile.TemporaryDirectory() as empty:
            self.root = empty
            rc, out = self.run_main()
            self.assertEqual((rc, out), (0, ""))
            self.assertEqual(os.listdir(empty), [])

    def test_unreadable_results_fail_without_writing(self) -> None:
        self.put("GPU_B", "yamazaki2014/fig8", "{ not json")
        rc, out = self.run_main()
        self.assertEqual((rc, out), (1, ""))
        self.assertFalse(os.path.exists(self.out))


if __name__ == "__main__":
    unittest.main()
