#!/usr/bin/env python3
"""Tests of the shared analysis code: kbench_results.py (loader), report.py (formatting, render
digest, deterministic writer) and render.py (study discovery, dispatch, exit status).
The renderers of each study are tested in test_<study module>.py.

Run: /usr/bin/python3 analysis/test_render.py   (needs pandas and matplotlib)
Input: analysis/testdata/synthetic_anzt2015.json, a SYNTHETIC results file (invented numbers,
see its "note"): 6 matrices x 7 SpMV kernels in double, cusparse_sell on lap2d_100 errored.
"""

import contextlib
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from typing import Optional
from unittest import mock

from testutil import HERE, SYNTHETIC, RenderTestCase

import kbench_results  # noqa: E402  (testutil put analysis/ on sys.path)
import render  # noqa: E402
import report  # noqa: E402

MATRICES = ["lap2d_100", "fv1", "Trefethen_2000", "s3rmt3m3_x100", "lap3d_100", "lap2d_1000"]


def run_render(results: str, item: str, out_dir: str, seed: str = "0",
               env: Optional[dict] = None, script: str = os.path.join(HERE, "render.py")) -> None:
    """render.py in a fresh interpreter (hash seed `seed`); fails on a non-zero exit."""
    full_env = dict(os.environ, PYTHONHASHSEED=seed, **(env or {}))
    proc = subprocess.run([sys.executable, script, results, "--id", item, "--out-dir", out_dir],
                          capture_output=True, text=True, env=full_env)
    if proc.returncode != 0:
        raise AssertionError(f"render.py exited {proc.returncode}: {proc.stderr}")


