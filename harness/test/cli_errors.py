#!/usr/bin/env python3
"""kbench's answers to bad input and its messages without a GPU, run as a user would (issue
"a newcomer's first hour"): every case runs the binary with no GPU visible and checks the exit
status and that the output names the file or option and what was expected, never a bare C++
exception text.

usage: cli_errors.py KBENCH WORK_DIR [MPIEXEC]
"""
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import unittest

KBENCH = WORK = MPIEXEC = ""
ENV = dict(os.environ, CUDA_VISIBLE_DEVICES="")
# Texts of exceptions that escaped without context: never acceptable as a message.
BARE = re.compile(r"basic_string|bad_alloc|_M_create|std::|terminate called|Aborted")


def run(args, limit_bytes=None, env=None):
    def limit():
        if limit_bytes:
            resource.setrlimit(resource.RLIMIT_AS, (limit_bytes, limit_bytes))
    p = subprocess.run(args, capture_output=True, text=True, env=env or ENV,
                       preexec_fn=limit if limit_bytes else None, timeout=300)
    return p.returncode, p.stdout + p.stderr


def copy_committed_table2(root):
    """Copies the committed anzt2015/table2 folder of the first GPU holding one into
    root/<gpu>/anzt2015/table2; returns the GPU folder's name."""
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "results")
    gpu = next(g for g in sorted(os.listdir(src))
               if os.path.exists(os.path.join(src, g, "anzt2015", "table2", "results.json")))
    shutil.copytree(os.path.join(src, gpu, "anzt2015", "table2"),
                    os.path.join(root, gpu, "anzt2015", "table2"))
    return gpu


def write(name, text):
    path = os.path.join(WORK, name)
    with open(path, "w") as f:
        f.write(text)
    return path


