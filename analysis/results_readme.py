"""The text of results/README.md, generated from the stored results: what the folder holds, an
index of the results per catalogue id, the papers' claims checked against the results, and the
summary of the models' scoreboard. analysis/scoreboard.py writes it next to models.md (see its
docstring for when); this module only builds the text.

Index: every id of harness/studies/catalogue.json, in its order, with one row per folder
<root>/<gpu>/<study>/<item>/ holding results.json or table.md for it (an item '<item>-<variant>'
counts under the id of its longest declared prefix, as in models.md): the commit that measured
them (context.kbench.git.sha, 7 digits, "(dirty)" when the tree was) and context.date, and links
to table.md and figure.png. A folder with table.md but no results.json was rendered from the
results of another id of the same run (anzt2015/fig11 from anzt2015/table5): its commit and date
come from the header line of its table.md (report.header_block). Folders of ids not in the
catalogue follow.

Claims: each study module may export CLAIMS = {id: [Claim]} (analysis/claim.py); a claim is
checked on the results.json of every GPU folder holding its id exactly (variants are other
experiments), giving the measured value, the verdict and its reason; a claim whose id has no
results is listed once as untested. Papers follow the catalogue's order, claims their id's
catalogue order, then their order in CLAIMS.

Deterministic: sorted, no date of its own.
"""

from __future__ import annotations

import glob
import importlib
import json
import os
import pkgutil
import re
import sys
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Sequence, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import kbench_results  # noqa: E402
import render  # noqa: E402
from claim import FAILS, HOLDS, UNTESTED, VERDICTS, Claim, ClaimCheck  # noqa: E402
from report import NA, fmt_int, fmt_pct, markdown_table  # noqa: E402

CATALOGUE = os.path.join(os.path.dirname(HERE), "harness", "studies", "catalogue.json")
OUTPUT = "README.md"
HEADER_GIT = re.compile(r"; git (\S+)( \(dirty\))?; date (\S+)$", re.MULTILINE)


class Stored(NamedTuple):
    """One folder <root>/<gpu>/<study>/<item>/ with results.json or table.md."""
    gpu: str
    study: str
    item: str
    results: Optional[kbench_results.Results]  # None: table.md only (another id's results)
    sha: str    # the commit, "" when unknown
    dirty: bool
    date: str   # context.date, "" when unknown

    @property
    def folder(self) -> str:
        return f"{self.gpu}/{self.study}/{self.item}"


def catalogue(path: str = CATALOGUE) -> List[Tuple[str, str]]:
    """(id, title) of every item of the catalogue (harness/studies/catalogue.json), in order.
    Raises ValueError when it cannot be read."""
    try:
        with open(path, encoding="utf-8") as f:
            return [(i["id"], i.get("title", "")) for i in json.load(f)["items"]]
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise ValueError(f"{path}: {e}") from e


def declared_for(declared: Dict[str, Any], study: str, item: str) -> Any:
    """declared[<study>/<item>], else declared[<study>/<prefix>] for an item '<prefix>-...' (the
    longest such prefix declared); None when neither is declared."""
    if f"{study}/{item}" in declared:
        return declared[f"{study}/{item}"]
    parts = item.split("-")
    for k in range(len(parts) - 1, 0, -1):
        prefix = "-".join(parts[:k])
        if f"{study}/{prefix}" in declared:
            return declared[f"{study}/{prefix}"]
    return None


def claims_by_id(package: str = "studies") -> Dict[str, List[Claim]]:
    """{id: [Claim]} merged from the CLAIMS dicts of the modules render.discover imports (every
    module of `package` whose name starts with neither '_' nor 'test', claims-only ones with an
    empty RENDERERS included), in module name order; modules without CLAIMS declare none."""
    render.discover(package)  # imports the modules and checks them as render.py does
    pkg = importlib.import_module(package)
    found: Dict[str, List[Claim]] = {}
    for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda i: i.name):
        if info.name.startswith(("_", "test")):
            continue
        module = importlib.import_module(f"{package}.{info.name}")
        for item_id, claims in getattr(module, "CLAIMS", {}).items():
            found.setdefault(item_id, []).extend(claims)
    return found


def _from_table(path: str) -> Tuple[str, bool, str]:
    """(sha, dirty, date) from the header line that report.header_block writes into table.md;
    ("", False, "") when it has none."""
    with open(path, encoding="utf-8") as f:
        m = HEADER_GIT.search(f.read())
    return (m.group(1), bool(m.group(2)), m.group(3)) if m else ("", False, "")


