#!/usr/bin/env python3
"""The scoreboards of the stored results: every model prediction stored next to a measurement,
summarised per model and GPU into <root>/models.md, and <root>/README.md, the results' index with
the papers' claims checked against them and the models' summary (analysis/results_readme.py).

Usage: scoreboard.py [--results-root DIR]   (default: the repository's results/)

models.md: reads every <root>/<gpu>/<study>/<item>/results.json and asks the study module that
declares the id <study>/<item> in its MODEL_POINTS dict for its points (analysis/model_point.py):
the pairs the renderer of that id compares, read with the renderer's helpers. An item named
<item>-<variant> (e.g. anzt2015/table3-spmv-stress) takes the points of <study>/<item>. A file
whose id declares no model points adds nothing; a point whose model or measured value is
missing (or the measured one not positive) counts for no error, and a (model, GPU) with no other
point is listed with 0 points as untested.

Per (model, GPU) the table gives the number of points, the median and the largest
|model / measured - 1|, the worst point with its ratio, the share of points within
TARGET_ERROR and whether the goal of issue 31 (median <= GOAL_MEDIAN, worst <= GOAL_WORST) is
met.

README.md (analysis/results_readme.py): what the folder holds; an index of every id of
harness/studies/catalogue.json with its folders, their commit, date and links to table.md and
figure.png (or "no results"); every claim the study modules declare in their CLAIMS dicts
(analysis/claim.py), checked on each GPU folder holding its id, with the measured value, the
verdict (holds, does not hold, untested) and its reason; and the per-model summary of models.md.

Both files are sorted and carry no date, and each is written only when its content changes, so
re-running on unchanged results changes nothing; neither is created under a root without
results (models.md: without model points). stdout: "wrote <path>" per file written. Exit
status: 0 on success, 1 when a results file cannot be read or its points or claims cannot be
computed (nothing is written then).
"""

from __future__ import annotations

import argparse
import glob
import os
import statistics
import sys
from typing import Dict, List, NamedTuple, Optional, Sequence, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import kbench_results  # noqa: E402
import render  # noqa: E402
import results_readme  # noqa: E402
from model_point import ModelPoint  # noqa: E402
from report import NA, fmt, fmt_pct, markdown_table  # noqa: E402

TARGET_ERROR = 0.15  # the project's target: a model within 15 % of the measurement
GOAL_MEDIAN = 0.10   # issue 31: median |model / measured - 1| at most 10 % ...
GOAL_WORST = 0.25    # ... and the worst point at most 25 %
OUTPUT = "models.md"


class Scored(NamedTuple):
    """A point of one results file: the GPU folder it was stored under and its name, which
    starts with the item folder (e.g. "table8/...")."""
    gpu: str
    name: str
    point: ModelPoint


def model_points_by_id(package: str = "studies") -> Dict[str, object]:
    """{id: fn} merged from the MODEL_POINTS dicts of the study modules (those render.discover
    imports); modules without one declare no model points."""
    found: Dict[str, object] = {}
    for renderer in render.discover(package).values():
        for item_id, fn in getattr(renderer.module, "MODEL_POINTS", {}).items():
            found[item_id] = fn
    return found


def points_function(declared: Dict[str, object], study: str, item: str):
    """The function of <study>/<item>, else of <study>/<prefix> for an item '<prefix>-...'
    (the longest such prefix declared); None when neither is declared."""
    return results_readme.declared_for(declared, study, item)


def point_name(item: str, point: str) -> str:
    """`point` prefixed with its item folder, unless it already starts with it."""
    return point if point.startswith(item + "/") else f"{item}/{point}"


def collect(root: str, declared: Optional[Dict[str, object]] = None) -> List[Scored]:
    """Every point under `root`, in path order, those without a usable pair included (summarise
    leaves them out of the errors). Raises ValueError naming the file when one cannot be read or
    its points cannot be computed."""
    declared = model_points_by_id() if declared is None else declared
    out: List[Scored] = []
    for path in sorted(glob.glob(os.path.join(root, "*", "*", "*", "results.json"))):
        item_dir = os.path.dirname(path)
        study_dir = os.path.dirname(item_dir)
        gpu = os.path.basename(os.path.dirname(study_dir))
        item, study = os.path.basename(item_dir), os.path.basename(study_dir)
        fn = points_function(declared, study, item)
        if fn is None:
            continue
        try:
            points = fn(kbench_results.load(path))
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise ValueError(f"{path}: {e}") from e
        # A NaN ratio is no usable pair; it is kept so that summarise can report a model whose
        # stored points all lack a value (e.g. results written before a measured field).
        out += [Scored(gpu, point_name(item, p.point), p) for p in points]
    return out


