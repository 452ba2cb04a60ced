"""What every study renderer (analysis/studies/*.py) shares: number formatting, Markdown tables,
the header block of a table.md, a pinned figure style, the render digest, and the writer of
table.md and figure.png.

Rendering is deterministic and idempotent: figures are drawn by Agg under FIGURE_STYLE (the
user's matplotlibrc plays no part) and saved without software or date metadata, and
write_outputs stamps both files with the render digest of the enclosing `rendering` block
(render.py opens it: see render_digest) and leaves a file that already carries that digest
untouched, so re-rendering unchanged inputs with unchanged code changes no byte on any machine.
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import io
import math
import os
import re
import struct
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple

import matplotlib

matplotlib.use("Agg")  # headless: no display on the machines that render
from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.style.core import STYLE_BLACKLIST  # noqa: E402
import numpy as np  # noqa: E402

NA = "n/a"

# ---------------------------------------------------------------- formatting


def missing(x: Any) -> bool:
    """True for None and NaN."""
    return x is None or (isinstance(x, float) and math.isnan(x))


def fmt(x: Optional[float], sig: int = 3) -> str:
    """`x` to `sig` significant digits, without exponent for 1e-3 <= |x| < 1e6 (integers at
    or above 10**sig keep all their digits: 1234.5 -> '1235'); NA for None/NaN."""
    if missing(x):
        return NA
    x = float(x)
    if x == 0.0:
        return "0"
    mag = math.floor(math.log10(abs(x)))
    if abs(x) >= 10 ** sig and mag < 6:
        return f"{x:.0f}"
    if -3 <= mag < 6:
        # round to `sig` digits first: 9.996 -> 10.0, not 10.00
        x = float(f"{x:.{sig - 1}e}")
        mag = math.floor(math.log10(abs(x)))
        return f"{x:.{max(sig - 1 - mag, 0)}f}"
    return f"{x:.{sig - 1}e}"


def fmt_pct(frac: Optional[float]) -> str:
    """A fraction as a percentage: 0.2 -> '20.0 %'; NA for None/NaN."""
    if missing(frac):
        return NA
    return fmt(100.0 * frac) + " %"


def fmt_int(x: Any) -> str:
    """An integer with thousands separators: 2000 -> '2,000'; NA for None/NaN."""
    if missing(x):
        return NA
    return f"{int(x):,}"


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[str]],
                   left: int = 1) -> str:
    """GitHub-flavoured Markdown table; the first `left` columns left-aligned (text), the
    others right-aligned (numbers). '|' inside cells is escaped."""
    esc = [[str(c).replace("|", "\\|") for c in r] for r in [headers, *rows]]
    lines = ["| " + " | ".join(r) + " |" for r in esc]
    align = [":---"] * left + ["---:"] * (len(headers) - left)
    lines.insert(1, "| " + " | ".join(align) + " |")
    return "\n".join(lines) + "\n"


def cuda_version(v: Any) -> str:
    """CUDA's integer version (1000*major + 10*minor) as 'major.minor': 13000 -> '13.0'."""
    if not isinstance(v, (int, float)) or v <= 0:
        return NA
    v = int(v)
    return f"{v // 1000}.{(v % 1000) // 10}"


def geomean(values) -> float:
    """Geometric mean of the values that are not None/NaN; NaN when there are none or one
    is <= 0."""
    v = np.asarray([x for x in values if not missing(x)], dtype=float)
    if len(v) == 0 or np.any(v <= 0):
        return math.nan
    return float(np.exp(np.mean(np.log(v))))


def gpu_title(context: dict) -> str:
    """The GPU's name from context.kbench.gpu."""
    return context.get("kbench", {}).get("gpu", {}).get("name", "unknown GPU")


def l2_cache_bytes(context: dict) -> float:
    """The GPU's L2 cache size in bytes (context.kbench.gpu.l2_cache_bytes); NaN when unknown."""
    v = context.get("kbench", {}).get("gpu", {}).get("l2_cache_bytes")
    return float(v) if isinstance(v, (int, float)) and v > 0 else math.nan


def data_in(footprint_bytes: float, context: dict) -> str:
    """Where repeated (hot-cache) calls find their data: "L2" when the distinct bytes a call
    touches fit the L2 cache, else "DRAM"; NA when either size is unknown. A hot "L2" point's
    GB/s is an L2 figure and may exceed the DRAM read bandwidth."""
    l2 = l2_cache_bytes(context)
    if math.isnan(l2) or not footprint_bytes > 0:
        return NA
    return "L2" if footprint_bytes <= l2 else "DRAM"


def real_matrices_lines(kb: dict) -> List[str]:
    """For a run with --real (context.kbench.matrix_set.real): which entries ran on the paper's
    own SuiteSparse matrix and which on their stand-in (context.kbench.matrices.<name>:
    "suitesparse", "matrix_used"). Nothing for other runs."""
    if not kb.get("matrix_set", {}).get("real"):
        return []
    used, stand_in = [], []
    for name, m in sorted(kb.get("matrices", {}).items()):
        if not m.get("suitesparse"):
            continue
        (used if m.get("matrix_used") == "suitesparse" else stand_in).append(
            f"{name} ({m['suitesparse']})")
    return [f"- Matrices (--real): the SuiteSparse original for "
            f"{', '.join(used) or 'none'}; the stand-in for {', '.join(stand_in) or 'none'}"]


