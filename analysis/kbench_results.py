"""Loader for kbench results files.

A kbench results file is Google Benchmark's JSON output (so google/benchmark's
tools/compare.py reads it) with kbench additions under ``context.kbench`` and a ``kbench``
object per benchmark. This module checks the schema version (as nvbench's
python/scripts/nvbench_json/version.py does) and turns the file into pandas DataFrames.

Public API
----------
load(path) -> Results(context, benchmarks, matrices, entries)
    context     dict, the file's "context" object unchanged.
    benchmarks  DataFrame, one row per median aggregate (plus one row per benchmark that
                reported an error and has no median), columns BENCHMARK_COLUMNS.
    matrices    DataFrame indexed by matrix name, in manifest order, columns MATRIX_COLUMNS.
    entries     list of dicts, the file's "benchmarks" array unchanged: the studies that time
                with their own loops (BiCGSTAB solves, dot-kernel sweeps) write entries of
                their own shape, which their renderers read from here.
"""

from __future__ import annotations

import json
import math
import os
from typing import Any, Dict, List, NamedTuple, Optional

import pandas as pd

SCHEMA_VERSION = 1

# Microseconds per unit of Google Benchmark's "time_unit" field.
_US_PER_UNIT = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}

BENCHMARK_COLUMNS = [
    "study", "kernel", "precision", "matrix", "time_us", "GBps", "GFlops", "bw_frac_read",
    "bw_frac_triad", "max_rel_error", "n", "nnz", "stored_entries", "bytes_read",
    "bytes_written", "flops", "model_us", "repetitions", "params", "run_name", "error_occurred",
    "error_message",
]
# Benchmark counters read into columns of the same name (NaN where a benchmark has none;
# model_us, the performance model's predicted time, only exists for modeled kernels).
_COUNTERS = ["GBps", "GFlops", "bw_frac_read", "bw_frac_triad", "max_rel_error", "n", "nnz",
             "stored_entries", "bytes_read", "bytes_written", "flops", "model_us"]

STAT_KEYS = [
    "num_rows", "num_cols", "nnz", "row_nnz_min", "row_nnz_mean", "row_nnz_max", "bandwidth",
    "pattern_symmetric", "value_symmetric", "sellp_padding_ratio", "sellp_slice_height",
    "sellp_threads_per_row", "sellp_sigma", "sellp_long_row_threshold", "sellp_long_rows",
]
MATRIX_COLUMNS = ["source", "source_kind", "stands_for", "spec", *STAT_KEYS, "nnz_per_row"]


class SchemaVersionError(ValueError):
    """The file is not a kbench results file of a version this loader reads."""


class Results(NamedTuple):
    context: Dict[str, Any]
    benchmarks: pd.DataFrame
    matrices: pd.DataFrame
    entries: List[Dict[str, Any]] = []


def check_version(context: Dict[str, Any], path: str = "<results>") -> None:
    """Raises SchemaVersionError unless context.kbench_schema_version == SCHEMA_VERSION
    (and context.kbench.schema_version, when present, agrees)."""
    version = context.get("kbench_schema_version")
    if version is None:
        raise SchemaVersionError(
            f"{path}: context.kbench_schema_version is missing: not a kbench results file "
            f"(expected version {SCHEMA_VERSION})")
    if version != SCHEMA_VERSION:
        raise SchemaVersionError(
            f"{path}: kbench_schema_version is {version!r}, this reader supports version "
            f"{SCHEMA_VERSION} only")
    inner = context.get("kbench", {}).get("schema_version", SCHEMA_VERSION)
    if inner != SCHEMA_VERSION:
        raise SchemaVersionError(
            f"{path}: context.kbench.schema_version is {inner!r}, expected {SCHEMA_VERSION}")


def source_kind(source: str) -> str:
    """'real' for a Matrix Market file, 'replicated' for the replicate generator (a real
    matrix copied along the diagonal, zianekhodja2014 Sec. 5.2), 'generated' otherwise."""
    if source == "file":
        return "real"
    if source == "replicate":
        return "replicated"
    return "generated"


def _split_run_name(run_name: str) -> List[Optional[str]]:
    """'spmv/<kernel>/<precision>/<matrix>' -> [study, kernel, precision, matrix]."""
    parts = run_name.split("/", 3)
    return parts + [None] * (4 - len(parts))


