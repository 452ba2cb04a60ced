#!/usr/bin/env python3
"""`kbench matrix fetch` against a local HTTP server laid out as the SuiteSparse collection.

usage: matrix_fetch_test.py KBENCH CASE WORKDIR

Serves <root>/MM/Test/NAME.tar.gz (Python's http.server, on a free port of 127.0.0.1) made here
from tiny generated matrices, with the test's own index, and runs one case:
  success       fetched, unpacked to NAME.mtx, checked against the index (explicit zeros and a
                symmetric file's one triangle counted as the collection counts them)
  present       a second fetch finds NAME.mtx, says so and sends no request
  stale_partial a leftover NAME.tar.gz.partial of another file: the server ignores the range,
                the download starts over
  not_found     HTTP 404: the matrix is not in the collection
  not_indexed   GROUP/NAME not in the index: no request at all
  truncated     a truncated archive: a clear error, the archive removed
  mismatch      the matrix differs from its index entry: the sizes named
  offline       connection refused on a closed port: the URL and curl's message named
  set           --set of a manifest naming two matrices fetches both
  real          after a fetch, `reproduce --real` of a model id (yamazaki2014/fig6, no GPU) runs
                on the fetched matrix, and its results and table.md say so; without --real, on
                the stand-in
Exits 0 when the case behaves, 1 with what went wrong otherwise.
"""
import functools
import http.server
import io
import json
import os
import shutil
import socket
import subprocess
import sys
import tarfile
import threading


def symmetric_mtx(n, zero_at=None):
    """Tridiagonal symmetric Matrix Market text (lower triangle), n rows; the subdiagonal entry
    of row zero_at (1-based) is an explicit zero. Returns (text, nonzeros, explicit zeros)."""
    lines = ["%%MatrixMarket matrix coordinate real symmetric", "% kbench test matrix",
             f"{n} {n} {2 * n - 1}"]
    zeros = 0
    for i in range(1, n + 1):
        lines.append(f"{i} {i} 4.0")
        if i > 1:
            value = 0.0 if i == zero_at else -1.0
            zeros += 2 if i == zero_at else 0
            lines.append(f"{i} {i - 1} {value}")
    full = n + 2 * (n - 1)
    return "\n".join(lines) + "\n", full - zeros, zeros


def make_archive(path, name, text):
    """NAME.tar.gz holding NAME/NAME_b.mtx (skipped) then NAME/NAME.mtx, as the collection's."""
    with tarfile.open(path, "w:gz") as tar:
        for member, body in ((f"{name}/{name}_b.mtx", "%%MatrixMarket matrix array real general\n1 1\n1\n"),
                             (f"{name}/{name}.mtx", text)):
            data = body.encode()
            info = tarfile.TarInfo(member)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))


class Server:
    """http.server in a thread, counting requests."""

    def __init__(self, root):
        self.requests = []
        outer = self

        class Handler(http.server.SimpleHTTPRequestHandler):
            def log_message(self, fmt, *args):
                outer.requests.append(self.path)

        handler = functools.partial(Handler, directory=root)
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def closed_port_url():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return f"http://127.0.0.1:{port}"


