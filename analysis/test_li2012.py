#!/usr/bin/env python3
"""Tests of the li2012 renderers (analysis/studies/li2012.py: table1 and table3;
analysis/studies/li2012_times.py: fig4, fig5, fig6 and mixed): the synthetic document
analysis/testdata/synthetic_li2012.json (invented numbers, one entry list for all six ids:
table1 residuals 0.1/d x (1 + 0.1 (seed - 2)) with exact tips and 3x that with li2012's corner
UL in entries without "signs" (as written before the M-matrix was added: random signs), and
M-matrix entries ("signs": "negative") with 0.02/d x (1 + 0.1 (seed - 2)), 2x with corner UL and
a chooser's estimate of 0.01/d; table3 times chosen per psize with one zero-pivot point; fig4/fig5 times per method with a
skipped dgbsv and a failed cuDSS point, the CPU SPIKE series (spike_cpu_all_cores, 16 threads) in
fig4 only (2x, 2.5x, 3x SPIKE double's time, one point skipped by the series budget), so fig5
renders as results written before that series; fig6 phases of 100 ms split 40/5/5/30/15/5 %; mixed
times giving speedups 1.25, 1.14, 1.6 (an M-matrix at d = 1.001) and one non-converged point) rendered through render.main, the
tables checked against hand-computed values, plus empty documents and byte-identical re-renders.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import unittest
from typing import Any, Dict

from testutil import HERE, PNG_SIGNATURE, RenderTestCase, header_cells, section, table_row

import render  # noqa: E402
from studies import li2012 as study  # noqa: E402
from studies import li2012_times  # noqa: E402
import kbench_results  # noqa: E402

SYNTHETIC_LI2012 = os.path.join(HERE, "testdata", "synthetic_li2012.json")
IDS = ["li2012/table1", "li2012/table3", "li2012/fig4", "li2012/fig5", "li2012/fig6",
       "li2012/mixed"]


class Li2012TestCase(RenderTestCase):
    def setUp(self) -> None:
        super().setUp()
        with open(SYNTHETIC_LI2012, encoding="utf-8") as f:
            self.li: Dict[str, Any] = json.load(f)

    def render_raw(self, doc: Dict[str, Any], item: str, out_name: str) -> str:
        """render.main without the PNG size check (empty figures compress small)."""
        out_dir = os.path.join(self.tmp.name, out_name)
        with contextlib.redirect_stdout(io.StringIO()):
            self.assertEqual(render.main([self.write(doc), "--id", item, "--out-dir", out_dir]), 0)
        with open(os.path.join(out_dir, "figure.png"), "rb") as f:
            self.assertEqual(f.read(8), PNG_SIGNATURE)
        with open(os.path.join(out_dir, "table.md"), encoding="utf-8") as f:
            return f.read()


TABLE1_HEADER = [
    "d", "psize", "li2012 (%)", "corner UL, li2012's tips (%)", "exact tips (%)",
    "chooser's estimate (%)", "float preconditioner (%)", "CPU reference (%)",
    "iterations (corner UL)", "iterations (exact)", "true residual (exact)", "seeds", "status"]
RANDOM = "### Random signs"
M_MATRIX = "### Negative off-diagonals: an M-matrix"


class Table1Test(Li2012TestCase):
    def test_random_signs_next_to_li2012(self):
        md = section(self.render(self.li, "li2012/table1"), RANDOM)
        self.assertEqual(header_cells(md, "d"), TABLE1_HEADER)
        # mean over seeds of 0.1/d x (0.9, 1.0, 1.1) = 0.1/d: 10 % at d = 1; corner UL 3x;
        # iterations 7, 8, 9 -> 8, corner UL + 1; no chooser's estimate in these entries
        self.assertEqual(table_row(md, "1"), ["1", "1,536", "35", "30.0", "10.0", "n/a", "10.0",
                                              "10.0", "9", "8", "1.00e-09", "3", "converged"])
        self.assertEqual(table_row(md, "100"), ["100", "1,536", "0.2", "0.300", "0.100", "n/a",
                                                "0.100", "0.100", "4", "3", "1.00e-09", "3",
                                                "converged"])
        # float: 0.1/d + 1e-7 -> 0.00101 %; one seed stagnated
        self.assertEqual(table_row(md, "10,000"), [
            "10,000", "1,536", "0.002", "0.00300", "0.00100", "n/a", "0.00101", "0.00100", "4",
            "3", "1.00e-09", "3", "stagnation"])

    def test_m_matrix_section(self):
        md = self.render(self.li, "li2012/table1")
        self.assertIn("N = 100,000, K = 32, seeds 1, 2, 3, psize automatic (per matrix)", md)
        self.assertLess(md.index(RANDOM), md.index(M_MATRIX))
        mm = section(md, M_MATRIX)
        self.assertEqual(header_cells(mm, "d"), TABLE1_HEADER)
        # 0.02/d -> 2 % at d = 1, corner UL 2x, estimate 0.01/d; iterations 20, 22, 24 -> 22
        # true residual: 1e-9, 1e-9, 1.0 at d = 1 (recurrence converged, x inaccurate)
        self.assertEqual(table_row(mm, "1"), ["1", "3,200", "35", "4.00", "2.00", "1.00", "2.00",
                                              "2.00", "33", "22", "0.333", "3", "converged"])
        self.assertEqual(table_row(mm, "10"), ["10", "96", "1.2", "0.400", "0.200", "0.100",
                                               "0.200", "0.200", "3", "2", "1.00e-09", "3",
                                               "converged"])

    def test_results_without_signs_render_as_before(self):
        # Results written before the M-matrix: no "signs", no estimate, random signs only.
        self.li["benchmarks"] = [e for e in self.li["benchmarks"]
                                 if e.get("signs") != "negative"]
        md = self.render(self.li, "li2012/table1")
        self.assertNotIn(M_MATRIX, md)
        self.assertEqual(table_row(section(md, RANDOM), "1")[:6],
                         ["1", "1,536", "35", "30.0", "10.0", "n/a"])

    def test_fractional_iteration_mean(self):
        for e in self.li["benchmarks"]:
            if (e.get("figure") == "table1" and e["d"] == 10.0 and e["seed"] == 1
                    and "signs" not in e):
                e["iterations"] = 4  # 4, 3, 3 -> 3.33
        md = section(self.render(self.li, "li2012/table1"), RANDOM)
        self.assertEqual(table_row(md, "10")[9], "3.33")


class Table3Test(Li2012TestCase):
    def test_tuning_table(self):
        md = self.render(self.li, "li2012/table3")
        self.assertEqual(header_cells(md, "N"), [
            "N", "hand-tuned psize", "hand-tuned ms", "auto psize", "auto ms",
            "auto / hand-tuned", "ill-tuned psize", "ill-tuned ms", "ill-tuned slower by (%)",
            "li2012 hand-tuned ms", "li2012 ill-tuned ms", "li2012 slower by (%)",
            "model's best psize"])
        # sweep best 256 at 4 ms; auto 128 at 5 ms; ill-tuned min(2048, N/2) = 1000 at 6 ms;
        # li2012: 5.69 / 4.03 - 1 = 41.2 %; the model's fastest sweep point is 512
        self.assertEqual(table_row(md, "2,000"), [
            "2,000", "256", "4.00", "128", "5.00", "1.25", "1,000", "6.00", "50.0", "4.03",
            "5.69", "41.2", "512"])
        # psize 128 is fastest (30 ms) but hit a zero pivot: best is 1024 (45 ms); the model
        # ranks 128 first too, also excluded: 4096
        self.assertEqual(table_row(md, "100,000"), [
            "100,000", "1,024", "45.0", "1,536", "44.0", "0.978", "2,048", "48.0", "6.67",
            "51.86", "54.83", "5.73", "4,096"])

    def test_summary_and_fig3(self):
        md = self.render(self.li, "li2012/table3")
        # (1.25 x 1.05 x 44/45)^(1/3) = 1.087
        self.assertIn("Automatic vs hand-tuned: geometric mean 1.09, worst 1.25 (N = 2,000).", md)
        self.assertIn("N = 8192: 10.0 ms (4 partitions), N = 8191: 16.4 ms; slower by 64.5 % "
                      "(li2012: 64.5 %).", md)

    def test_without_paper_values(self):
        del self.li["context"]["kbench"]["li2012"]["paper"]
        md = self.render(self.li, "li2012/table3")
        self.assertEqual(table_row(md, "2,000")[9:12], ["n/a", "n/a", "n/a"])
        self.assertIn("(li2012: n/a %)", md)


class ScalingTest(Li2012TestCase):
    def test_fig4_times_and_speedups(self):
        md = self.render(self.li, "li2012/fig4")
        self.assertEqual(header_cells(md, "N"), [
            "N", "psize", "iterations (double / mixed)", "SPIKE+BiCGStab double ms",
            "SPIKE+BiCGStab mixed ms", "dgbsv 1 thread ms", "dgbsv all cores ms",
            "SPIKE+BiCGStab CPU all cores ms",
            "cuDSS analysis+factor+solve ms", "cuDSS solve ms", "SPIKE double on the device ms",
            "SPIKE double model ms", "SPIKE double on the device / model",
            "dgbsv all cores / SPIKE double", "dgbsv all cores / SPIKE double on the device",
            "SPIKE CPU all cores / SPIKE double",
            "SPIKE CPU all cores / SPIKE double on the device"])
        # the CPU SPIKE: 60 ms = 3x the 20 ms with the band copy, 6x the 10 ms on the device
        self.assertEqual(table_row(md, "1,000,000"), [
            "1,000,000", "2,048", "4 / 5", "20.0", "16.0", "400", "50.0", "60.0", "300", "20.0",
            "10.0", "16.0", "0.625", "2.50", "5.00", "3.00", "6.00"])
        self.assertEqual(table_row(md, "10,000,000")[5:10],
                         ["skipped", "450", "skipped", "error", "error"])
        self.assertIn("K = 32, d = 1; times in ms", md)
        self.assertIn("SPIKE+BiCGStab on every CPU core: 16 OpenMP threads, built with OpenMP "
                      "(16 threads available); cuDSS built.", md)
        self.assertIn("over dgbsv on all cores: 2.50 to 3.00 over 4 points (li2012 Fig. 4, "
                      "SPIKE::GPU over MKL: 2.1 to 3.1).", md)
        self.assertIn("SPIKE+BiCGStab (double) over SPIKE+BiCGStab on every CPU core: 2.00 to "
                      "3.00 over 3 points (16 OpenMP threads).", md)
        self.assertIn("OpenBLAS's dgbsv is serial", md)
        self.assertIn("- dgbsv 1 thread, N = 10,000,000: skipped: predicted 40 s exceeds the "
                      "point budget of 20 s", md)
        self.assertIn("- SPIKE+BiCGStab CPU all cores, N = 10,000,000: skipped: the series "
                      "budget of 45 s would be exceeded (44.8 s used, 0.6 s predicted)", md)
        self.assertIn("- cuDSS solve, N = 10,000,000: error: cudaErrorMemoryAllocation", md)

    def test_fig5_claim_names_the_values_of_k_it_could_not_judge(self):
        from studies import li2012_claims
        import kbench_results
        doc = json.loads(json.dumps(self.li))
        for b in doc["benchmarks"]:
            if b.get("figure") == "fig5" and b.get("method") == "dgbsv_all_cores" \
                    and b.get("K") == 256:
                b["seconds"] = None
                b["skipped"] = "predicted 100 s exceeds the point budget of 20 s"
        check = li2012_claims.CLAIMS["li2012/fig5"][0].check
        full = check(kbench_results.load(self.write(self.li)))
        self.assertNotIn("not judged", full.reason)
        part = check(kbench_results.load(self.write(doc)))
        self.assertIn("at 2 values of K", part.reason)
        self.assertIn("not judged at K = 256", part.reason)

    def test_fig5_has_no_cudss_columns(self):
        md = self.render(self.li, "li2012/fig5")
        self.assertIn("N = 400,000, d = 1; times in ms", md)
        self.assertNotIn("cuDSS solve ms", header_cells(md, "K"))
        self.assertEqual(table_row(md, "256"), [
            "256", "4,096", "5 / 5", "200", "180", "5000", "1000", "n/a", "100", "n/a", "5.00",
            "n/a"])  # results without device_seconds (before it was measured)
        self.assertIn("over dgbsv on all cores: 3.00 to 5.00 over 3 points.", md)

    def test_results_without_the_cpu_spike_series(self):
        # Results written before spike_cpu_all_cores (fig5 here; fig4 with it removed): no
        # columns for it, and the text says it was not measured.
        for item in ("li2012/fig4", "li2012/fig5"):
            doc = json.loads(json.dumps(self.li))
            doc["benchmarks"] = [e for e in doc["benchmarks"]
                                 if e.get("method") != "spike_cpu_all_cores"]
            del doc["context"]["kbench"]["li2012"]["baselines"]["spike_cpu"]
            md = self.render(doc, item)
            header = header_cells(md, "N" if item.endswith("fig4") else "K")
            self.assertEqual(header[-2:], ["dgbsv all cores / SPIKE double",
                                           "dgbsv all cores / SPIKE double on the device"])
            self.assertNotIn("SPIKE+BiCGStab CPU all cores ms", header)
            self.assertIn("SPIKE+BiCGStab on every CPU core: not measured in this run;", md)
            self.assertIn("SPIKE+BiCGStab (double) over SPIKE+BiCGStab on every CPU core: not "
                          "measured in this run.", md)


class Fig6Test(Li2012TestCase):
    def test_phase_tables(self):
        md = self.render(self.li, "li2012/fig6")
        li = section(md, "### N = 800,000, K = 32, psize 2,048 (li2012 Fig. 6, 390 partitions)")
        self.assertEqual(header_cells(li, "phase"),
                         ["phase", "ms", "share (%)", "model ms", "model share (%)", "calls"])
        self.assertEqual(table_row(li, "LU/UL"), ["LU/UL", "40.0", "40.0", "20.0", "40.0", "1"])
        self.assertEqual(table_row(li, "BiCGStab SpMV"),
                         ["BiCGStab SpMV", "30.0", "30.0", "10.0", "20.0", "6"])
        self.assertEqual(table_row(li, "sum of the phases"),
                         ["sum of the phases", "100", "100", "50.0", "100", ""])
        self.assertIn("Detailed solve: 110 ms in all (factorization 55.0 ms); the same solve "
                      "without the phase events: 105 ms.", li)
        auto = section(md, "### N = 800,000, K = 32, psize 6,060 (automatic, 132 partitions)")
        self.assertEqual(table_row(auto, "LU/UL"), ["LU/UL", "20.0", "40.0", "20.0", "40.0", "1"])

    def test_unknown_phase_listed_last(self):
        e = next(e for e in self.li["benchmarks"] if e.get("figure") == "fig6")
        e["phases"].insert(0, {"name": "host sync", "seconds": 0.0, "calls": 1})
        md = self.render(self.li, "li2012/fig6")
        rows = [l.split("|")[1].strip() for l in md.splitlines() if l.startswith("| ")]
        self.assertEqual(rows[2:9], ["LU/UL", "spikes", "reduced system", "BiCGStab SpMV",
                                     "preconditioner", "other", "host sync"])


class MixedTest(Li2012TestCase):
    def test_speedups(self):
        md = self.render(self.li, "li2012/mixed")
        self.assertEqual(header_cells(md, "N"), [
            "N", "K", "d", "signs", "psize (double / mixed)", "double ms", "mixed ms", "speedup",
            "speedup on the device", "iterations (double / mixed)", "model speedup", "status"])
        # the first 100,000 row: random signs (the entry has no "signs"); on the device:
        # (10 - 2) / (8 - 1) ms
        self.assertEqual(table_row(md, "100,000"), [
            "100,000", "32", "1", "random", "2,048 / 4,096", "10.0", "8.00", "1.25", "1.14",
            "5 / 6", "1.29", "converged / converged"])
        m_matrix = [[c.strip() for c in l.strip().strip("|").split("|")]
                    for l in md.splitlines() if "| negative |" in l]
        self.assertEqual(m_matrix, [[
            "100,000", "32", "1.001", "negative", "3,200 / 3,200", "80.0", "50.0", "1.60",
            "n/a", "20 / 22", "1.30", "converged / converged"]])
        self.assertEqual(table_row(md, "400,000")[7:], [
            "n/a", "n/a", "5 / 1000", "1.25", "converged / max_iterations"])
        # geometric mean of 1.25, 40/35 and 1.6
        self.assertIn("Mixed over double: 1.14 to 1.60, geometric mean 1.32, over 3 points "
                      "(li2012: 1.15 to 1.25).", md)

    def test_model_points_compare_the_device_speedup(self):
        # The model counts the device's work, so its points take the speedup without the band's
        # copies; entries written before device_speedup give no measured value.
        pts = li2012_times.mixed_model_points(kbench_results.load(self.write(self.li)))
        self.assertEqual(len(pts), 4)
        self.assertAlmostEqual(pts[0].predicted, 0.009 / 0.007)
        self.assertAlmostEqual(pts[0].measured, 8.0 / 7.0)
        self.assertTrue(all(math.isnan(p.measured) for p in pts[1:]))


class CommonTest(Li2012TestCase):
    def test_discovered_by_render(self):
        found = render.discover()
        for item in IDS:
            self.assertIs(found[item].module, study if item in ("li2012/table1", "li2012/table3")
                          else li2012_times)
        self.assertEqual(sorted([*study.RENDERERS, *li2012_times.RENDERERS]), sorted(IDS))

    def test_empty_and_bare_documents_render_na(self):
        for item in IDS:
            doc = json.loads(json.dumps(self.li))
            doc["benchmarks"] = []
            self.assertIn("n/a", self.render_raw(doc, item, item.replace("/", "_") + "_empty"))
            bare = {"context": {"kbench_schema_version": 1}, "benchmarks": []}
            self.assertIn("n/a", self.render_raw(bare, item, item.replace("/", "_") + "_bare"))

    def test_rendering_twice_gives_identical_bytes(self):
        for item in IDS:
            outputs = []
            for name in ("first", "second"):
                out_name = f"{item.replace('/', '_')}_{name}"
                self.render(self.li, item, out_name=out_name)
                files = []
                for f in ("table.md", "figure.png"):
                    with open(os.path.join(self.tmp.name, out_name, f), "rb") as fh:
                        files.append(fh.read())
                outputs.append(files)
            self.assertEqual(outputs[0], outputs[1], item)


if __name__ == "__main__":
    unittest.main()
