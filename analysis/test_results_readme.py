"""Tests of the README.md that analysis/scoreboard.py writes (analysis/results_readme.py) and of
the claims the study modules declare: a fixture results tree written here (two GPUs; a claim
that holds, one that does not, one that the results cannot decide, claims without results; a
variant folder, a folder rendered from another id's results), the index and claim rows exactly,
unchanged input leaving the file untouched, and exit 1 on an unreadable results file."""

from __future__ import annotations

import os
import sys
import unittest
from typing import Any, Dict, List, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import render  # noqa: E402
import results_readme  # noqa: E402
from claim import FAILS, HOLDS, UNTESTED, Claim  # noqa: E402
from studies import zianekhodja2014_claims as zk  # noqa: E402
from studies.zianekhodja2014 import MODEL_NAME  # noqa: E402
from testutil import ResultsTreeTestCase, table_row  # noqa: E402

SHA = "0123456789abcdef0123456789abcdef01234567"
DATE = "2026-01-02T03:04:05+00:00"
COMPRESSED, HYPER, BAND = "natural+compressed", "hypergraph+compressed", "natural+bandwidth"
T5 = zk.CLAIMS["zianekhodja2014/table5"][0].summary
T8 = zk.CLAIMS["zianekhodja2014/table8"][0].summary


def doc(entries: List[Dict[str, Any]], sha: str = SHA, dirty: bool = False) -> Dict[str, Any]:
    return {"context": {"kbench_schema_version": 1, "date": DATE,
                        "kbench": {"git": {"sha": sha, "dirty": dirty}}},
            "benchmarks": entries}


def run(item: str, matrix: str, variant: str, transport: str, gpus: int,
        seconds: float) -> Dict[str, Any]:
    """A zianekhodja2014 GPU run (bench_dist_gmres.hpp's schema); its model is 1.0625x the
    measured time per iteration, so that every model point has an error of exactly 6.25 %."""
    return {"item": item, "name": f"{item}/{matrix}/{variant}/gpu/{transport}/P={gpus}",
            "device": "gpu", "variant": variant, "transport": transport, "ranks": gpus,
            "seconds": seconds, "seconds_per_iteration": seconds / 100,
            "model": {"total": 1.0625 * seconds / 100}}


def part(md: str, heading: str) -> str:
    """The text from the line `heading` to the next '## ' heading (or the end)."""
    start = md.index(heading + "\n")
    end = md.find("\n## ", start + len(heading))
    return md[start:] if end < 0 else md[start:end]


def claim_rows(md: str) -> Dict[Tuple[str, str, str], List[str]]:
    """{(claim, judged on, GPU): [measured, verdict, reason]} of the claims tables; a row with
    empty claim cells continues the claim above it."""
    out, claim, item = {}, "", ""
    for line in part(md, "## Claims").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not line.startswith("| ") or cells[0] in ("claim", ":---"):
            continue
        claim, item = (cells[0], cells[2]) if cells[0] else (claim, item)
        out[(claim, item, cells[3])] = cells[4:]
    return out