def stored(root: str) -> List[Stored]:
    """Every folder <root>/<gpu>/<study>/<item>/ with results.json or table.md, in path order.
    Raises ValueError naming the file when a results.json or table.md cannot be read."""
    folders = {os.path.dirname(p) for name in ("results.json", "table.md")
               for p in glob.glob(os.path.join(root, "*", "*", "*", name))}
    out = []
    for d in sorted(folders):
        item_dir, study_dir = d, os.path.dirname(d)
        gpu = os.path.basename(os.path.dirname(study_dir))
        path = os.path.join(d, "results.json")
        try:
            if os.path.exists(path):
                res = kbench_results.load(path)
                git = res.context.get("kbench", {}).get("git", {}) or {}
                sha, dirty, date = (str(git.get("sha") or ""), bool(git.get("dirty")),
                                    str(res.context.get("date") or ""))
            else:
                path = os.path.join(d, "table.md")
                res, (sha, dirty, date) = None, _from_table(path)
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
            raise ValueError(f"{path}: {e}") from e
        out.append(Stored(gpu, os.path.basename(study_dir), os.path.basename(item_dir), res,
                          sha, dirty, date))
    return out


# ---------------------------------------------------------------- Markdown
def intro() -> str:
    """The opening: what results/ holds and that this file is generated."""
    return (
        "# results/\n\n"
        "Measured results, one folder per GPU and reproduction id: `results/<gpu>/<study>/<item>/` "
        "holds `results.json` (Google Benchmark JSON with kbench's context: GPU, machine "
        "profile, git SHA, matrices and their statistics), `table.md` and `figure.png` "
        "(rendered by `analysis/render.py` from the JSON alone). `<gpu>` is the GPU's name with "
        "non-alphanumerics replaced by `_`, e.g. `NVIDIA_H200`; the ids that need no GPU "
        "(performance models and counts) are under `results/model/<study>/<item>/` (see "
        "`model/README.md`). Every number here was measured by `kbench reproduce` on the GPU the "
        "folder names; nothing is typed in by hand.\n\n"
        "This file is generated by `analysis/scoreboard.py`, which `kbench reproduce` runs at "
        "its end, from the results files and the claims the study modules declare "
        "(`CLAIMS` in `analysis/studies/*_claims.py`): edit those, not this file. Parts: "
        "[index](#index), [claims](#claims), [models](#models-against-measurements).\n")


def commit_cell(s: Stored) -> str:
    """The first 7 digits of the commit, "(dirty)" after them when the tree was; n/a unknown."""
    return NA if not s.sha else s.sha[:7] + (" (dirty)" if s.dirty else "")


def files_cell(root: str, s: Stored) -> str:
    """Links, relative to `root`, to the folder's table.md and figure.png (those present)."""
    links = [f"[{name}]({s.folder}/{name})" for name in ("table.md", "figure.png")
             if os.path.exists(os.path.join(root, s.folder, name))]
    note = "" if s.results is not None else " (no results.json: rendered from another id's)"
    return (", ".join(links) or "-") + note


def index(root: str, items: Sequence[Tuple[str, str]], found: Sequence[Stored]) -> str:
    """The index table: per catalogue id its folders, or "no results"; then the others."""
    ids = {i: i for i, _ in items}
    by_id: Dict[str, List[Stored]] = {}
    for s in found:
        by_id.setdefault(declared_for(ids, s.study, s.item) or f"{s.study}/{s.item}",
                         []).append(s)
    rows = []
    extra = [(i, "(not in the catalogue)") for i in sorted(set(by_id) - set(ids))]
    for item_id, title in [*items, *extra]:
        mine = by_id.get(item_id, [])
        if not mine:
            rows.append([item_id, title, "no results", "", "", "", ""])
        for k, s in enumerate(mine):
            rows.append([item_id if k == 0 else "", title if k == 0 else "", s.gpu, s.item,
                         commit_cell(s), s.date or NA, files_cell(root, s)])
    have = sum(1 for i, _ in items if by_id.get(i))
    return ("## Index\n\n"
            f"{have} of the {len(items)} ids of the catalogue (`harness/studies/catalogue.json`) "
            "have results. One row per folder `<gpu>/<study>/<item>`; a folder "
            "`<item>-<variant>` holds another run of the id (other matrices or settings). "
            "commit: the kbench commit that measured them (`context.kbench.git.sha`, \"(dirty)\" "
            "when its tree had uncommitted changes); date: `context.date`. A folder without "
            "`results.json` was rendered from the results of another id of the same run; its "
            "commit and date are read from its `table.md`.\n\n"
            + markdown_table(["id", "title", "GPU", "folder", "commit", "date", "files"], rows,
                             left=7))


