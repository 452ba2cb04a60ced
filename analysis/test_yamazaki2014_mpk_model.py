#!/usr/bin/env python3
"""Tests of the yamazaki2014 MPK model renderers (analysis/studies/yamazaki2014_mpk_model.py):
the synthetic document analysis/testdata/synthetic_yamazaki2014_mpk.json (invented curves:
ratio 0.01 s, 0.02 s, 0.001 s^1.5 and 0.5 s; MPK words 120 s, 240 s, 100 sqrt(s), 3000 s
against SpMV words 120 s, 200 s, 100 s, 3000 s; one ordering not built, one entry failed)
rendered through render.main, the tables checked against hand-computed values, plus empty and
bare documents and byte-identical re-renders."""

from __future__ import annotations

import json
import os
import unittest
from typing import Any, Dict

from testutil import HERE, RenderTestCase, header_cells, section, table_row

import render  # noqa: E402
from studies import yamazaki2014_mpk_model as study  # noqa: E402

SYNTHETIC_MPK = os.path.join(HERE, "testdata", "synthetic_yamazaki2014_mpk.json")
FIG6, FIG7 = "yamazaki2014/fig6", "yamazaki2014/fig7"


class MpkTestCase(RenderTestCase):
    def setUp(self) -> None:
        super().setUp()
        with open(SYNTHETIC_MPK, encoding="utf-8") as f:
            self.mpk: Dict[str, Any] = json.load(f)


class StandInTest(MpkTestCase):
    def test_stand_ins_name_the_paper_matrix_and_sizes(self):
        for item in (FIG6, FIG7):
            md = section(self.render(self.mpk, item), "### Stand-in matrices")
            self.assertEqual(header_cells(md, "Stand-in"), [
                "Stand-in", "for", "paper n", "paper nnz/n", "n", "nnz/n", "half-bandwidth",
                "half-bandwidth RCM"])
            self.assertEqual(table_row(md, "mesh3d_small"),
                             ["mesh3d_small", "cant", "62,451", "64.2", "1,000", "24.0", "100",
                              "90"])
            self.assertEqual(table_row(md, "mesh2d_wide")[1:4], ["G3_circuit", "1,585,478", "4.80"])
            self.assertIn("- mesh2d_wide: G3_circuit (synthetic: a wide 2D mesh)", md)
            self.assertIn("- Note: synthetic note", md)

    def test_orderings_list_what_was_not_built_or_failed(self):
        md = section(self.render(self.mpk, FIG6), "### Orderings")
        self.assertIn("- k-way (METIS): METIS k-way (not built)", md)
        self.assertIn("- mesh3d_small, k-way (METIS), P = 2: not built: METIS (Debian "
                      "libmetis-dev) was not found when kbench was configured", md)
        self.assertIn("- mesh2d_wide, natural, P = 2: error: synthetic failure", md)


class Fig6Test(MpkTestCase):
    def test_ratio_growth_and_extra_flops(self):
        md = section(self.render(self.mpk, FIG6), "### mesh3d_small:")
        self.assertEqual(header_cells(md, "Ordering, parts"), [
            "Ordering, parts", "s = 1", "s = 2", "s = 5", "s = 10", "s = 20",
            "growth s^p, p (10..20)", "W / (2 s nnz), s = 20", "edge cut", "rows max/min"])
        # 0.01 s, linear; W / (2 s nnz) = 0.005 (20 + 1) = 0.105; rows 500/500
        self.assertEqual(table_row(md, "natural, P = 2"), [
            "natural, P = 2", "0.0100", "0.0200", "0.0500", "0.100", "0.200", "1.00", "0.105",
            "40", "1.00"])
        # 0.001 s^1.5: 2^1.5 = 2.83e-3, 5^1.5 = 11.2e-3, 10^1.5 = 31.6e-3, 20^1.5 = 89.4e-3;
        # growth 1.5; W / (2 s nnz) = 0.002 x 20; rows 600/400
        self.assertEqual(table_row(md, "RCM, P = 2"), [
            "RCM, P = 2", "0.00100", "0.00283", "0.0112", "0.0316", "0.0894", "1.50", "0.0400",
            "30", "1.50"])
        self.assertEqual(table_row(md, "k-way (METIS), P = 2")[1:3], ["not built", "-"])
        # rows sorted by ordering (natural, RCM, k-way), then parts
        rows = [l.split("|")[1].strip() for l in md.splitlines() if l.startswith("| ")][2:]
        self.assertEqual(rows, ["natural, P = 2", "natural, P = 3", "RCM, P = 2",
                                "k-way (METIS), P = 2"])

    def test_failed_entry_and_missing_value(self):
        self.mpk["benchmarks"][0]["fig6"]["surface_to_volume"]["max"][4] = None  # s = 5
        md = self.render(self.mpk, FIG6)
        self.assertEqual(table_row(section(md, "### mesh2d_wide:"), "natural, P = 2")[1:3],
                         ["error", "-"])
        self.assertEqual(table_row(section(md, "### mesh3d_small:"), "natural, P = 2")[3], "n/a")


class Fig7Test(MpkTestCase):
    def test_words_and_ratios_to_spmv(self):
        md = section(self.render(self.mpk, FIG7), "### mesh3d_small:")
        self.assertEqual(header_cells(md, "Ordering, parts"), [
            "Ordering, parts", "words s = 1", "words s = 2", "words s = 5", "words s = 10",
            "words s = 20", "MPK / SpMV s = 2", "MPK / SpMV s = 5", "MPK / SpMV s = 10",
            "MPK / SpMV s = 20", "messages SpMV / MPK, s = 20"])
        # 120 s against 120 s; messages 2 s / 2 = 20 at s = 20
        self.assertEqual(table_row(md, "natural, P = 2"), [
            "natural, P = 2", "120", "240", "600", "1,200", "2,400", "1.00", "1.00", "1.00",
            "1.00", "20.0"])
        # 240 s against 200 s: 1.20; messages 4 x 20 / 6 = 13.3
        self.assertEqual(table_row(md, "natural, P = 3")[6:], ["1.20", "1.20", "1.20", "1.20",
                                                               "13.3"])
        # 100 sqrt(s) against 100 s: 1 / sqrt(s) (word counts print as integers: 223.6 -> 223)
        self.assertEqual(table_row(md, "RCM, P = 2")[1:10], [
            "100", "141", "223", "316", "447", "0.707", "0.447", "0.316", "0.224"])


class CommonTest(MpkTestCase):
    def test_discovered_by_render(self):
        found = render.discover()
        for item in (FIG6, FIG7):
            self.assertIs(found[item].module, study)

    def test_empty_and_bare_documents_render_na(self):
        for item in study.RENDERERS:
            doc = json.loads(json.dumps(self.mpk))
            doc["benchmarks"] = []
            name = item.replace("/", "_")
            self.assertIn("n/a: no entries", self.render(doc, item, out_name=name + "_empty"))
            bare = {"context": {"kbench_schema_version": 1}, "benchmarks": []}
            md = self.render(bare, item, out_name=name + "_bare")
            self.assertIn("no orderings recorded", md)

    def test_rendering_twice_gives_identical_bytes(self):
        for item in (FIG6, FIG7):
            outputs = []
            for name in ("first", "second"):
                out = f"{item.replace('/', '_')}_{name}"
                self.render(self.mpk, item, out_name=out)
                files = []
                for f in ("table.md", "figure.png"):
                    with open(os.path.join(self.tmp.name, out, f), "rb") as fh:
                        files.append(fh.read())
                outputs.append(files)
            self.assertEqual(outputs[0], outputs[1], item)


if __name__ == "__main__":
    unittest.main()