class ResultsReadmeTest(ResultsTreeTestCase):
    def setUp(self) -> None:
        super().setUp()
        # GPU_A, table8: hypergraph 50 % and 40 % faster on 4 GPUs: median 45 % >= 32.5 %
        self.put("GPU_A", "zianekhodja2014/table8", doc([
            run("table8", "m", COMPRESSED, "host_staged", 4, 1.0),
            run("table8", "m", HYPER, "host_staged", 4, 0.5),
            run("table8", "m", COMPRESSED, "nccl", 4, 1.0),
            run("table8", "m", HYPER, "nccl", 4, 0.6)]))
        # GPU_A, table5: compressed 2 % faster on 4 GPUs: below 19 %
        self.put("GPU_A", "zianekhodja2014/table5", doc([
            run("table5", "m", BAND, "host_staged", 4, 1.0),
            run("table5", "m", COMPRESSED, "host_staged", 4, 0.98)]))
        # GPU_B, table5: one GPU only: untested
        self.put("GPU_B", "zianekhodja2014/table5", doc([
            run("table5", "m", BAND, "host_staged", 1, 1.0),
            run("table5", "m", COMPRESSED, "host_staged", 1, 1.0)], sha="fedcba9876"))
        # a variant folder of anzt2015/table3, measured on a dirty tree, with its outputs
        d = os.path.dirname(self.put("GPU_A", "anzt2015/table3-graphs", doc([], dirty=True)))
        for name in ("table.md", "figure.png"):
            with open(os.path.join(d, name), "w", encoding="utf-8") as f:
                f.write("x")
        # a folder rendered from another id's results: table.md only
        d = os.path.join(self.root, "GPU_A", "anzt2015", "fig11")
        os.makedirs(d)
        with open(os.path.join(d, "table.md"), "w", encoding="utf-8") as f:
            f.write(f"# t\n\n- Matrix set: s; git {'9' * 40} (dirty); date 2025-12-31T00:00:00Z\n")
        self.out = os.path.join(self.root, "README.md")

    def run_main(self) -> Tuple[int, str]:
        return self.run_scoreboard()

    def readme(self) -> str:
        rc, out = self.run_main()
        self.assertEqual(rc, 0)
        self.assertIn(f"wrote {self.out}\n", out)
        with open(self.out, encoding="utf-8") as f:
            return f.read()

    def test_index(self) -> None:
        md = self.readme()
        index = part(md, "## Index")
        self.assertEqual(table_row(index, "zianekhodja2014/table8")[2:],
                         ["GPU_A", "table8", "0123456", DATE, "-"])
        # GPU_A then GPU_B under one id; the second row leaves the id and title empty
        t5 = index.index("| zianekhodja2014/table5 |")
        self.assertIn("|  |  | GPU_B | table5 | fedcba9 | " + DATE + " | - |", index[t5:])
        # the variant counts under its id, with the dirty flag and its links
        self.assertEqual(table_row(index, "anzt2015/table3")[2:],
                         ["GPU_A", "table3-graphs", "0123456 (dirty)", DATE,
                          "[table.md](GPU_A/anzt2015/table3-graphs/table.md), "
                          "[figure.png](GPU_A/anzt2015/table3-graphs/figure.png)"])
        # rendered from another id's results: commit and date from its table.md
        self.assertEqual(table_row(index, "anzt2015/fig11")[2:],
                         ["GPU_A", "fig11", "9999999 (dirty)", "2025-12-31T00:00:00Z",
                          "[table.md](GPU_A/anzt2015/fig11/table.md) (no results.json: "
                          "rendered from another id's)"])
        self.assertEqual(table_row(index, "li2012/fig4")[2], "no results")
        ids = [i for i, _ in results_readme.catalogue()]
        self.assertIn(f"4 of the {len(ids)} ids of the catalogue", index)
        self.assertLess(index.index("| anzt2015/table3 |"), index.index("| anzt2015/table1 |"))

    def test_claims(self) -> None:
        md = self.readme()
        rows = claim_rows(md)
        self.assertEqual(rows[(T8, "zianekhodja2014/table8", "GPU_A")],
                         ["median 45.0 % (40.0 % to 50.0 %)", HOLDS,
                          "2 rows (matrix, transport) on 4 GPUs; holds when the median >= 32.5 % "
                          "(half the paper's, SAME_ORDER)"])
        self.assertEqual(rows[(T5, "zianekhodja2014/table5", "GPU_A")][:2],
                         ["median 2.00 % (2.00 % to 2.00 %)", FAILS])
        self.assertEqual(rows[(T5, "zianekhodja2014/table5", "GPU_B")],
                         ["n/a", UNTESTED, "no run on 2 or more GPUs"])
        # claims without results, and one whose id has only a variant folder
        claims = results_readme.claims_by_id()
        for item in ("li2012/fig4", "anzt2015/table3"):
            for claim in claims[item]:
                self.assertEqual(rows[(claim.summary, item, "-")],
                                 ["n/a", UNTESTED, f"no results for {item}"])
        n = sum(len(c) for c in claims.values())
        self.assertEqual(len(rows), n + 1)  # table5 on two GPUs, every other claim once
        self.assertIn(f"Of the {n + 1} rows (claim, GPU): 1 hold, 1 do not hold, {n - 1} "
                      "untested.", md)

    def test_threshold(self) -> None:
        # 30 % and 34 %: median 32 %, just below half the paper's 65 %
        self.put("GPU_A", "zianekhodja2014/table8", doc([
            run("table8", "m", COMPRESSED, "host_staged", 4, 1.0),
            run("table8", "m", HYPER, "host_staged", 4, 0.70),
            run("table8", "m", COMPRESSED, "nccl", 4, 1.0),
            run("table8", "m", HYPER, "nccl", 4, 0.66)]))
        self.assertEqual(claim_rows(self.readme())[(T8, "zianekhodja2014/table8", "GPU_A")][:2],
                         ["median 32.0 % (30.0 % to 34.0 %)", FAILS])

    def test_models_section(self) -> None:
        models = part(self.readme(), "## Models against measurements")
        self.assertIn("[models.md](models.md)", models)
        self.assertEqual(table_row(models, MODEL_NAME),  # the first row: GPU_A
                         [MODEL_NAME, "GPU_A", "6", "6.25 %", "6.25 %", "met"])
        self.assertIn("Goal met on 2 of 2 (model, GPU) rows.", models)

    def test_unchanged_input_leaves_file_untouched(self) -> None:
        first = self.readme()
        os.utime(self.out, ns=(1, 1))  # a rewrite would move the time stamp
        self.assertEqual(self.run_main(), (0, ""))
        self.assertEqual(os.stat(self.out).st_mtime_ns, 1)
        with open(self.out, encoding="utf-8") as f:
            self.assertEqual(f.read(), first)

    def test_unreadable_results_fail_without_writing(self) -> None:
        self.put("GPU_C", "li2012/fig4", "{ not json")
        rc, out = self.run_main()
        self.assertEqual((rc, out), (1, ""))
        self.assertFalse(os.path.exists(self.out))
        self.assertFalse(os.path.exists(os.path.join(self.root, "models.md")))

    def test_a_check_that_fails_to_run_is_an_error(self) -> None:
        def broken(res):
            raise KeyError("speedup")
        found = results_readme.stored(self.root)
        with self.assertRaisesRegex(ValueError, "GPU_A/zianekhodja2014/table8/results.json"):
            results_readme.checks({"zianekhodja2014/table8": [Claim("c", "s", "p", broken)]},
                                  found)


