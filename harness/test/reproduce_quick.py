#!/usr/bin/env python3
"""Tests of `kbench reproduce --quick` end to end.

  cpu: with no visible GPU, `reproduce --quick yamazaki2014/fig6 anzt2015/fig9` and no
       --results-dir: the results go to <KBENCH_CACHE_DIR>/quick-results (said at the start and
       in the summary), fig6 (a model, CPU only) runs on the quick form of its set (its first
       matrix) with context.kbench.quick true and a table that says "quick run", fig9 (needs a
       GPU) is skipped rather than rendered from stored results, and the committed results/ is
       left as it was.
  gpu: `reproduce --quick` of three quick ids that need no matrix file (anzt2015/fig9,
       li2012/fig4, yamazaki2014/fig6) into WORK_DIR/results: exit 0, every results.json with
       context.kbench.quick true, the sweeps capped (vector lengths <= 1e6, N <= 1e5). Exit 77
       (ctest: skipped) without a GPU.

Usage: reproduce_quick.py cpu|gpu KBENCH WORK_DIR RESULTS_DIR (the committed results tree)."""

import glob
import hashlib
import json
import os
import shutil
import subprocess
import sys
from typing import Dict, List

from gpu_probe import has_gpu  # harness/test, the script's own directory




def tree_digest(root: str) -> Dict[str, str]:
    """sha256 of every file under root, by relative path."""
    out = {}
    for path in sorted(glob.glob(os.path.join(root, "**", "*"), recursive=True)):
        if os.path.isfile(path):
            with open(path, "rb") as f:
                out[os.path.relpath(path, root)] = hashlib.sha256(f.read()).hexdigest()
    return out


def run(cmd: List[str], env: dict) -> subprocess.CompletedProcess:
    print("+", " ".join(cmd), flush=True)
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    print(proc.stderr, proc.stdout, sep="", flush=True)
    return proc


def load(path: str) -> dict:
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def check_cpu(kbench: str, work: str, committed: str) -> List[str]:
    failures = []
    cache = os.path.join(work, "cache")
    root = os.path.join(cache, "quick-results")
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="", KBENCH_CACHE_DIR=cache)
    before = tree_digest(committed)
    proc = run([kbench, "reproduce", "--quick", "yamazaki2014/fig6", "anzt2015/fig9"], env)
    if proc.returncode != 0:
        failures.append(f"exit {proc.returncode}, expected 0")
    if proc.stderr.count(root) < 2:
        failures.append(f"the results root {root} is not said at the start and in the summary")
    if "quick run: not running anzt2015/fig9" not in proc.stderr:
        failures.append("anzt2015/fig9 (needs a GPU) is not said to be skipped")
    if glob.glob(os.path.join(root, "*", "anzt2015", "fig9", "*")):
        failures.append("anzt2015/fig9 wrote or rendered something in the quick results")
    fig6 = os.path.join(root, "model", "yamazaki2014", "fig6")
    if not os.path.exists(os.path.join(fig6, "results.json")):
        return failures + [f"no {fig6}/results.json"]
    kb = load(os.path.join(fig6, "results.json"))["context"]["kbench"]
    if kb.get("quick") is not True:
        failures.append("fig6: context.kbench.quick is not true")
    if list(kb.get("matrices", {})) != ["lap3d_27pt_17x17x72"]:
        failures.append(f"fig6: matrices {list(kb.get('matrices', {}))}, expected the first "
                        "entry of yamazaki2014-mpk alone")
    with open(os.path.join(fig6, "table.md"), encoding="utf-8") as f:
        if "(quick run)" not in f.readline():
            failures.append("fig6: the table's title does not say quick run")
    if tree_digest(committed) != before:
        failures.append(f"the committed results tree {committed} changed")
    return failures


def check_gpu(kbench: str, work: str) -> List[str]:
    out = os.path.join(work, "results")
    env = dict(os.environ, KBENCH_CACHE_DIR=os.path.join(work, "cache"))
    ids = ["anzt2015/fig9", "li2012/fig4", "yamazaki2014/fig6"]
    proc = run([kbench, "reproduce", "--quick", *ids, "--results-dir", out], env)
    failures = [] if proc.returncode == 0 else [f"exit {proc.returncode}, expected 0"]
    docs = {}
    for item in ids:
        found = glob.glob(os.path.join(out, "*", item, "results.json"))
        if len(found) != 1:
            failures.append(f"{item}: {len(found)} results.json under {out}, expected 1")
            continue
        docs[item] = load(found[0])
        if docs[item]["context"]["kbench"].get("quick") is not True:
            failures.append(f"{item}: context.kbench.quick is not true")
    lengths = [b.get("n", 0) for b in docs.get("anzt2015/fig9", {}).get("benchmarks", [])]
    if not lengths or max(lengths) > 1_000_000:
        failures.append(f"anzt2015/fig9: vector lengths {sorted(set(lengths))}, expected <= 1e6")
    sizes = [b.get("n", 0) for b in docs.get("li2012/fig4", {}).get("benchmarks", [])]
    if not sizes or max(sizes) > 100_000:
        failures.append(f"li2012/fig4: N {sorted(set(sizes))}, expected <= 1e5")
    return failures


def main() -> int:
    mode, kbench, work, committed = sys.argv[1:5]
    if mode == "gpu" and not has_gpu():
        print("SKIPPED: no GPU (nvidia-smi -L lists none); the quick GPU run needs one")
        return 77
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    failures = check_cpu(kbench, work, committed) if mode == "cpu" else check_gpu(kbench, work)
    for f in failures:
        print("FAILED:", f)
    print(f"reproduce --quick ({mode}):", "failed" if failures else "passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