class Summary(NamedTuple):
    model: str
    gpu: str
    count: int
    median_error: float  # median |model / measured - 1|
    worst_error: float   # largest |model / measured - 1|
    worst_name: str
    worst_ratio: float
    within: float        # share of points with |model / measured - 1| <= TARGET_ERROR


def summarise(points: Sequence[Scored]) -> List[Summary]:
    """One Summary per (model, GPU), sorted by model then GPU, over the points with a usable
    pair (model and measured values, measured > 0); the worst point is the first in name order
    among equal errors. A (model, GPU) whose points have no usable pair gets a Summary of count
    0 (its errors NaN): goal() calls it untested."""
    groups: Dict[Tuple[str, str], List[Scored]] = {}
    for s in points:
        groups.setdefault((s.point.model, s.gpu), []).append(s)
    out = []
    for (model, gpu), group in sorted(groups.items()):
        group = sorted((s for s in group if s.point.ratio == s.point.ratio),
                       key=lambda s: s.name)
        if not group:
            nan = float("nan")
            out.append(Summary(model, gpu, 0, nan, nan, "", nan, nan))
            continue
        errors = [abs(s.point.ratio - 1.0) for s in group]
        worst = max(range(len(group)), key=lambda i: (errors[i], -i))
        out.append(Summary(model, gpu, len(group), statistics.median(errors), errors[worst],
                           group[worst].name, group[worst].point.ratio,
                           sum(e <= TARGET_ERROR for e in errors) / len(group)))
    return out


def goal(s: Summary) -> str:
    if s.count == 0:
        return "untested (no stored point has both values)"
    return "met" if s.median_error <= GOAL_MEDIAN and s.worst_error <= GOAL_WORST else "not met"


def markdown(summaries: Sequence[Summary]) -> str:
    """The text of models.md."""
    text = ("# Models against measurements\n\n"
            "Every model prediction that a rendered table puts next to a measurement, per model "
            "and GPU (written by analysis/scoreboard.py at the end of `kbench reproduce`). "
            "error = |model / measured - 1|; worst: the point of the largest error, with its "
            f"model / measured; within {fmt_pct(TARGET_ERROR)}: the share of points whose "
            f"error is at most {fmt_pct(TARGET_ERROR)} (the project's target); goal (issue 31): "
            f"median error <= {fmt_pct(GOAL_MEDIAN)} and worst <= {fmt_pct(GOAL_WORST)}. Point "
            "names start with the results item they come from.\n\n")
    if not summaries:
        return text + "No model points in the stored results.\n"
    rows = [[s.model, s.gpu, str(s.count), fmt_pct(s.median_error), fmt_pct(s.worst_error),
             f"{s.worst_name} ({fmt(s.worst_ratio)})" if s.count else NA, fmt_pct(s.within),
             goal(s)]
            for s in summaries]
    return text + markdown_table(["model", "GPU", "points", "median error", "largest error",
                                  "worst point (model / measured)",
                                  f"within {fmt_pct(TARGET_ERROR)}", "goal"], rows, left=2)


def write_if_changed(path: str, text: str) -> bool:
    """Writes `text` to `path` unless it already holds exactly that; True when written. As
    report.py's writer, through a temporary file renamed over `path` (readers, and a run killed
    mid-way, never leave half a file)."""
    try:
        with open(path, encoding="utf-8") as f:
            if f.read() == text:
                return False
    except OSError:
        pass
    tmp = os.path.join(os.path.dirname(path), f".{os.path.basename(path)}.{os.getpid()}.tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)
    return True


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--results-root", default=os.path.join(os.path.dirname(HERE), "results"),
                        help="folder holding <gpu>/<study>/<item>/results.json")
    args = parser.parse_args(argv)
    root = args.results_root
    try:
        summaries = summarise(collect(root))
        readme = results_readme.markdown(root, summaries, goal)
    except ValueError as e:
        print(f"scoreboard.py: {e}", file=sys.stderr)
        return 1
    outputs = [(os.path.join(root, OUTPUT), markdown(summaries), bool(summaries)),
               (os.path.join(root, results_readme.OUTPUT), readme,
                results_readme.has_results(root))]
    for path, text, wanted in outputs:
        if not wanted and not os.path.exists(path):
            continue  # nothing to report: no file is created
        if write_if_changed(path, text):
            print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
