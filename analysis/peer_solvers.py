"""Krylov solvers of other projects on one system, for the peers comparison of issue 28: SciPy's
gmres, bicgstab and cg on the CPU and CuPy's (cupyx.scipy.sparse.linalg, cuSPARSE SpMV) on the
GPU, each timed to a tolerance with the same right-hand side and initial guess kbench uses.

    python3 analysis/peer_solvers.py --matrix A.mtx --solver gmres --backend scipy --restart 30 \\
        --tolerance 1e-8 --max-steps 3000 [--rhs ones|random] [--repetitions 3] [--json out.json]

Prints one JSON object (and writes it with --json): solver, backend and its version, n, nnz,
restart, tolerance, steps (Arnoldi steps of GMRES, iterations of BiCGSTAB and CG), cycles (GMRES
restart cycles), seconds (median of the timed solves after one untimed one), seconds_per_step,
spmvs (products A v, counted in the untimed solve, which runs through a counting operator),
callbacks, true_residual = ||b - A x|| / ||b|| recomputed in double on the host, converged (true_residual <=
tolerance times 1.0001) and step_counting, which says how steps were counted:
* SciPy gmres calls its callback once per Arnoldi step (callback_type "pr_norm") and stops inside
  a cycle when its residual estimate reaches the tolerance: steps = the calls.
* CuPy gmres checks convergence only between restart cycles and always runs whole cycles of
  `restart` steps, each with one more product for its residual: steps = cycles x restart with
  cycles = (spmvs - 1) // (restart + 1).
* bicgstab and cg call the callback once per iteration in both libraries.
The tolerance is relative to ||b|| in both (x0 = 0); newer SciPy names it rtol, older ones tol;
both are handled. The right-hand side: "ones" is b = A * ones (kbench solve bicgstab's), "random"
uniform [-1, 1) from numpy's default generator seeded with 2022.

Exit status 2 when the backend is not installed (CuPy is an optional dependency: the GPU image
has it, CI does not) or has no such solver (a CuPy older than bicgstab's): a message naming the
module on stderr, and {"skipped": <the same reason>} on stdout for kbench's results entry.
"""

from __future__ import annotations

import argparse
import inspect
import json
import statistics
import sys
import time
from typing import Any, Callable, Dict, List


class BackendMissing(RuntimeError):
    """The requested library is not installed."""


def load_matrix(path: str):
    """The Matrix Market file (.mtx or .mtx.gz) as a SciPy CSR matrix of doubles."""
    import scipy.io
    import scipy.sparse

    return scipy.sparse.csr_matrix(scipy.io.mmread(path), dtype="float64")


def right_hand_side(a, kind: str):
    import numpy as np

    if kind == "ones":
        return a @ np.ones(a.shape[1])
    if kind == "random":
        return np.random.default_rng(2022).uniform(-1.0, 1.0, a.shape[0])
    raise ValueError(f"--rhs {kind!r}: expected 'ones' or 'random'")


def tolerance_keyword(function: Callable[..., Any]) -> str:
    """'rtol' where the function takes it (SciPy >= 1.12, recent CuPy), else 'tol'."""
    return "rtol" if "rtol" in inspect.signature(function).parameters else "tol"


def backend_module(backend: str):
    """(linalg module, sparse module, array module, version, synchronize) of the backend."""
    if backend == "scipy":
        try:
            import numpy
            import scipy
            import scipy.sparse
            import scipy.sparse.linalg
        except ImportError as e:  # pragma: no cover - depends on the machine
            raise BackendMissing(f"SciPy is not installed ({e}); Debian: python3-scipy") from e
        return scipy.sparse.linalg, scipy.sparse, numpy, f"scipy {scipy.__version__}", lambda: None
    if backend == "cupy":
        try:
            import cupy
            import cupyx.scipy.sparse
            import cupyx.scipy.sparse.linalg
        except ImportError as e:
            raise BackendMissing(f"CuPy is not installed ({e}); pip install cupy-cuda13x") from e
        sync = cupy.cuda.get_current_stream().synchronize
        return (cupyx.scipy.sparse.linalg, cupyx.scipy.sparse, cupy, f"cupy {cupy.__version__}",
                sync)
    raise ValueError(f"--backend {backend!r}: expected 'scipy' or 'cupy'")