class ClaimsDeclaredTest(unittest.TestCase):
    def test_claims_only_modules_render_nothing(self) -> None:
        found = render.discover()
        self.assertFalse([i for i, r in found.items() if r.module.__name__.endswith("_claims")])
        self.assertIn("zianekhodja2014/table5", found)

    def test_every_claim_names_a_catalogue_id_and_its_paper(self) -> None:
        ids = {i for i, _ in results_readme.catalogue()}
        claims = results_readme.claims_by_id()
        self.assertEqual(sorted({i.split("/")[0] for i in claims}),
                         ["anzt2015", "boman2022", "li2012", "yamazaki2014", "zianekhodja2014"])
        for item_id, mine in claims.items():
            self.assertIn(item_id, ids)
            for c in mine:
                self.assertTrue(c.summary and c.source and c.paper and callable(c.check), c)
        per_paper: Dict[str, int] = {}
        for item_id, mine in claims.items():
            p = item_id.split("/")[0]
            per_paper[p] = per_paper.get(p, 0) + len(mine)
        self.assertTrue(all(2 <= n <= 5 for n in per_paper.values()), per_paper)

    def test_variant_folders_count_under_their_id(self) -> None:
        ids = {"anzt2015/table3": 1, "anzt2015/table3-x": 2}
        self.assertEqual(results_readme.declared_for(ids, "anzt2015", "table3-x-y"), 2)
        self.assertEqual(results_readme.declared_for(ids, "anzt2015", "table3-graphs"), 1)
        self.assertIsNone(results_readme.declared_for(ids, "anzt2015", "table30"))


if __name__ == "__main__":
    unittest.main()
