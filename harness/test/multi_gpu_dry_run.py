#!/usr/bin/env python3
"""GPU test of the multi-GPU runners end to end on one GPU: `kbench reproduce` with
KBENCH_SHARE_GPUS=2 runs yamazaki2014/fig14 (the `kbench dist ca-gmres` workers) and
zianekhodja2014/table8 (`kbench dist gmres`, natural and hypergraph partitions) on 1 and 2 ranks
that share the GPU, on the small sets of harness/test/sets/, and checks that every host-staged
run on 2 ranks produced its rows (NCCL refuses two ranks on one GPU, so its runs are not
checked). It guards the path that the multi-GPU machines run, before one is spent on it. Then
fig14 once more with a rank made to hang: the id must fail at the rank timeout, naming the rank.

Usage: multi_gpu_dry_run.py KBENCH SETS_DIR WORK_DIR. Exit 77 (ctest: skipped) without a GPU."""

import json
import os
import re
import shutil
import subprocess
import sys

from gpu_probe import has_gpu  # harness/test, the script's own directory




def results(root: str, study_id: str) -> dict:
    for gpu in sorted(os.listdir(root)):
        path = os.path.join(root, gpu, study_id, "results.json")
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                return json.load(f)
    raise AssertionError(f"no results.json for {study_id} under {root}")


def reproduce(kbench: str, study_id: str, manifest: str, out: str, env: dict) -> None:
    cmd = [kbench, "reproduce", study_id, "--set", manifest, "--results-dir", out]
    print("+", " ".join(cmd), flush=True)
    subprocess.run(cmd, env=env, check=True)


def hung_rank_fails_the_id(kbench: str, sets_dir: str, work: str, env: dict) -> list:
    """fig14 again with rank 1 of every worker made to hang (KBENCH_FAULT_INJECT, test-only):
    its first 2-rank launch must be killed at KBENCH_RANK_TIMEOUT_S, the id reported failed
    naming rank 1, `reproduce` exit non-zero, and no results.json be written."""
    out = os.path.join(work, "hung")
    cmd = [kbench, "reproduce", "yamazaki2014/fig14", "--set",
           os.path.join(sets_dir, "dry_ca_gmres.json"), "--results-dir", out]
    print("+ KBENCH_FAULT_INJECT=rank=1:hang", " ".join(cmd), flush=True)
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300,
                       env=dict(env, KBENCH_FAULT_INJECT="rank=1:hang", KBENCH_RANK_TIMEOUT_S="60"))
    print(p.stderr[-3000:])
    failures = []
    if p.returncode == 0:
        failures.append("hung rank: reproduce exited 0")
    if not re.search(r"failed: yamazaki2014/fig14: .*KBENCH_RANK_TIMEOUT_S=60 s.*"
                     r"rank 1 of 2 did not finish", p.stderr):
        failures.append("hung rank: the summary does not name rank 1 of fig14")
    for root, _, files in os.walk(out):
        if "results.json" in files:
            failures.append(f"hung rank: {root}/results.json was written")
    return failures


def main() -> int:
    kbench, sets_dir, work = sys.argv[1:4]
    if not has_gpu():
        print("SKIPPED: no GPU (nvidia-smi -L lists none); the multi-GPU dry run needs one")
        return 77
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    env = dict(os.environ, KBENCH_SHARE_GPUS="2", KBENCH_CACHE_DIR=os.path.join(work, "cache"))
    out = os.path.join(work, "results")
    reproduce(kbench, "yamazaki2014/fig14", os.path.join(sets_dir, "dry_ca_gmres.json"), out, env)
    reproduce(kbench, "zianekhodja2014/table8", os.path.join(sets_dir, "dry_fiveband.json"), out,
              env)

    failures = []
    fig14 = results(out, "yamazaki2014/fig14")
    if fig14["context"]["kbench"].get("shared_gpus") != 2:
        failures.append("fig14: the context does not say shared_gpus = 2")
    two = [e for e in fig14["benchmarks"]
           if e.get("gpus") == 2 and e.get("transport") == "host_staged"]
    labels = [e.get("label") for e in two if "error" not in e]
    if len(labels) < 9:  # GMRES x 3, CA-GMRES(1), 4 TSQRs, Newton, two-stage
        failures.append(f"fig14 on 2 ranks: rows {labels}, errors "
                        f"{[e.get('error') for e in two if 'error' in e]}")
    if any(e.get("status") not in ("converged", "max_iterations") for e in two if "error" not in e):
        failures.append("fig14 on 2 ranks: a row broke down: "
                        f"{[(e.get('label'), e.get('status')) for e in two]}")

    table8 = results(out, "zianekhodja2014/table8")
    runs = {e["name"]: e for e in table8["benchmarks"]}
    for variant in ("natural+bandwidth", "natural+compressed", "hypergraph+compressed"):
        name = f"table8/fv1_fiveband_40k/{variant}/gpu/host_staged/P=2"
        e = runs.get(name)
        if e is None:
            failures.append(f"table8: no entry {name}")
        elif "error" in e and not (variant.startswith("hypergraph") and "Zoltan" in e["error"]):
            failures.append(f"table8: {name}: {e['error']}")
        elif "error" not in e and e.get("status") != "converged":
            failures.append(f"table8: {name}: status {e.get('status')}")
    failures += hung_rank_fails_the_id(kbench, sets_dir, work, env)
    for f in failures:
        print("FAILED:", f)
    print("multi-GPU dry run:", "failed" if failures else "passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
