"""Tests of analysis/peer_solvers.py (SciPy on the CPU; CuPy is exercised on the GPU machine): each
solver converges on a small nonsymmetric system written here, the counts are consistent, bad
arguments are rejected, and a missing backend exits with status 2 and names the package."""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import peer_solvers as peers  # noqa: E402

try:
    import numpy as np
    import scipy.io
    import scipy.sparse
    HAVE_SCIPY = True
except ImportError:  # pragma: no cover - depends on the machine
    HAVE_SCIPY = False


def convection_diffusion_2d(n: int, w: float):
    """5-point upwind convection-diffusion on an n x n grid (nonsymmetric M-matrix)."""
    h = 1.0 / (n + 1)
    main = np.full(n * n, 4.0 + h * w)
    rows, cols, vals = [], [], []
    for i in range(n * n):
        x, y = i % n, i // n
        rows.append(i); cols.append(i); vals.append(main[i])
        if x > 0:
            rows.append(i); cols.append(i - 1); vals.append(-1.0 - h * w)
        if x < n - 1:
            rows.append(i); cols.append(i + 1); vals.append(-1.0)
        if y > 0:
            rows.append(i); cols.append(i - n); vals.append(-1.0)
        if y < n - 1:
            rows.append(i); cols.append(i + n); vals.append(-1.0)
    return scipy.sparse.csr_matrix((vals, (rows, cols)), shape=(n * n, n * n))


@unittest.skipUnless(HAVE_SCIPY, "SciPy is not installed (Debian: python3-scipy)")
class ScipyPeers(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.path = os.path.join(cls.tmp.name, "cd.mtx")
        scipy.io.mmwrite(cls.path, convection_diffusion_2d(30, 40.0))

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_every_solver_converges_with_consistent_counts(self):
        for solver in ("gmres", "bicgstab"):
            with self.subTest(solver=solver):
                r = peers.run(self.path, solver, "scipy", restart=20, tolerance=1e-8,
                              max_steps=2000, repetitions=1)
                self.assertTrue(r["converged"], r)
                self.assertLessEqual(r["true_residual"], 1e-8 * 1.0001)
                self.assertGreater(r["steps"], 1)
                self.assertLess(r["steps"], 2000)
                self.assertGreaterEqual(r["spmvs"], r["steps"])  # one or more A v per step
                self.assertEqual(r["n"], 900)
                self.assertGreater(r["seconds"], 0.0)
        r = peers.run(self.path, "gmres", "scipy", restart=20, tolerance=1e-8, max_steps=2000,
                      repetitions=1)
        self.assertEqual(r["cycles"], -(-r["steps"] // 20))

    def test_step_limit_reports_not_converged(self):
        r = peers.run(self.path, "gmres", "scipy", restart=5, tolerance=1e-12, max_steps=10,
                      repetitions=1)
        self.assertFalse(r["converged"])
        self.assertNotEqual(r["info"], 0)

    def test_bad_arguments(self):
        with self.assertRaises(ValueError):
            peers.run(self.path, "minres", "scipy", 30, 1e-8, 100)
        with self.assertRaises(ValueError):
            peers.run(self.path, "gmres", "scipy", 0, 1e-8, 100)
        with self.assertRaises(ValueError):
            peers.run(self.path, "gmres", "numba", 30, 1e-8, 100)
        with self.assertRaises(ValueError):
            peers.run(self.path, "gmres", "scipy", 30, 1e-8, 100, rhs="zeros")


class MissingBackend(unittest.TestCase):
    def test_missing_cupy_exits_2_naming_the_package(self):
        try:
            import cupy  # noqa: F401
            self.skipTest("CuPy is installed here: nothing missing")
        except ImportError:
            pass
        err, out = io.StringIO(), io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
            status = peers.main(["--matrix", "/nonexistent.mtx", "--backend", "cupy"])
        self.assertEqual(status, 2)
        self.assertIn("cupy", err.getvalue().lower())
        self.assertIn("cupy", json.loads(out.getvalue())["skipped"].lower())


if __name__ == "__main__":
    unittest.main()