def title_line(kb: dict, title: str) -> str:
    """The "# title" line of a table.md; " (quick run)" added for a quick run (kb: the results'
    context.kbench, whose "quick" is true)."""
    return f"# {title}" + (" (quick run)" if kb.get("quick") else "")


def quick_lines(kb: dict) -> List[str]:
    """The header line that says a table comes from a quick run (none for another run)."""
    if not kb.get("quick"):
        return []
    return ["- **Quick run** (`kbench reproduce --quick`): reduced sizes and repetitions, a "
            "smoke test of the pipeline; not the study's figures"]


def header_block(context: dict, title: str) -> str:
    """Markdown lines naming the GPU, software, measured bandwidth, cache mode and version; a
    quick run (context.kbench.quick) says so in the title and in a line of its own."""
    kb = context.get("kbench", {})
    gpu, machine, git = kb.get("gpu", {}), kb.get("machine", {}), kb.get("git", {})
    sha = git.get("sha", "unknown")
    dirty = " (dirty)" if git.get("dirty") else ""
    cc = gpu.get("compute_capability")
    cc_txt = f"{int(cc) // 10}.{int(cc) % 10}" if isinstance(cc, (int, float)) else NA
    ms = kb.get("matrix_set", {})
    lines = [
        title_line(kb, title),
        "",
        f"- GPU: {gpu.get('name', NA)} ({gpu.get('sm_count', NA)} SMs, compute capability "
        f"{cc_txt}, ECC {'on' if gpu.get('ecc_enabled') else 'off'}); driver "
        f"{cuda_version(gpu.get('driver_version'))}, runtime "
        f"{cuda_version(gpu.get('runtime_version'))}",
        f"- Measured bandwidth: read {fmt(machine.get('read_gbps'))} GB/s, triad "
        f"{fmt(machine.get('triad_gbps'))} GB/s; cache mode: {kb.get('cache_mode', NA)}",
        f"- Matrix set: {ms.get('name', NA)}; git {sha}{dirty}; date {context.get('date', NA)}",
        f"- Command: `{' '.join(kb.get('argv', [])) or NA}`",
    ]
    lines += real_matrices_lines(kb)
    if kb.get("shared_gpus"):
        lines.append(f"- **Dry run** (KBENCH_SHARE_GPUS={kb['shared_gpus']}): the ranks of the "
                     f"multi-GPU runs shared the visible GPUs; their times are not multi-GPU "
                     f"figures")
    lines += quick_lines(kb)
    return "\n".join(lines) + "\n\n"


# ---------------------------------------------------------------- figures
DPI = 120  # of figure.png
# rcParams every figure is drawn under, on top of matplotlib's built-in defaults (so the
# user's matplotlibrc plays no part): a font that ships with matplotlib, Agg's text and path
# settings, no locale in tick labels, white background.
FIGURE_STYLE: Dict[str, Any] = {
    "font.family": ["DejaVu Sans"],
    "font.size": 10.0,
    "mathtext.fontset": "dejavusans",
    "text.usetex": False,
    "text.antialiased": True,
    "text.hinting": "force_autohint",
    "text.hinting_factor": 8,
    "text.kerning_factor": 0,
    "axes.formatter.use_locale": False,
    "axes.unicode_minus": True,
    "path.simplify": True,
    "path.simplify_threshold": 0.111111111111,
    "agg.path.chunksize": 0,
    "figure.dpi": 100.0,
    "figure.facecolor": "white",
    "figure.autolayout": False,
    "figure.constrained_layout.use": False,
    "savefig.dpi": DPI,
    "savefig.format": "png",
    "savefig.facecolor": "white",
    "savefig.edgecolor": "white",
    "savefig.transparent": False,
    "savefig.bbox": None,
    "savefig.pad_inches": 0.1,
    "svg.hashsalt": "kbench",
    "timezone": "UTC",
}


@contextlib.contextmanager
def figure_style() -> Iterator[None]:
    """rcParams = matplotlib's built-in defaults updated with FIGURE_STYLE (keys this
    matplotlib does not know are skipped) for the duration of the block."""
    rc = {k: v for k, v in matplotlib.rcParamsDefault.items() if k not in STYLE_BLACKLIST}
    rc.update({k: v for k, v in FIGURE_STYLE.items() if k in matplotlib.rcParams})
    with matplotlib.rc_context(rc):
        yield


