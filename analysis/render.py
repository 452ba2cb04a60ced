#!/usr/bin/env python3
"""Renders a kbench results.json into table.md and figure.png for one reproduced item.

Usage: render.py <results.json> --id <id> --out-dir <dir>
       render.py --jobs <jobs.json>   (a list of {"results": ..., "id": ..., "out_dir": ...})

The ids are those the modules of analysis/studies/ export in their RENDERERS dicts (--help
lists the ids found). Both outputs carry a render digest (see digest_inputs); an output that
already carries the digest of this render is left untouched, so re-rendering unchanged inputs
with unchanged code changes no file. stdout lists the files written, one "wrote <path>" per line.
Exit status: 0 on success, 1 for an unreadable or invalid results file, 2 for an unknown id.
With --jobs, the renders of one process (one interpreter start for them all, which is most of a
render's time when its outputs are unchanged): each job as above, a failed one reported on stdout
as "failed <index>: <reason>" (index from 0) and the others still rendered; exit status 0 when
every job succeeded, else 1 (2 for a jobs file that cannot be read).
"""

from __future__ import annotations

import argparse
import ast
import importlib
import importlib.util
import os
import pkgutil
import sys
from types import ModuleType
from typing import Callable, Dict, List, NamedTuple, Optional, Sequence, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import kbench_results  # noqa: E402
import report  # noqa: E402


class Renderer(NamedTuple):
    render: Callable[[kbench_results.Results, str], List[str]]  # fn(results, out_dir) -> paths
    module: ModuleType                                           # the study module defining it


class StudyPackageError(RuntimeError):
    """A study module lacks RENDERERS, or two modules claim one id."""


def discover(package: str = "studies") -> Dict[str, Renderer]:
    """Imports every module of `package` (names starting with '_' or 'test' excepted, in name
    order) and merges their RENDERERS dicts into {id: Renderer}, sorted by id. Raises
    StudyPackageError for a module without RENDERERS or an id claimed twice."""
    pkg = importlib.import_module(package)
    found: Dict[str, Renderer] = {}
    for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda i: i.name):
        if info.name.startswith(("_", "test")):
            continue
        module = importlib.import_module(f"{package}.{info.name}")
        renderers = getattr(module, "RENDERERS", None)
        if not isinstance(renderers, dict):
            raise StudyPackageError(f"{module.__name__} defines no RENDERERS dict")
        for item_id, fn in renderers.items():
            if item_id in found:
                raise StudyPackageError(f"id {item_id!r} is claimed by both "
                                        f"{found[item_id].module.__name__} and {module.__name__}")
            found[item_id] = Renderer(fn, module)
    return dict(sorted(found.items()))


def helper_modules(path: str, package: str) -> List[str]:
    """The helper modules of `package` (those named '_<name>', not '__<name>') that the module
    at `path` imports, and those they import in turn: their file names ('_<name>.py'), sorted.
    An import counts in any of its forms: `from ._x import ...`, `from <package>._x import ...`,
    `from <package> import _x`, `from . import _x`, `import <package>._x`."""
    found: List[str] = []
    pending = [path]
    while pending:
        with open(pending.pop(), encoding="utf-8") as f:
            tree = ast.parse(f.read())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = importlib.util.resolve_name("." * node.level + (node.module or ""),
                                                   package) if node.level else node.module or ""
                names = [base] + [f"{base}.{a.name}" for a in node.names]
            else:
                continue
            for name in names:
                parent, _, leaf = name.rpartition(".")
                file = leaf + ".py"
                if parent == package and leaf.startswith("_") and not leaf.startswith("__") \
                        and file not in found:
                    found.append(file)
                    pending.append(os.path.join(os.path.dirname(path), file))
    return sorted(found)