def read(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()


class LoaderTest(RenderTestCase):
    def test_synthetic_file_is_marked_synthetic(self):
        self.assertIn("SYNTHETIC", self.doc["note"])

    def test_reads_medians_and_errored_runs(self):
        res = kbench_results.load(self.write(self.doc))
        b = res.benchmarks
        self.assertEqual(len(b), 42)  # 41 medians + 1 errored run without aggregates
        self.assertEqual(int(b["error_occurred"].sum()), 1)
        row = b[(b["kernel"] == "sellp") & (b["matrix"] == "Trefethen_2000")].iloc[0]
        self.assertEqual(row["time_us"], 8.0)  # the median, not the mean (8.8)
        self.assertEqual(row["precision"], "double")
        self.assertEqual(row["params"]["slice_height"], 32)
        self.assertEqual(res.context["kbench"]["gpu"]["name"], "Synthetic GPU")

    def test_model_us_counter(self):
        b = kbench_results.load(self.write(self.doc)).benchmarks
        at = b.set_index(["kernel", "matrix"])["model_us"]
        self.assertEqual(at[("sellp", "Trefethen_2000")], 8.8)
        self.assertEqual(at[("auto", "lap3d_100")], 36.0)
        self.assertTrue(b[b["kernel"].str.startswith("cusparse")]["model_us"].isna().all())
        self.assertTrue(b[b["kernel"] == "csr_scalar"]["model_us"].isna().all())

    def test_time_unit_converted_to_us(self):
        for b in self.doc["benchmarks"]:
            if b.get("run_type") == "aggregate":
                b["real_time"] *= 1e3
                b["time_unit"] = "ns"
        res = kbench_results.load(self.write(self.doc))
        row = res.benchmarks[(res.benchmarks["kernel"] == "sellp")
                             & (res.benchmarks["matrix"] == "fv1")].iloc[0]
        self.assertAlmostEqual(row["time_us"], 7.5, places=9)

    def test_matrices_frame(self):
        m = kbench_results.load(self.write(self.doc)).matrices
        self.assertEqual(list(m.index), MATRICES)
        self.assertEqual(list(m["source_kind"]),
                         ["generated", "real", "real", "replicated", "generated", "generated"])
        self.assertAlmostEqual(m.at["Trefethen_2000", "nnz_per_row"], 41906 / 2000, places=12)
        self.assertEqual(m.at["fv1", "stands_for"], "FV1 (anzt2015 Table 2)")

    def test_manifest_order(self):
        manifest = os.path.join(self.tmp.name, "set.json")
        order = ["s3rmt3m3_x100", "fv1", "lap2d_100", "Trefethen_2000"]
        with open(manifest, "w", encoding="utf-8") as f:
            json.dump({"name": "synthetic", "matrices": [{"name": n} for n in order]}, f)
        self.doc["context"]["kbench"]["matrix_set"]["manifest"] = manifest
        m = kbench_results.load(self.write(self.doc)).matrices
        self.assertEqual(list(m.index), order + ["lap3d_100", "lap2d_1000"])  # unlisted: file order

    def test_wrong_schema_version_raises(self):
        self.doc["context"]["kbench_schema_version"] = 2
        with self.assertRaisesRegex(kbench_results.SchemaVersionError, "is 2.*version 1"):
            kbench_results.load(self.write(self.doc))
        del self.doc["context"]["kbench_schema_version"]
        with self.assertRaisesRegex(kbench_results.SchemaVersionError, "missing"):
            kbench_results.load(self.write(self.doc))


class FormatTest(unittest.TestCase):
    def test_three_significant_digits(self):
        self.assertEqual(report.fmt(10.4765), "10.5")
        self.assertEqual(report.fmt(0.0123456), "0.0123")
        self.assertEqual(report.fmt(9.996), "10.0")
        self.assertEqual(report.fmt(1234.6), "1235")
        self.assertEqual(report.fmt(1.5e-16), "1.50e-16")
        self.assertEqual(report.fmt(float("nan")), report.NA)
        self.assertEqual(report.fmt_pct(1.0 - 8.0 / 12.0), "33.3 %")
        self.assertEqual(report.fmt_int(2000.0), "2,000")
        self.assertEqual(report.fmt_int(None), report.NA)
        self.assertEqual(report.cuda_version(12040), "12.4")

    def test_markdown_table_and_geomean(self):
        self.assertEqual(report.markdown_table(["a", "b"], [["x|y", "1"]]),
                         "| a | b |\n| :--- | ---: |\n| x\\|y | 1 |\n")
        self.assertAlmostEqual(report.geomean([2.0, 8.0, float("nan"), None]), 4.0, places=12)
        self.assertTrue(report.missing(report.geomean([1.0, 0.0])))
        self.assertTrue(report.missing(report.geomean([])))


class HeaderTest(unittest.TestCase):
    def test_quick_run_is_said_in_the_title_and_a_line(self):
        context = {"kbench": {"git": {"sha": "abc"}}, "date": "2025-01-01"}
        plain = report.header_block(context, "Fig. 1")
        self.assertTrue(plain.startswith("# Fig. 1\n"))
        self.assertNotIn("Quick run", plain)
        context["kbench"]["quick"] = True
        quick = report.header_block(context, "Fig. 1")
        self.assertTrue(quick.startswith("# Fig. 1 (quick run)\n"))
        self.assertIn("- **Quick run** (`kbench reproduce --quick`): reduced sizes", quick)
        self.assertIn("; git abc; date 2025-01-01\n", quick)  # results_readme.HEADER_GIT


class DigestTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def file(self, name: str, data: bytes) -> str:
        path = os.path.join(self.tmp.name, name)
        with open(path, "wb") as f:
            f.write(data)
        return path

    def test_definition(self):
        h = hashlib.sha256(b"id\x003\x00a/b" + b"A\x002\x00xy" + b"B\x001\x00z").hexdigest()
        self.assertEqual(report.render_digest("a/b", [("A", b"xy"), ("B", b"z")]), h)

    def test_parts_are_framed(self):
        d = report.render_digest("i", [("A", b"xy"), ("B", b"z")])
        self.assertNotEqual(report.render_digest("i", [("A", b"x"), ("B", b"yz")]), d)
        self.assertNotEqual(report.render_digest("i", [("B", b"z"), ("A", b"xy")]), d)
        self.assertNotEqual(report.render_digest("j", [("A", b"xy"), ("B", b"z")]), d)

    def test_png_text_and_stamped_digest(self):
        png = report.figure_png(lambda: report.new_figure(figsize=(2, 2))[0], "ab" * 32)
        self.assertEqual(report.png_text(png), {report.DIGEST_KEY: "ab" * 32})  # no Software
        self.assertEqual(report.png_text(b"not a png"), {})
        self.assertEqual(report.stamped_digest(self.file("f.png", png)), "ab" * 32)
        md = self.file("t.md", f"# x\n\n<!-- {report.DIGEST_KEY}: {'cd' * 32} -->\n".encode())
        self.assertEqual(report.stamped_digest(md), "cd" * 32)
        self.assertIsNone(report.stamped_digest(self.file("u.md", b"# x\n")))
        self.assertIsNone(report.stamped_digest(os.path.join(self.tmp.name, "missing.png")))


class DeterministicRenderTest(RenderTestCase):
    """Task: re-rendering unchanged inputs with unchanged code changes no byte; changed inputs
    or code always re-render."""

    ITEMS = ("anzt2015/table3", "anzt2015/table2")

    def outputs(self, out_dir: str):
        return [os.path.join(out_dir, n) for n in ("table.md", "figure.png")]

    def test_two_fresh_renders_are_byte_identical(self):
        results = self.write(self.doc)
        for item in self.ITEMS:
            one, two = (os.path.join(self.tmp.name, item.replace("/", "_") + s) for s in "12")
            run_render(results, item, one, seed="1")
            run_render(results, item, two, seed="2")
            for a, b in zip(self.outputs(one), self.outputs(two)):
                self.assertEqual(read(a), read(b), f"{item}: {os.path.basename(a)} differs")

    def test_user_matplotlibrc_is_ignored(self):
        results = self.write(self.doc)
        rc_dir = os.path.join(self.tmp.name, "mplconfig")
        os.makedirs(rc_dir)
        with open(os.path.join(rc_dir, "matplotlibrc"), "w", encoding="utf-8") as f:
            f.write("font.size: 20\nfont.family: serif\nlines.linewidth: 5\n"
                    "axes.facecolor: black\nsavefig.dpi: 50\nsavefig.transparent: True\n")
        plain, styled = (os.path.join(self.tmp.name, d) for d in ("plain", "styled"))
        run_render(results, "anzt2015/table3", plain)
        run_render(results, "anzt2015/table3", styled, env={"MPLCONFIGDIR": rc_dir})
        self.assertEqual(read(os.path.join(plain, "figure.png")),
                         read(os.path.join(styled, "figure.png")))

    def test_digest_in_both_outputs(self):
        path = self.write(self.doc)
        out = os.path.join(self.tmp.name, "out")
        with contextlib.redirect_stdout(io.StringIO()):
            self.assertEqual(render.main([path, "--id", "anzt2015/table3", "--out-dir", out]), 0)
        h = hashlib.sha256()
        parts = [("id", b"anzt2015/table3"), ("results.json", read(path)),
                 ("matrix-order", "\n".join(MATRICES).encode())]
        for name in ("render.py", "report.py", "kbench_results.py", "studies/anzt2015_spmv.py"):
            parts.append(("analysis/" + name, read(os.path.join(HERE, name))))
        for name, data in parts:
            h.update(name.encode() + b"\0" + str(len(data)).encode() + b"\0" + data)
        md, png = self.outputs(out)
        self.assertTrue(read(md).decode().endswith(
            f"\n\n<!-- kbench-render-digest: {h.hexdigest()} -->\n"))
        self.assertEqual(report.png_text(read(png)), {"kbench-render-digest": h.hexdigest()})

    def test_same_digest_leaves_outputs_untouched(self):
        path = self.write(self.doc)
        for item in self.ITEMS:
            out = os.path.join(self.tmp.name, item.replace("/", "_"))
            with contextlib.redirect_stdout(io.StringIO()):
                render.main([path, "--id", item, "--out-dir", out])
            before = []
            for p in self.outputs(out):
                os.utime(p, (1_000_000_000, 1_000_000_000))  # an mtime a rewrite would change
                before.append(read(p))
            # the figure is not even drawn again
            with mock.patch.object(report, "figure_png", side_effect=AssertionError("drawn")), \
                    contextlib.redirect_stdout(io.StringIO()):
                self.assertEqual(render.main([path, "--id", item, "--out-dir", out]), 0)
            for p, data in zip(self.outputs(out), before):
                self.assertEqual(read(p), data)
                self.assertEqual(os.stat(p).st_mtime, 1_000_000_000)

    def test_changed_input_rewrites_outputs(self):
        out = os.path.join(self.tmp.name, "out")
        with contextlib.redirect_stdout(io.StringIO()):
            render.main([self.write(self.doc), "--id", "anzt2015/table3", "--out-dir", out])
        before = [read(p) for p in self.outputs(out)]
        old = [report.stamped_digest(p) for p in self.outputs(out)]
        for b in self.doc["benchmarks"]:
            if b["name"] == "spmv/sellp/double/fv1_median":
                b["real_time"] = 7.0
        with contextlib.redirect_stdout(io.StringIO()):
            render.main([self.write(self.doc), "--id", "anzt2015/table3", "--out-dir", out])
        new = [report.stamped_digest(p) for p in self.outputs(out)]
        self.assertEqual(new[0], new[1])
        self.assertNotEqual(new[0], old[0])
        for p, data in zip(self.outputs(out), before):
            self.assertNotEqual(read(p), data)

    def test_changed_matrix_order_rewrites_outputs(self):
        manifest = os.path.join(self.tmp.name, "set.json")  # orders the matrices from outside
        self.doc["context"]["kbench"]["matrix_set"]["manifest"] = manifest
        out = os.path.join(self.tmp.name, "out")
        digests = []
        for order in (MATRICES, MATRICES[::-1]):  # the results file stays the same
            with open(manifest, "w", encoding="utf-8") as f:
                json.dump({"name": "synthetic", "matrices": [{"name": n} for n in order]}, f)
            md = self.render(self.doc, "anzt2015/table2", out_name="out")
            digests.append(report.stamped_digest(os.path.join(out, "table.md")))
        self.assertNotEqual(digests[0], digests[1])
        self.assertLess(md.index("| lap2d_1000 |"), md.index("| lap2d_100 |"))

    def test_changed_code_rewrites_outputs(self):
        code = os.path.join(self.tmp.name, "analysis")
        shutil.copytree(HERE, code, ignore=shutil.ignore_patterns("__pycache__", "test*"))
        results, out = self.write(self.doc), os.path.join(self.tmp.name, "out")
        run_render(results, "anzt2015/table2", out, script=os.path.join(code, "render.py"))
        old = [report.stamped_digest(p) for p in self.outputs(out)]
        with open(os.path.join(code, "report.py"), "a", encoding="utf-8") as f:
            f.write("# a change that renders nothing differently\n")
        run_render(results, "anzt2015/table2", out, script=os.path.join(code, "render.py"))
        new = [report.stamped_digest(p) for p in self.outputs(out)]
        self.assertNotEqual(old[0], new[0])
        self.assertEqual(new[0], new[1])

    def test_unstamped_output_is_rewritten(self):
        out = os.path.join(self.tmp.name, "out")
        os.makedirs(out)
        with open(os.path.join(out, "table.md"), "w", encoding="utf-8") as f:
            f.write("# rendered before digests\n")
        md = self.render(self.doc, "anzt2015/table2", out_name="out")
        self.assertIn("anzt2015 Table 2", md)
        self.assertIn("kbench-render-digest", md)


class DispatcherTest(RenderTestCase):
    def package(self, name: str, modules: dict) -> str:
        """A package `name` in tmp holding `modules` {module name: source}; on sys.path."""
        root = os.path.join(self.tmp.name, "pkgs")
        os.makedirs(os.path.join(root, name))
        for mod, src in {"__init__": "", **modules}.items():
            with open(os.path.join(root, name, mod + ".py"), "w", encoding="utf-8") as f:
                f.write(src)
        sys.path.insert(0, root)
        self.addCleanup(sys.path.remove, root)
        return name

    def test_discovers_the_studies(self):
        found = render.discover()
        for item in ("anzt2015/table2", "anzt2015/table3"):
            self.assertEqual(found[item].module.__name__, "studies.anzt2015_spmv")
        self.assertEqual(list(found), sorted(found))

    def test_merges_modules_and_skips_private_ones(self):
        name = self.package("studies_ok", {
            "b_study": "RENDERERS = {'b/one': print}\n",
            "a_study": "RENDERERS = {'a/one': len, 'a/two': len}\n",
            "_helper": "raise ImportError('private modules are not imported')\n",
            "test_a_study": "raise ImportError('tests are not imported')\n"})
        found = render.discover(name)
        self.assertEqual(list(found), ["a/one", "a/two", "b/one"])
        self.assertIs(found["b/one"].render, print)
        self.assertEqual(found["a/two"].module.__name__, "studies_ok.a_study")

    def test_digest_covers_the_helper_modules_a_study_imports(self):
        name = self.package("studies_helped", {
            "study": "from ._one import f\nfrom studies_helped import _two\nimport os\n"
                     "RENDERERS = {}\n",
            "other": "from __future__ import annotations\nRENDERERS = {}\n",
            "_one": "from studies_helped._three import g\nf = 1\n",
            "_two": "",
            "_three": "",
            "_unused": ""})
        study = os.path.join(self.tmp.name, "pkgs", name, "study.py")
        self.assertEqual(render.helper_modules(study, name), ["_one.py", "_three.py", "_two.py"])
        other = os.path.join(self.tmp.name, "pkgs", name, "other.py")
        self.assertEqual(render.helper_modules(other, name), [])

    def test_digest_of_a_split_study_names_its_helper(self):
        found = render.discover()
        res = kbench_results.load(SYNTHETIC)
        names = [n for n, _ in render.digest_inputs(SYNTHETIC, res, found["anzt2015/table4"])]
        self.assertEqual(names[-2:], ["analysis/studies/anzt2015_bicgstab_profile.py",
                                      "analysis/studies/_anzt2015_bicgstab_common.py"])

    def test_id_claimed_twice_is_an_error(self):
        name = self.package("studies_dup", {"one": "RENDERERS = {'x/y': len}\n",
                                            "two": "RENDERERS = {'x/y': len}\n"})
        with self.assertRaisesRegex(render.StudyPackageError, r"'x/y' is claimed by both "
                                    r"studies_dup.one and studies_dup.two"):
            render.discover(name)

    def test_module_without_renderers_is_an_error(self):
        name = self.package("studies_bare", {"bare": "X = 1\n"})
        with self.assertRaisesRegex(render.StudyPackageError, "studies_bare.bare defines no"):
            render.discover(name)

    def test_unknown_id_exits_2_listing_known_ids(self):
        with tempfile.TemporaryDirectory() as tmp:
            proc = subprocess.run(
                [sys.executable, os.path.join(HERE, "render.py"), SYNTHETIC, "--id",
                 "anzt2015/table9", "--out-dir", tmp], capture_output=True, text=True)
            self.assertEqual(proc.returncode, 2)
            self.assertIn("known ids: ", proc.stderr)
            for known in ("anzt2015/table2", "anzt2015/table3"):
                self.assertIn(known, proc.stderr)
            self.assertEqual(os.listdir(tmp), [])

    def test_help_lists_ids(self):
        out = io.StringIO()
        with contextlib.redirect_stdout(out), self.assertRaises(SystemExit) as e:
            render.main(["--help"])
        self.assertEqual(e.exception.code, 0)
        self.assertIn("anzt2015/table2, anzt2015/table3", " ".join(out.getvalue().split()))

    def test_wrong_schema_version_exits_1(self):
        self.doc["context"]["kbench_schema_version"] = 0
        stderr = io.StringIO()
        with contextlib.redirect_stderr(stderr):
            rc = render.main([self.write(self.doc), "--id", "anzt2015/table3",
                              "--out-dir", self.tmp.name])
        self.assertEqual(rc, 1)
        self.assertIn("kbench_schema_version is 0", stderr.getvalue())

    def test_missing_file_exits_1(self):
        with contextlib.redirect_stderr(io.StringIO()):
            rc = render.main([os.path.join(self.tmp.name, "none.json"), "--id", "anzt2015/table2",
                              "--out-dir", self.tmp.name])
        self.assertEqual(rc, 1)

    def test_jobs_render_each_and_report_the_failed_by_index(self):
        good = self.write(self.doc)
        jobs = [{"results": good, "id": "anzt2015/table3", "out_dir": self.tmp.name + "/a"},
                {"results": os.path.join(self.tmp.name, "none.json"), "id": "anzt2015/table2",
                 "out_dir": self.tmp.name + "/b"},
                {"results": good, "id": "anzt2015/table9", "out_dir": self.tmp.name + "/c"},
                {"results": good, "id": "anzt2015/table2", "out_dir": self.tmp.name + "/d"}]
        path = os.path.join(self.tmp.name, "jobs.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(jobs, f)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            rc = render.main(["--jobs", path])
        self.assertEqual(rc, 1)
        lines = out.getvalue().splitlines()
        self.assertEqual([l.split(":")[0] for l in lines if l.startswith("failed")],
                         ["failed 1", "failed 2"])
        self.assertIn("unknown id 'anzt2015/table9'", out.getvalue())
        for ok in ("a", "d"):  # the jobs after a failure still ran
            self.assertTrue(os.path.exists(os.path.join(self.tmp.name, ok, "table.md")), ok)
            self.assertIn(f"wrote {os.path.join(self.tmp.name, ok, 'table.md')}", lines)
        with contextlib.redirect_stdout(io.StringIO()):
            self.assertEqual(render.main(["--jobs", path.replace("jobs", "none")]), 2)
        with open(path, "w", encoding="utf-8") as f:
            json.dump([{"results": good}], f)
        stderr = io.StringIO()
        with contextlib.redirect_stderr(stderr):
            self.assertEqual(render.main(["--jobs", path]), 2)
        self.assertIn("expected a JSON list of objects", stderr.getvalue())


if __name__ == "__main__":
    unittest.main()
