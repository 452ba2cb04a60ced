"""Helpers shared by the analysis tests (test_*.py): the synthetic results file, a test case
that renders it through render.main, and readers of the Markdown it writes."""

from __future__ import annotations

import contextlib
import io
import json
import os
import struct
import sys
import tempfile
import unittest
from typing import Any, Dict, List

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import render  # noqa: E402

SYNTHETIC = os.path.join(HERE, "testdata", "synthetic_anzt2015.json")
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def table_row(markdown: str, first_cell: str) -> List[str]:
    """Cells of the Markdown table row whose first cell is `first_cell` (the first such row)."""
    for line in markdown.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and cells and cells[0] == first_cell:
            return cells
    raise AssertionError(f"no table row for {first_cell!r} in:\n{markdown}")


def header_cells(markdown: str, first: str = "Matrix") -> List[str]:
    """Cells of the first table header row starting with `first`."""
    line = next(l for l in markdown.splitlines() if l.startswith("| " + first + " |"))
    return [c.strip() for c in line.strip().strip("|").split("|")]


def section(markdown: str, heading: str) -> str:
    """The text from the line `heading` to the next '### ' heading (or the end)."""
    start = markdown.index(heading)
    end = markdown.find("\n### ", start + len(heading))
    return markdown[start:] if end < 0 else markdown[start:end]


def png_size(path: str) -> tuple:
    """(width, height) from a PNG's IHDR chunk."""
    with open(path, "rb") as f:
        head = f.read(24)
    return struct.unpack(">II", head[16:24])


class ResultsTreeTestCase(unittest.TestCase):
    """A temporary results tree (self.root) that the test fills with put() and summarizes with
    analysis/scoreboard.py (run_scoreboard)."""

    def setUp(self) -> None:
        self.tmp = tempfile.TemporaryDirectory()
        self.root = self.tmp.name

    def tearDown(self) -> None:
        self.tmp.cleanup()

    def put(self, gpu: str, item: str, document: Any) -> str:
        """Writes document (a JSON value, or raw text) to <root>/<gpu>/<item>/results.json."""
        d = os.path.join(self.root, gpu, item)
        os.makedirs(d, exist_ok=True)
        path = os.path.join(d, "results.json")
        with open(path, "w", encoding="utf-8") as f:
            f.write(document if isinstance(document, str) else json.dumps(document))
        return path

    def run_scoreboard(self) -> tuple:
        """(exit status, stdout) of scoreboard.main over self.root (stderr dropped)."""
        import scoreboard
        stdout = io.StringIO()
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(io.StringIO()):
            rc = scoreboard.main(["--results-root", self.root])
        return rc, stdout.getvalue()


class RenderTestCase(unittest.TestCase):
    """Loads the synthetic results file into self.doc; self.tmp is a fresh directory."""

    def setUp(self) -> None:
        self.tmp = tempfile.TemporaryDirectory()
        with open(SYNTHETIC, encoding="utf-8") as f:
            self.doc: Dict[str, Any] = json.load(f)

    def tearDown(self) -> None:
        self.tmp.cleanup()

    def write(self, doc: Dict[str, Any], name: str = "results.json") -> str:
        path = os.path.join(self.tmp.name, name)
        with open(path, "w", encoding="utf-8") as f:
            json.dump(doc, f)
        return path

    def render(self, doc: Dict[str, Any], item: str, out_name: str = "") -> str:
        """Runs render.main in-process into tmp/<out_name or item>; checks exit status 0, the
        paths printed and the PNG; returns table.md."""
        out_dir = os.path.join(self.tmp.name, out_name or item.replace("/", "_"))
        stdout = io.StringIO()
        with contextlib.redirect_stdout(stdout):
            rc = render.main([self.write(doc), "--id", item, "--out-dir", out_dir])
        self.assertEqual(rc, 0)
        md, png = os.path.join(out_dir, "table.md"), os.path.join(out_dir, "figure.png")
        words = stdout.getvalue().split()  # "wrote <path>" for each file written
        self.assertEqual(words[0::2], ["wrote"] * (len(words) // 2))
        self.assertTrue(set(words[1::2]) <= {md, png}, words)
        with open(png, "rb") as f:
            self.assertEqual(f.read(8), PNG_SIGNATURE)
        self.assertGreater(os.path.getsize(png), 10_000)
        with open(md, encoding="utf-8") as f:
            return f.read()