def _benchmark_row(b: Dict[str, Any]) -> Dict[str, Any]:
    run_name = b.get("run_name", b.get("name", ""))
    study, kernel, precision, matrix = _split_run_name(run_name)
    kb = b.get("kbench", {})
    row: Dict[str, Any] = {
        "study": kb.get("study", study),
        "kernel": kb.get("kernel", kernel),
        "precision": kb.get("precision", precision),
        "matrix": kb.get("matrix", matrix),
        "params": kb.get("params", {}),
        "run_name": run_name,
        "repetitions": b.get("repetitions"),
        "error_occurred": bool(b.get("error_occurred", False)),
        "error_message": b.get("error_message", ""),
    }
    unit = b.get("time_unit", "ns")  # Google Benchmark's default unit
    if unit not in _US_PER_UNIT:
        raise ValueError(f"benchmark {b.get('name')!r}: time_unit {unit!r} is not one of "
                         f"{sorted(_US_PER_UNIT)}")
    real_time = b.get("real_time")
    row["time_us"] = math.nan if real_time is None else float(real_time) * _US_PER_UNIT[unit]
    for c in _COUNTERS:
        v = b.get(c)
        row[c] = math.nan if v is None else float(v)
    return row


def benchmarks_frame(benchmarks: List[Dict[str, Any]]) -> pd.DataFrame:
    """Median aggregates of `benchmarks` (Google Benchmark entries), one row each, plus the
    errored runs that have no median (Google Benchmark computes no aggregate for them)."""
    medians = [b for b in benchmarks
               if b.get("run_type") == "aggregate" and b.get("aggregate_name") == "median"]
    have = {b.get("run_name") for b in medians}
    errored = {}
    for b in benchmarks:
        if b.get("error_occurred") and b.get("run_name", b.get("name")) not in have:
            errored.setdefault(b.get("run_name", b.get("name")), b)
    rows = [_benchmark_row(b) for b in medians + list(errored.values())]
    return pd.DataFrame(rows, columns=BENCHMARK_COLUMNS)


def _manifest_order(kb: Dict[str, Any], results_path: str) -> List[str]:
    """Matrix names in the order of the manifest named by context.kbench.matrix_set, or []
    when the manifest cannot be found (then the file's own order is kept)."""
    ms = kb.get("matrix_set", {})
    manifest = ms.get("manifest") or ""
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    candidates = [manifest, os.path.join(os.path.dirname(results_path), manifest),
                  os.path.join(repo, manifest)]
    if ms.get("name"):
        candidates.append(os.path.join(repo, "matrices", "sets", ms["name"] + ".json"))
    for c in candidates:
        if c and os.path.isfile(c):
            try:
                with open(c, encoding="utf-8") as f:
                    return [m["name"] for m in json.load(f).get("matrices", [])]
            except (OSError, ValueError, KeyError, TypeError):
                return []
    return []


def matrices_frame(kb: Dict[str, Any], results_path: str = "") -> pd.DataFrame:
    """context.kbench.matrices as a DataFrame indexed by matrix name, in manifest order
    (matrices the manifest does not list follow in file order)."""
    rows = []
    for name, m in kb.get("matrices", {}).items():
        stats = m.get("stats", {})
        row = {"matrix": name, "source": m.get("source", ""),
               "source_kind": source_kind(m.get("source", "")),
               "stands_for": m.get("stands_for", ""), "spec": m.get("spec", {})}
        row.update({k: stats.get(k) for k in STAT_KEYS})
        rows.append(row)
    df = pd.DataFrame(rows, columns=["matrix", *MATRIX_COLUMNS[:-1]]).set_index("matrix")
    df["nnz_per_row"] = df["nnz"].astype(float) / df["num_rows"].astype(float)
    order = _manifest_order(kb, results_path)
    if order:
        pos = {name: i for i, name in enumerate(order)}
        keys = [(pos.get(name, len(pos)), i) for i, name in enumerate(df.index)]
        df = df.iloc[sorted(range(len(df)), key=lambda i: keys[i])]
    return df


def load(path: str) -> Results:
    """Reads the kbench results file at `path`.

    Raises OSError when it cannot be read, ValueError when it is not JSON or lacks the
    "context"/"benchmarks" keys, SchemaVersionError (a ValueError) for a schema version other
    than SCHEMA_VERSION."""
    with open(path, encoding="utf-8") as f:
        try:
            doc = json.load(f)
        except json.JSONDecodeError as e:
            raise ValueError(f"{path}: not valid JSON: {e}") from e
    if not isinstance(doc, dict) or "context" not in doc:
        raise ValueError(f"{path}: expected a Google Benchmark JSON object with 'context' and "
                         f"'benchmarks' keys")
    context = doc["context"]
    check_version(context, path)
    entries = doc.get("benchmarks", [])
    if not isinstance(entries, list):
        raise ValueError(f"{path}: 'benchmarks' is a {type(entries).__name__}, expected a list")
    benchmarks = benchmarks_frame(entries)
    matrices = matrices_frame(context.get("kbench", {}), path)
    return Results(context, benchmarks, matrices, entries)