class Errors(unittest.TestCase):
    def refused(self, args, pattern, limit_bytes=None):
        rc, out = run([KBENCH] + args, limit_bytes)
        self.assertNotEqual(rc, 0, f"{args}: exit 0\n{out}")
        self.assertRegex(out, pattern, f"{args}")
        self.assertNotRegex(out, BARE, f"{args}")
        self.assertNotIn("needs a GPU", out, f"{args}: options must be checked before the GPU")
        return out

    # 1: a directory where a file is expected
    def test_matrix_stats_of_a_directory(self):
        self.refused(["matrix", "stats", WORK + "/"], r"is a directory, expected a Matrix Market file")

    # 2: a size line too large for the memory at hand
    def test_huge_size_line_under_a_memory_limit(self):
        f = write("huge.mtx", "%%MatrixMarket matrix coordinate real general\n"
                  "2000000000 2000000000 3\n1 1 1.0\n2 2 1.0\n3 3 1.0\n")
        self.refused(["matrix", "stats", f], r"huge\.mtx.*2000000000 x 2000000000.*memory",
                     limit_bytes=3 << 30)

    # 3: options are validated before anything else, GPU or not
    def test_reproduce_options(self):
        for args, pattern in [
                (["--repetitions", "-3"], r"--repetitions"),
                (["--min-time", "-1"], r"--min-time"),
                (["--spmv-tune", "foo"], r"--spmv-tune.*foo.*(model|trial)"),
                (["--spmv-trials", "0"], r"--spmv-trials"),
                (["--set", "nosuchset"], r"nosuchset.*(shipped|sets)"),
                (["--matrix-dir", "/nonexistent"], r"--matrix-dir.*/nonexistent")]:
            self.refused(["reproduce", "anzt2015/table3", "--results-dir", WORK + "/r"] + args,
                         pattern)

    def test_solve_and_bench_options(self):
        for args, pattern in [
                (["solve", "bicgstab", "--max-iterations", "-5"], r"--max-iterations"),
                (["solve", "bicgstab", "--tolerance", "-1"], r"--tolerance"),
                (["solve", "bicgstab", "--repetitions", "0"], r"--repetitions"),
                (["solve", "bicgstab", "--filter", "("], r"--filter.*\(.*regular expression"),
                (["solve", "bicgstab", "--forms", "fast"], r"fast"),
                (["solve", "gmres", "--restart", "0"], r"--restart"),
                (["solve", "gmres", "--max-iterations", "-1"], r"--max-iterations"),
                (["solve", "gmres", "--repetitions", "0"], r"--repetitions"),
                (["solve", "gmres", "--filter", "("], r"--filter.*\(.*regular expression"),
                (["solve", "gmres", "--orth", "householder"], r"householder"),
                (["bench", "spmv", "--sellp-b", "-32"], r"--sellp-b"),
                (["bench", "spmv", "--filter", "("], r"--filter.*\(.*regular expression"),
                (["bench", "spmv", "--precision", "half"], r"half"),
                (["bench", "spmv", "--kernels", "nosuch"], r"nosuch")]:
            self.refused(args, pattern)

    # 4, 5: 0 for a SELL-P parameter is refused, and help and error say the same
    def test_sellp_zero_and_long_row_threshold(self):
        for args, pattern in [(["--sellp-b", "0"], r"--sellp-b.*leave it out"),
                              (["--sellp-t", "0"], r"--sellp-t.*leave it out"),
                              (["--sellp-t", "3"], r"--sellp-t.*power of two"),
                              (["--long-row-threshold", "0"], r"--long-row-threshold.*leave it out"),
                              (["--sigma", "0"], r"--sigma")]:
            self.refused(["bench", "spmv"] + args, pattern)
        rc, out = run([KBENCH, "bench", "spmv", "--help"])
        self.assertEqual(rc, 0)
        self.assertNotIn("or 0", out)

    # 6: derived ids show the results they render from; columns stay aligned
    def test_list_ids_derived_and_two_gpus(self):
        root = os.path.join(WORK, "results")
        for gpu in ("GPU_A_WITH_A_LONG_NAME", "GPU_B"):
            d = os.path.join(root, gpu, "anzt2015", "table5")
            os.makedirs(d, exist_ok=True)
            write(os.path.relpath(os.path.join(d, "results.json"), WORK), "{}")
        rc, out = run([KBENCH, "list", "--ids", "--results-dir", root])
        self.assertEqual(rc, 0, out)
        lines = [l for l in out.splitlines() if l.strip()]
        row = next(l for l in lines if l.split()[0] == "anzt2015/table4")
        self.assertIn("GPU_A_WITH_A_LONG_NAME,GPU_B", row)
        starts = {l.index("anzt2015 Table") for l in lines if "anzt2015 Table" in l}
        self.assertEqual(len(starts), 1, "descriptions start in different columns:\n" + out)

    # 7: the MPI worker without a GPU
    def test_dist_gmres_without_gpu(self):
        if not MPIEXEC:
            self.skipTest("kbench built without MPI")
        env = dict(ENV, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        rc, out = run([MPIEXEC, "-n", "1", KBENCH, "dist", "gmres", "--set", "smoke",
                       "--matrix", "lap2d_5pt_50", "--json", os.path.join(WORK, "d.json")],
                      env=env)
        self.assertNotEqual(rc, 0)
        self.assertRegex(out, r"needs a GPU \(or --device cpu\)")
        self.assertNotRegex(out, r"MPI_ABORT|ORTE_ERROR_LOG|cudaGetDeviceCount")

    # 8: without a GPU, reproduce says so plainly
    def test_reproduce_without_gpu_says_so(self):
        rc, out = run([KBENCH, "reproduce", "anzt2015/table2", "--results-dir", WORK + "/none"])
        self.assertIn("no usable GPU", out)
        self.assertNotIn("driver version is insufficient", out)

    # 9: a manifest without a top-level name
    def test_manifest_without_name(self):
        f = write("noname.json", '{"matrices": [{"name": "a", "generator": "laplacian_2d_5pt", '
                                 '"params": {"nx": 4, "ny": 4}}]}')
        self.refused(["reproduce", "anzt2015/table3", "--set", f, "--results-dir", WORK + "/r"],
                     r'noname\.json: expected a top-level "name"')

    # 10: duplicate entries are summed, with a warning
    def test_duplicate_entries_warn(self):
        f = write("dup.mtx", "%%MatrixMarket matrix coordinate real general\n"
                  "2 2 3\n1 1 1.0\n1 1 2.0\n2 2 1.0\n")
        rc, out = run([KBENCH, "matrix", "stats", f, "--json"])
        self.assertEqual(rc, 0, out)
        self.assertRegex(out, r"dup\.mtx: warning: 1 duplicate entry .*summed")

    # 11: generators and their parameters in the help
    def test_generate_help_lists_parameters(self):
        rc, out = run([KBENCH, "matrix", "generate", "--help"])
        self.assertEqual(rc, 0)
        self.assertRegex(out, r"laplacian_2d_5pt:\s+nx ")
        self.assertRegex(out, r"replicate:\s+file .*\n\s+target_rows ")

    # 12: reproduce ends with a summary and lists only files it changed
    def test_reproduce_summary(self):
        root = os.path.join(WORK, "summary")
        copy_committed_table2(root)
        args = [KBENCH, "reproduce", "anzt2015/table2", "--results-dir", root]
        rc, out = run(args)
        self.assertEqual(rc, 0, out)
        rc, out = run(args)  # nothing changes the second time
        self.assertEqual(rc, 0, out)
        self.assertNotIn("table.md", out)
        self.assertRegex(out, r"summary: 1 id: 0 ran, 1 rendered from stored results "
                              r"\(0 files changed\), 0 skipped, 0 failed")
        # An id that cannot run here and has nothing stored is listed with the reason.
        rc, out = run([KBENCH, "reproduce", "anzt2015/table2", "anzt2015/fig7",
                       "--results-dir", root])
        self.assertRegex(out, r"1 skipped, 0 failed")
        self.assertRegex(out, r"skipped: anzt2015/fig7: not run here \(.+\) and no stored results")

    # A render of stored results renders an id's variant folders (<item>-<variant>) in place
    # with the id's renderer, and no folder that only starts with the item's name.
    def test_reproduce_renders_variants(self):
        root = os.path.join(WORK, "variants")
        src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "results")
        gpu = next(g for g in sorted(os.listdir(src)) if os.path.exists(
            os.path.join(src, g, "anzt2015", "table3-graphs", "results.json")))
        for folder in ("table3-graphs", "table30"):
            os.makedirs(os.path.join(root, gpu, "anzt2015", folder), exist_ok=True)
            shutil.copy(os.path.join(src, gpu, "anzt2015", "table3-graphs", "results.json"),
                        os.path.join(root, gpu, "anzt2015", folder))
        rc, out = run([KBENCH, "reproduce", "anzt2015/table3", "--results-dir", root])
        self.assertEqual(rc, 0, out)
        self.assertTrue(os.path.exists(
            os.path.join(root, gpu, "anzt2015", "table3-graphs", "table.md")), out)
        self.assertFalse(os.path.exists(
            os.path.join(root, gpu, "anzt2015", "table30", "table.md")), out)
        self.assertRegex(out, r"summary: 1 id: 0 ran, 1 rendered from stored results")

    # A stored file that render.py cannot read fails its own id only: the other ids of the same
    # (one-process) render still render, and reproduce exits non-zero naming the file.
    def test_reproduce_render_failure_is_its_ids(self):
        root = os.path.join(WORK, "render_failure")
        gpu = copy_committed_table2(root)
        bad = os.path.join(root, gpu, "anzt2015", "table1", "results.json")
        os.makedirs(os.path.dirname(bad))
        write(os.path.relpath(bad, WORK), '{"context": {}}')
        rc, out = run([KBENCH, "reproduce", "anzt2015/table1", "anzt2015/table2",
                       "--results-dir", root])
        self.assertNotEqual(rc, 0, out)
        self.assertRegex(out, r"summary: 2 ids: 0 ran, 1 rendered from stored results .*1 failed")
        self.assertIn(f"anzt2015/table1: render.py failed for {bad}", out)
        self.assertTrue(os.path.exists(os.path.join(root, gpu, "anzt2015", "table2", "table.md")))

    # 13: --resume keeps an id done at this commit (clean tree) and runs one done at another
    def test_reproduce_resume(self):
        root = os.path.join(WORK, "resume")
        src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "results")
        item = os.path.join(root, "model", "yamazaki2014", "fig6")
        shutil.copytree(os.path.join(src, "model", "yamazaki2014", "fig6"), item)
        sha = "0123456789abcdef0123456789abcdef01234567"
        with open(os.path.join(item, "results.json"), encoding="utf-8") as f:
            doc = json.load(f)
        doc["context"]["kbench"]["git"] = {"sha": sha, "dirty": False}
        with open(os.path.join(item, "results.json"), "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=2)
        stale = os.path.join(item, ".table.md.999999999.tmp")  # left by a killed render
        write(os.path.relpath(stale, WORK), "half a table")
        args = [KBENCH, "reproduce", "yamazaki2014/fig6", "--resume", "--results-dir", root]
        rc, out = run(args, env=dict(ENV, KBENCH_GIT_SHA=sha, KBENCH_GIT_DIRTY="0"))
        self.assertEqual(rc, 0, out)
        self.assertRegex(out, r"0 ran, 0 rendered from stored results \(\d+ files? changed\), "
                              r"0 skipped, 0 failed, 1 kept")
        self.assertRegex(out, r"kept \(done at 0123456789ab\): yamazaki2014/fig6")
        self.assertFalse(os.path.exists(stale), "a killed run's temporary file was left")
        # Done at another commit: it runs again.
        rc, out = run(args, env=dict(ENV, KBENCH_GIT_SHA="f" * 40, KBENCH_GIT_DIRTY="0"))
        self.assertEqual(rc, 0, out)
        self.assertRegex(out, r"1 ran, .* 0 failed\n")
        self.assertNotIn("kept", out.split("summary:")[1])


if __name__ == "__main__":
    KBENCH, WORK = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    MPIEXEC = sys.argv[3] if len(sys.argv) > 3 else ""
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    unittest.main(argv=[sys.argv[0], "-v"])