def checks(claims: Dict[str, List[Claim]], found: Sequence[Stored]
           ) -> List[Tuple[str, Claim, str, ClaimCheck]]:
    """(id, claim, GPU, check) for every claim and every GPU folder holding its id exactly, in
    GPU order; (id, claim, "-", untested) for a claim whose id has none. Raises ValueError naming
    the folder and the claim when a check fails to run."""
    out = []
    for item_id, mine in claims.items():
        folders = [s for s in found if f"{s.study}/{s.item}" == item_id and s.results is not None]
        for claim in mine:
            if not folders:
                out.append((item_id, claim, "-", ClaimCheck(NA, UNTESTED, f"no results for "
                                                                        f"{item_id}")))
            for s in folders:
                try:
                    check = claim.check(s.results)
                except (ValueError, KeyError, TypeError, IndexError, ZeroDivisionError,
                        AttributeError) as e:
                    raise ValueError(f"{s.folder}/results.json: claim {claim.summary!r}: "
                                     f"{type(e).__name__}: {e}") from e
                if check.verdict not in VERDICTS:
                    raise ValueError(f"{s.folder}: claim {claim.summary!r}: verdict "
                                     f"{check.verdict!r} is not one of {VERDICTS}")
                out.append((item_id, claim, s.gpu, check))
    return out


def claims_section(items: Sequence[Tuple[str, str]], claims: Dict[str, List[Claim]],
                   found: Sequence[Stored]) -> str:
    """One table per paper (catalogue order): claim, paper, results id, GPU, measured, verdict,
    reason; the claim's cells only on its first row."""
    order = {i: k for k, (i, _) in enumerate(items)}
    ordered = dict(sorted(claims.items(), key=lambda kv: (order.get(kv[0], len(order)), kv[0])))
    rows = checks(ordered, found)
    counts = {v: sum(1 for *_, c in rows if c.verdict == v) for v in VERDICTS}
    text = ("## Claims\n\n"
            f"{sum(len(c) for c in claims.values())} claims of the papers, each in one line of "
            "our own words with the paper's number and where the paper makes it, checked on the "
            "results of the id named (per GPU folder holding it): the measured value, the "
            "verdict (holds, does not hold, untested: no results or not the rows the check "
            "needs) and its reason: the rows judged and the threshold (constants of "
            "`analysis/studies/<paper>_claims.py` and `analysis/claim.py`). The papers ran on "
            "GPUs of 2011-2017, so a claim is judged on its direction and size, not its exact "
            f"figure. Of the {len(rows)} rows (claim, GPU): {counts[HOLDS]} hold, "
            f"{counts[FAILS]} do not hold, {counts[UNTESTED]} untested.\n")
    papers: List[str] = []
    for item_id in ordered:
        p = item_id.split("/")[0]
        if p not in papers:
            papers.append(p)
    for p in papers:
        body, last = [], None
        for item_id, claim, gpu, c in rows:
            if item_id.split("/")[0] != p:
                continue
            first = (item_id, claim) != last
            last = (item_id, claim)
            body.append([claim.summary if first else "",
                         f"{claim.source}: {claim.paper}" if first else "",
                         item_id if first else "", gpu, c.measured, c.verdict, c.reason])
        text += f"\n### {p}\n\n" + markdown_table(
            ["claim", "paper", "judged on", "GPU", "measured", "verdict", "reason"], body,
            left=7)
    return text


def models_section(summaries: Sequence[Any], goal: Callable[[Any], str]) -> str:
    """The per-model summary of models.md: model, GPU, points, median and largest error, goal.
    `summaries`: scoreboard.Summary rows; goal(s): "met" or "not met" (scoreboard.goal)."""
    text = ("## Models against measurements\n\n"
            "[models.md](models.md), written by the same script, sets every model prediction "
            "that a rendered table puts next to a measurement against it; error = |model / "
            "measured - 1|, goal: issue 31's (median and largest error), defined there with the "
            "worst point of each row and the share of points within the project's target.\n\n")
    if not summaries:
        return text + "No model points in the stored results.\n"
    rows = [[s.model, s.gpu, fmt_int(s.count), fmt_pct(s.median_error), fmt_pct(s.worst_error),
             goal(s)] for s in summaries]
    met = sum(1 for s in summaries if goal(s) == "met")
    return (text + markdown_table(["model", "GPU", "points", "median error", "largest error",
                                   "goal"], rows, left=2)
            + f"\nGoal met on {met} of {len(summaries)} (model, GPU) rows.\n")


def markdown(root: str, summaries: Sequence[Any], goal: Callable[[Any], str],
             catalogue_path: str = CATALOGUE) -> str:
    """The text of <root>/README.md from the results under `root`, the catalogue, the study
    modules' CLAIMS and the models' `summaries` (scoreboard.summarise). Raises ValueError when a
    results file cannot be read or a claim cannot be checked on it."""
    items = catalogue(catalogue_path)
    found = stored(root)
    return "\n".join([intro(), index(root, items, found),
                      claims_section(items, claims_by_id(), found),
                      models_section(summaries, goal)])


def has_results(root: str) -> bool:
    """True when `root` holds a results.json or table.md in a <gpu>/<study>/<item> folder."""
    return any(glob.glob(os.path.join(root, "*", "*", "*", name))
               for name in ("results.json", "table.md"))