def main():
    kbench, case, work = sys.argv[1], sys.argv[2], sys.argv[3]
    shutil.rmtree(work, ignore_errors=True)
    root, mdir = os.path.join(work, "site"), os.path.join(work, "matrices")
    os.makedirs(os.path.join(root, "MM", "Test"))
    os.makedirs(mdir)
    index = ["group,name,num_rows,num_cols,nonzeros,num_explicit_zeros"]

    tiny, nnz, zeros = symmetric_mtx(6, zero_at=3)
    make_archive(os.path.join(root, "MM", "Test", "tiny.tar.gz"), "tiny", tiny)
    index.append(f"Test,tiny,6,6,{nnz},{zeros}")
    second, nnz2, zeros2 = symmetric_mtx(9)
    make_archive(os.path.join(root, "MM", "Test", "second.tar.gz"), "second", second)
    index.append(f"Test,second,9,9,{nnz2},{zeros2}")
    # wrongsize: the index says 7 rows and one more nonzero than the file holds
    make_archive(os.path.join(root, "MM", "Test", "wrongsize.tar.gz"), "wrongsize", tiny)
    index.append(f"Test,wrongsize,7,6,{nnz + 1},{zeros}")
    index.append("Test,missing,5,5,13,0")  # in the index, not on the server
    big, nnz3, zeros3 = symmetric_mtx(20000)
    big_tar = os.path.join(root, "MM", "Test", "big.tar.gz")
    make_archive(big_tar, "big", big)
    with open(big_tar, "rb") as f:
        data = f.read()
    with open(big_tar, "wb") as f:
        f.write(data[: len(data) // 2])
    index.append(f"Test,big,20000,20000,{nnz3},{zeros3}")
    index_file = os.path.join(work, "index.csv")
    with open(index_file, "w") as f:
        f.write("\n".join(index) + "\n")

    server = Server(root)
    env = dict(os.environ, KBENCH_CACHE_DIR=os.path.join(work, "cache"), CUDA_VISIBLE_DEVICES="")
    env.pop("KBENCH_SUITESPARSE_URL", None)

    def fetch(*args, url=None):
        cmd = [kbench, "matrix", "fetch", "--index", index_file, "--matrix-dir", mdir,
               "--base-url", url or server.url, *args]
        p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=60)
        print(f"$ {' '.join(cmd)}\n[exit {p.returncode}]\n{p.stdout}{p.stderr}")
        return p

    failures = []

    def expect(cond, what):
        if not cond:
            failures.append(what)

    def expect_ok(p):
        expect(p.returncode == 0, f"exit status {p.returncode}, expected 0")

    def expect_error(p, text):
        expect(p.returncode != 0, "exit status 0, expected an error")
        expect(text in p.stderr, f"stderr lacks {text!r}")

    tiny_out = os.path.join(mdir, "tiny.mtx")
    if case == "success":
        p = fetch("Test/tiny")
        expect_ok(p)
        expect(os.path.isfile(tiny_out) and open(tiny_out).read() == tiny, "tiny.mtx not in place")
        expect("matches the index" in p.stderr, "no verification message")
        expect(f"Test/tiny {tiny_out} (downloaded)" in p.stdout, "stdout lacks the result line")
        expect(sorted(os.listdir(mdir)) == ["tiny.mtx"], f"left over: {os.listdir(mdir)}")
    elif case == "present":
        expect_ok(fetch("Test/tiny"))
        before = len(server.requests)
        p = fetch("Test/tiny")
        expect_ok(p)
        expect(len(server.requests) == before, f"second fetch sent {server.requests[before:]}")
        expect("already there and matches the index" in p.stderr and "no download" in p.stderr,
               "no 'already there' message")
        expect(f"Test/tiny {tiny_out} (present)" in p.stdout, "stdout lacks '(present)'")
    elif case == "stale_partial":
        with open(os.path.join(mdir, "tiny.tar.gz.partial"), "wb") as f:
            f.write(b"not the start of this archive")
        p = fetch("Test/tiny")
        expect_ok(p)
        expect(os.path.isfile(tiny_out) and open(tiny_out).read() == tiny, "tiny.mtx not in place")
    elif case == "not_found":
        expect_error(fetch("Test/missing"), "Test/missing is not in the SuiteSparse collection at")
    elif case == "not_indexed":
        p = fetch("Test/nosuch")
        expect_error(p, "Test/nosuch is not in the SuiteSparse collection index")
        expect(not server.requests, f"requests sent: {server.requests}")
    elif case == "truncated":
        p = fetch("Test/big")
        expect_error(p, "big.tar.gz: corrupt or truncated archive")
        expect(not os.listdir(mdir), f"left over: {os.listdir(mdir)}")
    elif case == "mismatch":
        p = fetch("Test/wrongsize")
        expect_error(p, "does not match the collection index")
        expect(f"rows 6 (index: 7)" in p.stderr, "rows not named")
        expect(f"explicit zeros included) {nnz + zeros} (index: {nnz + 1 + zeros})" in p.stderr,
               "entries not named")
        expect(not os.path.exists(os.path.join(mdir, "wrongsize.mtx")), "wrongsize.mtx kept")
    elif case == "offline":
        url = closed_port_url()
        p = fetch("Test/tiny", url=url)
        expect_error(p, f"cannot download {url}/MM/Test/tiny.tar.gz: ")
        expect("Couldn't connect to server" in p.stderr or "onnection refused" in p.stderr,
               "curl's message missing")
        expect(not os.listdir(mdir), f"left over: {os.listdir(mdir)}")
    elif case == "set":
        manifest = os.path.join(work, "fetch_set.json")
        with open(manifest, "w") as f:
            json.dump({"name": "fetch_set", "matrices": [
                {"name": "lap", "generator": "laplacian_2d_5pt", "params": {"nx": 3, "ny": 2},
                 "suitesparse": "Test/tiny"},
                {"name": "lap2", "generator": "laplacian_2d_5pt", "params": {"nx": 3, "ny": 3},
                 "suitesparse": "Test/second"},
                {"name": "plain", "generator": "trefethen", "params": {"n": 10}}]}, f)
        p = fetch("--set", manifest)
        expect_ok(p)
        expect(os.path.isfile(tiny_out) and os.path.isfile(os.path.join(mdir, "second.mtx")),
               "not both matrices fetched")
    elif case == "real":
        manifest = os.path.join(work, "real_set.json")
        with open(manifest, "w") as f:
            json.dump({"name": "real_set", "matrices": [
                {"name": "stand_in", "generator": "laplacian_2d_5pt", "params": {"nx": 8, "ny": 8},
                 "suitesparse": "Test/second"}]}, f)
        expect_ok(fetch("--set", manifest))
        for real, used, rows in ((True, "suitesparse", 9), (False, "stand-in", 64)):
            results = os.path.join(work, "results-real" if real else "results-stand-in")
            cmd = [kbench, "reproduce", "yamazaki2014/fig6", "--set", manifest, "--matrix-dir",
                   mdir, "--results-dir", results] + (["--real"] if real else [])
            p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)
            print(f"$ {' '.join(cmd)}\n[exit {p.returncode}]\n{p.stderr[-2000:]}")
            expect_ok(p)
            try:
                with open(os.path.join(results, "model", "yamazaki2014", "fig6",
                                       "results.json")) as f:
                    m = json.load(f)["context"]["kbench"]["matrices"]["stand_in"]
                expect(m.get("matrix_used") == used, f"matrix_used {m.get('matrix_used')}, "
                                                     f"expected {used}")
                n = m.get("stats", {}).get("num_rows")
                expect(n == rows, f"{n} rows, expected {rows}")
                with open(os.path.join(results, "model", "yamazaki2014", "fig6",
                                       "table.md")) as f:
                    table = f.read()
                said = "- Matrices (--real): the SuiteSparse original for stand_in (Test/second)"
                expect((said in table) == real, f"table.md {'lacks' if real else 'has'} {said!r}")
            except (OSError, KeyError, ValueError) as e:
                failures.append(f"results of {'--real' if real else 'the stand-in'}: {e}")
    else:
        failures.append(f"unknown case {case!r}")
    server.stop()
    for f in failures:
        print(f"FAIL ({case}): {f}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