def new_figure(nrows: int = 1, ncols: int = 1, **kwargs: Any) -> Tuple[Figure, Any]:
    """A Figure on an Agg canvas (no pyplot state, nothing to close) and its axes, as
    pyplot.subplots(nrows, ncols, **kwargs) returns them. Call it from a make_figure function
    given to write_outputs, which draws under figure_style()."""
    subplot_keys = ("sharex", "sharey", "squeeze", "width_ratios", "height_ratios",
                    "subplot_kw", "gridspec_kw")
    sub = {k: kwargs.pop(k) for k in subplot_keys if k in kwargs}
    fig = Figure(**kwargs)
    FigureCanvasAgg(fig)
    return fig, fig.subplots(nrows, ncols, **sub)


# ---------------------------------------------------------------- digest and writer
DIGEST_KEY = "kbench-render-digest"  # PNG tEXt keyword; table.md: <!-- DIGEST_KEY: hex -->
_DIGEST_LINE = re.compile(r"<!-- " + DIGEST_KEY + r": ([0-9a-f]{64}) -->")
_digest: contextvars.ContextVar[Optional[str]] = contextvars.ContextVar("digest", default=None)


def render_digest(item_id: str, parts: Sequence[Tuple[str, bytes]]) -> str:
    """Hex SHA-256 of a render's inputs: the part ("id", item_id as UTF-8), then each
    (name, data) of `parts` in order. Each part enters the hash as name (UTF-8) + NUL + decimal
    byte length of data + NUL + data, so no two part lists collide. Parts are named, not
    located: the digest is the same wherever the files lie."""
    h = hashlib.sha256()
    for name, data in [("id", item_id.encode("utf-8")), *parts]:
        h.update(name.encode("utf-8") + b"\0" + str(len(data)).encode("ascii") + b"\0")
        h.update(data)
    return h.hexdigest()


@contextlib.contextmanager
def rendering(digest: Optional[str]) -> Iterator[None]:
    """Within the block write_outputs stamps its files with `digest` and skips those that
    already carry it. Outside any block (digest None) it always writes, unstamped."""
    token = _digest.set(digest)
    try:
        yield
    finally:
        _digest.reset(token)


def png_text(data: bytes) -> Dict[str, str]:
    """The tEXt entries of PNG bytes as {keyword: text}; {} when `data` is not a PNG."""
    if not data.startswith(b"\x89PNG\r\n\x1a\n"):
        return {}
    out, pos = {}, 8
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"tEXt" and b"\0" in body:
            key, text = body.split(b"\0", 1)
            out[key.decode("latin-1")] = text.decode("latin-1")
        if kind == b"IEND":
            break
        pos += 12 + length  # length, type, data, CRC
    return out


def stamped_digest(path: str) -> Optional[str]:
    """The render digest that the table.md (last line) or figure.png (tEXt) at `path`
    carries; None when the file is missing or has none."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    if path.endswith(".png"):
        return png_text(data).get(DIGEST_KEY)
    lines = data.decode("utf-8", "replace").rstrip("\n").rsplit("\n", 1)
    match = _DIGEST_LINE.fullmatch(lines[-1])
    return match.group(1) if match else None


def figure_png(make_figure: Callable[[], Figure], digest: Optional[str] = None) -> bytes:
    """PNG bytes of the figure `make_figure` draws under figure_style(), at DPI, with no
    metadata but the digest (when given)."""
    metadata: Dict[str, Optional[str]] = {"Software": None}  # no version, no date
    if digest:
        metadata[DIGEST_KEY] = digest
    with figure_style():
        fig = make_figure()
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=DPI, bbox_inches="tight", metadata=metadata)
    return buf.getvalue()


# Paths this process has written (render.py lists them; files left as they were are not).
WRITTEN: List[str] = []


def _replace(path: str, data: bytes) -> None:
    """Writes `data` to `path` through a temporary file (readers never see half a file),
    unless the file already holds exactly these bytes; a written path joins WRITTEN."""
    try:
        with open(path, "rb") as f:
            if f.read() == data:
                return
    except OSError:
        pass
    tmp = os.path.join(os.path.dirname(path), f".{os.path.basename(path)}.{os.getpid()}.tmp")
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)
    WRITTEN.append(path)


def write_outputs(out_dir: str, text: str, make_figure: Callable[[], Figure]) -> List[str]:
    """Writes `text` to out_dir/table.md and the figure `make_figure` draws to
    out_dir/figure.png, both stamped with the digest of the enclosing `rendering` block (table.md
    ends with the line '<!-- kbench-render-digest: <hex> -->'). A file that already carries
    that digest is left untouched (and the figure then not even drawn). Returns both paths."""
    digest = _digest.get()
    os.makedirs(out_dir, exist_ok=True)
    md, png = os.path.join(out_dir, "table.md"), os.path.join(out_dir, "figure.png")
    if digest is None or stamped_digest(md) != digest:
        body = text.rstrip("\n") + "\n"
        if digest:
            body += f"\n<!-- {DIGEST_KEY}: {digest} -->\n"
        _replace(md, body.encode("utf-8"))
    if digest is None or stamped_digest(png) != digest:
        _replace(png, figure_png(make_figure, digest))
    return [md, png]