def digest_inputs(results_path: str, res: kbench_results.Results,
                  renderer: Renderer) -> List[Tuple[str, bytes]]:
    """The named parts of report.render_digest, in this order: "results.json" (the results
    file's bytes), "matrix-order" (the matrix names in the order the loader gave them, one per
    line: the order can come from a manifest outside the file), then the source text of
    "analysis/render.py", "analysis/report.py", "analysis/kbench_results.py",
    "analysis/studies/<module>.py" of the renderer and "analysis/studies/_<helper>.py" of each
    helper module it imports (helper_modules, in name order)."""
    def read(path: str) -> bytes:
        with open(path, "rb") as f:
            return f.read()

    study = renderer.module.__file__
    package = renderer.module.__name__.rpartition(".")[0]
    sources = [("analysis/render.py", os.path.join(HERE, "render.py")),
               ("analysis/report.py", report.__file__),
               ("analysis/kbench_results.py", kbench_results.__file__),
               (f"analysis/studies/{os.path.basename(study)}", study)]
    sources += [(f"analysis/studies/{helper}", os.path.join(os.path.dirname(study), helper))
                for helper in helper_modules(study, package)]
    return [("results.json", read(results_path)),
            ("matrix-order", "\n".join(res.matrices.index).encode("utf-8")),
            *((name, read(path)) for name, path in sources)]


def render_one(renderers: Dict[str, Renderer], results: str, item_id: str,
               out_dir: str) -> Tuple[int, str]:
    """Renders one results file; (0, "") on success, else (exit status, reason). The files
    written are printed as "wrote <path>"."""
    renderer = renderers.get(item_id)
    if renderer is None:
        return 2, f"unknown id {item_id!r}; known ids: {', '.join(renderers)}"
    report.WRITTEN.clear()
    try:
        res = kbench_results.load(results)
        digest = report.render_digest(item_id, digest_inputs(results, res, renderer))
        with report.rendering(digest):
            renderer.render(res, out_dir)
    except (OSError, ValueError) as e:
        return 1, str(e)
    for p in report.WRITTEN:  # files left as they were are not listed
        print(f"wrote {p}")
    return 0, ""


def read_jobs(path: str) -> List[Tuple[str, str, str]]:
    """The (results, id, out_dir) triples of a --jobs file. Raises ValueError naming the file
    and what was expected."""
    import json
    with open(path, encoding="utf-8") as f:
        jobs = json.load(f)
    keys = ("results", "id", "out_dir")
    if not isinstance(jobs, list) or not all(
            isinstance(j, dict) and all(isinstance(j.get(k), str) for k in keys) for j in jobs):
        raise ValueError(f"{path}: expected a JSON list of objects with string fields "
                         f"{', '.join(keys)}")
    return [(j["results"], j["id"], j["out_dir"]) for j in jobs]


def main(argv: Optional[Sequence[str]] = None) -> int:
    renderers = discover()
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("results", nargs="?", help="kbench results.json")
    parser.add_argument("--id", help="item to render, one of: " + ", ".join(renderers))
    parser.add_argument("--out-dir", help="directory for table.md, figure.png")
    parser.add_argument("--jobs", help="JSON list of renders: results, id, out_dir each")
    args = parser.parse_args(argv)
    if args.jobs is not None:
        if args.results is not None or args.id is not None or args.out_dir is not None:
            parser.error("--jobs takes no results file, --id or --out-dir")
        try:
            jobs = read_jobs(args.jobs)
        except (OSError, ValueError) as e:
            print(f"render.py: {e}", file=sys.stderr)
            return 2
        failed = 0
        for index, (results, item_id, out_dir) in enumerate(jobs):
            code, reason = render_one(renderers, results, item_id, out_dir)
            if code != 0:
                failed += 1
                print(f"failed {index}: {reason}")
        return 1 if failed else 0
    if args.results is None or args.id is None or args.out_dir is None:
        parser.error("give a results file, --id and --out-dir (or --jobs)")
    code, reason = render_one(renderers, args.results, args.id, args.out_dir)
    if code != 0:
        print(f"render.py: {reason}", file=sys.stderr)
    return code


if __name__ == "__main__":
    sys.exit(main())