def run(matrix: str, solver: str, backend: str, restart: int, tolerance: float, max_steps: int,
        rhs: str = "ones", repetitions: int = 3) -> Dict[str, Any]:
    """One peer solve, timed (see the module docstring for the fields)."""
    import numpy as np

    if solver not in ("gmres", "bicgstab", "cg"):
        raise ValueError(f"--solver {solver!r}: expected gmres, bicgstab or cg")
    if restart < 1 or max_steps < 1 or repetitions < 1 or not tolerance > 0.0:
        raise ValueError("--restart, --max-steps and --repetitions must be >= 1 and "
                         "--tolerance > 0")
    linalg, sparse, xp, version, synchronize = backend_module(backend)
    a_host = load_matrix(matrix)
    b_host = right_hand_side(a_host, rhs)
    a = a_host if backend == "scipy" else sparse.csr_matrix(a_host)
    b = xp.asarray(b_host)
    function = getattr(linalg, solver, None)
    if function is None:
        raise BackendMissing(f"{version} has no {solver}")
    kwargs: Dict[str, Any] = {tolerance_keyword(function): tolerance, "atol": 0.0}
    if solver == "gmres":
        kwargs["restart"] = restart
        if backend == "scipy":
            # SciPy's maxiter counts restart cycles.
            kwargs["maxiter"] = max(1, -(-max_steps // restart))
        else:
            # CuPy's maxiter counts Arnoldi steps, in whole cycles.
            kwargs["maxiter"] = max_steps
        kwargs["callback_type"] = "pr_norm"
    else:
        kwargs["maxiter"] = max_steps

    calls: List[int] = [0]
    products: List[int] = [0]

    def callback(_: Any) -> None:
        calls[0] += 1

    def counted_matvec(v):
        products[0] += 1
        return a @ v

    counting_operator = linalg.LinearOperator(a.shape, matvec=counted_matvec, dtype=b.dtype)

    def solve(operator):
        calls[0] = products[0] = 0
        synchronize()
        t0 = time.perf_counter()
        x, info = function(operator, b, x0=xp.zeros_like(b), callback=callback, **kwargs)
        synchronize()
        return x, info, time.perf_counter() - t0, calls[0], products[0]

    # Untimed, through an operator that counts the products A v: the count, and the warm-up of
    # the timed solves (library set-up, kernels' first launches; A v is the same product).
    _, _, _, _, spmvs = solve(counting_operator)
    timed = [solve(a) for _ in range(repetitions)]
    x, info, _, count, _ = timed[-1]
    seconds = statistics.median(t[2] for t in timed)
    x_host = np.asarray(x.get() if hasattr(x, "get") else x)
    true_residual = float(np.linalg.norm(b_host - a_host @ x_host) / np.linalg.norm(b_host))
    if solver == "gmres" and backend == "cupy":
        # Whole cycles of `restart` products plus one residual product per cycle and a last one.
        cycles = max(0, (spmvs - 1) // (restart + 1))
        steps = cycles * restart
        counting = ("CuPy gmres runs whole cycles and checks convergence between them: steps = "
                    "cycles x restart, cycles from the products A v counted")
    elif solver == "gmres":
        steps = count
        cycles = -(-steps // restart) if steps else 0
        counting = "SciPy gmres: one callback per Arnoldi step"
    else:
        steps, cycles = count, None
        counting = "one callback per iteration"
    return {
        "solver": solver, "backend": backend, "version": version, "matrix": matrix,
        "n": int(a_host.shape[0]), "nnz": int(a_host.nnz), "rhs": rhs,
        "restart": restart if solver == "gmres" else None, "tolerance": tolerance,
        "max_steps": max_steps, "info": int(info), "steps": steps, "cycles": cycles,
        "spmvs": spmvs, "callbacks": count,
        "seconds": seconds, "seconds_per_step": seconds / steps if steps else None,
        "repetitions": repetitions, "true_residual": true_residual,
        "converged": true_residual <= tolerance * 1.0001, "step_counting": counting,
    }


def main(argv: List[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--matrix", required=True, help="Matrix Market file (.mtx or .mtx.gz)")
    p.add_argument("--solver", default="gmres", help="gmres, bicgstab or cg")
    p.add_argument("--backend", default="scipy", help="scipy (CPU) or cupy (GPU)")
    p.add_argument("--restart", type=int, default=30, help="GMRES restart length m")
    p.add_argument("--tolerance", type=float, default=1e-8, help="||b - Ax|| / ||b|| to reach")
    p.add_argument("--max-steps", type=int, default=3000, help="Arnoldi steps / iterations")
    p.add_argument("--rhs", default="ones", help="ones (b = A * ones) or random")
    p.add_argument("--repetitions", type=int, default=3, help="timed solves (median)")
    p.add_argument("--json", help="also write the result to this file")
    args = p.parse_args(argv)
    try:
        result = run(args.matrix, args.solver, args.backend, args.restart, args.tolerance,
                     args.max_steps, args.rhs, args.repetitions)
    except BackendMissing as e:
        print(f"peer_solvers.py: {e}", file=sys.stderr)
        print(json.dumps({"skipped": str(e)}))  # the reason, for kbench's entry
        return 2
    except (ValueError, OSError) as e:
        print(f"peer_solvers.py: error: {e}", file=sys.stderr)
        return 1
    text = json.dumps(result, indent=1)
    print(text)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            f.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
